"""tf.experimental.numpy (`import rivulet.experimental.numpy as tnp`): NumPy's API on tensors, as TensorFlow 2.21's.

`tnp.ndarray` is `tf.Tensor`: every function returns a tensor, eagerly, inside tf.function and under a
GradientTape (array creation, math, reductions, shapes, indexing and linear algebra run as rivulet ops, so they
differentiate; a few NumPy-only helpers (gcd, lcm, polyval, vander ...) compute with NumPy and in a traced function
run as a `numpy_function`).

Dtypes follow TensorFlow's tnp: Python values default to int64 / float64 (float32 with
`experimental_enable_numpy_behavior(prefer_float32=True)`) and mixed operands are promoted by NumPy's rules; with
`dtype_conversion_mode="all"` or `"safe"`, by TensorFlow's lattice with weak types (ops/np_behavior.py).
`experimental_enable_numpy_behavior` is global, as TensorFlow's: it gives every tensor NumPy's operators,
indexing and methods.
"""
import builtins as _builtins
import math as _pymath

import numpy as _np

from ... import dtypes as _dt
from ...core.tensor import EagerTensor as _E, Tensor as _Tensor, convert_to_tensor as _ctt
from ...ops import np_behavior as _nb
from ...ops import array_ops as _ao, math_ops as _mo
from ... import math as _m, linalg as _la, array as _a
from . import random  # noqa: F401
from ._dtypes import (bool_, int_, float_, complex_, object_, string_, unicode_,  # noqa: F401
                      int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
                      complex64, complex128, inexact, iinfo, finfo, issubdtype)

ndarray = _Tensor
newaxis = None
pi = _np.pi
e = _np.e
inf = _np.inf

_strong = _nb.strong


def _new():
    return _nb.STATE["mode"] in ("all", "safe")


def _wrap(t, w):
    return _nb.weak(t) if w else t


def _as_dtype(dtype):
    """tnp's dtype argument: a tf/NumPy dtype, or Python's int/float/complex/bool (NumPy's meaning)."""
    if dtype is None:
        return None
    if isinstance(dtype, _dt.DType):
        return dtype
    if dtype is float and _new():
        return _dt.float32
    return _dt.as_dtype(_np.dtype(getattr(dtype, "as_numpy_dtype", dtype)))


def _default_float():
    return _dt.float32 if _new() else _nb.default_float()


# ------------------------------------------------------------------ conversion
def _convert(val, dtype=None):
    """(tensor, weak): `val` as tnp.asarray makes it."""
    if dtype is not None:
        dtype = _as_dtype(dtype)
        if isinstance(val, _Tensor) and val.dtype is dtype:
            return _strong(val), False
        return _nb.to_dtype(val, dtype), False
    if isinstance(val, _Tensor):
        return val, _nb.is_weak(val)
    if hasattr(val, "_as_tensor"):
        return val._as_tensor(), False
    if isinstance(val, (_np.ndarray, _np.generic)):
        if val.dtype.kind in "USO":
            return _ctt(val), False
        return _ctt(val), False
    if isinstance(val, (list, tuple)) and _nb._has_tensor(val):
        return _ctt(val), False
    if _new():
        r = _nb._python_dtype(val)
        if r is not None:
            return _nb.to_dtype(val, r[0]), r[1]
        return _ctt(val), False
    if isinstance(val, (bool, int, float, complex, list, tuple)):
        try:
            dt = _nb.legacy_default(val)
        except (ValueError, TypeError):
            return _ctt(val), False
        if dt.is_integer or dt.is_floating or dt.is_complex or dt.is_bool:
            return _nb.to_dtype(val, dt), False
    return _ctt(val), False


def asarray(a, dtype=None):
    t, w = _convert(a, dtype)
    return _wrap(t, w)


def array(val, dtype=None, copy=True, ndmin=0):
    t, w = _convert(val, dtype)
    if copy and isinstance(t, _E) and t is val:
        t = _ao.identity(t)
    if ndmin and t.shape.rank is not None and t.shape.rank < ndmin:
        t = _ao.reshape(t, [1] * (ndmin - t.shape.rank) + [-1 if d is None else d for d in t.shape.as_list()]) \
            if t.shape.rank else _ao.reshape(t, [1] * ndmin)
    return _wrap(t, w)


asanyarray = asarray
ascontiguousarray = asarray


def _t(x):
    return _convert(x)[0]


def _promote(*xs):
    """tnp's functions of several arrays promote by NumPy's rules in every mode (only the operators and tf.*
    APIs follow the lattice), and give strong results."""
    d = _nb.result_type_legacy(*xs)
    return [_nb.to_dtype(x, d) for x in xs], False


def _promote_lattice(*xs):
    """As TensorFlow's array functions (concatenate, stack, clip, kron, cross): the lattice's dtype in the "all" /
    "safe" modes (a strong result), NumPy's otherwise."""
    if not _new():
        return _promote(*xs)
    d = _nb.result_type_all(*xs)[0]
    return [_nb.to_dtype(x, d) for x in xs], False


def _keep_weak(fn):
    """A function of one array whose result is weak when that array is ("all"/"safe" modes)."""
    def f(a, *args, **kwargs):
        t, w = _convert(a)
        out = fn(t, *args, **kwargs)
        if not w:
            return out
        if isinstance(out, (list, tuple)):
            return type(out)(_nb.weak(o) for o in out)
        return _nb.weak(out)
    f.__name__ = fn.__name__
    f.__doc__ = fn.__doc__
    return f


# ------------------------------------------------------------------ creation
def _shape(shape):
    if isinstance(shape, _Tensor):
        return shape
    if isinstance(shape, (int, _np.integer)):
        return [int(shape)]
    return [int(s) for s in shape]


def _fill_dtype(dtype, default=None):
    d = _as_dtype(dtype)
    return d if d is not None else (default or _default_float())


def zeros(shape, dtype=float):
    return _ao.zeros(_shape(shape), dtype=_fill_dtype(dtype))


def ones(shape, dtype=float):
    return _ao.ones(_shape(shape), dtype=_fill_dtype(dtype))


def empty(shape, dtype=float):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    v, _ = _convert(fill_value, dtype)
    return _ao.broadcast_to(_strong(v), _shape(shape))


def _like(a, dtype, value):
    t, w = _convert(a)
    d = _as_dtype(dtype) or t.dtype
    return _wrap(_ao.fill(_ao.shape(t), _nb.to_dtype(value, d)), w and dtype is None)


def zeros_like(a, dtype=None):
    return _like(a, dtype, 0)


def ones_like(a, dtype=None):
    return _like(a, dtype, 1)


def empty_like(a, dtype=None):
    return _like(a, dtype, 0)


def full_like(a, fill_value, dtype=None):
    t, w = _convert(a)
    d = _as_dtype(dtype) or t.dtype
    return _wrap(_ao.broadcast_to(_nb.to_dtype(fill_value, d), _ao.shape(t)), w and dtype is None)


def eye(N, M=None, k=0, dtype=float):
    d = _fill_dtype(dtype)
    M = N if M is None else M
    if k == 0:
        return _ao.eye(N, M, dtype=d)
    return _a.constant(_np.eye(N, M, k, dtype=d._np))


def identity(n, dtype=float):
    return eye(n, dtype=dtype)


def arange(start, stop=None, step=1, dtype=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dt, w = _nb.result_type(start, stop, step)
        if not _new() and dt.is_floating and _builtins.all(isinstance(v, (int, float)) for v in (start, stop, step)):
            dt = _nb.default_float()
    else:
        dt, w = _as_dtype(dtype), False
    if step == 0:
        raise ValueError("step must be non-zero.")
    n = _builtins.max(0, int(_np.ceil((float(stop) - float(start)) / float(step)))) if not _builtins.any(
        isinstance(v, _Tensor) for v in (start, stop, step)) else None
    if n is not None:
        out = _a.constant(_np.arange(start, stop, step).astype(dt._np) if n else _np.zeros([0], dt._np))
    else:
        out = _mo.cast(_ao.range(_t(start), _t(stop), _t(step)), dt)
    return _wrap(out, w)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    d = _fill_dtype(dtype)
    s, e_ = _mo.cast(_t(start), _dt.float64), _mo.cast(_t(stop), _dt.float64)
    if endpoint:
        out = _ao.linspace(s, e_, num, axis=axis)
        step = (e_ - s) / _builtins.max(num - 1, 1)
    else:
        step = (e_ - s) / num
        out = _ao.linspace(s, e_ - step, num, axis=axis) if num > 0 else _ao.zeros([0], _dt.float64)
    out = _mo.cast(out, d)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    d = _fill_dtype(dtype)
    y = linspace(start, stop, num, endpoint=endpoint, dtype=_dt.float64, axis=axis)
    return _mo.cast(_mo.pow(_a.constant(_np.float64(base)), y), d)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    d = _as_dtype(dtype) or _dt.float64
    out = _np.geomspace(float(start), float(stop), num, endpoint=endpoint)
    return _moveaxis_out(_a.constant(out.astype(d._np)), axis)


def _moveaxis_out(t, axis):
    return t if axis == 0 else moveaxis(t, 0, axis)


@_keep_weak
def copy(a):
    return _ao.identity(_t(a))


# ------------------------------------------------------------------ elementwise math
def _floatify(t):
    if t.dtype.is_integer or t.dtype.is_bool:
        return _mo.cast(t, _dt.float32 if (_new() and t.dtype.size <= 4) else _dt.float64)
    return t


def _unary(fn, to_float=False, name=None):
    def f(x):
        t, w = _convert(x)
        t = _strong(t)
        if to_float:
            t = _floatify(t)
        return _wrap(fn(t), w)
    f.__name__ = name or fn.__name__
    return f


def _binary(fn, name, to_float=False):
    def f(x1, x2):
        (a, b), w = _promote(x1, x2)
        if to_float:
            a, b = _floatify(a), _floatify(b)
        return _wrap(fn(a, b), w)
    f.__name__ = name
    return f


exp = _unary(_mo.exp, True, "exp")
log = _unary(_m.log, True, "log")
log2 = _unary(lambda t: _div_log(t, 2), True, "log2")
log10 = _unary(lambda t: _div_log(t, 10), True, "log10")
log1p = _unary(_m.log1p, True, "log1p")
expm1 = _unary(_m.expm1, True, "expm1")
exp2 = _unary(lambda t: _mo.pow(_nb.to_dtype(2, t.dtype), t), True, "exp2")
sqrt = _unary(_m.sqrt, True, "sqrt")
cbrt = _unary(lambda t: _m.sign(t) * _mo.pow(_m.abs(t), _nb.to_dtype(1 / 3, t.dtype)), True, "cbrt")
square = _unary(_m.square, False, "square")
sin = _unary(_m.sin, True, "sin")
cos = _unary(_m.cos, True, "cos")
tan = _unary(_m.tan, True, "tan")
sinh = _unary(_m.sinh, True, "sinh")
cosh = _unary(_m.cosh, True, "cosh")
tanh = _unary(_m.tanh, True, "tanh")
arcsin = _unary(_m.asin, True, "arcsin")
arccos = _unary(_m.acos, True, "arccos")
arctan = _unary(_m.atan, True, "arctan")
arcsinh = _unary(_m.asinh, True, "arcsinh")
arccosh = _unary(_m.acosh, True, "arccosh")
arctanh = _unary(_m.atanh, True, "arctanh")
deg2rad = _unary(lambda t: t * _nb.to_dtype(_np.pi / 180, t.dtype), True, "deg2rad")
rad2deg = _unary(lambda t: t * _nb.to_dtype(180 / _np.pi, t.dtype), True, "rad2deg")
abs = _unary(_m.abs, False, "abs")  # noqa: A001
absolute = abs
fabs = _unary(_m.abs, False, "fabs")
negative = _unary(_m.negative, False, "negative")
positive = _unary(lambda t: t, False, "positive")
sign = _unary(_m.sign, False, "sign")
floor = _unary(_m.floor, True, "floor")
ceil = _unary(_m.ceil, True, "ceil")
fix = _unary(lambda t: _m.sign(t) * _m.floor(_m.abs(t)) if t.dtype.is_floating else t, True, "fix")
reciprocal = _unary(_m.reciprocal, False, "reciprocal")
conj = conjugate = _unary(_m.conj, False, "conj")
real = _unary(_m.real, False, "real")
imag = _unary(lambda t: _m.imag(t) if t.dtype.is_complex else _ao.zeros_like(t), False, "imag")
angle = _unary(lambda t: _m.angle(t) if t.dtype.is_complex else _mo.cast(t < 0, _dt.float32) * _np.float32(_np.pi),
               False, "angle")
signbit = _unary(lambda t: t < 0 if not t.dtype.is_floating else _ao.reshape(_np_signbit(t), _ao.shape(t)),
                 False, "signbit")
isnan = _unary(lambda t: _m.is_nan(t) if t.dtype.is_floating else _ao.zeros_like(t, _dt.bool), False, "isnan")
isinf = _unary(lambda t: _m.is_inf(t) if t.dtype.is_floating else False, False, "isinf")  # False: as TF
isfinite = _unary(lambda t: _m.is_finite(t) if t.dtype.is_floating else _ao.ones_like(t, _dt.bool), False,
                  "isfinite")
isposinf = _unary(lambda t: _m.logical_and(_m.is_inf(t), t > 0) if t.dtype.is_floating else False, False,
                  "isposinf")
isneginf = _unary(lambda t: _m.logical_and(_m.is_inf(t), t < 0) if t.dtype.is_floating else False, False,
                  "isneginf")
logical_not = _unary(lambda t: _m.logical_not(_mo.cast(t, _dt.bool)), False, "logical_not")
bitwise_not = _unary(lambda t: _m.logical_not(t) if t.dtype.is_bool else _invert(t), False, "bitwise_not")
sinc = _unary(lambda t: _sinc(t), True, "sinc")


def _div_log(t, base):
    (t, b), _ = _promote(t, _np.float64(_pymath.log(base)))
    return _m.log(t) / b


def _invert(t):
    from ...ops import bitwise_ops
    return bitwise_ops.invert(t)


def _sinc(t):
    pix = t * _nb.to_dtype(_np.pi, t.dtype)
    safe = _ao.where(_m.equal(t, _nb.to_dtype(0, t.dtype)), _ao.ones_like(pix), pix)
    return _ao.where(_m.equal(t, _nb.to_dtype(0, t.dtype)), _ao.ones_like(pix), _m.sin(safe) / safe)


def _np_signbit(t):
    return _np_fn(_np.signbit, _dt.bool)(t)


def around(a, decimals=0):
    t, w = _convert(a)
    t = _strong(t)
    if not t.dtype.is_floating:
        return _wrap(t, w)
    f = _nb.to_dtype(10.0 ** decimals, t.dtype)
    return _wrap(_m.round(t * f) / f, w)


round = around  # noqa: A001

add = _binary(_mo.add, "add")
subtract = _binary(_mo.subtract, "subtract")
multiply = _binary(_mo.multiply, "multiply")
maximum = _binary(_mo.maximum, "maximum")
minimum = _binary(_m.minimum, "minimum")
floor_divide = _binary(_mo.floordiv, "floor_divide")
mod = remainder = _binary(_mo.floormod, "mod")
arctan2 = _binary(_m.atan2, "arctan2")
hypot = _binary(lambda a, b: _m.sqrt(a * a + b * b), "hypot", True)
logaddexp = _binary(lambda a, b: _m.maximum(a, b) + _m.log1p(_m.exp(-_m.abs(a - b))), "logaddexp", True)
logaddexp2 = _binary(lambda a, b: _m.maximum(a, b) + _m.log1p(_mo.pow(_nb.to_dtype(2, a.dtype), -_m.abs(a - b)))
                     / _pymath.log(2), "logaddexp2", True)
equal = _binary(_m.equal, "equal")
not_equal = _binary(_m.not_equal, "not_equal")
less = _binary(_m.less, "less")
less_equal = _binary(_m.less_equal, "less_equal")
greater = _binary(_m.greater, "greater")
greater_equal = _binary(_m.greater_equal, "greater_equal")
logical_and = _binary(lambda a, b: _m.logical_and(_mo.cast(a, _dt.bool), _mo.cast(b, _dt.bool)), "logical_and")
logical_or = _binary(lambda a, b: _m.logical_or(_mo.cast(a, _dt.bool), _mo.cast(b, _dt.bool)), "logical_or")
logical_xor = _binary(lambda a, b: _m.logical_xor(_mo.cast(a, _dt.bool), _mo.cast(b, _dt.bool)), "logical_xor")
heaviside = _binary(lambda a, b: _ao.where(a < 0, _ao.zeros_like(a), _ao.where(a > 0, _ao.ones_like(a), b)),
                    "heaviside", True)
nextafter = _binary(_m.nextafter, "nextafter", True)


def _bitwise(name):
    def fn(a, b):
        if a.dtype.is_bool:
            return getattr(_m, "logical_" + name)(a, b)
        from ...ops import bitwise_ops
        return getattr(bitwise_ops, "bitwise_" + name)(a, b)
    return _binary(fn, "bitwise_" + name)


bitwise_and, bitwise_or, bitwise_xor = _bitwise("and"), _bitwise("or"), _bitwise("xor")


def power(x1, x2):
    (a, b), w = _promote(x1, x2)
    if a.dtype.is_bool:
        a, b = _mo.cast(a, _dt.int64), _mo.cast(b, _dt.int64)
    return _wrap(_mo.pow(a, b), w)


float_power = power


def true_divide(x1, x2):
    (a, b), w = _promote(x1, x2)
    if a.dtype.is_bool:
        a, b = _mo.cast(a, _dt.float64), _mo.cast(b, _dt.float64)
    return _wrap(_mo.truediv(a, b), w)


divide = true_divide


def divmod(x1, x2):  # noqa: A001
    return floor_divide(x1, x2), mod(x1, x2)


def clip(a, a_min, a_max):
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    (t, lo, hi), w = _promote_lattice(a, a_min, a_max)
    return _wrap(_m.minimum(_m.maximum(t, lo), hi), w)


def _int_only(fn):
    def f(x1, x2):
        if not (_nb.result_type(x1, x2)[0].is_integer):
            raise ValueError("Arguments to gcd must be integers.")
        return _np_binary(fn)(x1, x2)
    return f


gcd = _int_only(_np.gcd)
lcm = _int_only(_np.lcm)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    (x, y), _ = _promote(a, b)
    x, y = _floatify(x), _floatify(y)
    tol = _nb.to_dtype(atol, x.dtype) + _nb.to_dtype(rtol, x.dtype) * _m.abs(y)
    out = _m.logical_or(_m.equal(x, y), _m.less_equal(_m.abs(x - y), tol))
    if equal_nan:
        out = _m.logical_or(out, _m.logical_and(_m.is_nan(x), _m.is_nan(y)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2):
    t1, t2 = _t(a1), _t(a2)
    if t1.shape.is_fully_defined() and t2.shape.is_fully_defined() and t1.shape != t2.shape:
        return _a.constant(False)
    (x, y), _ = _promote(t1, t2)
    return _m.reduce_all(_m.equal(x, y))


# ------------------------------------------------------------------ reductions
def _axis(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    return axis if isinstance(axis, _Tensor) else int(axis)


def _sum_dtype(t, dtype):
    if dtype is not None:
        return _as_dtype(dtype)
    if t.dtype.is_bool or (t.dtype.is_integer and t.dtype.size < 8):
        if _new():
            return _dt.int32 if t.dtype.size < 4 or t.dtype.is_bool else t.dtype
        return _dt.uint64 if t.dtype.is_unsigned else _dt.int64
    return t.dtype


def _reduction(tf_fn, promote_int, name):
    def f(a, axis=None, dtype=None, keepdims=False, **_):
        t, w = _convert(a)
        t = _strong(t)
        d = _sum_dtype(t, dtype) if promote_int else (_as_dtype(dtype) or t.dtype)
        if d is not t.dtype:
            t = _mo.cast(t, d)
        return _wrap(tf_fn(t, axis=_axis(axis), keepdims=bool(keepdims)), w and dtype is None)
    f.__name__ = name
    return f


sum = _reduction(_mo.reduce_sum, True, "sum")  # noqa: A001
prod = _reduction(_m.reduce_prod, True, "prod")


def _bool_red(fn, name):
    def f(a, axis=None, keepdims=False):
        t = _strong(_t(a))
        return fn(_mo.cast(t, _dt.bool) if not t.dtype.is_bool else t, axis=_axis(axis), keepdims=bool(keepdims))
    f.__name__ = name
    return f


all = _bool_red(_m.reduce_all, "all")  # noqa: A001
any = _bool_red(_m.reduce_any, "any")  # noqa: A001


def _minmax(tf_fn, name):
    def f(a, axis=None, keepdims=False):
        t, w = _convert(a)
        t = _strong(t)
        if t.dtype.is_bool:
            return tf_fn(_mo.cast(t, _dt.int8), axis=_axis(axis), keepdims=bool(keepdims)) > 0
        return _wrap(tf_fn(t, axis=_axis(axis), keepdims=bool(keepdims)), w)
    f.__name__ = name
    return f


amax = max = _minmax(_m.reduce_max, "max")  # noqa: A001
amin = min = _minmax(_m.reduce_min, "min")  # noqa: A001


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    t, w = _convert(a)
    t = _strong(t)
    d = _as_dtype(dtype) or (t.dtype if (t.dtype.is_floating or t.dtype.is_complex) else
                             (_dt.float32 if _new() and t.dtype.size <= 4 else _dt.float64))
    return _wrap(_mo.reduce_mean(_mo.cast(t, d), axis=_axis(axis), keepdims=bool(keepdims)), w and dtype is None)


@_keep_weak
def average(a, axis=None, weights=None, returned=False):
    if weights is None:
        avg = mean(a, axis=axis)
        if returned:
            t = _t(a)
            n = _ao.size(t) if axis is None else _ao.shape(t)[axis]
            return avg, _mo.cast(_ao.ones_like(avg), avg.dtype) * _mo.cast(n, avg.dtype)
        return avg
    (t, wt), _ = _promote(a, weights)
    t, wt = _floatify(t), _floatify(wt)
    if t.shape.rank != wt.shape.rank and axis is not None:
        shape = [1] * t.shape.rank
        shape[axis] = -1
        wt = _ao.reshape(wt, shape)
    wsum = _mo.reduce_sum(wt * _ao.ones_like(t), axis=_axis(axis))
    avg = _mo.reduce_sum(t * wt, axis=_axis(axis)) / wsum
    return (avg, wsum) if returned else avg


@_keep_weak
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    t = _floatify(_strong(_t(a)))
    if dtype is not None:
        t = _mo.cast(t, _as_dtype(dtype))
    m = _mo.reduce_mean(t, axis=_axis(axis), keepdims=True)
    d = t - m
    sq = _m.real(d * _m.conj(d)) if t.dtype.is_complex else d * d
    s = _mo.reduce_sum(sq, axis=_axis(axis), keepdims=bool(keepdims))
    n = _mo.cast(_ao.size(t), s.dtype) / _mo.cast(_ao.size(m), s.dtype)
    return s / (n - _nb.to_dtype(ddof, s.dtype))


@_keep_weak
def std(a, axis=None, keepdims=None):
    return _m.sqrt(var(a, axis=axis, keepdims=bool(keepdims)))


def ptp(a, axis=None, keepdims=None):
    return amax(a, axis, bool(keepdims)) - amin(a, axis, bool(keepdims))


def _nan_red(fn, fill):
    def f(a, axis=None, dtype=None, keepdims=False):
        t = _t(a)
        if t.dtype.is_floating or t.dtype.is_complex:
            t = _ao.where(_m.is_nan(_m.real(t) if t.dtype.is_complex else t), _ao.fill(_ao.shape(t),
                          _nb.to_dtype(fill, t.dtype)), t)
        return fn(t, axis=axis, dtype=dtype, keepdims=keepdims)
    return f


nansum = _nan_red(sum, 0)
nanprod = _nan_red(prod, 1)


@_keep_weak
def nanmean(a, axis=None, dtype=None, keepdims=None):
    t = _floatify(_t(a))
    ok = _m.logical_not(_m.is_nan(t))
    s = nansum(t, axis=axis, dtype=dtype, keepdims=bool(keepdims))
    n = sum(ok, axis=axis, keepdims=bool(keepdims))
    return s / _mo.cast(n, s.dtype)


def _arg(fn):
    def f(a, axis=None):
        t = _strong(_t(a))
        if t.dtype.is_bool:
            t = _mo.cast(t, _dt.int8)
        if axis is None:
            t = _ao.reshape(t, [-1])
            axis = 0
        return fn(t, axis=int(axis), output_type=_dt.int64)
    return f


argmax = _arg(_m.argmax)
argmin = _arg(_m.argmin)


def _cum(tf_fn):
    def f(a, axis=None, dtype=None):
        t = _strong(_t(a))
        d = _sum_dtype(t, dtype) if not t.dtype.is_bool else t.dtype  # bools: the op's error, as TensorFlow
        if d is not t.dtype:
            t = _mo.cast(t, d)
        if axis is None:
            t = _ao.reshape(t, [-1])
            axis = 0
        return tf_fn(t, axis=int(axis))
    return f


cumsum = _keep_weak(_cum(_m.cumsum))
cumprod = _keep_weak(_cum(_m.cumprod))


def count_nonzero(a, axis=None):
    return _m.count_nonzero(_t(a), axis=_axis(axis), dtype=_dt.int64)


# ------------------------------------------------------------------ shapes
def shape(a):
    return _t(a).shape


def ndim(a):
    return _t(a).shape.rank


def size(x, axis=None):
    t = _t(x)
    if axis is not None:
        return t.shape[axis]
    return _ao.size(t, out_type=_dt.int64)


def isscalar(num):
    return ndim(num) == 0 if isinstance(num, (_Tensor, _np.ndarray)) else _np.isscalar(num)


def reshape(a, newshape, order="C"):
    if order != "C":
        raise ValueError(f"Unsupported order argument {order}")
    t, w = _convert(a)
    if isinstance(newshape, (int, _np.integer)):
        newshape = [int(newshape)]
    return _wrap(_ao.reshape(_strong(t), newshape), w)


def ravel(a):
    return reshape(a, [-1])


flatten = ravel


def transpose(a, axes=None):
    t, w = _convert(a)
    return _wrap(_ao.transpose(_strong(t), axes), w)


def swapaxes(a, axis1, axis2):
    t, w = _convert(a)
    r = t.shape.rank
    perm = list(range(r))
    a1, a2 = axis1 % r, axis2 % r
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _wrap(_ao.transpose(_strong(t), perm), w)


def moveaxis(a, source, destination):
    t, w = _convert(a)
    r = t.shape.rank
    src = [s % r for s in ([source] if isinstance(source, int) else source)]
    dst = [d % r for d in ([destination] if isinstance(destination, int) else destination)]
    order = [n for n in range(r) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _wrap(_ao.transpose(_strong(t), order), w)


def expand_dims(a, axis):
    t, w = _convert(a)
    return _wrap(_ao.expand_dims(_strong(t), axis), w)


def squeeze(a, axis=None):
    t, w = _convert(a)
    return _wrap(_ao.squeeze(_strong(t), axis), w)


def broadcast_to(array, shape):  # noqa: A002
    t, _ = _convert(array)
    return _ao.broadcast_to(_strong(t), _shape(shape))


def broadcast_arrays(*args, **kwargs):
    ts = [_t(a) for a in args]
    s = _np.broadcast_shapes(*[tuple(t.shape.as_list()) for t in ts])
    return [_ao.broadcast_to(t, list(s)) for t in ts]


def atleast_1d(*arys):
    out = [reshape(a, [-1]) if _t(a).shape.rank == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in arys:
        t = asarray(a)
        r = t.shape.rank
        out.append(reshape(t, [1, 1]) if r == 0 else expand_dims(t, 0) if r == 1 else t)
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    out = []
    for a in arys:
        t = asarray(a)
        r = t.shape.rank
        out.append(reshape(t, [1, 1, 1]) if r == 0 else reshape(t, [1, -1, 1]) if r == 1 else
                   expand_dims(t, -1) if r == 2 else t)
    return out[0] if len(out) == 1 else out


def _same(arrays):
    ts, _ = _promote_lattice(*arrays)
    return ts


def concatenate(arys, axis=0):
    ts = _same(arys)
    if axis is None:
        return _ao.concat([_ao.reshape(t, [-1]) for t in ts], 0)
    return _ao.concat(ts, axis)


def stack(arrays, axis=0):
    return _ao.stack(_same(arrays), axis)


def hstack(tup):
    ts = [atleast_1d(t) for t in tup]
    return concatenate(ts, 0 if ts[0].shape.rank == 1 else 1)


def vstack(tup):
    return concatenate([atleast_2d(t) for t in tup], 0)


def dstack(tup):
    return concatenate([atleast_3d(t) for t in tup], 2)


def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def split(ary, indices_or_sections, axis=0):
    t = _t(ary)
    if isinstance(indices_or_sections, int):
        return _ao.split(t, indices_or_sections, axis)
    n = t.shape[axis]
    bounds = [0] + list(indices_or_sections) + [n]
    return _ao.split(t, [b - a for a, b in zip(bounds[:-1], bounds[1:])], axis)


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0 if _t(ary).shape.rank == 1 else 1)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 2)


def tile(a, reps):
    t = _t(a)
    reps = [reps] if isinstance(reps, int) else list(reps)
    r = t.shape.rank
    if len(reps) > r:
        t = _ao.reshape(t, [1] * (len(reps) - r) + t.shape.as_list())
    reps = [1] * (t.shape.rank - len(reps)) + reps
    return _ao.tile(t, reps)


def repeat(a, repeats, axis=None):
    t, w = _convert(a)
    t = _strong(t)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    return _wrap(_ao.repeat(t, repeats, axis=axis), w)


def flip(m, axis=None):
    t, w = _convert(m)
    axes = list(range(t.shape.rank)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    return _wrap(_ao.reverse(_strong(t), axes), w)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    k %= 4
    t = asarray(m)
    a0, a1 = axes
    if k == 0:
        return t
    if k == 2:
        return flip(flip(t, a0), a1)
    perm = list(range(t.shape.rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return transpose(flip(t, a1), perm)
    return flip(transpose(t, perm), a1)


def roll(a, shift, axis=None):
    t = _t(a)
    if axis is None:
        return _ao.reshape(_ao.roll(_ao.reshape(t, [-1]), shift, 0), _ao.shape(t))
    return _ao.roll(t, shift, axis)


def pad(array, pad_width, mode, constant_values=0):  # noqa: A002
    t = _t(array)
    r = t.shape.rank
    pw = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64).reshape(-1, 2) if _np.ndim(pad_width) else
                          _np.asarray([[pad_width, pad_width]]), (r, 2))
    mode = mode.upper()
    if mode == "CONSTANT":
        return _ao.pad(t, pw.tolist(), constant_values=_nb.to_dtype(constant_values, t.dtype))
    if mode in ("REFLECT", "SYMMETRIC"):
        return _ao.pad(t, pw.tolist(), mode=mode)
    raise ValueError(f"Unsupported padding mode: {mode}")


def where(condition, x=None, y=None):
    c = _t(condition)
    c = c if c.dtype.is_bool else _mo.cast(c, _dt.bool)
    if x is None and y is None:
        return nonzero(c)
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    (a, b), w = _promote(x, y)
    return _wrap(_ao.where(c, a, b), w)


def select(condlist, choicelist, default=0):
    out = asarray(default)
    for c, ch in reversed(list(zip(condlist, choicelist))):
        out = where(c, ch, out)
    return out


def nonzero(a):
    t = _t(a)
    idx = _ao.where(_mo.cast(t, _dt.bool) if not t.dtype.is_bool else t)
    return tuple(_ao.unstack(_ao.transpose(idx))) if t.shape.rank else (idx,)


def compress(condition, a, axis=None):
    t = _t(a)
    c = _mo.cast(_t(condition), _dt.bool)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    n = t.shape[axis]
    if c.shape[0] is not None and n is not None and c.shape[0] < n:
        c = _ao.concat([c, _ao.zeros([n - c.shape[0]], _dt.bool)], 0)
    return _ao.boolean_mask(t, c, axis=axis)


def take(a, indices, axis=None, out=None, mode="clip"):
    t = _t(a)
    i = _t(indices)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    n = t.shape[axis]
    if mode == "clip" and n is not None:
        i = _m.minimum(_m.maximum(i, _nb.to_dtype(0, i.dtype)), _nb.to_dtype(n - 1, i.dtype))
    elif mode == "wrap" and n is not None:
        i = _mo.floormod(i, _nb.to_dtype(n, i.dtype))
    return _ao.gather(t, i, axis=axis)


def take_along_axis(arr, indices, axis):
    t, i = _t(arr), _t(indices)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    r = t.shape.rank
    axis %= r
    shape = t.shape.as_list()
    i = _mo.cast(i, _dt.int64)
    grids = _np.meshgrid(*[_np.arange(d) for d in i.shape.as_list()], indexing="ij")
    idx = [_a.constant(g.astype(_np.int64)) for g in grids]
    idx[axis] = _ao.where(i < 0, i + shape[axis], i)
    return _ao.gather_nd(t, _ao.stack(idx, -1))


@_keep_weak
def sort(a, axis=-1, kind="quicksort", order=None):
    t = _t(a)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    return _a.sort(t, axis=axis)


def argsort(a, axis=-1, kind="quicksort", order=None):
    t = _t(a)
    if axis is None:
        t, axis = _ao.reshape(t, [-1]), 0
    return _mo.cast(_a.argsort(t, axis=axis, stable=True), _dt.int32 if _new() else _dt.int64)


@_keep_weak
def diff(a, n=1, axis=-1):
    t = _t(a)
    for _ in range(n):
        r = t.shape.rank
        ax = axis % r
        hi = [slice(None)] * r
        lo = [slice(None)] * r
        hi[ax], lo[ax] = slice(1, None), slice(None, -1)
        t = (_m.not_equal(t[tuple(hi)], t[tuple(lo)]) if t.dtype.is_bool else
             _mo.subtract(t[tuple(hi)], t[tuple(lo)]))
    return t


def meshgrid(*xi, **kwargs):
    ts = _same(xi)
    return _ao.meshgrid(*ts, indexing=kwargs.get("indexing", "xy"))


@_keep_weak
def ix_(*args):
    n = len(args)
    out = []
    for k, a in enumerate(args):
        t = _t(a)
        if t.dtype.is_bool:
            t = _ao.reshape(_ao.where(t), [-1])
        shp = [1] * n
        shp[k] = -1
        out.append(_ao.reshape(t, shp))
    return out


# ------------------------------------------------------------------ linear algebra
def matmul(x1, x2):
    (a, b), w = _nb.promote(x1, x2) if _new() else _promote(x1, x2)  # the lattice in "all"/"safe", as TF
    if a.shape.rank == 0 or b.shape.rank == 0:
        raise ValueError("matmul: Input operand 0 does not have enough dimensions")
    if a.shape.rank == 1 and b.shape.rank == 1:
        return _wrap(_mo.reduce_sum(a * b), w)
    if a.shape.rank == 1:
        return _wrap(_ao.squeeze(_mo.matmul(_ao.expand_dims(a, 0), b), -2), w)
    if b.shape.rank == 1:
        return _wrap(_ao.squeeze(_mo.matmul(a, _ao.expand_dims(b, -1)), -1), w)
    return _wrap(_mo.matmul(a, b), w)


def dot(a, b):
    (x, y), w = _promote(a, b)
    if x.shape.rank == 0 or y.shape.rank == 0:
        return _wrap(x * y, w)
    if y.shape.rank <= 2:
        return matmul(x, y)
    return _wrap(_la.tensordot(x, y, [[x.shape.rank - 1], [y.shape.rank - 2]]), w)


def vdot(a, b):
    (x, y), _ = _promote(a, b)
    x = _ao.reshape(x, [-1])
    y = _ao.reshape(y, [-1])
    if x.dtype.is_complex:
        x = _m.conj(x)
    return _mo.reduce_sum(x * y)


def inner(a, b):
    (x, y), w = _promote(a, b)
    if x.shape.rank == 0 or y.shape.rank == 0:
        return _wrap(x * y, w)
    return _wrap(_la.tensordot(x, y, [[-1], [-1]]), w)


def outer(a, b):
    (x, y), w = _promote(a, b)
    return _wrap(_ao.reshape(x, [-1, 1]) * _ao.reshape(y, [1, -1]), w)


def tensordot(a, b, axes=2):
    (x, y), w = _promote(a, b)
    return _wrap(_la.tensordot(x, y, axes), w)


def einsum(subscripts, *operands, **kwargs):
    ts, w = _promote(*operands)
    return _wrap(_la.einsum(subscripts, *ts), w)


def kron(a, b):
    (x, y), w = _promote_lattice(a, b)
    x, y = atleast_1d(x), atleast_1d(y)
    r = _builtins.max(x.shape.rank, y.shape.rank)
    x = _ao.reshape(x, [1] * (r - x.shape.rank) + x.shape.as_list())
    y = _ao.reshape(y, [1] * (r - y.shape.rank) + y.shape.as_list())
    xs, ys = x.shape.as_list(), y.shape.as_list()
    xe = _ao.reshape(x, [d for s in xs for d in (s, 1)])
    ye = _ao.reshape(y, [d for s in ys for d in (1, s)])
    return _wrap(_ao.reshape(xe * ye, [p * q for p, q in zip(xs, ys)]), w)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    (x, y), w = _promote_lattice(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = moveaxis(x, axisa, -1), moveaxis(y, axisb, -1)
    if x.shape[-1] == 2:
        x = _ao.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, 1]])
    if y.shape[-1] == 2:
        y = _ao.pad(y, [[0, 0]] * (y.shape.rank - 1) + [[0, 1]])
    s = _np.broadcast_shapes(tuple(x.shape.as_list()), tuple(y.shape.as_list()))
    out = _la.cross(_ao.broadcast_to(x, list(s)), _ao.broadcast_to(y, list(s)))
    return _wrap(moveaxis(out, -1, axisc), w)


def diag(v, k=0):
    t, w = _convert(v)
    t = _strong(t)
    if t.shape.rank == 1:
        return _wrap(_la.diag(t, k=k), w)
    if t.shape.rank == 2:
        return _wrap(diagonal(t, offset=k), w)
    raise ValueError("Input to diag must be 1-d or 2-d.")


def diagflat(v, k=0):
    return diag(ravel(v), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    t = _t(a)
    t = moveaxis(t, (axis1, axis2), (-2, -1))
    n, m = t.shape[-2], t.shape[-1]
    if n is not None and m is not None and (offset >= m or -offset >= n):
        return _ao.zeros(t.shape.as_list()[:-2] + [0], t.dtype)
    return _la.diag_part(t, k=offset)


@_keep_weak
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    d = diagonal(a, offset, axis1, axis2)
    return sum(d, axis=-1, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    d = _as_dtype(dtype) or _default_float()
    return _a.constant(_np.tri(N, M, k).astype(d._np))


def tril(m, k=0):
    t = _t(m)
    mask = _np.tri(t.shape[-2], t.shape[-1], k, dtype=bool)
    return _ao.where(_a.constant(mask), t, _ao.zeros_like(t))


def triu(m, k=0):
    t = _t(m)
    mask = ~_np.tri(t.shape[-2], t.shape[-1], k - 1, dtype=bool)
    return _ao.where(_a.constant(mask), t, _ao.zeros_like(t))


def diag_indices(n, ndim=2):  # noqa: A002
    i = _a.constant(_np.arange(n, dtype=_np.int32))
    return (i,) * ndim


@_keep_weak
def vander(x, N=None, increasing=False):
    t = _t(x)
    n = t.shape[0] if N is None else N
    p = _np.arange(n)
    if not increasing:
        p = p[::-1]
    return _mo.pow(_ao.expand_dims(t, -1), _a.constant(p.astype(t.dtype._np)))


def polyval(p, x):
    (pt, xt), w = _promote(p, x)
    out = _ao.zeros_like(xt)
    for i in range(pt.shape[0]):
        out = out * xt + pt[i]
    return _wrap(out, w)


# ------------------------------------------------------------------ misc
def result_type(*arrays_and_dtypes):
    """The dtype (a tf.DType, as TensorFlow's tnp gives) of the values and dtypes together."""
    vals = [(_E(_np.zeros([], _as_dtype(a)._np)) if isinstance(a, (type, _dt.DType, _np.dtype, str)) else a)
            for a in arrays_and_dtypes]
    return _nb.result_type(*vals)[0]


def promote_types(type1, type2):
    return _np.promote_types(_as_dtype(type1)._np, _as_dtype(type2)._np)


def iscomplexobj(x):
    return _t(x).dtype.is_complex


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    t = _t(x)
    return _m.not_equal(_m.imag(t), 0) if t.dtype.is_complex else _ao.zeros_like(t, _dt.bool)


def isreal(x):
    return logical_not(iscomplex(x))


def _np_fn(fn, dtype):
    """A NumPy function of one tensor with a known result dtype (eager: NumPy at once; traced: numpy_function)."""
    def f(t):
        v = getattr(t, "_v", None)
        if v is not None:
            return _E(_np.asarray(fn(v)).astype(dtype._np))
        from ...ops.script_ops import numpy_function
        out = numpy_function(lambda a: _np.asarray(fn(a)).astype(dtype._np), [t], dtype)
        out.set_shape(t.shape)
        return out
    return f


def _np_binary(fn):
    def f(x1, x2):
        (a, b), w = _promote(x1, x2)
        va, vb = getattr(a, "_v", None), getattr(b, "_v", None)
        if va is not None and vb is not None:
            return _wrap(_E(_np.asarray(fn(va, vb)).astype(a.dtype._np)), w)
        from ...ops.script_ops import numpy_function
        return _wrap(numpy_function(lambda p, q: _np.asarray(fn(p, q)).astype(a.dtype._np), [a, b], a.dtype), w)
    return f


# ------------------------------------------------------------------ numpy behaviour
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Enables NumPy behaviour on every tensor (global): NumPy's operators, indexing and methods (`.T`,
    `.reshape`, `.astype` ...), and the type promotion `dtype_conversion_mode` names ("legacy": NumPy's;
    "all"/"safe": the lattice with weak types)."""
    from . import _weak_api
    _nb.register_methods({"clip": lambda self, a_min=None, a_max=None: clip(self, a_min, a_max),
                          "max": lambda self, axis=None, keepdims=False: amax(self, axis, keepdims),
                          "min": lambda self, axis=None, keepdims=False: amin(self, axis, keepdims),
                          "mean": lambda self, axis=None, dtype=None, keepdims=False: mean(self, axis, dtype,
                                                                                           keepdims=keepdims)})
    _nb.enable(dtype_conversion_mode, prefer_float32)
    _weak_api.set_mode(dtype_conversion_mode)


def _disable_numpy_behavior():
    """Back to TensorFlow's default (tests only; TensorFlow itself cannot undo it)."""
    from . import _weak_api
    _weak_api.set_mode(None)
    _nb.disable()

