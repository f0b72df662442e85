"""tf.nn.max_pool/avg_pool/pool, space_to_depth/depth_to_space, local_response_normalization (and its gradient),
crelu, weighted_cross_entropy_with_logits, log_poisson_loss, normalize_moments, sufficient_statistics,
weighted_moments: values and errors recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors

X4 = (np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2) % 7 - 3)
# TensorFlow 2.21's outputs (rounded to 6 decimals) for the calls in the tests below
TF_MAX_POOL4 = [[[[0.0, 1.0], [3.0, 3.0]], [[2.0, 3.0], [3.0, 0.0]]]]
TF_AVG_POOL4 = [[[[-1.5, -0.5], [0.5, 1.5], [0.75, 0.0], [0.0, -2.5]], [[-0.5, 0.5], [1.5, 0.75], [0.0, -0.75],
    [-2.5, -1.5]], [[0.5, 1.5], [0.75, 0.0], [-0.75, -1.5], [-1.5, -0.5]], [[1.0, 2.0], [-0.5, 0.5], [-2.0,
    -1.0], [-1.0, 0.0]]]]
TF_MAX_POOL3 = [[[1.0, 2.0], [3.0, 2.0], [2.0, 3.0], [2.0, 3.0], [3.0, 2.0], [3.0, 1.0], [2.0, 3.0], [-1.0, 0.0]]]
TF_AVG_POOL5 = [[[[[-0.5, 0.5], [0.0, -0.75]]]]]
TF_S2D = [[[[-3.0, -2.0, -1.0, 0.0, -2.0, -1.0, 0.0, 1.0], [1.0, 2.0, 3.0, -3.0, 2.0, 3.0, -3.0, -2.0]], [[-1.0,
    0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0], [3.0, -3.0, -2.0, -1.0, -3.0, -2.0, -1.0, 0.0]]]]
TF_D2S = [[[[-3.0, -2.0], [-1.0, 0.0], [-2.0, -1.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, -3.0], [2.0, 3.0], [-3.0,
    -2.0]], [[-1.0, 0.0], [1.0, 2.0], [0.0, 1.0], [2.0, 3.0]], [[3.0, -3.0], [-2.0, -1.0], [-3.0, -2.0], [-1.0,
    0.0]]]]
TF_LRN = [[[[-0.6619499921798706, -0.44130000472068787], [-0.7377880215644836, 0.0], [0.3907949924468994,
    0.7815899848937988], [0.5334839820861816, -0.5334839820861816]], [[-0.7815899848937988, -0.3907949924468994],
    [0.0, 0.7377880215644836], [0.44130000472068787, 0.6619499921798706], [-0.6619499921798706,
    -0.44130000472068787]], [[-0.7377880215644836, 0.0], [0.3907949924468994, 0.7815899848937988],
    [0.5334839820861816, -0.5334839820861816], [-0.7815899848937988, -0.3907949924468994]], [[0.0,
    0.7377880215644836], [0.44130000472068787, 0.6619499921798706], [-0.6619499921798706, -0.44130000472068787],
    [-0.7377880215644836, 0.0]]]]
TF_LRN_DEFAULT = [[[[-0.6708199977874756, -0.3713909983634949, -0.1622209995985031, 0.0, 0.1622209995985031,
    0.3244430124759674, 0.5570859909057617, -0.6000000238418579], [-0.4472140073776245, -0.18569500744342804,
    0.0, 0.17407800257205963, 0.3481549918651581, 0.5222330093383789, -0.5570859909057617,
    -0.37796398997306824]], [[-0.20000000298023224, 0.0, 0.18257400393486023, 0.36514800786972046,
    0.5477229952812195, -0.5477229952812195, -0.3713909983634949, -0.18569500744342804], [0.0,
    0.18569500744342804, 0.3713909983634949, 0.5570859909057617, -0.5570859909057617, -0.3713909983634949,
    -0.18569500744342804, 0.0]]]]
TF_LRN_GRAD = [[[[-0.13576899468898773, 0.4313330054283142, 1.224174976348877, 2.505897045135498],
    [3.91496205329895, 4.929354190826416, 5.531492233276367, 6.234772205352783]], [[5.420244216918945,
    3.891616106033325, 2.2939438819885254, 4.027399063110352], [3.495692014694214, 0.49464699625968933,
    -0.70557701587677, 2.0746419429779053]]]]
R = dict(rtol=2e-6, atol=2e-6)


def test_pools_by_rank():
    x = tf.constant(X4)
    np.testing.assert_allclose(tf.nn.max_pool(x, 2, 2, "VALID").numpy(), TF_MAX_POOL4, **R)
    np.testing.assert_allclose(tf.nn.avg_pool(x, [2, 2], [1, 1], "SAME").numpy(), TF_AVG_POOL4, **R)
    np.testing.assert_allclose(tf.nn.max_pool(tf.reshape(x, [1, 16, 2]), 3, 2, "SAME").numpy(), TF_MAX_POOL3, **R)
    np.testing.assert_allclose(tf.nn.avg_pool(tf.reshape(x, [1, 2, 2, 4, 2]), 2, 2, "VALID").numpy(), TF_AVG_POOL5,
                               **R)
    np.testing.assert_allclose(tf.nn.pool(x, [2, 2], "MAX", strides=[2, 2], padding="VALID").numpy(),
                               TF_MAX_POOL4, **R)
    np.testing.assert_allclose(tf.nn.pool(x, [2, 2], "AVG", padding="SAME").numpy(), TF_AVG_POOL4, **R)
    with pytest.raises(ValueError, match=r"`input.shape.rank` must be 3, 4 or 5. Received: input.shape=\(2, 2\) "
                                         r"of rank 2."):
        tf.nn.max_pool(tf.ones([2, 2]), 2, 2, "VALID")


def test_space_to_depth_and_back():
    x = tf.constant(X4)
    np.testing.assert_array_equal(tf.nn.space_to_depth(x, 2).numpy(), TF_S2D)
    np.testing.assert_array_equal(tf.nn.depth_to_space(tf.reshape(x, [1, 2, 2, 8]), 2).numpy(), TF_D2S)
    np.testing.assert_array_equal(tf.nn.depth_to_space(tf.nn.space_to_depth(x, 2), 2).numpy(), X4)
    w = tf.reshape(tf.range(32.0), [1, 2, 2, 8])
    with tf.GradientTape() as t:
        t.watch(x)
        loss = tf.reduce_sum(tf.nn.space_to_depth(x, 2) * w)
    g = t.gradient(loss, x)
    np.testing.assert_array_equal(g.numpy(), tf.nn.depth_to_space(w, 2).numpy())
    with pytest.raises(errors.InvalidArgumentError, match="Image width 3 and height 3 should be divisible by "
                                                          "block_size: 2"):
        tf.nn.space_to_depth(tf.ones([1, 3, 3, 1]), 2)
    with pytest.raises(errors.InvalidArgumentError, match="Value for attr 'block_size' of 1 must be at least "
                                                          "minimum 2"):
        tf.nn.space_to_depth(tf.ones([1, 2, 2, 1]), 1)
    with pytest.raises(errors.InvalidArgumentError, match="Input depth dimension 3 should be divisible by: 4"):
        tf.nn.depth_to_space(tf.ones([1, 2, 2, 3]), 2)


def test_local_response_normalization_and_gradient():
    x = tf.constant(X4)
    np.testing.assert_allclose(tf.nn.local_response_normalization(x, depth_radius=1, bias=1.0, alpha=0.5,
                                                                  beta=0.75).numpy(), TF_LRN, **R)
    np.testing.assert_allclose(tf.nn.lrn(tf.reshape(x, [1, 2, 2, 8])).numpy(), TF_LRN_DEFAULT, **R)
    xv = tf.constant(np.linspace(-1, 2, 16).reshape(1, 2, 2, 4), tf.float32)
    with tf.GradientTape() as t:
        t.watch(xv)
        y = tf.nn.local_response_normalization(xv, 1, 1.0, 0.3, 0.6)
        loss = tf.reduce_sum(y * tf.constant(np.arange(16, dtype=np.float32).reshape(1, 2, 2, 4)))
    np.testing.assert_allclose(t.gradient(loss, xv).numpy(), TF_LRN_GRAD, rtol=2e-6, atol=5e-6)


def test_composites():
    np.testing.assert_array_equal(tf.nn.crelu(tf.constant([[-1.0, 2.0]])).numpy(), [[0.0, 2.0, 1.0, 0.0]])
    np.testing.assert_allclose(tf.nn.weighted_cross_entropy_with_logits(
        tf.constant([1.0, 0.0, 0.5]), tf.constant([2.0, -1.0, 0.3]), 3.0).numpy(), [0.380784, 0.313262, 1.25871], **R)
    np.testing.assert_allclose(tf.nn.log_poisson_loss(tf.constant([0.0, 1.0, 3.0]), tf.constant([0.5, -1.0, 2.0]))
                               .numpy(), [1.648721, 1.367879, 1.389056], **R)
    np.testing.assert_allclose(tf.nn.log_poisson_loss(tf.constant([0.0, 1.0, 3.0]), tf.constant([0.5, -1.0, 2.0]),
                                                      compute_full_loss=True).numpy(), [1.648721, 1.367879, 3.153138],
                               **R)
    m, v = tf.nn.normalize_moments(tf.constant(4.0), tf.constant([2.0, 4.0]), tf.constant([6.0, 10.0]), None)
    assert m.numpy().tolist() == [0.5, 1.0] and v.numpy().tolist() == [1.25, 1.5]
    m, v = tf.nn.normalize_moments(tf.constant(4.0), tf.constant([2.0, 4.0]), tf.constant([6.0, 10.0]),
                                   tf.constant([1.0, -1.0]))
    assert m.numpy().tolist() == [1.5, 0.0] and v.numpy().tolist() == [1.25, 1.5]
    xs = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    c, s, ss, shift = tf.nn.sufficient_statistics(xs, [0])
    assert c.numpy() == 2.0 and s.numpy().tolist() == [4.0, 7.0] and ss.numpy().tolist() == [10.0, 29.0]
    assert shift is None
    c, s, ss, shift = tf.nn.sufficient_statistics(xs, [0, 1], shift=1.0, keepdims=True)
    assert c.numpy() == 4.0 and s.numpy().tolist() == [[7.0]] and ss.numpy().tolist() == [[21.0]]
    m, v = tf.nn.weighted_moments(xs, [0], tf.constant([[1.0], [3.0]]))
    assert m.numpy().tolist() == [2.5, 4.25] and v.numpy().tolist() == [0.75, 1.6875]
    m, v = tf.nn.weighted_moments(xs, [0, 1], tf.constant([[1.0, 2.0], [3.0, 0.0]]), keepdims=True)
    np.testing.assert_allclose(m.numpy(), [[2.333333]], **R)
    np.testing.assert_allclose(v.numpy(), [[0.555556]], **R)
