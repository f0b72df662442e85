"""tf.math.igamma, igammac, betainc, zeta, polygamma: values and gradients recorded from TensorFlow 2.21 (float64,
igamma in float32 too), special values, dtype rules."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors

INF, NAN = float("inf"), float("nan")

IG_A = [0.001, 0.1, 0.5, 1.0, 2.5, 10.0, 55.0, 300.0, 0.5, 2.5, 10.0, 10000.0, -1.0, 0.0, 1.0, 1.0]
IG_X = [0.5, 1e-05, 3.0, 1.0, 9.0, 0.05, 50.0, 290.0, 0.0, INF, 12.0, 11000.0, 1.0, 1.0, -1.0, NAN]
IGAMMA = [0.9994399333435292, 0.33239840504050333, 0.9856941215645704, 0.6321205588285578, 0.9970535954121197,
    2.5715803516000737e-20, 0.25769395149115887, 0.2861755102942748, 0.0, 1.0, 0.757607838329488, 1.0, NAN, NAN,
    NAN, NAN]
IGAMMAC = [0.0005600666564707923, 0.6676015949594967, 0.014305878435429641, 0.36787944117144233,
    0.0029464045878802923, 1.0, 0.7423060485088411, 0.7138244897057252, 1.0, 0.0, 0.24239216167051197,
    1.6928531496113722e-22, NAN, NAN, NAN, NAN]
IGAMMA_DA = [-0.5603594001080018, -3.6860253426748404, -0.04724032644797378, -0.43172971063489896,
    -0.004741679548193886, -1.3752553306197438e-19, -0.04433975677817377, -0.01975962427698194, 0.0, -0.0,
    -0.09717797203717947, -1.6308824173976404e-23, NAN, NAN, NAN, NAN]
IGAMMA_DX = [0.0012129196984382426, 3323.953832499028, 0.016217391109880484, 0.3678794411714423,
    0.0025065549350414625, 5.119791583245031e-18, 0.046380787403627194, 0.020087219754857555, INF, NAN,
    0.08736437990304949, 1.555548084998319e-23, 0.0, 0.0, NAN, NAN]
IGAMMA32 = [0.9994398355484009, 0.33239835500717163, 0.9856941103935242, 0.6321204900741577, 0.9970536231994629,
    2.571579154865773e-20, 0.25769466161727905, 0.2861747443675995, 0.0, 1.0, 0.7576075792312622, 1.0, NAN, NAN,
    NAN, NAN]
BA = [0.5, 1.0, 2.5, 10.0, 55.0, 0.1, 3.0, 2.0, -1.0, 1.0]
BB = [0.2, 3.0, 40.0, 1.0, 0.2, 0.1, 3.0, 2.0, 1.0, 1.0]
BX = [0.3, 0.5, 0.01, 0.77, 0.999, 0.5, 0.0, 1.0, 0.5, 1.5]
BETAINC = [0.19157920807197376, 0.875, 0.02419314394161459, 0.07326680472586211, 0.39654181952806433,
    0.5000000000000002, 0.0, 1.0, NAN, NAN]
BETAINC_DX = [0.38742416153528625, 0.7499999999999999, 5.386570771950542, 0.9515169444917153, 115.36751815457916,
    0.17663027797787384, 0.0, 0.0, NAN, 1.0]
ZX = [1.0, 1.0001, 1.5, 2.0, 3.0, 7.5, 20.0, 60.0, 0.5, 2.0, 3.0, 4.0, 2.5, 2.0, 60.0]
ZQ = [1.0, 2.0, 0.3, 1.0, 5.5, 0.01, 2.0, 1.5, 1.0, -2.0, -2.5, -0.5, -0.5, 1000000.0, 12.5]
ZETA = [INF, 9999.577222947539, 8.237761671459724, 1.6449340668482266, 0.01980447376065102, 1000000000000000.8,
    9.53962033872796e-07, 2.7197216389365646e-11, NAN, INF, 0.0541020258208641, 32.23484850566707, NAN,
    1.0000005000001667e-06, 1.5478420695159613e-66]
ZETA_DQ = [-1.6449340668482266, -0.6449048060003932, -31.603858803371587, -2.404113806319188, -0.00784529633794141,
    -7.499999999999999e+17, -9.538659735756129e-06, -1.0878886555746047e-09, -1.306187674342744, NAN,
    -97.37393810959378, -0.5790416377778709, NAN, -1.0000010000005002e-12, -7.424119400679023e-66]
PN = [0.0, 1.0, 2.0, 3.0, 5.0, 1.5, -1.0, 0.0, 1.0, 4.0]
PX = [0.7, 0.7, 2.5, -1.5, 10.0, 1.0, 1.0, -2.0, -3.3, 0.01]
POLYGAMMA = [-1.220023553697935, 2.8340491566946113, -0.23620405164172736, 194.59427621918758,
    0.00030594516211726814, NAN, NAN, NAN, 14.817739525515929, -240000000023.70093]
POLYGAMMA_DX = [2.8340491566946113, -6.434992874190923, 0.2239058488172521, -0.31375599950666083,
    -0.0001601508710767886, NAN, -0.5772156649015323, INF, 68.7694454774852, 120000000000115.02]


def _close(got, want, rtol, atol=1e-300):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = np.isfinite(want)
    np.testing.assert_array_equal(got[~ok & ~np.isnan(want)], want[~ok & ~np.isnan(want)])
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=atol)


def test_igamma_igammac_and_gradients():
    a, x = tf.constant(IG_A, tf.float64), tf.constant(IG_X, tf.float64)
    with tf.GradientTape(persistent=True) as t:
        t.watch([a, x])
        p = tf.math.igamma(a, x)
        q = tf.math.igammac(a, x)
    _close(p.numpy(), IGAMMA, 1e-11)
    _close(q.numpy(), IGAMMAC, 1e-10)
    da, dx = t.gradient(p, [a, x])
    _close(da.numpy(), IGAMMA_DA, 1e-8, 1e-20)  # d/da: TensorFlow's IgammaGradA; here central differences
    _close(dx.numpy(), IGAMMA_DX, 1e-10)
    da_c, dx_c = t.gradient(q, [a, x])
    _close(-dx_c.numpy(), IGAMMA_DX, 1e-10)
    y = tf.math.igamma(tf.constant(IG_A, tf.float32), tf.constant(IG_X, tf.float32))
    assert y.dtype == tf.float32
    _close(y.numpy(), IGAMMA32, 3e-6, 1e-7)


def test_igamma_broadcasts_and_reduces_its_gradient():
    a, x = tf.constant([[1.0], [2.0]]), tf.constant([0.5, 1.0, 2.0])
    np.testing.assert_allclose(tf.math.igamma(a, x).numpy(), [[0.39346936, 0.6321205, 0.86466473],
                                                              [0.09020401, 0.26424113, 0.5939942]], rtol=2e-6)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.math.igamma(a, x)
    assert t.gradient(y, x).shape == (3,)


def test_betainc():
    a, b, x = (tf.constant(v, tf.float64) for v in (BA, BB, BX))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.math.betainc(a, b, x)
    _close(y.numpy(), BETAINC, 1e-11)
    _close(t.gradient(y, x).numpy(), BETAINC_DX, 1e-10)
    np.testing.assert_allclose(tf.math.betainc(tf.constant([1.0, 2.0]), 2.0, tf.constant(0.5)).numpy(), [0.75, 0.5])
    with pytest.raises(errors.InvalidArgumentError, match=r"Shapes of a and b are inconsistent: \[2\] vs. \[3\]"):
        tf.math.betainc(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]), tf.constant(0.5))


def test_zeta_and_polygamma():
    x, q = tf.constant(ZX, tf.float64), tf.constant(ZQ, tf.float64)
    with tf.GradientTape() as t:
        t.watch(q)
        y = tf.math.zeta(x, q)
    _close(y.numpy(), ZETA, 1e-13)
    _close(t.gradient(y, q).numpy(), ZETA_DQ, 1e-12)
    n, v = tf.constant(PN, tf.float64), tf.constant(PX, tf.float64)
    with tf.GradientTape() as t:
        t.watch(v)
        y = tf.math.polygamma(n, v)
    _close(y.numpy(), POLYGAMMA, 1e-13)
    _close(t.gradient(y, v).numpy(), POLYGAMMA_DX, 1e-12)


def test_dtype_rules():
    with pytest.raises(errors.NotFoundError, match="node Igamma"):
        tf.math.igamma(tf.constant([1.0], tf.float16), tf.constant([1.0], tf.float16))
    for fn, n in ((tf.math.betainc, 3), (tf.math.zeta, 2), (tf.math.polygamma, 2)):
        with pytest.raises(errors.InvalidArgumentError, match="float16 is not in the list of allowed values"):
            fn(*([tf.constant([1.0], tf.float16)] * n))
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.math.igamma(tf.constant([1]), tf.constant([2]))


def test_in_tf_function():
    f = tf.function(lambda a, x: (tf.math.igammac(a, x), tf.math.zeta(a + 1.0, x)))
    p, z = f(tf.constant([2.5], tf.float64), tf.constant([9.0], tf.float64))
    _close(p.numpy(), [IGAMMAC[4]], 1e-10)
    assert np.isfinite(z.numpy()).all()
