"""tf.io.serialize_tensor / parse_tensor bit for bit against TensorFlow 2.21 (found by tools/roundtrip_formats.py).
Every byte string here was printed by TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


@pytest.mark.parametrize("shape, dtype, tf_bytes", [
    ((3, 0, 2), tf.float32, b"\x08\x01\x12\n\x12\x02\x08\x03\x12\x00\x12\x02\x08\x02"),
    ((3, 0, 2), tf.string, b"\x08\x07\x12\n\x12\x02\x08\x03\x12\x00\x12\x02\x08\x02"),
    ((0,), tf.complex64, b"\x08\x08\x12\x02\x12\x00"),
])
def test_an_empty_tensor_serializes_as_tensorflows_bytes(shape, dtype, tf_bytes):
    """A zero dim is an empty Dim message and an empty tensor has no tensor_content (rivulet wrote both, 4 bytes
    more than TensorFlow: the same value, other bytes)."""
    assert tf.io.serialize_tensor(tf.zeros(shape, dtype)).numpy() == tf_bytes
    back = tf.io.parse_tensor(tf_bytes, dtype)
    assert back.dtype == dtype and back.shape == shape


def test_complex_values_in_their_typed_fields_keep_every_bit():
    """scomplex_val/dcomplex_val were combined as re + 1j * im: an imaginary -0.0 came back +0.0 and a NaN
    imaginary part made the real part NaN too. TensorFlow's parse_tensor keeps each part's bits."""
    c64 = (b"\x08\x08\x12\x04\x12\x02\x08\x03J\x18\x01\x00\xc0\x7f\x00\x00\x00\x80\x00\x00\x80?+\x00\xc0\xff"
           b"\x01\x00\x00\x00\x00\x00\x80\x7f")
    got = tf.io.parse_tensor(c64, tf.complex64).numpy()
    assert got.dtype == np.complex64 and got.shape == (3,)
    assert got.view(np.uint32).tolist() == [2143289345, 2147483648, 1065353216, 4290773035, 1, 2139095040]
    c128 = (b"\x08\x12\x12\x04\x12\x02\x08\x02b \x01\x00\x00\x00\x00\x00\xf8\x7f\x00\x00\x00\x00\x00\x00\x00\x80"
            b"\x00\x00\x00\x00\x00\x00\xf0?+\x00\x00\x00\x00\x00\xf8\xff")
    got = tf.io.parse_tensor(c128, tf.complex128).numpy()
    assert [hex(x) for x in got.view(np.uint64).tolist()] == [
        "0x7ff8000000000001", "0x8000000000000000", "0x3ff0000000000000", "0xfff800000000002b"]


def test_a_bfloat16_tensor_is_refused_naming_its_dtype():
    """rivulet has no bfloat16; TensorFlow's message names the parsed dtype 'bfloat16' (rivulet said '14')."""
    tf_bytes = b"\x08\x0e\x12\x04\x12\x02\x08\x01\x22\x02\xc0\x3f"  # tf.constant([1.5], tf.bfloat16)
    with pytest.raises(InvalidArgumentError,
                       match=r"Type mismatch between parsed tensor \(bfloat16\) and dtype \(float\)"):
        tf.io.parse_tensor(tf_bytes, tf.float32)


def test_a_string_scalar_made_with_shape_is_a_tensor_that_serializes():
    """tf.constant(b"...", shape=()) held a bare bytes object: its repr, shape and every op on it raised
    AttributeError (found serializing a scalar string case). Bytes from TensorFlow 2.21."""
    t = tf.constant(b"a\x00", dtype=tf.string, shape=())
    assert t.shape == () and repr(t) == "<tf.Tensor: shape=(), dtype=string, numpy=b'a\\x00'>"
    assert tf.io.serialize_tensor(t).numpy() == b"\x08\x07\x12\x00B\x02a\x00"
    assert tf.strings.length(t).numpy() == 2


@pytest.mark.parametrize("content, want", [
    (b"\x01\x02abc", [b"a", b"bc"]), (b"\x00\x00", [b"", b""]),
    (b"\x01\x02ab", None), (b"\x01\x02abcd", None), (b"\x80", None),  # TensorFlow: "Cannot parse tensor from proto"
])
def test_string_tensor_content_is_read_as_tensorflow(content, want):
    """A DT_STRING TensorProto whose strings are in tensor_content (lengths as varints, then the bytes: TensorFlow's
    C++ AsProtoTensorContent) was refused; TensorFlow 2.21's parse_tensor reads it."""
    data = b"\x08\x07\x12\x04\x12\x02\x08\x02\x22" + bytes([len(content)]) + content
    if want is None:
        with pytest.raises(InvalidArgumentError, match="Cannot parse tensor from proto"):
            tf.io.parse_tensor(data, tf.string)
    else:
        assert tf.io.parse_tensor(data, tf.string).numpy().tolist() == want
    assert tf.io.parse_tensor(b"\x08\x07\x12\x00\x22\x03\x02ab", tf.string).numpy() == b"ab"
