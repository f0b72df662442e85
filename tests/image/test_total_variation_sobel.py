"""tf.image.total_variation and tf.image.sobel_edges (generative/style_transfer), values recorded from
TensorFlow 2.21 on the same input."""
import numpy as np
import pytest

import rivulet as tf

X = (np.sin(np.arange(2 * 4 * 5 * 3) * 0.7) * 3).reshape(2, 4, 5, 3).astype(np.float32)


def test_total_variation_values_and_gradient():
    x = tf.constant(X)
    np.testing.assert_allclose(tf.image.total_variation(x).numpy(), [304.8263854980469, 308.10308837890625],
                               rtol=1e-6)
    assert tf.image.total_variation(x[0]).shape == ()
    np.testing.assert_allclose(tf.image.total_variation(x[0]).numpy(), 304.8263854980469, rtol=1e-6)
    v = tf.Variable(X)
    with tf.GradientTape() as t:
        loss = tf.reduce_sum(tf.image.total_variation(v))
    assert t.gradient(loss, v).numpy()[0, :2, :2, 0].tolist() == [[0.0, 3.0], [-3.0, 0.0]]
    with pytest.raises(ValueError, match="'images' must be either 3 or 4-dimensional."):
        tf.image.total_variation(tf.zeros((2, 3)))


def test_sobel_edges():
    s = tf.image.sobel_edges(tf.constant(X))
    assert s.shape == (2, 4, 5, 3, 2)
    np.testing.assert_allclose(s.numpy()[0, :2, :3, 0, :],
                               [[[-3.725290298461914e-08, 0.0], [0.0, 5.1232008934021], [0.0, -10.605512619018555]],
                                [[-5.530446529388428, 0.0], [-5.224061489105225, 5.429585933685303],
                                 [2.7890548706054688, -2.8987812995910645]]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(tf.reduce_sum(s * s)), 4367.72607421875, rtol=1e-5)

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3])])
    def edges(im):
        return tf.image.sobel_edges(im)

    np.testing.assert_allclose(edges(X).numpy(), s.numpy(), rtol=1e-6)
