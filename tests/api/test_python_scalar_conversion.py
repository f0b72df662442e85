"""Python scalars beside tensors and Python floats out of float32's range, as TensorFlow 2.21 converts them
(errors and values recorded there)."""
import numpy as np
import pytest

import rivulet as tf


@pytest.mark.parametrize("value", [1e39, -1e39, [1.0, 1e39], [[1e39]], 3.4028236e38])
def test_a_python_float_past_float32_is_refused(value):
    with pytest.raises(ValueError, match="out of range for a double-precision float"):
        tf.constant(value)
    with pytest.raises(ValueError, match="out of range"):
        tf.convert_to_tensor(value)


def test_what_float32_can_hold_or_was_asked_for():
    assert tf.constant(3.40282356e38).numpy() == np.finfo(np.float32).max  # rounds to the largest float32
    assert np.isinf(tf.constant(float("inf")).numpy()) and np.isnan(tf.constant(float("nan")).numpy())
    assert np.isinf(tf.constant(1e39, tf.float32).numpy())  # a dtype asked for: inf, as TensorFlow
    assert tf.constant(1e39, tf.float64).numpy() == 1e39
    assert np.isinf((tf.constant(1.0) + 1e39).numpy())


@pytest.mark.parametrize("expr", [lambda i: i - 2.5, lambda i: 2.5 - i, lambda i: i * 2.5, lambda i: 2.5 * i,
                                  lambda i: 2.5 + i, lambda i: i % 2.5, lambda i: i ** 2.5, lambda i: i // 2.5,
                                  lambda i: i < 2.5, lambda i: i >= 2.5, lambda i: i == 2.5, lambda i: i != 2.5,
                                  lambda i: i == "a"])
def test_operators_convert_a_python_scalar_to_the_tensor_dtype(expr):
    with pytest.raises(TypeError, match="Cannot convert .* to EagerTensor of dtype int32"):
        expr(tf.constant([1, 2]))


def test_operators_that_convert():
    i = tf.constant([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute AddV2"):  # x + y: as tf.add
        i + 2.5
    assert (i + True).numpy().tolist() == [2, 3]
    assert (tf.constant([1.5]) + 1).numpy().tolist() == [2.5]
    assert (i == [1, 3]).numpy().tolist() == [True, False]
    assert (i == None) is False  # noqa: E711
    f = tf.function(lambda t: t * 2.5)
    with pytest.raises(TypeError):
        f(i)
