"""What saved models need of ExtensionTypes (reached by saved_model/ through ops/composite.py's loader for the
kind "extension_type"): the name a class is saved under, and its Spec rebuilt from a file's fields.

A file names the class; loading finds an ExtensionType class already defined and registered under that name
(`__name__ = "..."` in its body, or tf.experimental.extension_type(name)): nothing is imported or executed. The
fields are checked against the class's annotations as specs (a Tensor field must be a TensorSpec ...)."""
from . import fields as _f
from .base import _new_spec, _resolve, lookup_name, name_of as _name_of


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
        cls = lookup_name(name)
        if cls is None:
            raise ValueError(f"the ExtensionType {name!r} is not registered here: define its class (with "
                             f"__name__ = {name!r}, or decorated with tf.experimental.extension_type) before "
                             "loading")
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
