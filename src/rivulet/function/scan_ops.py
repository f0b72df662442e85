"""tf.scan, tf.foldl and tf.foldr: an accumulator carried over the rows of `elems` (nested structures of tensors).

Eagerly the rows are visited in a Python loop (the tape sees each step); while tracing, in a tf.while_loop whose
step results gather in TensorArrays, as TensorFlow builds them, so the loop and its gradient are graph ops."""
from .. import nest
from ..core import context
from ..core.tensor import convert_to_tensor
from ..ops import array_ops as _a
from ..ops.tensor_array_ops import TensorArray
from .control_flow import while_loop


def _prepare(elems, what):
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems!r}")
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars ({what})")
    n = _a.shape(flat[0])[0]
    return flat, n


def _rows(elems, flat, n):
    if context.current_graph() is None:
        def read(i):
            vals = [_a.gather(e, i) for e in flat]
            return nest.pack_sequence_as(elems, vals) if nest.is_nested(elems) else vals[0]
        return read
    arrays = [TensorArray(e.dtype, size=n, element_shape=e.shape[1:]).unstack(e) for e in flat]

    def read(i):
        vals = [ta.read(i) for ta in arrays]
        return nest.pack_sequence_as(elems, vals) if nest.is_nested(elems) else vals[0]
    return read


def _start(elems, flat, initializer, reverse, n):
    """(initial accumulator, first step index, number of steps) over the visiting order."""
    if initializer is not None:
        return nest.map_structure(convert_to_tensor, initializer), 0, n
    first = n - 1 if reverse else 0
    vals = [_a.gather(e, first) for e in flat]
    return (nest.pack_sequence_as(elems, vals) if nest.is_nested(elems) else vals[0]), 1, n


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """Stacks fn(acc, row) over the rows of elems (the first row is the first accumulator when no initializer:
    it is the output's first row then); reverse visits the rows from the last, the output keeping row order."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    flat, n = _prepare(elems, "scan")
    read = _rows(elems, flat, n)
    acc, start, count = _start(elems, flat, initializer, reverse, n)
    own_first = initializer is None

    def index(k):
        return n - 1 - k if reverse else k

    if context.current_graph() is None:
        steps = int(count.numpy())
        outs = [acc] if own_first and steps > 0 else []
        for k in range(start, steps):
            acc = fn(acc, read(index(k)))
            outs.append(acc)
        if reverse:
            outs = outs[::-1]
        flat_out = [_a.stack([nest.flatten(o)[j] for o in outs]) for j in range(len(nest.flatten(acc)))] \
            if outs else [_a.zeros([0], convert_to_tensor(a).dtype) for a in nest.flatten(acc)]
        return nest.pack_sequence_as(acc, flat_out)

    acc_flat = [convert_to_tensor(a) for a in nest.flatten(acc)]
    tas = [TensorArray(a.dtype, size=n, element_shape=a.shape) for a in acc_flat]
    if own_first:
        first = index(0)
        tas = [ta.write(first, a) for ta, a in zip(tas, acc_flat)]

    def body(k, acc_flat, tas):
        new = fn(nest.pack_sequence_as(acc, acc_flat), read(index(k)))
        new_flat = [convert_to_tensor(v) for v in nest.flatten(new)]
        tas = [ta.write(index(k), v) for ta, v in zip(tas, new_flat)]
        return k + 1, new_flat, tas

    _, _, tas = while_loop(lambda k, a, t: k < count, body, (start, acc_flat, tas),
                           parallel_iterations=parallel_iterations)
    return nest.pack_sequence_as(acc, [ta.stack() for ta in tas])


def _fold(fn, elems, initializer, reverse, what):
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    flat, n = _prepare(elems, what)
    read = _rows(elems, flat, n)
    acc, start, count = _start(elems, flat, initializer, reverse, n)

    def index(k):
        return n - 1 - k if reverse else k

    if context.current_graph() is None:
        for k in range(start, int(count.numpy())):
            acc = fn(acc, read(index(k)))
        return acc
    acc_flat = [convert_to_tensor(a) for a in nest.flatten(acc)]

    def body(k, acc_flat):
        new = fn(nest.pack_sequence_as(acc, acc_flat), read(index(k)))
        return k + 1, [convert_to_tensor(v) for v in nest.flatten(new)]

    _, out = while_loop(lambda k, a: k < count, body, (start, acc_flat))
    return nest.pack_sequence_as(acc, out)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1]) (elems[0] starts when no initializer)."""
    return _fold(fn, elems, initializer, False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """foldl from the last row to the first."""
    return _fold(fn, elems, initializer, True, "foldr")
