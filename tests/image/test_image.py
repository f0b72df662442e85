"""tf.image against values (and resize gradients) recorded from TensorFlow 2.21 (tests/image/golden.npz)."""
import os

import numpy as np
import pytest

import rivulet as tf

G = np.load(os.path.join(os.path.dirname(__file__), "golden.npz"), allow_pickle=False)
X = G["x"]
U8 = G["u8"]


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [(8, 11), (3, 4), (5, 3)])
def test_resize_values_and_gradients(method, size):
    key = f"{method}_{size[0]}x{size[1]}"
    x = tf.constant(X)
    with tf.GradientTape() as g:
        g.watch(x)
        y = tf.image.resize(x, size, method=method)
        loss = tf.reduce_sum(y * y)
    assert y.dtype == tf.float32 and y.shape == (2,) + size + (3,)
    np.testing.assert_allclose(y.numpy(), G[key], rtol=1e-5, atol=1e-5)
    if method != "area":  # TensorFlow registers no gradient for ResizeArea
        np.testing.assert_allclose(g.gradient(loss, x).numpy(), G[key + "_grad"], rtol=1e-4, atol=1e-4)


def test_resize_dtypes_and_single_image():
    near = tf.image.resize(U8, (4, 9), method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert near.dtype == tf.uint8
    np.testing.assert_array_equal(near.numpy(), G["u8_nearest"])
    lin = tf.image.resize(U8, (4, 9))
    assert lin.dtype == tf.float32
    np.testing.assert_allclose(lin.numpy(), G["u8_bilinear"], rtol=1e-5, atol=1e-3)
    one = tf.image.resize(X[0], (8, 11))
    np.testing.assert_allclose(one.numpy(), G["bilinear_8x11"][0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf.image.resize(X, (10, 10), preserve_aspect_ratio=True).numpy(), G["aspect"],
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize(np.zeros([4, 4]), (2, 2))
    with pytest.raises(ValueError, match="not supported"):
        tf.image.resize(X, (2, 2), method="lanczos3")

    @tf.function(input_signature=[tf.TensorSpec([None, 5, 7, 3])])
    def f(x):
        return tf.image.resize(x, (8, 11), method="bicubic")
    np.testing.assert_allclose(f(X).numpy(), G["bicubic_8x11"], rtol=1e-5, atol=1e-5)


def test_flips_and_crops():
    np.testing.assert_array_equal(tf.image.flip_left_right(X).numpy(), X[:, :, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(X[0]).numpy(), X[0, ::-1])
    np.testing.assert_array_equal(tf.image.crop_to_bounding_box(X, 1, 2, 3, 4).numpy(), X[:, 1:4, 2:6])
    padded = tf.image.pad_to_bounding_box(X[0], 1, 2, 8, 10).numpy()
    assert padded.shape == (8, 10, 3) and padded[1:6, 2:9].tolist() == X[0].tolist() and padded.sum() == \
        pytest.approx(X[0].sum(), rel=1e-5)
    np.testing.assert_array_equal(tf.image.central_crop(X, 0.6).numpy(), G["central"])
    np.testing.assert_array_equal(tf.image.resize_with_crop_or_pad(X, 4, 10).numpy(), G["cropnpad"])
    np.testing.assert_array_equal(tf.image.resize_with_crop_or_pad(X[0], 8, 3).numpy(), G["cropnpad2"])
    with pytest.raises(ValueError, match="width must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(X, 0, 5, 2, 4)


def test_convert_image_dtype():
    f2u = tf.image.convert_image_dtype(tf.constant([0., 0.5, 1.0, 1.2]), tf.uint8, saturate=True)
    assert f2u.numpy().tolist() == [0, 127, 255, 255]
    np.testing.assert_allclose(tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.float32).numpy(),
                               [0., 0.5019608, 1.], rtol=1e-6)
    assert tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.int16).numpy().tolist() == \
        [0, 16384, 32640]
    assert tf.image.convert_image_dtype(tf.constant([0, 16384, 32767], tf.int16), tf.uint8).numpy().tolist() == \
        [0, 128, 255]


def test_colour():
    np.testing.assert_array_equal(tf.image.rgb_to_grayscale(U8).numpy(), G["gray"])
    np.testing.assert_allclose(tf.image.rgb_to_grayscale(X).numpy(), G["grayf"], rtol=1e-6)
    np.testing.assert_array_equal(tf.image.adjust_brightness(U8, 0.3).numpy(), G["bright"])
    np.testing.assert_allclose(tf.image.adjust_brightness(X, -0.3).numpy(), G["brightf"], rtol=1e-6)
    np.testing.assert_array_equal(tf.image.adjust_contrast(U8, 1.7).numpy(), G["contrast"])
    np.testing.assert_allclose(tf.image.adjust_contrast(X, 0.4).numpy(), G["contrastf"], rtol=1e-5, atol=1e-6)
