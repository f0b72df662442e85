"""TensorProto and TensorShapeProto written in the protobuf wire format (tf.summary's tensors,
tf.io.serialize_tensor)."""
import numpy as np

from .. import dtypes as _dt
from ..shape import TensorShape
from .wire import bytes_field, read_varint, varint_field


# TensorFlow's DataType enum by number, named as its DataTypeString names them: the dtypes rivulet has and those it
# lacks, so that a file holding one of those is refused naming it ("bfloat16"), not by its number
DATATYPE_NAMES = {1: "float", 2: "double", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string",
                  8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8", 13: "qint32", 14: "bfloat16",
                  15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128", 19: "half", 20: "resource",
                  21: "variant", 22: "uint32", 23: "uint64", 24: "float8_e5m2", 25: "float8_e4m3fn",
                  26: "float8_e4m3fnuz", 27: "float8_e4m3b11fnuz", 28: "float8_e5m2fnuz", 29: "int4",
                  30: "uint4", 31: "int2", 32: "uint2"}


def datatype_name(enum):
    """TensorFlow's name for a DataType number ('bfloat16' for 14; a reference type's '_ref' suffixed; an unknown
    number as 'unknown dtype enum N')."""
    if isinstance(enum, int) and 100 < enum <= 132 and enum - 100 in DATATYPE_NAMES:
        return DATATYPE_NAMES[enum - 100] + "_ref"
    return DATATYPE_NAMES.get(enum, f"unknown dtype enum {enum}")


def string_content(content, n):
    """The n strings of a DT_STRING tensor_content (n lengths as varints, then the bytes back to back, as
    TensorFlow's AsProtoTensorContent writes them), or None when the bytes are not exactly that."""
    if n > len(content):  # every length is at least one byte: checked before anything is allocated
        return None

    class _Bad(Exception):
        pass

    def fail(kind, detail=None):
        return _Bad()
    try:
        sizes, at = [], 0
        for _ in range(n):
            size, at = read_varint(content, at, len(content), fail)
            sizes.append(size)
    except _Bad:
        return None
    if sum(sizes) != len(content) - at:
        return None
    out = []
    for size in sizes:
        out.append(bytes(content[at:at + size]))
        at += size
    return out


def shape_message(shape):
    """TensorShapeProto as TensorFlow writes it: a dim of size 0 is an empty Dim message (proto3 leaves the
    default out), so the bytes are TensorFlow's."""
    shape = TensorShape(shape)
    if shape.rank is None:
        return varint_field(3, 1)  # unknown_rank
    return b"".join(bytes_field(2, varint_field(1, -1 if d is None else d) if d != 0 else b"") for d in shape)


def tensor_message(value):
    """TensorProto: dtype, shape, and the data (raw little-endian bytes, or string_val for strings)."""
    a = np.asarray(value)
    dt = _dt.from_numpy(a.dtype)
    out = varint_field(1, dt.as_datatype_enum) + bytes_field(2, shape_message(a.shape))
    if dt is _dt.string:
        return out + b"".join(bytes_field(8, x if isinstance(x, bytes) else str(x).encode())
                              for x in a.reshape(-1))
    if not a.size:  # an empty tensor has no tensor_content field, as TensorFlow writes it
        return out
    return out + bytes_field(4, np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())
