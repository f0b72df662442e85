"""tf.constant of an eager tensor with another dtype is TensorFlow 2.21's TypeError (it casts no tensor: tf.cast
does); NumPy values are still converted as TF converts them (values and messages recorded from TF 2.21)."""
import numpy as np
import pytest

import rivulet as tf


def test_constant_of_a_tensor_keeps_its_dtype_or_raises():
    t = tf.constant([1], tf.int16)
    assert tf.constant(t, tf.int16).dtype == tf.int16 and tf.constant(t).dtype == tf.int16
    with pytest.raises(TypeError, match=r"Expected tensor \[1\] with dtype tf.float32, but got dtype tf.int16."):
        tf.constant(t, tf.float32)
    with pytest.raises(TypeError, match="but got dtype tf.float32"):
        tf.constant(tf.constant([1.0]), tf.float64)


def test_numpy_values_still_convert_as_tensorflow_converts_them():
    assert tf.constant(np.array([1.5]), tf.int32).numpy().tolist() == [1]
    assert tf.constant(np.array([300]), tf.int8).numpy().tolist() == [44]
    assert tf.constant(np.array([True]), tf.int32).numpy().tolist() == [1]
