"""tf.ragged functions, and TensorFlow's ops on RaggedTensors: elementwise ops act on the flat values,
reductions and concat follow the rows. `register_dispatch` puts them in ops/composite.py's table, which the
public tf.* / tf.math.* / tf.strings.* functions consult, as TensorFlow's dispatch does; it runs when this
package is first imported (a RaggedTensor cannot exist before)."""

import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor, convert_to_tensor
from ..ops import array_ops as _a, composite as _composite, math_ops as _m, sort_segment_ops as _seg
from ..errors import InvalidArgumentError
from .tensor import RaggedTensor, _t, outer_rowids


# ---------------------------------------------------------------- constant
def _depth(x):
    d = 0
    while isinstance(x, (list, tuple)):
        if not x:
            return d + 1
        x = x[0]
        d += 1
    return d


def _max_depth(x):
    if isinstance(x, (list, tuple)):
        return 1 + max((_max_depth(v) for v in x), default=0)
    return 0


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dt.int64):
    """A RaggedTensor from a nested Python list (every ragged dimension split by row_splits)."""
    if isinstance(pylist, RaggedTensor):
        return pylist
    depth = _max_depth(pylist)
    if depth == 0:
        raise ValueError("tf.ragged.constant needs a nested list of rank >= 1")
    inner_rank = len(inner_shape) if inner_shape is not None else 0
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - inner_rank) if depth > 1 else 0
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    splits = [[0] for _ in range(ragged_rank)]
    leaves = []

    def walk(rows, level):
        for row in rows:
            if not isinstance(row, (list, tuple)):
                raise ValueError(f"all scalar values must have the same nesting depth: {pylist!r}")
            splits[level].append(splits[level][-1] + len(row))
            if level + 1 < ragged_rank:
                walk(row, level + 1)
            else:
                leaves.extend(row)

    walk(pylist, 0)
    if leaves:
        flat = convert_to_tensor(leaves, dtype=dtype)
    else:
        flat = convert_to_tensor(np.zeros((0,) + tuple(inner_shape or ()),
                                          _dt.as_dtype(dtype or _dt.float32)._np))
    result = flat
    for level in reversed(splits):
        result = RaggedTensor.from_row_splits(result, np.asarray(level, np.int64), validate=False)
    return result


def map_flat_values(op, *args, **kwargs):
    """op applied to the flat values of the RaggedTensor arguments (which must share their row partitions)."""
    partition = [None]

    def flat(x):
        if isinstance(x, RaggedTensor):
            if partition[0] is None:
                partition[0] = x
            return x.flat_values
        return x
    new_args = [flat(a) for a in args]
    new_kwargs = {k: flat(v) for k, v in kwargs.items()}
    if partition[0] is None:
        raise ValueError("map_flat_values requires at least one input to be a RaggedTensor")
    return partition[0].with_flat_values(op(*new_args, **new_kwargs))


# ---------------------------------------------------------------- elementwise
def _same_partition(a, b):
    sa, sb = a.nested_row_splits, b.nested_row_splits
    if len(sa) != len(sb):
        raise ValueError("RaggedTensors have different ragged ranks")
    for x, y in zip(sa, sb):
        vx, vy = getattr(x, "_v", None), getattr(y, "_v", None)
        if vx is not None and vy is not None and not np.array_equal(vx, vy):
            raise InvalidArgumentError("Inputs must have identical ragged splits. Condition x == y did not hold.")


def binary(name, x, y, fn=None):
    """An elementwise op with a RaggedTensor operand: RaggedTensors must share their row partitions; a dense
    operand broadcasts against the flat values when its ragged dimensions are 1 (one value per outer row, or
    one for all), else its rows must have the RaggedTensor's lengths."""
    fn = fn or getattr(_m, name)
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        _same_partition(x, y)
        return x.with_flat_values(fn(x.flat_values, y.flat_values))
    rt, other, rt_first = (x, y, True) if isinstance(x, RaggedTensor) else (y, x, False)
    if not isinstance(other, Tensor):
        if isinstance(other, (list, tuple)) and _depth(other) > 1 and _is_ragged_list(other):
            other = constant(other, dtype=rt.dtype)
        else:
            other = convert_to_tensor(other, dtype_hint=rt.dtype)
    if isinstance(other, RaggedTensor):
        return binary(name, x if rt_first else other, other if rt_first else y, fn)
    picked = _broadcast_dense(rt, other)
    if isinstance(picked, RaggedTensor):  # a dense operand with the RaggedTensor's row lengths
        return binary(name, x if rt_first else picked, picked if rt_first else y, fn)
    args = (rt.flat_values, picked) if rt_first else (picked, rt.flat_values)
    return rt.with_flat_values(fn(*args))


def _is_ragged_list(v):
    """Whether a nested list has rows of different lengths (a regular one becomes a dense tensor)."""
    try:
        convert_to_tensor(v)
        return False
    except (TypeError, ValueError):
        return True


def _broadcast_dense(rt, other):
    """`other` (a dense tensor) lined up with rt's flat values [nvals, inner...] for a broadcasting op, or a
    RaggedTensor of rt's partition holding its rows."""
    rank = other.shape.rank
    flat_rank = rt.flat_values.shape.rank
    if rank is None or flat_rank is None:
        raise ValueError("rivulet broadcasts RaggedTensors with tensors of known rank")
    k = rt.ragged_rank
    if rank < flat_rank or (rank == flat_rank and other.shape[0] == 1):
        return other  # only the inner (uniform) dimensions: NumPy broadcasting against the flat values
    full = rt.shape.rank
    if rank > full:
        raise ValueError(f"Shapes {rt.shape} and {other.shape} are incompatible: the tensor has a higher rank")
    dims = [1] * (full - rank) + other.shape.as_list()
    if dims[0] not in (1, None) and rt.shape[0] is not None and dims[0] != rt.shape[0]:
        raise InvalidArgumentError(f"Incompatible shapes: {rt.shape} vs. {other.shape}: {dims[0]} rows against "
                                   f"{rt.shape[0]}")
    ragged = dims[1:k + 1]
    if all(d == 1 for d in ragged):
        inner = dims[k + 1:]
        reshaped = _a.reshape(other, [dims[0] if dims[0] is not None else -1] + [-1 if d is None else d
                                                                                  for d in inner])
        if dims[0] == 1:
            return reshaped
        return _a.gather(reshaped, outer_rowids(rt))
    if k == 1:  # a uniform row length against the ragged one: TensorFlow requires the lengths to agree
        if rank < full:
            other = _a.broadcast_to(other, _a.concat([_a.reshape(rt.nrows(), [1]),
                                                      _a.shape(other, out_type=_dt.int64)], 0))
        dense_rt = RaggedTensor.from_tensor(other)
        _same_partition(rt, dense_rt)
        return dense_rt
    raise InvalidArgumentError(f"Condition x == y did not hold: cannot broadcast a tensor of shape {other.shape} "
                               f"against a RaggedTensor of shape {rt.shape} (its dimensions "
                               f"{list(range(1, k + 1))} are ragged)")


# ---------------------------------------------------------------- reductions
_SEGMENT = {"reduce_sum": _seg.unsorted_segment_sum, "reduce_max": _seg.unsorted_segment_max,
            "reduce_min": _seg.unsorted_segment_min, "reduce_prod": _seg.unsorted_segment_prod}


def reduce(name, rt, axis=None, keepdims=False):
    dense = getattr(_m, name)
    if axis is None:
        return dense(rt.flat_values)
    axes = [int(a) for a in np.asarray(axis).reshape(-1)]
    rank = rt.shape.rank
    axes = sorted({a % rank for a in axes})
    k = rt.ragged_rank
    if axes and axes[0] > k:  # only inner (uniform) dimensions: reduce each value
        return rt.with_flat_values(dense(rt.flat_values, axis=[a - k for a in axes], keepdims=keepdims))
    if len(axes) != 1 or k != 1 or axes[0] > 1:
        raise NotImplementedError("rivulet reduces RaggedTensors of ragged_rank 1 over axis 0, 1, their inner "
                                  "axes or all axes")
    flat = rt.flat_values
    if axes[0] == 1:
        ids, n = rt.value_rowids(), rt.nrows()
    else:  # over the rows: per position within a row
        ids = _m.subtract(_a.range(_a.shape(flat, out_type=_dt.int64)[0], dtype=_dt.int64),
                          _a.gather(rt.row_splits, rt.value_rowids()))
        n = _m.reduce_max(_a.concat([rt.row_lengths(), _t(np.zeros(1, np.int64))], 0))
    if name in ("reduce_any", "reduce_all"):
        as_int = _m.cast(flat, _dt.int32)
        f = _seg.unsorted_segment_max if name == "reduce_any" else _seg.unsorted_segment_min
        out = _m.cast(f(as_int, ids, n), _dt.bool)
        if name == "reduce_all":  # empty segments are True
            counts = _seg.unsorted_segment_sum(_a.ones_like(ids), ids, n)
            out = _m.logical_or(out, _m.equal(counts, 0))
    elif name == "reduce_mean":
        total = _seg.unsorted_segment_sum(flat, ids, n)
        counts = _seg.unsorted_segment_sum(_a.ones_like(ids), ids, n)
        for _ in range((flat.shape.rank or 1) - 1):  # one count per row, against the inner dimensions
            counts = _a.expand_dims(counts, -1)
        if flat.dtype.is_integer:  # TensorFlow divides integer sums as float64
            out = _m.divide(_m.cast(total, _dt.float64), _m.cast(counts, _dt.float64))
        else:
            out = _m.divide(total, _m.cast(counts, flat.dtype))
    else:
        out = _SEGMENT[name](flat, ids, n)
    return _a.expand_dims(out, axes[0]) if keepdims else out


# ---------------------------------------------------------------- concat, getitem
def _as_ragged(v, ragged_rank=1):
    if isinstance(v, RaggedTensor):
        return v
    if isinstance(v, (list, tuple)):
        try:
            v = convert_to_tensor(v)
        except (TypeError, ValueError):
            return constant(v)
    t = _t(v)
    if t.shape.rank is not None and t.shape.rank < 2:
        raise ValueError(f"tf.concat of RaggedTensors needs values of rank >= 2, got shape {t.shape}")
    out = RaggedTensor.from_tensor(t)
    for _ in range(ragged_rank - 1):
        out = out.with_values(RaggedTensor.from_tensor(out.values))
    return out


def concat(values, axis, name="concat"):
    """tf.concat with RaggedTensors: along axis 0 the rows follow one another, along axis 1 each row is the
    concatenation of the inputs' rows (which must agree in number)."""
    values = list(values)
    rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_as_ragged(v, rank) for v in values]
    axis = int(axis)
    ndims = rts[0].shape.rank
    if ndims is not None and not -ndims <= axis < ndims:
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    if axis < 0 and ndims is not None:
        axis += ndims
    if axis < 0:
        raise ValueError("tf.concat of RaggedTensors with a negative axis needs the rank known")
    if axis == 0:
        return _concat_rows(rts)
    if axis == 1:
        n = len(rts)
        if n == 1:
            return rts[0]
        nrows = [r.shape[0] for r in rts]
        if all(k is not None for k in nrows) and len(set(nrows)) > 1:
            j = next(i for i, k in enumerate(nrows) if k != nrows[0])
            raise InvalidArgumentError(f"Input tensors at index 0 (=x) and {j} (=y) have incompatible shapes: "
                                       f"{nrows[0]} rows against {nrows[j]}.\nCondition x == y did not hold.")
        stacked = _concat_rows(rts)  # rows: every input's rows in turn
        k = rts[0].nrows()
        # row i of input j sits at j * k + i: take them as i-major, then merge each group of n rows
        order = _a.reshape(_a.transpose(_a.reshape(_a.range(_m.multiply(k, np.int64(n)), dtype=_dt.int64),
                                                   _a.stack([np.int64(n), k]))), [-1])
        mixed = gather_rows(stacked, order)
        splits = mixed.row_splits[::n]
        return RaggedTensor.from_row_splits(mixed.values, splits, validate=False)
    return RaggedTensor.from_row_splits(concat([r.values for r in rts], axis - 1), rts[0].row_splits,
                                        validate=False)


def _concat_rows(rts):
    """The rows of every RaggedTensor in `rts`, one after the other (their values concatenated along axis 0)."""
    splits, offset = [_t(np.zeros(1, np.int64))], None
    for r in rts:
        s = r.row_splits[1:]
        splits.append(s if offset is None else _m.add(s, offset))
        last = r.row_splits[-1]
        offset = last if offset is None else _m.add(offset, last)
    vals = [r.values for r in rts]
    if isinstance(vals[0], RaggedTensor):
        inner = _concat_rows(vals)
    else:
        dtype = vals[0].dtype
        inner = _a.concat([v if v.dtype == dtype else _m.cast(v, dtype) for v in vals], 0)
    return RaggedTensor.from_row_splits(inner, _a.concat(splits, 0), validate=False)


def reverse(rt, axis):
    """tf.reverse of a RaggedTensor: axis 0 reverses the rows, axis 1 each row, deeper axes the values."""
    axes = [int(a) for a in np.asarray(axis.numpy() if isinstance(axis, Tensor) else axis).reshape(-1)]
    rank = rt.shape.rank
    out = rt
    for a in axes:
        a = a + rank if a < 0 and rank is not None else a
        if a == 0:
            out = getitem(out, slice(None, None, -1))
        elif a == 1:
            out = getitem(out, (slice(None), slice(None, None, -1)))
        else:
            out = out.with_values(reverse(out.values, [a - 1]) if isinstance(out.values, RaggedTensor) else
                                  _a.reverse(out.values, [a - 1]))
    return out


def gather_rows(values, rows):
    """values[rows] for a tensor or a RaggedTensor (whose chosen rows keep their own row partitions)."""
    if not isinstance(values, RaggedTensor):
        return _a.gather(values, rows)
    lengths = _a.gather(values.row_lengths(), rows)
    return _rebuild(values, rows, lengths, lambda out_rows, pos: pos)


def _rebuild(rt, rows, new_lengths, source):
    """The RaggedTensor whose row k holds new_lengths[k] values of rt's row rows[k]: value j of it is the row's
    value source(k, j) (vectors of k and j, one per new value)."""
    new_splits = _a.concat([_t(np.zeros(1, np.int64)), _m.cumsum(new_lengths)], 0)
    out_rows = _a.repeat(_a.range(_a.shape(rows, out_type=_dt.int64)[0], dtype=_dt.int64), new_lengths)
    pos = _m.subtract(_a.range(new_splits[-1], dtype=_dt.int64), _a.gather(new_splits, out_rows))
    src = _m.add(_a.gather(_a.gather(rt.row_splits, rows), out_rows), source(out_rows, pos))
    return RaggedTensor.from_row_splits(gather_rows(rt.values, src), new_splits, validate=False)


def _slice_positions(sl, lengths):
    """Python's slice semantics on rows of `lengths` values each (vectorised): (start, count, step) per row."""
    step = 1 if sl.step is None else int(sl.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    zero, one = np.int64(0), np.int64(1)

    def bound(b, default, lo, hi):  # clamp as slice.indices does, for a positive or a negative step
        if b is None:
            return default
        b = _t(b, dtype=_dt.int64) if isinstance(b, Tensor) else np.int64(b)
        b = _a.where(_m.less(b, zero), _m.add(lengths, b), _m.add(_a.zeros_like(lengths), b)) \
            if isinstance(b, Tensor) else (_m.add(lengths, b) if b < 0 else _m.add(_a.zeros_like(lengths), b))
        return _m.minimum(_m.maximum(b, lo), hi)
    if step > 0:
        start = bound(sl.start, _a.zeros_like(lengths), zero, lengths)
        stop = bound(sl.stop, lengths, zero, lengths)
        count = _m.floordiv(_m.maximum(_m.subtract(stop, start), zero) + np.int64(step - 1), np.int64(step))
    else:
        last = _m.subtract(lengths, one)
        start = bound(sl.start, last, -one, last)
        stop = bound(sl.stop, _a.fill(_a.shape(lengths), -one), -one, last)
        count = _m.floordiv(_m.maximum(_m.subtract(start, stop), zero) + np.int64(-step - 1), np.int64(-step))
    return start, count, step


def _column_slice(rt, sl, rest=()):
    """rt[:, sl, *rest]: each row sliced as a Python list would be (any step), then `rest` on the values."""
    rows = _a.range(rt.nrows(), dtype=_dt.int64)
    start, count, step = _slice_positions(sl, rt.row_lengths())
    out = _rebuild(rt, rows, count,
                   lambda r, pos: _m.add(_a.gather(start, r), _m.multiply(pos, np.int64(step))))
    return out.with_values(_index_values(out.values, rest)) if rest else out


def _index_values(values, key):
    """values[(:,) + key]: the remaining indices of a key applied to each value (row) of a partition."""
    if isinstance(values, RaggedTensor):
        return getitem(values, (slice(None),) + tuple(key))
    return values[(slice(None),) + tuple(key)]


def tile(rt, multiples):
    """tf.tile of a ragged_rank-1 RaggedTensor by [rows, columns]: rows repeat whole, each row's values repeat."""
    m = [int(v) for v in np.asarray(multiples.numpy() if isinstance(multiples, Tensor) else multiples).reshape(-1)]
    if rt.ragged_rank != 1 or len(m) != 2:
        raise NotImplementedError("rivulet tiles RaggedTensors of ragged_rank 1 by two multiples")
    rows = _a.reshape(_a.tile(_a.reshape(_a.range(rt.nrows(), dtype=_dt.int64), [1, -1]), [m[0], 1]), [-1])
    lengths = _a.gather(rt.row_lengths(), rows)
    safe = _m.maximum(lengths, np.int64(1))
    return _rebuild(rt, rows, _m.multiply(lengths, np.int64(m[1])),
                    lambda r, pos: _m.floormod(pos, _a.gather(safe, r)))


def _row_index(rt, i):
    """The int64 scalar row number `i` (a Python int or a scalar tensor; negative counts from the end)."""
    if isinstance(i, Tensor):
        i = _m.cast(i, _dt.int64)
        return _a.where(_m.less(i, np.int64(0)), _m.add(i, rt.nrows()), i)
    i = int(i)
    if i < 0:
        n = rt.shape[0]
        return np.int64(i + n) if n is not None else _m.add(rt.nrows(), np.int64(i))
    return np.int64(i)


def getitem(rt, key):
    """rt[key]: the first index picks rows (an int, a scalar tensor or a slice), a slice after it cuts each row
    (any step), and what follows applies to the values; an int on a ragged dimension is refused, as in
    TensorFlow."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is Ellipsis or k is None for k in key):
        raise NotImplementedError("rivulet indexes RaggedTensors without Ellipsis or tf.newaxis")
    if not key:
        return rt
    first, rest = key[0], key[1:]
    if isinstance(first, slice):
        if first == slice(None):
            out = rt
        else:
            n = rt.nrows()
            start, count, step = _slice_positions(first, _a.reshape(n, [1]))
            rows = _m.add(start, _m.multiply(_a.range(count[0], dtype=_dt.int64), np.int64(step)))
            out = gather_rows(rt, rows)
        if not rest:
            return out
        col, more = rest[0], rest[1:]
        if isinstance(col, slice):
            return _column_slice(out, col, more)
        raise ValueError("Cannot index into an inner ragged dimension.")
    if isinstance(first, Tensor) and first.shape.rank not in (0, None):
        raise TypeError("RaggedTensor indices must be integers, slices or scalar tensors, got a tensor of shape "
                        f"{first.shape}")
    if not isinstance(first, Tensor) and not isinstance(first, (int, np.integer)):
        raise TypeError(f"RaggedTensor indices must be integers, slices or scalar tensors, got {first!r}")
    n = rt.shape[0]
    if not isinstance(first, Tensor) and n is not None and int(first) >= n:  # (below -n: InvalidArgumentError)
        raise IndexError(f"Row key {int(first)} out of bounds")
    i = _row_index(rt, first)
    start, stop = _a.gather(rt.row_splits, i), _a.gather(rt.row_splits, _m.add(i, np.int64(1)))
    if isinstance(rt.values, RaggedTensor):
        row = gather_rows(rt.values, _a.range(start, stop, dtype=_dt.int64))
    else:
        row = rt.values[start:stop]
    if not rest:
        return row
    return getitem(row, rest) if isinstance(row, RaggedTensor) else row[rest]


# RaggedTensor's handlers in ops/composite.py's table: the public tf.* / tf.math.* / tf.strings.* functions
# consult it (elementwise ops map the flat values, binary ops broadcast rows, reductions follow the rows).
def _unary(fn, x, *args, **kwargs):
    return x.with_flat_values(fn(x.flat_values, *args, **kwargs))


def _binary(fn, x, y, *args, **kwargs):
    return binary(fn.__name__, x, y, fn=lambda a, b: fn(a, b, *args, **kwargs))


def _reduction(op_name):
    def handler(fn, input_tensor, axis=None, keepdims=False, name=None, **kwargs):
        return reduce(op_name, input_tensor, axis, keepdims)
    return handler


def _concat(fn, values, axis, name="concat"):
    return concat(values, axis, name)


def _tile(fn, input, multiples, name=None):  # noqa: A002
    return tile(input, multiples)


def _reverse(fn, tensor, axis, name=None):
    return reverse(tensor, axis)


def _shape_of(fn, input, out_type=_dt.int32, name=None):  # noqa: A002
    from .dynamic_shape import shape
    return shape(input, out_type)


def _shaped(kind):
    def handler(fn, *args, **kwargs):
        from . import dynamic_shape
        return getattr(dynamic_shape, kind)(*args, **kwargs)
    return handler


def _reshape(fn, tensor, shape, name=None):
    from .dynamic_shape import DynamicRaggedShape, reshape
    if not isinstance(shape, DynamicRaggedShape):
        raise TypeError(f"tf.reshape takes a DynamicRaggedShape as its shape, not as the tensor: got "
                        f"{type(tensor).__name__}")
    return reshape(tensor, shape)


def _embedding_lookup(fn, params, ids, *args, **kwargs):
    if isinstance(params, RaggedTensor):
        raise TypeError("tf.nn.embedding_lookup takes params as a tensor or variable, not a RaggedTensor")
    return ids.with_flat_values(fn(params, ids.flat_values, *args, **kwargs))


def _join(fn, inputs, separator="", name=None):
    first = next(x for x in inputs if isinstance(x, RaggedTensor))
    flats = []
    for x in inputs:
        if isinstance(x, RaggedTensor):
            _same_partition(first, x)
            flats.append(x.flat_values)
        else:
            flats.append(_broadcast_dense(first, _t(x)))
    return first.with_flat_values(fn(flats, separator=separator))


def stack(values, axis=0, name=None):
    """tf.stack / tf.ragged.stack along axis 0: each value becomes one row of a RaggedTensor."""
    if int(axis) != 0:
        raise NotImplementedError("rivulet stacks RaggedTensors along axis 0")
    values = list(values)
    rank = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=0)
    rts = [v if isinstance(v, RaggedTensor) else _as_ragged(v, rank) if rank else _t(v) for v in values]
    return concat([expand_dims(r, 0) for r in rts], 0)


def expand_dims(rt, axis):
    """A dimension of size 1 at `axis`: 0 (one row holding them all), 1 (each row its own) or inside the values."""
    axis = int(axis)
    rank = rt.shape.rank
    if axis < 0:
        axis += (rank or 0) + 1
    if axis == 0:
        n = rt.nrows() if isinstance(rt, RaggedTensor) else _a.shape(rt, out_type=_dt.int64)[0]
        out = RaggedTensor.from_row_splits(rt, _a.stack([np.int64(0), n]), validate=False)
        return out
    if axis == 1:
        out = RaggedTensor.from_row_splits(rt.values, rt.row_splits, validate=False)
        out = RaggedTensor.from_row_splits(out, _a.range(_m.add(rt.nrows(), np.int64(1)), dtype=_dt.int64),
                                           validate=False)
        out._uniform_row_length = 1
        return out
    values = rt.values
    return rt.with_values(expand_dims(values, axis - 1) if isinstance(values, RaggedTensor) else
                          _a.expand_dims(values, axis - 1))


def gather(params, indices, axis=None):
    """tf.gather of a RaggedTensor's rows (axis 0): a scalar index gives one row, a vector a RaggedTensor."""
    if axis not in (None, 0):
        raise NotImplementedError("rivulet gathers RaggedTensor rows (axis 0)")
    idx = _t(indices)
    if idx.shape.rank == 0:
        return getitem(params, idx)
    if idx.shape.rank != 1:
        raise NotImplementedError("rivulet gathers RaggedTensor rows with a scalar or a vector of indices")
    return gather_rows(params, _m.cast(idx, _dt.int64))


def where(condition, x=None, y=None):
    """tf.where with a RaggedTensor condition: elementwise on the flat values (x and y ragged alike, or
    broadcasting); alone, the indices of the true values."""
    if x is None and y is None:
        from .tensor import outer_indices
        if condition.flat_values.shape.rank != 1:
            raise NotImplementedError("rivulet's tf.where(ragged) takes a condition without inner dimensions")
        return _a.gather(outer_indices(condition), _a.reshape(_a.where(condition.flat_values), [-1]))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    xs = binary("where", condition, x, fn=lambda c, v: v)
    ys = binary("where", condition, y, fn=lambda c, v: v)
    return condition.with_flat_values(_a.where(condition.flat_values, xs.flat_values, ys.flat_values))


# ---------------------------------------------------------------- dispatch
def register_dispatch():
    for n in _composite.UNARY + _composite.STRING_UNARY:
        _composite.register(RaggedTensor, n, _unary)
    for n in _composite.BINARY:
        _composite.register(RaggedTensor, n, _binary)
    for n in _composite.REDUCE:
        _composite.register(RaggedTensor, n, _reduction(n))
    _composite.register(RaggedTensor, "concat", _concat)
    _composite.register(RaggedTensor, "tile", _tile)
    _composite.register(RaggedTensor, "reverse", _reverse)
    _composite.register(RaggedTensor, "shape", _shape_of)
    _composite.register(RaggedTensor, "embedding_lookup", _embedding_lookup)
    _composite.register(RaggedTensor, "join", _join)
    _composite.register(RaggedTensor, "stack", lambda fn, values, axis=0, name="stack": stack(values, axis))
    _composite.register(RaggedTensor, "expand_dims", lambda fn, input, axis, name=None: expand_dims(input, axis))
    _composite.register(RaggedTensor, "gather",
                        lambda fn, params, indices, validate_indices=None, axis=None, batch_dims=0, name=None:
                        gather(params, indices, axis))
    _composite.register(RaggedTensor, "size", lambda fn, input, out_type=_dt.int32, name=None:
                        fn(input.flat_values, out_type=out_type))
    _composite.register(RaggedTensor, "rank", lambda fn, input, name=None: _t(np.int32(input.shape.rank)))
    _composite.register(RaggedTensor, "where", lambda fn, condition, x=None, y=None, name=None:
                        where(condition, x, y))
    for n in _composite.STRING_MORE[:-1]:
        _composite.register(RaggedTensor, n, _unary)
    from .dynamic_shape import DynamicRaggedShape
    for n in ("fill", "zeros", "ones"):
        _composite.register(DynamicRaggedShape, n, _shaped(n))
    _composite.register(DynamicRaggedShape, "reshape", _reshape)
