"""conv1d, conv2d_transpose, depthwise/separable conv2d and 1-D/3-D pools against values and gradients recorded
from TensorFlow 2.21 (tests/ops/golden/conv.npz: outputs, then d(sum(y*y))/d(inputs))."""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.ops import conv_ops
from tests.ops.gradcheck import check_op_grad

G = np.load(os.path.join(os.path.dirname(__file__), "golden", "conv.npz"), allow_pickle=False)
X, W, X2, WT, WD, PW, X3 = (G[f"inputs__{i}"] for i in range(7))


def _check(name, fn, inputs):
    with tf.GradientTape() as g:
        vs = [tf.constant(a) for a in inputs]
        for v in vs:
            g.watch(v)
        y = fn(*vs)
        loss = tf.reduce_sum(y * y)
    got = [y] + g.gradient(loss, vs)
    for i, a in enumerate(got):
        want = G[f"{name}__{i}"]
        assert a.shape == want.shape, (name, i)
        np.testing.assert_allclose(a.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=f"{name} #{i}")


@pytest.mark.parametrize("pad", ["SAME", "VALID"])
@pytest.mark.parametrize("s", [1, 2])
def test_conv1d(pad, s):
    _check(f"conv1d_{pad}_{s}", lambda x, w: tf.nn.conv1d(x, w, s, pad), [X, W])


@pytest.mark.parametrize("pad,s,osz", [("SAME", 2, (2, 10, 12, 4)), ("VALID", 2, (2, 11, 13, 4)),
                                       ("SAME", 1, (2, 5, 6, 4)), ("VALID", 1, (2, 7, 8, 4)),
                                       ("SAME", 2, (2, 9, 11, 4))])
def test_conv2d_transpose(pad, s, osz):
    _check(f"convT_{pad}_{s}_{osz[1]}", lambda x, w: tf.nn.conv2d_transpose(x, w, osz, s, pad), [X2, WT])


@pytest.mark.parametrize("pad,s,d", [("SAME", 1, 1), ("VALID", 2, 1), ("SAME", 2, 1), ("SAME", 1, 2),
                                     ("VALID", 1, 2)])
def test_depthwise_conv2d(pad, s, d):
    _check(f"dw_{pad}_{s}_{d}", lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, s, s, 1], pad, dilations=[d, d]),
           [X2, WD])


def test_separable_conv2d():
    _check("sep", lambda x, w, p: tf.nn.separable_conv2d(x, w, p, [1, 1, 1, 1], "SAME"), [X2, WD, PW])


@pytest.mark.parametrize("fn", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("pad", ["SAME", "VALID"])
def test_pool3d(fn, pad):
    _check(f"{fn}_{pad}", lambda x: getattr(tf.nn, fn)(x, [2, 3, 2], [2, 1, 2], pad), [X3])


@pytest.mark.parametrize("fn", ["max_pool1d", "avg_pool1d"])
def test_pool1d(fn):
    np.testing.assert_allclose(getattr(tf.nn, fn)(X, 2, 2, "SAME").numpy(), G[f"{fn}__0"], rtol=1e-6)


def test_graph_mode_dynamic_batch():
    @tf.function(input_signature=[tf.TensorSpec([None, 5, 6, 3])])
    def f(a):
        shape = tf.stack([tf.shape(a)[0], 10, 12, 4])
        return (tf.nn.conv2d_transpose(a, WT, shape, 2, "SAME"), tf.nn.depthwise_conv2d(a, WD, [1, 1, 1, 1], "SAME"),
                tf.nn.max_pool3d(tf.reshape(a, [-1, 5, 6, 3, 1]), 2, 2, "VALID"))
    cf = f.get_concrete_function()
    assert cf.structured_outputs[0].shape.as_list() == [None, None, None, 4]
    assert cf.structured_outputs[1].shape.as_list() == [None, 5, 6, 6]
    t, d, p = f(X2)
    np.testing.assert_allclose(t.numpy(), G["convT_SAME_2_10__0"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(d.numpy(), G["dw_SAME_1_1__0"], rtol=1e-4, atol=1e-4)
    assert p.shape == (2, 2, 3, 1, 1)


def test_second_order_gradients():
    rng = np.random.RandomState(1)
    x = rng.randn(1, 5, 4, 2)
    w = rng.randn(3, 2, 2, 2)
    attrs = {"strides": (2, 2), "padding": "SAME", "dilations": (1, 1)}
    check_op_grad(conv_ops.DEPTHWISE_CONV2D, [x, w], attrs)
    dy = rng.randn(1, 3, 2, 4)
    check_op_grad(conv_ops.DW_INPUT, [x, w, dy], attrs)
    check_op_grad(conv_ops.DW_FILTER, [x, w, dy], attrs)
    wt = rng.randn(3, 3, 2, 4)
    check_op_grad(conv_ops.CONV2D_TRANSPOSE, [np.array([1, 5, 4, 2], np.int32), wt, dy], attrs)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="Size of out_backprop doesn't match computed"):
        tf.nn.conv2d_transpose(X2, WT, (2, 20, 12, 4), 2, "SAME")
    with pytest.raises(ValueError, match="number of input channels"):
        tf.nn.conv2d_transpose(X2, WT[..., :2], (2, 10, 12, 4), 2, "SAME")
    with pytest.raises(InvalidArgumentError, match="same depth"):
        tf.nn.depthwise_conv2d(X2, WD[:, :, :2], [1, 1, 1, 1], "SAME")
    with pytest.raises(InvalidArgumentError, match="equal length strides"):
        tf.nn.depthwise_conv2d(X2, WD, [1, 1, 2, 1], "SAME")
    with pytest.raises(ValueError, match="3-dimensional"):
        tf.nn.conv1d(X2, W, 1, "SAME")
    with pytest.raises(ValueError, match="5-dimensional"):
        tf.nn.max_pool3d(X2, 2, 2, "SAME")
