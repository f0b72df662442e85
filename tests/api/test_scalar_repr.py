"""A scalar tensor's repr shows the Python number it holds, as TensorFlow 2.21 (with NumPy 2) prints it:
float32 2.2 is numpy=2.200000047683716; str() and arrays keep NumPy's shortest forms (values recorded from TF)."""
import numpy as np

import rivulet as tf


def test_scalar_reprs_as_tensorflow_2_21():
    assert repr(tf.constant(2.2)) == "<tf.Tensor: shape=(), dtype=float32, numpy=2.200000047683716>"
    assert repr(tf.constant(2.2, tf.float16)) == "<tf.Tensor: shape=(), dtype=float16, numpy=2.19921875>"
    assert repr(tf.constant(0.1, tf.float64)) == "<tf.Tensor: shape=(), dtype=float64, numpy=0.1>"
    assert repr(tf.constant(1e-8)) == "<tf.Tensor: shape=(), dtype=float32, numpy=9.99999993922529e-09>"
    assert repr(tf.constant(0.1 + 0.2j, tf.complex64)) == (
        "<tf.Tensor: shape=(), dtype=complex64, numpy=(0.10000000149011612+0.20000000298023224j)>")
    for value, text in ((np.nan, "nan"), (float("inf"), "inf"), (-0.0, "-0.0"), (1.0, "1.0")):
        assert repr(tf.constant(value)) == f"<tf.Tensor: shape=(), dtype=float32, numpy={text}>"
    assert repr(tf.constant(3, tf.int8)).endswith("numpy=3>") and repr(tf.constant(b"x")).endswith("numpy=b'x'>")
    assert repr(tf.Variable(2.2)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.200000047683716>"
    assert str(tf.constant(2.2)) == "tf.Tensor(2.2, shape=(), dtype=float32)"
    assert repr(tf.constant([2.2])) == "<tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.2], dtype=float32)>"
