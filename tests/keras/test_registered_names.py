"""A class registered as 'package>Name' is found by that name only, as in tf_keras: a config naming a bare
'Name' is an unknown class (it matched the registered one by its last part, so an unregistered layer's config
loaded as whichever registered class shared its name)."""
import pytest

import rivulet as tf


@tf.keras.saving.register_keras_serializable(package="pkg_a")
class Doubler(tf.keras.layers.Layer):
    def call(self, x):
        return 2.0 * x


def test_a_bare_class_name_does_not_find_a_registered_class():
    cfg = {"class_name": "Doubler", "config": {"name": "d"}}
    with pytest.raises(ValueError, match="Unknown layer: 'Doubler'"):
        tf.keras.layers.deserialize(cfg)
    layer = tf.keras.layers.deserialize(tf.keras.layers.serialize(Doubler(name="d")))
    assert isinstance(layer, Doubler)
    assert isinstance(tf.keras.layers.deserialize({"class_name": "pkg_a>Doubler", "config": {"name": "d"}}), Doubler)
