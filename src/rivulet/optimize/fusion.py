"""Op fusion for the executor (Grappler calls this "remapping"): MatMul [+ bias] [+ Relu] becomes one
_FusedMatMul whose kernel adds the bias and applies the activation in place on the product's buffer, so a
Dense layer costs one allocation instead of three; Conv2D + bias [+ Relu] becomes _FusedConv2D, which adds
them to each output block while it is in cache; ReluGrad(MaxPoolGrad(x, y, dy), x) over non-overlapping
windows (a pool of a ReLU's output, as in convnets) becomes _FusedMaxPoolGradRelu, which masks dy on the
pooled tensor before its one scatter. Fused ops exist only in compiled copies of graphs."""
from functools import partial

import numpy as np

from ..core.op import defop
from ..execute import codegen, dense_chain
from ..ops import math_ops, nn_ops
from ..state import resource_ops


def _fused_kernel(a, b, *bias, activation=None):
    out = math_ops.matmul_values(a, b)  # (float16: summed in float32, rounded, then biased in float16)
    if bias:
        np.add(out, bias[0], out=out)
    if activation == "relu":
        np.maximum(out, 0, out=out)
    return out


def _fused_infer(a, b, *bias, activation=None):
    return a.shape[:-1].concatenate(b.shape[-1:]), a.dtype


FUSED_MATMUL = defop("_FusedMatMul", _fused_kernel, _fused_infer)


# The executor's compiled forms of a 2-D float32/float64 _FusedMatMul (execute/codegen.py): plain calls
# with no attrs to parse, adding and clamping in place on the product's buffer; `zero` is a zeros array of
# the output's shape, which np.maximum takes about twice as fast as a scalar on small operands.
def dot_bias(a, b, bias):
    r = np.dot(a, b)
    r += bias
    return r


def dot_bias_relu(a, b, bias, zero):
    r = np.dot(a, b)
    r += bias
    return np.maximum(r, zero, out=r)


def _inline_fused_matmul(op, glob):
    """The executor's form of _FusedMatMul: relu(a @ b + bias) for 2-D float32/float64 operands through the
    plain functions above (or np.dot and np.maximum) on a zeros array of the output's static shape."""
    a, b = op.inputs[:2]
    if a.shape.rank != 2 or b.shape.rank != 2 or a.dtype.name not in codegen.BLAS_FLOATS:
        return None  # (half floats: the kernel, which sums them as the unfused MatMul does)
    glob["_dot"] = np.dot
    bias = len(op.inputs) == 3
    relu = op.attrs.get("activation") == "relu"
    z = codegen.zeros_like(op.outputs[0]) if relu else None
    # with the onednn extra, float32 of a size that pays: one oneDNN matmul, bias and ReLU fused
    g = dense_chain.gemm(op, partial(_numpy_fused, bias, z))
    if g is not None:
        glob[f"g{op._id}"] = g
        return f"g{op._id}({{0}}, {{1}}{', {2}' if bias else ''})"
    if not relu:
        if not bias:
            return "_dot({0}, {1})"
        glob["_dot_bias"] = dot_bias
        return "_dot_bias({0}, {1}, {2})"
    zn = f"z{op._id}"
    glob[zn] = z
    if bias:
        glob["_dot_bias_relu"] = dot_bias_relu
        return "_dot_bias_relu({0}, {1}, {2}, " + zn + ")"
    glob["_max"] = np.maximum
    return "_max(_dot({0}, {1}), " + zn + ")"


def _numpy_fused(bias, zero, a, b, *c):
    """The NumPy form above as one function (a oneDNN form's stand-in in a forked child)."""
    if bias:
        return dot_bias(a, b, c[0]) if zero is None else dot_bias_relu(a, b, c[0], zero)
    r = np.dot(a, b)
    return r if zero is None else np.maximum(r, zero, out=r)


codegen.register_inline("_FusedMatMul", _inline_fused_matmul)


def _fused_conv_kernel(x, w, bias, strides, padding, dilations, explicit=None, activation=None):
    out = nn_ops.fused_conv_on_onednn(x, w, bias, strides, padding, dilations, explicit, activation)
    if out is not None:
        return out

    def epilogue(block):
        np.add(block, bias, out=block)
        if activation == "relu":
            np.maximum(block, 0, out=block)
    return nn_ops.conv2d_kernel(x, w, strides, padding, dilations, explicit, epilogue)


def _fused_conv_infer(x, w, bias, strides, padding, dilations, explicit=None, activation=None):
    return nn_ops._conv_infer(x, w, strides, padding, dilations, explicit)


FUSED_CONV2D = defop("_FusedConv2D", _fused_conv_kernel, _fused_conv_infer)


def _fused_pool_grad_relu_kernel(x, y, dy, ksize, strides, padding):
    return nn_ops._max_pool_grad_kernel(x, y, dy, ksize, strides, padding, relu=True)


FUSED_MAX_POOL_GRAD_RELU = defop("_FusedMaxPoolGradRelu", _fused_pool_grad_relu_kernel,
                                 lambda x, y, dy, **a: (x.shape, x.dtype))


def _matmul_assign_sub_kernel(var, a, b, c, transpose_a=False, transpose_b=False):
    """var -= c * (op(a) @ op(b)): the three ops it replaces, in their NumPy forms."""
    g = np.dot(a.T if transpose_a else a, b.T if transpose_b else b)
    return resource_ops.ASSIGN_SUB.kernel(var, np.multiply(c, g), dtype=None)


# AssignSubVariableOp(v, c * MatMul(a, b)) for float32 (a plain SGD step, `v.assign_sub(lr * grad)`, on a layer's
# weights, whose gradient is x^T dy): one oneDNN matmul adding the scaled product into the variable's array
# (execute/dense_chain.GemmUpdate), bit for bit the three ops' values on oneDNN.
MATMUL_ASSIGN_SUB = defop("_MatMulAssignSub", _matmul_assign_sub_kernel, lambda var, a, b, **attrs: [],
                          num_outputs=0, stateful=True, attrs=("c", "transpose_a", "transpose_b"))


def _product(op, a, b):
    """(m, k, n, transpose a, transpose b, NumPy form) of a fused op's product op(a) @ op(b)."""
    ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
    m, k = a.shape.as_list()[::-1] if ta else a.shape.as_list()
    n = b.shape[0] if tb else b.shape[1]
    return m, k, n, ta, tb, lambda x, y: np.dot(x.T if ta else x, y.T if tb else y)


def _inline_matmul_assign_sub(op, glob):
    _, a, b = op.inputs
    m, k, n, ta, tb, numpy_form = _product(op, a, b)
    u = dense_chain.gemm_update(m, k, n, ta, tb, op.attrs["c"], numpy_form)
    if u is None:
        return None
    glob[f"g{op._id}"] = u
    return f"g{op._id}({{0}}, {{1}}, {{2}})"


codegen.register_inline("_MatMulAssignSub", _inline_matmul_assign_sub)


def _bias_assign_sub_kernel(var, g, c):
    """var -= c * (g summed over its rows): a Dense layer's bias gradient (SumToShapeOf's column sums), scaled,
    subtracted, in one call: the same NumPy operations as the three ops it replaces."""
    s = math_ops.column_sums(g)  # (a fresh array: scaled in place)
    np.multiply(c, s, out=s)
    return resource_ops.ASSIGN_SUB.kernel(var, s, dtype=None)


# AssignSubVariableOp(v, c * SumToShapeOf(g, b)) for a 2-D float32/64 g and a bias b of its row's shape (SGD on a
# Dense layer's bias): one kernel call instead of three (w5's 128-wide biases: 2.9-3.1 us -> 2.6).
BIAS_ASSIGN_SUB = defop("_BiasAssignSub", _bias_assign_sub_kernel, lambda var, g, **attrs: [], num_outputs=0,
                        stateful=True, attrs=("c",))


def _inline_bias_assign_sub(op, glob):
    c = op.attrs["c"]
    glob[f"b{op._id}"] = lambda var, g: _bias_assign_sub_kernel(var, g, c)
    return f"b{op._id}({{0}}, {{1}})"


codegen.register_inline("_BiasAssignSub", _inline_bias_assign_sub)


def _matmul_relu_grad_kernel(a, b, x, transpose_a=False, transpose_b=False):
    """ReluGrad(MatMul(a, b), x): the two ops' NumPy forms."""
    return np.multiply(np.dot(a.T if transpose_a else a, b.T if transpose_b else b), x > 0, dtype=np.float32)


# ReluGrad(MatMul(a, b), x) for float32, the product read by the ReluGrad alone (a Dense layer's input gradient
# through the previous layer's ReLU, dy @ W^T masked): one oneDNN matmul multiplying by the mask's bytes
# (execute/dense_chain.GemmMask), bit for bit the two ops.
MATMUL_RELU_GRAD = defop("_MatMulReluGrad", _matmul_relu_grad_kernel,
                         lambda a, b, x, **attrs: (x.shape, x.dtype), attrs=("transpose_a", "transpose_b"))


def _inline_matmul_relu_grad(op, glob):
    a, b, _ = op.inputs
    g = dense_chain.gemm_mask(*_product(op, a, b))
    if g is None:
        return None
    glob[f"g{op._id}"] = g
    return f"g{op._id}({{0}}, {{1}}, {{2}})"


codegen.register_inline("_MatMulReluGrad", _inline_matmul_relu_grad)


def _masked_product(ctx, op, ins):
    """_MatMulReluGrad for ReluGrad(g, x) with g = MatMul(a, b) (read by the ReluGrad alone) a float32 product
    oneDNN runs unfused too, x of its static shape; else None."""
    g, x = ins
    if g.op.type != "MatMul" or x.dtype.name != "float32" or not x.shape.is_fully_defined():
        return None
    dims = dense_chain._dims(g.op)
    if dims is None or dims[5] or dims[6] or x.shape.as_list() != [dims[0], dims[2]]:
        return None
    m, k, n, ta, tb = dims[:5]
    if not dense_chain.GEMM_MIN_PLAIN <= m * k * n < dense_chain.GEMM_MAX or dense_chain.onednn.api() is None:
        return None
    return ctx.emit(MATMUL_RELU_GRAD, [*g.op.inputs, x], {"transpose_a": ta, "transpose_b": tb}, op.name)


def _sgd_update(ctx, op, ins, sole):
    """AssignSubVariableOp(v, c * g) (either operand order; c a scalar constant of g's dtype, g read by the Mul
    alone, the Mul by the assign alone): _MatMulAssignSub where g = MatMul(a, b) is a float32 product oneDNN
    runs, _BiasAssignSub where g = SumToShapeOf(d, bias) sums a 2-D float32/64 d over its rows."""
    value = op.inputs[1]
    if value.op.type != "Mul" or not sole(value) or ins[1].op.type != "Mul":
        return None
    new_ins = ins[1].op.inputs
    for j in (0, 1):
        c = ctx.const_value(new_ins[1 - j])
        g = new_ins[j]
        if c is not None and g.op.type in ("MatMul", "SumToShapeOf") and sole(value.op.inputs[j]):
            break
    else:
        return None
    if np.ndim(c) or np.asarray(c).dtype != value.dtype.as_numpy_dtype or g.dtype is not value.dtype:
        return None
    c = np.asarray(c).dtype.type(c)
    if g.op.type == "SumToShapeOf":
        d, ref = g.op.inputs
        if (d.dtype.name in ("float32", "float64") and d.shape.rank == 2 and d.shape.is_fully_defined()
                and ref.shape.rank == 1 and ref.shape.as_list() == d.shape.as_list()[1:]):
            return ctx.emit(BIAS_ASSIGN_SUB, [ins[0], d], {"c": c}, op.name)
        return None
    dims = dense_chain._dims(g.op)
    if dims is None or dims[5] or dims[6] or list(value.shape) != [dims[0], dims[2]]:
        return None
    m, k, n, ta, tb = dims[:5]
    if not dense_chain.updates_on_onednn(m, k, n):
        return None
    return ctx.emit(MATMUL_ASSIGN_SUB, [ins[0], *g.op.inputs], {"c": c, "transpose_a": ta, "transpose_b": tb},
                    op.name)


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

    def rank1_bias(bias, y):
        return (bias.shape.rank == 1 and bias.dtype is y.dtype and bias.shape[0] is not None
                and bias.shape[0] == y.shape[-1])

    def fuse(ctx, op, ins):
        if op.type in ("BiasAdd", "AddV2") and sole(op.inputs[0]):
            y, bias = ins
            if op.type == "BiasAdd" and op.attrs.get("data_format", "NHWC") != "NHWC":
                return None
            if not rank1_bias(bias, y):
                return None
            if y.op.type == "Conv2D" and y.dtype.is_floating:
                return ctx.emit(FUSED_CONV2D, [*y.op.inputs, bias], {**y.op.attrs, "activation": None}, op.name)
            if plain_matmul(y):
                a, b = y.op.inputs
                return ctx.emit(FUSED_MATMUL, [a, b, bias], {"activation": None}, op.name)
            return None
        if op.type == "Relu" and sole(op.inputs[0]):
            x = ins[0]
            if x.op.type in ("_FusedMatMul", "_FusedConv2D") and x.op.attrs["activation"] is None:
                return ctx.emit(x.op.opdef, list(x.op.inputs), {**x.op.attrs, "activation": "relu"}, op.name)
            if plain_matmul(x):
                return ctx.emit(FUSED_MATMUL, list(x.op.inputs), {"activation": "relu"}, op.name)
        if op.type == "AssignSubVariableOp":
            return _sgd_update(ctx, op, ins, sole)
        if op.type == "ReluGrad" and sole(op.inputs[0]):
            g, features = ins
            pg = g.op
            if (pg.type == "MaxPoolGrad" and pg.inputs[0] is features and g.dtype is features.dtype
                    and tuple(pg.attrs["ksize"]) == tuple(pg.attrs["strides"])):
                return ctx.emit(FUSED_MAX_POOL_GRAD_RELU, list(pg.inputs), dict(pg.attrs), op.name)
            return _masked_product(ctx, op, ins)
        return None
    return fuse
