"""tf.linalg.lu_reconstruct/lu_solve/lu_matrix_inverse, matrix_rank, tensor_diag(_part), tridiagonal_solve/matmul,
banded_triangular_solve, sqrtm (tf.matrix_square_root), logm, eigh_tridiagonal, tf.eig/eigvals; tf.inside_function,
is_symbolic_tensor, get_current_name_scope, guarantee_const, grad_pass_through, recompute_grad, hessians and
edit_distance: values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def test_lu_family():
    lu, p = tf.linalg.lu(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64))
    assert tf.linalg.lu_reconstruct(lu, p).numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    np.testing.assert_allclose(tf.linalg.lu_solve(lu, p, tf.constant([[1.0], [2.0]], tf.float64)).numpy(),
                               [[0.0], [0.5]], atol=1e-15)
    np.testing.assert_allclose(tf.linalg.lu_matrix_inverse(lu, p).numpy(), [[-2.0, 1.0], [1.5, -0.5]], rtol=1e-14)


def test_rank_and_tensor_diagonals():
    assert tf.linalg.matrix_rank(tf.constant([[1.0, 2.0], [2.0, 4.0]])).numpy() == 1
    assert tf.linalg.matrix_rank(tf.constant([[1.0, 0.0], [0.0, 1e-3]]), tol=1e-2).numpy() == 1
    assert tf.linalg.tensor_diag([1, 2]).numpy().tolist() == [[1, 0], [0, 2]]
    assert tf.linalg.tensor_diag([[1, 2], [3, 4]])[1, 0].numpy().tolist() == [[0, 0], [3, 0]]
    assert tf.linalg.tensor_diag_part(tf.reshape(tf.range(16), [2, 2, 2, 2])).numpy().tolist() == [[0, 5], [10, 15]]


def test_tridiagonal_and_banded():
    diags = tf.constant([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 0.0]], tf.float64)
    rhs = tf.constant([[1.0], [2.0], [3.0]], tf.float64)
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(diags, rhs).numpy(), [[1 / 3], [-0.23333333], [0.6]],
                               rtol=1e-7)
    seq = tuple(tf.constant(v, tf.float64) for v in ([0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 0.0]))
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(seq, rhs, diagonals_format="sequence").numpy(),
                               [[1 / 3], [-0.23333333], [0.6]], rtol=1e-7)
    assert tf.linalg.tridiagonal_matmul(diags, rhs).numpy().tolist() == [[3.0], [18.0], [15.0]]
    bands = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tf.constant([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(bands, b).numpy(), [[1.0], [-1.5], [4.0]])
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(bands, b, lower=False).numpy(),
                               [[0.2], [0.2], [0.5]], rtol=1e-6)
    x = tf.constant([[1.0], [2.0], [3.0]], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.linalg.tridiagonal_solve(diags, x))
    assert t.gradient(y, x).shape == (3, 1)


def test_sqrtm_logm_eigh_tridiagonal_eig():
    np.testing.assert_allclose(tf.linalg.sqrtm(tf.constant([[4.0, 1.0], [0.0, 9.0]], tf.float64)).numpy(),
                               [[2.0, 0.2], [0.0, 3.0]], rtol=1e-12)
    np.testing.assert_allclose(tf.matrix_square_root(tf.constant([[2.0, 1.0], [1.0, 2.0]])).numpy(),
                               [[1.366029977798462, 0.3660300076007843], [0.3660300076007843, 1.366029977798462]],
                               atol=1e-5)  # recorded to 5 decimals
    assert np.isnan(tf.linalg.sqrtm(tf.constant([[-4.0, 0.0], [0.0, 9.0]])).numpy()).all()
    np.testing.assert_allclose(tf.linalg.logm(tf.constant([[2.0, 1.0], [0.0, 3.0]], tf.complex128)).numpy(),
                               [[0.6931471805599453, 0.4054651081081644], [0.0, 1.0986122886681098]], atol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64, complex128"):
        tf.linalg.logm(tf.constant([[2.0, 1.0], [0.0, 3.0]]))
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0, 3.0], tf.float64),
                                                          tf.constant([0.5, 0.5], tf.float64)).numpy(),
                               [0.775255128608, 2.0, 3.224744871392], rtol=1e-10)
    m = tf.constant([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.0]], tf.float64)
    np.testing.assert_allclose(np.sort_complex(tf.eigvals(m).numpy()), np.sort_complex(
        np.array([3.69804806, 1.15097597 + 0.40314441j, 1.15097597 - 0.40314441j])), rtol=1e-7)
    assert tf.eig is tf.linalg.eig


def test_helpers():
    assert tf.inside_function() is False
    assert tf.function(lambda: tf.constant(1.0) if tf.inside_function() else None)().numpy() == 1.0
    assert tf.is_symbolic_tensor(tf.constant(1)) is False
    assert tf.function(lambda x: tf.constant(tf.is_symbolic_tensor(x)))(tf.constant(1)).numpy()
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            assert tf.get_current_name_scope() == "outer/inner"
    assert tf.get_current_name_scope() == ""
    assert tf.guarantee_const(tf.constant([1.0])).numpy().tolist() == [1.0]
    x = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = tf.grad_pass_through(lambda v: tf.round(v * 3.3))(x) * 2.0
    assert y.numpy() == 14.0 and t.gradient(y, x).numpy() == 2.0
    f = tf.recompute_grad(lambda v: tf.sin(v) * v)
    v = tf.constant(1.5)
    with tf.GradientTape() as t:
        t.watch(v)
        y = f(v)
    np.testing.assert_allclose([y.numpy(), t.gradient(y, v).numpy()], [1.4962425231933594, 1.1036007404327393],
                               rtol=1e-6)


def test_hessians():
    with pytest.raises(RuntimeError, match="tf.gradients is not supported when eager execution is enabled"):
        tf.hessians(tf.constant(1.0), tf.constant(1.0))

    @tf.function
    def hs(v):
        return tf.hessians(tf.reduce_sum(v ** 3) + v[0] * v[1], v)[0]
    assert hs(tf.constant([1.0, 2.0])).numpy().tolist() == [[6.0, 1.0], [1.0, 12.0]]


def test_edit_distance():
    h = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    t = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "c", "d"], [2, 2])
    d = tf.edit_distance(h, t)
    assert d.dtype == tf.float32 and d.numpy().tolist() == [1.0, 0.5]
    assert tf.edit_distance(h, t, normalize=False).numpy().tolist() == [1.0, 1.0]
    assert tf.edit_distance(tf.SparseTensor([[0, 0], [1, 0]], ["a", "b"], [2, 1]),
                            tf.SparseTensor([[1, 0]], ["b"], [2, 1])).numpy().tolist() == [np.inf, 0.0]
