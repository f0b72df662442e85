"""tf.function with an input_signature covering a parameter that has a default: a call leaving it out passes
the default, conformed to its spec (TensorFlow 2.21; generative/deepdream's TiledGradients is called without
`tile_size=512`); a default that does not fit its spec fails as TensorFlow words it."""
import pytest

import rivulet as tf


def test_default_is_conformed_to_its_spec():
    @tf.function(input_signature=(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)))
    def scale(x, n=512):
        return x * tf.cast(n, tf.float32)

    assert scale(tf.constant(2.0)).numpy() == 1024.0
    assert scale(tf.constant(2.0), tf.constant(3)).numpy() == 6.0


def test_default_that_does_not_fit_its_spec():
    @tf.function(input_signature=(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)))
    def f(x, n=2.5):
        return x

    with pytest.raises(TypeError, match=r"Binding inputs to tf\.function failed due to `Cannot convert 2\.5 to "
                                        r"EagerTensor of dtype int32`.*n: TensorSpec\(shape=\(\), "
                                        r"dtype=tf\.int32, name=None\) = <captured_default_value>\)\."):
        f(tf.constant(2.0))
