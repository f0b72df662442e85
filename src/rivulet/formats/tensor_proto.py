"""TensorProto and TensorShapeProto written in the protobuf wire format (tf.summary's tensors,
tf.io.serialize_tensor)."""
import numpy as np

from .. import dtypes as _dt
from ..shape import TensorShape
from .wire import bytes_field, varint_field


def shape_message(shape):
    shape = TensorShape(shape)
    if shape.rank is None:
        return varint_field(3, 1)  # unknown_rank
    return b"".join(bytes_field(2, varint_field(1, -1 if d is None else d)) for d in shape)


def tensor_message(value):
    """TensorProto: dtype, shape, and the data (raw little-endian bytes, or string_val for strings)."""
    a = np.asarray(value)
    dt = _dt.from_numpy(a.dtype)
    out = varint_field(1, dt.as_datatype_enum) + bytes_field(2, shape_message(a.shape))
    if dt is _dt.string:
        return out + b"".join(bytes_field(8, x if isinstance(x, bytes) else str(x).encode())
                              for x in a.reshape(-1))
    return out + bytes_field(4, np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())
