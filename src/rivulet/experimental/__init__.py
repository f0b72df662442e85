"""tf.experimental: DynamicRaggedShape and RowPartition (loaded from ragged/ on first use), Optional (data/)."""

_RAGGED = ("DynamicRaggedShape", "RowPartition")


def __getattr__(name):
    if name in _RAGGED:
        from ..ragged import dynamic_shape
        return getattr(dynamic_shape, name)
    if name == "Optional":
        from ..data.optional_ops import Optional
        return Optional
    raise AttributeError(f"module 'rivulet.experimental' has no attribute '{name}'")


def __dir__():
    return sorted(_RAGGED + ("Optional",))
