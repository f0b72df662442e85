"""load_model of a saved-model directory whose config names a layer class this process does not have (a
tensorflow_hub KerasLayer, a custom layer never registered): as tf_keras, the model is revived from the saved
model's traced call, with its variables, instead of failing on the config."""
import numpy as np
import pytest

import rivulet as tf


class HubLikeScale(tf.keras.layers.Layer):  # never registered: load_model cannot rebuild it from the config
    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w + 1.0


def test_unknown_layer_class_revives_from_the_traced_call(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, kernel_initializer="ones", input_shape=(2,)), HubLikeScale()])
    model.layers[1].w.assign([1.0, 2.0, 3.0])
    x = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
    want = model.predict(x, verbose=0)
    np.testing.assert_allclose(want, [[4.0, 7.0, 10.0], [0.5, 0.0, -0.5]])
    model.save(str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Unknown layer: 'HubLikeScale'"):
        tf.keras.models.model_from_json(model.to_json())  # the config alone cannot be rebuilt
    revived = tf.keras.models.load_model(str(tmp_path / "m"))
    assert isinstance(revived, tf.keras.Model) and revived.name == model.name
    np.testing.assert_allclose(revived.predict(x, verbose=0), want)
    np.testing.assert_allclose(revived(x).numpy(), want)
    assert sorted(w.shape.as_list() for w in revived.weights) == sorted(w.shape.as_list() for w in model.weights)
    revived.layers  # noqa: B018 (a revived model answers Keras' questions)


def test_other_config_errors_still_raise(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
    model.save(str(tmp_path / "m"))
    import json
    meta = tmp_path / "m" / "keras_metadata.json"
    config = json.loads(meta.read_text())
    config["class_name"] = "NotAModel"
    meta.write_text(json.dumps(config))
    with pytest.raises(ValueError):
        tf.keras.models.load_model(str(tmp_path / "m"))
