"""A float Mean over every axis of a static input (a loss) compiles to the kernel's own sum and division inline
(execute/codegen.py _inline_mean): the kernel's values and dtype, bit for bit; other Means call the kernel."""
import numpy as np

import rivulet as tf
from rivulet.ops import math_ops


def test_a_loss_mean_is_inline_with_the_kernels_bits():
    rs = np.random.default_rng(3)
    for dt, shape in ((np.float32, (64,)), (np.float32, (7, 13)), (np.float64, (5, 3, 2)), (np.float32, (1,))):
        x = (rs.standard_normal(shape) * 1e3).astype(dt)
        f = tf.function(lambda a: tf.reduce_mean(a))
        got = f(tf.constant(x))
        src = f.get_concrete_function(tf.constant(x))._compiled.source
        assert "_sum(" in src and "axis=" not in src.replace("axis=None", ""), src
        want = math_ops._mean_kernel(x)
        assert got.dtype.as_numpy_dtype == dt and got.shape == ()
        assert np.asarray(got.numpy()).tobytes() == np.asarray(want, dt).tobytes()


def test_other_means_call_the_kernel():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = tf.function(lambda a: (tf.reduce_mean(a, axis=1), tf.reduce_mean(a, keepdims=True)))
    a, b = f(tf.constant(x))
    np.testing.assert_array_equal(a.numpy(), x.mean(1))
    assert b.shape == (1, 1) and b.numpy()[0, 0] == 5.5
    assert "_sum(" not in f.get_concrete_function(tf.constant(x))._compiled.source
    g = tf.function(lambda a: tf.reduce_mean(a))  # integers: the kernel's truncating mean
    assert int(g(tf.constant([1, 2, 2]))) == 1
