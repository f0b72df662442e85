"""TensorShape (dims may be None, rank may be unknown) and TensorSpec, with TensorFlow's printed forms."""
from . import dtypes as _dt

__all__ = ["TensorShape", "TensorSpec", "as_shape"]


def _dim(d):
    if d is None:
        return None
    v = getattr(d, "value", d)  # accept Dimension-like objects
    if v is None:
        return None
    try:
        iv = int(v)
    except (TypeError, ValueError):
        raise TypeError(f"Dimension value must be integer or None, got {d!r}") from None
    if iv != v or isinstance(v, float):
        raise TypeError(f"Dimension value must be integer or None, got {d!r}")
    if iv < 0 and iv != -1:
        raise ValueError(f"Dimension {iv} must be >= 0")
    return None if iv == -1 else iv


class TensorShape:
    """The static shape of a tensor: a tuple of int-or-None dims, or unknown rank (`dims is None`)."""
    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int,)) or hasattr(dims, "__index__") and not hasattr(dims, "__len__"):
            self._dims = (_dim(dims),)
        else:
            try:
                self._dims = tuple(_dim(d) for d in dims)
            except TypeError as e:
                if "integer or None" in str(e):
                    raise
                raise TypeError(f"Cannot convert {dims!r} to a TensorShape") from None

    @classmethod
    def _known(cls, dims):
        """Fast constructor for a tuple of ints already validated."""
        s = object.__new__(cls)
        s._dims = dims
        return s

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if self._dims is None:
                return TensorShape(None)
            return TensorShape._known(self._dims[key])
        if self._dims is None:
            return None
        return self._dims[key]

    def __bool__(self):
        return self._dims is not None

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._known(tuple(a if a is not None else b for a, b in zip(self._dims, other._dims)))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape._known(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def is_subtype_of(self, other):
        """True if every shape this one admits is admitted by `other` (other is at least as general)."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape._known(self._dims + other._dims)

    def with_rank(self, rank):
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def as_proto_text(self):
        if self._dims is None:
            return "unknown_rank: true"
        return " ".join(f"dim {{ size: {-1 if d is None else d} }}" for d in self._dims)

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


class TensorSpec:
    """Describes a tensor by shape and dtype; the type of tensor arguments in function signatures."""
    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dt.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not (hasattr(tensor, "shape") and hasattr(tensor, "dtype")):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        if name is None:
            name = getattr(tensor, "_spec_name", None)
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, spec.name if name is None else name)

    def is_compatible_with(self, spec_or_tensor):
        if not (hasattr(spec_or_tensor, "dtype") and hasattr(spec_or_tensor, "shape")):
            return False
        return (self._dtype == spec_or_tensor.dtype and
                self._shape.is_compatible_with(spec_or_tensor.shape))

    def is_subtype_of(self, other):
        return (isinstance(other, TensorSpec) and self._dtype == other._dtype and
                self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, TensorSpec) or o._dtype != self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return TensorSpec(shape, self._dtype, self._name)

    def _without_name(self):
        return TensorSpec(self._shape, self._dtype) if self._name is not None else self

    def __eq__(self, other):
        return (type(other) is type(self) and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __reduce__(self):
        return TensorSpec, (self._shape, self._dtype, self._name)
