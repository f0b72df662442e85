"""tf.roll with a shift computed in the graph (generative/deepdream's TiledGradients rolls by a random
shift inside a tf.function): values and gradient recorded from TensorFlow 2.21; a shift of the wrong size
fails when traced, as there (ValueError)."""
import pytest

import rivulet as tf


def test_roll_by_a_graph_shift_and_its_gradient():
    x = tf.reshape(tf.range(12.0), (3, 4))

    @tf.function(input_signature=[tf.TensorSpec([3, 4]), tf.TensorSpec([2], tf.int32)])
    def f(x, s):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.roll(x, shift=s, axis=[0, 1])
            loss = tf.reduce_sum(y * tf.reshape(tf.range(12.0), (3, 4)))
        return y, t.gradient(loss, x)

    y, g = f(x, tf.constant([1, -5]))
    assert y.numpy().tolist() == [[9.0, 10.0, 11.0, 8.0], [1.0, 2.0, 3.0, 0.0], [5.0, 6.0, 7.0, 4.0]]
    assert g.numpy().tolist() == [[7.0, 4.0, 5.0, 6.0], [11.0, 8.0, 9.0, 10.0], [3.0, 0.0, 1.0, 2.0]]

    @tf.function(input_signature=[tf.TensorSpec([3, 4]), tf.TensorSpec([], tf.int32)])
    def k(x, s):
        return tf.roll(x, shift=s, axis=1)

    assert k(x, tf.constant(6)).numpy().tolist() == [[2.0, 3.0, 0.0, 1.0], [6.0, 7.0, 4.0, 5.0],
                                                     [10.0, 11.0, 8.0, 9.0]]


def test_shift_of_the_wrong_size():
    @tf.function(input_signature=[tf.TensorSpec([3, 4]), tf.TensorSpec([3], tf.int32)])
    def bad(x, s):
        return tf.roll(x, shift=s, axis=[0, 1])

    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 3 and 2"):
        bad(tf.zeros((3, 4)), tf.constant([1, 2, 3]))
