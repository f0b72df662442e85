"""tf.image.adjust_saturation / adjust_hue / rgb_to_hsv, rot90, tf.random.split and the random and stateless
random flips, crops, brightness and contrast (images/data_augmentation, generative/cyclegan). Values recorded
from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf

IMG = (np.arange(2 * 3 * 3, dtype=np.int64).reshape(2, 3, 3) * 37 % 256).astype(np.uint8)
F = IMG.astype(np.float32) / 255


def test_adjust_saturation_as_tensorflow():
    assert tf.image.adjust_saturation(IMG, 3).numpy().tolist() == [
        [[0, 37, 74], [0, 92, 185], [222, 0, 37]], [[0, 75, 151], [187, 225, 0], [0, 58, 117]]]
    np.testing.assert_allclose(tf.image.adjust_saturation(F * 2 - 0.5, 1.7).numpy(), [
        [[0.0, 0.040196, 0.080392], [0.0, 0.47549, 0.95098], [1.241176, 0.0, 0.209697]],
        [[0.0, 0.342157, 0.684314], [1.051034, 1.264706, 0.0], [0.0, 0.208824, 0.417647]]], atol=2e-6)
    assert tf.image.adjust_saturation(IMG, 3).dtype == tf.uint8


def test_rgb_to_hsv_and_adjust_hue_as_tensorflow():
    np.testing.assert_allclose(tf.image.rgb_to_hsv(F).numpy()[0], [
        [0.583333, 1.0, 0.290196], [0.583333, 0.4, 0.72549], [0.971842, 0.986486, 0.870588]], atol=2e-6)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(F)).numpy(), F, atol=2e-6)
    np.testing.assert_allclose(tf.image.adjust_hue(F, 0.2).numpy()[0], [
        [0.203137, 0.0, 0.290196], [0.638431, 0.435294, 0.72549], [0.843921, 0.870588, 0.011765]], atol=2e-6)


def test_rot90_counter_clockwise_k_times():
    assert tf.image.rot90(IMG).numpy()[..., 0].tolist() == [[222, 43], [111, 188], [0, 77]]
    assert tf.image.rot90(IMG, k=3).numpy()[..., 0].tolist() == [[77, 0], [188, 111], [43, 222]]
    assert tf.image.rot90(np.stack([IMG, IMG + 1]), k=2).numpy()[..., 0].tolist() == [
        [[43, 188, 77], [222, 111, 0]], [[44, 189, 78], [223, 112, 1]]]


def test_stateless_random_image_ops_draw_tensorflows_values():
    np.testing.assert_allclose(tf.image.stateless_random_brightness(F, max_delta=0.95, seed=(1, 0)).numpy()[0, 0],
                               [0.719128, 0.864226, 1.009324], atol=2e-6)  # floats are not clipped
    assert tf.image.stateless_random_brightness(IMG, max_delta=0.95, seed=(1, 0)).numpy()[0].tolist() == [
        [183, 220, 255], [255, 255, 255], [255, 186, 223]]
    np.testing.assert_allclose(tf.image.stateless_random_contrast(F, lower=0.1, upper=0.9, seed=(2, 0)).numpy()[0, 0],
                               [0.1086, 0.210326, 0.312052], atol=2e-6)
    big = (np.arange(8 * 9 * 3) % 251).reshape(8, 9, 3).astype(np.uint8)
    assert tf.image.stateless_random_crop(big, size=[3, 4, 3], seed=(5, 0)).numpy()[..., 0].tolist() == [
        [120, 123, 126, 129], [147, 150, 153, 156], [174, 177, 180, 183]]
    assert tf.image.stateless_random_crop(big, size=[3, 4, 2], seed=(7, 1)).numpy()[..., 0].tolist() == [
        [82, 85, 88, 91], [109, 112, 115, 118], [136, 139, 142, 145]]
    assert tf.image.stateless_random_flip_left_right(IMG, seed=(1, 2)).numpy()[..., 0].tolist() == [
        [0, 111, 222], [77, 188, 43]]
    np.testing.assert_allclose(tf.image.stateless_random_saturation(F, 0.5, 1.5, seed=(3, 2)).numpy()[0, 1],
                               [0.326532, 0.526011, 0.72549], atol=2e-6)
    assert tf.random.split(tf.constant([3, 4]), num=1).numpy().tolist() == [[-1860230133, -671226999]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.random_crop(tf.zeros((5, 5, 3)), [7, 2, 3])


def test_random_ops_in_a_dataset_map_on_images_of_unknown_size():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((2, 10, 12, 3), np.uint8))

    def f(x):
        x = tf.image.decode_png(tf.io.encode_png(x), channels=3)  # (None, None, 3), as tfds's images
        y = tf.image.random_flip_left_right(tf.image.random_crop(x, size=[5, 6, 3]))
        return y, tf.image.stateless_random_crop(x, size=[4, 4, 3], seed=(1, 2)), tf.image.rot90(y)
    assert [s.shape.as_list() for s in ds.map(f).element_spec] == [[5, 6, 3], [4, 4, 3], [6, 5, 3]]
    assert [t.shape for t in next(iter(ds.map(f)))] == [(5, 6, 3), (4, 4, 3), (6, 5, 3)]

    @tf.function
    def g(x):
        return tf.image.random_flip_up_down(x)
    assert g.get_concrete_function(tf.TensorSpec([None, 4, 4, 3])).structured_outputs.shape.as_list() == [
        None, 4, 4, 3]
