"""TensorFlow's special-function ops: Erfinv, Ndtri, the Bessel functions (BesselI0 ... BesselY1), Dawsn, Expint,
FresnelCos, FresnelSin and Spence, with their gradients as TensorFlow registers them; tf.math.erfcinv is
TensorFlow's composite over Ndtri. The float64 numerics are in `special_math.py` (NumPy only).

Dtypes as TensorFlow's CPU kernels: float32 and float64 everywhere, float16 computed in float32 and rounded
(Erfinv, Ndtri, Dawsn, Expint, Fresnel* and Spence have no float16 kernel: NotFoundError, as in TensorFlow);
other dtypes fail the op's type check. TensorFlow's CPU kernels run with denormals flushed to zero, so a
float32/float64 subnormal input is read as 0 and a subnormal result becomes 0, here too.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..errors import InvalidArgumentError, NotFoundError
from . import special_math as _sm
from ._rules import binary, binary_args, same_shape, to_tensor
from .array_ops import where as _where, ones_like as _ones_like
from .math_ops import (_quiet, add, cos, divide, equal, exp, lgamma, log, multiply, negative, reciprocal, sign,
                       sin, square, subtract, sum_to)

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



# ---------------------------------------------------------------- igamma / igammac / betainc / zeta / polygamma
_F32_64 = frozenset([_dt.float32, _dt.float64])


def _float_kernel(name, fn, nargs):
    """fn on float64 copies of the operands (broadcast), rounded to the operands' dtype."""
    @_quiet
    def k(*args):
        dt = np.result_type(*args)
        if dt == _F16:
            raise NotFoundError(f"Could not find device for node: {{{{node {name}}}}} = {name}[T=DT_HALF] "
                                f"[Op:{name}]")
        return np.asarray(fn(*(np.asarray(v, np.float64) for v in args[:nargs])).astype(dt))
    k.__name__ = name
    return k


def _igamma_grads(op, dy, sign):
    a, x = op.inputs
    da = multiply(bind(IGAMMA_GRAD_A, (a, x)), dy)
    dx = multiply(exp(subtract(multiply(subtract(a, _c(1.0, a)), log(x)), add(x, lgamma(a)))), dy)
    if sign < 0:
        da, dx = negative(da), negative(dx)
    return sum_to(da, a), sum_to(dx, x)


IGAMMA_GRAD_A = defop("IgammaGradA", _float_kernel("IgammaGradA", _sm.igamma_grad_a, 2), binary, grad=None,
                      same=2, allowed=_F32_64)
IGAMMA = defop("Igamma", _float_kernel("Igamma", _sm.igamma, 2), binary, grad=lambda op, dy: _igamma_grads(op, dy, 1),
               same=2, allowed=FLOATS)
IGAMMAC = defop("Igammac", _float_kernel("Igammac", _sm.igammac, 2), binary,
                grad=lambda op, dy: _igamma_grads(op, dy, -1), same=2, allowed=FLOATS)


def _zeta_grad(op, dy):
    x, q = op.inputs
    return None, sum_to(multiply(negative(multiply(x, bind(ZETA, (add(x, _c(1.0, x)), q)))), dy), q)


def _polygamma_grad(op, dy):
    n, x = op.inputs
    return None, sum_to(multiply(bind(POLYGAMMA, (add(n, _c(1.0, n)), x)), dy), x)


ZETA = defop("Zeta", _float_kernel("Zeta", _sm.zeta, 2), binary, grad=_zeta_grad, same=2, allowed=_F32_64)
POLYGAMMA = defop("Polygamma", _float_kernel("Polygamma", _sm.polygamma, 2), binary, grad=_polygamma_grad, same=2,
                  allowed=_F32_64)


def _betainc_infer(a, b, x):
    shapes = [t.shape for t in (a, b, x)]
    full = [s for s in shapes if s.rank != 0]
    out = full[0] if full else a.shape
    for s in full[1:]:
        if out.is_fully_defined() and s.is_fully_defined() and out != s:
            raise ValueError(f"Shapes must be equal rank, but are {out.rank} and {s.rank}" if out.rank != s.rank
                             else f"Dimensions must be equal, but are {out} and {s}")
        out = out.merge_with(s) if out.rank == s.rank else out
    return out, a.dtype


def _betainc_kernel(a, b, x):
    for (p, q, pn, qn) in ((a, b, "a", "b"), (a, x, "a", "x")):
        if np.ndim(p) and np.ndim(q) and np.shape(p) != np.shape(q):
            raise InvalidArgumentError(f"Shapes of {pn} and {qn} are inconsistent: {list(np.shape(p))} vs. "
                                       f"{list(np.shape(q))}")
    if np.ndim(b) and np.ndim(x) and np.shape(b) != np.shape(x):
        raise InvalidArgumentError(f"Shapes of b and x are inconsistent: {list(np.shape(b))} vs. {list(np.shape(x))}")
    return _float_kernel("Betainc", _sm.betainc, 3)(a, b, x)


def _betainc_grad(op, dy):
    a, b, x = op.inputs
    one = _c(1.0, x)
    log_beta = subtract(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    from .math_ops import log1p, xlogy
    bm1 = subtract(b, one)
    xlog1py = _where(equal(bm1, _c(0.0, x)), _c(0.0, x) * bm1, multiply(bm1, log1p(negative(x))))  # 0 where b == 1
    partial = exp(subtract(add(xlog1py, xlogy(subtract(a, one), x)), log_beta))
    return None, None, sum_to(multiply(partial, dy), x)


BETAINC = defop("Betainc", _betainc_kernel, _betainc_infer, grad=_betainc_grad, same=3, allowed=_F32_64)


def _bin(op, default):
    def f(a, x, name=None):
        a, x = binary_args(a, x)
        return bind(op, (a, x), name=name or default)
    f.__name__ = f.__qualname__ = default.lower()
    return f


igamma = _bin(IGAMMA, "Igamma")
igammac = _bin(IGAMMAC, "Igammac")
zeta = _bin(ZETA, "Zeta")
polygamma = _bin(POLYGAMMA, "Polygamma")


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b); a, b and x of one shape or scalars."""
    a, b, x = to_tensor(a), to_tensor(b), to_tensor(x)
    return bind(BETAINC, (a, b, x), name=name or "Betainc")
