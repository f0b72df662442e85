"""tf.autograph.experimental."""
from .impl import do_not_convert  # noqa: F401


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Loop options for the loop whose body starts with this call. AutoGraph moves the arguments to the loop
    when converting (maximum_iterations and shape_invariants are honoured); called as is, it does nothing."""
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
