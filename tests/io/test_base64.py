"""tf.io.encode_base64 / decode_base64 (io/base64_ops.py) against TensorFlow 2.21's outputs and errors."""
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


def test_web_safe_base64_as_tensorflow():
    x = tf.constant([b"", b"a", b"ab\x00\xff\xfe", b"abc"])
    assert tf.io.encode_base64(x).numpy().tolist() == [b"", b"YQ", b"YWIA__4", b"YWJj"]
    assert tf.io.encode_base64(x, pad=True).numpy().tolist() == [b"", b"YQ==", b"YWIA__4=", b"YWJj"]
    every = bytes(range(256))
    assert tf.io.encode_base64(every).numpy().endswith(b"8_T19vf4-fr7_P3-_w")
    for e in (tf.io.encode_base64(x), tf.io.encode_base64(x, pad=True)):
        assert tf.io.decode_base64(e).numpy().tolist() == x.numpy().tolist()
    assert tf.io.decode_base64(tf.io.encode_base64(every)).numpy() == every
    assert tf.io.encode_base64(tf.reshape(x, [2, 2])).shape == (2, 2)
    assert tf.io.decode_base64(b"YR").numpy() == b"a"  # (trailing bits ignored, as TensorFlow)
    f = tf.function(lambda s: tf.io.decode_base64(tf.io.encode_base64(s)))
    assert f(tf.constant(["xyz", ""])).numpy().tolist() == [b"xyz", b""]


@pytest.mark.parametrize("bad, message", [
    (b"a", "Base64 string length cannot be 1 modulo 4."), (b"YWJj=", "Base64 string length cannot be 1 modulo 4."),
    (b"ab=c", "Invalid character found in base64."), (b"+/", "Invalid character found in base64."),
    (b"a b", "Invalid character found in base64."), (b"YQ==YQ", "Invalid character found in base64."),
    (b"YQ=", "Invalid character found in base64."), (b"Y===", "Invalid character found in base64."),
    (b"====", "Invalid character found in base64."),
])
def test_bad_base64_is_refused_as_tensorflow(bad, message):
    with pytest.raises(InvalidArgumentError, match=message):
        tf.io.decode_base64(bad)


def test_only_strings():
    with pytest.raises(InvalidArgumentError, match="was expected to be a string tensor but is a int32 tensor"):
        tf.io.encode_base64(tf.constant([1]))
