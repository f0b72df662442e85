"""Elementwise arithmetic, comparisons, cast, matmul and reductions (tf.math)."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import COMPLEX, FLOATS, INTS, NUMERIC, REAL, defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from ._rules import UNKNOWN, binary, binary_args, binary_bool, broadcast_shape, same_shape, static_value, to_tensor

_BOOL = frozenset([_dt.bool])
_STR = frozenset([_dt.string])


# ---------------------------------------------------------------- gradient helpers (broadcasting)
def _sum_to_kernel(g, ref):
    gs, rs = np.shape(g), np.shape(ref)
    if gs == rs:
        return g
    lead = len(gs) - len(rs)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(rs) if d == 1 and gs[i + lead] != 1)
    r = np.sum(g, axis=axes, dtype=g.dtype, keepdims=True) if axes else g
    return np.reshape(r, rs)


def _broadcast_like_kernel(x, ref):
    return np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(ref))).copy()


SUM_TO = defop("SumToShapeOf", _sum_to_kernel, lambda g, ref: (ref.shape, g.dtype),
               grad=lambda op, dy: (broadcast_like(dy, op.inputs[0]), None))
BROADCAST_LIKE = defop("BroadcastLike", _broadcast_like_kernel,
                       lambda x, ref: (broadcast_shape(x.shape, ref.shape), x.dtype),
                       grad=lambda op, dy: (sum_to(dy, op.inputs[0]), None))


def sum_to(g, x):
    """Reduces a broadcast gradient `g` back to the shape of `x`."""
    if g.shape == x.shape and g.shape.is_fully_defined():
        return g
    return bind(SUM_TO, (g, x))


def broadcast_like(x, ref):
    if x.shape == ref.shape and x.shape.is_fully_defined():
        return x
    return bind(BROADCAST_LIKE, (x, ref))


def _unbroadcast2(op, gx, gy):
    x, y = op.inputs
    return (None if gx is None else sum_to(gx, x)), (None if gy is None else sum_to(gy, y))


# ---------------------------------------------------------------- binary arithmetic
def _binop(name, kernel, grad, allowed=NUMERIC, rule=binary):
    return defop(name, kernel, rule, grad=grad, same=2, allowed=allowed)


def _int_checked(fn):
    def k(x, y):
        if np.asarray(x).dtype.kind in "iu" and np.any(np.asarray(y) == 0):
            raise InvalidArgumentError("Integer division by zero")
        with np.errstate(all="ignore"):
            return fn(x, y)
    return k


def _quiet(fn):
    def k(*a):
        with np.errstate(all="ignore"):
            return fn(*a)
    return k


ADD = _binop("AddV2", np.add, lambda op, dy: _unbroadcast2(op, dy, dy), NUMERIC | _STR)
SUB = _binop("Sub", np.subtract, lambda op, dy: _unbroadcast2(op, dy, negative(dy)))
MUL = _binop("Mul", np.multiply,
             lambda op, dy: _unbroadcast2(op, multiply(dy, conj(op.inputs[1])), multiply(conj(op.inputs[0]), dy)))
REALDIV = _binop("RealDiv", _quiet(np.true_divide),
                 lambda op, dy: _unbroadcast2(op, divide_(dy, op.inputs[1]),
                                              negative(multiply(dy, divide_(divide_(op.inputs[0], op.inputs[1]),
                                                                            op.inputs[1])))), FLOATS | COMPLEX)
FLOORDIV = _binop("FloorDiv", _int_checked(np.floor_divide), None, REAL)
FLOORMOD = _binop("FloorMod", _int_checked(np.mod),
                  lambda op, dy: _unbroadcast2(op, dy, negative(multiply(dy, floordiv(*op.inputs)))), REAL)


def _pow_kernel(x, y):
    if np.asarray(x).dtype.kind in "iu" and np.any(np.asarray(y) < 0):
        raise InvalidArgumentError("Integers to negative integer powers are not allowed")
    with np.errstate(all="ignore"):
        return np.power(x, y)


def _pow_grad(op, dy):
    x, y = op.inputs
    z = op.outputs[0]
    gx = multiply(dy, multiply(y, pow(x, subtract(y, _one_like(y)))))
    if not y.dtype.is_floating and not y.dtype.is_complex:
        return _unbroadcast2(op, gx, None)
    safe_log = bind(XLOGY_SAFE, (x,))
    return _unbroadcast2(op, gx, multiply(dy, multiply(z, safe_log)))


POW = _binop("Pow", _pow_kernel, _pow_grad)
# log(x) where x > 0 else 0: the y-gradient of x**y is defined as 0 where x <= 0 (as TensorFlow does).
XLOGY_SAFE = defop("SafeLog", _quiet(lambda x: np.where(x > 0, np.log(np.where(x > 0, x, 1)), 0).astype(x.dtype)),
                   same_shape)
MAXIMUM = _binop("Maximum", np.maximum,
                 lambda op, dy: _minmax_grad(op, dy, greater_equal), REAL)
MINIMUM = _binop("Minimum", np.minimum,
                 lambda op, dy: _minmax_grad(op, dy, less_equal), REAL)


def _minmax_grad(op, dy, cmp):
    x, y = op.inputs
    mask = cmp(x, y)
    zeros = zeros_like_(dy)
    return _unbroadcast2(op, where_(mask, dy, zeros), where_(mask, zeros, dy))


def add(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(ADD, (x, y), name=name or "Add")


def subtract(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(SUB, (x, y), name=name or "Sub")


def multiply(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(MUL, (x, y), name=name or "Mul")


def divide_(x, y, name=None):
    """Division of same-dtype tensors without integer promotion (the RealDiv op)."""
    return bind(REALDIV, (x, y), name=name)


_TRUEDIV_INT = {_dt.int8: _dt.float32, _dt.int16: _dt.float32, _dt.uint8: _dt.float32, _dt.uint16: _dt.float32,
                _dt.int32: _dt.float64, _dt.int64: _dt.float64, _dt.uint32: _dt.float64, _dt.uint64: _dt.float64}


def truediv(x, y, name=None):
    """x / y; integer operands are cast to float (int32 -> float64) first, as TensorFlow does."""
    x, y = binary_args(x, y)
    if x.dtype is not y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    target = _TRUEDIV_INT.get(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return bind(REALDIV, (x, y), name=name or "truediv")


def divide(x, y, name=None):
    return truediv(x, y, name=name)


def floordiv(x, y, name=None):
    x, y = binary_args(x, y)
    if x.dtype.is_floating and x.dtype is y.dtype:
        return floor(truediv(x, y), name=name)
    return bind(FLOORDIV, (x, y), name=name or "floordiv")


def floormod(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(FLOORMOD, (x, y), name=name or "FloorMod")


def pow(x, y, name=None):  # noqa: A001  (TensorFlow's name)
    x, y = binary_args(x, y)
    return bind(POW, (x, y), name=name or "Pow")


def maximum(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(MAXIMUM, (x, y), name=name or "Maximum")


def minimum(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(MINIMUM, (x, y), name=name or "Minimum")


# ---------------------------------------------------------------- comparisons and logic
def _cmp(name, fn, allowed=REAL):
    return defop(name, fn, binary_bool, same=2, allowed=allowed)


LESS = _cmp("Less", np.less)
LESS_EQUAL = _cmp("LessEqual", np.less_equal)
GREATER = _cmp("Greater", np.greater)
GREATER_EQUAL = _cmp("GreaterEqual", np.greater_equal)
EQUAL = _cmp("Equal", np.equal, None)
NOT_EQUAL = _cmp("NotEqual", np.not_equal, None)
LOGICAL_AND = defop("LogicalAnd", np.logical_and, binary_bool, same=2, allowed=_BOOL)
LOGICAL_OR = defop("LogicalOr", np.logical_or, binary_bool, same=2, allowed=_BOOL)
LOGICAL_NOT = defop("LogicalNot", np.logical_not, same_shape, allowed=_BOOL)


def _cmp_fn(op, default):
    def f(x, y, name=None):
        x, y = binary_args(x, y)
        return bind(op, (x, y), name=name or default)
    f.__name__ = default.lower()
    return f


less = _cmp_fn(LESS, "Less")
less_equal = _cmp_fn(LESS_EQUAL, "LessEqual")
greater = _cmp_fn(GREATER, "Greater")
greater_equal = _cmp_fn(GREATER_EQUAL, "GreaterEqual")
equal = _cmp_fn(EQUAL, "Equal")
not_equal = _cmp_fn(NOT_EQUAL, "NotEqual")
logical_and = _cmp_fn(LOGICAL_AND, "LogicalAnd")
logical_or = _cmp_fn(LOGICAL_OR, "LogicalOr")


def logical_not(x, name=None):
    return bind(LOGICAL_NOT, (to_tensor(x),), name=name or "LogicalNot")


def logical_xor(x, y, name=None):
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# ---------------------------------------------------------------- unary ops used by the core
NEG = defop("Neg", np.negative, same_shape, grad=lambda op, dy: (negative(dy),), allowed=NUMERIC)
FLOOR = defop("Floor", np.floor, same_shape, grad=lambda op, dy: (zeros_like_(dy),), allowed=FLOATS)
CONJ = defop("Conj", np.conj, same_shape, grad=lambda op, dy: (conj(dy),), allowed=NUMERIC)


def negative(x, name=None):
    return bind(NEG, (to_tensor(x),), name=name or "Neg")


def floor(x, name=None):
    return bind(FLOOR, (to_tensor(x),), name=name or "Floor")


def conj(x, name=None):
    x = to_tensor(x)
    return x if not x.dtype.is_complex else bind(CONJ, (x,), name=name or "Conj")


# ---------------------------------------------------------------- cast
def _cast_kernel(x, DstT):
    if DstT._np is None:
        raise InvalidArgumentError("Cast to string is not supported")
    if x.dtype == object:
        raise InvalidArgumentError(f"Cast string to {DstT.name} is not supported")
    with np.errstate(all="ignore"):
        return x.astype(DstT._np)


def _cast_grad(op, dy):
    src = op.inputs[0].dtype
    if (src.is_floating or src.is_complex) and (dy.dtype.is_floating or dy.dtype.is_complex):
        return (cast(dy, src),)
    return (None,)


CAST = defop("Cast", _cast_kernel, lambda x, DstT: (x.shape, DstT), grad=_cast_grad)


def cast(x, dtype, name=None):
    dtype = _dt.as_dtype(dtype)
    x = to_tensor(x)
    if x.dtype is dtype:
        return x
    return bind(CAST, (x,), {"DstT": dtype}, name=name or "Cast")


# ---------------------------------------------------------------- matmul
def _matmul_kernel(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    if adjoint_a:
        a = np.conj(a)
    if adjoint_b:
        b = np.conj(b)
    if transpose_a or adjoint_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b or adjoint_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _dims_str(s):
    return "[" + ",".join("?" if d is None else str(d) for d in s) + "]"


def _matmul_infer(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    sa, sb = a.shape, b.shape
    if sa.rank is None or sb.rank is None:
        return UNKNOWN, a.dtype
    if sa.rank < 2 or sb.rank < 2:
        bad, which = (sa, "a") if sa.rank < 2 else (sb, "b")
        raise ValueError(f"In[{0 if which == 'a' else 1}] ndims must be >= 2: {sa.rank if which == 'a' else sb.rank}"
                         f" (shape {_dims_str(bad)})")
    m, k1 = (sa[-1], sa[-2]) if (transpose_a or adjoint_a) else (sa[-2], sa[-1])
    k2, n = (sb[-1], sb[-2]) if (transpose_b or adjoint_b) else (sb[-2], sb[-1])
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Matrix size-incompatible: In[0]: {_dims_str(sa)}, In[1]: {_dims_str(sb)}")
    batch = broadcast_shape(sa[:-2], sb[:-2])
    return batch.concatenate([m, n]), a.dtype


def _matmul_grad(op, dy):
    a, b = op.inputs
    ta = op.attrs.get("transpose_a") or op.attrs.get("adjoint_a")
    tb = op.attrs.get("transpose_b") or op.attrs.get("adjoint_b")
    if not ta and not tb:
        ga, gb = matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)
    elif not ta and tb:
        ga, gb = matmul(dy, b), matmul(dy, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = matmul(b, dy, transpose_b=True), matmul(a, dy)
    else:
        ga, gb = matmul(b, dy, transpose_a=True, transpose_b=True), matmul(dy, a, transpose_a=True, transpose_b=True)
    if a.shape.rank == 2 and b.shape.rank == 2:
        return ga, gb
    return sum_to(ga, a), sum_to(gb, b)


_MATMUL_TYPES = FLOATS | COMPLEX | frozenset([_dt.int32, _dt.int64, _dt.int16, _dt.int8, _dt.uint8])
MATMUL = defop("MatMul", _matmul_kernel, _matmul_infer, grad=_matmul_grad, same=2, allowed=_MATMUL_TYPES,
               cost=lambda shapes, attrs: 2 * float(np.prod(shapes[0])) * (shapes[1][-1] or 1))
BATCH_MATMUL = defop("BatchMatMulV2", _matmul_kernel, _matmul_infer, grad=_matmul_grad, same=2,
                     allowed=_MATMUL_TYPES)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, name=None):
    a, b = binary_args(a, b)
    attrs = {}
    if transpose_a:
        attrs["transpose_a"] = True
    if transpose_b:
        attrs["transpose_b"] = True
    if adjoint_a:
        attrs["adjoint_a"] = True
    if adjoint_b:
        attrs["adjoint_b"] = True
    op = MATMUL if a.shape.rank == 2 and b.shape.rank == 2 else BATCH_MATMUL
    return bind(op, (a, b), attrs, name=name or "MatMul")


# ---------------------------------------------------------------- reductions
def reduction_axes(x, axis):
    """Static tuple of non-negative axes (None = all) with TensorFlow's error for a bad axis."""
    rank = x.shape.rank
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        v = static_value(axis)
        if v is None:
            raise NotImplementedError("A reduction axis must be known when the graph is built.")
        axis = np.asarray(v).tolist()
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if rank is not None and not -rank <= a < max(rank, 1):
            raise InvalidArgumentError(
                f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
        out.append(a % rank if rank else 0)
    return tuple(sorted(set(out)))


def reduce_infer(x, axis=None, keepdims=False, **_):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, x.dtype
    if axis is None:
        dims = tuple(1 for _ in s) if keepdims else ()
    else:
        dims = tuple((1 if keepdims else -1) if i in axis else d for i, d in enumerate(s) if keepdims or i not in axis)
    return TensorShape._known(dims), x.dtype


def _sum_kernel(x, axis=None, keepdims=False):
    return np.sum(x, axis=axis, dtype=x.dtype, keepdims=keepdims)


def _mean_kernel(x, axis=None, keepdims=False):
    if x.dtype.kind in "iu":
        s = np.sum(x, axis=axis, dtype=np.int64, keepdims=keepdims)
        n = x.size // max(np.size(s), 1) if x.size else 1
        return (np.sign(s) * (np.abs(s) // max(n, 1))).astype(x.dtype)
    return np.mean(x, axis=axis, dtype=x.dtype, keepdims=keepdims)


def _reduce_grad_shape(op, dy):
    """Reshapes a reduced gradient so that it broadcasts against the input again."""
    x = op.inputs[0]
    axis, keepdims = op.attrs.get("axis"), op.attrs.get("keepdims", False)
    if not keepdims and x.shape.rank is not None:
        from .array_ops import reshape
        rank = x.shape.rank
        keep_shape = [1 if (axis is None or i in axis) else (d if d is not None else -1)
                      for i, d in enumerate(x.shape)]
        if keep_shape.count(-1) <= 1:
            dy = reshape(dy, keep_shape)
        else:
            dy = bind(EXPAND_REDUCED, (dy, x), {"axis": axis})
        del rank
    return dy


EXPAND_REDUCED = defop(
    "ExpandReduced",
    lambda dy, x, axis: np.reshape(dy, [1 if (axis is None or i in axis) else d for i, d in enumerate(np.shape(x))]),
    lambda dy, x, axis: (TensorShape(None) if x.shape.rank is None else TensorShape(
        [1 if (axis is None or i in axis) else d for i, d in enumerate(x.shape)]), dy.dtype))


def _sum_grad(op, dy):
    return (broadcast_like(_reduce_grad_shape(op, dy), op.inputs[0]),)


def _mean_grad(op, dy):
    x = op.inputs[0]
    g = broadcast_like(_reduce_grad_shape(op, dy), x)
    count = bind(REDUCED_COUNT, (x, op.outputs[0]), {})
    return (divide_(g, cast(count, g.dtype)),)


REDUCED_COUNT = defop("ReducedCount", lambda x, y: np.int32(max(np.size(x), 1) // max(np.size(y), 1)),
                      lambda x, y: (TensorShape(()), _dt.int32))
SUM = defop("Sum", _sum_kernel, reduce_infer, grad=_sum_grad, allowed=NUMERIC)
MEAN = defop("Mean", _mean_kernel, reduce_infer, grad=_mean_grad, allowed=NUMERIC)


def _reduce(op, default):
    def f(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        return bind(op, (x,), {"axis": reduction_axes(x, axis), "keepdims": bool(keepdims)}, name=name or default)
    return f


reduce_sum = _reduce(SUM, "Sum")
reduce_mean = _reduce(MEAN, "Mean")


# ---------------------------------------------------------------- small internal helpers
def _one_like(t):
    from .array_ops import ones_like
    return ones_like(t)


def zeros_like_(t):
    from .array_ops import zeros_like
    return zeros_like(t)


def where_(c, x, y):
    from .array_ops import where
    return where(c, x, y)
