"""Decoding TensorFlow's TensorProto / StructuredValue messages (tf_import/proto.py)."""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.saved_model.format import Invalid
from rivulet.saved_model.tf_import import proto

from .conftest import fixture_dir


def _tensor(dtype, dims, **fields):
    from tensorboard.compat.proto import tensor_pb2
    t = tensor_pb2.TensorProto(dtype=dtype)
    for d in dims:
        t.tensor_shape.dim.add().size = d
    for k, v in fields.items():
        if k == "tensor_content":
            t.tensor_content = v
        else:
            getattr(t, k).extend(v)
    return t


def test_typed_values_repeat_the_last_one_as_tensorflow():
    np.testing.assert_array_equal(proto.tensor(_tensor(9, [2, 2], int64_val=[5])), np.full((2, 2), 5, np.int64))
    assert proto.tensor(_tensor(7, [3], string_val=[b"a"])).tolist() == [b"a", b"a", b"a"]
    np.testing.assert_array_equal(proto.tensor(_tensor(1, [3], float_val=[1.5, 2.5])), [1.5, 2.5, 2.5])
    np.testing.assert_array_equal(proto.tensor(_tensor(3, [2])), [0, 0])  # no values: zeros
    half = proto.tensor(_tensor(19, [2], half_val=[0x3C00, 0xC000]))  # the float16 bits of 1 and -2
    assert half.dtype == np.float16 and half.tolist() == [1.0, -2.0]
    assert proto.tensor(_tensor(8, [1], scomplex_val=[1, 2])).tolist() == [1 + 2j]


def test_narrow_types_keep_the_low_bits_of_their_int32_fields_as_tensorflow():
    """float16 and the 8/16-bit integers travel in int32 fields; TensorFlow keeps their low bits (an
    OverflowError escaped for half_val, Invalid for int_val)."""
    assert proto.tensor(_tensor(19, [1], half_val=[0x13C00])).tolist() == [1.0]
    got = proto.tensor(_tensor(6, [3], int_val=[300, -129, 5]))
    assert got.dtype == np.int8 and got.tolist() == [44, 127, 5]
    assert proto.tensor(_tensor(4, [1], int_val=[-1])).tolist() == [255]


def test_string_tensor_content_is_read():
    """TensorFlow's encoding of strings in tensor_content (the lengths as varints, then the bytes); it was
    ignored, giving empty strings."""
    got = proto.tensor(_tensor(7, [3], tensor_content=b"\x02\x00\x03ab" + b"xyz"))
    assert got.tolist() == [b"ab", b"", b"xyz"]
    for bad in (b"\x02\x00\x03ab", b"\x02\x00\x03abxyz!", b"\x80"):
        with pytest.raises(proto.InvalidGraph, match="content"):
            proto.tensor(_tensor(7, [3], tensor_content=bad))


def test_bool_content_is_true_or_false():
    got = proto.tensor(_tensor(10, [3], tensor_content=b"\x00\x02\xff"))
    assert got.view(np.uint8).tolist() == [0, 1, 1]


def test_tensor_content_is_little_endian_bytes():
    v = np.arange(6, dtype="<i4").reshape(2, 3)
    got = proto.tensor(_tensor(3, [2, 3], tensor_content=v.tobytes()))
    assert got.dtype == np.int32 and got.tolist() == v.tolist()


@pytest.mark.parametrize("t,message", [
    (lambda: _tensor(1, [3], tensor_content=b"\0" * 5), "5 bytes of content for 3 float32 values"),
    (lambda: _tensor(1, [2], float_val=[1, 2, 3]), "3 values for shape"),
    (lambda: _tensor(7, [2], string_val=[b"a", b"b", b"c"]), "3 values for shape"),  # were cut to 2
    (lambda: _tensor(1, [1 << 20, 1 << 20]), "elements is more than"),
    (lambda: _tensor(1, [-1]), "not fully defined"),
    (lambda: _tensor(1, [-7]), "bad dimension -7"),
    (lambda: _tensor(99, [1]), "unknown dtype enum 99"),
    (lambda: _tensor(20, [1]), "tensors of dtype resource cannot be read"),
])
def test_bad_tensors(t, message):
    with pytest.raises(proto.InvalidGraph, match=message):
        proto.tensor(t())


def test_structured_values():
    from tensorboard.compat.proto import struct_pb2
    sv = struct_pb2.StructuredValue()
    tup = sv.tuple_value.values
    spec = tup.add().tensor_spec_value
    spec.name, spec.dtype = "x", 1
    spec.shape.dim.add().size = -1
    tup.add().bool_value = True
    d = tup.add().dict_value.fields
    d["k"].list_value.values.add().int64_value = 3
    tup.add().none_value.SetInParent()
    assert proto.structure(sv) == (tf.TensorSpec([None], tf.float32, name="x"), True, {"k": [3]}, None)
    nested = struct_pb2.StructuredValue()
    inner = nested
    for _ in range(proto.MAX_DEPTH + 2):
        inner = inner.list_value.values.add()
    with pytest.raises(Invalid, match="nested too deeply"):
        proto.structure(nested)


def test_saved_model_envelope_round_trip_and_garbage():
    with open(os.path.join(fixture_dir("keras_mlp"), "saved_model.pb"), "rb") as f:
        data = f.read()
    sm = proto.read_saved_model(data)
    assert sm.saved_model_schema_version == 1 and len(sm.meta_graphs) == 1
    assert list(sm.meta_graphs[0].meta_info_def.tags) == ["serve"]
    assert proto.read_saved_model(sm.SerializeToString()).meta_graphs[0] == sm.meta_graphs[0]
    for bad in (data[:-3], b"\x12\xff\xff\xff\xff\x0f", b"\x0f", b"\x80" * 12):
        with pytest.raises(Invalid):
            proto.read_saved_model(bad)


def test_complex_typed_values_keep_every_bit_as_tensorflow():
    """scomplex_val/dcomplex_val parts were combined as re + 1j * im: an imaginary -0.0 came back +0.0 and a NaN
    imaginary part made the real part NaN (a TF 2.21 SavedModel's complex constants, which TensorFlow writes in
    these fields, changed on load). The bytes are a TensorProto; the bits are what TF's make_ndarray gives."""
    from tensorboard.compat.proto import tensor_pb2
    c64 = (b"\x08\x08\x12\x04\x12\x02\x08\x03J\x18\x01\x00\xc0\x7f\x00\x00\x00\x80\x00\x00\x80?+\x00\xc0\xff"
           b"\x01\x00\x00\x00\x00\x00\x80\x7f")
    got = proto.tensor(tensor_pb2.TensorProto.FromString(c64))
    assert got.dtype == np.complex64
    assert got.view(np.uint32).tolist() == [2143289345, 2147483648, 1065353216, 4290773035, 1, 2139095040]
    c128 = (b"\x08\x12\x12\x04\x12\x02\x08\x02b \x01\x00\x00\x00\x00\x00\xf8\x7f\x00\x00\x00\x00\x00\x00\x00\x80"
            b"\x00\x00\x00\x00\x00\x00\xf0?+\x00\x00\x00\x00\x00\xf8\xff")
    got = proto.tensor(tensor_pb2.TensorProto.FromString(c128))
    assert [hex(x) for x in got.view(np.uint64).tolist()] == [
        "0x7ff8000000000001", "0x8000000000000000", "0x3ff0000000000000", "0xfff800000000002b"]


def test_a_dtype_rivulet_lacks_is_named():
    """A TF SavedModel holding a bfloat16 variable was refused with 'unknown dtype enum 14'."""
    with pytest.raises(proto.InvalidGraph, match="dtype bfloat16, which rivulet does not support"):
        proto.tensor(_tensor(14, [1], half_val=[0x3FC0]))
    with pytest.raises(Invalid, match="variable: dtype bfloat16, which rivulet does not support"):
        proto.dtype(14, "variable")
