"""The protobuf wire format, both ways, for the few messages checkpoints hold (BundleHeaderProto,
BundleEntryProto, TrackableObjectGraph, CheckpointState is text). Encoding reuses tf.summary's encoder;
`parse` decodes a message into {field number: [values]} without any schema, checking every length."""
import struct

from ..errors import DataLossError
from ..summary.proto import _key, _varint, bytes_field, fields, varint_field
from ..summary.proto import read_varint as _read_varint

__all__ = ["parse", "read_varint", "encode_varint", "varint_field", "bytes_field", "fixed32_field",
           "shape_message", "first", "repeated", "parse_shape"]

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


_U64 = (1 << 64) - 1
_WIRE_OF = {int: 0, bytes: 2}


def parse(buf):
    """{field: [(wire type, value), ...]}: varints as ints (cut to 64 bits, as protobuf reads them),
    length-delimited as bytes, fixed32/64 as ints. Read values with `first` and `repeated`."""
    out = {}
    for field, wire, v in fields(bytes(buf), _fail):
        if wire in (1, 5):
            v = int.from_bytes(v, "little")
        elif wire == 0:
            v &= _U64
        out.setdefault(field, []).append((wire, v))
    return out


def repeated(msg, field, wire=2):
    """Every value of `field` sent with wire type `wire`; protobuf skips a field sent with another wire type
    as an unknown field, and so does this (a varint never reaches code that expects bytes)."""
    return [v for w, v in msg.get(field, ()) if w == wire]


def first(msg, field, default=0, wire=None):
    """The scalar `field` (protobuf: its last occurrence wins), of the wire type the default's type implies
    (0 for ints, 2 for bytes) unless `wire` is given."""
    vals = repeated(msg, field, _WIRE_OF[type(default)] if wire is None else wire)
    return vals[-1] if vals else default


def signed(n):
    """int64 from its varint (two's complement) encoding."""
    return n - (1 << 64) if n >= 1 << 63 else n


def parse_shape(buf):
    """TensorShapeProto -> tuple of dims (None for -1), or None for an unknown rank."""
    msg = parse(buf)
    if first(msg, 3):
        return None
    dims = []
    for d in repeated(msg, 2):
        size = signed(first(parse(d), 1))
        if size < -1:
            raise DataLossError(None, None, f"invalid dimension {size} in checkpoint shape")
        dims.append(None if size == -1 else size)
    return tuple(dims)
