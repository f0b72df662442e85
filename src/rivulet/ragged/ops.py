"""tf.ragged functions, and TensorFlow's ops on RaggedTensors: elementwise ops act on the flat values,
reductions and concat follow the rows. `register_dispatch` puts them in ops/composite.py's table, which the
public tf.* / tf.math.* / tf.strings.* functions consult, as TensorFlow's dispatch does; it runs when this
package is first imported (a RaggedTensor cannot exist before)."""

import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor, convert_to_tensor
from ..ops import array_ops as _a, composite as _composite, math_ops as _m, sort_segment_ops as _seg
from .tensor import RaggedTensor, _t


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
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("Inputs must have identical ragged splits. Condition x == y did not hold.")


def binary(name, x, y, fn=None):
    fn = fn or getattr(_m, name)
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        _same_partition(x, y)
        return x.with_flat_values(fn(x.flat_values, y.flat_values))
    rt, other, rt_first = (x, y, True) if isinstance(x, RaggedTensor) else (y, x, False)
    other = other if isinstance(other, Tensor) else convert_to_tensor(other, dtype_hint=rt.dtype) \
        if not isinstance(other, (list, tuple)) else constant(other, dtype=rt.dtype) \
        if _depth(other) > 1 else convert_to_tensor(other)
    if isinstance(other, RaggedTensor):
        return binary(name, x if rt_first else other, other if rt_first else y, fn)
    if other.shape.rank == 0 or (other.shape.rank is not None and rt.ragged_rank == 1 and
                                 other.shape.rank <= rt.flat_values.shape.rank - 0 and other.shape.rank <= 1 and
                                 rt.flat_values.shape.rank == 1 and other.shape.rank == 0):
        picked = other
    elif other.shape.rank is not None and other.shape.rank == 2 and rt.ragged_rank == 1 and \
            other.shape[1] == 1:  # [nrows, 1]: one value per row
        picked = _a.gather(_a.reshape(other, [-1]), rt.value_rowids())
    else:
        raise ValueError(f"rivulet broadcasts RaggedTensors with scalars, [nrows, 1] tensors and RaggedTensors of "
                         f"the same row partition; got a tensor of shape {other.shape}")
    args = (rt.flat_values, picked) if rt_first else (picked, rt.flat_values)
    return rt.with_flat_values(fn(*args))


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
    if len(axes) != 1 or rt.ragged_rank != 1 or rt.flat_values.shape.rank != 1 or axes[0] > 1:
        raise NotImplementedError("rivulet reduces RaggedTensors of ragged_rank 1 (no inner dimensions) over "
                                  "axis 0, 1 or all axes")
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
        if flat.dtype.is_integer:  # TensorFlow divides integer sums as float64
            out = _m.divide(_m.cast(total, _dt.float64), _m.cast(counts, _dt.float64))
        else:
            out = _m.divide(total, _m.cast(counts, flat.dtype))
    else:
        out = _SEGMENT[name](flat, ids, n)
    return _a.expand_dims(out, axes[0]) if keepdims else out


# ---------------------------------------------------------------- concat, getitem
def concat(values, axis, name="concat"):
    rts = [v if isinstance(v, RaggedTensor) else constant(v) if isinstance(v, (list, tuple)) else
           RaggedTensor.from_tensor(v) for v in values]
    if int(axis) != 0:
        raise NotImplementedError("rivulet concatenates RaggedTensors along axis 0")
    flats, splits, offset = [], [_t(np.zeros(1, np.int64))], None
    for r in rts:
        if r.ragged_rank != 1:
            raise NotImplementedError("rivulet concatenates RaggedTensors of ragged_rank 1")
        flats.append(r.flat_values)
        s = r.row_splits[1:]
        splits.append(s if offset is None else _m.add(s, offset))
        last = r.row_splits[-1]
        offset = last if offset is None else _m.add(offset, last)
    dtype = flats[0].dtype
    flats = [f if f.dtype == dtype else _m.cast(f, dtype) for f in flats]
    return RaggedTensor.from_row_splits(_a.concat(flats, 0), _a.concat(splits, 0), validate=False)


def _gather_rows(rt, rows, positions_of):
    """A ragged_rank-1 RaggedTensor whose row k holds rt's row rows[k] at the positions positions_of gives:
    positions_of(lengths of the chosen rows) -> (new lengths, function (row, position) -> source position)."""
    lengths = _a.gather(rt.row_lengths(), rows)
    new_lengths, source = positions_of(lengths)
    new_splits = _a.concat([_t(np.zeros(1, np.int64)), _m.cumsum(new_lengths)], 0)
    out_rows = _a.repeat(_a.range(_a.shape(rows, out_type=_dt.int64)[0], dtype=_dt.int64), new_lengths)
    pos = _m.subtract(_a.range(new_splits[-1], dtype=_dt.int64), _a.gather(new_splits, out_rows))
    src = _m.add(_a.gather(_a.gather(rt.row_splits, rows), out_rows), source(out_rows, pos, lengths))
    return RaggedTensor.from_row_splits(_a.gather(rt.flat_values, src), new_splits, validate=False)


def _column_slice(rt, sl):
    """rt[:, start:stop] for ragged_rank 1: each row sliced as a Python list would be."""
    if sl.step not in (None, 1) or rt.ragged_rank != 1:
        raise NotImplementedError("rivulet slices RaggedTensor columns with step 1, for ragged_rank 1")

    def bound(b, lengths, default):
        if b is None:
            return default
        b = np.int64(b)
        return _m.minimum(b, lengths) if b >= 0 else _m.maximum(_m.add(lengths, b), np.int64(0))

    def positions(lengths):
        lo = bound(sl.start, lengths, _a.zeros_like(lengths))
        hi = _m.maximum(bound(sl.stop, lengths, lengths), lo)
        return _m.subtract(hi, lo), lambda rows, pos, _: _m.add(_a.gather(lo, rows), pos)
    rows = _a.range(rt.nrows(), dtype=_dt.int64)
    return _gather_rows(rt, rows, positions)


def tile(rt, multiples):
    """tf.tile of a ragged_rank-1 RaggedTensor by [rows, columns]: rows repeat whole, each row's values repeat."""
    m = [int(v) for v in np.asarray(multiples.numpy() if isinstance(multiples, Tensor) else multiples).reshape(-1)]
    if rt.ragged_rank != 1 or len(m) != 2:
        raise NotImplementedError("rivulet tiles RaggedTensors of ragged_rank 1 by two multiples")
    rows = _a.reshape(_a.tile(_a.reshape(_a.range(rt.nrows(), dtype=_dt.int64), [1, -1]), [m[0], 1]), [-1])

    def positions(lengths):
        safe = _m.maximum(lengths, np.int64(1))
        return _m.multiply(lengths, np.int64(m[1])), lambda r, pos, _: _m.floormod(pos, _a.gather(safe, r))
    return _gather_rows(rt, rows, positions)


def getitem(rt, key):
    if not isinstance(key, tuple):
        key = (key,)
    first, rest = key[0], key[1:]
    if isinstance(first, slice) and rest and isinstance(rest[0], slice) and len(rest) == 1:
        return _column_slice(getitem(rt, first) if first != slice(None) else rt, rest[0])
    if isinstance(first, slice):
        if first.step not in (None, 1):
            raise NotImplementedError("rivulet slices RaggedTensor rows with step 1")
        n = int(rt.shape[0]) if rt.shape[0] is not None else None
        if n is None:
            raise NotImplementedError("slicing a RaggedTensor needs a known number of rows")
        lo, hi, _ = first.indices(n)
        hi = max(hi, lo)
        splits = rt.row_splits[lo:hi + 1]
        vals = rt.values
        lo_v = rt.row_splits[lo]
        values = vals[lo_v:rt.row_splits[hi]] if not isinstance(vals, RaggedTensor) else None
        if values is None:
            raise NotImplementedError("slicing rows of a nested RaggedTensor is not implemented in rivulet")
        out = RaggedTensor.from_row_splits(values, _m.subtract(splits, lo_v), validate=False)
        if rest:
            raise NotImplementedError("rivulet slices RaggedTensors by rows only")
        return out
    i = int(first)
    n = rt.shape[0]
    if n is not None and i < 0:
        i += n
    start, stop = rt.row_splits[i], rt.row_splits[i + 1]
    row = rt.values[start:stop]
    return row[rest] if rest else row


# ---------------------------------------------------------------- dispatch
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


def register_dispatch():
    for n in _composite.UNARY + _composite.STRING_UNARY:
        _composite.register(RaggedTensor, n, _unary)
    for n in _composite.BINARY:
        _composite.register(RaggedTensor, n, _binary)
    for n in _composite.REDUCE:
        _composite.register(RaggedTensor, n, _reduction(n))
    _composite.register(RaggedTensor, "concat", _concat)
    _composite.register(RaggedTensor, "tile", _tile)
