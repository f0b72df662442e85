"""tf.random."""
from .ops.random_ops import set_seed, uniform, normal, truncated_normal, categorical, shuffle  # noqa: F401

TOPLEVEL = []
