"""tf.random."""
from .ops.random_ops import set_seed, uniform, normal, truncated_normal, categorical, shuffle  # noqa: F401
from .ops.random_ops import (stateless_uniform, stateless_normal, stateless_truncated_normal,  # noqa: F401
                             Generator)

TOPLEVEL = []
