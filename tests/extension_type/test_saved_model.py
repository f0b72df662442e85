"""ExtensionTypes in tf.saved_model.save / load: a spec is saved under the name its class is registered by
(`__name__` in its body), as TensorFlow saves it, and loading finds that class again;
an unregistered one is refused at save (TensorFlow 2.21: NotEncodableError "No encoder for object ...")."""
import json
import os

import numpy as np
import pytest
from typing import Tuple

import rivulet as tf


class MaskedTensor(tf.experimental.BatchableExtensionType):
    __name__ = "rivulet_tests.MaskedTensor"
    values: tf.Tensor
    mask: tf.Tensor

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)


class Scaled(tf.experimental.ExtensionType):
    __name__ = "rivulet_tests.Scaled"
    x: tf.Tensor
    scale: float
    tags: Tuple[str, ...] = ()


class Unregistered(tf.experimental.ExtensionType):
    x: tf.Tensor


class Grower(tf.Module):
    def __init__(self, v):
        super().__init__()
        self.v = tf.Variable(v)

    @tf.function
    def grow(self, x):
        return MaskedTensor(x.values * self.v, x.mask)

    @tf.function
    def rescale(self, s):
        return Scaled(s.x * s.scale, s.scale * 2)


def test_save_and_load(tmp_path):
    m = Grower(100.0)
    m.grow.get_concrete_function(MaskedTensor.Spec(shape=None, dtype=tf.float32))
    m.rescale.get_concrete_function(Scaled.Spec(tf.TensorSpec([2]), 3.0, ()))
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    out = loaded.grow(MaskedTensor([1., 2, 3], [False, True, False]))
    assert isinstance(out, MaskedTensor)
    np.testing.assert_array_equal(out.values.numpy(), [100., 200, 300])
    np.testing.assert_array_equal(out.mask.numpy(), [False, True, False])
    r = loaded.rescale(Scaled(tf.constant([1., 2.]), 3.0))
    assert isinstance(r, Scaled) and r.scale == 6.0
    np.testing.assert_array_equal(r.x.numpy(), [3., 6.])


def test_unregistered_is_refused(tmp_path):
    class M(tf.Module):
        @tf.function
        def f(self, u):
            return u.x * 2
    m = M()
    m.f.get_concrete_function(Unregistered.Spec(tf.TensorSpec(None)))
    with pytest.raises(ValueError, match="No encoder for object Unregistered.Spec"):
        tf.saved_model.save(m, str(tmp_path))


def test_unknown_name_loads_anonymous_and_forged_fields_are_refused(tmp_path):
    m = Grower(2.0)
    m.rescale.get_concrete_function(Scaled.Spec(tf.TensorSpec([2]), 3.0, ()))
    tf.saved_model.save(m, str(tmp_path))
    files = [f for f in os.listdir(tmp_path) if f.endswith(".json")]
    path = os.path.join(tmp_path, files[0])
    text = open(path).read()
    assert '"rivulet_tests.Scaled"' in text
    with open(path, "w") as f:  # a class this process does not define: TensorFlow's AnonymousExtensionType
        f.write(text.replace('"rivulet_tests.Scaled"', '"rivulet_tests.Nope"'))
    loaded = tf.saved_model.load(str(tmp_path))
    (spec,), _ = loaded.rescale.concrete_functions[0].structured_input_signature
    assert type(spec).__qualname__ == "AnonymousExtensionType.Spec" and spec.scale == 3.0
    with open(path, "w") as f:  # fields the class does not have
        f.write(text.replace('"scale"', '"scalar"'))
    with pytest.raises(Exception, match="are not those of Scaled"):
        tf.saved_model.load(str(tmp_path))
    with open(path, "w") as f:  # a field of the wrong kind
        f.write(text.replace('3.0', '"three"', 1))
    with pytest.raises(Exception, match="scale: expected 'float', got 'str'"):
        tf.saved_model.load(str(tmp_path))
    json.loads(text)


@pytest.mark.parametrize("old, new", [
    ('"scale"', '"__class__"'), ('"scale"', '"Spec"'), ('"scale"', '"_tf_extension_type_cached_fields"'),
    ('"rivulet_tests.Scaled"', '{"bytes": "AAA="}'), ('"rivulet_tests.Scaled"', '"x"], ["y"'),
])
def test_hostile_extension_specs_are_data_errors(tmp_path, old, new):
    m = Grower(2.0)
    m.rescale.get_concrete_function(Scaled.Spec(tf.TensorSpec([2]), 3.0, ()))
    tf.saved_model.save(m, str(tmp_path))
    path = os.path.join(tmp_path, [f for f in os.listdir(tmp_path) if f.endswith(".json")][0])
    text = open(path).read()
    with open(path, "w") as f:
        f.write(text.replace(old, new))
    with pytest.raises(tf.errors.DataLossError):
        tf.saved_model.load(str(tmp_path))
