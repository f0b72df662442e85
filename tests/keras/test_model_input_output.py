"""Functional models' `input` and `output` (tf_keras: the tensors the model was built on, one tensor when there
is one, a list otherwise), as deepdream and style_transfer use them: `tf.keras.Model(base.input,
[base.get_layer(n).output ...])`. A subclassed model never called has none (tf_keras's AttributeError)."""
import numpy as np
import pytest

import rivulet as tf


def test_functional_model_input_and_output():
    inputs = tf.keras.Input((4,))
    hidden = tf.keras.layers.Dense(3, name="hidden")(inputs)
    out = tf.keras.layers.Dense(2, name="out")(hidden)
    model = tf.keras.Model(inputs, out)
    assert model.input is inputs and model.output is out
    features = tf.keras.Model(inputs=model.input, outputs=[model.get_layer("hidden").output, model.output])
    x = np.ones((2, 4), "float32")
    h, y = features(x)
    np.testing.assert_allclose(y.numpy(), model(x).numpy(), rtol=1e-6)
    assert h.shape == (2, 3)
    model(tf.keras.Input((4,)))  # called again on another input: input/output stay the model's own
    assert model.input is inputs and model.output is out
    two = tf.keras.Model([inputs], [hidden, out])
    assert two.input is inputs and two.output == [hidden, out]


def test_subclassed_model_has_no_input_until_called():
    class Identity(tf.keras.Model):
        def call(self, x):
            return x

    with pytest.raises(AttributeError, match="is not connected, no input to return"):
        Identity(name="identity").input
