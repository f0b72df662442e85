"""Elementwise arithmetic, comparisons, cast, matmul and reductions (tf.math)."""
import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import COMPLEX, FLOATS, INTS, NUMERIC, REAL, defop
from ..core.op import cpp_dtype_name as _cpp_name
from ..core.tensor import EagerTensor, Tensor, to_numpy_value
from ..errors import InternalError, InvalidArgumentError, NotFoundError, UnimplementedError
from ..execute import blas_threads
from ..shape import TensorShape
from ._rules import UNKNOWN, binary, binary_args, binary_bool, broadcast_shape, same_shape, static_value, to_tensor

_BOOL = frozenset([_dt.bool])
_STR = frozenset([_dt.string])
_SIGNED = frozenset([_dt.int8, _dt.int16, _dt.int32, _dt.int64])
_INT3264 = frozenset([_dt.int32, _dt.int64])
# NaN, inf and 0 are ordinary inputs in TensorFlow: kernels that NumPy would warn about run silently.
_quiet = context.quiet


def static_error(msg, op_name):
    """An error found before running: InvalidArgumentError when eager (as TF's kernel would raise),
    ValueError while building a graph (as TF's shape inference would)."""
    if context.executing_eagerly():
        return InvalidArgumentError(f"{msg} [Op:{op_name}]")
    return ValueError(msg)


def _no_kernel(name, kinds, kernel):
    """TensorFlow declares these dtypes for the op but registers no CPU kernel for them."""
    def k(x, *rest, **attrs):
        if x.dtype.kind in kinds:
            raise NotFoundError(f"Could not find device for node: {{{{node {name}}}}} = {name}"
                                f"[T={_dt.ENUM_NAMES[_dt.from_numpy(x.dtype).as_datatype_enum]}] [Op:{name}]")
        return kernel(x, *rest, **attrs)
    k.__wrapped__ = kernel  # the op's inputs and attrs are the inner kernel's (core/op.py reads them)
    return k


def _none_grad(op, *dys):
    """TensorFlow registers these as having no gradient (None), unlike ops with no gradient at all."""
    return (None,) * len(op.inputs)


# ---------------------------------------------------------------- gradient helpers (broadcasting)
def _sum_to_kernel(g, ref):
    gs, rs = np.shape(g), np.shape(ref)
    if gs == rs:
        return g
    if len(gs) == 2 and len(rs) == 1 and gs[1] == rs[0] and g.dtype in _GEMV_SUM:
        return column_sums(g)  # a Dense layer's bias gradient
    lead = len(gs) - len(rs)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(rs) if d == 1 and gs[i + lead] != 1)
    r = np.sum(g, axis=axes, dtype=g.dtype, keepdims=True) if axes else g
    return np.reshape(r, rs)


_GEMV_SUM = (np.dtype(np.float32), np.dtype(np.float64))
_ONES = {}


def column_sums(g):
    """Sums a float32/64 matrix over axis 0 as one GEMV with a cached ones vector (bias gradients: the
    fastest way here, ~3x np.sum on a 64x128 batch)."""
    n = g.shape[0]
    ones = _ONES.get((n, g.dtype))
    if ones is None:
        if len(_ONES) > 32:
            _ONES.clear()
        ones = _ONES[(n, g.dtype)] = np.ones(n, g.dtype)
    return np.dot(ones, g)


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


def _int_checked(fn, name, error=InvalidArgumentError, msg="Integer division by zero"):
    quiet_fn = _quiet(fn)

    def k(x, y):
        if x.dtype.kind in "iu" and np.any(y == 0):
            raise error(f"{msg} [Op:{name}]")
        return quiet_fn(x, y)
    return k


ADD = _binop("AddV2", _quiet(np.add), lambda op, dy: _unbroadcast2(op, dy, dy), NUMERIC | _STR)
SUB = _binop("Sub", _quiet(np.subtract), lambda op, dy: _unbroadcast2(op, dy, negative(dy)))
MUL = _binop("Mul", _quiet(np.multiply),
             lambda op, dy: _unbroadcast2(op, multiply(dy, conj(op.inputs[1])), multiply(conj(op.inputs[0]), dy)),
             NUMERIC | _BOOL)  # bool * bool is logical and in TensorFlow
REALDIV = _binop("RealDiv", _quiet(np.true_divide),
                 lambda op, dy: _unbroadcast2(op, divide_(dy, op.inputs[1]),
                                              negative(multiply(dy, divide_(divide_(op.inputs[0], op.inputs[1]),
                                                                            op.inputs[1])))), FLOATS | COMPLEX)
FLOORDIV = _binop("FloorDiv", _int_checked(np.floor_divide, "FloorDiv"), _none_grad, REAL)
def _floormod(x, y):
    if np.asarray(x).dtype.kind != "f":
        return np.mod(x, y)
    # TensorFlow's float FloorMod: fmod, then + y where the signs differ; a zero keeps x's sign (NumPy's mod
    # gives a zero y's sign: floormod(-0., 3.) is -0. in TF, 0. in NumPy).
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


FLOORMOD = _binop("FloorMod", _int_checked(_floormod, "FloorMod"),
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


# TensorFlow's Pow has no unsigned kernels (bfloat16, half, float, double, int8..int64, complex).
POW = _binop("Pow", _pow_kernel, _pow_grad, FLOATS | COMPLEX | {_dt.int8, _dt.int16, _dt.int32, _dt.int64})
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


def _truediv_args(x, y):
    """Integer operands are cast to float (int32 -> float64) first, as TensorFlow's truediv does."""
    x, y = binary_args(x, y)
    if x.dtype is not y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    target = _TRUEDIV_INT.get(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return x, y


def truediv(x, y, name=None):
    """x / y; integer operands are cast to float (int32 -> float64) first, as TensorFlow does."""
    x, y = _truediv_args(x, y)
    return bind(REALDIV, (x, y), name=name or "truediv")


def realdiv(x, y, name=None):
    x, y = binary_args(x, y)
    return bind(REALDIV, (x, y), name=name or "RealDiv")


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
NEG = defop("Neg", np.negative, same_shape, grad=lambda op, dy: (negative(dy),), allowed=FLOATS | _SIGNED | COMPLEX)
FLOOR = defop("Floor", np.floor, same_shape, grad=_none_grad, allowed=FLOATS)
CONJ = defop("Conj", np.conj, same_shape, grad=lambda op, dy: (conj(dy),), allowed=NUMERIC)


def negative(x, name=None):
    return bind(NEG, (to_tensor(x),), name=name or "Neg")


def floor(x, name=None):
    return bind(FLOOR, (to_tensor(x),), name=name or "Floor")


def conj(x, name=None):
    x = to_tensor(x)
    if not (x.dtype.is_complex or x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Expected numeric or variant tensor, got dtype tf.{x.dtype.name}.")
    return x if not x.dtype.is_complex else bind(CONJ, (x,), name=name or "Conj")


# ---------------------------------------------------------------- cast
def _cast_kernel(x, DstT):
    if DstT._np is None:
        raise InvalidArgumentError("Cast to string is not supported")
    if x.dtype == object:
        raise UnimplementedError(f"Cast string to {DstT.name} is not supported")
    if x.dtype.kind == "c" and DstT._np.kind != "c":
        x = x.real  # TensorFlow keeps the real part; NumPy would warn that it discards the imaginary one
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
    return matmul_values(a, b)


_F16, _F32 = np.dtype(np.float16), np.float32


def matmul_values(a, b):
    """The product of two arrays as TensorFlow's CPU MatMul/BatchMatMul compute it: np.matmul (on one BLAS
    thread for a small GEMM OpenBLAS would split); float16 operands multiplied and summed in float32 and the
    result rounded once to float16, as TensorFlow's CPU kernels do: its values, but for the order of the
    float32 sums (with hundreds of terms, about 1 element in 1000 a last bit apart, as NumPy's own half loops
    are too, which run ~50-200x slower than this float32 GEMM). The one definition: the MatMul kernels, the
    optimiser's fused MatMul and the executor's compiled MatMul all come here for float16."""
    if a.dtype == _F16 and b.dtype == _F16:
        return blas_threads.matmul(a.astype(_F32), b.astype(_F32)).astype(_F16)
    return blas_threads.matmul(a, b)


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
    if a.dtype.is_complex:
        return _complex_matmul_grad(op, dy)
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


def _complex_matmul_grad(op, dy):
    """y = op_a(a) @ op_b(b), op one of identity, transpose, adjoint. TensorFlow's complex gradients are
    conjugate derivatives: d(op_a(a)) = dy @ op_b(b)^H, d(op_b(b)) = op_a(a)^H @ dy, mapped back through
    each op (a transpose's gradient is transposed, an adjoint's is adjointed)."""
    from .linalg_ops import matrix_transpose
    at = op.attrs

    def kind(side):
        return "h" if at.get(f"adjoint_{side}") else "t" if at.get(f"transpose_{side}") else None

    def apply(x, k):
        return x if k is None else matrix_transpose(x, conjugate=(k == "h"))
    a, b = op.inputs
    ka, kb = kind("a"), kind("b")
    ga = apply(matmul(dy, apply(b, kb), adjoint_b=True), ka)
    gb = apply(matmul(apply(a, ka), dy, adjoint_a=True), kb)
    if a.shape.rank == 2 and b.shape.rank == 2:
        return ga, gb
    return sum_to(ga, a), sum_to(gb, b)


# TensorFlow's op definitions: MatMul takes no int8/int16 (BatchMatMulV2 takes int16); unsigned types are
# declared, but no CPU kernel computes them (NotFoundError when run).
_MATMUL_TYPES = FLOATS | COMPLEX | frozenset([_dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64])
MATMUL = defop("MatMul", _no_kernel("MatMul", "u", _matmul_kernel), _matmul_infer, grad=_matmul_grad, same=2,
               allowed=_MATMUL_TYPES, cost=lambda shapes, attrs: 2 * float(np.prod(shapes[0])) * (shapes[1][-1] or 1))
BATCH_MATMUL = defop("BatchMatMulV2", _no_kernel("BatchMatMulV2", "u", _matmul_kernel), _matmul_infer,
                     grad=_matmul_grad, same=2, allowed=_MATMUL_TYPES | frozenset([_dt.int16]))


_SLOW = context.SLOW
_E = EagerTensor
# The eager fast path's dtypes: those TensorFlow's CPU MatMul computes plainly (float16 is summed in float32),
# each with the NumPy call that computes it: `ndarray.dot` for integers (exact, wrapping as TensorFlow's
# kernel; ~0.1 us less call overhead than np.matmul), np.matmul (the op's own BLAS call) for the others.
_MATMUL_FAST = {np.dtype(d._np): (np.ndarray.dot if d.is_integer else np.matmul)
                for d in (_dt.float32, _dt.float64, _dt.int32, _dt.int64, _dt.complex64, _dt.complex128)}
_mm_fast = _MATMUL_FAST.get
_SMALL_MNK = blas_threads._SPLIT_MNK  # smaller GEMMs run on one BLAS thread anyway: no thread policy to ask
_bmm = blas_threads.matmul


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, name=None):
    # Eager fast path (no graph, tape or device placement anywhere: SLOW is 0): two eager matrices of one
    # dtype whose shapes fit, no adjoint; exactly what bind(MATMUL) would compute, without its bookkeeping.
    # Everything else, errors included, takes the op path below.
    if not _SLOW[0] and adjoint_a is False and adjoint_b is False and transpose_a.__class__ is bool and \
            transpose_b.__class__ is bool:
        if a.__class__ is not _E and not isinstance(a, Tensor) and hasattr(a, "_as_tensor"):
            a = a._as_tensor()  # a variable (Dense's kernel) reads itself, as binary_args would have it
        if b.__class__ is not _E and not isinstance(b, Tensor) and hasattr(b, "_as_tensor"):
            b = b._as_tensor()
        if a.__class__ is _E and b.__class__ is _E:
            va = a._v
            vb = b._v
            d = va.dtype
            if d is vb.dtype:
                fn = _mm_fast(d)
                if fn is not None and va.ndim == 2 and vb.ndim == 2:
                    if transpose_a:  # the kernel's swapaxes: a view
                        va = va.T
                    if transpose_b:
                        vb = vb.T
                    sa = va.shape
                    sb = vb.shape
                    if sa[1] == sb[0]:
                        if sa[0] * sa[1] * sb[1] < _SMALL_MNK:
                            return _E(fn(va, vb))
                        return _E(_bmm(va, vb))
    return _matmul_op(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b, name)


def _matmul_op(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b, name):
    if transpose_a is False and transpose_b is False and adjoint_a is False and adjoint_b is False:
        attrs = {}
    else:
        for flag, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b), ("adjoint_a", adjoint_a),
                        ("adjoint_b", adjoint_b)):
            if v.__class__ is not bool and not isinstance(v, np.bool_):
                raise TypeError(f"Expected bool for argument '{flag}' not {v!r}.")
        if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
            which = "a" if transpose_a and adjoint_a else "b"
            raise ValueError(f"Only one of `transpose_{which}` and `adjoint_{which}` can be True.")
        attrs = {}
        if transpose_a:
            attrs["transpose_a"] = True
        if transpose_b:
            attrs["transpose_b"] = True
        if adjoint_a:
            attrs["adjoint_a"] = True
        if adjoint_b:
            attrs["adjoint_b"] = True
    if a.__class__ is not b.__class__ or not isinstance(a, Tensor):  # two tensors of one kind need no conversion
        a, b = binary_args(a, b)
    ra, rb = a.ndim, b.ndim
    if (ra is not None and ra < 2) or (rb is not None and rb < 2):
        bad = ra if ra is not None and ra < 2 else rb
        if context.executing_eagerly():
            raise InvalidArgumentError(f"In[0] and In[1] ndims must be == 2: {bad} [Op:MatMul]")
        raise ValueError(f"Shape must be rank 2 but is rank {bad} for 'MatMul' with input shapes: {a.shape}, "
                         f"{b.shape}.")
    op = MATMUL if ra == 2 and rb == 2 else BATCH_MATMUL
    return bind(op, (a, b), attrs, name=name or "MatMul")


# ---------------------------------------------------------------- reductions
def reduction_axes(x, axis, op_name=None):
    """Static tuple of non-negative axes (None = all) with TensorFlow's error for a bad axis
    (InvalidArgumentError eagerly, ValueError while building a graph)."""
    rank = x.shape.rank
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        v = static_value(axis)
        if v is None:
            raise NotImplementedError("A reduction axis must be known when the graph is built.")
        axis = np.asarray(v).tolist()
    if type(axis) is int:
        axes = [axis]
    else:
        a = np.asarray(axis)
        if a.dtype.kind not in "iu" and a.size:
            raise TypeError(f"`axis` must be an integer or a list of integers, got {axis!r}")
        if a.ndim > 1:
            msg = f"`axis` must be a scalar or a vector, got a value of shape {list(a.shape)}"
            raise InvalidArgumentError(msg) if op_name is None else static_error(msg, op_name)
        axes = a.reshape(-1).tolist()
    out = []
    for a in axes:
        if rank is not None and not -rank <= a < max(rank, 1):
            msg = f"Invalid reduction dimension ({a} for input with {rank} dimension(s)"
            raise InvalidArgumentError(msg) if op_name is None else static_error(msg, op_name)
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        # TensorFlow's shape inference lets duplicates through and its kernel refuses them, in graphs too
        msg = f"Invalid reduction arguments: Axes contains duplicate dimension: {axes}"
        raise InvalidArgumentError(msg if op_name is None or not context.executing_eagerly()
                                   else f"{msg} [Op:{op_name}]")
    return tuple(sorted(out))


def reduce_infer(x, axis=None, keepdims=False, **_):
    s = x.shape
    if s.rank is None:
        return (TensorShape._known(()) if axis is None and not keepdims else UNKNOWN), x.dtype
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
    if x.size == 0:  # 0/0: NaN, where NumPy would also warn "Mean of empty slice"
        return np.full(np.shape(np.sum(x, axis=axis, keepdims=keepdims)), np.nan, x.dtype)
    if x.__class__ is np.ndarray and x.dtype.kind == "f":
        # np.mean's own steps (a pairwise sum in x's dtype, then a division by the count) without its
        # Python-level wrapper, which costs 4x the sum on the small arrays of a training step's loss.
        s = np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)
        return s / x.dtype.type(x.size // np.size(s))  # (x is not empty, so neither is s)
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


def _reduce(op, default, doc=None):
    def f(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        if op.allowed is not None and x.dtype not in op.allowed:  # TensorFlow checks the dtype before the axis
            return bind(op, (x,), {"axis": None, "keepdims": bool(keepdims)}, name=name or default)
        return bind(op, (x,), {"axis": reduction_axes(x, axis, op.name), "keepdims": bool(keepdims)},
                    name=name or default)
    f.__name__ = f.__qualname__ = doc or "reduce_" + default.lower()
    return f


reduce_sum = _reduce(SUM, "Sum")
reduce_mean = _reduce(MEAN, "Mean")


# ---------------------------------------------------------------- more binary arithmetic
def _squared_difference_kernel(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


def _squared_difference_grad(op, dy):
    g = multiply(multiply(dy, 2), subtract(*op.inputs))  # TensorFlow does not conjugate here
    return _unbroadcast2(op, g, negative(g))


def _truncatediv_kernel(x, y):
    if x.dtype.kind in "fc":
        return np.trunc(np.true_divide(x, y))
    q = np.floor_divide(x, y)
    if x.dtype.kind == "i":  # floor -> truncation where the division was inexact and the signs differ
        q = q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return q


def _where_x_zero(fn):
    """xdivy/xlogy: 0 wherever x == 0, whatever y is."""
    @_quiet
    def k(x, y):
        r = fn(x, y)
        return np.where(x == 0, np.zeros((), r.dtype), r)
    return k


@_quiet
def _div_no_nan_kernel(x, y):
    r = np.true_divide(x, y)
    return np.where(y == 0, np.zeros((), r.dtype), r)


def _div_no_nan_grad(op, dy):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    return _unbroadcast2(op, divide_no_nan(dy, y), multiply(dy, divide_no_nan(divide_no_nan(negative(x), y), y)))


def _xlogy_grad(op, dy):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    not_zero_x = cast(not_equal(x, 0), x.dtype)
    return _unbroadcast2(op, multiply(xlogy(not_zero_x, y), dy), multiply(xdivy(x, y), dy))


def _xdivy_grad(op, dy):
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    not_zero_x = cast(not_equal(x, 0), x.dtype)
    return _unbroadcast2(op, multiply(xdivy(not_zero_x, y), dy), multiply(xdivy(negative(x), square(y)), dy))


_TRUNC_MSG = "Unexpected error in binary operator (only integer div and mod should have errors)"
SQUARED_DIFFERENCE = _binop("SquaredDifference", _quiet(_squared_difference_kernel), _squared_difference_grad,
                            FLOATS | _INT3264 | COMPLEX)
TRUNCATEDIV = _binop("TruncateDiv", _no_kernel("TruncateDiv", "c", _int_checked(
    _truncatediv_kernel, "TruncateDiv", InternalError, _TRUNC_MSG)), _none_grad, NUMERIC)
TRUNCATEMOD = _binop("TruncateMod", _int_checked(np.fmod, "TruncateMod", InternalError, _TRUNC_MSG), None,
                     FLOATS | _INT3264)
DIV_NO_NAN = _binop("DivNoNan", _div_no_nan_kernel, _div_no_nan_grad, FLOATS | COMPLEX)
XDIVY = _binop("Xdivy", _where_x_zero(np.true_divide), _xdivy_grad, FLOATS | COMPLEX)
XLOGY = _binop("Xlogy", _where_x_zero(lambda x, y: x * np.log(y)), _xlogy_grad, FLOATS | COMPLEX)


def _binary_fn(op, default, doc):
    def f(x, y, name=None):
        x, y = binary_args(x, y)
        return bind(op, (x, y), name=name or default)
    f.__name__ = f.__qualname__ = doc
    return f


def _atan2_grad(op, dy):
    y, x = op.inputs
    g = divide_(dy, add(square(x), square(y)))
    return _unbroadcast2(op, multiply(x, g), negative(multiply(y, g)))


ATAN2 = _binop("Atan2", _quiet(np.arctan2), _atan2_grad, FLOATS)
squared_difference = _binary_fn(SQUARED_DIFFERENCE, "SquaredDifference", "squared_difference")
truncatediv = _binary_fn(TRUNCATEDIV, "TruncateDiv", "truncatediv")
truncatemod = _binary_fn(TRUNCATEMOD, "TruncateMod", "truncatemod")
xdivy = _binary_fn(XDIVY, "Xdivy", "xdivy")
xlogy = _binary_fn(XLOGY, "Xlogy", "xlogy")
atan2 = _binary_fn(ATAN2, "Atan2", "atan2")


def divide_no_nan(x, y, name=None):
    """x / y, and 0 wherever y == 0 (integers are cast to float first, as tf.math.truediv does)."""
    x, y = _truediv_args(x, y)
    return bind(DIV_NO_NAN, (x, y), name=name or "div_no_nan")


# ---------------------------------------------------------------- add_n, clip_by_value
def _add_n_kernel(*xs):
    s0 = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != s0:
            raise InvalidArgumentError(
                f"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: "
                f"{_dims_str(s0)} != input {i}: {_dims_str(x.shape)} [Op:AddN]")
    if len(xs) == 1:
        return xs[0]
    r = np.add(xs[0], xs[1])
    for x in xs[2:]:
        r = np.add(r, x, out=r) if isinstance(r, np.ndarray) else r + x
    return r


def _add_n_infer(*xs):
    s = xs[0].shape
    for x in xs[1:]:
        if not s.is_compatible_with(x.shape):
            raise ValueError(f"Shapes must be equal rank, but are {_dims_str(s)} and {_dims_str(x.shape)} "
                             f"for 'AddN'")
        s = s.merge_with(x.shape)
    return s, xs[0].dtype


# `same` as large as any input list: every input of AddN shares the dtype of input 0.
ADD_N = defop("AddN", _quiet(_add_n_kernel), _add_n_infer, grad=lambda op, dy: (dy,) * len(op.inputs),
              same=1 << 30, allowed=NUMERIC)


def add_n(inputs, name=None):
    """Sums a list of tensors of one shape and dtype (no broadcasting)."""
    if isinstance(inputs, Tensor):
        inputs = list(inputs)
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    return bind(ADD_N, tuple(to_tensor(x) for x in inputs), name=name or "AddN")


def _clip_kernel(x, lo, hi):
    r = np.minimum(x, hi)  # then max: a lower bound above the upper one wins, as in TensorFlow
    return np.maximum(r, lo, out=r) if isinstance(r, np.ndarray) else np.maximum(r, lo)


def _clip_infer(x, lo, hi):
    # clip_by_value has checked that the bounds do not enlarge x's shape.
    s = broadcast_shape(broadcast_shape(x.shape, hi.shape), lo.shape)
    return (x.shape.merge_with(s) if s.rank == x.shape.rank else x.shape), x.dtype


def _clip_grad(op, dy):
    x, lo, hi = op.inputs
    below, above = less(x, lo), greater(x, hi)
    zeros = zeros_like_(dy)
    return (where_(logical_or(below, above), zeros, dy), sum_to(where_(below, dy, zeros), lo),
            sum_to(where_(above, dy, zeros), hi))


CLIP_BY_VALUE = defop("ClipByValue", _clip_kernel, _clip_infer, grad=_clip_grad, same=3, allowed=REAL)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max) where the bounds broadcast to t's shape."""
    t = to_tensor(t)
    hi = clip_value_max if isinstance(clip_value_max, Tensor) else to_tensor(clip_value_max, dtype=t.dtype)
    lo = clip_value_min if isinstance(clip_value_min, Tensor) else to_tensor(clip_value_min, dtype=t.dtype)
    try:
        s = broadcast_shape(broadcast_shape(t.shape, hi.shape), lo.shape)
    except ValueError as e:
        raise static_error(str(e), "Minimum") from None
    if not t.shape.is_compatible_with(s):  # the bounds may not make the result larger than t
        raise ValueError(f"Shapes {t.shape} and {s} are incompatible")
    return bind(CLIP_BY_VALUE, (t, lo, hi), name=name or "clip_by_value")


# ---------------------------------------------------------------- unary elementwise
def _unary(name, kernel, grad, allowed, infer=same_shape):
    return defop(name, kernel, infer, grad=grad, allowed=allowed)


def _unary_fn(op, default, doc):
    def f(x, name=None):
        return bind(op, (to_tensor(x),), name=name or default)
    f.__name__ = f.__qualname__ = doc
    return f


def _conj_out(op):
    return conj(op.outputs[0])


def _round_kernel(x):
    return np.rint(x) if x.dtype.kind in "fc" else x


def _sigmoid_kernel(x):
    t = np.exp(np.negative(x))
    t += 1
    return np.reciprocal(t, out=t) if isinstance(t, np.ndarray) else 1 / t


_TWO_OVER_SQRT_PI = 2 / np.sqrt(np.pi)
_FLOAT_C = FLOATS | COMPLEX
ABS = _unary("Abs", np.abs, lambda op, dy: (multiply(dy, sign(op.inputs[0])),), FLOATS | _SIGNED)
COMPLEX_ABS = _unary(
    "ComplexAbs", np.abs,
    lambda op, dy: (divide_no_nan(multiply(cast(dy, op.inputs[0].dtype), op.inputs[0]),
                                  cast(op.outputs[0], op.inputs[0].dtype)),),
    COMPLEX, infer=lambda x: (x.shape, x.dtype.real_dtype))
SIGN = _unary("Sign", np.sign, lambda op, dy: (zeros_like_(op.inputs[0]),), FLOATS | _SIGNED | COMPLEX)
SQUARE = _unary("Square", _quiet(np.square), lambda op, dy: (multiply(dy, multiply(conj(op.inputs[0]), 2)),),
                NUMERIC)
def _zero_where_no_dy(dy, g):
    """TensorFlow's SqrtGrad, RsqrtGrad and ReciprocalGrad give 0 wherever the incoming gradient is 0, even where
    the local derivative is inf or nan (tf.where(x > 0, tf.sqrt(x), 0) has gradient 0 at x <= 0, not nan)."""
    return (where_(equal(dy, 0), zeros_like_(g), g),)


SQRT = _unary("Sqrt", _quiet(np.sqrt),
              lambda op, dy: _zero_where_no_dy(dy, divide_(multiply(dy, 0.5), _conj_out(op))), _FLOAT_C)
RSQRT = _unary("Rsqrt", _quiet(lambda x: np.reciprocal(np.sqrt(x))),
               lambda op, dy: _zero_where_no_dy(
                   dy, multiply(dy, multiply(-0.5, multiply(square(_conj_out(op)), _conj_out(op))))), _FLOAT_C)
EXP = _unary("Exp", _quiet(np.exp), lambda op, dy: (multiply(dy, _conj_out(op)),), _FLOAT_C)
LOG = _unary("Log", _quiet(np.log), lambda op, dy: (divide_(dy, conj(op.inputs[0])),), _FLOAT_C)
LOG1P = _unary("Log1p", _quiet(np.log1p), lambda op, dy: (divide_(dy, add(1, conj(op.inputs[0]))),), _FLOAT_C)
EXPM1 = _unary("Expm1", _quiet(np.expm1), lambda op, dy: (multiply(dy, exp(conj(op.inputs[0]))),), _FLOAT_C)
SIN = _unary("Sin", _quiet(np.sin), lambda op, dy: (multiply(dy, cos(conj(op.inputs[0]))),), _FLOAT_C)
COS = _unary("Cos", _quiet(np.cos), lambda op, dy: (negative(multiply(dy, sin(conj(op.inputs[0])))),), _FLOAT_C)
TAN = _unary("Tan", _quiet(np.tan),
             lambda op, dy: (multiply(dy, square(reciprocal(cos(conj(op.inputs[0]))))),), _FLOAT_C)
TANH = _unary("Tanh", np.tanh,
              lambda op, dy: (multiply(dy, subtract(1, square(_conj_out(op)))),), _FLOAT_C)
SIGMOID = _unary("Sigmoid", _quiet(_sigmoid_kernel),
                 lambda op, dy: (multiply(dy, multiply(_conj_out(op), subtract(1, _conj_out(op)))),), _FLOAT_C)
RECIPROCAL = _unary("Reciprocal", _no_kernel("Reciprocal", "iu", _quiet(np.reciprocal)),
                    lambda op, dy: _zero_where_no_dy(dy, negative(multiply(dy, square(_conj_out(op))))),
                    _FLOAT_C | _SIGNED)
ROUND = _unary("Round", _round_kernel, _none_grad, _FLOAT_C | _SIGNED)
CEIL = _unary("Ceil", np.ceil, _none_grad, FLOATS)


def _rint_kernel(x):
    if x.dtype == np.float16:  # declared for half, but TensorFlow has no CPU kernel for it
        raise NotFoundError("Could not find device for node: {{node Rint}} = Rint[T=DT_HALF] [Op:Rint]")
    return np.rint(x)


def _cx(op):
    return conj(op.inputs[0])


def _one_minus_sq(op):
    return subtract(1, square(_cx(op)))


ASIN = _unary("Asin", _quiet(np.arcsin), lambda op, dy: (multiply(dy, rsqrt(_one_minus_sq(op))),), _FLOAT_C)
ACOS = _unary("Acos", _quiet(np.arccos), lambda op, dy: (negative(multiply(dy, rsqrt(_one_minus_sq(op)))),),
              _FLOAT_C)
ATAN = _unary("Atan", _quiet(np.arctan), lambda op, dy: (divide_(dy, add(1, square(_cx(op)))),), _FLOAT_C)
SINH = _unary("Sinh", _quiet(np.sinh), lambda op, dy: (multiply(dy, cosh(_cx(op))),), _FLOAT_C)
COSH = _unary("Cosh", _quiet(np.cosh), lambda op, dy: (multiply(dy, sinh(_cx(op))),), _FLOAT_C)
ASINH = _unary("Asinh", _quiet(np.arcsinh), lambda op, dy: (divide_(dy, cosh(_conj_out(op))),), _FLOAT_C)
ACOSH = _unary("Acosh", _quiet(np.arccosh), lambda op, dy: (divide_(dy, sinh(_conj_out(op))),), _FLOAT_C)
ATANH = _unary("Atanh", _quiet(np.arctanh), lambda op, dy: (divide_(dy, _one_minus_sq(op)),), _FLOAT_C)
RINT = _unary("Rint", _rint_kernel, _none_grad, FLOATS)
_is = lambda x: (x.shape, _dt.bool)  # noqa: E731
IS_NAN = _unary("IsNan", np.isnan, None, FLOATS, infer=_is)
IS_INF = _unary("IsInf", np.isinf, None, FLOATS, infer=_is)
IS_FINITE = _unary("IsFinite", np.isfinite, None, FLOATS, infer=_is)


def _erf_grad(op, dy):
    x = conj(op.inputs[0])
    return (multiply(dy, multiply(_TWO_OVER_SQRT_PI, exp(negative(square(x))))),)


ERF = _unary("Erf", lambda x: _erf64(x).astype(x.dtype, copy=False), _erf_grad, FLOATS)
ERFC = _unary("Erfc", lambda x: _erfc64(x).astype(x.dtype, copy=False),
              lambda op, dy: (negative(_erf_grad(op, dy)[0]),), FLOATS)

sign = _unary_fn(SIGN, "Sign", "sign")
square = _unary_fn(SQUARE, "Square", "square")
sqrt = _unary_fn(SQRT, "Sqrt", "sqrt")
rsqrt = _unary_fn(RSQRT, "Rsqrt", "rsqrt")
exp = _unary_fn(EXP, "Exp", "exp")
log = _unary_fn(LOG, "Log", "log")
log1p = _unary_fn(LOG1P, "Log1p", "log1p")
expm1 = _unary_fn(EXPM1, "Expm1", "expm1")
sin = _unary_fn(SIN, "Sin", "sin")
cos = _unary_fn(COS, "Cos", "cos")
tan = _unary_fn(TAN, "Tan", "tan")
tanh = _unary_fn(TANH, "Tanh", "tanh")
sigmoid = _unary_fn(SIGMOID, "Sigmoid", "sigmoid")
reciprocal = _unary_fn(RECIPROCAL, "Reciprocal", "reciprocal")
round = _unary_fn(ROUND, "Round", "round")  # noqa: A001  (TensorFlow's name; banker's rounding)
ceil = _unary_fn(CEIL, "Ceil", "ceil")
is_nan = _unary_fn(IS_NAN, "IsNan", "is_nan")
is_inf = _unary_fn(IS_INF, "IsInf", "is_inf")
is_finite = _unary_fn(IS_FINITE, "IsFinite", "is_finite")
erf = _unary_fn(ERF, "Erf", "erf")
asin = _unary_fn(ASIN, "Asin", "asin")
acos = _unary_fn(ACOS, "Acos", "acos")
atan = _unary_fn(ATAN, "Atan", "atan")
sinh = _unary_fn(SINH, "Sinh", "sinh")
cosh = _unary_fn(COSH, "Cosh", "cosh")
asinh = _unary_fn(ASINH, "Asinh", "asinh")
acosh = _unary_fn(ACOSH, "Acosh", "acosh")
atanh = _unary_fn(ATANH, "Atanh", "atanh")
rint = _unary_fn(RINT, "Rint", "rint")
erfc = _unary_fn(ERFC, "Erfc", "erfc")


_real_part = lambda x: (x.shape, x.dtype.real_dtype)  # noqa: E731
REAL_PART = _unary("Real", np.real, lambda op, dy: (cast(dy, op.inputs[0].dtype),), COMPLEX, infer=_real_part)
IMAG_PART = _unary("Imag", np.imag, lambda op, dy: (multiply(cast(dy, op.inputs[0].dtype), 1j),), COMPLEX,
                   infer=_real_part)
REAL_PART.is_view = IMAG_PART.is_view = True  # np.real/np.imag return views of the complex input


def real(input, name=None):  # noqa: A002
    """The real part; a real input is returned as it is."""
    x = to_tensor(input)
    if not (x.dtype.is_complex or x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")
    return bind(REAL_PART, (x,), name=name or "Real") if x.dtype.is_complex else x


def imag(input, name=None):  # noqa: A002
    """The imaginary part; zeros for a real input."""
    x = to_tensor(input)
    return bind(IMAG_PART, (x,), name=name or "Imag") if x.dtype.is_complex else zeros_like_(x)


def abs(x, name=None):  # noqa: A001  (TensorFlow's name)
    """|x|; for complex x the real-valued magnitude (the ComplexAbs op), as TensorFlow does."""
    x = to_tensor(x)
    if x.dtype.is_complex:
        return bind(COMPLEX_ABS, (x,), name=name or "ComplexAbs")
    return bind(ABS, (x,), name=name or "Abs")


# ---------------------------------------------------------------- erf / erfc without SciPy
# W. J. Cody's rational Chebyshev approximations (Math. Comp. 1969), accurate to double precision:
# |x| <= 0.5: erf = x P(x^2)/Q(x^2); 0.5 < |x| <= 4 and |x| > 4: erfc = exp(-x^2) R(|x|).
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
          1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
          8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
          2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
          3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
          6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
          2.33520497626869185e-3)


def _erf_small(x):
    z = x * x
    num, den = _ERF_A[4] * z, z
    for a, b in zip(_ERF_A[:3], _ERF_B[:3]):
        num, den = (num + a) * z, (den + b) * z
    return x * (num + _ERF_A[3]) / (den + _ERF_B[3])


def _erfc_large(y):
    """erfc(y) for y > 0.5."""
    y = np.minimum(y, 27.0)  # erfc underflows to 0 long before; keeps inf out of the arithmetic
    mid = y <= 4
    r = np.empty_like(y)
    z = y[mid]
    num, den = _ERF_C[8] * z, z
    for c, d in zip(_ERF_C[:7], _ERF_D[:7]):
        num, den = (num + c) * z, (den + d) * z
    r[mid] = (num + _ERF_C[7]) / (den + _ERF_D[7])
    z = y[~mid]
    w = 1 / (z * z)
    num, den = _ERF_P[5] * w, w
    for p, q in zip(_ERF_P[:4], _ERF_Q[:4]):
        num, den = (num + p) * w, (den + q) * w
    r[~mid] = (0.5641895835477563 - w * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / z
    ys = np.trunc(y * 16) / 16  # exp(-y^2) split in two to keep its rounding error small
    return np.exp(-ys * ys) * np.exp(-(y - ys) * (y + ys)) * r


def _erf_parts(x):
    x = np.asarray(x, np.float64)
    small = np.abs(x) <= 0.5
    big = ~small & ~np.isnan(x)
    return x, small, big


@_quiet
def _erf64(x):
    x, small, big = _erf_parts(x)
    out = x.copy()  # NaN stays NaN
    out[small] = _erf_small(x[small])
    out[big] = np.copysign(1 - _erfc_large(np.abs(x[big])), x[big])
    return out


@_quiet
def _erfc64(x):
    x, small, big = _erf_parts(x)
    out = x.copy()
    out[small] = 1 - _erf_small(x[small])
    xb = x[big]
    e = _erfc_large(np.abs(xb))
    out[big] = np.where(xb > 0, e, 2 - e)
    return out


# ---------------------------------------------------------------- more reductions
def _lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _highest(dt):
    return np.inf if dt.kind == "f" else np.iinfo(dt).max


def _max_kernel(x, axis=None, keepdims=False):
    if x.size == 0:  # TensorFlow's identity for an empty max: the lowest value
        return np.max(x, axis=axis, keepdims=keepdims, initial=_lowest(x.dtype))
    return np.max(x, axis=axis, keepdims=keepdims)


def _min_kernel(x, axis=None, keepdims=False):
    if x.size == 0:
        return np.min(x, axis=axis, keepdims=keepdims, initial=_highest(x.dtype))
    return np.min(x, axis=axis, keepdims=keepdims)


def _minmax_reduce_grad(op, dy):
    """The gradient goes to the elements equal to the result, split evenly between ties (as TF)."""
    x = op.inputs[0]
    ind = cast(equal(_reduce_grad_shape(op, op.outputs[0]), x), dy.dtype)
    num = reduce_sum(ind, axis=op.attrs.get("axis"), keepdims=True)
    return (multiply(divide_(ind, num), _reduce_grad_shape(op, dy)),)


def _prod_grad(op, dy):
    """d prod / d x_i = product of the others: exclusive cumprods from both ends, one reduced axis at a
    time (no division, so zeros are fine)."""
    x = op.inputs[0]
    axes = op.attrs.get("axis")
    if axes is None:
        if x.shape.rank is None:
            raise NotImplementedError("The gradient of reduce_prod over all axes needs a known rank.")
        axes = range(x.shape.rank)
    others, t = None, x
    for a in axes:
        part = multiply(cumprod(t, a, exclusive=True), cumprod(t, a, exclusive=True, reverse=True))
        others = part if others is None else multiply(others, part)
        t = reduce_prod(t, a, keepdims=True)
    g = _reduce_grad_shape(op, dy)
    return (g if others is None else multiply(g, conj(others)),)


@_quiet
def _logsumexp_kernel(x, axis=None, keepdims=False):
    if x.size == 0:
        return np.log(np.sum(x, axis=axis, keepdims=keepdims))  # log(0) = -inf
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, np.zeros((), m.dtype))  # all -inf (or an inf): shift by 0
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return r + (m if keepdims else np.reshape(m, np.shape(r)))


def _logsumexp_grad(op, dy):
    x = op.inputs[0]
    return (multiply(_reduce_grad_shape(op, dy), exp(subtract(x, _reduce_grad_shape(op, op.outputs[0])))),)


def _all_any_infer(x, axis=None, keepdims=False):
    return reduce_infer(x, axis, keepdims)[0], _dt.bool


MAX = defop("Max", _max_kernel, reduce_infer, grad=_minmax_reduce_grad, allowed=REAL)
MIN = defop("Min", _min_kernel, reduce_infer, grad=_minmax_reduce_grad, allowed=REAL)
PROD = defop("Prod", _quiet(lambda x, axis=None, keepdims=False: np.prod(x, axis=axis, dtype=x.dtype,
                                                                        keepdims=keepdims)),
             reduce_infer, grad=_prod_grad, allowed=NUMERIC)
ALL = defop("All", lambda x, axis=None, keepdims=False: np.all(x, axis=axis, keepdims=keepdims), _all_any_infer)
ANY = defop("Any", lambda x, axis=None, keepdims=False: np.any(x, axis=axis, keepdims=keepdims), _all_any_infer)
# Not a TensorFlow op (TF composes max, exp, sum and log): one NumPy pass chain, and a one-line gradient.
LOGSUMEXP = defop("ReduceLogSumExp", _logsumexp_kernel, reduce_infer, grad=_logsumexp_grad, allowed=FLOATS)

reduce_max = _reduce(MAX, "Max")
reduce_min = _reduce(MIN, "Min")
reduce_prod = _reduce(PROD, "Prod")
reduce_logsumexp = _reduce(LOGSUMEXP, "ReduceLogSumExp", "reduce_logsumexp")


def _bool_reduce(op, default):
    base = _reduce(op, default)

    def f(input_tensor, axis=None, keepdims=False, name=None):
        x = to_tensor(input_tensor)
        if x.dtype is not _dt.bool:
            if context.executing_eagerly():
                raise InvalidArgumentError(f"cannot compute {op.name} as input #0(zero-based) was expected to be a "
                                           f"bool tensor but is a {x.dtype.name} tensor [Op:{op.name}]")
            raise TypeError(f"Input 'input' of '{op.name}' Op has type {x.dtype.name} that does not match "
                            f"expected type of bool.")
        return base(x, axis, keepdims, name)
    f.__name__ = f.__qualname__ = base.__name__
    return f


reduce_all = _bool_reduce(ALL, "All")
reduce_any = _bool_reduce(ANY, "Any")


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Mean squared deviation; real-valued for complex input."""
    x = to_tensor(input_tensor)
    means = reduce_mean(x, axis=axis, keepdims=True)
    if means.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {means.dtype}.")
    diff = subtract(x, means)
    sq = real(multiply(diff, conj(diff))) if diff.dtype.is_complex else square(diff)
    return reduce_mean(sq, axis=axis, keepdims=keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims), name=name)


# ---------------------------------------------------------------- argmax / argmin
def _arg_kernel(fn, nan_fill, name):
    def k(x, axis, output_type):
        if x.shape[axis] == 0:
            raise InvalidArgumentError(f"Reduction axis {axis} is empty in shape {_dims_str(x.shape)} [Op:{name}]")
        r = fn(x, axis=axis)
        # TensorFlow skips NaNs (an all-NaN slice gives index 0); NumPy picks the first NaN, so a NaN at the
        # result tells (cheaper to look there than at all of x, once x is large).
        if x.dtype.kind == "f" and np.isnan(x if x.size <= 4096 else
                                            np.take_along_axis(x, np.expand_dims(r, axis), axis)).any():
            r = fn(np.where(np.isnan(x), nan_fill, x), axis=axis)
        return r.astype(output_type._np)
    return k


def _arg_infer(x, axis, output_type):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, output_type
    return TensorShape._known(s._dims[:axis] + s._dims[axis + 1:]), output_type


_ARG_TYPES = REAL | _BOOL
_ARG_OUT = (_dt.int16, _dt.uint16, _dt.int32, _dt.int64)
ARGMAX = defop("ArgMax", _arg_kernel(np.argmax, -np.inf, "ArgMax"), _arg_infer, grad=_none_grad, allowed=_ARG_TYPES)
ARGMIN = defop("ArgMin", _arg_kernel(np.argmin, np.inf, "ArgMin"), _arg_infer, grad=_none_grad, allowed=_ARG_TYPES)


def _arg_fn(op, default):
    def f(input, axis=None, output_type=_dt.int64, name=None):  # noqa: A002
        x = to_tensor(input)
        output_type = _dt.as_dtype(output_type)
        if output_type not in _ARG_OUT:
            msg = (f"Value for attr 'output_type' of {_cpp_name(output_type)} is not in the list of allowed values: "
                   f"int16, uint16, int32, int64")
            if context.executing_eagerly():
                raise InvalidArgumentError(f"{msg} [Op:{op.name}]")
            raise TypeError(msg)
        if isinstance(axis, (list, tuple)):
            raise TypeError("axis must be int or Tensor with integer datatype")
        axis = 0 if axis is None else _static_int(axis, op.name)
        rank = x.shape.rank
        if rank is not None:
            if not -rank <= axis < rank or rank == 0:
                raise static_error(f"Expected dimension in the range [{-rank}, {rank}), but got {axis}", op.name)
            axis %= rank
        elif axis < 0:
            raise NotImplementedError(f"{op.name} with a negative axis needs a known rank.")
        return bind(op, (x,), {"axis": axis, "output_type": output_type}, name=name or default)
    f.__name__ = f.__qualname__ = op.name.lower()
    return f


argmax = _arg_fn(ARGMAX, "ArgMax")
argmin = _arg_fn(ARGMIN, "ArgMin")


def _static_int(v, op_name):
    """An int known when the op is built (a Python int, or an eager/constant integer tensor)."""
    if isinstance(v, Tensor):
        if not v.dtype.is_integer:
            raise TypeError(f"Expected an integer tensor, got {v.dtype.name}")
        sv = static_value(v)
        if sv is None:
            raise NotImplementedError("This axis must be known when the graph is built.")
        v = sv
    else:
        if v is None:
            raise ValueError("`axis` must be an integer, got None")
        v = to_numpy_value(v, _dt.int32)
    if np.ndim(v) != 0:
        raise static_error(f"`axis` must be a scalar, got a value of shape {list(np.shape(v))}", op_name)
    return int(v)


# ---------------------------------------------------------------- cumsum / cumprod
def _scan_kernel(fn, identity):
    @_quiet
    def k(x, axis, exclusive=False, reverse=False):
        if axis < 0:
            axis += x.ndim
        if reverse:
            x = np.flip(x, axis)
        if exclusive:  # shift by one along the axis: out[0] = identity, out[i] = scan(x)[i - 1]
            out = np.empty_like(x)
            head = (slice(None),) * axis
            out[head + (slice(0, 1),)] = identity
            fn(x[head + (slice(None, -1),)], axis=axis, dtype=x.dtype, out=out[head + (slice(1, None),)])
        else:
            out = fn(x, axis=axis, dtype=x.dtype)
        return np.flip(out, axis) if reverse else out
    return k


def _cumsum_grad(op, dy):
    a = op.attrs
    return (cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"]),)


def _cumprod_grad(op, dy):
    a = op.attrs
    x = conj(op.inputs[0])
    prod = cumprod(x, a["axis"], exclusive=a["exclusive"], reverse=a["reverse"])
    out = cumsum(multiply(prod, dy), a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return (divide_no_nan(out, x),)  # TensorFlow's formula: 0 (not the true value) where x == 0


CUMSUM = defop("Cumsum", _scan_kernel(np.cumsum, 0), same_shape, grad=_cumsum_grad, allowed=NUMERIC)
CUMPROD = defop("Cumprod", _scan_kernel(np.cumprod, 1), same_shape, grad=_cumprod_grad, allowed=NUMERIC)


def _scan_fn(op, doc):
    def f(x, axis=0, exclusive=False, reverse=False, name=None):
        x = to_tensor(x)
        axis = _static_int(axis, op.name)
        rank = x.shape.rank
        if rank is not None:
            if not -rank <= axis < rank:
                shown = axis + rank if axis < 0 else axis  # TensorFlow reports a negative axis shifted by rank
                msg = f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {shown}"
                # the kernel's check (TensorFlow's shape inference lets it through): InvalidArgumentError in graphs
                raise InvalidArgumentError(f"{msg} [Op:{op.name}]" if context.executing_eagerly() else msg)
            axis %= rank
        return bind(op, (x,), {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)},
                    name=name or op.name)
    f.__name__ = f.__qualname__ = doc
    return f


cumsum = _scan_fn(CUMSUM, "cumsum")
cumprod = _scan_fn(CUMPROD, "cumprod")


# ---------------------------------------------------------------- no-NaN products, norms, count_nonzero
@_quiet
def _mul_no_nan_kernel(x, y):
    r = np.multiply(x, y)
    return np.where(y == 0, np.zeros((), r.dtype), r)


MUL_NO_NAN = _binop("MulNoNan", _mul_no_nan_kernel,
                    lambda op, dy: _unbroadcast2(op, multiply_no_nan(dy, op.inputs[1]),
                                                 multiply_no_nan(op.inputs[0], dy)),
                    FLOATS | COMPLEX)
multiply_no_nan = _binary_fn(MUL_NO_NAN, "MulNoNan", "multiply_no_nan")


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 wherever x == 0 (floating and complex dtypes only, as TensorFlow's DivNoNan)."""
    x = to_tensor(x)
    one = to_tensor(1, dtype=x.dtype) if x.dtype in FLOATS | COMPLEX else to_tensor(1)
    return bind(DIV_NO_NAN, (one, x), name=name or "reciprocal_no_nan")


@_quiet
def _euclidean_norm_kernel(x, axis=None, keepdims=False):
    if x.dtype.kind == "c":
        return np.sqrt(np.sum(x * np.conj(x), axis=axis, keepdims=keepdims)).astype(x.dtype)
    if x.dtype.kind in "iu":
        # TensorFlow's integer norm squares and sums in the input's dtype (wrapping: int8 [100] squares to 16)
        # and truncates the square root.
        s = np.sum(np.square(x), axis=axis, dtype=x.dtype, keepdims=keepdims)
        return np.floor(np.sqrt(s.astype(np.float64))).astype(x.dtype)
    return np.sqrt(np.sum(np.square(x), axis=axis, dtype=x.dtype, keepdims=keepdims))


def _euclidean_norm_grad(op, dy):
    """TensorFlow's x / (norm / dy): NaN where the norm is 0."""
    x = op.inputs[0]
    return (divide_(x, divide_(_reduce_grad_shape(op, op.outputs[0]), _reduce_grad_shape(op, dy))),)


EUCLIDEAN_NORM = defop("EuclideanNorm", _euclidean_norm_kernel, reduce_infer, grad=_euclidean_norm_grad,
                       allowed=NUMERIC)
reduce_euclidean_norm = _reduce(EUCLIDEAN_NORM, "EuclideanNorm", "reduce_euclidean_norm")


def count_nonzero(input, axis=None, keepdims=None, dtype=_dt.int64, name=None):  # noqa: A002
    """The number of entries that are not zero (not the empty string), as an int64 (or `dtype`) tensor."""
    x = to_tensor(input)
    zero = to_tensor(b"" if x.dtype is _dt.string else np.zeros((), x.dtype._np), dtype=x.dtype)
    nz = cast(not_equal(x, zero), _dt.int64)
    return cast(reduce_sum(nz, axis=axis, keepdims=bool(keepdims)), dtype, name=name)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(||t||_2 over axes, clip_norm): t unchanged when its norm is at most clip_norm."""
    t = to_tensor(t)
    c = clip_norm if isinstance(clip_norm, Tensor) else to_tensor(clip_norm, dtype=t.dtype)
    l2sum = reduce_sum(multiply(t, t), axes, keepdims=True)
    pred = greater(l2sum, zeros_like_(l2sum))
    l2sum_safe = where_(pred, l2sum, _one_like(l2sum))  # no NaN gradient at a zero norm
    l2norm = where_(pred, sqrt(l2sum_safe), l2sum)
    return divide_(multiply(t, c), maximum(l2norm, c), name=name or "clip_by_norm")


# ---------------------------------------------------------------- lgamma / digamma without SciPy
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
            12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)


def _poles(x):
    return (x <= 0) & (np.floor(x) == x)


def _lgamma64(x):
    """log|Gamma(x)|: Lanczos (g = 7) for x >= 0.5, the reflection formula below; +inf at the poles."""
    x = np.asarray(x, np.float64)
    refl = x < 0.5
    z = np.where(refl, 1 - x, x) - 1
    a = np.full(z.shape, _LANCZOS[0])
    for i in range(1, 9):
        a = a + _LANCZOS[i] / (z + i)
    t = z + 7.5
    r = 0.5 * np.log(2 * np.pi) + (z + 0.5) * np.log(t) - t + np.log(a)
    r = np.where(refl, np.log(np.pi / np.abs(np.sin(np.pi * x))) - r, r)
    r = np.where((x == 1) | (x == 2), 0.0, r)  # exact zeros there, as log(1)
    r = np.where(np.isinf(x) | _poles(x), np.inf, r)
    return np.where(np.isnan(x), np.nan, r)


def _shifted(x, order):
    """Reflected to y >= 0.5, then shifted to y >= 10 by the recurrence; returns (y, what the shifts add)."""
    y = np.where(x < 0.5, 1 - x, x)
    acc = np.zeros_like(y)
    for _ in range(10):
        m = y < 10
        acc = acc - np.where(m, 1 / y if order == 0 else -1 / (y * y), 0)
        y = np.where(m, y + 1, y)
    return y, acc


def _digamma64(x):
    """psi(x): the asymptotic series at y >= 10 after shifting; reflection below 0.5; NaN at the poles."""
    x = np.asarray(x, np.float64)
    y, acc = _shifted(x, 0)
    y2 = 1 / (y * y)
    r = np.log(y) - 0.5 / y - y2 * (1 / 12 - y2 * (1 / 120 - y2 * (1 / 252 - y2 * (1 / 240 - y2 * (
        1 / 132 - y2 * (691 / 32760 - y2 / 12))))))
    r = r + acc
    r = np.where(x < 0.5, r - np.pi / np.tan(np.pi * x), r)
    r = np.where(x == np.inf, np.inf, r)
    return np.where(_poles(x) | (x == -np.inf), np.nan, r)


def _trigamma64(x):
    x = np.asarray(x, np.float64)
    y, acc = _shifted(x, 1)
    iy, y2 = 1 / y, 1 / (y * y)
    r = iy + 0.5 * y2 + iy * y2 * (1 / 6 - y2 * (1 / 30 - y2 * (1 / 42 - y2 * (1 / 30 - y2 * 5 / 66))))
    r = r + acc
    r = np.where(x < 0.5, np.pi ** 2 / np.sin(np.pi * x) ** 2 - r, r)
    r = np.where(x == np.inf, 0.0, r)
    return np.where(_poles(x), np.inf, np.where(x == -np.inf, np.nan, r))


LGAMMA = _unary("Lgamma", _quiet(lambda x: _lgamma64(x).astype(x.dtype, copy=False)),
                lambda op, dy: (multiply(dy, digamma(op.inputs[0])),), FLOATS)
DIGAMMA = _unary("Digamma", _quiet(lambda x: _digamma64(x).astype(x.dtype, copy=False)),
                 lambda op, dy: (multiply(dy, bind(TRIGAMMA, (op.inputs[0],))),), FLOATS)
# TensorFlow's Polygamma(1, x), used by digamma's gradient (no gradient of its own here).
TRIGAMMA = _unary("Trigamma", _quiet(lambda x: _trigamma64(x).astype(x.dtype, copy=False)), None, FLOATS)
lgamma = _unary_fn(LGAMMA, "Lgamma", "lgamma")
digamma = _unary_fn(DIGAMMA, "Digamma", "digamma")


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


# ---------------------------------------------------------------- scalar_mul, clip_by_global_norm
def scalar_mul(scalar, x, name=None):
    """scalar * x, the scalar converted to x's dtype; ValueError when `scalar` is not 0-D."""
    x = to_tensor(x)
    s = to_tensor(scalar, dtype=x.dtype)
    if s.shape.rank not in (None, 0):
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {s.shape}.")
    return multiply(s, x, name=name or "scalar_mul")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of t_list by clip_norm / max(global_norm, clip_norm).

    Returns (list_clipped, global_norm); None entries stay None. With an infinite or NaN global norm every
    clipped tensor is NaN, as in TensorFlow."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    from .linalg_ops import global_norm
    ts = [None if t is None else to_tensor(t) for t in t_list]
    norm = global_norm(ts) if use_norm is None else to_tensor(use_norm)
    c = to_tensor(clip_norm, dtype=norm.dtype)
    one = to_tensor(1.0, dtype=norm.dtype)
    scale = multiply(c, minimum(divide_(one, norm), divide_(one, c)))
    scale = add(scale, subtract(norm, norm))  # NaN when the norm is not finite
    out = [None if t is None else multiply(t, cast(scale, t.dtype), name=f"{name or 'clip_by_global_norm'}_{i}")
           for i, t in enumerate(ts)]
    return out, norm


# ---------------------------------------------------------------- bincount
def _bincount_kernel(arr, lims, *weights, dtype):
    a = np.asarray(arr).reshape(-1)
    if a.size and a.min() < 0:
        raise InvalidArgumentError("Input arr must be non-negative!")
    n = int(a.max()) + 1 if a.size else 0
    lo, hi = int(lims[0]), int(lims[1])
    if lo >= 0:
        n = max(n, lo)
    if hi >= 0:
        n = min(n, hi)
    keep = a < n
    w = None
    if weights:
        w = np.asarray(weights[0]).reshape(-1)
        if w.size != a.size:
            raise InvalidArgumentError(f"Expected weights to have {a.size} elements, got {w.size}")
        w = w[keep].astype(np.float64)
    return np.bincount(a[keep], weights=w, minlength=n)[:n].astype(dtype._np)


def _bincount_infer(arr, lims, *weights, dtype):
    if weights and arr.shape.is_fully_defined() and weights[0].shape.is_fully_defined() \
            and arr.shape.num_elements() != weights[0].shape.num_elements():
        raise ValueError(f"weights shape {weights[0].shape} does not match arr shape {arr.shape}")
    return TensorShape([None]), dtype


BINCOUNT = defop("DenseBincount", _bincount_kernel, _bincount_infer, allowed=(_dt.int32, _dt.int64))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=_dt.int32, name=None, axis=None,
             binary_output=False):
    """Counts of each value 0..n-1 in `arr` (all of it), n = max(arr) + 1 raised to `minlength` and cut to
    `maxlength` (values >= maxlength are dropped). With `weights` the sums of the weights, in their dtype."""
    if axis not in (None, 0):
        raise NotImplementedError("tf.math.bincount: only axis=None/0 (count over the whole array) is supported.")
    a = to_tensor(arr)
    if not a.dtype.is_integer:
        a = cast(a, _dt.int32)
    lims = []
    for v, what in ((minlength, "minlength"), (maxlength, "maxlength")):
        if v is None:
            lims.append(to_tensor(-1, dtype=_dt.int32))
        else:
            t = to_tensor(v)
            if t.shape.rank not in (None, 0) or not t.dtype.is_integer:
                raise ValueError(f"`{what}` must be a scalar integer, got {v!r}")
            lims.append(cast(t, _dt.int32) if t.dtype is not _dt.int32 else t)
    from .array_ops import stack
    inputs = [a, stack(lims)]
    if weights is not None:
        w = to_tensor(weights)
        inputs.append(w)
        dtype = w.dtype
    out = bind(BINCOUNT, inputs, {"dtype": _dt.as_dtype(dtype)}, name=name or "bincount")
    if binary_output:
        out = cast(greater(out, zeros_like_(out)), out.dtype)
    return out


# ---------------------------------------------------------------- in_top_k
def _in_top_k_kernel(predictions, targets, k):
    p = np.asarray(predictions)
    b, c = p.shape
    t = np.asarray(targets).astype(np.int64)
    ok = (t >= 0) & (t < c)
    tp = p[np.arange(b), np.where(ok, t, 0)] if b else np.zeros((0,), p.dtype)
    ok &= np.isfinite(tp)
    more = (p > tp[:, None]).sum(axis=1)
    return ok & (more < int(k))


def _in_top_k_infer(predictions, targets, k):
    p, t = predictions.shape, targets.shape
    if p.rank is not None and p.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.rank} for predictions")
    if t.rank is not None and t.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.rank} for targets")
    if k.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {k.shape.rank} for k")
    b = p[0] if p.rank else None
    if t.rank and t[0] is not None:
        if b is not None and b != t[0]:
            raise ValueError(f"Dimensions must be equal, but are {b} and {t[0]}")
        b = t[0]
    return TensorShape([b]), _dt.bool


IN_TOP_K = defop("InTopKV2", _in_top_k_kernel, _in_top_k_infer, allowed=FLOATS)


def in_top_k(targets, predictions, k, name=None):
    """Whether each target class is among the k largest predictions of its row (ties at the boundary count
    as in; an out-of-range target or a non-finite target prediction gives False)."""
    p = to_tensor(predictions)
    t = to_tensor(targets)
    if t.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"targets must be int32 or int64, got {t.dtype.name}")
    kt = to_tensor(k, dtype=t.dtype)
    return bind(IN_TOP_K, (p, t, kt), {}, name=name or "in_top_k")


# ---------------------------------------------------------------- confusion_matrix
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=_dt.int32, name=None):
    """The [n, n] matrix whose (i, j) entry counts (or sums the weights of) label i predicted as j."""
    from .array_ops import reshape, stack
    from .logging_ops import assert_less, assert_non_negative
    from .sort_segment_ops import scatter_nd
    dtype = _dt.as_dtype(dtype)
    labels, predictions = cast(to_tensor(labels), _dt.int64), cast(to_tensor(predictions), _dt.int64)
    labels, predictions = reshape(labels, [-1]), reshape(predictions, [-1])
    assert_non_negative(labels, message="`labels` contains negative values")
    assert_non_negative(predictions, message="`predictions` contains negative values")
    if num_classes is None:
        n = add(maximum(reduce_max(labels), reduce_max(predictions)), to_tensor(1, dtype=_dt.int64))
    else:
        n = cast(to_tensor(num_classes), _dt.int64)
        assert_less(labels, n, message="`labels` out of bound")
        assert_less(predictions, n, message="`predictions` out of bound")
    indices = stack([labels, predictions], axis=1)
    values = _one_like(cast(labels, dtype)) if weights is None else reshape(cast(to_tensor(weights), dtype), [-1])
    return scatter_nd(indices, values, cast(stack([n, n]), _dt.int64), name=name or "confusion_matrix")
