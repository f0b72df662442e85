"""The jit tier's cached call: arguments alone reach onnxruntime (the tier holds the variables and captured
constants), from several threads at once, and the NumPy executor still gets every value when it runs."""
import threading
import warnings

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.usefixtures("compile_at_once")  # tests/jit/conftest.py


def test_cached_calls_from_threads_with_captures_and_a_changing_variable():
    rs = np.random.default_rng(0)
    w = tf.Variable(rs.standard_normal((6, 4)).astype(np.float32))
    scale = tf.Variable(np.float32(2.0))
    bias = tf.constant(rs.standard_normal(4).astype(np.float32))  # a captured constant

    @tf.function(jit_compile=True)
    def f(x):
        return tf.nn.relu(tf.matmul(x, w) + bias) * scale

    xs = [rs.standard_normal((3, 6)).astype(np.float32) for _ in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(tf.constant(xs[0]))
    assert tf.jit.tier_of(f) == ["onnxruntime"]
    want = [np.maximum(x @ w.numpy() + bias.numpy(), 0) * 2.0 for x in xs]
    errors = []

    def worker(k):
        try:
            for _ in range(30):
                i = (k + _) % len(xs)
                np.testing.assert_allclose(f(tf.constant(xs[i])).numpy(), want[i], rtol=1e-5, atol=1e-6)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    # the weights change: the cached call sees it (compiled again with them as inputs)
    scale.assign(3.0)
    w.assign(w * 0.5)
    got = f(tf.constant(xs[1])).numpy()
    np.testing.assert_allclose(got, np.maximum(xs[1] @ w.numpy() + bias.numpy(), 0) * 3.0, rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(f) == ["onnxruntime"]


def test_cached_call_that_onnxruntime_refuses_runs_on_numpy_with_the_captures():
    table = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))  # captured

    @tf.function(jit_compile=True)
    def f(i):
        return tf.gather(table, i) + 1.0

    np.testing.assert_allclose(f(tf.constant([3, 0])).numpy(), [[10, 11, 12], [1, 2, 3]])
    assert tf.jit.tier_of(f) == ["onnxruntime"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 9 is not in"):
        f(tf.constant([1, 9]))  # same layout: the cached call; the NumPy executor names the error
    np.testing.assert_allclose(f(tf.constant([2, 1])).numpy(), [[7, 8, 9], [4, 5, 6]])
