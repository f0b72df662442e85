"""The protobuf wire format, both ways, for the few messages checkpoints hold (BundleHeaderProto,
BundleEntryProto, TrackableObjectGraph, CheckpointState is text). Encoding reuses tf.summary's encoder;
`parse` decodes a message into {field number: [values]} without any schema, checking every length."""
import struct

from ..errors import DataLossError
from ..summary.proto import _key, _varint, bytes_field, fields, varint_field
from ..summary.proto import read_varint as _read_varint

__all__ = ["parse", "read_varint", "encode_varint", "varint_field", "bytes_field", "fixed32_field",
           "shape_message", "first", "parse_shape"]

encode_varint = _varint


def fixed32_field(field, n):
    return _key(field, 5) + struct.pack("<I", n)


def shape_message(dims):
    """TensorShapeProto of a fully known shape, proto3-style as TensorFlow writes it (a 0 dim is `dim {}`)."""
    return b"".join(bytes_field(2, varint_field(1, d) if d else b"") for d in dims)


def _fail(kind, detail=None):
    return DataLossError(None, None, {"varint": "corrupted varint in checkpoint data",
                                      "field 0": "invalid protobuf field number 0 in checkpoint data",
                                      "truncated": "truncated protobuf message in checkpoint data",
                                      "wire type": f"unsupported protobuf wire type {detail} in checkpoint data"}[kind])


def read_varint(buf, pos, end=None):
    """(value, new position) of the varint at buf[pos]; DataLossError if it runs past `end` or 10 bytes."""
    return _read_varint(buf, pos, len(buf) if end is None else end, _fail)


def parse(buf):
    """{field: [value, ...]}: varints as ints, length-delimited as bytes, fixed32/64 as ints."""
    out = {}
    for field, wire, v in fields(bytes(buf), _fail):
        if wire in (1, 5):
            v = int.from_bytes(v, "little")
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
