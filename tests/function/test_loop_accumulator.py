"""A loop variable the body only writes rows into (TensorScatterUpdate of itself, read nowhere else: a Keras RNN's
return_sequences buffer) is updated in place by a loop that owns it, not copied every iteration."""
import numpy as np

import rivulet as tf


def _rows_loop(n):
    @tf.function
    def f(x, buf):
        def body(t, h, buf):
            h = tf.tanh(h + x[t])
            return t + 1, h, tf.tensor_scatter_nd_update(buf, tf.reshape(t, [1, 1]), tf.expand_dims(h, 0))
        return tf.while_loop(lambda t, h, b: t < n, body, (0, tf.zeros([3]), buf))[2]
    return f


def _reference(x, buf, n):
    out, h = buf.copy(), np.zeros(3, np.float32)
    for t in range(n):
        h = np.tanh(h + x[t])
        out[t] = h
    return out


def test_rows_written_in_place_equal_the_copying_loop_and_leave_the_input_alone():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    buf = np.full((6, 3), 7.0, np.float32)
    f = _rows_loop(4)
    given = tf.constant(buf)
    got = f(tf.constant(x), given).numpy()
    np.testing.assert_allclose(got, _reference(x, buf, 4), rtol=1e-6)
    assert (given.numpy() == 7.0).all()  # the caller's buffer is copied once, not written
    got2 = f(tf.constant(x), given).numpy()  # a second run starts from the caller's buffer again
    np.testing.assert_array_equal(got, got2)
    (loop,) = [op for op in f.get_concrete_function(tf.constant(x), given).graph.get_operations()
               if op.type in ("While", "StatelessWhile")]
    body = loop.attrs["body"]
    assert [i for i, _ in body.body.accumulators(body.n_vars)] == [2]


def test_gradients_through_such_a_loop_are_unchanged():
    x = tf.constant(np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32))
    f = _rows_loop(5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x, tf.zeros([5, 3])) ** 2)
    g = tape.gradient(y, x).numpy()
    eps, xv = 1e-3, x.numpy().astype(np.float64)

    def loss(v):
        return float((_reference(v.astype(np.float32), np.zeros((5, 3), np.float32), 5).astype(np.float64) ** 2).sum())
    num = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        d = np.zeros_like(xv)
        d[idx] = eps
        num[idx] = (loss(xv + d) - loss(xv - d)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=2e-2, atol=2e-3)


def test_a_buffer_the_body_also_reads_is_not_an_accumulator():
    @tf.function
    def f(buf):
        def body(t, buf):
            row = tf.reduce_sum(buf, 0)  # reads the buffer: in place would change what it reads
            return t + 1, tf.tensor_scatter_nd_update(buf, tf.reshape(t, [1, 1]), tf.expand_dims(row, 0))
        return tf.while_loop(lambda t, b: t < 3, body, (0, buf))[1]
    b = np.ones((4, 2), np.float32)
    want = b.copy()
    for t in range(3):
        want[t] = want.sum(0)
    np.testing.assert_array_equal(f(tf.constant(b)).numpy(), want)
