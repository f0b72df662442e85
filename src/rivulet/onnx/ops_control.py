"""Converters: tf.cond / tf.switch_case as ONNX If, tf.while_loop as ONNX Loop.

An If/Case op's inputs are the selector then every outer value its branches captured; `feeds[k]` says which
of them branch k reads. ONNX branches take no inputs but read outer values by name, so each capture
placeholder is simply bound to the outer value. A While op's inputs are the loop variables then the
captures; its cond and body sub-graphs become one Loop body that runs the body and then the condition on
the new values (the first test runs before the Loop). maximum_iterations needs nothing special: tf.while_loop
already folded it into the condition as a counter.
"""
import numpy as np
from onnx import helper

from .. import dtypes as _dt
from ..shape import TensorSpec
from . import ops_rnn
from .builder import Ctx, Scope, Unsupported, converter, value_info
from .convert import convert_ops, subgraph


@converter("If", "StatelessIf", "Case", "StatelessCase")
def _branches(ctx, op, sel, *rest):
    br, ins = op.attrs["branches"], (sel,) + rest
    case = op.type.endswith("Case")
    graphs = [subgraph(ctx, sub, [ins[i] for i in feed], f"branch_{k}" if case else ("then", "else")[k])
              for k, (sub, feed) in enumerate(zip(br.subs, br.feeds))]
    return _case(ctx, op, sel, graphs) if case else _if(ctx, op, sel, *graphs)


def _if(ctx, op, pred, then_g, else_g):
    outs = ctx.node("If", [pred], n_out=len(op.outputs), then_branch=then_g, else_branch=else_g)
    return [outs] if isinstance(outs, str) else outs


def _case(ctx, op, index, graphs):
    """switch_case as nested Ifs: index == 0 ? b0 : (index == 1 ? b1 : ... : default (the last branch))."""
    idx = ctx.as_i64(index, op.inputs[0])
    else_g = graphs[-1]
    for k in range(len(graphs) - 2, 0, -1):  # each inner If is the whole else branch of the one outside it
        inner = Ctx(Scope(ctx.model, f"{ctx.scope.prefix}{op.name}/case_{k}/"), op)
        outs = _if(inner, op, inner.node("Equal", [idx, inner.const(np.int64(k))]), graphs[k], else_g)
        else_g = helper.make_graph(inner.scope.nodes, ctx.model.fresh(f"{op.name}/case_{k}"), [],
                                   [value_info(o, t) for o, t in zip(outs, op.outputs)])
    return _if(ctx, op, ctx.node("Equal", [idx, ctx.const(np.int64(0))]), graphs[0], else_g)


@converter("While", "StatelessWhile")
def _while(ctx, op, *ins):
    lb = op.attrs["body"]
    n = lb.n_vars
    lv = ins[:n]
    if any(not isinstance(v, str) for v in lv):
        raise Unsupported("a loop variable is a resource (a variable); ONNX loops carry tensors only")
    fused = ops_rnn.fuse(ctx, op, ins)  # a Keras SimpleRNN/LSTM/GRU loop: one fused node
    if fused is not None:
        return fused
    cond_caps = [ins[i] for i in lb.cond_feed]
    first = convert_ops(ctx.scope, lb.cond.graph, _feeds(lb.cond, list(lv) + cond_caps), lb.cond.outputs)[0]
    m = ctx.model
    iter_in, cond_in = m.fresh(f"{op.name}/iter"), m.fresh(f"{op.name}/cond_in")
    carried = [m.fresh(f"{op.name}/{ph.op.name}") for ph in lb.body.params]
    specs = [TensorSpec(shape, dtype) for shape, dtype in lb.out_specs]

    def test_again(scope, outs):  # the condition on the body's results is the Loop body's first output
        c = convert_ops(scope, lb.cond.graph, _feeds(lb.cond, list(outs) + cond_caps), lb.cond.outputs)[0]
        return [(c, lb.cond.outputs[0])]

    body = subgraph(ctx, lb.body, carried + [ins[i] for i in lb.body_feed], "body",
                    inputs=[(iter_in, TensorSpec([], _dt.int64)), (cond_in, TensorSpec([], _dt.bool))] +
                    list(zip(carried, specs)), extra=test_again)
    outs = ctx.node("Loop", ["", first] + list(lv), n_out=n, body=body)
    return [outs] if n == 1 else outs


def _feeds(sub, values):
    return {id(ph): v for ph, v in zip(sub.inputs, values)}
