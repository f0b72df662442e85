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
from .builder import MISSING, Ctx, Scope, Unsupported, converter, value_info
from .convert import convert_ops, subgraph


def _branch(ctx, branches, k, ins, name):
    g = subgraph(ctx, branches.subs[k], [ins[i] for i in branches.feeds[k]], name)
    if g is None:
        raise _Inner()
    return g


class _Inner(Exception):
    """Something inside a sub-graph could not be converted (it is reported already)."""


def _if(ctx, op, pred, ins, then_k, else_g):
    br = op.attrs["branches"]
    then_g = _branch(ctx, br, then_k, ins, f"branch_{then_k}" if op.type.endswith("Case") else "then")
    return ctx.node("If", [pred], n_out=len(op.outputs), then_branch=then_g, else_branch=else_g)


@converter("If", "StatelessIf", "Case", "StatelessCase")
def _branches(ctx, op, sel, *rest):
    ins = (sel,) + rest
    br = op.attrs["branches"]
    try:
        if op.type.endswith("If"):
            outs = _if(ctx, op, sel, ins, 0, _branch(ctx, br, 1, ins, "else"))
        else:
            outs = _case(ctx, op, sel, ins)
    except _Inner:
        return MISSING
    return [outs] if isinstance(outs, str) else outs


def _case(ctx, op, index, ins):
    """switch_case as nested Ifs: index == 0 ? b0 : (index == 1 ? b1 : ... : default (the last branch))."""
    br = op.attrs["branches"]
    n = len(br.subs)
    idx = ctx.as_i64(index, op.inputs[0])
    else_g = _branch(ctx, br, n - 1, ins, f"branch_{n - 1}")
    for k in range(n - 2, 0, -1):  # each inner If is the whole else branch of the one outside it
        inner = Ctx(Scope(ctx.model, f"{ctx.scope.prefix}{op.name}/case_{k}/"), op)
        outs = _if(inner, op, inner.node("Equal", [idx, inner.const(np.int64(k))]), ins, k, else_g)
        outs = [outs] if isinstance(outs, str) else outs
        else_g = helper.make_graph(inner.scope.nodes, ctx.model.fresh(f"{op.name}/case_{k}"), [],
                                   [value_info(o, t) for o, t in zip(outs, op.outputs)])
    return _if(ctx, op, ctx.node("Equal", [idx, ctx.const(np.int64(0))]), ins, 0, else_g)


@converter("While", "StatelessWhile")
def _while(ctx, op, *ins):
    lb = op.attrs["body"]
    n = lb.n_vars
    lv, lv_t = ins[:n], op.inputs[:n]
    if any(not isinstance(v, str) for v in lv):
        raise Unsupported("a loop variable is a resource (a variable); ONNX loops carry tensors only")
    cond_caps = [ins[i] for i in lb.cond_feed]
    first = convert_ops(ctx.scope, lb.cond.graph, _feeds(lb.cond, list(lv) + cond_caps), lb.cond.outputs)[0]
    if first is MISSING:
        return MISSING
    m = ctx.model
    iter_in, cond_in = m.fresh(f"{op.name}/iter"), m.fresh(f"{op.name}/cond_in")
    carried = [m.fresh(f"{op.name}/{ph.op.name}") for ph in lb.body.params]
    specs = [TensorSpec(shape, dtype) for shape, dtype in lb.out_specs]

    def test_again(scope, outs):  # the condition on the body's results is the Loop body's first output
        if any(v is MISSING for v in outs):
            return [(MISSING, None)]
        c = convert_ops(scope, lb.cond.graph, _feeds(lb.cond, list(outs) + cond_caps), lb.cond.outputs)[0]
        return [(c, lb.cond.outputs[0])]

    body = subgraph(ctx, lb.body, carried + [ins[i] for i in lb.body_feed], "body",
                    inputs=[(iter_in, TensorSpec([], _dt.int64)), (cond_in, TensorSpec([], _dt.bool))] +
                    list(zip(carried, specs)), extra=test_again)
    if body is None:
        return MISSING
    outs = ctx.node("Loop", ["", first] + list(lv), n_out=n, body=body)
    return [outs] if n == 1 else outs


def _feeds(sub, values):
    return {id(ph): v for ph, v in zip(sub.inputs, values)}
