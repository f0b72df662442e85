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


def _ex(**feats):
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


_INTS = tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2, 3, 4]))
_TWO_BYTES = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a", b"b"]))


@pytest.mark.parametrize("batch, feature, spec, message", [  # TensorFlow 2.21's texts
    (False, _INTS, tf.io.FixedLenFeature([3], tf.int64),
     "Key: x.  Can't parse serialized Example: Some int64_list slice was not parsed."),
    (True, _INTS, tf.io.FixedLenFeature([3], tf.int64),
     r"Name: <unknown>, Key: x, Index: 1.  Number of int64 values != expected.  Values size: 4 but output "
     r"shape: \[3\]"),
    (True, _TWO_BYTES, tf.io.FixedLenFeature([3], tf.string),
     r"Name: <unknown>, Key: x, Index: 1.  Number of bytes values != expected.  Values size: 2 but output "
     r"shape: \[3\]"),
    (False, _TWO_BYTES, tf.io.FixedLenFeature([1], tf.string),
     "Key: x.  Can't parse serialized Example: Parsing bytes_list failed."),
    (True, _INTS, tf.io.FixedLenFeature([4], tf.float32),
     "Name: <unknown>, Key: x, Index: 1.  Data types don't match. Data type: int64 but expected type: float"),
    (True, _INTS, tf.io.VarLenFeature(tf.string),
     "Name: <unknown>, Key: x, Index: 1.  Data types don't match. Expected type: string, Actual type: int64"),
    (False, _INTS, tf.io.RaggedFeature(tf.float32),
     "Key: x.  Data types don't match. Expected type: float, Actual type: int64"),
    (True, None, tf.io.FixedLenFeature([3], tf.int64),
     r"Name: <unknown>, Feature: x \(data type: int64\) is required but could not be found."),
])
def test_parse_errors_worded_as_tensorflow(batch, feature, spec, message):
    """Each error named the key alone ('Key: x.  ...'), said 'Data type: int64 but expected type: string' for a
    VarLen/Ragged feature and 'Number of int64 values' for one Example, where TensorFlow says otherwise."""
    n = int(np.prod(spec.shape)) if isinstance(spec, tf.io.FixedLenFeature) else 2
    good = _ex(x=tf.train.Feature(int64_list=tf.train.Int64List(value=[0] * n)) if spec.dtype is tf.int64 else
               tf.train.Feature(float_list=tf.train.FloatList(value=[0.0] * n)) if spec.dtype is tf.float32 else
               tf.train.Feature(bytes_list=tf.train.BytesList(value=[b""] * n)))
    bad = _ex(x=feature) if feature is not None else _ex()
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        if batch:
            tf.io.parse_example([good, bad] if feature is not None else [bad], {"x": spec})
        else:
            tf.io.parse_single_example(bad, {"x": spec})
