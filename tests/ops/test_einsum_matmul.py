"""tf.einsum's two-operand matrix products run as one np.matmul over views of the operands, and the gradient of
einsum(x, x) (a Gram matrix, as in TensorFlow's style transfer tutorial) is one contraction, not two."""
import numpy as np
import pytest

import rivulet as tf

EQUATIONS = [("bijc,bijd->bcd", (2, 9, 10, 6), (2, 9, 10, 7)), ("bcd,bijd->bijc", (2, 6, 7), (2, 9, 10, 7)),
             ("ij,jk->ik", (30, 40), (40, 50)), ("ij,kj->ki", (30, 40), (50, 40)), ("ji,jk->ik", (40, 30), (40, 50)),
             ("bhqd,bhkd->bhqk", (2, 3, 20, 8), (2, 3, 25, 8)), ("bhqk,bhkd->bqhd", (2, 3, 20, 25), (2, 3, 25, 8)),
             ("abcd,efcd->eafb", (3, 4, 5, 6), (7, 2, 5, 6)), ("ij,ij->", (60, 70), (60, 70)),
             ("i,j->ij", (300,), (400,)), ("abc,acd->bd", (5, 30, 40), (5, 40, 20))]


@pytest.mark.parametrize("eq,sa,sb", EQUATIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_matrix_product_forms_run_on_matmul(eq, sa, sb, dtype, monkeypatch):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(sa) * 4).astype(dtype)
    b = (rng.standard_normal(sb) * 4).astype(dtype)
    expected = np.einsum(eq, a.astype(np.complex128 if dtype == np.complex64 else np.float64),
                         b.astype(np.complex128 if dtype == np.complex64 else np.float64))

    def no_einsum(*args, **kwargs):
        raise AssertionError("np.einsum ran")
    monkeypatch.setattr(np, "einsum", no_einsum)
    got = tf.einsum(eq, tf.constant(a), tf.constant(b))
    assert got.dtype == tf.as_dtype(dtype) and got.shape.as_list() == list(expected.shape)
    if dtype == np.int32:
        np.testing.assert_array_equal(got.numpy(), expected.astype(np.int32))
    else:
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5 if dtype in (np.float32, np.complex64) else 1e-12,
                                   atol=1e-3 if dtype in (np.float32, np.complex64) else 1e-9)


def test_other_forms_still_use_numpy():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((20, 30, 30)), rng.standard_normal((30, 40))
    # a letter summed inside one operand, a diagonal
    for eq, x, y in [("aij,jk->k", a, b), ("aii,ik->ak", a, b[:, :30])]:
        np.testing.assert_allclose(tf.einsum(eq, x, y).numpy(), np.einsum(eq, x, y), rtol=1e-12)


def _einsum_types(fn, *args):
    return [op.type for op in tf.function(fn).get_concrete_function(*args).graph.get_operations()
            if op.type == "Einsum"]


@pytest.mark.parametrize("eq,shape", [("bijc,bijd->bcd", (2, 5, 6, 4)), ("ij,kj->ik", (4, 6)), ("ji,jk->ik", (6, 4)),
                                      ("ab,ba->ab", (5, 5))])
def test_gram_gradient_is_one_contraction(eq, shape):
    rng = np.random.default_rng(2)
    xv = rng.standard_normal(shape)
    y_shape = np.einsum(eq, xv, xv).shape
    w = rng.standard_normal(y_shape)

    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.einsum(eq, x, x) * w)
        return tape.gradient(loss, x)
    # the forward product and one gradient product (two before: one per operand, then their sum)
    assert len(_einsum_types(grad, tf.TensorSpec(shape, tf.float64))) == 2
    # d/dx sum(w * einsum(x, x)) = einsum(w, x) + einsum(w^T, x): the two operands' gradients, summed
    ins, out = eq.split("->")
    sa, sb = ins.split(",")
    expected = (np.einsum(f"{out},{sb}->{sa}", w, xv) + np.einsum(f"{out},{sa}->{sb}", w, xv))
    np.testing.assert_allclose(grad(tf.constant(xv)).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(tf.function(grad)(tf.constant(xv)).numpy(), expected, rtol=1e-12)


def test_twin_gradient_complex_and_distinct_operands():
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    w = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    x = tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.math.real(tf.reduce_sum(tf.einsum("ij,kj->ik", x, x) * w))
    g = tape.gradient(loss, x)
    # TensorFlow 2.21's gradient of this loss (recorded)
    expected = [[-0.106603 - 4.730425j, 6.026825 + 3.893758j, 3.926708 - 7.004742j, -0.822653 + 0.113203j],
                [-1.579065 + 6.212475j, 1.489151 - 5.316975j, -3.213811 + 5.789535j, -1.297947 - 0.953398j],
                [0.305752 + 2.85056j, 0.036341 - 9.213435j, -1.761414 - 1.815192j, -1.201464 + 1.212236j]]
    np.testing.assert_allclose(g.numpy(), expected, atol=2e-6)
    # two different tensors of the same value: each operand its own gradient, and they add up to the same
    a, b = tf.constant(xv), tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        loss = tf.math.real(tf.reduce_sum(tf.einsum("ij,kj->ik", a, b) * w))
    ga, gb = tape.gradient(loss, [a, b])
    assert ga is not None and gb is not None
    np.testing.assert_allclose(ga.numpy() + gb.numpy(), expected, atol=2e-6)


def _needs_onednn():
    from rivulet.execute import onednn
    if onednn.api() is None:
        pytest.skip("oneDNN (the `onednn` extra) is not installed")


@pytest.mark.parametrize("eq,sa,sb", [("bijc,bijd->bcd", (2, 100, 200, 16), (2, 100, 200, 16)),
                                      ("bcd,bijd->bijc", (2, 16, 16), (2, 100, 200, 16)),
                                      ("ij,jk->ik", (30000, 20), (20, 24)), ("ji,jk->ik", (30000, 20), (30000, 24))])
def test_tall_float32_products_run_on_onednn(eq, sa, sb, monkeypatch):
    _needs_onednn()
    rng = np.random.default_rng(4)
    a = rng.standard_normal(sa).astype(np.float32)
    b = a if eq == "bijc,bijd->bcd" else rng.standard_normal(sb).astype(np.float32)
    expected = np.einsum(eq, a.astype(np.float64), b.astype(np.float64))

    def no_matmul(*args, **kwargs):
        raise AssertionError("np.matmul ran")
    monkeypatch.setattr(np, "matmul", no_matmul)
    monkeypatch.setattr(np, "einsum", no_matmul)
    got = tf.einsum(eq, tf.constant(a), tf.constant(b))
    assert got.dtype == tf.float32 and got.shape.as_list() == list(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_tall_einsum_leaves_openblas_threads_alone():
    _needs_onednn()
    from rivulet.execute import blas_threads
    def grams(x):
        return tf.einsum("bijc,bijd->bcd", x, x), tf.einsum("bijc,bijd->bcd", tf.cast(x, tf.float64),
                                                             tf.cast(x, tf.float64))
    graph = tf.function(grams).get_concrete_function(tf.TensorSpec([1, 100, 200, 16], tf.float32)).graph
    einsums = [op for op in graph.get_operations() if op.type == "Einsum"]
    # the float32 Gram matrix runs on oneDNN and does not count; the float64 one is OpenBLAS's (20000x16x16)
    assert blas_threads.largest_gemm(einsums[:1]) == 0
    assert blas_threads.largest_gemm(einsums[1:]) == 20000 * 16 * 16
