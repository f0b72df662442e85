"""tf.nest over dict views (dict.keys()/values()/items()): nested in their own iteration order, packed back as
lists, as TensorFlow 2.21 (values recorded from it); a Keras layer takes inputs.values() (the
migrating_feature_columns guide: Concatenate()(inputs.values()))."""
import numpy as np
import pytest

import rivulet as tf


def test_views_flatten_in_their_own_order_and_pack_as_lists():
    d = {"b": 1, "a": 2}
    assert tf.nest.flatten(d.values()) == [1, 2]
    assert tf.nest.flatten(d.keys()) == ["b", "a"]
    assert tf.nest.flatten(d.items()) == ["b", 1, "a", 2]
    assert tf.nest.is_nested(d.values())
    assert tf.nest.map_structure(lambda x: x * 10, d.values()) == [10, 20]
    assert tf.nest.pack_sequence_as(d.values(), [5, 6]) == [5, 6]
    with pytest.raises(TypeError, match="don't have the same nested structure"):
        tf.nest.assert_same_structure(d.values(), [1, 2])


def test_a_layer_takes_the_values_of_a_dict_of_inputs():
    inputs = {"foo": tf.keras.Input(shape=()), "bar": tf.keras.Input(shape=()), "baz": tf.keras.Input(shape=())}
    model = tf.keras.Model(inputs=inputs, outputs=tf.keras.layers.Concatenate()(inputs.values()))
    out = model({"foo": tf.constant([1.0]), "bar": tf.constant([0.0]), "baz": tf.constant([-1.0])})
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0, -1.0])  # TF 2.21: [ 1.  0. -1.]
