"""DepthwiseConv2dNative and ResizeNearestNeighbor/ResizeBilinear (ops TensorFlow SavedModels use) against
TensorFlow 2.21's values and gradients (data/depthwise_resize_tf.npz), and their gradients against finite
differences (float64)."""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.ops import conv_ops
from rivulet.ops import resize_ops

from .gradcheck import check_op_grad

GOLDEN = os.path.join(os.path.dirname(__file__), "data", "depthwise_resize_tf.npz")
DW_CASES = [((1, 1), "SAME", (1, 1)), ((2, 2), "VALID", (1, 1)), ((1, 1), "SAME", (2, 2))]
RS_CASES = [((7, 5), False, False), ((7, 5), True, False), ((6, 9), False, True), ((2, 3), False, True)]


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN, allow_pickle=False) as f:
        return dict(f)


def check_depthwise_against_tensorflow(golden, k):
    """DW_CASES[k]'s output and gradients (of sum(y * sin(y))) equal TensorFlow's recorded ones."""
    strides, padding, dilations = DW_CASES[k]
    x, w = tf.constant(golden["dw_x"]), tf.constant(golden["dw_w"])
    with tf.GradientTape() as tape:
        tape.watch([x, w])
        y = tf.nn.depthwise_conv2d(x, w, [1, *strides, 1], padding, dilations=dilations)
        loss = tf.reduce_sum(y * tf.sin(y))
    gx, gw = tape.gradient(loss, [x, w])
    np.testing.assert_allclose(y.numpy(), golden[f"dw{k}_y"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gx.numpy(), golden[f"dw{k}_gx"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.numpy(), golden[f"dw{k}_gw"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k", range(len(DW_CASES)))
def test_depthwise_conv2d_matches_tensorflow(golden, k):
    check_depthwise_against_tensorflow(golden, k)


def test_depthwise_conv2d_shapes_and_errors():
    f = tf.function(lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"))
    cf = f.get_concrete_function(tf.TensorSpec([None, 9, 8, 3]), tf.TensorSpec([3, 3, 3, 2]))
    assert cf.outputs[0].shape.as_list() == [None, 5, 4, 6]
    with pytest.raises(ValueError, match="same depth: 3 vs 2"):
        f.get_concrete_function(tf.TensorSpec([1, 9, 8, 3]), tf.TensorSpec([3, 3, 2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="NHWC"):
        tf.nn.depthwise_conv2d(tf.zeros([1, 3, 3, 1]), tf.zeros([1, 1, 1, 1]), [1, 1, 1, 1], "SAME",
                               data_format="NCHW")


@pytest.mark.parametrize("k", [0, 1, 2])
def test_depthwise_gradients_by_finite_differences(golden, k):
    rng = np.random.default_rng(k)
    x, w = rng.normal(size=(1, 5, 4, 2)), rng.normal(size=(2, 3, 2, 2))
    attrs = conv_ops._conv_attrs([1, *DW_CASES[k][0], 1], DW_CASES[k][1], DW_CASES[k][2])
    check_op_grad(conv_ops.DEPTHWISE_CONV2D, [x, w], attrs=attrs)
    dy = rng.normal(size=conv_ops.DEPTHWISE_CONV2D.kernel(x, w, **attrs).shape)
    check_op_grad(conv_ops.DW_INPUT, [x, w, dy], attrs=attrs)
    check_op_grad(conv_ops.DW_FILTER, [x, w, dy], attrs=attrs)


@pytest.mark.parametrize("method", ["nearest", "bilinear"])
@pytest.mark.parametrize("k", range(len(RS_CASES)))
def test_resize_matches_tensorflow(golden, method, k):
    size, align_corners, half_pixel = RS_CASES[k]
    x = tf.constant(golden["rs_x"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = resize_ops.resize(x, size, method, align_corners, half_pixel)
        loss = tf.reduce_sum(y * tf.cos(y))
    np.testing.assert_allclose(y.numpy(), golden[f"rs_{method}{k}_y"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), golden[f"rs_{method}{k}_gx"], rtol=1e-5, atol=1e-5)


def test_resize_dtypes_shapes_and_errors():
    ints = tf.constant(np.arange(6, dtype=np.int32).reshape(1, 2, 3, 1))
    assert resize_ops.resize(ints, [4, 6], "nearest").dtype == tf.int32
    assert resize_ops.resize(ints, [4, 6], "bilinear").dtype == tf.float32  # as TensorFlow's ResizeBilinear
    f = tf.function(lambda x, n: resize_ops.resize(x, tf.stack([n, 8]), "bilinear"))
    assert f.get_concrete_function(tf.TensorSpec([None, 4, 4, 3]), tf.TensorSpec([], tf.int32)) \
        .outputs[0].shape.as_list() == [None, None, 8, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
        resize_ops.resize(ints, [0, 3], "nearest")
    with pytest.raises(ValueError, match="4-dimensional"):
        tf.function(lambda x: resize_ops.resize(x, [2, 2], "nearest")).get_concrete_function(tf.TensorSpec([3, 3]))


def test_resize_gradients_by_finite_differences():
    x = np.random.default_rng(0).normal(size=(1, 3, 4, 2))
    for hp in (False, True):
        attrs = {"align_corners": not hp, "half_pixel_centers": hp}
        # the kernel computes in float32 (as TensorFlow's); it is linear, so a large step is exact
        check_op_grad(resize_ops.BILINEAR, [x, np.array([5, 7], np.int32)], attrs=attrs, eps=0.5, atol=1e-4,
                      rtol=1e-4)


def test_nearest_align_corners_rounds_halves_up_as_tensorflow():
    x = np.arange(5, dtype=np.float32).reshape(1, 5, 1, 1)  # 5 -> 9 rows: source rows 0, .5, 1, 1.5 ...
    got = resize_ops.resize(x, [9, 1], "nearest", align_corners=True).numpy().ravel()
    np.testing.assert_array_equal(got, [0, 1, 1, 2, 2, 3, 3, 4, 4])  # TensorFlow 2.21's result


@pytest.mark.parametrize("k", range(len(DW_CASES)))
def test_numpy_depthwise_conv2d_matches_tensorflow_without_a_padded_copy_or_batch_temporaries(golden, k,
                                                                                               monkeypatch):
    # The NumPy kernel (no onednn extra, or float64/float16): TensorFlow's values, and its memory is the
    # output plus one bounded temporary (it was a padded input copy and an output-sized product per tap).
    import tracemalloc

    from rivulet.ops import nn_ops
    monkeypatch.setattr(nn_ops, "_dnnl", lambda *a: False)
    strides, padding, dilations = DW_CASES[k]
    y = conv_ops._dw_kernel(golden["dw_x"], golden["dw_w"], strides, padding, dilations)
    np.testing.assert_allclose(y, golden[f"dw{k}_y"], rtol=1e-5, atol=1e-5)
    x = np.ones((64, 48, 48, 32), np.float32)  # 18 MiB, its output as big (stride 1)
    w = np.ones((3, 3, 32, 1), np.float32)
    tracemalloc.start()
    try:
        y = conv_ops._dw_kernel(x, w, strides, padding, dilations)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < y.nbytes + conv_ops._DW_BLOCK + (1 << 20), (peak, y.nbytes)
    assert y[0, 20, 20, 0] == 9


@pytest.mark.parametrize("k", range(len(DW_CASES)))
def test_numpy_depthwise_gradients_match_tensorflow_without_padded_or_per_tap_copies(golden, k, monkeypatch):
    # The NumPy gradient kernels: TensorFlow's gradients, the input's gradient in memory its own size plus a
    # bounded temporary (was a padded gradient, a dy-sized product and a copy), the filter's in no more than
    # a few small arrays (was a padded input and an input-sized copy per tap).
    import tracemalloc

    from rivulet.ops import nn_ops
    monkeypatch.setattr(nn_ops, "_dnnl", lambda *a: False)
    check_depthwise_against_tensorflow(golden, k)
    strides, padding, dilations = DW_CASES[k]
    xs = np.ones((64, 48, 48, 32), np.float32)  # 18 MiB
    ws = np.ones((3, 3, 32, 1), np.float32)
    dy = np.ones(conv_ops._dw_kernel(xs, ws, strides, padding, dilations).shape, np.float32)
    tracemalloc.start()
    try:
        dx = conv_ops._dw_input_kernel(xs, ws, dy, strides, padding, dilations)
        peak_x = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        dw = conv_ops._dw_filter_kernel(xs, ws, dy, strides, padding, dilations)
        peak_w = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak_x < dx.nbytes + conv_ops._DW_BLOCK + (1 << 20), (peak_x, dx.nbytes)
    assert peak_w < 1 << 20, peak_w
    assert dw.shape == ws.shape and dx.shape == xs.shape
