"""TensorFlow's special-function ops: Erfinv, Ndtri, the Bessel functions (BesselI0 ... BesselY1), Dawsn, Expint,
FresnelCos, FresnelSin and Spence, with their gradients as TensorFlow registers them; tf.math.erfcinv is
TensorFlow's composite over Ndtri. The float64 numerics are in `special_math.py` (NumPy only).

Dtypes as TensorFlow's CPU kernels: float32 and float64 everywhere, float16 computed in float32 and rounded
(Erfinv, Ndtri, Dawsn, Expint, Fresnel* and Spence have no float16 kernel: NotFoundError, as in TensorFlow);
other dtypes fail the op's type check. TensorFlow's CPU kernels run with denormals flushed to zero, so a
float32/float64 subnormal input is read as 0 and a subnormal result becomes 0, here too.
"""
import numpy as np

from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..errors import NotFoundError
from . import special_math as _sm
from ._rules import same_shape, to_tensor
from .array_ops import where as _where, ones_like as _ones_like
from .math_ops import (_quiet, add, cos, divide, equal, exp, log, multiply, negative, reciprocal, sign, sin,
                       square, subtract)

_F16 = np.dtype(np.float16)
_LOG_FLT_MAX = float(np.log(np.finfo(np.float32).max))


def _kernel(name, fn, half=True, float32_exp_overflow=False):
    """A kernel computing `fn` in float64 for x's dtype as TensorFlow's CPU kernel computes it."""
    @_quiet
    def k(x):
        x = np.asarray(x)
        dt = x.dtype
        if dt == _F16:
            if not half:
                raise NotFoundError(f"Could not find device for node: {{{{node {name}}}}} = {name}[T=DT_HALF] "
                                    f"[Op:{name}]")
            v = x.astype(np.float32)
        else:
            tiny = np.finfo(dt).tiny
            v = np.where(np.abs(x) < tiny, x * 0, x)  # denormals are zero (signed)
        r = fn(v) if name == "Erfinv" else fn(v.astype(np.float64))
        if float32_exp_overflow and dt != np.float64:
            # float32 kernels form exp(|x|) in float32: it overflows past log(FLT_MAX)
            big = np.abs(v) > _LOG_FLT_MAX
            r = np.where(big & ~np.isnan(r), np.copysign(np.inf, r), r)
        if name == "BesselY1" and dt != np.float64:
            r = np.where(v == 0, np.nan, r)  # TensorFlow's float32 kernel: NaN at 0 (float64: -inf)
        if dt == _F16:
            return np.asarray(r.astype(np.float32).astype(np.float16)).reshape(x.shape)
        r = np.asarray(r.astype(dt)).reshape(x.shape)
        tiny = np.finfo(dt).tiny
        return np.where(np.abs(r) < tiny, r * 0, r)  # flushed to zero, keeping the sign
    k.__name__ = name
    return k


def _op(name, fn, grad, half=True, overflow=False):
    return defop(name, _kernel(name, fn, half, overflow), same_shape, grad=grad, allowed=FLOATS)


def _fn(op, default):
    def f(x, name=None):
        return bind(op, (to_tensor(x),), name=name or default)
    f.__name__ = f.__qualname__ = default
    return f


def _c(v, like):
    return to_tensor(v, like.dtype)


def _x(op):
    return op.inputs[0]


def _y(op):
    return op.outputs[0]


def _erfinv_grad(op, dy):
    return (multiply(dy, multiply(_c(np.sqrt(np.pi) / 2, dy), exp(square(_y(op))))),)


def _ndtri_grad(op, dy):
    return (multiply(dy, multiply(_c(np.sqrt(2 * np.pi), dy), exp(divide(square(_y(op)), _c(2.0, dy))))),)


def _at_zero(x, value, expr):
    """TensorFlow's where(x == 0, value, expr) of the order-1 Bessel gradients."""
    return _where(equal(x, _c(0.0, x)), multiply(_ones_like(x), _c(value, x)), expr)


ERFINV = _op("Erfinv", _sm.erfinv, _erfinv_grad, half=False)
NDTRI = _op("Ndtri", _sm.ndtri, _ndtri_grad, half=False)

BESSEL_I0 = _op("BesselI0", _sm.bessel_i0, lambda op, dy: (multiply(dy, bessel_i1(_x(op))),), overflow=True)
BESSEL_I0E = _op("BesselI0e", _sm.bessel_i0e, lambda op, dy: (
    multiply(dy, subtract(bessel_i1e(_x(op)), multiply(sign(_x(op)), _y(op)))),))
BESSEL_I1 = _op("BesselI1", _sm.bessel_i1, lambda op, dy: (multiply(dy, _at_zero(
    _x(op), 1.0, subtract(bessel_i0(_x(op)), divide(_y(op), _x(op))))),), overflow=True)
BESSEL_I1E = _op("BesselI1e", _sm.bessel_i1e, lambda op, dy: (multiply(dy, _at_zero(
    _x(op), 0.5, subtract(bessel_i0e(_x(op)),
                          multiply(_y(op), add(sign(_x(op)), reciprocal(_x(op))))))),))
BESSEL_K0 = _op("BesselK0", _sm.bessel_k0, lambda op, dy: (multiply(dy, negative(bessel_k1(_x(op)))),))
BESSEL_K0E = _op("BesselK0e", _sm.bessel_k0e, lambda op, dy: (
    multiply(dy, subtract(_y(op), bessel_k1e(_x(op)))),))
BESSEL_K1 = _op("BesselK1", _sm.bessel_k1, lambda op, dy: (
    multiply(dy, subtract(negative(bessel_k0(_x(op))), divide(_y(op), _x(op)))),))
BESSEL_K1E = _op("BesselK1e", _sm.bessel_k1e, lambda op, dy: (multiply(dy, subtract(
    multiply(_y(op), subtract(_c(1.0, dy), reciprocal(_x(op)))), bessel_k0e(_x(op)))),))
BESSEL_J0 = _op("BesselJ0", _sm.bessel_j0, lambda op, dy: (multiply(dy, negative(bessel_j1(_x(op)))),))
BESSEL_J1 = _op("BesselJ1", _sm.bessel_j1, lambda op, dy: (multiply(dy, _at_zero(
    _x(op), 0.5, subtract(bessel_j0(_x(op)), divide(_y(op), _x(op))))),))
BESSEL_Y0 = _op("BesselY0", _sm.bessel_y0, lambda op, dy: (multiply(dy, negative(bessel_y1(_x(op)))),))
BESSEL_Y1 = _op("BesselY1", _sm.bessel_y1, lambda op, dy: (
    multiply(dy, subtract(bessel_y0(_x(op)), divide(_y(op), _x(op)))),))

DAWSN = _op("Dawsn", _sm.dawsn, lambda op, dy: (
    multiply(dy, subtract(_c(1.0, dy), multiply(multiply(_c(2.0, dy), _x(op)), _y(op)))),), half=False)
EXPINT = _op("Expint", _sm.expint, lambda op, dy: (multiply(dy, divide(exp(_x(op)), _x(op))),), half=False,
             overflow=True)
FRESNEL_COS = _op("FresnelCos", _sm.fresnel_cos, lambda op, dy: (
    multiply(dy, cos(multiply(_c(np.pi / 2, dy), square(_x(op))))),), half=False)
FRESNEL_SIN = _op("FresnelSin", _sm.fresnel_sin, lambda op, dy: (
    multiply(dy, sin(multiply(_c(np.pi / 2, dy), square(_x(op))))),), half=False)


def _spence_grad(op, dy):
    x = _x(op)
    partial = divide(log(x), subtract(_c(1.0, x), x))
    return (multiply(dy, _where(equal(x, _c(1.0, x)), negative(_ones_like(x)), partial)),)


SPENCE = _op("Spence", _sm.spence, _spence_grad, half=False)

erfinv = _fn(ERFINV, "erfinv")
ndtri = _fn(NDTRI, "ndtri")
bessel_i0 = _fn(BESSEL_I0, "bessel_i0")
bessel_i0e = _fn(BESSEL_I0E, "bessel_i0e")
bessel_i1 = _fn(BESSEL_I1, "bessel_i1")
bessel_i1e = _fn(BESSEL_I1E, "bessel_i1e")
bessel_k0 = _fn(BESSEL_K0, "bessel_k0")
bessel_k0e = _fn(BESSEL_K0E, "bessel_k0e")
bessel_k1 = _fn(BESSEL_K1, "bessel_k1")
bessel_k1e = _fn(BESSEL_K1E, "bessel_k1e")
bessel_j0 = _fn(BESSEL_J0, "bessel_j0")
bessel_j1 = _fn(BESSEL_J1, "bessel_j1")
bessel_y0 = _fn(BESSEL_Y0, "bessel_y0")
bessel_y1 = _fn(BESSEL_Y1, "bessel_y1")
dawsn = _fn(DAWSN, "dawsn")
expint = _fn(EXPINT, "expint")
fresnel_cos = _fn(FRESNEL_COS, "fresnel_cos")
fresnel_sin = _fn(FRESNEL_SIN, "fresnel_sin")
spence = _fn(SPENCE, "spence")


def erfcinv(x, name=None):
    """tf.math.erfcinv: TensorFlow's composite -ndtri(x / 2) / sqrt(2)."""
    x = to_tensor(x)
    return multiply(negative(ndtri(multiply(x, 0.5))), np.sqrt(0.5), name=name or "erfcinv")


SPECIAL = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
           "spence"]
