"""What saved models need of ExtensionTypes (reached by saved_model/ through ops/composite.py's loader for the
kind "extension_type"): the name a class is saved under, and its Spec rebuilt from a file's fields.

A file names the class; loading finds an ExtensionType class already defined and registered under that name
(`__name__ = "..."` in its body): nothing is imported or executed. The
fields are checked against the class's annotations as specs (a Tensor field must be a TensorSpec ...)."""
import typing

from .. import dtypes as _dt
from ..core.tensor import Tensor
from ..log import get_logger
from ..shape import TensorShape, TensorSpec
from . import fields as _f
from .base import ExtensionType, _new_spec, _resolve, lookup_name, name_of as _name_of

_ANONYMOUS = {}


def _immutable(v):
    if isinstance(v, dict):
        return _f.ImmutableDict([(k, _immutable(x)) for k, x in v.items()])
    if isinstance(v, (list, tuple)):
        return tuple(_immutable(x) for x in v)
    return v


class SavedModelHooks:
    @staticmethod
    def name_of(cls):
        return _name_of(cls)

    @staticmethod
    def make_spec(name, items):
        for k, _ in items:
            if not k.isidentifier() or k.startswith("__") or _f.is_reserved(k):
                raise ValueError(f"bad ExtensionType field name {k[:64]!r}")
        cls = lookup_name(name)
        if cls is None:  # (TensorFlow too loads an unknown type as an anonymous one, with a warning)
            cls = _anonymous(name, items)
        flds = cls._tf_extension_type_fields()
        names = [k for k, _ in items]
        if names != [f.name for f in flds]:
            raise ValueError(f"the fields {names} saved for {name!r} are not those of {cls.__qualname__}: "
                             f"{[f.name for f in flds]}")
        values = []
        for f, (k, v) in zip(flds, items):
            values.append((k, _f.convert(_immutable(v), _resolve(cls, f.value_type), k, _f.SPEC)))
        return _new_spec(cls.Spec, values)


class SavedModelKind:
    """What ops/composite.py's loader gives for "extension_type" (saved_model/format.py reads its
    `_type_spec_class`)."""
    _type_spec_class = SavedModelHooks


def _annotation(v):
    """The field annotation a saved spec field stands for (an anonymous type's, built from the file)."""
    if isinstance(v, TensorSpec):
        return Tensor
    vt = getattr(v, "value_type", None)
    if isinstance(vt, type) and hasattr(v, "_component_specs"):
        return vt
    if isinstance(v, TensorShape):
        return TensorShape
    if isinstance(v, _dt.DType):
        return _dt.DType
    if isinstance(v, dict):
        return typing.Mapping[typing.Any, typing.Any]
    if isinstance(v, (list, tuple)):
        return typing.Tuple[typing.Any, ...]
    if isinstance(v, (bool, int, float, str, bytes, type(None))):
        return type(v)
    raise ValueError(f"a saved ExtensionType field holds a {type(v).__name__}")


def _anonymous(name, items):
    """An ExtensionType class for a saved type this process does not define: its fields as the file gives
    them (no code from the file runs; TensorFlow's AnonymousExtensionType plays this part)."""
    key = (name, tuple((k, repr(_annotation(v))) for k, v in items))
    cls = _ANONYMOUS.get(key)
    if cls is None:
        get_logger().warning(f"Loading a saved value of the ExtensionType {name!r}, which is not registered here "
                             "(give its class that __name__ before loading): loaded as an AnonymousExtensionType.")
        ns = {"__annotations__": {k: _annotation(v) for k, v in items}, "__module__": __name__}
        cls = type(ExtensionType)("AnonymousExtensionType", (ExtensionType,), ns)
        _ANONYMOUS[key] = cls
    return cls
