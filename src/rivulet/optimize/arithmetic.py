"""Arithmetic simplification: algebraic identities applied to single nodes, as a table of rules.

Every rule checks that its replacement has exactly the op's static shape and dtype, so broadcasting never
changes a result (x * ones([3]) with x of shape () is not x).
"""
import numpy as np

from ..core.op import defop


def _is(ctx, t, value):
    if t._op.type not in ("Const", "Placeholder"):
        return False
    key = (id(t), value)  # asked of the same few constants again and again (x * 2.0 in a traced loop)
    hit = ctx.memo.get(key)
    if hit is None:
        v = ctx.const_value(t)
        if v is None or v.dtype == object or v.size < 1:
            hit = False
        else:
            hit = bool(v == value) if v.ndim == 0 else bool(np.all(v == value))
        ctx.memo[key] = hit
    return hit


def _same(t, out):
    return t.dtype is out.dtype and t.shape == out.shape and t.shape.is_fully_defined()


def _keep(t, op):
    return [t] if _same(t, op.outputs[0]) else None


def _mul(ctx, op, ins):  # x*1 -> x, 1*x -> x
    x, y = ins
    if _is(ctx, y, 1):
        return _keep(x, op)
    if _is(ctx, x, 1):
        return _keep(y, op)
    return None


def _add(ctx, op, ins):  # x+0 -> x, 0+x -> x
    x, y = ins
    if x.dtype.name == "string":
        return None
    if _is(ctx, y, 0):
        return _keep(x, op)
    if _is(ctx, x, 0):
        return _keep(y, op)
    return None


def _sub(ctx, op, ins):  # x-0 -> x
    return _keep(ins[0], op) if _is(ctx, ins[1], 0) else None


def _div(ctx, op, ins):  # x/1 -> x
    return _keep(ins[0], op) if _is(ctx, ins[1], 1) else None


def _involution(ctx, op, ins):  # neg(neg(x)) -> x, not(not(x)) -> x
    inner = ins[0].op
    if inner.type == op.type:
        return _keep(inner.inputs[0], op)
    return None


def _identity(ctx, op, ins):  # identity(x) -> x
    return [ins[0]]


def _reshape(ctx, op, ins):  # reshape(x, shape(x)) -> x; reshape(reshape(x)) -> reshape(x)
    x = ins[0]
    if _same(x, op.outputs[0]):
        return [x]
    if x.op.type == "Reshape" and op.outputs[0].shape.is_fully_defined():
        return ctx.emit(op.opdef, [x.op.inputs[0]], op.attrs, op.name)
    return None


def _transpose(ctx, op, ins):  # transpose(transpose(x, p), q) -> transpose(x, p[q]) or x
    x = ins[0]
    perm = op.attrs.get("perm")
    if perm is None:
        return None
    if list(perm) == list(range(len(perm))):
        return _keep(x, op)
    if x.op.type == "Transpose" and x.op.attrs.get("perm") is not None:
        inner = x.op.attrs["perm"]
        composed = tuple(inner[i] for i in perm)
        if list(composed) == list(range(len(composed))):
            return _keep(x.op.inputs[0], op)
        return ctx.emit(op.opdef, [x.op.inputs[0]], dict(op.attrs, perm=composed), op.name)
    return None


def _like(ctx, op, ins):  # sum_to(g, ref) / broadcast_like(g, ref) where shapes already agree -> g
    return _keep(ins[0], op)


def _matpow_kernel(a, *base, k):
    p = np.linalg.matrix_power(a, k)
    return p @ base[0] if base else p


MATPOW = defop("_MatrixPowerMatMul", _matpow_kernel,
               lambda a, *base, k: ((base[0].shape if base else a.shape), a.dtype))


def _matmul_chain(ctx, op, ins):
    """a @ (a @ (... @ base)) -> a**k @ base by repeated squaring (O(log k) products). Integer dtypes only:
    machine-integer matrix products wrap exactly, so reassociation is exact; float rounding would change."""
    a, b = ins
    if op.attrs or not a.dtype.is_integer or a.shape.rank != 2 or a.shape[0] != a.shape[1]:
        return None
    inner = b.op
    if inner.type == "_MatrixPowerMatMul" and inner.inputs[0] is a:
        return ctx.emit(MATPOW, list(inner.inputs), {"k": inner.attrs["k"] + 1}, op.name)
    if inner.type == "MatMul" and not inner.attrs and inner.inputs[0] is a:
        base = inner.inputs[1]
        v = ctx.const_value(base)
        extra = [] if v is not None and np.array_equal(v, np.eye(len(v), dtype=v.dtype)) else [base]
        return ctx.emit(MATPOW, [a] + extra, {"k": 2}, op.name)
    return None


RULES = {"MatMul": _matmul_chain, "Mul": _mul, "AddV2": _add, "Sub": _sub, "RealDiv": _div, "Neg": _involution,
         "LogicalNot": _involution, "Identity": _identity, "Reshape": _reshape, "Transpose": _transpose,
         "SumToShapeOf": _like, "BroadcastLike": _like}


def simplify(ctx, op, ins):
    rule = RULES.get(op.type)
    return None if rule is None else rule(ctx, op, ins)
