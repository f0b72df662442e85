"""tf.no_op, tf.group and tf.control_dependencies: eagerly nothing to order (None, a null context), in graphs a
NoOp operation carrying control inputs and the graph's control-dependency scope, as TensorFlow's."""
import contextlib

from .. import nest
from ..core import context
from ..core.dispatch import bind
from ..core.op import defop

NO_OP = defop("NoOp", lambda: None, lambda: [], num_outputs=0, stateful=True)


def no_op(name=None):
    """Nothing; in a graph an operation others can depend on."""
    g = context.current_graph()
    if g is None:
        return None
    bind(NO_OP, (), name=name or "NoOp")
    return g._ops[-1]  # a no-output op is returned as its Operation


def _ops_of(inputs):
    from ..graph.graph import Operation
    out = []
    for x in nest.flatten(inputs):
        if x is None:
            continue
        if isinstance(x, Operation):
            out.append(x)
        elif getattr(x, "op", None) is not None and isinstance(x.op, Operation):
            out.append(x.op)
        elif hasattr(x, "_composite_kind") or hasattr(x, "values"):  # composite tensors: their components
            out += _ops_of([getattr(x, "values", None), getattr(x, "indices", None)])
    return out


def group(*inputs, name=None):
    """An operation that runs after all of `inputs` (nested structures of tensors and operations) when run;
    None eagerly, where everything has already run."""
    if context.current_graph() is None:
        return None
    from ..graph.graph import get_default_graph
    deps = _ops_of(inputs)
    g = get_default_graph()
    with g.control_dependencies(deps):
        bind(NO_OP, (), name=name or "group_deps")
    return g._ops[-1]


def control_dependencies(control_inputs):
    """A context in which new graph ops run after control_inputs (operations or tensors; None clears the
    dependencies); eagerly a null context (callables among the inputs are called, as TensorFlow does)."""
    if context.current_graph() is None:
        for c in control_inputs or ():
            if callable(c):
                c()
        return contextlib.nullcontext()
    from ..graph.graph import get_default_graph
    if control_inputs is None:
        return get_default_graph().control_dependencies(None)
    return get_default_graph().control_dependencies(_ops_of(control_inputs))
