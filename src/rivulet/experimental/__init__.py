"""tf.experimental: DynamicRaggedShape and RowPartition (loaded from ragged/ on first use), Optional (data/)."""

_RAGGED = ("DynamicRaggedShape", "RowPartition")
_EXTENSION = ("ExtensionType", "BatchableExtensionType", "ExtensionTypeSpec", "ExtensionTypeBatchEncoder",
              "dispatch_for_api", "dispatch_for_unary_elementwise_apis", "dispatch_for_binary_elementwise_apis",
              "dispatch_for_binary_elementwise_assert_apis", "unregister_dispatch_for", "extension_type")


def __getattr__(name):
    if name in _RAGGED:
        from ..ragged import dynamic_shape
        return getattr(dynamic_shape, name)
    if name == "Optional":
        from ..data.optional_ops import Optional
        return Optional
    if name in _EXTENSION:
        from .. import extension_type as _et
        return getattr(_et, name)
    if name == "numpy":  # tf.experimental.numpy, loaded on first use
        return __import__(__name__ + ".numpy", fromlist=["numpy"])
    raise AttributeError(f"module 'rivulet.experimental' has no attribute '{name}'")


def __dir__():
    return sorted(_RAGGED + _EXTENSION + ("Optional",))
