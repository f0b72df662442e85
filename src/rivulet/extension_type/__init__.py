"""tf.experimental.ExtensionType: user-defined composite tensors (base.py), their fields (fields.py) and the
dispatch of TensorFlow's APIs to functions registered for them (dispatch.py)."""
from .base import (BatchableExtensionType, BatchableExtensionTypeSpec, ExtensionType,  # noqa: F401
                   ExtensionTypeSpec, lookup_name, name_of, register_name, type_spec_from_value)
from .fields import ExtensionTypeField, ImmutableDict  # noqa: F401
from .base import ExtensionTypeBatchEncoder  # noqa: F401
from .dispatch import (dispatch_for_api, dispatch_for_binary_elementwise_apis,  # noqa: F401
                       dispatch_for_binary_elementwise_assert_apis, dispatch_for_unary_elementwise_apis,
                       unregister_dispatch_for)
from . import api as extension_type  # noqa: F401  (tf.experimental.extension_type: as_dict)

