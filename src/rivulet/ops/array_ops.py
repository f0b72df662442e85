"""Shape and layout ops (tf.reshape, tf.zeros_like, tf.where, tf.identity ...)."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from ._rules import UNKNOWN, broadcast_shape, same_shape, static_value, to_tensor

# ---------------------------------------------------------------- identity
IDENTITY = defop("Identity", lambda x: x, same_shape, grad=lambda op, dy: (dy,))


def identity(input, name=None):  # noqa: A002
    return bind(IDENTITY, (to_tensor(input),), name=name or "Identity")


# ---------------------------------------------------------------- reshape
def _reshape_kernel(x, shape):
    size = np.size(x)
    known = [d for d in shape if d != -1]
    n = int(np.prod(known)) if known else 1
    if (shape.count(-1) == 0 and n != size) or (shape.count(-1) == 1 and (n == 0 or size % n)):
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {size} values, but the requested shape "
            f"{'has ' + str(n) if -1 not in shape else 'requires a multiple of ' + str(n)}")
    return np.reshape(x, shape)


def _reshape_infer(x, shape):
    if shape.count(-1) > 1:
        raise ValueError(f"Only one input size may be -1, not both {shape.index(-1)} and "
                         f"{len(shape) - 1 - shape[::-1].index(-1)}")
    n = x.shape.num_elements()
    known = int(np.prod([d for d in shape if d != -1])) if shape else 1
    if -1 in shape:
        if n is not None:
            if known == 0 or n % known:
                raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape requires "
                                 f"a multiple of {known}")
            return TensorShape([n // known if d == -1 else d for d in shape]), x.dtype
        return TensorShape([None if d == -1 else d for d in shape]), x.dtype
    if n is not None and n != known:
        raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape has {known}")
    return TensorShape(list(shape)), x.dtype


RESHAPE = defop("Reshape", _reshape_kernel, _reshape_infer, is_view=True,
                grad=lambda op, dy: (bind(RESHAPE_LIKE, (dy, op.inputs[0])),))
RESHAPE_LIKE = defop("ReshapeLike", lambda x, ref: np.reshape(x, np.shape(ref)),
                     lambda x, ref: (ref.shape, x.dtype), is_view=True,
                     grad=lambda op, dy: (bind(RESHAPE_LIKE, (dy, op.inputs[0])), None))


def reshape(tensor, shape, name=None):
    x = to_tensor(tensor)
    sv = static_value(shape) if not isinstance(shape, (list, tuple)) else None
    if isinstance(shape, (list, tuple)):
        dims = []
        for d in shape:
            v = static_value(d) if not isinstance(d, (int, np.integer)) else d
            if v is None:
                raise NotImplementedError("tf.reshape with a shape computed in the graph is not supported yet")
            dims.append(int(v))
    elif sv is not None:
        dims = [int(d) for d in np.asarray(sv).reshape(-1)]
    else:
        raise NotImplementedError("tf.reshape with a shape computed in the graph is not supported yet")
    return bind(RESHAPE, (x,), {"shape": dims}, name=name or "Reshape")


# ---------------------------------------------------------------- zeros/ones like
ZEROS_LIKE = defop("ZerosLike", lambda x: np.zeros_like(x), same_shape, grad=lambda op, dy: (None,))
ONES_LIKE = defop("OnesLike", lambda x: np.ones_like(x), same_shape, grad=lambda op, dy: (None,))


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input)
    out = bind(ZEROS_LIKE, (x,), name=name or "zeros_like")
    if dtype is not None and _dt.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


def ones_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input)
    out = bind(ONES_LIKE, (x,), name=name or "ones_like")
    if dtype is not None and _dt.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


# ---------------------------------------------------------------- where (select)
def _select_infer(c, x, y):
    if c.dtype is not _dt.bool:
        raise TypeError(f"The condition of tf.where must be bool, got {c.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"x and y of tf.where must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    return broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape), x.dtype


def _select_grad(op, dy):
    from .math_ops import sum_to, zeros_like_
    c, x, y = op.inputs
    z = zeros_like_(dy)
    return None, sum_to(where(c, dy, z), x), sum_to(where(c, z, dy), y)


SELECT = defop("SelectV2", np.where, _select_infer, grad=_select_grad)
WHERE_INDICES = defop("Where", lambda c: np.argwhere(c).astype(np.int64),
                      lambda c: (TensorShape([None, c.shape.rank]), _dt.int64))


def where(condition, x=None, y=None, name=None):
    c = to_tensor(condition)
    if x is None and y is None:
        if c.dtype is not _dt.bool:
            from .math_ops import cast
            c = cast(c, _dt.bool)
        return bind(WHERE_INDICES, (c,), name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    from ._rules import binary_args
    x, y = binary_args(x, y)
    return bind(SELECT, (c, x, y), name=name or "SelectV2")


# ---------------------------------------------------------------- unstack (used to iterate symbolic tensors)
def _unstack_kernel(x, num, axis):
    return tuple(np.take(x, i, axis=axis) for i in range(num))


def _unstack_infer(x, num, axis):
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype)] * num
    dims = list(s)
    del dims[axis]
    return [(TensorShape(dims), x.dtype)] * num


def _unstack_grad(op, *dys):
    return (stack(list(dys), axis=op.attrs["axis"]),)


# num_outputs=-1: the count varies with the `num` attr, and bind returns a list.
UNPACK = defop("Unpack", _unstack_kernel, _unstack_infer, grad=_unstack_grad, num_outputs=-1)


def _stack_infer(*xs, axis):
    s = xs[0].shape
    for x in xs[1:]:
        if x.dtype is not xs[0].dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types [{xs[0].dtype.name}, "
                            f"{x.dtype.name}] that don't all match.")
        if not s.is_compatible_with(x.shape):
            raise ValueError(f"Shapes of all inputs must match: values[0].shape = {_fmt(xs[0].shape)} != "
                             f"values[1].shape = {_fmt(x.shape)}")
        s = s.merge_with(x.shape)
    if s.rank is None:
        return UNKNOWN, xs[0].dtype
    dims = list(s)
    ax = axis % (len(dims) + 1)
    dims.insert(ax, len(xs))
    return TensorShape(dims), xs[0].dtype


def _fmt(s):
    return "[" + ",".join("?" if d is None else str(d) for d in s) + "]" if s.rank is not None else "<unknown>"


PACK = defop("Pack", lambda *xs, axis: np.stack(xs, axis=axis), _stack_infer,
             grad=lambda op, dy: tuple(unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])))


def stack(values, axis=0, name="stack"):
    xs = [to_tensor(v) for v in values]
    from ._rules import _convert_like
    from ..core.tensor import Tensor
    if xs and not all(isinstance(v, Tensor) for v in values):
        first = next(v for v in values if isinstance(v, Tensor))
        xs = [v if isinstance(v, Tensor) else _convert_like(v, first.dtype) for v in values]
    rank = xs[0].shape.rank
    if rank is not None and not -(rank + 1) <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-(rank + 1)}, {rank + 1})")
    return bind(PACK, tuple(xs), {"axis": axis if axis >= 0 or rank is None else axis + rank + 1}, name=name)


def unstack(value, num=None, axis=0, name="unstack"):
    x = to_tensor(value)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("Cannot infer argument `num` from shape <unknown>")
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    axis %= rank
    if num is None:
        num = x.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return list(bind(UNPACK, (x,), {"num": num, "axis": axis}, name=name))
