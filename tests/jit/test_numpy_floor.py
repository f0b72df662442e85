"""The NumPy executor's hot-path kernels of a training step: the fused sparse cross-entropy, ReluGrad as a
mask multiply, the bias-gradient GEMV, unused cross-entropy outputs costing nothing, in-place AssignSub
(copy on write). Golden values from TensorFlow 2.21 where noted."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.core.dispatch import bind
from rivulet.ops.nn_ops import SPARSE_XENT


def sparse_xent(features, labels):
    """Both outputs of the op (the public function returns the loss only)."""
    return bind(SPARSE_XENT, (tf.convert_to_tensor(features), tf.convert_to_tensor(labels)))


def test_sparse_xent_matches_reference_formula():
    rs = np.random.default_rng(0)
    logits = rs.standard_normal((6, 5)).astype(np.float32) * 4
    labels = np.array([0, 4, 2, 2, 1, 3], np.int32)
    loss, backprop = sparse_xent(logits, labels)
    z = logits.astype(np.float64) - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    np.testing.assert_allclose(loss.numpy(), -logp[np.arange(6), labels], rtol=1e-5)
    want = np.exp(logp)
    want[np.arange(6), labels] -= 1
    np.testing.assert_allclose(backprop.numpy(), want, rtol=1e-5, atol=1e-6)
    assert loss.dtype == tf.float32 and backprop.shape == (6, 5)


def test_sparse_xent_higher_rank_and_float64_and_int64_labels():
    logits = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    labels = np.array([[0, 1, 3], [2, 2, 0]], np.int64)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.shape == (2, 3) and loss.dtype == tf.float64
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    want = -np.take_along_axis(logp, labels[..., None], -1)[..., 0]
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("bad", [-1, 5])
def test_sparse_xent_label_out_of_range(bad):
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"label value of {bad} which is outside the valid "
                                                            r"range of \[0, 5\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, bad], logits=np.zeros((2, 5), np.float32))


def test_relu_grad_keeps_nan_as_tensorflow():
    # TensorFlow 2.21: ReluGrad is dy * (x > 0), so a NaN/inf gradient gives NaN even where x <= 0.
    x = tf.constant([-1.0, 2.0, -3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.relu(x)
    g = t.gradient(y, x, output_gradients=tf.constant([np.nan, np.nan, np.inf]))
    assert np.isnan(g.numpy()).all()
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.relu(x)
    np.testing.assert_array_equal(t.gradient(y, x, output_gradients=tf.constant([5.0, 6.0, 7.0])).numpy(),
                                  [0.0, 6.0, 0.0])


def test_bias_gradient_fast_path():
    rs = np.random.default_rng(1)
    x = tf.constant(rs.standard_normal((7, 3)).astype(np.float32))
    b = tf.Variable(np.zeros(3, np.float32))
    for dt in (tf.float32, tf.float64):
        xx, bb = tf.cast(x, dt), tf.Variable(np.zeros(3, dt.as_numpy_dtype))
        with tf.GradientTape() as t:
            y = tf.reduce_sum((xx + bb) * tf.cast(tf.range(1, 4), dt))
        np.testing.assert_allclose(t.gradient(y, bb).numpy(), [7.0, 14.0, 21.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(x + b)
    assert t.gradient(y, b).dtype == tf.float32


def test_unused_backprop_output_adds_no_ops():
    logits = tf.constant(np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32))

    @tf.function
    def f(lg):
        with tf.GradientTape() as t:
            t.watch(lg)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2, 1], logits=lg))
        return t.gradient(loss, lg)

    g = f(logits).numpy()
    types = {op.type for op in f.get_concrete_function(logits).graph.get_operations()}
    assert "Softmax" not in types and "ZerosLike" not in types
    sm = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(-1, keepdims=True)
    sm[np.arange(4), [0, 1, 2, 1]] -= 1
    np.testing.assert_allclose(g, sm / 4, rtol=1e-5, atol=1e-7)


def test_second_output_gradient_still_flows():
    # When the backprop output is used, its gradient goes through (dloss may then be None).
    x = tf.constant([[1.0, 2.0, 0.5]])
    with tf.GradientTape() as t:
        t.watch(x)
        _, bp = sparse_xent(x, [1])
        y = tf.reduce_sum(bp * [1.0, 0.0, 0.0])
    sm = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    want = sm[0] * (np.eye(3)[0] - sm)  # d softmax_0 / dx
    np.testing.assert_allclose(t.gradient(y, x).numpy()[0], want, rtol=1e-5)


def test_assign_sub_copy_on_write():
    v = tf.Variable(np.array([1.0, 2.0], np.float32))
    r = v.read_value()
    held = v.numpy()
    v.assign_sub([1.0, 1.0])
    np.testing.assert_array_equal(r.numpy(), [1.0, 2.0])  # TensorFlow 2.21 prints [1. 2.] here too
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])


def test_assign_sub_in_place_when_nothing_else_holds_the_array():
    v = tf.Variable(np.full((300, 300), 3.0, np.float32))

    @tf.function
    def step():
        v.assign_sub(tf.ones((300, 300)))

    step()
    addr = v._value.__array_interface__["data"][0]
    step()
    assert v._value.__array_interface__["data"][0] == addr  # written in place (no copy)
    held = v.read_value()  # holds the array itself (numpy() would copy)
    step()
    assert held.numpy()[0, 0] == 1.0 and v.numpy()[0, 0] == 0.0  # held: copied, as TensorFlow does


def test_assign_sub_in_a_function_keeps_earlier_reads():
    v = tf.Variable(np.ones((300, 300), np.float32))

    @tf.function
    def f():
        before = v.read_value()
        v.assign_sub(tf.ones((300, 300)))
        return before, v.read_value()

    a, b = f()
    assert float(a.numpy().sum()) == 90000.0 and float(b.numpy().sum()) == 0.0


def test_graphs_of_small_gemms_run_blas_single_threaded(monkeypatch):
    from rivulet.execute import blas_threads, onednn
    if blas_threads._openblas() is None:
        pytest.skip("NumPy is not linked to OpenBLAS here")
    if onednn.api() is not None:
        # with the onednn extra these products run on oneDNN (execute/dense_chain.py): OpenBLAS's threads are
        # left as they are; the w5-sized graph is not wrapped in the BLAS Tuner either
        f = tf.function(lambda a, b: tf.matmul(a, b) * 2.0)
        f(tf.ones((64, 784)), tf.ones((784, 128)))
        assert not hasattr(f.get_concrete_function(tf.ones((64, 784)), tf.ones((784, 128)))._compiled.fn,
                           "__wrapped__")
        monkeypatch.setattr(onednn, "_found", [None])  # the OpenBLAS policy itself, as without the extra
    get, set_ = blas_threads._openblas()
    before = get()
    set_(2)
    try:
        inner = blas_threads.single_threaded(lambda: (get(), blas_threads.single_threaded(get)()))
        assert inner() == (1, 1) and get() == 2  # one thread inside (nested too), restored after

        def wrapped(fn, *args):
            fn(*args)
            return hasattr(fn.get_concrete_function(*args)._compiled.fn, "__wrapped__")

        mm = lambda a, b: tf.matmul(a, b) * 2.0  # noqa: E731
        mid = (tf.ones((20, 784)), tf.ones((784, 64)))  # split by OpenBLAS, small for us
        assert wrapped(tf.function(mm), *mid)
        assert not wrapped(tf.function(mm), tf.ones((4, 4)), tf.ones((4, 4)))  # never split anyway
        big = tf.function(mm)
        big(tf.ones((64, 784)), tf.ones((784, 128)))  # big: every thread while that is faster (a Tuner)
        fn = big.get_concrete_function(tf.ones((64, 784)), tf.ones((784, 128)))._compiled.fn
        assert isinstance(fn.tuner, blas_threads.Tuner)
        np.testing.assert_allclose(tf.function(mm)(*mid).numpy(), np.full((20, 64), 1568.0))
        tf.config.optimizer.set_experimental_options({"blas_threads_per_graph": False})
        try:
            assert not wrapped(tf.function(mm), *mid)
        finally:
            tf.config.optimizer.set_experimental_options({"blas_threads_per_graph": True})
    finally:
        set_(before)
