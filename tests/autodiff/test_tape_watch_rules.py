"""What a tape differentiates with respect to, and gradients where the incoming gradient is zero, as TensorFlow
2.21 (values recorded there)."""
import numpy as np
import pytest

import rivulet as tf


def _vals(gs):
    return [None if g is None else np.asarray(g).tolist() for g in gs]


@pytest.mark.parametrize("in_function", [False, True])
def test_an_unwatched_source_read_by_a_recorded_op_has_no_gradient(in_function):
    w = tf.Variable(1.0)

    def f(x):
        with tf.GradientTape(watch_accessed_variables=False) as t:
            t.watch(w)
            y = x * w
            z = y * 2.0  # an intermediate computed from a watched value is differentiable
        return t.gradient(z, [x, w, y])

    f = tf.function(f) if in_function else f
    assert _vals(f(tf.constant(3.0))) == [None, 6.0, 2.0]


def test_only_accessed_variables_when_not_watched():
    w = tf.Variable(1.0)

    @tf.function
    def f(x):
        with tf.GradientTape(watch_accessed_variables=False) as t:
            y = x * w
        return t.gradient(y, [x, w])

    assert _vals(f(tf.constant(3.0))) == [None, None]


@pytest.mark.parametrize("in_function", [False, True])
def test_masked_singular_points_get_zero_gradient(in_function):
    # tf.where(x > 0, f(x), 0): the masked branch's gradient is 0 at x <= 0 for sqrt, rsqrt and reciprocal
    # (TensorFlow's SqrtGrad/RsqrtGrad/ReciprocalGrad give 0 where the incoming gradient is 0), nan for log
    x = tf.constant([4.0, -1.0, 0.0])
    want = {"sqrt": [0.25, 0.0, 0.0], "rsqrt": [-0.0625, 0.0, 0.0], "reciprocal": [-0.0625, 0.0, 0.0],
            "norm": [0.25, 0.0, 0.0]}
    fns = {"sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt, "reciprocal": tf.math.reciprocal,
           "norm": lambda v: tf.norm(v[1:]) * 0.0 + tf.sqrt(v)}
    for name, fn in fns.items():
        def g(v):
            with tf.GradientTape() as t:
                t.watch(v)
                y = tf.where(v > 0, fn(v), tf.zeros_like(v))
            return t.gradient(y, v)
        got = (tf.function(g) if in_function else g)(x)
        assert np.asarray(got).tolist() == want[name], name
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))
    assert np.isnan(np.asarray(t.gradient(y, x))[2])  # Log's gradient keeps TensorFlow's nan


def test_second_order_of_sqrt_unchanged():
    x = tf.constant(4.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.sqrt(x)
        g = t1.gradient(y, x)
    assert float(g) == 0.25
    assert float(t2.gradient(g, x)) == pytest.approx(-1 / 32)
