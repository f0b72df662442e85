"""Special functions in float64 with NumPy alone (no SciPy): the kernels behind tf.math.erfinv, ndtri, the
Bessel functions of tf.math.special, dawsn, expint, fresnel_cos/sin and spence (`special_ops.py` defines the ops).

Each function takes a float64 array and returns one of its shape. The methods, chosen for double precision over
the whole line with plain vectorised NumPy:

- ndtri: Winitzki's closed-form guess for erfcinv refined by Halley steps on `math_ops`' Cody erfc, inverting it
  to the last bits; erfinv is TensorFlow's ndtri((x + 1) / 2) / sqrt(2).
- Bessel I0/I1 (and the exponentially scaled forms): the power series up to 30, the Hankel asymptotic series
  beyond (its terms still shrinking where it is cut).
- Bessel J0/J1: the power series up to 2, Bessel's integral (1/pi) int_0^pi cos(n t - x sin t) dt by 64-point
  Gauss-Legendre up to 25; Y0/Y1 the power series with logarithms up to 2, Bessel's integrals (a second one
  over [0, inf)) up to 25; the Hankel asymptotic forms beyond.
- Bessel K0/K1: the series with logarithms up to 2, the trapezoidal rule on int_0^inf exp(-x cosh t) cosh(n t) dt
  (an even, analytic integrand: the rule converges geometrically) up to 40, the asymptotic series beyond.
- Dawson's integral: x exp(-x^2) sum x^(2k) / ((2k+1) k!) (Kummer's transform: no cancellation) up to 6, the
  asymptotic series beyond. Ei (TensorFlow's is defined for x >= 0): its series up to 40, the asymptotic series
  beyond. Fresnel integrals: Gauss-Legendre quadrature up to 6, the auxiliary functions' asymptotic series
  beyond. Spence's function: the dilogarithm Li2(1 - x) mapped into |z| <= 1/2.
"""
import numpy as np

_EULER = 0.57721566490153286061
_SQRT_PI = 1.7724538509055160273
_TWO_OVER_SQRT_PI = 2 / _SQRT_PI


def _apply(x, parts):
    """out[mask] = fn(x[mask]) for each (mask, fn); elements no mask selects keep x (NaN stays NaN)."""
    out = np.array(x, np.float64, copy=True)
    for mask, fn in parts:
        if np.any(mask):
            out[mask] = fn(x[mask])
    return out


# ---------------------------------------------------------------- ndtri / erfinv
def _erf_erfc():
    from .math_ops import _erf64, _erfc64
    return _erf64, _erfc64


def _erfcinv_upper(q):
    """y >= 0 with erfc(y) = q, for q in (0, 1]."""
    _, erfc = _erf_erfc()
    a = 0.147
    lg = np.log(q * (2 - q))  # log(1 - x^2) with x = 1 - q, exact for small q
    b = 2 / (np.pi * a) + lg / 2
    y = np.sqrt(np.maximum(np.sqrt(b * b - lg / a) - b, 0.0))
    for _ in range(4):  # Halley on erfc(y) - q: f''/f' = -2y
        f = erfc(y) - q
        d = -_TWO_OVER_SQRT_PI * np.exp(-y * y)
        t = np.where(d != 0, f / np.where(d != 0, d, 1.0), 0.0)
        y = y - t / (1 + y * t)
    return y


def erfinv(x):
    """TensorFlow's: ndtri((x + 1) / 2) / sqrt(2), (x + 1) / 2 rounded in x's dtype (so 1 - ulp gives inf)."""
    x = np.asarray(x)
    return ndtri(((x + 1) / 2).astype(np.float64)) * np.sqrt(0.5)


def _erfcinv(q):
    out = _apply(q, [((q > 0) & (q <= 1), _erfcinv_upper), ((q > 1) & (q < 2), lambda v: -_erfcinv_upper(2 - v))])
    out[q <= 0] = np.inf
    out[q >= 2] = -np.inf
    out[(q < 0) | (q > 2)] = np.nan
    return out


def ndtri(p):
    p = np.asarray(p, np.float64)
    return -np.sqrt(2) * _erfcinv(2 * p) + 0.0  # ndtri(0.5) is +0


# ---------------------------------------------------------------- Bessel I
def _series_i(x, nu, terms=90):
    """I_nu(x) for x >= 0 by its power series (positive terms)."""
    z = x * x / 4
    t = (x / 2) ** nu
    s = t.copy()
    for k in range(1, terms):
        t = t * z / (k * (k + nu))
        s = s + t
    return s


def _asym_scaled_i(x, nu, terms=32):
    """exp(-x) I_nu(x) for large x > 0 (Hankel's expansion)."""
    mu = 4.0 * nu * nu
    t = np.ones_like(x)
    s = t.copy()
    for k in range(1, terms):
        t = -t * (mu - (2 * k - 1) ** 2) / (8 * k * x)
        s = s + t
    return s / np.sqrt(2 * np.pi * x)


def _scaled_i(x, nu):
    """exp(-|x|) I_nu(|x|)."""
    ax = np.abs(x)
    out = _apply(ax, [(ax <= 30, lambda v: _series_i(v, nu) * np.exp(-v)),
                      (ax > 30, lambda v: _asym_scaled_i(v, nu))])
    out[np.isinf(ax)] = 0.0
    return out


def bessel_i0e(x):
    return _scaled_i(np.asarray(x, np.float64), 0)


def bessel_i1e(x):
    x = np.asarray(x, np.float64)
    out = _scaled_i(x, 1)
    return np.where(x < 0, -out, out)


def bessel_i0(x):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _apply(ax, [(ax <= 30, lambda v: _series_i(v, 0)),
                      (ax > 30, lambda v: _asym_scaled_i(v, 0) * np.exp(v))])
    out[np.isinf(ax)] = np.nan  # TensorFlow's: exp(inf) * 0
    return out


def bessel_i1(x):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _apply(ax, [(ax <= 30, lambda v: _series_i(v, 1)),
                      (ax > 30, lambda v: _asym_scaled_i(v, 1) * np.exp(v))])
    out[np.isinf(ax)] = np.nan
    return np.where(x < 0, -out, out)


# ---------------------------------------------------------------- Bessel J / Y
_CHUNK = 1 << 15
_GL = []  # 64-point Gauss-Legendre nodes and weights, made on first use (numpy.polynomial loads slowly)


def _gl():
    if not _GL:
        from numpy.polynomial.legendre import leggauss
        _GL.extend(leggauss(64))
    return _GL


def _gauss(fn, a, b, x):
    """int_a^b fn(t, x) dt for each x (a, b arrays like x) by 64-point Gauss-Legendre, in chunks."""
    nodes, weights = _gl()
    out = np.empty_like(x)
    for i in range(0, x.size, _CHUNK):
        sl = slice(i, i + _CHUNK)
        lo, hi = a[sl, None], b[sl, None]
        half = (hi - lo) / 2
        t = lo + half * (nodes + 1)
        out[sl] = (fn(t, x[sl, None]) @ weights) * half[:, 0]
    return out


def _j_integral(x, n):
    zeros, pis = np.zeros_like(x), np.full_like(x, np.pi)
    return _gauss(lambda t, v: np.cos(n * t - v * np.sin(t)), zeros, pis, x) / np.pi


def _hankel_pq(x, nu, terms=26):
    """Hankel's P and Q of order nu for large x."""
    mu = 4.0 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    b = np.ones_like(x)
    for k in range(1, terms):
        b = b * (mu - (2 * k - 1) ** 2) / (8 * k * x)
        if k % 2:
            q = q + (-1) ** ((k - 1) // 2) * b
        else:
            p = p + (-1) ** (k // 2) * b
    return p, q


def _hankel(x, nu, kind):
    p, q = _hankel_pq(x, nu)
    # chi = x - (nu/2 + 1/4) pi rounded to a double first, as TensorFlow's (Cephes') kernels do
    chi = x - (0.25 * np.pi if nu == 0 else 0.75 * np.pi)
    cc, sc = np.cos(chi), np.sin(chi)
    amp = np.sqrt(2 / (np.pi * x))
    if kind == "j":
        return amp * (p * cc - q * sc)
    return amp * (p * sc + q * cc)


def _j_series(x, nu, terms=30):
    """J0/J1 for |x| <= 2 by the power series (terms shrink from the first)."""
    z = x * x / 4
    t = np.ones_like(x) if nu == 0 else x / 2
    s = t.copy()
    for k in range(1, terms):
        t = -t * z / (k * (k + nu))
        s = s + t
    return s


def bessel_j0(x):
    x = np.abs(np.asarray(x, np.float64))
    out = _apply(x, [(x <= 2, lambda v: _j_series(v, 0)), ((x > 2) & (x <= 25), lambda v: _j_integral(v, 0)),
                     (x > 25, lambda v: _hankel(v, 0, "j"))])
    out[np.isinf(x)] = np.nan  # TensorFlow's
    return out


def bessel_j1(x):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _apply(ax, [(ax <= 2, lambda v: _j_series(v, 1)), ((ax > 2) & (ax <= 25), lambda v: _j_integral(v, 1)),
                      (ax > 25, lambda v: _hankel(v, 1, "j"))])
    out[np.isinf(ax)] = np.nan
    return np.where(np.signbit(x), -out, out)


def _y_series(x, nu, terms=40):
    """Y0/Y1 for 0 < x <= 2 by the series with logarithms."""
    z = x * x / 4
    lg = np.log(x / 2)
    if nu == 0:
        j, t, h, s = np.ones_like(x), np.ones_like(x), 0.0, np.zeros_like(x)
        for k in range(1, terms):
            t = -t * z / (k * k)
            h += 1.0 / k
            j = j + t
            s = s - h * t
        return 2 / np.pi * ((lg + _EULER) * j + s)
    t = x / 2
    j = t.copy()
    hk, hk1 = 0.0, 1.0  # H_k, H_{k+1}
    s = (2 * -_EULER + hk + hk1) * t
    for k in range(1, terms):
        t = -t * z / (k * (k + 1))
        hk, hk1 = hk1, hk1 + 1.0 / (k + 1)
        j = j + t
        s = s + (2 * -_EULER + hk + hk1) * t
    return -2 / (np.pi * x) + 2 / np.pi * lg * j - s / np.pi


def _y_integral(x, n):
    zeros, pis = np.zeros_like(x), np.full_like(x, np.pi)
    first = _gauss(lambda t, v: np.sin(v * np.sin(t) - n * t), zeros, pis, x) / np.pi
    top = np.arcsinh(40.0 / x)
    sign = 1.0 if n % 2 == 0 else -1.0
    second = _gauss(lambda t, v: (np.exp(n * t) + sign * np.exp(-n * t)) * np.exp(-v * np.sinh(t)),
                    zeros, top, x) / np.pi
    return first - second


def _bessel_y(x, n):
    x = np.asarray(x, np.float64)
    out = _apply(x, [((x > 0) & (x <= 2), lambda v: _y_series(v, n)),
                     ((x > 2) & (x <= 25), lambda v: _y_integral(v, n)),
                     (x > 25, lambda v: _hankel(v, n, "y"))])
    out[x <= 0] = -np.inf  # TensorFlow's, for negative x too
    out[x == np.inf] = np.nan
    return out


def bessel_y0(x):
    return _bessel_y(x, 0)


def bessel_y1(x):
    return _bessel_y(x, 1)


# ---------------------------------------------------------------- Bessel K
def _k_series(x, nu, terms=30):
    """K0/K1 for 0 < x <= 2."""
    z = x * x / 4
    lg = np.log(x / 2)
    if nu == 0:
        t, h = np.ones_like(x), 0.0
        i0, s = t.copy(), np.zeros_like(x)
        for k in range(1, terms):
            t = t * z / (k * k)
            h += 1.0 / k
            i0 = i0 + t
            s = s + h * t
        return -(lg + _EULER) * i0 + s
    t = np.ones_like(x)  # (x^2/4)^k / (k! (k+1)!)
    hk, hk1 = 0.0, 1.0
    i1 = t.copy()
    s = (-2 * _EULER + hk + hk1) * t
    for k in range(1, terms):
        t = t * z / (k * (k + 1))
        hk, hk1 = hk1, hk1 + 1.0 / (k + 1)
        i1 = i1 + t
        s = s + (-2 * _EULER + hk + hk1) * t
    return 1 / x + lg * i1 * (x / 2) - x / 4 * s


_K_T = np.arange(0, 4.05, 0.05)
_K_W = np.full(_K_T.shape, 0.05)
_K_W[0] = 0.025


def _k_trapezoid(x, nu):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, 2 < x <= 40."""
    out = np.empty_like(x)
    cm1 = np.cosh(_K_T) - 1
    w = _K_W * np.cosh(nu * _K_T)
    for i in range(0, x.size, _CHUNK):
        v = x[i:i + _CHUNK, None]
        out[i:i + _CHUNK] = np.exp(-v * cm1) @ w
    return out


def _asym_scaled_k(x, nu, terms=32):
    mu = 4.0 * nu * nu
    t = np.ones_like(x)
    s = t.copy()
    for k in range(1, terms):
        t = t * (mu - (2 * k - 1) ** 2) / (8 * k * x)
        s = s + t
    return s * np.sqrt(np.pi / (2 * x))


def _scaled_k(x, nu):
    x = np.asarray(x, np.float64)
    out = _apply(x, [((x > 0) & (x <= 2), lambda v: _k_series(v, nu) * np.exp(v)),
                     ((x > 2) & (x <= 40), lambda v: _k_trapezoid(v, nu)),
                     (x > 40, lambda v: _asym_scaled_k(v, nu))])
    out[x <= 0] = np.inf  # TensorFlow's, for negative x too
    out[x == np.inf] = 0.0
    return out


def bessel_k0e(x):
    return _scaled_k(x, 0)


def bessel_k1e(x):
    return _scaled_k(x, 1)


def _unscaled_k(x, nu):
    x = np.asarray(x, np.float64)
    out = _apply(x, [((x > 0) & (x <= 2), lambda v: _k_series(v, nu)),
                     (x > 2, lambda v: _scaled_k(v, nu) * np.exp(-v))])
    out[x <= 0] = np.inf
    out[x == np.inf] = 0.0
    return out


def bessel_k0(x):
    return _unscaled_k(x, 0)


def bessel_k1(x):
    return _unscaled_k(x, 1)


# ---------------------------------------------------------------- Dawson, Ei, Fresnel, Spence
def _dawsn_series(x):
    z = x * x
    t = np.ones_like(x)
    s = t.copy()
    for k in range(1, 120):
        t = t * z / k
        s = s + t / (2 * k + 1)
    return x * np.exp(-z) * s


def _dawsn_asym(x):
    w = 1 / (2 * x * x)
    t = np.ones_like(x)
    s = t.copy()
    for k in range(1, 40):
        t = t * (2 * k - 1) * w
        s = s + t
    return s / (2 * x)


def dawsn(x):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    out = _apply(x, [(ax <= 6, _dawsn_series), (ax > 6, _dawsn_asym)])
    big = ax > 1e9
    out[big] = 0.5 / ax[big]  # TensorFlow's: positive for negative x too, +0 at -inf
    return out


def _ei_series(x):
    t = np.ones_like(x)
    s = np.zeros_like(x)
    for k in range(1, 140):
        t = t * x / k
        s = s + t / k
    return _EULER + np.log(x) + s


def _ei_asym(x):
    t = np.ones_like(x)
    s = t.copy()
    for k in range(1, 40):
        t = t * k / x
        s = s + t
    return np.exp(x) / x * s


def expint(x):
    x = np.asarray(x, np.float64)
    out = _apply(x, [((x > 0) & (x <= 40), _ei_series), ((x > 40) & (x < np.inf), _ei_asym)])
    out[x == 0] = -np.inf
    out[(x < 0) | (x == np.inf)] = np.nan  # TensorFlow's Expint is defined for x >= 0 only
    return out


def _fresnel_quad(x, fn):
    return _gauss(lambda t, v: fn(np.pi / 2 * t * t), np.zeros_like(x), x, x)


def _fresnel_fg(x):
    """The auxiliary functions f, g for x > 6: C = 1/2 + f sin(pi x^2/2) - g cos, S = 1/2 - f cos - g sin."""
    u = 1 / (np.pi * x * x)
    u2 = u * u
    f, g = np.ones_like(x), np.ones_like(x)
    tf, tg = np.ones_like(x), np.ones_like(x)
    for k in range(1, 30):
        tf = -tf * (4 * k - 3) * (4 * k - 1) * u2
        tg = -tg * (4 * k - 1) * (4 * k + 1) * u2
        f, g = f + tf, g + tg
    return f / (np.pi * x), g * u / (np.pi * x)


def _fresnel_big(x, which):
    f, g = _fresnel_fg(x)
    # sin/cos of pi x^2 / 2 with x^2 split so that the product's reduction stays exact enough
    xi = np.floor(x)
    xf = x - xi
    # pi/2 x^2 = pi/2 (xi^2 + 2 xi xf + xf^2); pi/2 xi^2 reduces mod 2 pi by xi^2 mod 4
    a = np.pi / 2 * (np.fmod(xi * xi, 4.0) + np.fmod(2 * xi * xf, 4.0) + xf * xf)
    s, c = np.sin(a), np.cos(a)
    if which == "c":
        return 0.5 + f * s - g * c
    return 0.5 - f * c - g * s


def _fresnel(x, which):
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    fn = np.cos if which == "c" else np.sin
    out = _apply(ax, [(ax <= 6, lambda v: _fresnel_quad(v, fn)),
                      ((ax > 6) & (ax <= 36974), lambda v: _fresnel_big(v, which))])
    out[ax > 36974] = 0.5  # TensorFlow's cut-off
    return np.copysign(out, x)


def fresnel_cos(x):
    return _fresnel(x, "c")


def fresnel_sin(x):
    return _fresnel(x, "s")


_PI2_6 = np.pi ** 2 / 6


def _li2_small(z):
    t = z.copy()
    s = z.copy()
    for k in range(2, 60):
        t = t * z
        s = s + t / (k * k)
    return s


def _li2(z):
    """Li2(z) for real z <= 1."""
    out = np.empty_like(z)
    m = np.abs(z) <= 0.5
    out[m] = _li2_small(z[m])
    m = (z > 0.5) & (z < 1)
    v = z[m]
    out[m] = _PI2_6 - np.log(v) * np.log1p(-v) - _li2_small(1 - v)
    m = (z >= -1) & (z < -0.5)
    v = z[m]
    out[m] = -_li2_small(v / (v - 1)) - 0.5 * np.log1p(-v) ** 2
    m = z < -1
    v = z[m]
    w = 1 / v  # in (-1, 0)
    inner = np.where(w < -0.5, -_li2_small(w / (w - 1)) - 0.5 * np.log1p(-w) ** 2, _li2_small(w))
    out[m] = -_PI2_6 - 0.5 * np.log(-v) ** 2 - inner
    out[z == 1] = _PI2_6
    return out


def spence(x):
    x = np.asarray(x, np.float64)
    ok = (x >= 0) & np.isfinite(x)
    out = _apply(x, [(ok, lambda v: _li2(1 - v))])
    out[(x < 0) | (x == np.inf)] = np.nan
    return out


# ---------------------------------------------------------------- incomplete gamma / beta, Hurwitz zeta
def _lgamma(x):
    from .math_ops import _lgamma64
    return _lgamma64(x)


def _digamma(x):
    from .math_ops import _digamma64
    return _digamma64(x)


_TINY = 1e-300
_EPS = 1e-16


def _gamma_series(a, x, max_iter=100000):
    """P(a, x) by its series (x < a + 1): exp(-x + a log x - lgamma(a + 1)) sum x^n / ((a+1)...(a+n))."""
    term = np.ones_like(x)
    total = term.copy()
    ap = a.copy()
    live = np.ones(x.shape, bool)
    for _ in range(max_iter):
        ap = ap + 1
        term = np.where(live, term * x / ap, term)
        total = np.where(live, total + term, total)
        live = live & (np.abs(term) > np.abs(total) * _EPS)
        if not live.any():
            break
    return np.exp(-x + a * np.log(x) - _lgamma(a + 1)) * total


def _gamma_cf(a, x, max_iter=100000):
    """Q(a, x) by Legendre's continued fraction (x >= a + 1), modified Lentz."""
    b = x + 1 - a
    c = np.full_like(x, 1 / _TINY)
    d = 1 / b
    h = d.copy()
    live = np.ones(x.shape, bool)
    for i in range(1, max_iter):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        delta = c * d
        h = np.where(live, h * delta, h)
        live = live & (np.abs(delta - 1) > _EPS)
        if not live.any():
            break
    return np.exp(-x + a * np.log(x) - _lgamma(a)) * h


def _igamma_pair(a, x):
    """(P, Q) for float64 arrays of one shape, TensorFlow's special values: NaN for a <= 0 or x < 0 (a NaN in
    either), P = 0 at x = 0, P = 1 at x = inf."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    a, x = a.ravel().copy(), x.ravel().copy()
    p = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0) & np.isfinite(a)
    p[ok & (x == 0)] = 0.0
    p[ok & (x == np.inf)] = 1.0
    q = 1 - p
    mid = ok & (x > 0) & np.isfinite(x)
    ser = mid & (x < a + 1)
    cf = mid & ~ser
    if ser.any():
        p[ser] = _gamma_series(a[ser], x[ser])
        q[ser] = 1 - p[ser]
    if cf.any():
        q[cf] = _gamma_cf(a[cf], x[cf])
        p[cf] = 1 - q[cf]
    return p, q


def igamma(a, x):
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    return _igamma_pair(a, x)[0].reshape(shape)


def igammac(a, x):
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    return _igamma_pair(a, x)[1].reshape(shape)


def igamma_grad_a(a, x):
    """d P(a, x) / da by central differences with two Richardson steps (error ~1e-10 relative or better)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    h = 1e-2 * np.where(a < 1, a, 1.0) * np.maximum(1.0, np.sqrt(np.abs(a)))

    upper = x >= a + 1  # there Q is the small, accurate one: dP/da = -dQ/da

    def d(step):
        return np.where(upper, igammac(a - step, x) - igammac(a + step, x),
                        igamma(a + step, x) - igamma(a - step, x)) / (2 * step)
    d1, d2, d4 = d(h), d(h / 2), d(h / 4)
    r1, r2 = (4 * d2 - d1) / 3, (4 * d4 - d2) / 3
    return (16 * r2 - r1) / 15


def _betacf(a, b, x, max_iter=100000):
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(x)
    d = 1 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1 / d
    h = d.copy()
    live = np.ones(x.shape, bool)
    for m in range(1, max_iter):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        h = np.where(live, h * d * c, h)
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1 / d
        delta = d * c
        h = np.where(live, h * delta, h)
        live = live & (np.abs(delta - 1) > _EPS)
        if not live.any():
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (the continued fraction on the side where it
    converges fast, the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the other); NaN outside a, b > 0, 0 <= x <= 1."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(x))
    a, b, x = (np.broadcast_to(np.asarray(v, np.float64), shape).ravel().copy() for v in (a, b, x))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1) & np.isfinite(a) & np.isfinite(b)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    mid = ok & (x > 0) & (x < 1)
    if mid.any():
        am, bm, xm = a[mid], b[mid], x[mid]
        lbt = _lgamma(am + bm) - _lgamma(am) - _lgamma(bm) + am * np.log(xm) + bm * np.log1p(-xm)
        front = np.exp(lbt)
        direct = xm < (am + 1) / (am + bm + 2)
        r = np.empty_like(xm)
        r[direct] = front[direct] * _betacf(am[direct], bm[direct], xm[direct]) / am[direct]
        s = ~direct
        r[s] = 1 - front[s] * _betacf(bm[s], am[s], 1 - xm[s]) / bm[s]
        out[mid] = r
    return out.reshape(shape)


# B_2k / (2k)! for the Euler-Maclaurin tail of the Hurwitz zeta function
_BERN = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330,
         854513 / 138, -236364091 / 2730]


def zeta(x, q):
    """Hurwitz's zeta(x, q) = sum_k (q + k)^-x: the first terms summed until q + N >= 10, then the
    Euler-Maclaurin tail with 12 Bernoulli terms (or
    no tail once the terms fall below rounding). inf at x == 1 and, for even integer x, at the poles q = 0, -1,
    ...; NaN for x < 1, at the poles for other x, and for a negative q with a non-integer x."""
    from math import factorial
    shape = np.broadcast_shapes(np.shape(x), np.shape(q))
    x, q = (np.broadcast_to(np.asarray(v, np.float64), shape).ravel().copy() for v in (x, q))
    out = np.full(x.shape, np.nan)
    out[x == 1] = np.inf
    ok = (x > 1) & ~np.isnan(q)
    pole = ok & (q <= 0) & (np.floor(q) == q)
    out[pole & (np.floor(x) == x) & (np.fmod(x, 2) == 0)] = np.inf  # TensorFlow's: NaN at a pole for other x
    ok &= ~pole & ~((q < 0) & (np.floor(x) != x))
    if ok.any():
        xs, qs = x[ok], q[ok]
        s = np.zeros_like(xs)
        a = qs.copy()
        for _ in range(1000):  # direct terms while q + N < 10, or < x with terms still counting
            t = np.power(a, -xs)
            m = (a < 10) | ((a < xs) & (np.abs(t) > 1e-18 * np.abs(s)))
            if not m.any():
                break
            s = s + np.where(m, t, 0.0)
            a = np.where(m, a + 1, a)
        done = (a < xs) & (np.abs(np.power(a, -xs)) <= 1e-18 * np.abs(s))  # the rest is below rounding
        big = (a >= 10) | done
        tail = a ** (1 - xs) / (xs - 1) + 0.5 * a ** -xs
        fac = xs.copy()  # x (x+1) ... (x + 2j - 2)
        pw = a ** (-xs - 1)
        for j, bj in enumerate(_BERN):
            tail = tail + bj / factorial(2 * j + 2) * fac * pw
            fac = fac * (xs + 2 * j + 1) * (xs + 2 * j + 2)
            pw = pw / (a * a)
        r = np.where(done, s, s + tail)
        out[ok] = np.where(big, r, np.nan)
    out[(x > 1) & (q == np.inf)] = 0.0
    return out.reshape(shape)


def polygamma(n, x):
    """psi^(n)(x): digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) for integers n >= 1; NaN for other n."""
    from math import gamma as _g
    shape = np.broadcast_shapes(np.shape(n), np.shape(x))
    n, x = (np.broadcast_to(np.asarray(v, np.float64), shape).ravel().copy() for v in (n, x))
    out = np.full(n.shape, np.nan)
    integral = (n >= 0) & (np.floor(n) == n) & np.isfinite(n)
    zero = integral & (n == 0)
    out[zero] = _digamma(x[zero])
    pos = integral & (n > 0)
    if pos.any():
        nn = n[pos]
        fact = np.array([_g(v + 1) if v < 171 else np.inf for v in nn])
        sign = np.where(nn % 2 == 1, 1.0, -1.0)
        out[pos] = sign * fact * zeta(nn + 1, x[pos])
    return out.reshape(shape)
