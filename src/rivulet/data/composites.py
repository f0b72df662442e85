"""Composite tensors (tf.SparseTensor, and any kind that registers) as dataset elements.

Inside the pipeline a composite leaf travels as one `CompositeValue`: its kind and its component NumPy arrays
(a SparseTensor: indices, values, dense_shape). A kind says how its elements batch, unbatch and slice, and how
its spec batches; the pipeline asks `kind_of_value` / `kind_of_spec` and otherwise treats the value as opaque.
Traced functions see the composite rebuilt from component placeholders (data/functions.py).

data/ knows the kinds' classes only through ops/composite.py's loaders (the subsystems share only downwards).
"""
import collections

import numpy as np

from .. import nest
from ..core.tensor import EagerTensor
from ..errors import DataLossError, InvalidArgumentError
from ..shape import TensorShape, TensorSpec


class CompositeValue:
    """One composite element inside the pipeline: its kind and its components (NumPy arrays)."""
    __slots__ = ("kind", "comps")

    def __init__(self, kind, comps):
        self.kind, self.comps = kind, tuple(comps)

    def __repr__(self):
        return f"CompositeValue({self.kind.name}, {self.comps!r})"


class ElementKind:
    """What the pipeline needs of one composite kind. Subclasses give the NumPy rules."""
    name = None  # ops/composite.py's kind name ("sparse")

    def value_class(self):
        from ..ops import composite
        return composite.kind(self.name)

    def matches_value(self, v):
        try:
            return isinstance(v, self.value_class())
        except KeyError:  # the face never registered the kind (not loaded)
            return False

    def matches_spec(self, spec):
        vt = getattr(type(spec), "value_type", None)
        if vt is None:
            return False
        try:
            return spec.value_type is self.value_class()
        except KeyError:
            return False

    def spec_of(self, value):
        return value.__tf_tracing_type__(None)

    def to_stored(self, value):
        comps = []
        for c in value._to_components():
            if not isinstance(c, EagerTensor):
                raise TypeError(f"Expected an eager {type(value).__name__}, got one of graph tensors; build the "
                                "dataset outside the tf.function.")
            comps.append(c._v)
        return CompositeValue(self, comps)

    def to_value(self, cv):
        raise NotImplementedError

    def components(self, cv):
        return cv.comps

    def from_components(self, comps):
        return CompositeValue(self, [np.asarray(c) for c in comps])

    def batched_spec(self, spec, size):
        raise NotImplementedError

    def unbatched_spec(self, spec):
        raise NotImplementedError

    def common_spec(self, a, b):
        return a.most_specific_common_supertype([b])

    def stack(self, parts):
        raise NotImplementedError

    def split(self, cv):
        raise NotImplementedError

    def slices(self, cv):
        """from_tensor_slices: the rows of one composite value."""
        return self.split(cv)

    def to_numpy_value(self, cv):
        return self.to_value(cv)

    def check(self, comps):
        """What makes components read from a file (a forged record) no value of this kind, or None."""
        return None


SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseKind(ElementKind):
    """tf.SparseTensor elements: a batch stacks them into one SparseTensor of rank + 1 whose dense shape is
    the largest of each dimension (TensorFlow's BatchDataset on sparse components); unbatch and
    from_tensor_slices split one along its first dimension."""
    name = "sparse"

    def to_value(self, cv):
        i, v, s = cv.comps
        return self.value_class()(EagerTensor(i), EagerTensor(v), EagerTensor(s))

    def to_numpy_value(self, cv):
        return SparseTensorValue(*cv.comps)

    def check(self, comps):
        i, v, s = (np.asarray(c) for c in comps)
        if s.ndim != 1 or i.ndim != 2 or v.ndim != 1 or i.shape != (len(v), len(s)):
            return (f"indices of shape {i.shape}, values of shape {v.shape} and dense_shape of shape {s.shape}")
        if (s < 0).any():
            return f"dense_shape {s.tolist()}"
        if len(i) and ((i < 0).any() or (i >= s).any()):
            return f"an index out of the dense_shape {s.tolist()}"
        return None

    def make_spec(self, shape, dtype):
        """A SparseTensorSpec (its class is reached through an instance: data/ does not import sparse/)."""
        st = self.value_class()(np.zeros((0, 1), np.int64), np.zeros(0, np.float32), np.zeros(1, np.int64))
        return type(st.__tf_tracing_type__(None))(shape, dtype)

    def batched_spec(self, spec, size):
        return type(spec)(TensorShape([size]).concatenate(spec.shape), spec.dtype)

    def unbatched_spec(self, spec):
        if spec.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return type(spec)(spec.shape[1:] if spec.shape.rank is not None else TensorShape(None), spec.dtype)

    def stack(self, parts):
        ranks = {len(p.comps[2]) for p in parts}
        if len(ranks) > 1:
            raise InvalidArgumentError(f"Cannot batch SparseTensors of different ranks: {sorted(ranks)}.")
        shape = np.max(np.stack([p.comps[2] for p in parts]), axis=0) if parts[0].comps[2].size else \
            np.zeros([0], np.int64)
        rank = ranks.pop()
        idx = [np.concatenate([np.full((len(p.comps[0]), 1), k, np.int64),
                               np.asarray(p.comps[0]).reshape(len(p.comps[0]), rank)], axis=1)
               for k, p in enumerate(parts)]
        return CompositeValue(self, (np.concatenate(idx, axis=0).astype(np.int64),
                                     np.concatenate([p.comps[1] for p in parts]),
                                     np.concatenate([[len(parts)], shape]).astype(np.int64)))

    def slices(self, cv):
        rank = len(cv.comps[2])
        if rank <= 1:  # TensorFlow serializes the rows as SparseTensors of rank >= 1
            raise InvalidArgumentError(f"Rank of input SparseTensor should be > 1, but saw rank: {rank} "
                                       "[Op:SerializeManySparse]")
        return self.split(cv)

    def split(self, cv):
        i, v, s = cv.comps
        if len(s) == 0:
            raise InvalidArgumentError("Unbatching a SparseTensor is only supported for rank >= 1.")
        n = int(s[0])
        rows = i[:, 0] if len(i) else np.zeros([0], np.int64)
        out = []
        for r in range(n):
            m = rows == r
            out.append(CompositeValue(self, (np.ascontiguousarray(i[m][:, 1:]), v[m], s[1:].copy())))
        return out


class ExtensionKind(ElementKind):
    """tf.experimental.ExtensionType elements (found by duck typing: data/ does not import extension_type/).
    A kind is bound to one spec (kind_of_spec gives the bound kind; equal specs share it): a value travels as
    its component tensors and is rebuilt by the spec, which also holds its static fields. Batching stacks
    each component and unbatching splits each along its first dimension (BatchableExtensionType's default
    encoding), the spec batched by its `_batch` / `_unbatch`."""
    name = "extension_type"
    _bound = {}

    def __init__(self, spec=None):
        self.spec = spec

    def bound(self, spec):
        try:
            k = ExtensionKind._bound.get(spec)
        except TypeError:
            k = None
        if k is None:
            k = ExtensionKind(spec)
            if len(ExtensionKind._bound) > 4096:
                ExtensionKind._bound.clear()
            try:
                ExtensionKind._bound[spec] = k
            except TypeError:
                pass
        return k

    def matches_value(self, v):
        return hasattr(type(v), "_tf_extension_type_fields") and not isinstance(v, type) and \
            hasattr(v, "_to_components") and not hasattr(v, "_component_specs")

    def matches_spec(self, spec):
        return hasattr(type(spec), "_tf_extension_type_fields") and hasattr(spec, "_component_specs")

    def spec_of(self, value):
        return value._type_spec

    def to_stored(self, value):
        spec = value._type_spec
        comps = []
        for c in value._to_components():
            if not isinstance(c, EagerTensor):
                raise TypeError(f"Expected an eager {type(value).__name__}, got one of graph tensors; build the "
                                "dataset outside the tf.function.")
            comps.append(c._v)
        return CompositeValue(self.bound(spec), comps)

    def to_value(self, cv):
        return self.spec._from_components([EagerTensor(c) for c in cv.comps])

    def _batchable(self, spec, what):
        if not hasattr(spec, what):
            raise TypeError(f"Dataset elements of type {type(spec).__qualname__} can not be batched: its value "
                            f"type {spec.value_type.__name__} is not a tf.experimental.BatchableExtensionType.")
        return getattr(spec, what)

    def batched_spec(self, spec, size):
        return self._batchable(spec, "_batch")(size)

    def unbatched_spec(self, spec):
        return self._batchable(spec, "_unbatch")()

    def common_spec(self, a, b):
        return a.most_specific_common_supertype([b])

    def stack(self, parts):
        kind = self.bound(self.batched_spec(self.spec, None))
        n = len(parts[0].comps)
        for p in parts[1:]:
            for a, b in zip(p.comps, parts[0].comps):
                if np.shape(a) != np.shape(b):
                    raise InvalidArgumentError(f"Cannot batch tensors with different shapes in component: "
                                               f"first element had shape {list(np.shape(parts[0].comps[0]))} and "
                                               f"another element had shape {list(np.shape(a))}.")
        return CompositeValue(kind, [np.stack([p.comps[i] for p in parts]) for i in range(n)])

    def split(self, cv):
        kind = self.bound(self.unbatched_spec(self.spec))
        if not cv.comps:
            raise InvalidArgumentError("Cannot unbatch a value with no tensors.")
        n = len(cv.comps[0])
        return [CompositeValue(kind, [c[r] for c in cv.comps]) for r in range(n)]


_KINDS = [SparseKind(), ExtensionKind()]


def register(kind):
    """Adds a composite kind (an ElementKind) for dataset elements."""
    _KINDS.append(kind)


def kind_of_value(v):
    if isinstance(v, (EagerTensor, np.ndarray, np.generic, int, float, bool, str, bytes, list)):
        return None
    for k in _KINDS:
        if k.matches_value(v):
            return k
    return None


def kind_of_spec(spec):
    if getattr(type(spec), "value_type", None) is None:
        return None
    for k in _KINDS:
        if k.matches_spec(spec):
            return k.bound(spec) if isinstance(k, ExtensionKind) else k
    return None


def is_composite_spec(spec):
    return kind_of_spec(spec) is not None


def record_layout(spec):
    """[(kind or None, component dtypes)] per leaf of `spec`: how a file (cache, snapshot) holds an element,
    one serialized tensor per component."""
    out = []
    for s in nest.flatten(spec):
        kind = kind_of_spec(s)
        out.append((kind, [c.dtype for c in s._component_specs] if kind is not None else [s.dtype]))
    return out


def to_records(element):
    """An element's components, in record order."""
    return [c for v in element for c in (v.kind.components(v) if isinstance(v, CompositeValue) else (v,))]


def serialized_records(element):
    """An element's components as serialized TensorProtos (tf.io.serialize_tensor), in record order: the records
    read_elements reads back."""
    from ..ops.serialize_ops import serialize_kernel
    return [serialize_kernel(v).item() for v in to_records(element)]


def from_records(layout, parts):
    """The element whose components are `parts` (record order)."""
    out, i = [], 0
    for kind, dtypes in layout:
        n = len(dtypes)
        out.append(parts[i] if kind is None else kind.from_components(parts[i:i + n]))
        i += n
    return tuple(out)


def record_specs(layout, spec):
    """The TensorSpec each record is checked against (a composite's components: its spec's component specs)."""
    out = []
    for (kind, dts), s in zip(layout, nest.flatten(spec)):
        if kind is None:
            out.append(s)
            continue
        comps = list(getattr(s, "_component_specs", ()))
        if len(comps) != len(dts) or any(c.dtype != d for c, d in zip(comps, dts)):
            comps = [TensorSpec(None, d) for d in dts]
        out.extend(comps)
    return out


def read_elements(records, spec, count, where, short, long):
    """The `count` elements `spec` describes, read from an iterator of serialized-tensor records (a snapshot's
    shard, a saved dataset), each checked against its spec. A file that holds fewer or more records than
    counted raises DataLossError (`short` / `long`, the messages; `where` starts a shape mismatch's): a damaged
    count must never cut the data short, or pad it, silently."""
    from ..ops.serialize_ops import parse_tensor_kernel
    layout = record_layout(spec)
    specs = record_specs(layout, spec)
    kinds = [(kind, len(dts)) for kind, dts in layout if kind is not None]
    for _ in range(count):
        parts = []
        for s in specs:
            r = next(records, None)
            if r is None:
                raise DataLossError(None, None, short)
            v = parse_tensor_kernel(r, s.dtype)
            if not s.shape.is_compatible_with(v.shape):
                raise DataLossError(None, None, f"{where}: an element of shape {v.shape} where {s} was expected.")
            parts.append(v if v.ndim else v[()])
        element = from_records(layout, parts)
        if kinds:
            for v in element:
                problem = v.kind.check(v.comps) if isinstance(v, CompositeValue) else None
                if problem:
                    raise DataLossError(None, None, f"{where}: an element's {v.kind.name} components do not fit "
                                        f"together: {problem}.")
        yield element
    if next(records, None) is not None:
        raise DataLossError(None, None, long)


def rows(c):
    """The first-dimension rows of one component of a batch (unbatch)."""
    return c.kind.split(c) if isinstance(c, CompositeValue) else c


def stack(parts):
    """One batch component from the elements' components."""
    p0 = parts[0]
    if isinstance(p0, CompositeValue):
        return p0.kind.stack(parts)
    if isinstance(p0, np.ndarray) or isinstance(p0, np.generic):
        return np.stack(parts)
    return np.array(parts, dtype=object)  # strings (bytes)


def object_rows(items):
    """A list of CompositeValues as a 1-D object array (indexable by slices and index arrays)."""
    a = np.empty(len(items), dtype=object)
    for k, x in enumerate(items):
        a[k] = x
    return a


from .ragged_elements import RaggedKind  # noqa: E402  (a kind built on this module's ElementKind)
register(RaggedKind())
