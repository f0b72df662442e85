"""Control flow exported at tf.NAME: tf.cond, tf.while_loop, tf.switch_case, tf.case, tf.TensorArray, tf.map_fn."""
from .function.control_flow import case, cond, switch_case, while_loop  # noqa: F401
from .function.map_fn import map_fn  # noqa: F401
from .ops.tensor_array_ops import TensorArray  # noqa: F401

TOPLEVEL = ["cond", "while_loop", "switch_case", "case", "TensorArray", "map_fn"]


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """tf.vectorized_map: `fn` over the first dimension of `elems`, run as tf.map_fn (not vectorised); the output
    signature is read from one call of `fn` on the first row."""
    from . import nest
    from .core.tensor import convert_to_tensor
    from .shape import TensorSpec
    first = nest.map_structure(lambda e: convert_to_tensor(e)[0], elems)
    sig = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), fn(first))
    return map_fn(fn, elems, fn_output_signature=sig)


TOPLEVEL.append("vectorized_map")
from .function.scan_ops import scan, foldl, foldr  # noqa: F401,E402
TOPLEVEL += ["scan", "foldl", "foldr"]
from .ops.control_ops import no_op, group, control_dependencies  # noqa: F401,E402
TOPLEVEL += ["no_op", "group", "control_dependencies"]
from .autodiff.api_extras import (inside_function, is_symbolic_tensor, get_current_name_scope,  # noqa: F401,E402
                                  guarantee_const, grad_pass_through, recompute_grad, hessians)
from .autodiff.api_extras import AggregationMethod, required_space_to_batch_paddings  # noqa: F401,E402
TOPLEVEL += ["inside_function", "is_symbolic_tensor", "get_current_name_scope", "guarantee_const",
             "grad_pass_through", "recompute_grad", "hessians", "edit_distance", "AggregationMethod",
             "required_space_to_batch_paddings"]


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """tf.edit_distance (tf.sparse loads on first use)."""
    from .sparse.more_ops import edit_distance as _edit_distance
    return _edit_distance(hypothesis, truth, normalize, name)
