"""Second-order gradients through while loops in tf.function (a gradient of a gradient, a gradient penalty, a
Hessian): where a tape records a loop's gradient, the gradient is built as While ops, which are differentiable.
Expected values recorded with TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def _close(got, want, tol=2e-4):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=tol,
                               atol=tol)


def test_hessian_of_a_tensor_loop():
    x = tf.Variable([0.5, -1.0, 2.0])
    w = tf.constant([[0.3, -0.2, 0.1], [0.5, 0.4, -0.3], [0.2, 0.1, 0.6]])

    @tf.function
    def f():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                h = x
                for _ in tf.range(4):
                    h = tf.tanh(tf.linalg.matvec(w, h)) + 0.1 * h * h
                y = tf.reduce_sum(h * h)
            g = t1.gradient(y, x)
        return y, g, t2.jacobian(g, x)

    y, g, hess = f()
    _close(y, 0.18787)
    _close(g, [0.04157, -0.00496, 0.14732])
    _close(hess, [[0.00619, 0.00025, -0.0156], [0.00025, -0.0024, -0.00356], [-0.0156, -0.00356, 0.04334]])


def test_captured_tensor_and_counter():
    @tf.function
    def f(c):
        with tf.GradientTape(persistent=True) as t2:
            t2.watch(c)
            with tf.GradientTape() as t1:
                t1.watch(c)
                i = tf.constant(0)
                s = tf.constant(1.0)
                while i < 3:
                    s = s * c + tf.sin(s)
                    i += 1
            g = t1.gradient(s, c)
        return s, g, t2.gradient(g, c)

    _close(f(tf.constant(0.7)), [2.32883, 2.56396, 0.24959])


def test_nested_loops():
    @tf.function
    def f(c):
        with tf.GradientTape() as t2:
            t2.watch(c)
            with tf.GradientTape() as t1:
                t1.watch(c)
                acc = tf.constant(0.0)
                for i in tf.range(3):
                    inner = c
                    for _ in tf.range(i + 1):
                        inner = inner * c
                    acc = acc + inner
            g = t1.gradient(acc, c)
        return acc, g, t2.gradient(g, c)

    _close(f(tf.constant(1.3)), [6.7431, 16.458, 30.08])


def test_while_loop_api_with_output_used_after():
    @tf.function
    def f(c):
        with tf.GradientTape() as t2:
            t2.watch(c)
            with tf.GradientTape() as t1:
                t1.watch(c)
                _, v = tf.while_loop(lambda k, v: k < 5, lambda k, v: (k + 1, v * tf.cos(c) + c), (0, c))
                y = v * v
            g = t1.gradient(y, c)
        return y, g, t2.gradient(g, c)

    _close(f(tf.constant(0.4)), [3.89414, 12.02508, -28.29162])


def test_map_fn_and_tensor_array_loops():
    x = tf.Variable([0.5, -1.0, 2.0])

    @tf.function
    def mapped():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = tf.reduce_sum(tf.map_fn(lambda v: tf.sin(v) * v * x[0], x))
            g = t1.gradient(y, x)
        return y, g, t2.jacobian(g, x)

    y, g, hess = mapped()
    _close(y, 1.44989)
    _close(g, [3.35889, -0.69089, 0.0385])
    _close(hess, [[2.59416, -1.38177, 0.077], [-1.38177, 0.11957, 0.0], [0.077, 0.0, -1.32544]])

    @tf.function
    def written():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                ta = tf.TensorArray(tf.float32, size=3)
                for i in tf.range(3):
                    ta = ta.write(i, x[i] ** 3)
                y = tf.reduce_sum(ta.stack())
            g = t1.gradient(y, x)
        return y, g, t2.gradient(g, x)

    y, g, g2 = written()
    _close(y, 7.125)
    _close(g, [0.75, 3.0, 12.0])
    _close(g2, [3.0, -6.0, 12.0])


def test_gathered_rows_of_a_variable():
    e = tf.Variable(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    ids = tf.constant([2, 0, 3])

    @tf.function
    def f():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                h = tf.zeros([3])
                for i in tf.range(3):
                    h = tf.tanh(h + tf.gather(e, ids[i]) * 2.0)
                y = tf.reduce_sum(h ** 2)
            g = t1.gradient(y, e)
            gn = tf.reduce_sum(tf.convert_to_tensor(g) ** 2)
        return y, gn, t2.gradient(gn, e)

    y, gn, g2 = f()
    _close(y, 1.37393)
    _close(gn, 4.56621)
    _close(g2, [[1.35546, 0.61633, -2.31106], [0, 0, 0], [1.29455, -0.08809, -1.4317], [11.73014, -5.58582, -4.6832]])


@pytest.mark.parametrize("layer, penalty, sums", [
    ("SimpleRNN", 0.46099, [0.24034, 0.36591, -0.28447, 1.8363]),
    ("LSTM", 0.9097, [0.10164, -0.04588, 0.05825, -1.26263]),
    ("GRU", 0.81972, [0.08186, -0.05468, -0.0248, 0.57761]),
])
def test_gradient_penalty_of_a_keras_rnn(layer, penalty, sums):
    # WGAN-GP style: the norm of d(critic)/d(input) is penalised, so the weights' gradient is second order
    model = tf.keras.Sequential([tf.keras.Input((5, 3)), getattr(tf.keras.layers, layer)(4), tf.keras.layers.Dense(1)])
    model.set_weights([np.linspace(-0.5, 0.5, w.size, dtype=np.float32).reshape(w.shape) for w in model.get_weights()])
    x = tf.constant(np.linspace(-1, 1, 30, dtype=np.float32).reshape(2, 5, 3))

    @tf.function
    def step():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = model(x, training=True)
            g = t1.gradient(y, x)
            p = tf.reduce_mean((tf.norm(tf.reshape(g, [2, -1]), axis=1) - 1.0) ** 2)
        return p, t2.gradient(p, model.trainable_variables)

    p, grads = step()
    _close(p, penalty)
    _close([float(tf.reduce_sum(v)) for v in grads[:4]], sums)
    assert grads[4] is None  # the last bias: no second-order path, as in TensorFlow


def test_watching_a_closed_over_constant():
    x = tf.constant([1.0, 2.0])

    @tf.function
    def f():
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)

    _close(f(), [2.0, 4.0])


def test_loop_with_side_effects_refuses_clearly():
    v = tf.Variable(0.0)
    c = tf.Variable(1.5)

    @tf.function
    def f():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = tf.constant(0.0)
                for _ in tf.range(2):
                    v.assign_add(1.0)
                    y = y + c * c
            g = t1.gradient(y, c)
        return t2.gradient(g, c)

    with pytest.raises(LookupError, match="side effect"):
        f()
