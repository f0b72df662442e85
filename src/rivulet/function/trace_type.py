"""TensorFlow's tracing rules: what part of an argument selects a graph.

Tensors and NumPy arrays by dtype and shape; Python scalars, strings and None by value (1, 1.0 and True
are one key, as in TensorFlow); lists, tuples, namedtuples and dicts structurally (dict key order
ignored); variables by dtype and shape; NumPy array-likes (a DataFrame) as tensors; any other object by
weak reference (the same or an equal object), or by value when it cannot be weakly referenced; an unhashable
one is refused, as in TensorFlow. Each argument becomes a hashable key plus a description used in
signatures and retrace explanations.
"""
import weakref

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..core.tensor import EagerTensor, SymbolicTensor, Tensor
from ..shape import TensorShape, TensorSpec

_LITERALS = (int, float, bool, str, bytes, type(None))


class Literal:
    """A Python value that is part of the signature (the function is traced for this value)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Literal) and type(other.value) is not None and self.value == other.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Literal[{self.value!r}]"


class ObjectRef:
    """An arbitrary Python object, held weakly: TensorFlow's Weakref type. The same object, or one equal to
    it (`==`, for classes that define equality), selects the same graph while both are alive."""
    __slots__ = ("ref", "oid", "tname", "hash")

    def __init__(self, obj, ref=None, hash_value=None):
        self.oid = id(obj)
        self.tname = type(obj).__name__
        self.ref = ref if ref is not None else weakref.ref(obj)
        self.hash = hash(obj) if hash_value is None else hash_value

    def alive(self):
        return self.ref() is not None

    def __eq__(self, other):
        if not isinstance(other, ObjectRef):
            return False
        a, b = self.ref(), other.ref()
        if a is None or b is None:
            return False
        if a is b:
            return True
        try:
            return bool(a == b)
        except Exception:  # noqa: BLE001  (an __eq__ that cannot answer: not the same argument)
            return False

    def __hash__(self):
        return self.hash

    def __repr__(self):
        return f"{self.tname}<id={self.oid}>"


def _untraceable(x):
    return TypeError(f"Could not generate a generic TraceType for {x!r}. Please verify that it is immutable/"
                     f"hashable. Unhashable argument of type {type(x).__name__} cannot be part of a tf.function "
                     "signature; pass tensors, or hashable Python values.")


def _object_type(x):
    """TensorFlow's rule for any other object: by weak reference (keyed by the object's hash and equality) if
    it can be weakly referenced, else by value as a Literal; an unhashable object is refused either way."""
    try:
        ref = weakref.ref(x)
    except TypeError:
        ref = None
    try:
        h = hash(x)
    except TypeError:
        raise _untraceable(x) from None
    return Literal(x) if ref is None else ObjectRef(x, ref, h)


object_type = _object_type  # (for a __tf_tracing_type__ that falls back to the plain object's rule)


def _array_like_type(x):
    """A NumPy array-like (a pandas DataFrame or Series, anything with `__array__`): its array's TensorSpec,
    as TensorFlow traces such arguments; None if it has no tensor dtype."""
    if not hasattr(x, "__array__") or isinstance(x, (np.str_, type)):
        return None
    try:
        a = np.asarray(x)
        return TensorSpec(a.shape, _dt.from_numpy(a.dtype))
    except Exception:  # noqa: BLE001  (object arrays and the like: traced as objects)
        return None


class TraceType:
    """tf.types.experimental.TraceType: what an object's `__tf_tracing_type__(context)` returns to choose its
    own tracing rule. Subclasses define is_subtype_of, most_specific_common_supertype, placeholder_value,
    __eq__ and __hash__; equal types share a graph."""

    def is_subtype_of(self, other):
        raise NotImplementedError

    def most_specific_common_supertype(self, others):
        raise NotImplementedError

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError

    def __eq__(self, other):
        raise NotImplementedError

    def __hash__(self):
        raise NotImplementedError


class VariableSpec:
    """A variable passed to a function: a resource input of the graph. `alias_id` numbers the distinct
    variables of one call in order of appearance, so f(a, a) and f(a, b) select different graphs."""
    __slots__ = ("shape", "dtype", "trainable", "alias_id")

    def __init__(self, shape, dtype, trainable=True, alias_id=None):
        self.shape, self.dtype, self.trainable, self.alias_id = TensorShape(shape), dtype, trainable, alias_id

    def _key(self):
        return self.shape, self.dtype, bool(self.trainable), self.alias_id

    def __eq__(self, other):
        return isinstance(other, VariableSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable={self.trainable}, "
                f"alias_id={self.alias_id})")


def is_tensor_like(x):
    return isinstance(x, (Tensor, np.ndarray))


def spec_of_value(x):
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype)
    return TensorSpec(x.shape, _dt.from_numpy(x.dtype))


def is_composite_spec(x):
    """Whether x is a composite tensor's spec (tf.RaggedTensorSpec): a TraceType made of component specs, which
    stands for a value of that type in get_concrete_function and input_signature."""
    return isinstance(x, TraceType) and hasattr(x, "_component_specs") and hasattr(x, "_from_components")


def type_of(x, aliases=None):
    """The trace type of one argument value (hashable; tensors become TensorSpecs). `aliases` (a dict shared
    by all arguments of one call) numbers the distinct variables met: their alias ids."""
    if isinstance(x, (EagerTensor, SymbolicTensor)):
        return TensorSpec(x.shape, x.dtype)
    if isinstance(x, TensorSpec) or is_composite_spec(x):
        return x
    if isinstance(x, _LITERALS):
        return Literal(x)
    if isinstance(x, np.ndarray):
        return spec_of_value(x)
    if isinstance(x, np.generic):
        return Literal(x.item())
    if getattr(x, "_is_resource", False) and hasattr(x, "dtype"):
        alias = None
        if aliases is not None:
            alias = aliases.setdefault(id(getattr(x, "_res", x)), len(aliases))
        return VariableSpec(x.shape, x.dtype, getattr(x, "trainable", True), alias)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, tuple(x._fields), tuple(type_of(v, aliases) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(type_of(v, aliases) for v in x))
    if isinstance(x, dict):  # tf.nest's key order: the order the graph's flat arguments take
        return ("dict", tuple((k, type_of(x[k], aliases)) for k in nest._sorted_keys(x)))
    custom = getattr(type(x), "__tf_tracing_type__", None)  # composites and datasets give their own
    if custom is not None:
        return custom(x, None)
    spec = _array_like_type(x)
    if spec is not None:
        return spec
    return _object_type(x)


def describe(t):
    """TensorFlow's text for a trace type (`Literal[1]`, `List[Literal[1], Literal[-1]]`, TensorSpec...)."""
    if isinstance(t, tuple):
        if t[0] == "list":
            return "List[" + ", ".join(describe(v) for v in t[1]) + "]"
        if t[0] == "tuple":
            return "Tuple[" + ", ".join(describe(v) for v in t[1]) + "]"
        if t[0] == "dict":
            return "Dict[" + ", ".join(f"[{k!r}, {describe(v)}]" for k, v in t[1]) + "]"
        if t[0] == "namedtuple":
            return f"{t[1]}[" + ", ".join(f"[{n!r}, {describe(v)}]" for n, v in zip(t[2], t[3])) + "]"
    return repr(t)


def generalize(old, new, relax_rank=False):
    """reduce_retracing: the most specific type covering both, or None if they cannot be merged."""
    if isinstance(old, TensorSpec) and isinstance(new, TensorSpec) and old.dtype == new.dtype:
        s = old.shape.most_specific_compatible_shape(new.shape)
        return TensorSpec(s, old.dtype)
    if isinstance(old, tuple) and isinstance(new, tuple) and len(old) == len(new) and old[0] == new[0]:
        if old[0] in ("list", "tuple") and len(old[1]) == len(new[1]):
            parts = [generalize(a, b) for a, b in zip(old[1], new[1])]
            return None if any(p is None for p in parts) else (old[0], tuple(parts))
    if isinstance(old, TraceType) and type(new) is type(old) and old != new:  # a composite's spec (ExtensionType)
        try:
            return old.most_specific_common_supertype([new])
        except NotImplementedError:
            return None
    return old if old == new else None


def is_subtype(t, sup):
    """True if a value of trace type `t` can be handled by a graph traced for `sup`."""
    if isinstance(t, TensorSpec) and isinstance(sup, TensorSpec):
        return t.is_subtype_of(sup)
    if isinstance(t, tuple) and isinstance(sup, tuple):
        if len(t) != len(sup) or t[0] != sup[0]:
            return False
        if t[0] in ("list", "tuple"):
            return len(t[1]) == len(sup[1]) and all(is_subtype(a, b) for a, b in zip(t[1], sup[1]))
        if t[0] == "dict":
            return [k for k, _ in t[1]] == [k for k, _ in sup[1]] and all(
                is_subtype(a, b) for (_, a), (_, b) in zip(t[1], sup[1]))
        if t[0] == "namedtuple":
            return t[1:3] == sup[1:3] and all(is_subtype(a, b) for a, b in zip(t[3], sup[3]))
    if isinstance(t, TraceType):
        return t.is_subtype_of(sup)
    return t == sup


def explain_change(old, new, path):
    """A short human reason a value of type `new` could not use the graph traced for `old`."""
    if isinstance(old, TensorSpec) and isinstance(new, TensorSpec):
        if old.dtype != new.dtype:
            return f"{path}: dtype {old.dtype.name} -> {new.dtype.name}"
        return f"{path}: shape {old.shape} -> {new.shape}"
    if isinstance(old, Literal) and isinstance(new, Literal):
        return f"{path}: Python value {old.value!r} -> {new.value!r}"
    if isinstance(old, VariableSpec) and isinstance(new, VariableSpec) and old.alias_id != new.alias_id and \
            (old.shape, old.dtype, old.trainable) == (new.shape, new.dtype, new.trainable):
        return f"{path}: variable aliasing (alias_id {old.alias_id} -> {new.alias_id})"
    if isinstance(old, ObjectRef) and isinstance(new, ObjectRef):
        return f"{path}: a different {new.tname} object (id {old.oid} -> {new.oid})"
    if isinstance(old, tuple) and isinstance(new, tuple) and old[0] == new[0] and old[0] in ("list", "tuple") \
            and len(old[1]) == len(new[1]):
        for i, (a, b) in enumerate(zip(old[1], new[1])):
            if a != b:
                return explain_change(a, b, f"{path}[{i}]")
    return f"{path}: {describe(old)} -> {describe(new)}"
