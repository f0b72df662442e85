"""tf.debugging."""
from .ops.logging_ops import (Assert, assert_equal, assert_greater, assert_greater_equal,  # noqa: F401
                              assert_less, assert_less_equal, assert_near, assert_negative, assert_non_negative,
                              assert_non_positive, assert_none_equal, assert_positive, assert_rank, check_numerics,
                              assert_shapes, assert_type, assert_all_finite)

TOPLEVEL = ["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"]
from .devices import set_log_device_placement, get_log_device_placement  # noqa: E402,F401
