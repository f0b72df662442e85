"""Keras preprocessing and augmentation layers as tf_keras 2.21 has them: lookup layers' `.keras` round trips,
FarmHash Fingerprint64 (Hashing, HashedCrossing, tf.strings.to_hash_bucket_*), ImageProjectiveTransformV3 and
the augmentation layers built on it, Resizing/CenterCrop/RandomCrop, Discretization. Expected values are
TensorFlow's (its docstrings and docs) or follow from its definitions."""
import numpy as np
import pytest

import rivulet as tf

L = tf.keras.layers


# ============================================================================ lookup layers reload
def _reloaded(layer, inp, x, tmp_path):
    model = tf.keras.Model(inp, layer(inp))
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())
    return again


def test_string_lookup_model_reloads_its_keras_file(tmp_path):
    pytest.importorskip("h5py")
    s = L.StringLookup()
    s.adapt(np.array(["a", "b", "b"]))
    m = _reloaded(s, tf.keras.Input(shape=(1,), dtype="string"), tf.constant([["a"], ["b"], ["z"]]), tmp_path)
    assert m.layers[1].get_vocabulary() == ["[UNK]", "b", "a"]
    assert m.layers[1].get_config()["vocabulary_size"] == 3


def test_integer_lookup_and_text_vectorization_reload(tmp_path):
    pytest.importorskip("h5py")
    _reloaded(L.IntegerLookup(vocabulary=[3, 4, 5], output_mode="one_hot"), tf.keras.Input(shape=(1,), dtype="int64"),
              tf.constant([[3], [9]], dtype=tf.int64), tmp_path)
    t = L.TextVectorization(max_tokens=10, output_sequence_length=3)
    t.adapt(np.array(["a b", "b c d"]))
    _reloaded(t, tf.keras.Input(shape=(1,), dtype="string"), tf.constant([["a d"], ["z b"]]), tmp_path)


def test_lookup_from_config_drops_tf_keras_saver_keys():
    cfg = L.StringLookup(vocabulary=["x", "y"]).get_config()
    cfg.update(vocabulary_size=3, has_input_vocabulary=True, has_static_table=True)
    assert L.StringLookup.from_config(cfg).get_vocabulary() == ["[UNK]", "x", "y"]
