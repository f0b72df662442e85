"""Keras models saved with tf.saved_model.save / Model.save load back callable on the model's inputs."""
import numpy as np
import pytest

import rivulet as tf

from .test_save_load import run_fresh

layers = tf.keras.layers
X = np.arange(12, dtype="float32").reshape(4, 3) / 10


def _check_loaded(model, path):
    loaded = tf.saved_model.load(str(path))
    want = model(X, training=False).numpy()
    np.testing.assert_allclose(loaded(X).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(loaded(tf.constant(X[:1])).numpy(), want[:1], rtol=1e-5, atol=1e-6)  # any batch size
    sig = loaded.signatures["serving_default"]
    out = sig(inputs=tf.constant(X))
    key = model.output_names[0] if model.output_names else "output_1"  # tf_keras's serving keys
    assert list(out) == [key]
    np.testing.assert_allclose(out[key].numpy(), want, rtol=1e-6)
    return loaded


def test_sequential_with_input_is_callable_after_loading_with_inference_behaviour(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), layers.Dense(8, activation="relu"), layers.Dropout(0.5),
                                 layers.BatchNormalization(), layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(X, X[:, :2], epochs=2, verbose=0)  # moving statistics move away from their initial values
    tf.saved_model.save(model, str(tmp_path / "m"))
    loaded = _check_loaded(model, tmp_path / "m")
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded(np.zeros((2, 4), "float32"))


def test_models_built_by_calling_them_save_the_shape_they_were_called_with(tmp_path):
    class Twice(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)

        def call(self, x):
            return self.dense(x) * 2.0

    seq = tf.keras.Sequential([layers.Dense(4), layers.Dense(2)])
    seq(X)
    sub = Twice()
    sub(X)
    i = tf.keras.Input((3,))
    functional = tf.keras.Model(i, layers.Dense(2)(layers.Dense(5, activation="tanh")(i)))
    for n, model in enumerate((seq, sub, functional)):
        model.save(tmp_path / f"m{n}")
        _check_loaded(model, tmp_path / f"m{n}")


def test_a_model_that_was_never_built_saves_with_no_signatures_but_model_save_refuses_it(tmp_path):
    # as TensorFlow (distribute/save_and_load saves one with tf.saved_model.save and shows `_SignatureMap({})`);
    # tf_keras's model.save asks for an input shape first
    class Plain(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    tf.saved_model.save(Plain(), str(tmp_path / "p"))
    assert len(tf.saved_model.load(str(tmp_path / "p")).signatures) == 0
    with pytest.raises(ValueError, match="cannot be saved either because the input shape is not available"):
        Plain().save(str(tmp_path / "q"))
    with pytest.raises(ValueError, match="Expected an object with tf.Variable or tf.function"):
        tf.saved_model.save(object(), str(tmp_path / "o"))


def test_a_saved_keras_model_runs_in_a_fresh_interpreter(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), layers.Dense(4, activation="relu"), layers.Dense(2)])
    model.save(str(tmp_path / "m"))
    got = run_fresh("import json, numpy as np, rivulet as tf\n"
                    "m = tf.saved_model.load('m')\n"
                    "print(json.dumps(m(np.arange(12, dtype='float32').reshape(4, 3) / 10).numpy().tolist()))",
                    str(tmp_path))
    np.testing.assert_allclose(got, model(X).numpy(), rtol=1e-6)
