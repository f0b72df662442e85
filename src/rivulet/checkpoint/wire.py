"""The protobuf wire format, both ways, for the few messages checkpoints hold (BundleHeaderProto,
BundleEntryProto, TrackableObjectGraph, CheckpointState is text). Encoding reuses tf.summary's encoder;
`parse` decodes a message into {field number: [values]} without any schema, checking every length."""
import struct

from ..errors import DataLossError
from ..summary.proto import _key, _varint, bytes_field, varint_field

__all__ = ["parse", "read_varint", "encode_varint", "varint_field", "bytes_field", "fixed32_field",
           "shape_message", "first", "parse_shape"]

encode_varint = _varint


def fixed32_field(field, n):
    return _key(field, 5) + struct.pack("<I", n)


def shape_message(dims):
    """TensorShapeProto of a fully known shape, proto3-style as TensorFlow writes it (a 0 dim is `dim {}`)."""
    return b"".join(bytes_field(2, varint_field(1, d) if d else b"") for d in dims)


def read_varint(buf, pos, end=None):
    """(value, new position) of the varint at buf[pos]; DataLossError if it runs past `end` or 10 bytes."""
    end = len(buf) if end is None else end
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise DataLossError(None, None, "corrupted varint in checkpoint data")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def parse(buf):
    """{field: [value, ...]}: varints as ints, length-delimited as bytes, fixed32/64 as ints."""
    buf = bytes(buf)
    out = {}
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise DataLossError(None, None, "invalid protobuf field number 0 in checkpoint data")
        if wire == 0:
            v, pos = read_varint(buf, pos, end)
        elif wire == 2:
            n, pos = read_varint(buf, pos, end)
            if n > end - pos:
                raise DataLossError(None, None, "truncated protobuf message in checkpoint data")
            v, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            if pos + 4 > end:
                raise DataLossError(None, None, "truncated protobuf message in checkpoint data")
            v, pos = struct.unpack_from("<I", buf, pos)[0], pos + 4
        elif wire == 1:
            if pos + 8 > end:
                raise DataLossError(None, None, "truncated protobuf message in checkpoint data")
            v, pos = struct.unpack_from("<Q", buf, pos)[0], pos + 8
        else:
            raise DataLossError(None, None, f"unsupported protobuf wire type {wire} in checkpoint data")
        out.setdefault(field, []).append(v)
    return out


def first(msg, field, default=0):
    v = msg.get(field)
    return v[-1] if v else default  # protobuf: the last occurrence of a scalar field wins


def signed(n):
    """int64 from its varint (two's complement) encoding."""
    return n - (1 << 64) if n >= 1 << 63 else n


def parse_shape(buf):
    """TensorShapeProto -> tuple of dims (None for -1), or None for an unknown rank."""
    msg = parse(buf)
    if first(msg, 3):
        return None
    dims = []
    for d in msg.get(2, []):
        size = signed(first(parse(d), 1))
        if size < -1:
            raise DataLossError(None, None, f"invalid dimension {size} in checkpoint shape")
        dims.append(None if size == -1 else size)
    return tuple(dims)
