"""Reductions, arg-reductions and scans: NumPy references over axes/keepdims/dtypes, errors, gradients, graph shapes."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph
from rivulet.ops import math_ops as M

from .gradcheck import OpRecord, analytic_grads, check_fn_grad, check_op_grad


def _lse(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis)


# name: (public fn, op, NumPy reference, dtypes)
REDUCE = {
    "reduce_max": (tf.reduce_max, M.MAX, np.max, [np.float16, np.float32, np.float64, np.int32, np.uint8, np.int64]),
    "reduce_min": (tf.reduce_min, M.MIN, np.min, [np.float32, np.float64, np.int8, np.int32]),
    "reduce_prod": (tf.reduce_prod, M.PROD, np.prod, [np.float32, np.float64, np.int32, np.complex128]),
    "reduce_sum": (tf.reduce_sum, M.SUM, np.sum, [np.float32, np.int32, np.int8, np.complex64]),
    "reduce_logsumexp": (tf.reduce_logsumexp, M.LOGSUMEXP, _lse, [np.float32, np.float64]),
    "reduce_all": (tf.reduce_all, M.ALL, np.all, [np.bool_]),
    "reduce_any": (tf.reduce_any, M.ANY, np.any, [np.bool_]),
}
AXES = [None, 0, 1, -1, (0, 2), [2, 0, 1], ()]


def _sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) > 0.4
    x = rng.uniform(-2, 2, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-2, 2, shape)
    if np.dtype(dtype).kind in "iu":
        x = np.abs(np.round(x * 2)) if np.dtype(dtype).kind == "u" else np.round(x * 2)
    return x.astype(dtype)


@pytest.mark.parametrize("name", list(REDUCE))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_matches_numpy(name, axis, keepdims):
    fn, op, ref, dtypes = REDUCE[name]
    for dt in dtypes:
        x = _sample((2, 3, 4), dt)
        y = fn(tf.constant(x), axis=axis, keepdims=keepdims)
        np_axis = None if axis is None else tuple(a % 3 for a in np.atleast_1d(axis))
        expected = np.asarray(ref(x, axis=np_axis, keepdims=keepdims))
        assert y.dtype == tf.as_dtype(dt)  # int32 stays int32, bool stays bool
        assert y.shape == expected.shape
        rtol = 2e-3 if dt == np.float16 else 1e-6
        np.testing.assert_allclose(y.numpy(), expected.astype(dt), rtol=rtol)


@pytest.mark.parametrize("name", list(REDUCE))
def test_reduce_of_scalar_and_vector(name):
    fn, _, ref, dtypes = REDUCE[name]
    for x in (_sample((), dtypes[0]), _sample((5,), dtypes[0])):
        y = fn(tf.constant(x))
        assert y.shape == () and y.dtype == tf.as_dtype(dtypes[0])
        np.testing.assert_allclose(y.numpy(), ref(x), rtol=1e-6)


def test_empty_reductions_use_tensorflows_identities():
    np.testing.assert_array_equal(tf.reduce_max(tf.constant(np.zeros((0, 3), np.float32)), axis=0), [-np.inf] * 3)
    np.testing.assert_array_equal(tf.reduce_min(tf.constant(np.zeros((0, 3), np.int32)), axis=0),
                                  [np.iinfo(np.int32).max] * 3)
    assert tf.reduce_prod(tf.constant(np.zeros(0, np.float32))).numpy() == 1
    assert tf.reduce_logsumexp(tf.constant(np.zeros(0, np.float32))).numpy() == -np.inf


def test_reduce_special_values():
    assert np.isnan(tf.reduce_max(tf.constant([1.0, np.nan, 0.0])).numpy())
    assert np.isnan(tf.reduce_min(tf.constant([1.0, np.nan, 0.0])).numpy())
    assert tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])).numpy() == -np.inf
    assert tf.reduce_logsumexp(tf.constant([np.inf, 1.0])).numpy() == np.inf
    big = tf.reduce_logsumexp(tf.constant([1000.0, 1000.0]))  # no overflow
    np.testing.assert_allclose(big.numpy(), 1000 + np.log(2))


def test_reduce_errors():
    x = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(InvalidArgumentError, match=r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) "
                                                   r"\[Op:Max\]"):
        tf.reduce_max(x, axis=2)
    with pytest.raises(InvalidArgumentError, match=r"Invalid reduction dimension \(-3"):
        tf.reduce_prod(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match="Max"):
        tf.reduce_max(tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match="Max"):
        tf.reduce_max(tf.constant([1 + 1j]))
    with pytest.raises(InvalidArgumentError, match="Prod"):
        tf.reduce_prod(tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match="cannot compute All as input #0\\(zero-based\\) was expected to be "
                                                   "a bool tensor but is a int32 tensor"):
        tf.reduce_all(x)
    with pytest.raises(InvalidArgumentError, match="Any"):
        tf.reduce_any(tf.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match="int32"):
        tf.reduce_logsumexp(x)
    g = Graph()
    with g.as_default():
        p = g.placeholder(tf.float32, [None, 3])
        with pytest.raises(ValueError, match="Invalid reduction dimension"):
            tf.reduce_max(p, axis=2)
        with pytest.raises(TypeError, match="expected type of bool"):
            tf.reduce_any(p)


def test_variance_and_std():
    x = np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)
    for axis in (None, 0, 1):
        for keepdims in (False, True):
            v = tf.math.reduce_variance(tf.constant(x), axis=axis, keepdims=keepdims)
            s = tf.math.reduce_std(tf.constant(x), axis=axis, keepdims=keepdims)
            np.testing.assert_allclose(v.numpy(), np.var(x, axis=axis, keepdims=keepdims), rtol=1e-6)
            np.testing.assert_allclose(s.numpy(), np.std(x, axis=axis, keepdims=keepdims), rtol=1e-6)
            assert v.dtype == s.dtype == tf.float32
    c = tf.math.reduce_variance(tf.constant([1 + 1j, 2]))
    assert c.dtype == tf.float64 and c.numpy() == 0.5  # real for complex input
    with pytest.raises(TypeError, match="Input must be either real or complex. Received integer type"):
        tf.math.reduce_std(tf.constant([1, 2]))


# ---------------------------------------------------------------- gradients
GRAD_AXES = [None, 0, (1,), (0, 2)]


@pytest.mark.parametrize("op", [M.MAX, M.MIN, M.PROD, M.LOGSUMEXP, M.SUM, M.MEAN], ids=lambda o: o.name)
@pytest.mark.parametrize("axis", GRAD_AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_gradient(op, axis, keepdims):
    x = np.random.default_rng(7).permutation(24).reshape(2, 3, 4) / 7.0 - 1.5  # distinct: no ties
    axes = None if axis is None else tuple(np.atleast_1d(axis) % 3)
    check_op_grad(op, [x], {"axis": axes, "keepdims": keepdims}, atol=1e-7, rtol=1e-6)


def test_reduce_prod_gradient_with_zeros_and_complex():
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 5.0]])
    for axes in (None, (0,), (1,), (0, 1)):
        check_op_grad(M.PROD, [x], {"axis": axes, "keepdims": False}, atol=1e-7)
    check_op_grad(M.PROD, [x + 1j * x[::-1]], {"axis": (1,), "keepdims": True}, atol=1e-7)


def test_max_gradient_splits_ties_evenly():
    _, (g,) = analytic_grads(M.MAX, [np.array([1.0, 3.0, 3.0])], {"axis": None, "keepdims": False}, dy=np.float64(1))
    np.testing.assert_array_equal(g, [0, 0.5, 0.5])


@pytest.mark.filterwarnings("ignore:invalid value")  # -inf - -inf in Sub, whose kernel stays lean
def test_logsumexp_gradient_of_all_minus_inf_is_nan():
    _, (g,) = analytic_grads(M.LOGSUMEXP, [np.array([-np.inf, -np.inf])], {"axis": None, "keepdims": False},
                             dy=np.float64(1))
    assert np.isnan(g).all()  # as TensorFlow


def test_variance_and_std_gradients():
    x = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 0.5]])
    check_fn_grad(lambda t: tf.math.reduce_variance(t, axis=1), [x], atol=1e-7)
    check_fn_grad(lambda t: tf.math.reduce_std(t, axis=0, keepdims=True), [x], atol=1e-7)


def test_reduction_graph_shapes():
    g = Graph()
    with g.as_default():
        p = g.placeholder(tf.float32, [None, 3, 4])
        u = g.placeholder(tf.float32, None)
        b = g.placeholder(tf.bool, [2, None])
        cases = [(tf.reduce_max(p, 1), [None, 4]), (tf.reduce_min(p, [0, 2], keepdims=True), [1, 3, 1]),
                 (tf.reduce_prod(p), []), (tf.reduce_logsumexp(p, -1), [None, 3]), (tf.reduce_all(b, 1), [2]),
                 (tf.reduce_any(b, keepdims=True), [1, 1]), (tf.math.reduce_std(p, 0), [3, 4]),
                 (tf.reduce_max(u), [])]
        unknown = tf.reduce_max(u, axis=0)
    for y, shape in cases:
        assert y.shape.as_list() == shape
    assert cases[4][0].dtype == tf.bool and cases[0][0].dtype == tf.float32
    assert unknown.shape.rank is None


# ---------------------------------------------------------------- argmax / argmin
@pytest.mark.parametrize("fn,ref", [(tf.argmax, np.argmax), (tf.argmin, np.argmin)], ids=["argmax", "argmin"])
def test_arg_reductions(fn, ref):
    for dt in (np.float32, np.float64, np.int32, np.uint8, np.float16):
        x = _sample((3, 4, 5), dt, seed=3)
        for axis in (None, 0, 1, 2, -1, -3):
            y = fn(tf.constant(x), axis=axis)
            expected = ref(x, axis=0 if axis is None else axis)
            assert y.dtype == tf.int64 and y.shape == expected.shape
            np.testing.assert_array_equal(y.numpy(), expected)
    y = fn(tf.constant([[1, 5], [3, 4]]), axis=1, output_type=tf.int32)
    assert y.dtype == tf.int32 and y.shape == (2,)
    assert fn(tf.constant([True, False, True]), output_type=tf.int16).dtype == tf.int16
    assert fn(tf.constant(np.arange(4.0)), axis=tf.constant(0)).shape == ()


def test_arg_reductions_skip_nans_like_tensorflow():
    assert tf.argmax(tf.constant([1.0, np.nan, 0.0])).numpy() == 0
    assert tf.argmin(tf.constant([1.0, np.nan, 0.0])).numpy() == 2
    assert tf.argmax(tf.constant([np.nan, 1.0, 3.0])).numpy() == 2
    assert tf.argmin(tf.constant([np.nan, 1.0, 3.0])).numpy() == 1
    assert tf.argmax(tf.constant([np.nan, np.nan])).numpy() == 0
    np.testing.assert_array_equal(tf.argmax(tf.constant([[np.nan, 1.0, 3.0], [0, np.nan, 1]]), axis=1), [2, 2])


def test_arg_reduction_errors():
    x = tf.constant([[1, 5], [3, 4]])
    with pytest.raises(InvalidArgumentError, match=r"Expected dimension in the range \[-2, 2\), but got 2 \[Op:ArgMax\]"):
        tf.argmax(x, axis=2)
    with pytest.raises(InvalidArgumentError, match=r"range \[-2, 2\), but got -3 \[Op:ArgMin\]"):
        tf.argmin(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match=r"range \[0, 0\), but got 0"):
        tf.argmax(tf.constant(3))
    with pytest.raises(InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0\]"):
        tf.argmax(tf.constant(np.zeros(0, np.float32)))
    with pytest.raises(InvalidArgumentError, match="'output_type' of float is not in the list"):
        tf.argmax(x, output_type=tf.float32)
    with pytest.raises(TypeError, match="axis must be int"):
        tf.argmax(x, axis=[0])
    with pytest.raises(InvalidArgumentError, match="complex128"):
        tf.argmax(tf.constant([1 + 1j]))
    g = Graph()
    with g.as_default():
        p = g.placeholder(tf.float32, [None, 3])
        assert tf.argmax(p, 1).shape.as_list() == [None] and tf.argmax(p).dtype == tf.int64
        assert tf.argmin(g.placeholder(tf.float32, None), 1).shape.rank is None
        with pytest.raises(ValueError, match="Expected dimension in the range"):
            tf.argmax(p, 2)
    t = tf.constant([1.0, 2.0])
    assert M.ARGMAX.grad(OpRecord([t], [tf.argmax(t)], {}), None) == (None,)  # registered, but None (as TF)


# ---------------------------------------------------------------- cumsum / cumprod
def _ref_scan(fn, identity, x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    y = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        axis %= x.ndim
        first = np.full(y.shape[:axis] + (1,) + y.shape[axis + 1:], identity, y.dtype)
        y = np.delete(np.concatenate([first, y], axis), -1, axis)
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize("fn,npfn,identity", [(tf.cumsum, np.cumsum, 0), (tf.math.cumprod, np.cumprod, 1)],
                         ids=["cumsum", "cumprod"])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scans(fn, npfn, identity, exclusive, reverse):
    for dt in (np.float32, np.float64, np.int32, np.uint8, np.complex64):
        for shape in ((5,), (2, 3), (2, 3, 4), (0, 3)):
            x = _sample(shape, dt, seed=4)
            for axis in range(-len(shape), len(shape)):
                y = fn(tf.constant(x), axis=axis, exclusive=exclusive, reverse=reverse)
                assert y.dtype == tf.as_dtype(dt) and y.shape == shape
                np.testing.assert_allclose(y.numpy(), _ref_scan(npfn, identity, x, axis, exclusive, reverse),
                                           rtol=1e-6)


def test_scan_examples_and_errors():
    np.testing.assert_array_equal(tf.cumsum(tf.constant([1, 2, 3]), exclusive=True, reverse=True), [5, 3, 0])
    np.testing.assert_array_equal(tf.math.cumprod(tf.constant([1.0, 2, 3]), exclusive=True), [1, 1, 2])
    x = tf.constant([[1, 2, 3]])
    with pytest.raises(InvalidArgumentError, match=r"ScanOp: Expected scan axis in the range \[-2, 2\), but got 2"):
        tf.cumsum(x, axis=2)
    with pytest.raises(InvalidArgumentError, match=r"but got -1 \[Op:Cumsum\]"):  # TF shows -3 shifted by the rank
        tf.cumsum(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match=r"range \[0, 0\)"):
        tf.cumsum(tf.constant(3))
    with pytest.raises(InvalidArgumentError, match="Cumsum"):
        tf.cumsum(tf.constant([True]))
    with pytest.raises(TypeError, match="Cannot convert 1.0 to EagerTensor of dtype int32"):
        tf.cumsum(x, axis=1.0)
    g = Graph()
    with g.as_default():
        p = g.placeholder(tf.float32, [None, 3])
        assert tf.cumsum(p, 1).shape.as_list() == [None, 3]
        assert tf.math.cumprod(g.placeholder(tf.float32, None), -1).shape.rank is None
        with pytest.raises(InvalidArgumentError, match="ScanOp"):  # TF builds it; its kernel raises this
            tf.cumsum(p, 2)


@pytest.mark.parametrize("op", [M.CUMSUM, M.CUMPROD], ids=lambda o: o.name)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_gradients(op, exclusive, reverse):
    x = np.random.default_rng(5).uniform(0.5, 2, (3, 4))
    for axis in (0, 1):
        check_op_grad(op, [x], {"axis": axis, "exclusive": exclusive, "reverse": reverse}, atol=1e-7)


def test_cumprod_gradient_at_zero_follows_tensorflow():
    _, (g,) = analytic_grads(M.CUMPROD, [np.array([1.0, 0.0, 3.0])], {"axis": 0, "exclusive": False,
                                                                      "reverse": False}, dy=np.ones(3))
    np.testing.assert_array_equal(g, [1, 0, 0])  # TF divides with div_no_nan; the true value at x=0 is 4
