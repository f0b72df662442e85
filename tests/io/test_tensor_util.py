"""tf.make_tensor_proto / tf.make_ndarray (io/tensor_util.py), checked against TensorFlow 2.21: every case's bytes,
text and array are what TensorFlow 2.21 gave for it (found missing by tools/roundtrip_formats.py)."""
import numpy as np
import pytest

import rivulet as tf

CASES = [  # (value, kwargs, TF's SerializeToString(), TF's str())
    (1.5, {},
     b'\x08\x01\x12\x00*\x04\x00\x00\xc0?',
     'dtype: DT_FLOAT\ntensor_shape {\n}\nfloat_val: 1.5\n'),
    ([1.5, 2.0], {},
     b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@',
     'dtype: DT_FLOAT\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\n'
     'tensor_content: "\\000\\000\\300?\\000\\000\\000@"\n'),
    (np.array([1, 2], np.int8), {},
     b'\x08\x06\x12\x04\x12\x02\x08\x02"\x02\x01\x02',
     'dtype: DT_INT8\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\ntensor_content: "\\001\\002"\n'),
    (b'a\x00', {},
     b'\x08\x07\x12\x00B\x02a\x00',
     'dtype: DT_STRING\ntensor_shape {\n}\nstring_val: "a\\000"\n'),
    ([b'a', 'b'], {},
     b'\x08\x07\x12\x04\x12\x02\x08\x02B\x01aB\x01b',
     'dtype: DT_STRING\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\nstring_val: "a"\nstring_val: "b"\n'),
    (np.zeros((2, 0)), {},
     b'\x08\x02\x12\x06\x12\x02\x08\x02\x12\x00',
     'dtype: DT_DOUBLE\ntensor_shape {\n  dim {\n    size: 2\n  }\n  dim {\n  }\n}\n'),
    (1, {'shape': [2, 2]},
     b'\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02:\x01\x01',
     'dtype: DT_INT32\ntensor_shape {\n  dim {\n    size: 2\n  }\n  dim {\n    size: 2\n  }\n}\nint_val: 1\n'),
    (np.array([1 + 2j, 3], np.complex64), {},
     b'\x08\x08\x12\x04\x12\x02\x08\x02J\x10\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x00\x00',
     'dtype: DT_COMPLEX64\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\nscomplex_val: 1\n'
     'scomplex_val: 2\nscomplex_val: 3\nscomplex_val: 0\n'),
    (np.array([True, False]), {},
     b'\x08\n\x12\x04\x12\x02\x08\x02Z\x02\x01\x00',
     'dtype: DT_BOOL\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\nbool_val: true\nbool_val: false\n'),
    (np.float16(1.5), {},
     b'\x08\x13\x12\x00j\x02\x80|',
     'dtype: DT_HALF\ntensor_shape {\n}\nhalf_val: 15872\n'),
    (np.array([1, 2], np.uint16), {},
     b'\x08\x11\x12\x04\x12\x02\x08\x02:\x02\x01\x02',
     'dtype: DT_UINT16\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\nint_val: 1\nint_val: 2\n'),
    (np.uint64(2 ** 64 - 1), {},
     b'\x08\x17\x12\x00\x8a\x01\n\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01',
     'dtype: DT_UINT64\ntensor_shape {\n}\nuint64_val: 18446744073709551615\n'),
    (np.int8(-3), {},
     b'\x08\x06\x12\x00:\n\xfd\xff\xff\xff\xff\xff\xff\xff\xff\x01',
     'dtype: DT_INT8\ntensor_shape {\n}\nint_val: -3\n'),
    (np.array([np.nan, -0.0], np.float32), {},
     b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0\x7f\x00\x00\x00\x80',
     'dtype: DT_FLOAT\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\n'
     'tensor_content: "\\000\\000\\300\\177\\000\\000\\000\\200"\n'),
    (np.array([1.5], np.float64), {'dtype': 'float32'},
     b'\x08\x01\x12\x04\x12\x02\x08\x01*\x04\x00\x00\xc0?',
     'dtype: DT_FLOAT\ntensor_shape {\n  dim {\n    size: 1\n  }\n}\nfloat_val: 1.5\n'),
    ([1, 2], {'shape': [3]},
     b'\x08\x03\x12\x04\x12\x02\x08\x03:\x02\x01\x02',
     'dtype: DT_INT32\ntensor_shape {\n  dim {\n    size: 3\n  }\n}\nint_val: 1\nint_val: 2\n'),
    (5, {'shape': [2], 'allow_broadcast': True},
     b'\x08\x03\x12\x04\x12\x02\x08\x02:\x01\x05',
     'dtype: DT_INT32\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\nint_val: 5\n'),
]


@pytest.mark.parametrize("value, kwargs, tf_bytes, tf_text", CASES)
def test_make_tensor_proto_as_tensorflow(value, kwargs, tf_bytes, tf_text):
    p = tf.make_tensor_proto(value, **kwargs)
    assert p.SerializeToString() == tf_bytes
    assert str(p) == tf_text
    back = tf.make_ndarray(p)
    want = tf.io.parse_tensor(tf_bytes, tf.dtypes.as_dtype(p.dtype)).numpy()
    want = np.asarray(want, dtype=object) if back.dtype == object else want
    assert back.dtype == want.dtype and back.shape == want.shape
    assert (back.tolist() == want.tolist()) if back.dtype == object else back.tobytes() == want.tobytes()


def test_make_ndarray_keeps_every_bit_and_reads_protobufs_messages():
    bits = np.array([0x7FC0002B, 0x80000000, 1, 0xFF800000], np.uint32)
    p = tf.make_tensor_proto(bits.view(np.float32))
    assert tf.make_ndarray(p).view(np.uint32).tolist() == bits.tolist()
    scalar = tf.make_tensor_proto(np.float64(-0.0))  # double_val
    assert tf.make_ndarray(scalar).tobytes() == np.float64(-0.0).tobytes()
    from tensorboard.compat.proto import tensor_pb2  # (the test extra's protobuf classes)
    theirs = tensor_pb2.TensorProto.FromString(p.SerializeToString())
    assert tf.make_ndarray(theirs).view(np.uint32).tolist() == bits.tolist()
    mine = tf.make_tensor_proto(0)
    mine.ParseFromString(theirs.SerializeToString())
    assert mine == p


@pytest.mark.parametrize("value, kwargs, error, message", [
    ([1, 2, 3], {"shape": [2]}, ValueError, "Too many elements provided. Takes at most 2, but got 3."),
    ([1, 2], {"shape": [3], "verify_shape": True}, TypeError, r"Expected Tensor's shape: \(3,\), but got \(2,\)."),
    ([1.5], {"dtype": "int32"}, TypeError, "1.5"),  # never truncated to 1
])
def test_bad_values(value, kwargs, error, message):
    with pytest.raises(error, match=message):
        tf.make_tensor_proto(value, **kwargs)
