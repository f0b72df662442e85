"""Element structures: a dataset element is a nested structure (tuples, dicts, namedtuples) of tensors.

Inside the pipeline an element travels as a flat tuple of NumPy values (one per leaf, in tf.nest order);
the nested `element_spec` (TensorSpecs, or DatasetSpecs for windows) rebuilds the user's structure only
where elements leave the pipeline.
"""
import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..core.tensor import EagerTensor, Tensor, to_numpy_value
from ..shape import TensorShape, TensorSpec
from . import composites


class DatasetSpec:
    """The spec of an element that is itself a dataset (`window`)."""

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)
        self.dtype = _dt.variant

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec and \
            self.shape == other.shape

    def __hash__(self):
        return hash((_hashable(self.element_spec), self.shape))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, {self.shape!r})"


def _hashable(spec):
    if isinstance(spec, dict):
        return ("dict", tuple((k, _hashable(spec[k])) for k in nest._sorted_keys(spec)))
    if isinstance(spec, (list, tuple)):
        return (type(spec).__name__, tuple(_hashable(s) for s in spec))
    return spec


def flat_specs(spec):
    return nest.flatten(spec)


def to_numpy(value, dtype=None):
    """One leaf as a NumPy value with TensorFlow's dtype rules (Python floats -> float32, str -> bytes)."""
    if isinstance(value, EagerTensor):
        v = value._v
        if dtype is not None and v.dtype != dtype._np and dtype is not _dt.string:
            raise TypeError(f"Tensor of dtype {value.dtype.name} where {dtype.name} was expected")
        return v
    if isinstance(value, Tensor):
        raise TypeError(f"Expected an eager tensor or a value, got the graph tensor {value!r}; build the "
                        "dataset outside the tf.function.")
    return to_numpy_value(value, dtype)


def normalize(value):
    """A user's nested value -> (structure with TensorSpec leaves, flat NumPy components). Lists are
    tensors (converted whole), as in tf.data; tuples and dicts are structure. The spec keeps the user's
    dict key order; the components follow tf.nest's order (sorted keys), as every packer expects."""
    arrays = {}

    def leaf(v):
        kind = composites.kind_of_value(v)
        if kind is not None:  # a composite (tf.SparseTensor): one opaque leaf of its components
            s = kind.spec_of(v)
            arrays[id(s)] = kind.to_stored(v)
            return s
        a = np.asarray(to_numpy(v)) if not isinstance(v, np.ndarray) else to_numpy(v)
        s = TensorSpec(a.shape, _dt.from_numpy(a.dtype))
        arrays[id(s)] = a
        return s
    spec = _map_value(leaf, value)
    return spec, [arrays[id(s)] for s in flat_specs(spec)]


def _map_value(fn, value):
    if isinstance(value, (dict, tuple)):  # rebuilt by tf.nest, so dict subclasses and namedtuples survive
        return nest._rebuild(value, [_map_value(fn, v) for v in nest._children(value)])
    if value is None:
        raise TypeError("Unsupported `None` component in a dataset element: use a tensor or a Python value.")
    return fn(value)


def spec_from_signature(sig):
    """output_signature -> a structure of TensorSpecs (checked)."""
    def check(s):
        if not isinstance(s, (TensorSpec, DatasetSpec)) and not composites.is_composite_spec(s):
            raise TypeError(f"`output_signature` must contain objects that are subclass of `tf.TypeSpec` but "
                            f"found {type(s)} which is not.")
        return s
    return nest.map_structure(check, sig)


def spec_of_tensors(structure):
    """A traced function's structured outputs -> element_spec."""
    return nest.map_structure(lambda t: None if t is None else TensorSpec(t.shape, t.dtype)
                              if not hasattr(t, "_to_components") else t.__tf_tracing_type__(None), structure)


def pack(spec, flat):
    """Flat NumPy components -> the user's structure of EagerTensors."""
    if not nest.is_nested(spec):
        return _leaf(flat[0])
    return nest.pack_sequence_as(spec, [_leaf(v) for v in flat])


def _leaf(v):
    if isinstance(v, (EagerTensor,)) or hasattr(v, "_make_iter"):
        return v  # dataset-valued leaves (window) stay datasets
    if isinstance(v, composites.CompositeValue):
        return v.kind.to_value(v)
    if isinstance(v, bytes):
        v = np.array(v, dtype=object)
    return EagerTensor(v)


def unpack(spec, value):
    """The user's structure (from a function's result) -> flat NumPy components, checked against spec."""
    leaves = nest.flatten(value)
    return tuple(to_numpy(v) for v in leaves)


def same_structure(a, b):
    try:
        nest.assert_same_structure(a, b)
        return True
    except (ValueError, TypeError):
        return False


def compatible(a, b):
    """The most specific spec covering specs a and b (same structure and dtypes), or None."""
    if not same_structure(a, b):
        return None
    fa, fb = flat_specs(a), flat_specs(b)
    out = []
    for x, y in zip(fa, fb):
        if isinstance(x, DatasetSpec) or isinstance(y, DatasetSpec):
            if x != y:
                return None
            out.append(x)
            continue
        kind = composites.kind_of_spec(x)
        if kind is not None or composites.kind_of_spec(y) is not None:
            common = kind.common_spec(x, y) if kind is not None and kind is composites.kind_of_spec(y) else None
            if common is None:
                return None
            out.append(common)
            continue
        if x.dtype != y.dtype:
            return None
        out.append(TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype))
    return nest.pack_sequence_as(a, out) if nest.is_nested(a) else out[0]


def batched(spec, size):
    """The spec of a batch of `size` (None: unknown) elements of `spec`."""
    def one(s):
        kind = composites.kind_of_spec(s)
        if kind is not None:
            return kind.batched_spec(s, size)
        return TensorSpec(TensorShape([size]).concatenate(s.shape), s.dtype)
    return nest.map_structure(one, spec)


def unbatched(spec):
    def one(s):
        kind = composites.kind_of_spec(s)
        if kind is not None:
            return kind.unbatched_spec(s)
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None), s.dtype)
    return nest.map_structure(one, spec)


def flatten_up_to(spec, value):
    """value's leaves at the positions of spec's leaves, in tf.nest order (whatever value holds where spec
    has a TensorSpec, a list or a shape included, is one leaf); ValueError when value does not have spec's
    structure (other dict keys, other lengths)."""
    if not nest.is_nested(spec):
        return [value]
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise ValueError(f"expected a dict with keys {nest._sorted_keys(spec)}, got {_short(value)}")
        return [x for k in nest._sorted_keys(spec) for x in flatten_up_to(spec[k], value[k])]
    if not isinstance(value, (tuple, list)) or len(value) != len(spec):
        raise ValueError(f"expected a sequence of {len(spec)} items, got {_short(value)}")
    return [x for s, v in zip(spec, value) for x in flatten_up_to(s, v)]


def _short(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def check_value(spec, flat, what):
    """A component produced at run time (generator) must match its declared spec."""
    for s, v in zip(flat_specs(spec), flat):
        if _dt.from_numpy(v.dtype) != s.dtype or not s.shape.is_compatible_with(TensorShape(v.shape)):
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError(
                f"{what}: `generator` yielded an element of {TensorSpec(v.shape, _dt.from_numpy(v.dtype))} "
                f"where an element of {s} was expected.")
