"""tf.keras.mixed_precision: dtype policies (float16/bfloat16 compute, float32 variables) and loss scaling."""
from .autocast_variable import AutoCastVariable  # noqa: F401
from .loss_scale_optimizer import LossScaleOptimizer  # noqa: F401
from .policy import Policy, global_policy, set_global_policy  # noqa: F401

__all__ = ["LossScaleOptimizer", "Policy", "global_policy", "set_global_policy"]
