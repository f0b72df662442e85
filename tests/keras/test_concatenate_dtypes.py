"""Concatenate of mixed dtypes promotes as TF 2.21's tf.keras (Keras 3.15) does instead of refusing: TensorFlow's
pandas_dataframe tutorial concatenates int64 and float32 columns. Values recorded from TF 2.21 / Keras 3.15."""
import numpy as np

import rivulet as tf


def test_int_and_float_inputs_give_float32_in_a_functional_model():
    a = tf.keras.Input(shape=(1,), dtype="int64")
    b = tf.keras.Input(shape=(2,), dtype="float32")
    c = tf.keras.layers.Concatenate()([a, b])
    assert c.dtype == tf.float32 and c.shape.as_list() == [None, 3]
    out = tf.keras.Model([a, b], c)([np.array([[7]]), np.array([[2.5, 3.0]], "float32")])
    np.testing.assert_array_equal(out.numpy(), [[7.0, 2.5, 3.0]])
    assert out.dtype == tf.float32


def test_integers_promote_as_numpy():
    cases = [("int32", "int64", tf.int64), ("uint8", "int8", tf.int16)]
    for x, y, want in cases:
        got = tf.keras.layers.concatenate([np.array([[1]], x), np.array([[2]], y)])
        assert got.dtype == want
        np.testing.assert_array_equal(got.numpy(), [[1, 2]])
