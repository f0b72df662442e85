"""Values on their way into an Example or a parse never change silently (found by tools/roundtrip_formats.py's
probes against TensorFlow 2.21; every outcome here is TensorFlow's)."""
import numpy as np
import pytest

import rivulet as tf

EMPTY = tf.train.Example(features=tf.train.Features(feature={})).SerializeToString()


@pytest.mark.parametrize("value, message", [
    ([True], "Field tensorflow.Int64List.value: Expected an int, got a boolean."),
    ([1, False], "Field tensorflow.Int64List.value: Expected an int, got a boolean."),
    (np.array([True]), "'numpy.bool' object cannot be interpreted as an integer"),
])
def test_int64_list_refuses_booleans(value, message):
    """They were stored as 1 and 0."""
    with pytest.raises(TypeError, match=message):
        tf.train.Int64List(value=value)
    assert list(tf.train.Int64List(value=np.array([1, 2], np.int8)).value) == [1, 2]


@pytest.mark.parametrize("default, dtype, message", [
    ([1.7], tf.int64, r"Cannot convert \[1.7\] to EagerTensor of dtype int64"),  # was 1
    (["a"], tf.float32, r"Cannot convert \['a'\] to EagerTensor of dtype float"),  # was numpy's ValueError
    ([1], tf.string, r"Cannot convert \[1\] to EagerTensor of dtype string"),
    ([2 ** 63], tf.int64, None),  # TensorFlow: ValueError (out-of-range integer); never wrapped to -2**63
])
def test_a_default_value_is_converted_as_tensorflow(default, dtype, message):
    spec = {"y": tf.io.FixedLenFeature([1], dtype, default_value=default)}
    if message is None:
        with pytest.raises((ValueError, TypeError)):
            tf.io.parse_single_example(EMPTY, spec)
        return
    with pytest.raises(TypeError, match=message):
        tf.io.parse_single_example(EMPTY, spec)


def test_defaults_that_fit_keep_their_values(recwarn):
    spec = {"i": tf.io.FixedLenFeature([2], tf.int64, default_value=[2 ** 40, -2 ** 63]),
            "f": tf.io.FixedLenFeature([2], tf.float32, default_value=[1e39, -0.0]),  # inf, as TensorFlow
            "s": tf.io.FixedLenFeature([], tf.string, default_value="\u00e9")}
    got = tf.io.parse_single_example(EMPTY, spec)
    assert got["i"].numpy().tolist() == [2 ** 40, -2 ** 63]
    assert got["f"].numpy().view(np.uint32).tolist() == [0x7F800000, 0x80000000]
    assert got["s"].numpy() == "\u00e9".encode()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]  # (an overflow warning was shown)
    ds = tf.data.Dataset.from_tensors(EMPTY).map(lambda s: tf.io.parse_single_example(s, spec)["i"])
    assert next(iter(ds)).numpy().tolist() == [2 ** 40, -2 ** 63]
