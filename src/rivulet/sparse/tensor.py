"""tf.SparseTensor and tf.SparseTensorSpec: a dense shape with values at a list of indices, as three tensors
(indices int64 [N, rank], values [N], dense_shape int64 [rank]). It is a plain composite: eager or symbolic
like its components, and a tf.function argument (traced by its spec: dense shape and dtype, any N)."""
import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor, convert_to_tensor
from ..function.trace_type import TraceType
from ..ops._rules import static_value
from ..shape import TensorShape, TensorSpec


class SparseTensor:
    """tf.SparseTensor(indices, values, dense_shape)."""

    def __init__(self, indices, values, dense_shape):
        self._indices = _as_tensor(indices, _dt.int64, "indices")
        self._values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        self._dense_shape = _as_tensor(dense_shape, _dt.int64, "dense_shape")
        ish, vsh, dsh = self._indices.shape, self._values.shape, self._dense_shape.shape
        ish.with_rank(2), vsh.with_rank(1), dsh.with_rank(1)
        for a, b in ((ish[0], vsh[0]), (ish[1], dsh[0])):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions {a} and {b} are not compatible")
        v = static_value(self._dense_shape)
        if v is not None:
            self._shape = TensorShape([int(d) for d in np.asarray(v)])
        else:
            rank = dsh[0] if dsh.rank == 1 else None
            self._shape = TensorShape(None if rank is None else [None] * rank)

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: getattr(self._values, "graph", None))

    def get_shape(self):
        return self._shape

    @property
    def ndim(self):
        return self._shape.rank

    def with_values(self, new_values):
        st = SparseTensor(self._indices, new_values, self._dense_shape)
        st._shape = self._shape  # the same dense shape: keep what is known of it statically
        return st

    def consumers(self):
        return []

    def __str__(self):
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __repr__ = __str__

    # Elementwise with a dense tensor or scalar: only the stored values change (TensorFlow's SparseDenseCwise*).
    def __mul__(self, other):
        from .ops import cwise
        return cwise(self, other, "mul")

    def __truediv__(self, other):
        from .ops import cwise
        return cwise(self, other, "div")

    __div__ = __truediv__

    def __neg__(self):
        from ..ops import math_ops
        return self.with_values(math_ops.negative(self._values))

    # tf.function: a SparseTensor argument is traced by its SparseTensorSpec.
    def __tf_tracing_type__(self, context):
        return SparseTensorSpec(self._shape, self.dtype)

    def _to_components(self):
        return [self._indices, self._values, self._dense_shape]


def _as_tensor(x, dtype, what):
    t = x if isinstance(x, Tensor) else convert_to_tensor(np.asarray(x, dtype=np.int64) if not isinstance(
        x, Tensor) else x)
    if t.dtype != dtype:
        from ..ops import math_ops
        if not t.dtype.is_integer:
            raise TypeError(f"SparseTensor {what} must be integers, got {t.dtype.name}")
        t = math_ops.cast(t, dtype)
    return t


class SparseTensorSpec(TraceType):
    """tf.SparseTensorSpec(shape, dtype): the type of SparseTensors of that dense shape and dtype."""

    def __init__(self, shape=None, dtype=_dt.float32):
        self._shape, self._dtype = TensorShape(shape), _dt.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: SparseTensor)

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return (TensorSpec([None, rank], _dt.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], _dt.int64))

    def _from_components(self, components):
        st = SparseTensor(*components)
        if self._shape.rank is not None:  # keep what the spec knows of the dense shape in the graph
            st._shape = self._shape
        return st

    def is_subtype_of(self, other):
        return isinstance(other, SparseTensorSpec) and self._dtype == other._dtype and \
            self._shape.is_subtype_of(other._shape)

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, SparseTensorSpec) or o._dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return SparseTensorSpec(shape, self._dtype)

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError("rivulet's tracer makes a SparseTensor's placeholders from its components")

    def is_compatible_with(self, other):
        other = other.__tf_tracing_type__(None) if isinstance(other, SparseTensor) else other
        return isinstance(other, SparseTensorSpec) and self._dtype == other._dtype and \
            self._shape.is_compatible_with(other._shape)

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and (self._shape, self._dtype) == (other._shape, other._dtype)

    def __hash__(self):
        return hash((self._shape, self._dtype))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


SparseTensor._type_spec_class = SparseTensorSpec  # for code that reaches the class through composite loaders
