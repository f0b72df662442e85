"""Op fusion for the executor (Grappler calls this "remapping"): MatMul [+ bias] [+ Relu] becomes one
_FusedMatMul whose kernel adds the bias and applies the activation in place on the product's buffer, so a
Dense layer costs one allocation instead of three. Fused ops exist only in compiled copies of graphs."""
import numpy as np

from ..core.op import defop


def _fused_kernel(a, b, *bias, activation=None):
    out = np.matmul(a, b)
    if bias:
        np.add(out, bias[0], out=out)
    if activation == "relu":
        np.maximum(out, 0, out=out)
    return out


def _fused_infer(a, b, *bias, activation=None):
    return a.shape[:-1].concatenate(b.shape[-1:]), a.dtype


FUSED_MATMUL = defop("_FusedMatMul", _fused_kernel, _fused_infer)


def make_fuser(graph, outputs):
    """A rewrite rule closed over the original graph's consumer counts (fusing needs sole consumers)."""
    consumers = {}
    for op in graph.get_operations():
        for t in op.inputs:
            consumers[id(t)] = consumers.get(id(t), 0) + 1
    for t in outputs:
        consumers[id(t)] = consumers.get(id(t), 0) + 2

    def sole(old_t):
        return consumers.get(id(old_t), 0) == 1

    def plain_matmul(t):
        op = t.op
        return (op.type == "MatMul" and not any(op.attrs.values()) and t.shape.rank == 2
                and op.inputs[0].dtype.is_floating)

    def fuse(ctx, op, ins):
        if op.type in ("BiasAdd", "AddV2") and sole(op.inputs[0]) and plain_matmul(ins[0]):
            mm, bias = ins
            if op.type == "BiasAdd" and op.attrs.get("data_format", "NHWC") != "NHWC":
                return None
            if bias.shape.rank != 1 or bias.dtype is not mm.dtype or bias.shape[0] != mm.shape[-1] or \
                    bias.shape[0] is None:
                return None
            a, b = mm.op.inputs
            return ctx.emit(FUSED_MATMUL, [a, b, bias], {"activation": None}, op.name)
        if op.type == "Relu" and sole(op.inputs[0]):
            x = ins[0]
            if x.op.type == "_FusedMatMul" and x.op.attrs["activation"] is None:
                return ctx.emit(FUSED_MATMUL, list(x.op.inputs), {"activation": "relu"}, op.name)
            if plain_matmul(x):
                return ctx.emit(FUSED_MATMUL, list(x.op.inputs), {"activation": "relu"}, op.name)
        return None
    return fuse
