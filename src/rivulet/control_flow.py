"""Control flow exported at tf.NAME: tf.cond, tf.while_loop, tf.switch_case, tf.case, tf.TensorArray, tf.map_fn."""
from .function.control_flow import case, cond, switch_case, while_loop  # noqa: F401
from .function.map_fn import map_fn  # noqa: F401
from .ops.tensor_array_ops import TensorArray  # noqa: F401

TOPLEVEL = ["cond", "while_loop", "switch_case", "case", "TensorArray", "map_fn"]
