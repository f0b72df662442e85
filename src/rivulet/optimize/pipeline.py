"""The optimisation pipeline run on a traced graph before it is compiled (never on the user's graph:
`ConcreteFunction.graph` stays as traced; the compiled copy is optimised).

  1. prune + debug stripping + constant folding + arithmetic simplification + CSE   (one forward rewrite,
     see rewrite.py)
  2. fusion (remapping) for the executor
Pruning (non-strict execution) is also what the compiler's planner does: only what outputs and stateful
ops need is emitted.
"""
from ..core.tensor import EagerTensor
from ..execute import options
from ..execute.codegen import compile_graph
from .arithmetic import simplify
from .fold import fold_constants
from .fusion import make_fuser
from .rewrite import rebuild
from .strip import strip_debug_ops
from .verify import verify

_FUSIBLE = {"MatMul", "Conv2D"}  # what the fuser starts from


def optimize_traced(g, as_is=False):
    """The optimised copy of a traced function graph: (graph, inputs, outputs). Its inputs are the arguments'
    placeholders, then the captures'; captured eager tensors are folded as the constants they are. `as_is`:
    see optimize."""
    consts = {id(ph): v._v for v, ph in g.captures if isinstance(v, EagerTensor)}
    return optimize(g, g.arg_placeholders + g.internal_captures, g.outputs, consts, as_is)


def lower(g, name=None, wrap=None, as_is=True):
    """A traced function graph optimised, then compiled: (graph, inputs, outputs, CompiledGraph). The one
    way tf.function, tf.data's functions and their batched forms lower what they traced. `as_is`: the
    traced graph itself is compiled where optimising it changes nothing the compiler sees (see optimize);
    False where the graph returned goes on to another lowering (jit_compile)."""
    graph, inputs, outputs = optimize_traced(g, as_is)
    return graph, inputs, outputs, compile_graph(graph, inputs, outputs, name=name or g.name, wrap=wrap)


def optimize(graph, inputs, outputs, consts=None, as_is=False):
    """Returns (graph, inputs, outputs) for the compiler; `consts` maps id(input placeholder) of inputs
    known to be constant (captured eager tensors) to their values. `as_is`: for the compiler alone, `graph`
    itself is returned where the passes would only merge duplicate constants and drop identities (values
    and aliases of the compiled code, no lines), saving its copy (rewrite.rebuild)."""
    if options.enabled("disable_meta_optimizer") or 0 < len(graph.get_operations()) < options.enabled("min_graph_nodes"):
        return graph, list(inputs), list(outputs)
    rules = []
    if options.enabled("debug_stripper"):
        rules.append(strip_debug_ops)
    if options.enabled("constant_folding"):
        rules.append(fold_constants)
    if options.enabled("arithmetic_optimization"):
        rules.append(simplify)
    check = options.enabled("debug_verify")
    prune = not options.enabled("disable_model_pruning")
    g, ins, outs = graph, list(inputs), list(outputs)
    fuse = options.enabled("remapping") and any(op.type in _FUSIBLE for op in g.get_operations())
    if rules or options.enabled("common_subexpression_elimination"):
        g, ins, outs, _ = rebuild(g, ins, outs, rules, consts,
                                  cse=options.enabled("common_subexpression_elimination"), prune=prune,
                                  as_is=as_is and not fuse)
        if check:
            verify(g, outs)
    if fuse and any(op.type in _FUSIBLE for op in g.get_operations()):
        g, ins, outs, _ = rebuild(g, ins, outs, [make_fuser(g, outs)], cse=False, prune=prune)
        if check:
            verify(g, outs)
    return g, ins, outs
