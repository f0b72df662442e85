"""tf.ragged: RaggedTensor, constant, map_flat_values; loading it lets tf.* ops accept RaggedTensors."""
from .tensor import RaggedTensor, RaggedTensorSpec  # noqa: F401
from .ops import constant, map_flat_values, register_dispatch as _register_dispatch  # noqa: F401


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


_register_dispatch()
