"""tf.experimental.ExtensionType and BatchableExtensionType, with their nested `Spec` classes.

A subclass declares fields with type annotations; its class gets a constructor that converts and checks each
field (fields.py), runs `__validate__`, and leaves the value immutable. Its `Spec` (a subclass of
ExtensionTypeSpec made for it, with what the class's own `class Spec:` body defines) holds the static part: a
TensorSpec for each tensor field, the spec of each composite field, the Python values of the others. That spec
is the value's trace type, so a tf.function traces once per spec; its components (every tensor of the value,
fields in order, mappings by sorted key, nested composites expanded) are what graphs, datasets and saved models
carry, and `_from_components` rebuilds a value around new tensors without running the constructor (as
TensorFlow does).
"""
import inspect
import sys
import typing

import numpy as np

from .. import dtypes as _dt
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor
from ..function.trace_type import TraceType
from ..shape import TensorShape, TensorSpec
from . import fields as _f
from .fields import ExtensionTypeField, ImmutableDict, NO_DEFAULT

_IN_CONSTRUCTOR = "_tf_extension_type_in_constructor"
_MUTABLE_KERAS = ("_keras_mask", "_keras_history", "_keras_history_checked")
_CLASSES = []  # every user ExtensionType class, for forward references by name
_REGISTRY = {}  # registered name (`__name__` in the class body, as TensorFlow registers it) -> class


# ---------------------------------------------------------------------------------------------------------------
# walking a value's (or a spec's) fields


def _is_composite_value(x):
    return not isinstance(x, Tensor) and hasattr(x, "_to_components") and hasattr(type(x), "__tf_tracing_type__")


def _is_composite_spec(s):
    return hasattr(s, "_component_specs") and hasattr(s, "_from_components") and not isinstance(s, TensorSpec)


def _spec_of_field(v):
    if isinstance(v, Tensor):
        return TensorSpec(v.shape, v.dtype)
    if isinstance(v, ExtensionType):
        return v._type_spec
    if _is_composite_value(v):
        return type(v).__tf_tracing_type__(v, None)
    if isinstance(v, tuple):
        return tuple(_spec_of_field(x) for x in v)
    if isinstance(v, ImmutableDict):
        return ImmutableDict([(k, _spec_of_field(x)) for k, x in v.items()])
    return v


def _components(v, out):
    if isinstance(v, Tensor):
        out.append(v)
    elif _is_composite_value(v):
        for c in v._to_components():
            _components(c, out)
    elif isinstance(v, tuple):
        for x in v:
            _components(x, out)
    elif isinstance(v, ImmutableDict):
        for k in sorted(v):
            _components(v[k], out)


def _component_specs(s, out):
    if isinstance(s, TensorSpec):
        out.append(s)
    elif _is_composite_spec(s):
        for c in s._component_specs:
            _component_specs(c, out)
    elif isinstance(s, tuple):
        for x in s:
            _component_specs(x, out)
    elif isinstance(s, ImmutableDict):
        for k in sorted(s):
            _component_specs(s[k], out)


def _n_components(s):
    out = []
    _component_specs(s, out)
    return len(out)


def _rebuild(s, it):
    """The field value of spec `s` made of the next tensors of iterator `it`."""
    if isinstance(s, TensorSpec):
        return next(it)
    if _is_composite_spec(s):
        parts = []
        for c in s._component_specs:
            parts.append(_rebuild(c, it))
        return s._from_components(parts)
    if isinstance(s, tuple):
        return tuple(_rebuild(x, it) for x in s)
    if isinstance(s, ImmutableDict):
        vals = {k: _rebuild(s[k], it) for k in sorted(s)}
        return ImmutableDict([(k, vals[k]) for k in s])
    return s


def _map_specs(fn, s):
    """fn applied to each TensorSpec / composite spec / TensorShape in a spec field (containers rebuilt)."""
    if isinstance(s, tuple):
        return tuple(_map_specs(fn, x) for x in s)
    if isinstance(s, ImmutableDict):
        return ImmutableDict([(k, _map_specs(fn, x)) for k, x in s.items()])
    return fn(s)


def _pairwise(fn, a, b):
    """fn over matching leaves of two spec fields; None when their structure or static values differ."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return None
        parts = [_pairwise(fn, x, y) for x, y in zip(a, b)]
        return None if any(p is _FAIL for p in parts) else tuple(parts)
    if isinstance(a, ImmutableDict) and isinstance(b, ImmutableDict):
        if list(a) != list(b) and set(a) != set(b):
            return _FAIL
        parts = [(k, _pairwise(fn, a[k], b[k])) for k in a]
        return _FAIL if any(p is _FAIL for _, p in parts) else ImmutableDict(parts)
    return fn(a, b)


_FAIL = object()


def _leaf_supertype(a, b):
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        r = a.most_specific_common_supertype([b])
        return _FAIL if r is None else r
    if _is_composite_spec(a) and _is_composite_spec(b):
        r = a.most_specific_common_supertype([b])
        return _FAIL if r is None else r
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        if a.rank != b.rank:
            return TensorShape(None)
        return a.most_specific_compatible_shape(b)
    return a if _same(a, b) else _FAIL


def _leaf_subtype(a, b):
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return True if a.is_subtype_of(b) else _FAIL
    if _is_composite_spec(a) and _is_composite_spec(b):
        return True if a.is_subtype_of(b) else _FAIL
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return True if a.is_subtype_of(b) else _FAIL
    return True if _same(a, b) else _FAIL


def _leaf_compatible(a, b):
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return True if a.dtype == b.dtype and a.shape.is_compatible_with(b.shape) else _FAIL
    if _is_composite_spec(a) and _is_composite_spec(b):
        return True if a.is_compatible_with(b) else _FAIL
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return True if a.is_compatible_with(b) else _FAIL
    return True if _same(a, b) else _FAIL


def _same(a, b):
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _hashable(v):
    if isinstance(v, TensorSpec):
        return ("T", v.shape, v.dtype)
    if isinstance(v, tuple):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, ImmutableDict):
        return ("D", tuple((k, _hashable(v[k])) for k in sorted(v, key=repr)))
    if isinstance(v, TensorShape):
        return ("S", None if v.rank is None else tuple(v.as_list()))
    return v


# ---------------------------------------------------------------------------------------------------------------
# the spec


class ExtensionTypeSpec(TraceType):
    """The TypeSpec of an ExtensionType class (each class gets its own subclass, `Cls.Spec`)."""
    value_type = None

    # -- fields
    @classmethod
    def _tf_extension_type_fields(cls):
        return cls.value_type._tf_extension_type_fields()

    @classmethod
    def _tf_extension_type_has_field(cls, name):
        return cls.value_type._tf_extension_type_has_field(name)

    def _tf_extension_type_convert_fields(self):
        _convert_fields(self, self.value_type, _f.SPEC)

    def __validate__(self):
        """Checks after construction (a spec's class body may override it)."""

    def _fields_items(self):
        return [(f.name, self.__dict__[f.name]) for f in self._tf_extension_type_fields() if f.name in self.__dict__]

    def _serialize(self):
        return tuple((k, _plain(v)) for k, v in self._fields_items())

    @classmethod
    def from_value(cls, value):
        cached = value.__dict__.get("_tf_extension_type_cached_type_spec")
        if cached is not None:
            return cached
        return _new_spec(cls, [(f.name, _spec_of_field(value.__dict__[f.name]))
                               for f in value._tf_extension_type_fields()])

    # -- immutability
    def __setattr__(self, name, value):
        if _IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name):
            self.__dict__[name] = value
        elif name.startswith("_cached") or name == "_tf_extension_type_hash":
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of "
                                 "ExtensionTypeSpec.")

    def __delattr__(self, name):
        if _IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name):
            del self.__dict__[name]
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of "
                                 "ExtensionTypeSpec.")

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._serialize())
        return f"{type(self).__qualname__}({fields})"

    # -- components (what graphs, datasets and saved models carry)
    @property
    def _component_specs(self):
        out = self.__dict__.get("_tf_extension_type_cached_components")
        if out is None:  # (a spec does not change once made: computed once)
            out = []
            for _, v in self._fields_items():
                _component_specs(v, out)
            out = tuple(out)
            if _IN_CONSTRUCTOR not in self.__dict__:
                self.__dict__["_tf_extension_type_cached_components"] = out
        return out

    def _from_components(self, components):
        it = iter(components)
        vals = [(k, _rebuild(v, it)) for k, v in self._fields_items()]
        obj = object.__new__(self.value_type)
        obj.__dict__.update(vals)
        obj.__dict__["_tf_extension_type_cached_type_spec"] = self
        if isinstance(components, (list, tuple)) and all(isinstance(c, Tensor) for c in components):
            obj.__dict__["_tf_extension_type_cached_components"] = list(components)
        return obj

    # -- the TraceType protocol
    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def _key(self):
        key = self.__dict__.get("_tf_extension_type_key")
        if key is None:
            key = tuple((k, _hashable(v)) for k, v in self._fields_items())
            if _IN_CONSTRUCTOR not in self.__dict__:
                self.__dict__["_tf_extension_type_key"] = key
        return key

    def __hash__(self):
        h = self.__dict__.get("_tf_extension_type_hash")
        if h is None:
            h = hash((type(self).__qualname__, self._key()))
            self.__dict__["_tf_extension_type_hash"] = h
        return h

    def _zip(self, other, leaf):
        if type(other) is not type(self):
            return _FAIL
        a, b = dict(self._fields_items()), dict(other._fields_items())
        if list(a) != list(b):
            return _FAIL
        out = []
        for k in a:
            r = _pairwise(leaf, a[k], b[k])
            if r is _FAIL or r is None:
                return _FAIL
            out.append((k, r))
        return out

    def is_subtype_of(self, other):
        if other is self or self == other:
            return True
        return self._zip(other, _leaf_subtype) is not _FAIL

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value._type_spec if isinstance(spec_or_value, ExtensionType) else spec_or_value
        return self._zip(other, _leaf_compatible) is not _FAIL

    def most_specific_common_supertype(self, others):
        cur = self
        for o in others:
            r = cur._zip(o, _leaf_supertype)
            if r is _FAIL:
                return None
            cur = _new_spec(type(self), r)
        return cur

    def most_specific_compatible_type(self, other):
        r = self.most_specific_common_supertype([other])
        if r is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return r

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError("rivulet's tracer makes an ExtensionType's placeholders from its components")

    def _tf_extension_type_with_packed(self, value):
        return self  # rivulet keeps no packed (variant) form: the same spec


class ExtensionTypeBatchEncoder:
    """tf.experimental.ExtensionTypeBatchEncoder: how a BatchableExtensionType's spec batches. The default adds
    an outer dimension to every tensor field and TensorShape field (`batch`) and removes it (`unbatch`); a class
    may name a subclass in `__batch_encoder__` to batch its spec otherwise. (rivulet batches values themselves
    by their components: `encode`/`decode` give and take those.)"""

    def batch(self, spec, batch_size):
        return BatchableExtensionTypeSpec._default_batch(spec, batch_size)

    def unbatch(self, spec):
        return BatchableExtensionTypeSpec._default_unbatch(spec)

    def encode(self, spec, value, minimum_rank=0):
        return value._to_components()

    def decode(self, spec, encoded_value):
        return spec._from_components(encoded_value)

    def encoding_specs(self, spec):
        return spec._component_specs


class BatchableExtensionTypeSpec(ExtensionTypeSpec):
    """The spec of a BatchableExtensionType: `_batch(n)` / `_unbatch()` add / remove an outer dimension of every
    tensor field and TensorShape field (TensorFlow's default batch encoder), or as its `__batch_encoder__` says."""
    __batch_encoder__ = ExtensionTypeBatchEncoder()

    def _batch(self, batch_size):
        return self.__batch_encoder__.batch(self, batch_size)

    def _unbatch(self):
        return self.__batch_encoder__.unbatch(self)

    def _default_batch(self, batch_size):
        def batch(s):
            if isinstance(s, TensorSpec):
                return TensorSpec(TensorShape([batch_size]).concatenate(s.shape), s.dtype)
            if isinstance(s, BatchableExtensionTypeSpec):
                return s._batch(batch_size)
            if _is_composite_spec(s):
                raise ValueError(f"Batching a {type(s).__name__} field of an ExtensionType is not supported.")
            if isinstance(s, TensorShape):
                return TensorShape([batch_size]).concatenate(s)
            return s
        return _new_spec(type(self), [(k, _map_specs(batch, v)) for k, v in self._fields_items()])

    def _default_unbatch(self):
        def unbatch(s):
            if isinstance(s, TensorSpec):
                if s.shape.rank == 0:
                    raise ValueError("Unbatching a tensor is only supported for rank >= 1")
                return TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None), s.dtype)
            if isinstance(s, BatchableExtensionTypeSpec):
                return s._unbatch()
            if _is_composite_spec(s):
                raise ValueError(f"Unbatching a {type(s).__name__} field of an ExtensionType is not supported.")
            if isinstance(s, TensorShape):
                return s[1:] if s.rank is not None else s
            return s
        return _new_spec(type(self), [(k, _map_specs(unbatch, v)) for k, v in self._fields_items()])


def _plain(v):
    """A spec field as TensorFlow serializes it (mappings as plain dicts)."""
    if isinstance(v, ImmutableDict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return v


def _new_spec(cls, items):
    spec = object.__new__(cls)
    spec.__dict__.update(items)
    return spec


# ---------------------------------------------------------------------------------------------------------------
# the value


def _convert_fields(obj, owner, mode):
    """Converts and checks every field of a value or a spec (`mode`: _f.VALUE or _f.SPEC) in place, the field
    annotations resolved against the value class `owner`."""
    d = obj.__dict__
    flds = obj._tf_extension_type_fields()
    _check_field_names(flds, d)
    for f in flds:
        d[f.name] = _f.convert(d[f.name], _resolve(owner, f.value_type), f.name, mode)


def _check_field_names(flds, d):
    names = {f.name for f in flds}
    extra = [k for k in d if k not in names and not k.startswith("_")]
    if extra:
        raise ValueError(f"Got unexpected fields: {set(extra)}")
    missing = names - set(d)
    if missing:
        raise ValueError(f"Missing required fields: {missing}")


def _resolve(cls, t):
    """A forward reference (`"Node"`) resolved among the ExtensionType classes of cls's module (the latest
    of that name), or of any module; other annotations unchanged (inside Tuple/Mapping/Union too)."""
    if isinstance(t, (str, typing.ForwardRef)):
        name = t if isinstance(t, str) else t.__forward_arg__
        mod = sys.modules.get(getattr(cls, "__module__", ""))
        found = getattr(mod, name, None) if mod is not None else None
        if isinstance(found, type):
            return found
        for c in reversed(_CLASSES):
            if c.__name__ == name and c.__module__ == cls.__module__:
                return c
        for c in reversed(_CLASSES):
            if c.__name__ == name:
                return c
        return t
    args = typing.get_args(t)
    if args and any(isinstance(a, (str, typing.ForwardRef)) or typing.get_args(a) for a in args):
        origin = typing.get_origin(t)
        new = tuple(a if a is Ellipsis else _resolve(cls, a) for a in args)
        if _f.is_union_type(t):
            return typing.Union[new]
        if origin is tuple:
            return typing.Tuple[new]
        if _f.is_mapping_type(t):
            return typing.Mapping[new[0], new[1]]
    return t


class _Metaclass(type):
    """(a plain metaclass, not abc.ABCMeta: isinstance against ExtensionType stays a C-level check, which the
    op functions' composite dispatch does on every call once a dispatcher is registered)"""

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        if namespace.get("_tf_extension_type_do_not_transform_this_class", False):
            return
        _check_class(cls)
        _add_constructor(cls)
        _add_spec(cls)
        _CLASSES.append(cls)
        if len(_CLASSES) > 4096:
            del _CLASSES[:1024]


class ExtensionType(metaclass=_Metaclass):
    """tf.experimental.ExtensionType: a user-defined composite of tensors, declared by type-annotated fields."""
    _tf_extension_type_do_not_transform_this_class = True

    def __init__(self, *args, **kwargs):
        if type(self).__name__ in ("ExtensionType", "BatchableExtensionType"):
            raise AssertionError(f"Cannot create an instance of {type(self).__name__} because "
                                 f"{type(self).__name__} is an abstract base class.")

    @classmethod
    def _tf_extension_type_fields(cls):
        cached = cls.__dict__.get("_tf_extension_type_cached_fields")
        if cached is not None:
            return cached
        ann = {}
        for base in reversed(cls.__mro__):
            ann.update(base.__dict__.get("__annotations__", {}))
        try:
            hints = typing.get_type_hints(cls)
            ok = True
        except (NameError, AttributeError):
            hints, ok = {}, False
        flds = tuple(ExtensionTypeField(n, hints.get(n, t), getattr(cls, n, NO_DEFAULT)) for n, t in ann.items())
        if ok:
            type.__setattr__(cls, "_tf_extension_type_cached_fields", flds)
        return flds

    @classmethod
    def _tf_extension_type_has_field(cls, name):
        return any(f.name == name for f in cls._tf_extension_type_fields())

    def _tf_extension_type_convert_fields(self):
        _convert_fields(self, type(self), _f.VALUE)

    def __validate__(self):
        """Checks after construction (override it: raise to refuse a value)."""

    def __repr__(self):
        fields = ", ".join(f"{f.name}={self.__dict__.get(f.name)!r}" for f in self._tf_extension_type_fields())
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name, value):
        if name in _MUTABLE_KERAS or (_IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name)):
            self.__dict__[name] = value
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of "
                                 "ExtensionType.")

    def __delattr__(self, name):
        if name in _MUTABLE_KERAS or (_IN_CONSTRUCTOR in self.__dict__ and self._tf_extension_type_has_field(name)):
            del self.__dict__[name]
        else:
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor of "
                                 "ExtensionType.")

    def __getattr__(self, name):
        if name in _MUTABLE_KERAS:
            raise AttributeError(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other):
        if type(self) is not type(other) or self._type_spec != other._type_spec:
            return False
        a, b = self._to_components(), other._to_components()
        if len(a) != len(b):
            return False
        return _all_equal(a, b)

    def __ne__(self, other):
        eq = self.__eq__(other)
        if isinstance(eq, Tensor):
            from ..ops import math_ops
            return math_ops.logical_not(eq)
        return not eq

    __hash__ = None  # (as TensorFlow: values hold tensors; a tf.function traces them by spec)

    @property
    def _type_spec(self):
        spec = self.__dict__.get("_tf_extension_type_cached_type_spec")
        if spec is None:
            spec = self.Spec.from_value(self)
            if _IN_CONSTRUCTOR not in self.__dict__:
                self.__dict__["_tf_extension_type_cached_type_spec"] = spec
        return spec

    def __tf_tracing_type__(self, context):
        return self._type_spec

    def _to_components(self):
        out = self.__dict__.get("_tf_extension_type_cached_components")
        if out is None:  # (fields never change once the value is made: computed once)
            out = []
            for f in self._tf_extension_type_fields():
                _components(self.__dict__[f.name], out)
            if _IN_CONSTRUCTOR not in self.__dict__:
                self.__dict__["_tf_extension_type_cached_components"] = out
        return list(out)

    def _shape_invariant_to_type_spec(self, shape):
        return self._type_spec

    def _consumers(self):
        return []


class BatchableExtensionType(ExtensionType):
    """tf.experimental.BatchableExtensionType: an ExtensionType whose values batch and unbatch (tf.data's batch,
    from_tensor_slices, map_fn, Keras), each tensor field along its outer dimension."""
    _tf_extension_type_do_not_transform_this_class = True


def _all_equal(a, b):
    """TensorFlow's ExtensionType equality: every component of the same shape and equal values (a bool tensor)."""
    if all(isinstance(t, EagerTensor) for t in a + b):
        ok = all(np.shape(x._v) == np.shape(y._v) and bool(np.all(np.asarray(x._v) == np.asarray(y._v)))
                 for x, y in zip(a, b))
        return convert_to_tensor(ok)
    from ..ops import array_ops, math_ops
    conds = []
    for x, y in zip(a, b):
        xs, ys = x.shape, y.shape
        if xs.is_fully_defined() and ys.is_fully_defined():
            if xs != ys:
                return convert_to_tensor(False)
        else:
            sx, sy = array_ops.shape(x), array_ops.shape(y)
            if xs.rank is not None and xs.rank == ys.rank:
                conds.append(math_ops.reduce_all(math_ops.equal(sx, sy)))
        conds.append(math_ops.reduce_all(math_ops.equal(x, y)))
    if not conds:
        return convert_to_tensor(True)
    return math_ops.reduce_all(array_ops.stack(conds))


def _check_class(cls):
    ann = cls.__dict__.get("__annotations__", {})
    for name, value in cls.__dict__.items():
        if name == "Spec":
            if not isinstance(value, type):
                raise ValueError(f"{cls.__qualname__}.Spec must be a nested class; got {value}.")
            if value.__bases__ not in ((object,), (TraceType,), (ExtensionTypeSpec,)):
                raise ValueError(f"{cls.__qualname__}.Spec must be directly subclassed from tf.TypeSpec.")
        elif _f.is_reserved(name):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved.")
    for name in ann:
        if _f.is_reserved(name):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. Field '{name}' is reserved.")
    for key, value in cls.__dict__.items():
        if not (key in ann or callable(value) or key.startswith("_abc_") or
                key == "_tf_extension_type_fields" or (key.startswith("__") and key.endswith("__")) or
                isinstance(value, (property, classmethod, staticmethod))):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. Field {key} is missing a "
                             "type annotation.")
    for name, t in ann.items():
        _f.check_annotation(t, name)


def _add_constructor(cls):
    if "__init__" in cls.__dict__:
        _wrap_user_init(cls)
        return
    flds = cls._tf_extension_type_fields()
    got_default, kw_start = False, len(flds)
    for i, f in enumerate(flds):
        if got_default and f.default is NO_DEFAULT:
            kw_start = i
            break
        if f.default is not NO_DEFAULT:
            got_default = True
    params = [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD if i < kw_start else
                                inspect.Parameter.KEYWORD_ONLY,
                                default=inspect.Parameter.empty if f.default is NO_DEFAULT else f.default,
                                annotation=f.value_type) for i, f in enumerate(flds)]
    sig = inspect.Signature(params, return_annotation=cls.__name__)

    def __init__(self, *args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(str(e)) from None
        bound.apply_defaults()
        self.__dict__.update(bound.arguments)
        self._tf_extension_type_convert_fields()
        self.__validate__()

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params, return_annotation=cls)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = __init__


def _wrap_user_init(cls):
    user = cls.__dict__["__init__"]

    def __init__(self, *args, **kwargs):
        self.__dict__[_IN_CONSTRUCTOR] = True
        try:
            user(self, *args, **kwargs)
        finally:
            self.__dict__.pop(_IN_CONSTRUCTOR, None)
        self._tf_extension_type_convert_fields()
        self.__validate__()

    __init__.__wrapped__ = user
    __init__.__doc__ = user.__doc__
    __init__.__qualname__ = user.__qualname__
    cls.__init__ = __init__


def _add_spec(cls):
    spec_dict = {"value_type": cls, "__module__": cls.__module__}
    user = cls.__dict__.get("Spec")
    qual = cls.__qualname__ + ".Spec"
    if user is not None:
        for name, value in user.__dict__.items():
            if _f.is_reserved(name):
                raise ValueError(f"TypeSpec {qual} uses reserved name '{name}'.")
            if cls._tf_extension_type_has_field(name):
                raise ValueError(f"TypeSpec {qual} defines a variable '{name}' which shadows a field in "
                                 f"{cls.__qualname__}")
            if name in ("__module__", "__dict__", "__weakref__", "__qualname__"):
                continue
            spec_dict[name] = value
    if issubclass(cls, BatchableExtensionType):
        base = BatchableExtensionTypeSpec
        if "__batch_encoder__" in cls.__dict__ and "__batch_encoder__" not in spec_dict:
            spec_dict["__batch_encoder__"] = cls.__dict__["__batch_encoder__"]
    else:
        base = ExtensionTypeSpec
        if "__batch_encoder__" in cls.__dict__ or "__batch_encoder__" in spec_dict:
            raise ValueError("__batch_encoder__ should only be defined for BatchableExtensionType classes.")
    spec = type(cls.__name__ + ".Spec", (base,), spec_dict)
    spec.__qualname__ = qual
    type.__setattr__(cls, "Spec", spec)
    if "__init__" in spec.__dict__:
        _wrap_user_init(spec)
    else:
        params = [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for f in cls._tf_extension_type_fields()]
        sig = inspect.Signature(params)

        def __init__(self, *args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            self.__dict__.update(bound.arguments)
            self._tf_extension_type_convert_fields()
            self.__validate__()

        __init__.__signature__ = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params, return_annotation=spec)
        spec.__init__ = __init__
    if "__name__" in cls.__dict__:
        register_name(cls.__dict__["__name__"], cls)


def register_name(name, cls):
    """Registers an ExtensionType class by name (what saved models record)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"Expected `name` to be a non-empty string, got {name!r}")
    _REGISTRY[name] = cls


def lookup_name(name):
    return _REGISTRY.get(name)


def name_of(cls):
    for k, v in _REGISTRY.items():
        if v is cls:
            return k
    return None


def type_spec_from_value(value):
    """tf.type_spec_from_value: the TypeSpec of a value (an ExtensionType's Spec, a composite's spec, a
    TensorSpec for a tensor or anything convertible to one)."""
    if isinstance(value, ExtensionType):
        return value._type_spec
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if _is_composite_value(value):
        return type(value).__tf_tracing_type__(value, None)
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type {type(value)}.") from None
    return TensorSpec(t.shape, t.dtype)


_ = _dt  # (dtypes: the DType annotation is checked in fields.py)
