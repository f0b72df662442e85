"""tf.image.extract_patches (and its gradient), crop_and_resize (bilinear/nearest, gradients in image and boxes) and
the non_max_suppression family: outputs recorded from TensorFlow 2.21 (the first 40 values of each, rounded to
5 decimals, and the shape)."""
import numpy as np

import rivulet as tf

TF_PATCHES_VALID = ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 4.0, 5.0, 6.0, 7.0, 8.0,
    9.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 36.0, 37.0, 38.0, 39.0, 40.0,
    41.0, 28.0, 29.0, 30.0, 31.0], (2, 2, 2, 12))
TF_PATCHES_SAME = ([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 14.0, 15.0, 0.0, 0.0, 0.0, 0.0, 6.0, 7.0,
    8.0, 9.0, 18.0, 19.0, 20.0, 21.0, 12.0, 13.0, 14.0, 15.0, 24.0, 25.0, 26.0, 27.0, 36.0, 37.0, 38.0, 39.0,
    18.0, 19.0, 20.0, 21.0], (2, 3, 2, 12))
TF_PATCHES_RATE = ([0.0, 1.0, 4.0, 5.0, 24.0, 25.0, 28.0, 29.0, 2.0, 3.0, 6.0, 7.0, 26.0, 27.0, 30.0, 31.0, 4.0,
    5.0, 8.0, 9.0, 28.0, 29.0, 32.0, 33.0, 6.0, 7.0, 10.0, 11.0, 30.0, 31.0, 34.0, 35.0, 12.0, 13.0, 16.0, 17.0,
    36.0, 37.0, 40.0, 41.0], (2, 3, 4, 8))
TF_PATCHES_RATE_SAME = ([0.0, 1.0, 2.0, 3.0, 24.0, 25.0, 26.0, 27.0, 4.0, 5.0, 6.0, 7.0, 28.0, 29.0, 30.0, 31.0,
    8.0, 9.0, 10.0, 11.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 0.0, 0.0, 0.0, 0.0, 40.0, 41.0, 42.0,
    43.0, 0.0, 0.0, 0.0, 0.0], (2, 2, 3, 8))
TF_PATCHES_GRAD = ([4.0, 5.0, 6.0, 7.0, 0.0, 0.0, 16.0, 17.0, 18.0, 19.0, 0.0, 0.0, 32.0, 34.0, 36.0, 38.0, 0.0,
    0.0, 56.0, 58.0, 60.0, 62.0, 0.0, 0.0, 28.0, 29.0, 30.0, 31.0, 0.0, 0.0, 40.0, 41.0, 42.0, 43.0, 0.0, 0.0,
    80.0, 82.0, 84.0, 86.0], (1, 5, 6, 2))
TF_CAR = ([0.0, 4.0, 7.5, 11.5, 15.0, 19.0, 23.4, 26.6, 27.15, 30.35, 30.9, 34.1, 0.0, 29.9, 0.0, 35.15, 0.0,
    0.0], (3, 3, 2, 1))
TF_CAR_NEAREST = ([0.0, 4.0, 10.0, 14.0, 15.0, 19.0, 25.0, 29.0, 25.0, 29.0, 30.0, 34.0, -1.0, 32.0, -1.0, 37.0,
    -1.0, -1.0], (3, 3, 2, 1))
TF_CAR_INT = ([0.0, 4.0, 15.0, 19.0, 23.4, 26.6, 30.9, 34.1, 0.0, 29.9, 0.0, 0.0], (3, 2, 2, 1))
TF_CAR_1X1 = ([9.5, 28.75, 33.55], (3, 1, 1, 1))
TF_CAR_GRAD_IMG = ([0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.5, 1.0, 0.0, 0.0, 0.0, 1.5, 4.0, 0.0, 0.0,
    0.0, 5.0, 1.44, 0.96, 0.0, 1.12, 1.68, 5.28, 3.52, 3.9, 6.62, 6.03, 7.08, 4.72, 7.95, 10.52, 7.83, 0.6, 0.4,
    4.95, 3.74, 0.66], (2, 4, 5, 1))
TF_CAR_GRAD_BOXES = ([37.5, 0.0, 37.5, 0.0, 322.5, 96.0, 442.5, 108.0, 307.5, 0.0, 112.5, 112.0], (3, 4))
X = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2)
IMG = np.arange(2 * 4 * 5 * 1, dtype=np.float32).reshape(2, 4, 5, 1)
CAR_BOXES = [[0.0, 0.0, 1.0, 1.0], [0.2, 0.1, 0.7, 0.9], [0.5, -0.2, 1.2, 0.6]]


def _check(t, want, atol=1.5e-5):
    values, shape = want
    assert tuple(t.shape) == shape
    np.testing.assert_allclose(np.asarray(t, np.float64).ravel()[:40], values, rtol=0, atol=atol)


def test_extract_patches():
    x = tf.constant(X)
    _check(tf.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"), TF_PATCHES_VALID)
    _check(tf.image.extract_patches(x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"), TF_PATCHES_SAME)
    _check(tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 2, 1], "VALID"), TF_PATCHES_RATE)
    _check(tf.image.extract_patches(x, [1, 2, 2, 1], [1, 3, 2, 1], [1, 2, 1, 1], "SAME"), TF_PATCHES_RATE_SAME)
    xv = tf.constant(np.linspace(-1, 1, 60).reshape(1, 5, 6, 2), tf.float64)
    with tf.GradientTape() as t:
        t.watch(xv)
        p = tf.image.extract_patches(xv, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME")
        loss = tf.reduce_sum(p * tf.cast(tf.reshape(tf.range(tf.size(p)), p.shape), tf.float64))
    _check(t.gradient(loss, xv), TF_PATCHES_GRAD)


def test_crop_and_resize_and_gradients():
    img, boxes = tf.constant(IMG), tf.constant(CAR_BOXES)
    y = tf.image.crop_and_resize(img, boxes, [0, 1, 1], [3, 2])
    assert y.dtype == tf.float32
    _check(y, TF_CAR)
    _check(tf.image.crop_and_resize(img, boxes, [0, 1, 1], [3, 2], method="nearest", extrapolation_value=-1.0),
           TF_CAR_NEAREST)
    _check(tf.image.crop_and_resize(tf.cast(img, tf.int32), boxes, [0, 1, 1], [2, 2]), TF_CAR_INT)
    _check(tf.image.crop_and_resize(img, boxes, [0, 1, 1], [1, 1]), TF_CAR_1X1)
    with tf.GradientTape() as t:
        t.watch([img, boxes])
        c = tf.image.crop_and_resize(img, boxes, [0, 1, 1], [3, 2])
        loss = tf.reduce_sum(c * tf.cast(tf.reshape(tf.range(tf.size(c)), c.shape), tf.float32))
    gi, gb = t.gradient(loss, [img, boxes])
    _check(gi, TF_CAR_GRAD_IMG)
    _check(gb, TF_CAR_GRAD_BOXES, atol=1e-3)


def test_non_max_suppression_family():
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.1, 0.1, 0.9, 0.9], [0.5, 0.5, 0.7, 0.8], [0.0, 0.0, 0.2, 0.2],
                         [0.05, 0.0, 1.0, 0.95]])
    scores = tf.constant([0.9, 0.8, 0.7, 0.6, 0.95])
    sel = tf.image.non_max_suppression(boxes, scores, 4, iou_threshold=0.5)
    assert sel.dtype == tf.int32 and sel.numpy().tolist() == [4, 2, 3]
    assert tf.image.non_max_suppression(boxes, scores, 4, 0.5, score_threshold=0.75).numpy().tolist() == [4]
    sel, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 4, iou_threshold=0.5, soft_nms_sigma=0.5)
    assert sel.numpy().tolist() == [4, 2, 3, 1]
    np.testing.assert_allclose(sc.numpy(), [0.949999988079071, 0.69691002368927, 0.5993499755859375,
                                            0.4794900119304657], atol=1e-5)  # recorded to 5 decimals
    sel, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 4, iou_threshold=0.5)
    assert sel.numpy().tolist() == [4, 2, 3]
    sel, n = tf.image.non_max_suppression_padded(boxes, scores, 4, iou_threshold=0.5, pad_to_max_output_size=True)
    assert sel.numpy().tolist() == [4, 2, 3, 0] and n.numpy() == 3
    assert tf.image.non_max_suppression_overlaps(tf.constant([[1.0, 0.7, 0.1], [0.7, 1.0, 0.2], [0.1, 0.2, 1.0]]),
                                                 tf.constant([0.9, 0.8, 0.7]), 3,
                                                 overlap_threshold=0.5).numpy().tolist() == [0, 2]
    assert tf.image.non_max_suppression(tf.constant([[1.0, 1.0, 0.0, 0.0], [0.9, 0.9, 0.1, 0.1]]),
                                        tf.constant([0.5, 0.6]), 2, 0.5).numpy().tolist() == [1]
