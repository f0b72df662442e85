"""tf.ragged: RaggedTensor, constant, map_flat_values; loading it lets tf.* ops accept RaggedTensors."""
from .tensor import RaggedTensor, RaggedTensorSpec  # noqa: F401
from .ops import constant, map_flat_values, stack, register_dispatch as _register_dispatch  # noqa: F401


def boolean_mask(data, mask, name=None):
    """Keeps the values where `mask` (a RaggedTensor of the same partition) is True."""
    from ..ops import array_ops as _a, math_ops as _m
    if not isinstance(data, RaggedTensor) or not isinstance(mask, RaggedTensor):
        return _a.boolean_mask(data, mask)
    keep = _m.cast(mask.flat_values, "int64")
    from ..ops import sort_segment_ops as _seg
    lengths = _seg.unsorted_segment_sum(keep, mask.value_rowids(), mask.nrows())
    return RaggedTensor.from_row_lengths(_a.boolean_mask(data.flat_values, mask.flat_values), lengths,
                                         validate=False)


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=None):  # noqa: A001
    """tf.ragged.range: row i holds range(starts[i], limits[i], deltas[i]) (scalars broadcast; one argument:
    the limits, starting at 0)."""
    from .. import dtypes as _dt
    from ..core.tensor import Tensor, convert_to_tensor
    from ..ops import array_ops as _a, math_ops as _m
    if limits is None:
        starts, limits = 0, starts

    def tensor(x):
        return x if isinstance(x, Tensor) and dtype is None else convert_to_tensor(x, dtype=dtype)
    starts, limits, deltas = tensor(starts), tensor(limits), tensor(deltas)
    if dtype is None:  # TensorFlow's promotion among the three: the widest of them
        order = [_dt.int32, _dt.int64, _dt.float32, _dt.float64]
        dt = max((starts.dtype, limits.dtype, deltas.dtype), key=lambda d: order.index(d) if d in order else 0)
        starts, limits, deltas = (x if x.dtype == dt else _m.cast(x, dt) for x in (starts, limits, deltas))
    for x in (starts, limits, deltas):
        if x.shape.rank not in (0, 1, None):
            raise ValueError(f"starts, limits and deltas must be scalars or vectors, got shape {x.shape}")
    n = _a.shape(_m.add(_m.add(_a.zeros_like(starts), _a.zeros_like(limits)), _a.zeros_like(deltas)),
                 out_type=_dt.int64)
    if not any(x.shape.rank == 1 for x in (starts, limits, deltas)):
        n = convert_to_tensor([1], dtype=_dt.int64)
    starts, limits, deltas = (_a.broadcast_to(x, n) for x in (starts, limits, deltas))
    size = _m.ceil(_m.divide(_m.cast(_m.subtract(limits, starts), _dt.float64), _m.cast(deltas, _dt.float64)))
    lengths = _m.cast(_m.maximum(size, 0.0), _dt.int64)
    rows = _a.repeat(_a.range(n[0], dtype=_dt.int64), lengths)
    splits = _a.concat([convert_to_tensor([0], _dt.int64), _m.cumsum(lengths)], 0)
    pos = _m.cast(_m.subtract(_a.range(splits[-1], dtype=_dt.int64), _a.gather(splits, rows)), starts.dtype)
    values = _m.add(_a.gather(starts, rows), _m.multiply(pos, _a.gather(deltas, rows)))
    return RaggedTensor.from_row_splits(values, splits, validate=False)


_register_dispatch()
