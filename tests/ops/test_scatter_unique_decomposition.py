"""tensor_scatter_nd_min/max, unique_with_counts, top_k(sorted=False), tf.linalg.lu/eig/eigvals, with values
and gradients recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


def test_tensor_scatter_nd_max_gradient_splits_ties():
    t = tf.Variable([1., 2, 3, 4])
    u = tf.Variable([5., 5., 0.])
    with tf.GradientTape() as g:
        y = tf.tensor_scatter_nd_max(t, [[1], [1], [3]], u)
    np.testing.assert_array_equal(y.numpy(), [1, 5, 3, 4])
    gt, gu = g.gradient(y, [t, u])
    np.testing.assert_array_equal(gt.numpy(), [1, 0, 1, 1])
    np.testing.assert_array_equal(gu.numpy(), [0.5, 0.5, 0])


def test_tensor_scatter_nd_min():
    t = tf.Variable([1., 2, 3, 4])
    u = tf.Variable([5., 5., 0.])
    with tf.GradientTape() as g:
        y = tf.tensor_scatter_nd_min(t, [[1], [2], [3]], u) * tf.constant([1., 2, 3, 4])
    np.testing.assert_array_equal(y.numpy(), [1, 4, 9, 0])
    gt, gu = g.gradient(y, [t, u])
    np.testing.assert_array_equal(gt.numpy(), [1, 2, 3, 0])
    np.testing.assert_array_equal(gu.numpy(), [0, 0, 4])
    m = tf.tensor_scatter_nd_min(tf.fill([2, 3], 5), [[1]], [[7, 1, 9]])
    np.testing.assert_array_equal(m.numpy(), [[5, 5, 5], [5, 1, 5]])
    with pytest.raises(InvalidArgumentError, match="indices"):
        tf.tensor_scatter_nd_max(t, [[7]], [1.])


def test_unique_with_counts():
    y, idx, count = tf.unique_with_counts(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    np.testing.assert_array_equal(y.numpy(), [1, 2, 4, 7, 8])
    np.testing.assert_array_equal(idx.numpy(), [0, 0, 1, 2, 2, 2, 3, 4, 4])
    np.testing.assert_array_equal(count.numpy(), [2, 1, 3, 1, 2])
    assert count.dtype == tf.int32
    _, idx, count = tf.unique_with_counts(tf.constant(["b", "a", "b"]), out_idx=tf.int64)
    assert count.dtype == tf.int64 and count.numpy().tolist() == [2, 1]

    @tf.function
    def f(x):
        return tf.unique_with_counts(x)
    assert f(tf.constant([3, 3, 1])).count.numpy().tolist() == [2, 1]


# Indices TensorFlow's CPU kernel returns for sorted=False (recorded).
TOPK_A = [[8, 3, 8, 8, 0, 5, 3, 5, 7, 6, 0, 4], [7, 8, 1, 6, 2, 2, 1, 3, 5, 8, 1, 8],
          [7, 8, 1, 0, 5, 4, 1, 5, 4, 7, 6, 0]]
TOPK_A_IDX = [[9, 8, 0, 2, 3], [3, 11, 0, 1, 9], [4, 10, 0, 1, 9]]
TOPK_B = [[0, 9, 18, 5, 7, 5, 14, 1, 17, 1, 10, 11, 4, 3, 16, 16, 0, 16, 18, 18, 11, 0, 13, 5, 16, 1, 17, 18, 2,
           4, 8, 12, 16, 10, 16, 4, 17, 17, 8, 7]]
TOPK_B_IDX = [[36, 8, 26, 18, 19, 2, 27]]


def test_top_k_unsorted_order_is_tensorflows():
    v, i = tf.math.top_k(tf.constant(TOPK_A, tf.float32), 5, sorted=False)
    assert i.numpy().tolist() == TOPK_A_IDX
    np.testing.assert_array_equal(v.numpy(), np.take_along_axis(np.array(TOPK_A), np.array(TOPK_A_IDX), 1))
    assert tf.math.top_k(tf.constant(TOPK_B), 7, sorted=False).indices.numpy().tolist() == TOPK_B_IDX
    assert tf.math.top_k([[1., 5, 2, 8, 3, 7]], 3, sorted=False).indices.numpy().tolist() == [[1, 3, 5]]
    # k equal to the row length sorts the whole row, as TensorFlow does.
    assert tf.math.top_k([[1., 5, 2, 8, 3, 7]], 6, sorted=False).indices.numpy().tolist() == [[3, 5, 1, 4, 2, 0]]


LU_IN = [[[-0.6028851270675659, -1.914471983909607, 1.0481475591659546, 1.333737850189209],
          [-0.19741468131542206, 1.7746450901031494, -0.6747274994850159, 0.1506168693304062],
          [0.15294569730758667, -1.0641952753067017, 0.437946617603302, 1.9389784336090088],
          [-1.0249308347702026, 0.89933842420578, -0.1545068472623825, 1.769627332687378]],
         [[0.4837883412837982, 0.6762164235115051, 0.64316326379776, 0.24908670783042908],
          [-1.3957635164260864, 1.3916629552841187, -1.3706690073013306, 0.2385631948709488],
          [0.614077091217041, -0.8379122614860535, 0.14506322145462036, 1.1678823232650757],
          [-0.024104470387101173, -0.8886573910713196, -2.9157378673553467, -0.971840500831604]]]
LU_OUT = [[[-1.0249308347702026, 0.89933842420578, -0.1545068472623825, 1.769627332687378],
           [0.5882202982902527, -2.443480968475342, 1.1390316486358643, 0.29280710220336914],
           [0.1926126927137375, -0.6553851366043091, 0.10153692960739136, 0.0016656070947647095],
           [-0.1492253839969635, 0.3806009292602539, -0.18344274163246155, 2.0919148921966553]],
          [[-1.3957635164260864, 1.3916629552841187, -1.3706690073013306, 0.2385631948709488],
           [-0.34661197662353516, 1.158583402633667, 0.16807296872138977, 0.33177557587623596],
           [0.017269738018512726, -0.7877646684646606, -2.75966477394104, -0.7145993709564209],
           [-0.4399578273296356, -0.19475440680980682, 0.15409132838249207, 1.447568416595459]]]
LU_P = [[3, 0, 1, 2], [1, 0, 3, 2]]
EIGVALS = [[-0.705096423625946, 1.9641718864440918 + 0.9876473546028137j, 1.9641718864440918 - 0.9876473546028137j,
            0.15608736872673035], [1.2412489652633667 + 0.3310135006904602j, 1.2412489652633667 - 0.3310135006904602j,
                                   -0.7169113159179688 + 1.844063639640808j, -0.7169113159179688 - 1.844063639640808j]]


def test_lu():
    lu, p = tf.linalg.lu(tf.constant(LU_IN, tf.float32))
    np.testing.assert_allclose(lu.numpy(), LU_OUT, rtol=1e-5, atol=1e-5)
    assert p.numpy().tolist() == LU_P and p.dtype == tf.int32
    assert tf.linalg.lu(np.array(LU_IN), output_idx_type=tf.int64).p.dtype == tf.int64
    with pytest.raises((ValueError, InvalidArgumentError), match="square"):
        tf.linalg.lu(tf.ones([2, 3]))


def test_eig_pairs_and_eigvals():
    m = tf.constant(LU_IN, tf.float32)
    e = tf.linalg.eigvals(m)
    assert e.dtype == tf.complex64
    for got, want in zip(e.numpy(), EIGVALS):  # the order of eigenvalues is unspecified
        np.testing.assert_allclose(sorted(got, key=lambda z: (round(z.real, 4), z.imag)),
                                   sorted(want, key=lambda z: (round(z.real, 4), z.imag)), rtol=1e-4, atol=1e-5)
    e, v = tf.linalg.eig(tf.constant(LU_IN, tf.float64))
    assert e.dtype == v.dtype == tf.complex128
    a = np.array(LU_IN, np.complex128)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * e.numpy()[:, None, :], atol=1e-10)


def test_eig_gradient():
    # Recorded from TensorFlow: d/dA of sum(Re(e)^2) and of sum(Re(e * v)^2) for a matrix with real spectrum.
    w = tf.Variable([[4., 3, 2], [6, 3, 1], [1, 2, 9]])
    with tf.GradientTape(persistent=True) as g:
        le = tf.reduce_sum(tf.math.real(tf.linalg.eigvals(w)) ** 2)
        e, v = tf.linalg.eig(w)
        lv = tf.reduce_sum(tf.math.real(e * v) ** 2)
    want = [[8, 12, 2], [6, 6, 4], [4, 2, 18]]
    np.testing.assert_allclose(g.gradient(le, w).numpy(), want, atol=2e-5)
    np.testing.assert_allclose(g.gradient(lv, w).numpy(), want, atol=2e-5)
