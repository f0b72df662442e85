"""A tf.function traced only inside another function's trace (a tf.Module's __call__ called by the serving
signature: the migrate/saved_model guide) is saved with the concrete function TensorFlow's cache holds, and a
loaded function takes a Python number for a float spec; values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


@tf.function
def _add_two(x):
    return x + 2


class _MyModel(tf.Module):
    @tf.function
    def __call__(self, input):
        return _add_two(input)


def test_a_method_traced_through_a_signature_is_saved_and_takes_python_numbers(tmp_path):
    model = _MyModel()

    @tf.function
    def serving_default(input):
        return {"output": model(input)}
    sig = serving_default.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.float32))
    tf.saved_model.save(model, str(tmp_path), signatures={"serving_default": sig})
    loaded = tf.saved_model.load(str(tmp_path))
    out = loaded(5)  # TF 2.21: tf.Tensor(7.0, shape=(), dtype=float32)
    assert out.dtype == tf.float32 and out.numpy() == 7.0
    assert loaded(5.5).numpy() == 7.5
    assert loaded(tf.constant(3.0)).numpy() == 5.0
    np.testing.assert_array_equal(loaded.signatures["serving_default"](tf.constant(1.0))["output"].numpy(), 3.0)


def test_a_python_float_for_an_int_spec_still_does_not_match(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def g(x):
        return x * 2
    m = tf.Module()
    m.g = g
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert loaded.g(4).numpy() == 8 and loaded.g(4).dtype == tf.int32
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.g(4.5)


def test_inline_calls_with_objects_are_not_kept():
    calls = []

    @tf.function
    def inner(x, obj):
        calls.append(1)
        return x * 2

    @tf.function
    def outer(x):
        return inner(x, object())
    outer(tf.constant(1.0))
    assert inner._list_all_concrete_functions() == []
