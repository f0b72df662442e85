"""tf.image.adjust_contrast is TensorFlow's AdjustContrastv2 op, which has no gradient (guide/autodiff.ipynb,
"Not all ops are differentiable"); values and messages recorded from TF 2.21."""
import numpy as np
import pytest

import rivulet as tf


def test_guide_cell_no_gradient():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError) as e:
        tape.gradient(new_image, [image, delta])
    assert f"{type(e.value).__name__}: {e.value}" == "LookupError: gradient registry has no entry for: AdjustContrastv2"
    assert new_image.numpy().tolist() == [[[0.5, 0.0, 0.0]]]


def test_graph_and_values():
    @tf.function
    def f(x):
        return tf.image.adjust_contrast(x, 2.)
    ops = [op.type for op in f.get_concrete_function(tf.TensorSpec([2, 2, 3])).graph.get_operations()]
    assert ops == ["Placeholder", "Const", "AdjustContrastv2", "Identity", "Identity"]  # as in TF 2.21
    x = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]
    assert tf.image.adjust_contrast(tf.constant(x, tf.uint8), 2.).numpy().tolist() == \
        [[[0, 0, 0], [2, 3, 4]], [[8, 9, 10], [14, 15, 16]]]
    out = tf.image.adjust_contrast(tf.constant(x, tf.float64), 2.)
    assert out.dtype == tf.float64
    np.testing.assert_array_equal(out.numpy(), [[[-3.5, -2.5, -1.5], [2.5, 3.5, 4.5]],
                                                [[8.5, 9.5, 10.5], [14.5, 15.5, 16.5]]])


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^input must be at least 3-D, got shape\[2,2\] \[Op:AdjustContrastv2\]"):
        tf.image.adjust_contrast(tf.ones([2, 2]), 2.)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^contrast_factor must be scalar: \[2\] \[Op:AdjustContrastv2\]"):
        tf.image.adjust_contrast(tf.ones([2, 2, 3]), [2., 3.])
