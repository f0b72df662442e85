"""tf.image.resize_with_pad: values recorded from TensorFlow 2.21 (interpretability/integrated_gradients
reads its images with it)."""
import numpy as np
import pytest

import rivulet as tf

X = (np.arange(5 * 7 * 2).reshape(5, 7, 2) % 11).astype(np.float32)


def test_scale_and_padding_are_tensorflows():
    r = tf.image.resize_with_pad(X, 4, 4)
    assert r.dtype == tf.float32 and r.shape == (4, 4, 2)
    np.testing.assert_allclose(r.numpy()[..., 0], [[3.0, 6.5, 2.7812, 3.5312], [4.6562, 3.0, 6.5, 7.25],
                                                   [0, 0, 0, 0], [0, 0, 0, 0]], atol=1e-4)
    # the top padding is half the float gap (6 - 2.14) / 2, rounded down: 1 row, then 3 below
    r = tf.image.resize_with_pad(X, 6, 3, method="nearest")
    assert r.numpy()[..., 0].tolist() == [[0, 0, 0], [5, 9, 2], [0, 4, 8], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    r = tf.image.resize_with_pad(X, 3, 10, method="area")
    np.testing.assert_allclose(r.numpy()[0, :, 0], [0, 0, 2.0571, 5.4857, 5.7714, 4.1714, 0, 0, 0, 0], atol=1e-4)
    # float32's 7 / (7 / 9) is 9 columns, not 8
    r = tf.image.resize_with_pad(X, 8, 9)
    np.testing.assert_allclose(r.numpy()[0, :, 0], [0.0, 1.3333, 2.8889, 4.4444, 6.0, 7.5556, 9.1111, 7.0, 1.0],
                               atol=1e-4)
    assert not r.numpy()[6:].any()
    np.testing.assert_array_equal(tf.image.resize_with_pad(X, 5, 7).numpy(), X)


def test_dtypes_batches_and_bad_sizes():
    u8 = X.astype(np.uint8)
    assert tf.image.resize_with_pad(u8, 4, 4).dtype == tf.float32
    r = tf.image.resize_with_pad(u8, 4, 4, method="nearest")
    assert r.dtype == tf.uint8 and r.numpy()[..., 0].tolist() == [[3, 7, 0, 4], [9, 2, 6, 10], [0] * 4, [0] * 4]
    r = tf.image.resize_with_pad(np.stack([X, X + 1]), 4, 6)
    assert r.shape == (2, 4, 6, 2)
    np.testing.assert_allclose(r.numpy()[1, 0, :, 1], [2.775, 5.575, 8.375, 5.95, 2.975, 0.0], atol=1e-4)
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.resize_with_pad(X, 0, 4)
    with pytest.raises(ValueError, match="target_width must be > 0."):
        tf.image.resize_with_pad(X, 4, -1)
