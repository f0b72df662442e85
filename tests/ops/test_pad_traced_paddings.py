"""tf.pad with paddings computed in the graph (`[[0, n]]` of a traced n, a paddings tensor argument): values,
shapes and gradients recorded from TensorFlow 2.21 (YAMNet-style audio front ends pad a waveform so)."""
import pytest

import rivulet as tf


def test_constant_padding_by_a_traced_amount():
    shapes = []

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, n):
        y = tf.pad(x, [[0, n]])
        shapes.append(y.shape)
        return y
    assert f(tf.constant([1.0, 2.0, 3.0]), tf.constant(2)).numpy().tolist() == [1.0, 2.0, 3.0, 0.0, 0.0]
    assert shapes == [tf.TensorShape([None])]
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1.0, 2.0, 3.0]), tf.constant(-5))  # TensorFlow: 'Paddings must be non-negative'

    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.int64), tf.TensorSpec([2, 2], tf.int32)])
    def g(x, p):
        y = tf.pad(x, p, constant_values=7)
        shapes.append(y.shape)
        return y
    out = g(tf.constant([[1, 2], [3, 4]], tf.int64), tf.constant([[1, 0], [0, 2]]))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [[7, 7, 7, 7], [1, 2, 7, 7], [3, 4, 7, 7]]
    assert shapes[-1].as_list() == [None, None]

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string), tf.TensorSpec([], tf.int32)])
    def s(x, n):
        return tf.pad(x, [[n, 0]])
    assert s(tf.constant(["a"]), tf.constant(2)).numpy().tolist() == [b"", b"", b"a"]


def test_gradient_and_mirror_modes():
    @tf.function
    def h(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.pad(x * x, [[n, 1], [0, n]])
            s = tf.reduce_sum(y * tf.reshape(tf.range(tf.size(y), dtype=tf.float32), tf.shape(y)))
        return y, t.gradient(s, x)
    y, grad = h(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(1))
    assert y.numpy().tolist() == [[0, 0, 0], [1, 4, 0], [9, 16, 0], [0, 0, 0]]
    assert grad.numpy().tolist() == [[6.0, 16.0], [36.0, 56.0]]

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.int32)])
    def r(x, n):
        return tf.pad(x, [[n, n]], mode="REFLECT")
    assert r(tf.constant([1.0, 2.0, 3.0]), tf.constant(2)).numpy().tolist() == [3, 2, 1, 2, 3, 2, 1]

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int64)])
    def sym(x, n):
        return tf.pad(x, [[0, 0], [n, n - 1]], mode="SYMMETRIC")
    assert sym(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), tf.constant(2, tf.int64)).numpy().tolist() == \
        [[2, 1, 1, 2, 3, 3], [5, 4, 4, 5, 6, 6]]
    # eager tensors in the list are known values: the static path, as before
    assert tf.pad(tf.constant([1, 2]), [[tf.constant(1), 0]]).numpy().tolist() == [0, 1, 2]
