"""tf.saturate_cast and tf.nn.convolution (generative/data_compression, optimization/compression); values
recorded from TensorFlow 2.21."""
import numpy as np

import rivulet as tf


def test_saturate_cast_clamps_to_the_target_range_first():
    assert tf.saturate_cast(np.array([-3., 1.5, 300.7, 255.5]), tf.uint8).numpy().tolist() == [0, 1, 255, 255]
    assert tf.saturate_cast(np.array([1e10, -1e10]), tf.int32).numpy().tolist() == [2147483647, -2147483648]
    # float32 cannot hold 2**31 - 1: the bound is the largest float32 below it
    assert tf.saturate_cast(np.array([3e9, -3e9], np.float32), tf.int32).numpy().tolist() == [2147483520, -2147483648]
    assert tf.saturate_cast(np.array([70000, -5], np.int64), tf.int16).numpy().tolist() == [32767, -5]
    assert tf.saturate_cast(np.array([-1, 300], np.int32), tf.uint8).numpy().tolist() == [0, 255]
    assert tf.saturate_cast(np.array([1e40, 300.]), tf.float32).numpy().tolist() == [3.4028234663852886e+38, 300.0]


def test_nn_convolution_is_conv1d_or_conv2d_by_the_filters_rank():
    x = np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) / 50
    w = np.arange(3 * 3 * 2 * 3, dtype=np.float32).reshape(3, 3, 2, 3) / 30 - 0.5
    np.testing.assert_allclose(tf.nn.convolution(x, w, strides=(1, 1), padding="SAME").numpy()[0, :2, :2], [
        [[1.04, 1.07467, 1.10933], [1.6, 1.66, 1.72]], [[2.232, 2.324, 2.416], [3.12, 3.27, 3.42]]], atol=1e-5)
    assert tf.nn.convolution(x, w, strides=2, padding="VALID").shape == (2, 2, 2, 3)
    np.testing.assert_allclose(tf.nn.convolution(x[:, 0], w[0], padding="SAME").numpy()[0, :2], [
        [-0.008, -0.004, 0.0], [-0.04, -0.03, -0.02]], atol=1e-6)
