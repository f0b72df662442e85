"""tf.bitwise."""
from .ops.bitwise_ops import (bitwise_and, bitwise_or, bitwise_xor, invert, left_shift,  # noqa: F401
                              right_shift)

TOPLEVEL = []
