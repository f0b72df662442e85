"""GatherGrad of a 2-D gather on axis 0 (an Embedding's gradient) sums rows with one bincount per column
(array_ops._row_sums) where that beats np.add.at; the values are the rows' sums either way."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.ops import array_ops


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_gradient_sums_repeated_rows(dtype, monkeypatch):
    used = []
    orig = array_ops._row_sums
    monkeypatch.setattr(array_ops, "_row_sums", lambda *a: used.append(1) or orig(*a))
    rng = np.random.default_rng(0)
    table = tf.Variable(rng.standard_normal((50, 8)).astype(dtype))
    idx = tf.constant(rng.integers(0, 50, (6, 20)), tf.int32)
    w = rng.standard_normal((6, 20, 8)).astype(dtype)

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(table, idx) * w)
        return tape.gradient(y, table)

    got = grad().numpy()
    want = np.zeros((50, 8), dtype)
    np.add.at(want, idx.numpy(), w)
    assert got.dtype == dtype and used
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_big_table_few_rows_keeps_add_at(monkeypatch):
    used = []
    monkeypatch.setattr(array_ops, "_row_sums", lambda *a: used.append(1))
    dy = np.ones((2, 4), np.float32)
    out = array_ops._gather_grad_kernel(dy, np.zeros((1000, 4), np.float32), np.array([3, 3]), 0, 0)
    assert not used and out[3].tolist() == [2.0] * 4 and out.sum() == 8
