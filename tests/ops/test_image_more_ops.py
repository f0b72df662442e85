"""tf.image.per_image_standardization, psnr, ssim, adjust_gamma, rgb_to_yuv/yiq and back, image_gradients,
transpose: values recorded from TensorFlow 2.21 (rounded to 5 decimals) on the seeded images below."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors

_rng = np.random.default_rng(3)
IMG = _rng.uniform(0, 1, (2, 16, 16, 3)).astype(np.float32)
IMG2 = np.clip(IMG + _rng.normal(0, 0.1, IMG.shape), 0, 1).astype(np.float32)
U8, U8_2 = (IMG * 255).astype(np.uint8), (IMG2 * 255).astype(np.uint8)
R = dict(rtol=0, atol=1.5e-5)


def _first(t, n=12):
    return np.asarray(t, np.float64).ravel()[:n]


def test_per_image_standardization():
    y = tf.image.per_image_standardization(IMG[0])
    assert y.dtype == tf.float32
    np.testing.assert_allclose(_first(y), [-1.41632, -0.88692, 1.08993, 0.32256, -1.38662, -0.19939, -0.03855,
                                           -1.15684, 0.85635, -1.31818, -0.34613, 0.09344], **R)
    np.testing.assert_allclose(_first(tf.image.per_image_standardization(U8[0])), [
        -1.4211, -0.88551, 1.09204, 0.32299, -1.3799, -0.19886, -0.03406, -1.16017, 0.85858, -1.32497, -0.34992,
        0.08953], **R)
    y = tf.image.per_image_standardization(IMG[0].astype(np.float16))
    assert y.dtype == tf.float32  # TensorFlow casts every input to float32
    np.testing.assert_allclose(_first(y), [-1.41637, -0.8869, 1.08994, 0.32212, -1.38666, -0.19945, -0.03871,
                                           -1.15666, 0.85566, -1.31826, -0.34652, 0.09297], **R)
    assert tf.image.per_image_standardization(np.ones((2, 2, 1), np.float32)).numpy().ravel().tolist() == [0.0] * 4


def test_psnr_and_ssim():
    np.testing.assert_allclose(tf.image.psnr(IMG, IMG2, 1.0).numpy(), [20.29295, 20.15434], rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(tf.image.psnr(U8, U8_2, 255).numpy(), [20.29421, 20.15578], rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(tf.image.ssim(IMG, IMG2, 1.0).numpy(), [0.94473, 0.94292], **R)
    np.testing.assert_allclose(tf.image.ssim(U8, U8_2, 255).numpy(), [0.94482, 0.94301], **R)
    m = tf.image.ssim(IMG, IMG2, 1.0, filter_size=5, return_index_map=True)
    assert m.shape == (2, 12, 12)
    np.testing.assert_allclose(_first(m), [0.9337, 0.93313, 0.93215, 0.94144, 0.9487, 0.94848, 0.93725, 0.9164,
                                           0.89439, 0.90172, 0.91529, 0.92254], **R)
    with pytest.raises(errors.InvalidArgumentError):
        tf.image.ssim(IMG[:, :5], IMG2[:, :5], 1.0)


def test_adjust_gamma():
    y = tf.image.adjust_gamma(IMG[0, 0], 2.0, 1.5)
    np.testing.assert_allclose(_first(y), [0.011, 0.08412, 0.96306, 0.50837, 0.01329, 0.2814, 0.34424, 0.03827,
                                           0.80941, 0.01938, 0.22959, 0.40053], **R)
    y = tf.image.adjust_gamma(U8[0, 0], 0.5)
    assert y.dtype == tf.uint8
    assert _first(y).tolist() == [73.0, 123.0, 228.0, 194.0, 78.0, 167.0, 176.0, 101.0, 218.0, 84.0, 159.0, 183.0]


def test_colour_spaces():
    x = IMG[0, 0]
    for fn, want in [
        (tf.image.rgb_to_yuv, [0.25596, 0.26835, -0.14941, 0.2787, 0.076, 0.26623, 0.32074, 0.20365, 0.13888, 0.32255,
                               0.09556, -0.18324]),
        (tf.image.yuv_to_rgb, [0.99901, -0.47304, 0.56686, 1.07588, 0.29353, 0.77344, 1.31638, -0.0105, 0.80365,
                               0.7027, -0.34075, 0.90867]),
        (tf.image.rgb_to_yiq, [0.25596, -0.27146, 0.14368, 0.2787, 0.18188, 0.20871, 0.32074, 0.00556, 0.24642,
                               0.32255, -0.20573, -0.01966]),
        (tf.image.yiq_to_rgb, [0.80949, -0.49735, 1.18912, 0.94104, 0.27624, 1.21613, 1.0878, -0.03982, 1.55415,
                               0.80849, -0.32718, 0.56133])]:
        y = fn(x)
        assert y.shape == (16, 3) and y.dtype == tf.float32
        np.testing.assert_allclose(_first(y), want, **R)


def test_image_gradients_and_transpose():
    x = tf.constant(IMG[:1, :3, :3, :1])
    dy, dx = tf.image.image_gradients(x)
    np.testing.assert_allclose(dy.numpy()[0, :, :, 0], np.concatenate([np.diff(IMG[0, :3, :3, 0], axis=0),
                                                                        np.zeros((1, 3))]), atol=1e-7)
    np.testing.assert_allclose(dx.numpy()[0, :, :, 0], np.concatenate([np.diff(IMG[0, :3, :3, 0], axis=1),
                                                                        np.zeros((3, 1))], axis=1), atol=1e-7)
    with pytest.raises(ValueError, match=r"image_gradients expects a 4D tensor \[batch_size, h, w, d\]"):
        tf.image.image_gradients(tf.constant(IMG[0]))
    assert tf.image.transpose(IMG[0, :2, :3]).shape == (3, 2, 3)
    assert tf.image.transpose(IMG[:, :2, :3]).shape == (2, 3, 2, 3)
