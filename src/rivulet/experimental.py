"""tf.experimental: DynamicRaggedShape and RowPartition (loaded from ragged/ on first use)."""

_RAGGED = ("DynamicRaggedShape", "RowPartition")


def __getattr__(name):
    if name in _RAGGED:
        from .ragged import dynamic_shape
        return getattr(dynamic_shape, name)
    raise AttributeError(f"module 'rivulet.experimental' has no attribute '{name}'")


def __dir__():
    return sorted(_RAGGED)
