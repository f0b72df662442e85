"""tf.experimental.numpy's functions, methods and indexing: values and dtypes as TensorFlow 2.21 gives them (legacy
NumPy promotion, Python values as int64/float64), eagerly, inside tf.function and under GradientTape."""
import numpy as np
import pytest

import rivulet as tf
import rivulet.experimental.numpy as tnp
from rivulet.ops import np_behavior


@pytest.fixture(autouse=True)
def _numpy_behavior():
    tnp.experimental_enable_numpy_behavior()
    yield
    tnp._disable_numpy_behavior()


X = [[1., -2., 3.], [4., 5., -6.]]
XI = [[1, 2, 3], [4, 5, 6]]
V = [3, 1, 2]


def _check(r, dtype, value, shape=None):
    assert isinstance(r, tnp.ndarray)
    assert r.dtype.name == dtype
    np.testing.assert_allclose(np.asarray(r), value, rtol=1e-5, atol=1e-5)
    if shape is not None:
        assert tuple(r.shape) == shape


# (expression, dtype, value): TensorFlow 2.21's outputs (tnp legacy mode)
CASES = [
    (lambda: tnp.floor(tnp.asarray(XI)), "float64", [[1, 2, 3], [4, 5, 6]]),
    (lambda: tnp.sqrt(tnp.asarray(XI)), "float64", [[1, 1.41421, 1.73205], [2, 2.23607, 2.44949]]),
    (lambda: tnp.log2(tf.constant(X)), "float64", [[0, np.nan, 1.58496], [2, 2.32193, np.nan]]),
    (lambda: tnp.angle(tnp.asarray(X)), "float32", [[0, 3.14159, 0], [0, 0, 3.14159]]),
    (lambda: tnp.cbrt(tnp.asarray(X)), "float64", [[1, -1.25992, 1.44225], [1.5874, 1.70998, -1.81712]]),
    (lambda: tnp.cumsum(tnp.asarray(V)), "int64", [3, 4, 6]),
    (lambda: tnp.sum(tnp.asarray([True, False, True])), "int64", 2),
    (lambda: tnp.mean(tnp.asarray(XI)), "float64", 3.5),
    (lambda: tnp.std(tnp.asarray(X)), "float64", 3.80424),
    (lambda: tnp.var(tnp.asarray(XI)), "float64", 2.91667),
    (lambda: tnp.argmax(tnp.asarray(X)), "int64", 4),
    (lambda: tnp.ptp(tnp.asarray(X)), "float64", 11),
    (lambda: tnp.diff(tnp.asarray(X)), "float64", [[-3, 5], [1, -11]]),
    (lambda: tnp.divide(tnp.asarray(XI), tnp.asarray(V)), "float64", [[0.33333, 2, 1.5], [1.33333, 5, 3]]),
    (lambda: tnp.floor_divide(tnp.asarray(X), 1.5), "float64", [[0, -2, 2], [2, 3, -4]]),
    (lambda: tnp.power(tnp.asarray(XI), 1.5), "float64", [[1, 2.82843, 5.19615], [8, 11.18034, 14.69694]]),
    (lambda: tnp.maximum(tnp.asarray(XI), 1.5), "float64", [[1.5, 2, 3], [4, 5, 6]]),
    (lambda: tnp.logaddexp(tnp.asarray(X), 2), "float64", [[2.31326, 2.01815, 3.31326], [4.12693, 5.04859, 2.00034]]),
    (lambda: tnp.heaviside(tnp.asarray(X), tnp.asarray(V)), "float64", [[1, 0, 1], [1, 1, 0]]),
    (lambda: tnp.outer(tnp.asarray(XI), tnp.asarray(V)), "int64",
     [[3, 1, 2], [6, 2, 4], [9, 3, 6], [12, 4, 8], [15, 5, 10], [18, 6, 12]]),
    (lambda: tnp.inner(tnp.asarray(X), tnp.asarray(V)), "float64", [7, 5]),
    (lambda: tnp.dot(tnp.asarray(XI), tnp.asarray(V)), "int64", [11, 29]),
    (lambda: tnp.kron(tnp.asarray(XI), tnp.asarray(V)), "int64",
     [[3, 1, 2, 6, 2, 4, 9, 3, 6], [12, 4, 8, 15, 5, 10, 18, 6, 12]]),
    (lambda: tnp.tensordot(tnp.asarray(X), tnp.asarray(X), [[1], [1]]), "float64", [[14, -24], [-24, 77]]),
    (lambda: tnp.einsum("ij,kj->ik", tnp.asarray(X), tnp.asarray(X)), "float64", [[14, -24], [-24, 77]]),
    (lambda: tnp.cross([1, 2, 3], [4, 5, 6]), "int64", [-3, 6, -3]),
    (lambda: tnp.full_like(tnp.asarray(XI), 2.5), "int64", [[2, 2, 2], [2, 2, 2]]),
    (lambda: tnp.eye(2, 3, k=1), "float64", [[0, 1, 0], [0, 0, 1]]),
    (lambda: tnp.arange(0, 1, 0.25), "float64", [0, 0.25, 0.5, 0.75]),
    (lambda: tnp.linspace(0, 1, 4, endpoint=False), "float64", [0, 0.25, 0.5, 0.75]),
    (lambda: tnp.logspace(0, 2, 3), "float64", [1, 10, 100]),
    (lambda: tnp.triu(tnp.ones([3, 3]), 1), "float64", [[0, 1, 1], [0, 0, 1], [0, 0, 0]]),
    (lambda: tnp.diagonal(tnp.asarray(XI), 1), "int64", [2, 6]),
    (lambda: tnp.trace(tnp.asarray(XI)), "int64", 6),
    (lambda: tnp.dstack([tnp.asarray(V), tnp.asarray(V)]), "int64", [[[3, 3], [1, 1], [2, 2]]]),
    (lambda: tnp.repeat(tnp.asarray(XI), [1, 2], axis=0), "int64", [[1, 2, 3], [4, 5, 6], [4, 5, 6]]),
    (lambda: tnp.roll(tnp.asarray(XI), 1, axis=1), "int64", [[3, 1, 2], [6, 4, 5]]),
    (lambda: tnp.rot90(tnp.asarray(XI)), "int64", [[3, 6], [2, 5], [1, 4]]),
    (lambda: tnp.rot90(tnp.asarray(XI), 3), "int64", [[4, 1], [5, 2], [6, 3]]),
    (lambda: tnp.take(tnp.asarray(XI), [2, 0], axis=1), "int64", [[3, 1], [6, 4]]),
    (lambda: tnp.take_along_axis(tnp.asarray(XI), tnp.asarray([[0], [2]]), 1), "int64", [[1], [6]]),
    (lambda: tnp.compress([True, False], tnp.asarray(XI), axis=0), "int64", [[1, 2, 3]]),
    (lambda: tnp.clip(tnp.asarray(XI), 2, 4.5), "float64", [[2, 2, 3], [4, 4.5, 4.5]]),
    (lambda: tnp.vander([1, 2, 3]), "int64", [[1, 1, 1], [4, 2, 1], [9, 3, 1]]),
    (lambda: tnp.polyval([1, 2, 3], 2), "int64", 11),
    (lambda: tnp.average(tnp.asarray(XI), axis=1, weights=[1, 2, 3]), "float64", [2.33333, 5.33333]),
    (lambda: tnp.round(tnp.asarray([1.234, 5.678]), 1), "float64", [1.2, 5.7]),
    (lambda: tnp.array([1, 2], ndmin=3), "int64", [[[1, 2]]]),
    (lambda: tnp.nanmean(tnp.asarray([1., np.nan, 3.])), "float64", 2),
    (lambda: tnp.where(tnp.asarray([True, False, True]), tnp.asarray(V), 0), "int64", [3, 0, 2]),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_function_values(i):
    expr, dtype, value = CASES[i]
    _check(expr(), dtype, value)


def test_several_results():
    a, b, c = tnp.split(tnp.arange(6), [1, 4])
    _check(a, "int64", [0])
    _check(b, "int64", [1, 2, 3])
    _check(c, "int64", [4, 5])
    r, c = tnp.nonzero(tnp.asarray(XI) > 2)
    _check(r, "int64", [0, 1, 1, 1])
    _check(c, "int64", [2, 0, 1, 2])
    x, y = tnp.meshgrid([1, 2], [3, 4, 5])
    _check(x, "int64", [[1, 2], [1, 2], [1, 2]])
    _check(y, "int64", [[3, 3], [4, 4], [5, 5]])
    assert tnp.result_type(tnp.int32, tnp.float32) == tf.float64
    assert tnp.promote_types(tnp.int8, tnp.uint8) == np.dtype("int16")
    assert tnp.shape(tnp.asarray(XI)) == tf.TensorShape([2, 3])
    _check(tnp.size(tnp.asarray(XI)), "int64", 6)


def test_methods():
    xi = tnp.asarray(XI)
    _check(xi.T, "int64", [[1, 4], [2, 5], [3, 6]])
    _check(xi.reshape(3, 2), "int64", [[1, 2], [3, 4], [5, 6]])
    _check(xi.reshape(-1), "int64", [1, 2, 3, 4, 5, 6], (6,))
    _check(xi.astype(tnp.float32), "float32", XI)
    _check(xi.ravel(), "int64", [1, 2, 3, 4, 5, 6])
    x = tnp.asarray(X)
    _check(x.clip(0, 2), "float64", [[1, 0, 2], [2, 2, 0]])
    _check(x.mean(axis=0), "float64", [2.5, 1.5, -1.5])
    _check(xi.size, "int64", 6)
    assert xi.tolist() == XI
    ones = tnp.ones([5, 3], dtype=tnp.float32)
    assert ones.T.shape == (3, 5) and isinstance(ones, tf.Tensor)


def test_numpy_indexing():
    y = tnp.arange(24).reshape(2, 3, 4)
    _check(y[1, tnp.newaxis, 1:3, ...], "int64", [[[16, 17, 18, 19], [20, 21, 22, 23]]])
    _check(y[:, (True, False, True)], "int64", [[[0, 1, 2, 3], [8, 9, 10, 11]], [[12, 13, 14, 15], [20, 21, 22, 23]]])
    _check(y[1, (0, 0, 1), tnp.asarray([0, 1, 1])], "int64", [12, 13, 17])
    _check(y[y > 20], "int64", [21, 22, 23])
    _check(y[..., [0, 3]], "int64", [[[0, 3], [4, 7], [8, 11]], [[12, 15], [16, 19], [20, 23]]])
    _check(y[np.array([1, 0]), :, 0], "int64", [[12, 16, 20], [0, 4, 8]])
    _check(y[:, [0, 2], 1:3], "int64", [[[1, 2], [9, 10]], [[13, 14], [21, 22]]])
    with pytest.raises(TypeError):
        tnp.arange(6)[1] = -1


def test_numpy_interop():
    s = np.sum(tnp.ones([2, 3]))
    assert isinstance(s, np.float64) and s == 6.0
    t = tnp.sum(np.ones([2, 3]))
    assert isinstance(t, tf.Tensor) and float(t) == 6.0
    r = tnp.ones([2]) + np.ones([2])
    _check(r, "float64", [2, 2])
    r = np.ones(2, np.float32) + tnp.ones(2)
    _check(r, "float64", [2, 2])
    _check([1, 2] + tnp.ones(2), "float64", [2, 3])
    x = tf.constant([1, 2])
    assert tnp.asarray(x) is x


def test_gradients_and_tf_function():
    w = tnp.asarray([[1., 2.], [3., 4.]])
    x = tnp.asarray([[1., -1.]])

    def loss(w):
        return tnp.sum(tnp.square(tnp.maximum(tnp.matmul(x, w), 0)))
    with tf.GradientTape() as tape:
        tape.watch(w)
        l = loss(w)
    g = tape.gradient(l, w)
    assert isinstance(g, tnp.ndarray)
    np.testing.assert_allclose(np.asarray(g), [[0, 0], [0, 0]])  # (x @ w) = [-2, -2]: relu'd away
    x = tnp.asarray([[1., 2.]])
    with tf.GradientTape() as tape:
        tape.watch(w)
        l = loss(w)
    np.testing.assert_allclose(np.asarray(tape.gradient(l, w)), [[14, 20], [28, 40]])

    @tf.function
    def f(a, b):
        return tnp.mean(tnp.exp(a) * b + tnp.asarray(1.5)), a.T.reshape(-1)[1:]
    m, r = f(tnp.asarray([[0., 1.]]), tnp.asarray([2., 3.]))
    np.testing.assert_allclose(float(m), 1.5 + (2 + 3 * np.e) / 2)
    _check(r, "float64", [1.])


def test_random_numbers_are_tensorflows():
    tnp.random.seed(7)  # TensorFlow 2.21's numbers for this seed and sequence of calls
    np.testing.assert_allclose(np.asarray(tnp.random.randn(3)), [0.20519253, 0.86145926, -0.86256865], rtol=1e-6)
    assert np.asarray(tnp.random.randint(0, 10, size=(4,))).tolist() == [4, 9, 4, 7]
    np.testing.assert_allclose(np.asarray(tnp.random.rand(2)), [0.01229512, 0.07502134], rtol=1e-6)


def test_random():
    tnp.random.seed(1)
    a = tnp.random.randn(3, 2)
    tnp.random.seed(1)
    b = tnp.random.randn(3, 2)
    assert a.dtype == tf.float64 and a.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    u = tnp.random.uniform(2., 3., size=(100,))
    assert u.dtype == tf.float64 and 2 <= float(tnp.min(u)) and float(tnp.max(u)) < 3
    i = tnp.random.randint(0, 5, size=(50,))
    assert i.dtype == tf.int64 and 0 <= int(tnp.min(i)) and int(tnp.max(i)) < 5
    assert tnp.random.rand(4).shape == (4,) and tnp.random.standard_normal(2).dtype == tf.float64
    assert tnp.random.poisson(2., size=3).dtype == tf.int64


def test_all_mode_functions():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    x = tnp.asarray([[1, 2, 3], [4, 5, 6]])
    assert np_behavior.is_weak(x) and x.dtype == tf.int32
    s = tnp.sum(x)
    assert s.dtype == tf.int32 and np_behavior.is_weak(s) and int(s) == 21
    assert tnp.mean(tnp.asarray([True, False])).dtype == tf.float32
    assert tnp.ones(3).dtype == tf.float32 and not np_behavior.is_weak(tnp.ones(3))
    r = tnp.add(tnp.asarray([1., 2.]), tnp.asarray([1, 2]))  # tnp's own functions: NumPy's rules, strong
    assert r.dtype == tf.float64 and not np_behavior.is_weak(r)
    r = tnp.matmul(tnp.asarray([[1., 2.]]), tnp.asarray([[1], [2]]))  # matmul: the lattice
    assert r.dtype == tf.float32 and np_behavior.is_weak(r)
    assert np_behavior.is_weak(x.T) and np_behavior.is_weak(tnp.sort(x))
    # TensorFlow 2.21: array functions (concatenate, clip, kron, cross) take the lattice's dtype, strong
    r = tnp.concatenate([x, tnp.asarray([[1., -2., 3.]])])
    assert r.dtype == tf.float32 and not np_behavior.is_weak(r)
    r = tnp.clip(x, 2, 4.5)
    assert r.dtype == tf.float32 and np.asarray(r).tolist() == [[2, 2, 3], [4, 4.5, 4.5]]
    assert tnp.cross([1, 2, 3], [4, 5, 6]).dtype == tf.int32
    r = tnp.full((2, 2), 7)
    assert r.dtype == tf.int32 and not np_behavior.is_weak(r)


def test_vectorized_map_per_example_gradients():
    w = tnp.asarray([[1., 2.], [3., 4.]]).astype(tnp.float32)

    def grads(arg):
        inp, label = arg
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tnp.sum(tnp.square(tnp.matmul(tnp.expand_dims(inp, 0), w) - label))
        return tape.gradient(loss, w)

    inputs = tnp.asarray([[1., 0.], [0., 1.], [1., 1.]]).astype(tnp.float32)
    labels = tnp.zeros([3, 2], tnp.float32)
    g = tf.function(lambda i, l: tf.vectorized_map(grads, (i, l)))(inputs, labels)
    assert g.shape == (3, 2, 2) and g.dtype == tf.float32
    # d/dw sum((x w)^2) = 2 x^T (x w)
    want = [2 * np.outer(x, x @ np.asarray([[1., 2.], [3., 4.]])) for x in np.asarray(inputs)]
    np.testing.assert_allclose(np.asarray(g), want)


def test_numpy_indexing_traced():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.int32)])
    def f(x, i):
        return x[:, [0, 2]], x[i], x[..., tf.constant([-1, 0])], x.T.reshape(-1)

    x = tnp.asarray([[1., 2., 3.], [4., 5., 6.]]).astype(tnp.float32)
    a, b, c, d = f(x, tf.constant([1, 0, 1]))
    _check(a, "float32", [[1, 3], [4, 6]])
    _check(b, "float32", [[4, 5, 6], [1, 2, 3], [4, 5, 6]])
    _check(c, "float32", [[3, 1], [6, 4]])
    _check(d, "float32", [1, 4, 2, 5, 3, 6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        s = tnp.sum(x[:, [0, 0, 2]] * tnp.asarray([1., 2., 3.]).astype(tnp.float32))
    np.testing.assert_allclose(np.asarray(tape.gradient(s, x)), [[3, 0, 3], [3, 0, 3]])
