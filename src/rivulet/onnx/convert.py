"""Walks a rivulet graph, emitting each needed op's ONNX nodes into a Scope; sub-graphs (If branches, Loop
bodies) are built the same way, recursively.

Every unconvertible op is reported, not just the first: an op that fails gets placeholder output names and
the walk goes on, so the ops after it (and inside later sub-graphs) are checked too. A model with problems
is never written, so those names are never resolved.
"""
from onnx import helper

from ..graph.graph_util import data_ancestors as needed
from .builder import CONVERTERS, Ctx, Scope, Unsupported, VarRef, value_info

# Stateful ops whose only effect is outside the computation: an ONNX model drops them.
_DROPPED = {"PrintV2": "printing", "Assert": "an assertion", "CheckNumerics": "a numerics check"}


def convert_ops(scope, graph, feeds, outputs, ops=None):
    """Emits the ops `outputs` need (or `ops`, in program order: the jit passes the stateful ones too);
    feeds: {id(placeholder): value}. Returns the outputs' values."""
    report = scope.model.report
    values = dict(feeds)
    if getattr(scope, "values", None) is None:
        scope.values = values  # every converted tensor's value, for converters that look further back (ops_rnn)
    if ops is None:
        ops = needed(graph, outputs)
        _check_effects(graph, {op._id for op in ops}, report)
    for op in ops:
        if op.type == "Placeholder" and id(op.outputs[0]) in values:
            continue
        ins = [values[id(t)] for t in op.inputs]
        res = None
        fn = CONVERTERS.get(op.type)
        if fn is None:
            report.add(op, f"no ONNX conversion for {op.type}")
        else:
            try:
                res = fn(Ctx(scope, op), op, *ins)
            except Unsupported as e:
                report.add(op, str(e))
        if res is None:
            res = [scope.model.fresh(f"{scope.prefix}{op.name}:unconverted") for _ in op.outputs]
        elif isinstance(res, (str, VarRef)):
            res = [res]
        for t, v in zip(op.outputs, res):
            values[id(t)] = v
    return [values[id(t)] for t in outputs]


def _check_effects(graph, kept, report):
    for op in graph.control_outputs:
        if op._id in kept or op.type == "ReadVariableOp":
            continue
        what = _DROPPED.get(op.type)
        if what is not None:
            report.note(op, f"dropped: an ONNX model cannot run {what}")
        else:
            report.add(op, "runs only for its side effects (it changes state), which an ONNX model cannot have")


def subgraph(ctx, sub, feeds, name, inputs=(), extra=()):
    """An ONNX GraphProto computing SubGraph `sub` (an If branch or a loop body).

    feeds: the values of sub.inputs (params, then captures: outer names are read from the enclosing scope).
    inputs: [(ONNX name, rivulet tensor)] the GraphProto declares as its own inputs (Loop bodies).
    extra(scope, outs) may append nodes after the sub-graph's and returns values to output first.
    """
    scope = Scope(ctx.model, prefix=f"{ctx.scope.prefix}{ctx.op.name}/{name}/")
    outs = convert_ops(scope, sub.graph, {id(ph): v for ph, v in zip(sub.inputs, feeds)}, sub.outputs)
    typed = list(zip(outs, sub.outputs))
    if extra:
        typed = extra(scope, outs) + typed
    out_infos = []
    for i, (v, t) in enumerate(typed):
        if not isinstance(v, str):
            raise Unsupported(f"its {name} returns a resource (a variable), which ONNX cannot pass around")
        # A fresh Identity gives every output a name of this graph (it may be an outer or input name).
        o = ctx.model.fresh(f"{scope.prefix}output_{i}")
        scope.nodes.append(helper.make_node("Identity", [v], [o], name=o))
        out_infos.append(value_info(o, t))
    in_infos = [value_info(n, t) for n, t in inputs]
    return helper.make_graph(scope.nodes, ctx.model.fresh(scope.prefix.rstrip("/")), in_infos, out_infos)
