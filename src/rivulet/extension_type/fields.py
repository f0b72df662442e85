"""An ExtensionType's fields: what each type annotation accepts and how a value is converted to it.

Annotations: tf.Tensor, tf.TensorShape, tf.DType, int/float/bool/str/bytes/None, Tuple[...], Mapping[K, V],
Union[...] (Optional[X] too), ExtensionTypes and other composite classes (tf.RaggedTensor, tf.SparseTensor).
A value is checked as TensorFlow checks it (a float field takes no int; a Tensor field converts anything
convertible); the TypeError names the field's path (`children[0]: expected 'Node', got 'int'`). A spec's fields
are checked the same way against TypeSpecs (a Tensor field wants a TensorSpec).
"""
import collections.abc
import typing

from .. import dtypes as _dt
from ..core.tensor import Tensor, convert_to_tensor
from ..shape import TensorShape, TensorSpec

RESERVED = ("self", "Spec", "_type_spec", "_shape_invariant_to_type_spec", "_consumers", "value_type",
            "_to_components", "_from_components", "_component_specs", "_to_tensor_list", "_from_tensor_list",
            "_from_compatible_tensor_list", "_flat_tensor_specs", "_serialize", "_deserialize",
            "_to_legacy_output_types", "_to_legacy_output_shapes", "_to_legacy_output_classes",
            "is_compatible_with", "most_specific_compatible_type")

VALUE, SPEC, DEFAULT = "value", "spec", "default"

_NoneType = type(None)


def is_reserved(name):
    return name in RESERVED or name.lower().startswith("_tf_extension_type")


class ImmutableDict(collections.abc.Mapping):
    """A Mapping field's value: a read-only dict, printed as TensorFlow prints it."""
    __slots__ = ("_d",)

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_d", dict(*args, **kwargs))

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __contains__(self, k):
        return k in self._d

    def __setattr__(self, name, value):
        raise AttributeError("ImmutableDict is immutable")

    def __eq__(self, other):
        return isinstance(other, collections.abc.Mapping) and dict(self._d) == dict(other)

    def __hash__(self):
        return hash(tuple(sorted(self._d.items(), key=lambda kv: repr(kv[0]))))

    def __repr__(self):
        return f"ImmutableDict({self._d!r})"


class ExtensionTypeField(collections.namedtuple("ExtensionTypeField", ["name", "value_type", "default"])):
    """One field: its name, annotation and default (NO_DEFAULT when it has none)."""

    class _NoDefault:
        def __repr__(self):
            return "ExtensionTypeField.NO_DEFAULT"

    NO_DEFAULT = _NoDefault()


NO_DEFAULT = ExtensionTypeField.NO_DEFAULT


def _origin(t):
    return typing.get_origin(t)


def _args(t):
    return typing.get_args(t)


def is_tuple_type(t):
    return _origin(t) is tuple


def is_mapping_type(t):
    o = _origin(t)
    return o in (collections.abc.Mapping, dict, collections.abc.MutableMapping)


def is_union_type(t):
    import types
    return _origin(t) in (typing.Union, types.UnionType)


def is_composite_class(t):
    """A composite tensor class (an ExtensionType, tf.RaggedTensor, tf.SparseTensor)."""
    return isinstance(t, type) and (hasattr(t, "_tf_extension_type_fields") or (
        hasattr(t, "__tf_tracing_type__") and hasattr(t, "_to_components")))


def check_annotation(t, path):
    """TypeError for an annotation a field may not have (at class definition, as TensorFlow). (typing.Any: only
    the anonymous types saving.py builds for saved values of unknown classes use it.)"""
    if t is typing.Any:
        return
    if t in (Tensor, TensorShape, _dt.DType, int, float, bool, str, bytes, None, _NoneType) or is_composite_class(t):
        return
    if isinstance(t, (str, typing.ForwardRef)):
        return  # resolved when the class is first used
    if is_tuple_type(t) or is_union_type(t):
        for a in _args(t):
            if a is not Ellipsis:
                check_annotation(a, path)
        return
    if is_mapping_type(t):
        for a in _args(t):
            check_annotation(a, path)
        return
    raise TypeError(f"{path}: Unsupported type annotation {t!r}")


def _tname(value):
    return type(value).__name__


def convert(value, t, path, context=VALUE):
    """`value` checked against and converted to annotation `t` (TypeError naming `path` if it does not fit)."""
    if t is None:
        t = _NoneType
    if t is typing.Any:
        return value
    if t is Tensor:
        if context == SPEC:
            if not isinstance(value, TensorSpec):
                raise TypeError(f"{path}: expected a TensorSpec, got {_tname(value)!r}")
            return value
        if isinstance(value, Tensor):
            return value
        if context == DEFAULT:
            return value
        try:
            return convert_to_tensor(value)
        except (ValueError, TypeError):
            raise TypeError(f"{path}: expected a Tensor, got {_tname(value)!r}") from None
    if isinstance(t, (str, typing.ForwardRef)):
        raise TypeError(f"{path}: Unsupported type annotation {t if isinstance(t, typing.ForwardRef) else typing.ForwardRef(t)!r}")
    if is_composite_class(t):
        if context == SPEC:
            vt = getattr(value, "value_type", None)
            if not (isinstance(vt, type) and issubclass(vt, t)):
                raise TypeError(f"{path}: expected a TypeSpec for {t.__name__!r}, got {_tname(value)!r}")
            return value
        if not isinstance(value, t):
            raise TypeError(f"{path}: expected {t.__name__!r}, got {_tname(value)!r}")
        return value
    if t is TensorShape:
        try:
            return value if isinstance(value, TensorShape) else TensorShape(value)
        except (TypeError, ValueError):
            raise TypeError(f"{path}: expected 'tf.TensorShape', got {_tname(value)!r}") from None
    if t is _dt.DType:
        try:
            return _dt.as_dtype(value)
        except (TypeError, ValueError):
            raise TypeError(f"{path}: expected 'tf.DType', got {_tname(value)!r}") from None
    if t in (int, float, bool, str, bytes, _NoneType):
        if not isinstance(value, t):
            raise TypeError(f"{path}: expected {t.__name__!r}, got {_tname(value)!r}")
        return value
    if is_tuple_type(t):
        if not isinstance(value, collections.abc.Sequence) or isinstance(value, (str, bytes)):
            raise TypeError(f"{path}: expected tuple, got {_tname(value)!r}")
        args = _args(t)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(convert(v, args[0], f"{path}[{i}]", context) for i, v in enumerate(value))
        if len(value) != len(args):
            raise TypeError(f"{path}: expected tuple with length {len(args)}, got {_tname(value)!r})")
        return tuple(convert(v, a, f"{path}[{i}]", context) for i, (v, a) in enumerate(zip(value, args)))
    if is_mapping_type(t):
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(f"{path}: expected mapping, got {_tname(value)!r}")
        kt, vt = _args(t) or (typing.Any, typing.Any)
        return ImmutableDict([(convert(k, kt, f"{path}[<key>]", context), convert(v, vt, f"{path}[{k!r}]", context))
                              for k, v in value.items()])
    if is_union_type(t):
        for a in _args(t):
            try:
                return convert(value, a, path, context)
            except TypeError:
                pass
        raise TypeError(f"{path}: expected {t!r}, got {_tname(value)!r}")
    raise TypeError(f"{path}: Unsupported type annotation {t!r}")
