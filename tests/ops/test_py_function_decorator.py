"""`@tf.py_function(Tout=...)` and `@tf.numpy_function(Tout=...)` as decorators (TF 2.x: func and inp left
out), with the log-huber example of tf.py_function's documentation."""
import numpy as np
import pytest

import rivulet as tf

RUNS = []


@tf.py_function(Tout=tf.float32)
def py_log_huber(x, m):
    RUNS.append("eager")
    if tf.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * tf.math.log(m) + tf.math.log(x ** 2))


def test_decorated_function_runs_eagerly_with_its_arguments():
    RUNS.clear()
    x, m = tf.constant(1.0), tf.constant(2.0)
    assert py_log_huber(x, m).numpy() == 1.0
    assert py_log_huber.__name__ == "py_log_huber"
    np.testing.assert_allclose(py_log_huber(tf.constant(3.0), m).numpy(),
                               4 * (1 - 2 * np.log(2) + np.log(9)), rtol=1e-6)
    assert RUNS == ["eager", "eager"]


def test_decorated_function_inside_tf_function_runs_each_call_and_differentiates():
    traces = []

    @tf.function
    def tf_wrapper(x):
        traces.append(1)
        m = tf.constant(2.0)
        return py_log_huber(x, m)

    RUNS.clear()
    x = tf.constant(1.0)
    assert tf_wrapper(x).numpy() == 1.0
    assert tf_wrapper(x).numpy() == 1.0
    assert len(traces) == 1 and len(RUNS) >= 2  # traced once, the Python body runs on every call
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = py_log_huber(x, tf.constant(2.0))
    assert tape.gradient(y, x).numpy() == 2.0  # the documented dy_dx


def test_numpy_function_decorator_and_list_tout():
    @tf.numpy_function(Tout=[tf.float32, tf.int64])
    def halves(a):
        return (a / 2).astype(np.float32), np.int64(a.size)

    h, n = halves(np.array([2.0, 4.0], np.float32))
    np.testing.assert_array_equal(h.numpy(), [1.0, 2.0])
    assert n.dtype == tf.int64 and n.numpy() == 2


def test_decorator_misuse_is_a_type_error():
    with pytest.raises(TypeError, match="Missing required argument: 'Tout'"):
        tf.py_function(lambda x: x, [1.0])
    with pytest.raises(TypeError, match="Don't set the `inp` argument"):
        tf.py_function(inp=[1.0], Tout=tf.float32)
    with pytest.raises(TypeError, match="Missing argument `inp`"):
        tf.py_function(lambda x: x, Tout=tf.float32)
    assert tf.py_function(lambda x: x * 2, [3.0], tf.float32).numpy() == 6.0  # the classic spelling stays
