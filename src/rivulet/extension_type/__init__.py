"""tf.experimental.ExtensionType: user-defined composite tensors (base.py), their fields (fields.py) and the
dispatch of TensorFlow's APIs to functions registered for them (dispatch.py)."""
from .base import (BatchableExtensionType, BatchableExtensionTypeSpec, ExtensionType,  # noqa: F401
                   ExtensionTypeSpec, lookup_name, name_of, register_name, type_spec_from_value)
from .fields import ExtensionTypeField, ImmutableDict  # noqa: F401
from .dispatch import (dispatch_for_api, dispatch_for_binary_elementwise_apis,  # noqa: F401
                       dispatch_for_unary_elementwise_apis, unregister_dispatch_for)


def extension_type(name):
    """tf.experimental.extension_type(name): a class decorator registering an ExtensionType by name (what a
    saved model records, to find the class again when loaded)."""
    def decorator(cls):
        if not (isinstance(cls, type) and issubclass(cls, ExtensionType)):
            raise TypeError(f"Expected `cls` to be an ExtensionType subclass, got {cls!r}")
        register_name(name, cls)
        return cls
    return decorator
