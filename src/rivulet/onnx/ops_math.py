"""Converters: elementwise math, comparisons, casts, matrix products and reductions."""
import numpy as np

from .. import dtypes as _dt
from .builder import INT64_MAX, Unsupported, converter

# Same inputs, same meaning: one ONNX node each.
_SAME = {
    "AddV2": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div", "Neg": "Neg", "Maximum": "Max",
    "Minimum": "Min", "Pow": "Pow", "Less": "Less", "LessEqual": "LessOrEqual", "Greater": "Greater",
    "GreaterEqual": "GreaterOrEqual", "Equal": "Equal", "LogicalAnd": "And", "LogicalOr": "Or",
    "LogicalNot": "Not", "Abs": "Abs", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Tanh": "Tanh",
    "Sigmoid": "Sigmoid", "Floor": "Floor", "Ceil": "Ceil", "Round": "Round", "Sign": "Sign", "Sin": "Sin",
    "Cos": "Cos", "Tan": "Tan", "Erf": "Erf", "Reciprocal": "Reciprocal", "IsNan": "IsNaN", "IsInf": "IsInf",
    "AddN": "Sum", "Identity": "Identity", "StopGradient": "Identity",
    "Asin": "Asin", "Acos": "Acos", "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh",
    "Acosh": "Acosh", "Atanh": "Atanh", "Rint": "Round",  # Round is half-to-even, as rint
}


def _same(onnx_type):
    return lambda ctx, op, *ins: ctx.node(onnx_type, ins)


for _t, _o in _SAME.items():
    converter(_t)(_same(_o))


@converter("Einsum")
def _einsum(ctx, op, *xs):
    return ctx.node("Einsum", xs, equation=op.attrs["equation"])


@converter("NotEqual")
def _not_equal(ctx, op, x, y):
    return ctx.node("Not", [ctx.node("Equal", [x, y])])


@converter("Square")
def _square(ctx, op, x):
    return ctx.node("Mul", [x, x])


@converter("SquaredDifference")
def _squared_difference(ctx, op, x, y):
    d = ctx.node("Sub", [x, y])
    return ctx.node("Mul", [d, d])


@converter("Rsqrt")
def _rsqrt(ctx, op, x):
    return ctx.node("Reciprocal", [ctx.node("Sqrt", [x])])


@converter("Log1p")
def _log1p(ctx, op, x):
    return ctx.node("Log", [ctx.node("Add", [x, ctx.scalar(op.inputs[0], 1)])])


@converter("Expm1")
def _expm1(ctx, op, x):
    return ctx.node("Sub", [ctx.node("Exp", [x]), ctx.scalar(op.inputs[0], 1)])


_ERFC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
         -0.82215223, 0.17087277)


@converter("Erfc")
def _erfc(ctx, op, x):
    """ONNX has Erf but 1 - erf(x) cancels to 0 in the tail: Numerical Recipes' Chebyshev fit of erfc
    (relative error < 1.2e-7 for all x): t = 1/(1 + |x|/2), erfc(|x|) = t exp(-x^2 + P(t)), reflected for x < 0."""
    t0 = op.inputs[0]
    a = ctx.node("Abs", [x])
    t = ctx.node("Reciprocal", [ctx.node("Add", [ctx.scalar(t0, 1), ctx.node("Mul", [a, ctx.scalar(t0, 0.5)])])])
    p = ctx.scalar(t0, _ERFC[-1])
    for c in reversed(_ERFC[:-1]):
        p = ctx.node("Add", [ctx.scalar(t0, c), ctx.node("Mul", [t, p])])
    pos = ctx.node("Mul", [t, ctx.node("Exp", [ctx.node("Sub", [p, ctx.node("Mul", [a, a])])])])
    neg = ctx.node("Sub", [ctx.scalar(t0, 2), pos])
    return ctx.node("Where", [ctx.node("Less", [x, ctx.scalar(t0, 0)]), neg, pos])


@converter("IsFinite")
def _is_finite(ctx, op, x):
    return ctx.node("Not", [ctx.node("Or", [ctx.node("IsNaN", [x]), ctx.node("IsInf", [x])])])


def _where_zero(ctx, t, mask_of, value):
    """0 where `mask_of` == 0, else value (TensorFlow's *_no_nan / xlogy conventions)."""
    zero = ctx.scalar(t, 0)
    return ctx.node("Where", [ctx.node("Equal", [mask_of, zero]), zero, value])


@converter("DivNoNan")
def _div_no_nan(ctx, op, x, y):
    return _where_zero(ctx, op.inputs[0], y, ctx.node("Div", [x, y]))


@converter("MulNoNan")
def _mul_no_nan(ctx, op, x, y):
    return _where_zero(ctx, op.inputs[0], y, ctx.node("Mul", [x, y]))


@converter("Atan2")
def _atan2(ctx, op, y, x):
    """atan2(|y|, x) = atan(|y| / x), + pi where x is negative (its sign bit: -0 too), given y's sign bit by a
    product. |y| / x is NaN only where both are zero or both infinite: those get atan2's own 0 or pi, pi/4 or
    3pi/4. (The sign goes on last because onnxruntime's Where loses the sign of a -0 it selects.)"""
    t = op.inputs[0]
    c = lambda v: ctx.scalar(t, v)  # noqa: E731
    zero = c(0)

    def sign_bit(v):  # v < 0, or v is -0 (1 / -0 is -inf)
        return ctx.node("Or", [ctx.node("Less", [v, zero]), ctx.node("Less", [ctx.node("Div", [c(1), v]), zero])])

    x_neg = sign_bit(x)
    ay = ctx.node("Abs", [y])
    r = ctx.node("Atan", [ctx.node("Div", [ay, x])])
    r = ctx.node("Where", [x_neg, ctx.node("Add", [r, c(np.pi)]), r])
    both_zero = ctx.node("And", [ctx.node("Equal", [x, zero]), ctx.node("Equal", [y, zero])])
    both_inf = ctx.node("And", [ctx.node("IsInf", [x]), ctx.node("IsInf", [y])])
    special = ctx.node("Where", [both_zero, ctx.node("Where", [x_neg, c(np.pi), zero]),
                                 ctx.node("Where", [x_neg, c(3 * np.pi / 4), c(np.pi / 4)])])
    r = ctx.node("Abs", [ctx.node("Where", [ctx.node("Or", [both_zero, both_inf]), special, r])])
    return ctx.node("Mul", [r, ctx.node("Where", [sign_bit(y), c(-1), c(1)])])


@converter("TruncateDiv")
def _truncate_div(ctx, op, x, y):
    q = ctx.node("Div", [x, y])  # integer Div truncates toward zero
    if not op.inputs[0].dtype.is_floating:
        return q
    return ctx.node("Where", [ctx.node("Less", [q, ctx.scalar(op.inputs[0], 0)]), ctx.node("Ceil", [q]),
                              ctx.node("Floor", [q])])


@converter("TruncateMod")
def _truncate_mod(ctx, op, x, y):
    return ctx.node("Mod", [x, y], fmod=1)  # C fmod: the dividend's sign, for integers and floats


@converter("Xlogy")
def _xlogy(ctx, op, x, y):
    return _where_zero(ctx, op.inputs[0], x, ctx.node("Mul", [x, ctx.node("Log", [y])]))


@converter("Xdivy")
def _xdivy(ctx, op, x, y):
    return _where_zero(ctx, op.inputs[0], x, ctx.node("Div", [x, y]))


@converter("FloorDiv")
def _floor_div(ctx, op, x, y):
    if op.inputs[0].dtype.is_floating:
        return ctx.node("Floor", [ctx.node("Div", [x, y])])
    # Integer Div truncates; (x - floormod(x, y)) / y is exact and rounds toward -inf.
    return ctx.node("Div", [ctx.node("Sub", [x, ctx.node("Mod", [x, y], fmod=0)]), y])


@converter("FloorMod")
def _floor_mod(ctx, op, x, y):
    if not op.inputs[0].dtype.is_floating:
        return ctx.node("Mod", [x, y], fmod=0)  # integer Mod with fmod=0 takes the divisor's sign
    # Float Mod must be C fmod (dividend's sign); move a nonzero remainder to the divisor's sign.
    r = ctx.node("Mod", [x, y], fmod=1)
    zero = ctx.scalar(op.inputs[0], 0)
    differ = ctx.node("Xor", [ctx.node("Less", [r, zero]), ctx.node("Less", [y, zero])])
    fix = ctx.node("And", [differ, ctx.node("Not", [ctx.node("Equal", [r, zero])])])
    return ctx.node("Where", [fix, ctx.node("Add", [r, y]), r])


@converter("ClipByValue")
def _clip(ctx, op, x, lo, hi):
    return ctx.node("Min", [ctx.node("Max", [x, lo]), hi])


@converter("Cast")
def _cast(ctx, op, x):
    dst = op.attrs["DstT"]
    if dst is op.inputs[0].dtype:
        return ctx.node("Identity", [x])
    return ctx.cast(x, dst)


# -------------------------------------------------------------------------------- matrix products
def _matrix_t(ctx, x, t, flag):
    if not flag:
        return x
    if t.dtype.is_complex:
        raise Unsupported("complex matrices have no ONNX form")
    r = ctx.rank(t, "to transpose its last two dims")
    return ctx.node("Transpose", [x], perm=list(range(r - 2)) + [r - 1, r - 2])


@converter("MatMul", "BatchMatMulV2")
def _matmul(ctx, op, a, b):
    at = op.attrs
    a = _matrix_t(ctx, a, op.inputs[0], at.get("transpose_a") or at.get("adjoint_a"))
    b = _matrix_t(ctx, b, op.inputs[1], at.get("transpose_b") or at.get("adjoint_b"))
    return ctx.node("MatMul", [a, b])


@converter("_FusedMatMul")
def _fused_matmul(ctx, op, a, b, *bias):
    # The optimiser's MatMul [+ bias] [+ Relu] (2-D, untransposed): Gemm, or MatMul + Add.
    y = ctx.node("Gemm", [a, b, bias[0]]) if bias else ctx.node("MatMul", [a, b])
    return ctx.node("Relu", [y]) if op.attrs.get("activation") == "relu" else y


@converter("_MatrixPowerMatMul")
def _matrix_power(ctx, op, a, *base):
    # a**k [@ base] by repeated squaring, as the optimiser's kernel computes it.
    k, result, sq = op.attrs["k"], None, a
    while True:
        if k & 1:
            result = sq if result is None else ctx.node("MatMul", [result, sq])
        k >>= 1
        if not k:
            break
        sq = ctx.node("MatMul", [sq, sq])
    return ctx.node("MatMul", [result, base[0]]) if base else result


@converter("MatrixDeterminant")
def _det(ctx, op, x):
    if op.inputs[0].dtype.is_complex:
        raise Unsupported("complex matrices have no ONNX form")
    return ctx.node("Det", [x])


@converter("MatrixBandPart")
def _band_part(ctx, op, x, lo, up):
    """Keeps column - row in [-lo, up] (a negative bound: no limit). Static bounds at opset 14+: two Trilus;
    otherwise a mask built from the row and column numbers."""
    from ..ops.array_ops import partial_value
    bounds = [partial_value(t) for t in op.inputs[1:]]
    if ctx.opset >= 14 and all(isinstance(b, int) for b in bounds):
        b_lo, b_up = bounds
        if b_lo >= 0:
            x = ctx.node("Trilu", [x, ctx.i64(-b_lo)], upper=1)
        if b_up >= 0:
            x = ctx.node("Trilu", [x, ctx.i64(b_up)], upper=0)
        return x if b_lo >= 0 or b_up >= 0 else ctx.node("Identity", [x])
    shape = ctx.node("Shape", [x])
    one = ctx.i64(1)
    rows = ctx.node("Range", [ctx.i64(0), ctx.squeeze(ctx.node("Slice", [shape, ctx.i64([-2]), ctx.i64([-1])]), [0]),
                              one])
    cols = ctx.node("Range", [ctx.i64(0), ctx.squeeze(ctx.node("Slice", [shape, ctx.i64([-1]), ctx.i64([INT64_MAX])]),
                                                      [0]), one])
    d = ctx.node("Sub", [ctx.unsqueeze(cols, [0]), ctx.unsqueeze(rows, [1])])  # column - row
    zero = ctx.i64(0)
    lo, up = (ctx.as_i64(v, t) for v, t in zip((lo, up), op.inputs[1:]))
    keep_lo = ctx.node("Or", [ctx.node("Less", [lo, zero]), ctx.node("LessOrEqual", [ctx.node("Neg", [d]), lo])])
    keep_up = ctx.node("Or", [ctx.node("Less", [up, zero]), ctx.node("LessOrEqual", [d, up])])
    return ctx.node("Where", [ctx.node("And", [keep_lo, keep_up]), x, ctx.scalar(op.inputs[0], 0)])


# -------------------------------------------------------------------------------- reductions
_REDUCE = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin",
           "Prod": "ReduceProd", "ReduceLogSumExp": "ReduceLogSumExp"}


def _reduction(onnx_type):
    def conv(ctx, op, x):
        return ctx.reduce(onnx_type, x, op.attrs.get("axis"), op.attrs.get("keepdims"))
    return conv


for _t, _o in _REDUCE.items():
    converter(_t)(_reduction(_o))


@converter("EuclideanNorm")
def _euclidean_norm(ctx, op, x):
    t = op.inputs[0]
    axes, keep = op.attrs.get("axis"), op.attrs.get("keepdims")
    if t.dtype.is_complex:
        raise Unsupported("complex numbers have no ONNX form")
    if t.dtype.is_floating:
        return ctx.reduce("ReduceL2", x, axes, keep)
    # Integers: the truncated norm of the float64 sum of squares, as rivulet's kernel computes it.
    r = ctx.reduce("ReduceSumSquare", ctx.cast(x, np.float64), axes, keep)
    return ctx.cast(ctx.node("Floor", [ctx.node("Sqrt", [r])]), t.dtype._np)


@converter("All", "Any")
def _all_any(ctx, op, x):
    # ONNX reductions take no bools: min/max over 0/1.
    r = ctx.reduce("ReduceMin" if op.type == "All" else "ReduceMax", ctx.cast(x, np.int32),
                   op.attrs.get("axis"), op.attrs.get("keepdims"))
    return ctx.cast(r, np.bool_)


@converter("ArgMax", "ArgMin")
def _arg(ctx, op, x):
    y = ctx.node(op.type, [x], axis=op.attrs["axis"], keepdims=0)
    return y if op.attrs["output_type"] is _dt.int64 else ctx.cast(y, op.attrs["output_type"])


@converter("Cumsum")
def _cumsum(ctx, op, x):
    at = op.attrs
    return ctx.node("CumSum", [x, ctx.i64(at["axis"])], exclusive=int(bool(at.get("exclusive"))),
                    reverse=int(bool(at.get("reverse"))))


@converter("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert")
def _bitwise(ctx, op, *ins):
    if ctx.opset < 18:
        raise Unsupported(f"bitwise ops need opset 18 or later (exporting opset {ctx.opset})")
    return ctx.node("BitwiseNot" if op.type == "Invert" else op.type, ins)


# -------------------------------------------------------------------------------- gradient helpers
@converter("SumToShapeOf")
def _sum_to(ctx, op, g, ref):
    """Sums a broadcast gradient back to ref's shape: over g's extra leading axes, then over the axes where
    ref has size 1 and g does not (chosen at run time when the sizes are not static)."""
    lead = ctx.rank(op.inputs[0], "to sum a gradient") - ctx.rank(op.inputs[1], "to sum a gradient")
    if lead:
        g = ctx.reduce("ReduceSum", g, list(range(lead)), False)
    if all(d is not None and d != 1 for d in op.inputs[1].shape.as_list()):
        return g
    ones = ctx.node("Equal", [ctx.node("Shape", [ref]), ctx.i64(1)])
    axes = ctx.node("And", [ones, ctx.node("Not", [ctx.node("Equal", [ctx.node("Shape", [g]), ctx.i64(1)])])])
    axes = ctx.squeeze(ctx.node("NonZero", [axes]), [0])
    return ctx.node("ReduceSum", [g, axes], keepdims=1, noop_with_empty_axes=1)


@converter("ReducedCount")
def _reduced_count(ctx, op, x, y):
    one = ctx.i64(1)
    n = [ctx.node("Max", [ctx.node("Size", [v]), one]) for v in (x, y)]
    return ctx.cast(ctx.node("Div", n), np.int32)
