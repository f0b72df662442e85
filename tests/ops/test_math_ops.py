"""Elementwise math ops: each against a NumPy reference over shapes and dtypes, errors, gradients, graph shapes."""
import math

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InternalError, InvalidArgumentError, NotFoundError
from rivulet.graph.graph import Graph
from rivulet.ops import math_ops as M

from .gradcheck import OpRecord, analytic_grads, check_op_grad

SHAPES = [(), (5,), (2, 3), (2, 1, 4)]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
SIGNED = [np.int8, np.int16, np.int32, np.int64]
_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)


def _sample(shape, dtype, domain, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = domain
    x = rng.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    elif np.dtype(dtype).kind in "iu":
        x = np.round(x * 3)
        x = np.abs(x) if np.dtype(dtype).kind == "u" else x
    return np.asarray(x).astype(dtype)


def _tol(dtype):
    return {"e": 2e-3, "f": 2e-6, "d": 1e-12, "F": 2e-6, "D": 1e-12}.get(np.dtype(dtype).char, 0)


ANY, POS, NEAR = (-3, 3), (0.2, 3), (-1.2, 1.2)
UNIT, ABOVE1 = (-0.9, 0.9), (1.2, 3)  # inside the domains of asin/acos/atanh and of acosh
# name: (public fn, op, NumPy reference, dtypes, sampling domain, differentiable)
UNARY = {
    "abs": (tf.abs, M.ABS, np.abs, FLOATS + SIGNED, ANY, True),
    "sign": (tf.sign, M.SIGN, np.sign, FLOATS + SIGNED + COMPLEX, ANY, True),
    "square": (tf.square, M.SQUARE, np.square, FLOATS + SIGNED + COMPLEX + [np.uint8], ANY, True),
    "sqrt": (tf.sqrt, M.SQRT, np.sqrt, FLOATS + COMPLEX, POS, True),
    "rsqrt": (tf.math.rsqrt, M.RSQRT, lambda x: 1 / np.sqrt(x), FLOATS + COMPLEX, POS, True),
    "exp": (tf.exp, M.EXP, np.exp, FLOATS + COMPLEX, ANY, True),
    "log": (tf.math.log, M.LOG, np.log, FLOATS + COMPLEX, POS, True),
    "log1p": (tf.math.log1p, M.LOG1P, np.log1p, FLOATS + COMPLEX, POS, True),
    "expm1": (tf.math.expm1, M.EXPM1, np.expm1, FLOATS + COMPLEX, ANY, True),
    "sin": (tf.sin, M.SIN, np.sin, FLOATS + COMPLEX, ANY, True),
    "cos": (tf.cos, M.COS, np.cos, FLOATS + COMPLEX, ANY, True),
    "tan": (tf.tan, M.TAN, np.tan, FLOATS + COMPLEX, NEAR, True),
    "tanh": (tf.tanh, M.TANH, np.tanh, FLOATS + COMPLEX, ANY, True),
    "sigmoid": (tf.sigmoid, M.SIGMOID, lambda x: 1 / (1 + np.exp(-x)), FLOATS + COMPLEX, ANY, True),
    "reciprocal": (tf.math.reciprocal, M.RECIPROCAL, np.reciprocal, FLOATS + COMPLEX, POS, True),
    "round": (tf.round, M.ROUND, np.round, FLOATS + SIGNED + COMPLEX, ANY, False),
    "ceil": (tf.math.ceil, M.CEIL, np.ceil, FLOATS, ANY, False),
    "floor": (tf.floor, M.FLOOR, np.floor, FLOATS, ANY, False),
    "erf": (tf.math.erf, M.ERF, _erf, FLOATS, ANY, True),
    "erfc": (tf.math.erfc, M.ERFC, _erfc, FLOATS, ANY, True),
    "is_nan": (tf.math.is_nan, M.IS_NAN, np.isnan, FLOATS, ANY, False),
    "is_inf": (tf.math.is_inf, M.IS_INF, np.isinf, FLOATS, ANY, False),
    "is_finite": (tf.math.is_finite, M.IS_FINITE, np.isfinite, FLOATS, ANY, False),
    "asin": (tf.math.asin, M.ASIN, np.arcsin, FLOATS + COMPLEX, UNIT, True),
    "acos": (tf.math.acos, M.ACOS, np.arccos, FLOATS + COMPLEX, UNIT, True),
    "atan": (tf.math.atan, M.ATAN, np.arctan, FLOATS + COMPLEX, ANY, True),
    "sinh": (tf.math.sinh, M.SINH, np.sinh, FLOATS + COMPLEX, ANY, True),
    "cosh": (tf.math.cosh, M.COSH, np.cosh, FLOATS + COMPLEX, ANY, True),
    "asinh": (tf.math.asinh, M.ASINH, np.arcsinh, FLOATS + COMPLEX, ANY, True),
    "acosh": (tf.math.acosh, M.ACOSH, np.arccosh, FLOATS + COMPLEX, ABOVE1, True),
    "atanh": (tf.math.atanh, M.ATANH, np.arctanh, FLOATS + COMPLEX, UNIT, True),
    "rint": (tf.math.rint, M.RINT, np.rint, [np.float32, np.float64], ANY, False),
}
# A dtype each op must reject (TensorFlow's op definition does not list it).
REJECTS = {"abs": np.uint8, "sign": np.uint8, "square": np.bool_, "round": np.uint8, "reciprocal": np.bool_}


def _unary_cases():
    for name, (fn, op, ref, dtypes, dom, _) in UNARY.items():
        for dt in dtypes:
            for shape in SHAPES:
                yield pytest.param(name, dt, shape, id=f"{name}-{np.dtype(dt).name}-{shape}")


@pytest.mark.parametrize("name,dtype,shape", list(_unary_cases()))
def test_unary_matches_numpy(name, dtype, shape):
    fn, op, ref, _, dom, _ = UNARY[name]
    x = _sample(shape, dtype, dom)
    y = fn(tf.constant(x))
    expected = np.asarray(ref(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)))
    assert y.shape == shape
    want_dtype = expected.dtype if expected.dtype == np.bool_ else x.dtype
    assert y.dtype == tf.as_dtype(want_dtype)
    np.testing.assert_allclose(np.asarray(y.numpy(), dtype=expected.dtype), expected, rtol=_tol(dtype),
                               atol=_tol(dtype))


def test_special_values_follow_tensorflow():
    x = tf.constant([0.0, -1.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(tf.math.log(x).numpy(), [-np.inf, np.nan, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(tf.math.rsqrt(tf.constant([0.0, -1.0])).numpy(), [np.inf, np.nan])
    np.testing.assert_array_equal(tf.math.reciprocal(tf.constant([0.0, -0.0])).numpy(), [np.inf, -np.inf])
    np.testing.assert_array_equal(tf.math.is_nan(x).numpy(), [False, False, False, False, True])
    np.testing.assert_array_equal(tf.math.is_inf(x).numpy(), [False, False, True, True, False])
    np.testing.assert_array_equal(tf.math.is_finite(x).numpy(), [True, True, False, False, False])
    np.testing.assert_array_equal(tf.sign(tf.constant([np.nan, -0.0, 2.0])).numpy(), [np.nan, 0, 1])
    np.testing.assert_array_equal(tf.math.erf(x).numpy(), np.float32([0, -math.erf(1), 1, -1, np.nan]))
    np.testing.assert_array_equal(tf.math.erfc(tf.constant([np.inf, -np.inf, 30.0])).numpy(), [0, 2, 0])
    assert tf.exp(tf.constant(100.0)).numpy() == np.inf  # no RuntimeWarning either (pytest would show it)
    np.testing.assert_array_equal(tf.abs(tf.constant([-128], tf.int8)).numpy(), [-128])


def _nan_inf_arithmetic():
    inf = tf.constant(float("inf"))
    return [inf - inf, inf * 0.0, tf.subtract(inf, inf), tf.constant([1.0, 0.0]) / 0.0,
            tf.math.log(tf.constant([0.0, -1.0])), tf.constant([3e38]) * 10.0, tf.add(inf, -inf)]


def _values(ts):
    return [np.asarray(t.numpy(), np.float64) for t in ts]


def test_nan_inf_arithmetic_is_silent_as_in_tensorflow():
    import warnings
    with np.errstate(all="ignore"):
        inf = np.float32(np.inf)
        expected = [inf - inf, inf * 0, inf - inf, np.float32([1, 0]) / 0, np.log(np.float32([0, -1])),
                    np.float32([3e38]) * 10, inf + -inf]
    with warnings.catch_warnings(record=True) as seen:
        got = _values(_nan_inf_arithmetic())
        np.float64(np.inf) - np.float64(np.inf)  # the user's own NumPy code still warns
    assert [str(w.message) for w in seen] == ["invalid value encountered in scalar subtract"]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, np.asarray(e, np.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # `python -W error`: the kernels still compute, silently
        for g, e in zip(_values(_nan_inf_arithmetic()), got):
            np.testing.assert_array_equal(g, e)


def test_round_is_bankers_rounding():
    for dt in (tf.float16, tf.float32, tf.float64):
        r = tf.round(tf.constant([0.5, 1.5, 2.5, -0.5, -2.5], dt))
        np.testing.assert_array_equal(r.numpy(), [0, 2, 2, -0, -2])
        assert r.dtype == dt
    assert tf.round(tf.constant([1, 2])).dtype == tf.int32


def test_sigmoid_keeps_tiny_tails():
    y = tf.sigmoid(tf.constant([-100.0, -20.0, 0.0, 100.0], tf.float64)).numpy()
    np.testing.assert_allclose(y, [3.7200759760208356e-44, 2.0611536181902033e-09, 0.5, 1.0], rtol=1e-14)
    assert tf.sigmoid(tf.constant(-100.0)).numpy() == 0.0


def test_erf_is_double_precision_accurate():
    x = np.concatenate([np.linspace(-8, 8, 4001), np.linspace(-1e-3, 1e-3, 101), [1e-300, -5e-8]])
    np.testing.assert_allclose(tf.math.erf(tf.constant(x)).numpy(), _erf(x), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(tf.math.erfc(tf.constant(x)).numpy(), _erfc(x), rtol=2e-14, atol=1e-300)


def test_abs_of_complex_is_real():
    for cdt, rdt in ((tf.complex64, tf.float32), (tf.complex128, tf.float64)):
        y = tf.abs(tf.constant([3 + 4j, -1j], cdt))
        assert y.dtype == rdt
        np.testing.assert_allclose(y.numpy(), [5, 1])
    assert abs(tf.constant([-2.0])).numpy()[0] == 2.0  # Python's abs() goes through tf.abs


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_rejects_dtype_eagerly_and_in_graphs(name):
    fn, op, *_ = UNARY[name]
    bad = np.array([1, 2], REJECTS.get(name, np.int32))
    with pytest.raises(InvalidArgumentError if name != "reciprocal" or bad.dtype == np.bool_ else NotFoundError,
                       match=op.name):
        fn(tf.constant(bad))
    g = Graph()
    with g.as_default(), pytest.raises(TypeError, match="not in the list of allowed values"):
        fn(g.placeholder(tf.as_dtype(bad.dtype), [2]))


def test_reciprocal_of_int_has_no_kernel():
    with pytest.raises(NotFoundError, match=r"Reciprocal\[T=DT_INT32\]"):
        tf.math.reciprocal(tf.constant([1, 2]))


@pytest.mark.parametrize("name", [n for n, spec in UNARY.items() if spec[5]])
def test_unary_gradient(name):
    _, op, _, dtypes, dom, _ = UNARY[name]
    check_op_grad(op, [_sample((2, 3), np.float64, dom, seed=1)], atol=1e-7, rtol=1e-6)
    if np.complex64 in dtypes and name != "sign":  # TF's Sign gradient is 0, also where x/|x| is not constant
        check_op_grad(op, [_sample((3,), np.complex128, dom, seed=2)], atol=1e-7, rtol=1e-6)


def test_complex_abs_gradient():
    check_op_grad(M.COMPLEX_ABS, [np.array([3 + 4j, -1 + 0.5j, 2j])], atol=1e-8)
    _, grads = analytic_grads(M.COMPLEX_ABS, [np.array([0j])])
    assert grads[0][0] == 0  # div_no_nan at 0, as in TensorFlow


@pytest.mark.parametrize("name", ["round", "ceil", "floor"])
def test_rounding_ops_have_no_gradient(name):
    x = tf.constant([1.5])
    assert UNARY[name][1].grad(OpRecord([x], [x], {}), x) == (None,)


def test_predicates_have_no_gradient_function():
    assert M.IS_NAN.grad is None and M.IS_INF.grad is None and M.IS_FINITE.grad is None


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_graph_shapes_and_dtype(name):
    fn, op, _, dtypes, dom, _ = UNARY[name]
    eager_dtype = fn(tf.constant(_sample((2,), dtypes[0], dom))).dtype
    g = Graph()
    with g.as_default():
        y = fn(g.placeholder(tf.as_dtype(dtypes[0]), [None, 3]))
        u = fn(g.placeholder(tf.as_dtype(dtypes[0]), None))
    assert y.shape.as_list() == [None, 3] and y.dtype == eager_dtype
    assert u.shape.rank is None and u.dtype == eager_dtype
    assert y.op.type == op.name


# ---------------------------------------------------------------- binary ops
def _ref_truncatediv(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y)
    return (np.sign(x) * np.sign(y) * (np.abs(x.astype(np.int64)) // np.abs(y.astype(np.int64)))).astype(x.dtype)


def _ref_xlogy(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0, x * np.log(y))


BINARY = {
    "squared_difference": (tf.math.squared_difference, M.SQUARED_DIFFERENCE, lambda x, y: (x - y) ** 2,
                           [np.float16, np.float32, np.float64, np.int32, np.int64], True),
    "truncatediv": (tf.truncatediv, M.TRUNCATEDIV, _ref_truncatediv,
                    [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8], False),
    "truncatemod": (tf.truncatemod, M.TRUNCATEMOD, np.fmod, [np.float32, np.float64, np.int32, np.int64], False),
    "divide_no_nan": (tf.math.divide_no_nan, M.DIV_NO_NAN, lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)),
                      [np.float16, np.float32, np.float64, np.complex128], True),
    "xdivy": (tf.math.xdivy, M.XDIVY, lambda x, y: np.where(x == 0, 0, x / y), [np.float32, np.float64], True),
    "xlogy": (tf.math.xlogy, M.XLOGY, _ref_xlogy, [np.float32, np.float64, np.complex128], True),
    "atan2": (tf.math.atan2, M.ATAN2, np.arctan2, [np.float16, np.float32, np.float64], True),
}
PAIRS = [((), ()), ((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ())]


def _nonzero(shape, dtype, seed):
    x = _sample(shape, dtype, POS if np.dtype(dtype).kind == "u" else ANY, seed)
    return np.where(x == 0, np.ones((), dtype), x).astype(dtype)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("sx,sy", PAIRS)
def test_binary_matches_numpy(name, sx, sy):
    fn, op, ref, dtypes, _ = BINARY[name]
    for dt in dtypes:
        x, y = _sample(sx, dt, ANY, 3), _nonzero(sy, dt, 4)
        if name in ("xdivy", "xlogy", "divide_no_nan") and np.ndim(x):
            x.reshape(-1)[0] = 0  # the special case
        if name == "divide_no_nan" and np.ndim(y):
            y.reshape(-1)[-1] = 0
        if name == "xlogy":
            y = np.abs(y).astype(dt)
        out = fn(tf.constant(x), tf.constant(y))
        assert out.dtype == tf.as_dtype(dt) and out.shape == np.broadcast_shapes(sx, sy)
        wide = np.complex128 if np.dtype(dt).kind == "c" else (np.float64 if np.dtype(dt).kind == "f" else dt)
        np.testing.assert_allclose(out.numpy(), ref(x.astype(wide), y.astype(wide)), rtol=_tol(dt) * 5,
                                   atol=_tol(dt) * 5)


def test_binary_special_cases_follow_tensorflow():
    assert tf.math.squared_difference(tf.constant([1 + 1j]), tf.constant([3 + 0j])).numpy()[0] == 5
    np.testing.assert_array_equal(tf.truncatediv(tf.constant([-7, 7]), tf.constant([2, -2])).numpy(), [-3, -3])
    np.testing.assert_array_equal(tf.truncatemod(tf.constant([-7, 7]), tf.constant([2, -2])).numpy(), [-1, 1])
    np.testing.assert_array_equal(tf.truncatediv(tf.constant([-128], tf.int8), tf.constant([-1], tf.int8)).numpy(),
                                  [-128])
    assert np.isnan(tf.truncatemod(tf.constant([5.0]), tf.constant([0.0])).numpy()[0])
    y = tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([0, 4]))
    assert y.dtype == tf.float64 and y.numpy().tolist() == [0.0, 0.5]
    np.testing.assert_array_equal(tf.math.divide_no_nan(tf.constant([np.inf, np.nan]), tf.constant([0.0, 0.0])),
                                  [0, 0])
    np.testing.assert_allclose(tf.math.xlogy(tf.constant([0.0, 2.0]), tf.constant([0.0, 4.0])), [0, 2 * np.log(4)])


def test_binary_errors():
    for fn in (tf.truncatediv, tf.truncatemod):
        with pytest.raises(InternalError, match="only integer div and mod should have errors"):
            fn(tf.constant([5, 1]), tf.constant([0, 1]))
    with pytest.raises(NotFoundError, match=r"TruncateDiv\[T=DT_COMPLEX128\]"):
        tf.truncatediv(tf.constant([5 + 0j]), tf.constant([2 + 0j]))
    with pytest.raises(InvalidArgumentError, match="TruncateMod"):
        tf.truncatemod(tf.constant([5], tf.uint8), tf.constant([2], tf.uint8))
    with pytest.raises(InvalidArgumentError, match="SquaredDifference"):
        tf.math.squared_difference(tf.constant([True]), tf.constant([False]))
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        tf.math.squared_difference(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(InvalidArgumentError, match="expected to be a float tensor but is a double tensor"):
        tf.math.xdivy(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(TypeError, match="must have the same dtype"):
        tf.math.divide_no_nan(tf.constant([5.0]), tf.constant([0]))


@pytest.mark.parametrize("name", [n for n, spec in BINARY.items() if spec[4]])
@pytest.mark.parametrize("sx,sy", [((2, 3), (2, 3)), ((2, 3), (3,)), ((1, 3), (2, 1))])
def test_binary_gradient(name, sx, sy):
    op = BINARY[name][1]
    x, y = _sample(sx, np.float64, ANY, 5), _sample(sy, np.float64, POS, 6)
    check_op_grad(op, [x, y], atol=1e-7, rtol=1e-6)


def test_binary_gradients_at_special_points_follow_tensorflow():
    dy = np.ones(2)
    _, (gx, gy) = analytic_grads(M.DIV_NO_NAN, [np.array([1.0, 2.0]), np.array([0.0, 4.0])], dy=dy)
    np.testing.assert_allclose(gx, [0, 0.25])
    np.testing.assert_allclose(gy, [0, -0.125])
    _, (gx, gy) = analytic_grads(M.XLOGY, [np.array([0.0, 1.0]), np.array([0.0, 2.0])], dy=dy)
    np.testing.assert_allclose(gx, [0, np.log(2)])
    np.testing.assert_allclose(gy, [0, 0.5])
    # TensorFlow does not conjugate in SquaredDifference's gradient.
    _, (gx, gy) = analytic_grads(M.SQUARED_DIFFERENCE, [np.array([1 + 1j]), np.array([2 + 0j])], dy=np.ones(1, complex))
    assert gx[0] == -2 + 2j and gy[0] == 2 - 2j
    x = tf.constant([1.0])
    assert M.TRUNCATEDIV.grad(OpRecord([x, x], [x], {}), x) == (None, None)
    assert M.TRUNCATEMOD.grad is None


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_graph_shapes(name):
    fn, op, _, dtypes, _ = BINARY[name]
    dt = tf.as_dtype(dtypes[0])
    g = Graph()
    with g.as_default():
        z = fn(g.placeholder(dt, [None, 3]), g.placeholder(dt, [3]))
        u = fn(g.placeholder(dt, None), g.placeholder(dt, [3]))
        with pytest.raises(ValueError, match="Incompatible shapes"):
            fn(g.placeholder(dt, [2]), g.placeholder(dt, [3]))
    assert z.shape.as_list() == [None, 3] and z.dtype == dt and u.shape.rank is None


# ---------------------------------------------------------------- add_n, clip_by_value
def test_add_n():
    xs = [np.arange(6, dtype=np.int32).reshape(2, 3) * k for k in range(1, 5)]
    for n in range(1, 5):
        y = tf.add_n([tf.constant(x) for x in xs[:n]])
        assert y.dtype == tf.int32
        np.testing.assert_array_equal(y.numpy(), sum(xs[:n]))
    assert tf.add_n([1, 2]).numpy() == 3 and tf.add_n(tf.constant([1, 2])).numpy() == 3
    a = tf.constant([1.0, 2.0])
    tf.add_n([a, a])
    np.testing.assert_array_equal(a.numpy(), [1, 2])  # the inputs are not summed into in place


def test_add_n_errors():
    with pytest.raises(ValueError, match="at least one Tensor"):
        tf.add_n([])
    with pytest.raises(InvalidArgumentError, match="input #1\\(zero-based\\) was expected to be a int32 tensor"):
        tf.add_n([tf.constant([1, 2]), tf.constant([3.0, 4.0])])
    with pytest.raises(InvalidArgumentError, match=r"same size and shape.  Input 0: \[2\] != input 1: \[1\]"):
        tf.add_n([tf.constant([1, 2]), tf.constant([3])])
    g = Graph()
    with g.as_default():
        assert tf.add_n([g.placeholder(tf.float32, [None, 3]), g.placeholder(tf.float32, [2, None])]).shape == [2, 3]
        with pytest.raises(ValueError):
            tf.add_n([g.placeholder(tf.float32, [2]), g.placeholder(tf.float32, [3])])


def test_add_n_gradient():
    grads = check_op_grad(M.ADD_N, [np.ones((2, 3)), np.zeros((2, 3)), np.full((2, 3), 2.0)])
    assert len(grads) == 3


def test_clip_by_value():
    x = tf.constant([1, 5, 9])
    np.testing.assert_array_equal(tf.clip_by_value(x, 2, 6).numpy(), [2, 5, 6])
    np.testing.assert_array_equal(tf.clip_by_value(x, 7, 6).numpy(), [7, 7, 7])  # TF: max(min(x, hi), lo)
    f = tf.clip_by_value(tf.constant([[1.0, 5.0, 9.0]]), tf.constant([[2.0]]), 6)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [[2, 5, 6]]
    y = tf.clip_by_value(tf.constant([[1.0, 5.0], [np.nan, -3.0]]), tf.constant([0.0, 1.0]), 4.0)
    np.testing.assert_array_equal(y.numpy(), [[1, 4], [np.nan, 1]])


def test_clip_by_value_errors():
    with pytest.raises(TypeError, match="Cannot convert 6.0 to EagerTensor of dtype int32"):
        tf.clip_by_value(tf.constant([1, 5, 9]), 2.0, 6.0)
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[3\] vs. \[2\]"):
        tf.clip_by_value(tf.constant([1, 5, 9]), tf.constant([2, 3]), 6)
    with pytest.raises(ValueError, match=r"Shapes \(1, 3\) and \(2, 3\) are incompatible"):
        tf.clip_by_value(tf.constant([[1, 5, 9]]), tf.constant([[2], [3]]), 6)
    with pytest.raises(InvalidArgumentError, match="complex128"):
        tf.clip_by_value(tf.constant([1 + 1j]), tf.constant(0j), tf.constant(1 + 0j))


def test_clip_by_value_gradient():
    x = np.array([[0.0, 1.1, 1.9, 3.0], [-1.0, 1.5, 2.5, 0.5]])
    check_op_grad(M.CLIP_BY_VALUE, [x, np.array(1.0), np.array([2.0, 2.0, 2.0, 2.0])])
    _, (gx, glo, ghi) = analytic_grads(M.CLIP_BY_VALUE, [np.array([0.0, 1.0, 2.0, 3.0]), np.array(1.0),
                                                         np.array(2.0)], dy=np.ones(4))
    assert gx.tolist() == [0, 1, 1, 0] and glo == 1 and ghi == 1  # ties pass the gradient to x, as in TF


def test_clip_by_value_graph_shape():
    g = Graph()
    with g.as_default():
        y = tf.clip_by_value(g.placeholder(tf.float32, [None, 3]), 0.0, g.placeholder(tf.float32, [3]))
    assert y.shape.as_list() == [None, 3] and y.dtype == tf.float32


# ---------------------------------------------------------------- names
TOP = ["abs", "exp", "sqrt", "square", "maximum", "minimum", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
       "reduce_any", "reduce_logsumexp", "argmax", "argmin", "add_n", "clip_by_value", "cumsum", "sign", "round",
       "sigmoid", "tanh", "sin", "cos", "tan", "floor", "truediv", "realdiv", "truncatediv", "truncatemod", "einsum",
       "tensordot", "norm"]
MATH = ["abs", "sign", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh",
        "sigmoid", "reciprocal", "round", "ceil", "floor", "is_nan", "is_inf", "is_finite", "erf", "erfc",
        "squared_difference", "divide_no_nan", "xdivy", "xlogy", "add_n", "reduce_max", "reduce_min", "reduce_prod",
        "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_std", "reduce_variance", "argmax", "argmin", "cumsum",
        "cumprod", "truediv"]


def test_public_names():
    for n in TOP:
        assert callable(getattr(tf, n)), n
    for n in MATH:
        assert getattr(tf.math, n).__name__ == n or n in ("truediv",), n
    assert tf.math.abs is tf.abs and tf.math.sigmoid is tf.sigmoid
    assert tf.realdiv(tf.constant(7.0), tf.constant(2.0)).numpy() == 3.5
