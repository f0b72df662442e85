"""Model.export (tf_keras 2.21): a SavedModel whose `serve` endpoint runs the model (load_data/text)."""
import numpy as np
import pytest

import rivulet as tf


def test_export_serves_the_model_on_its_input_specs(tmp_path, capsys):
    vectorize = tf.keras.layers.TextVectorization(max_tokens=10, output_mode="binary")
    vectorize.adapt(["a b c", "b c d"])
    model = tf.keras.Sequential([vectorize, tf.keras.layers.Dense(4)])
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer="adam")
    model.fit(tf.data.Dataset.from_tensor_slices((["a b", "c d"], [0, 1])).batch(2), epochs=1, verbose=0)
    model.export(tmp_path / "bin.tf")
    out = capsys.readouterr().out
    assert out.startswith(f"Saved artifact at '{tmp_path / 'bin.tf'}'. The following endpoints are available:\n\n"
                          "* Endpoint 'serve'\n  args_0 (")
    assert "TensorSpec(shape=(None,), dtype=tf.string, name=None)\nOutput Type:\n" \
           "  TensorSpec(shape=(None, 4), dtype=tf.float32, name=None)\nCaptures:\n" in out
    loaded = tf.saved_model.load(str(tmp_path / "bin.tf"))
    want = model.predict(["How do you sort a list?"], verbose=0)
    np.testing.assert_allclose(loaded.serve(tf.constant(["How do you sort a list?"])).numpy(), want, rtol=1e-6)
    assert sorted(loaded.signatures.keys()) == ["serve", "serving_default"]


def test_export_needs_a_model_with_inputs(tmp_path):
    class Sub(tf.keras.Model):
        def call(self, x):
            return x

    sub = Sub()
    with pytest.raises(ValueError, match="It must be called at least once before export"):
        sub.export(tmp_path / "m")
    sub(tf.ones((2, 3)))  # once called, its call's spec is the endpoint's
    sub.export(tmp_path / "m")
    np.testing.assert_array_equal(tf.saved_model.load(str(tmp_path / "m")).serve(tf.ones((1, 3))).numpy(), [[1, 1, 1]])
