"""tf.IndexedSlices: a sparse set of rows (values at indices) of a dense tensor of dense_shape, as TensorFlow's
sparse gradients are; converts to the dense tensor (rows at repeated indices summed)."""
from ..core.tensor import convert_to_tensor
from ..shape import TensorShape
from ._rules import static_value


class IndexedSlices:
    """IndexedSlices(values, indices, dense_shape=None)."""

    is_tensor_like = True

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: self._values.device)
    graph = property(lambda self: getattr(self._values, "graph", None))
    op = property(lambda self: getattr(self._values, "op", None))
    name = property(lambda self: getattr(self._values, "name", None))

    @property
    def shape(self):
        if self._dense_shape is not None:
            v = static_value(self._dense_shape)
            if v is not None:
                return TensorShape([int(d) for d in v])
        s = self._values.shape
        return TensorShape(None) if s.rank is None else TensorShape([None]).concatenate(s[1:])

    def __str__(self):
        parts = f"indices={str(self._indices)}, values={str(self._values)}"
        if self._dense_shape is not None:
            parts += f", dense_shape={str(self._dense_shape)}"
        return f"IndexedSlices({parts})"

    def __neg__(self):
        from .math_ops import negative
        return IndexedSlices(negative(self._values), self._indices, self._dense_shape)

    def _as_tensor(self):
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` without "
                             f"dense_shape: {self}")
        from . import array_ops as _a
        from .sort_segment_ops import unsorted_segment_sum
        rows = _a.reshape(self._dense_shape, [-1])[0]
        return unsorted_segment_sum(self._values, self._indices, rows)
