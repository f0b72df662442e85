"""The protobuf wire format as checkpoints read it (BundleHeaderProto, BundleEntryProto, TrackableObjectGraph;
CheckpointState is text): formats/wire.py's codec, whose readers raise DataLossError here."""
from ..errors import DataLossError
from . import wire as _wire
from .wire import bytes_field, encode_varint, first, fixed32_field, repeated, signed, varint_field

__all__ = ["parse", "read_varint", "encode_varint", "varint_field", "bytes_field", "fixed32_field",
           "shape_message", "first", "repeated", "parse_shape"]


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
    return _wire.read_varint(buf, pos, len(buf) if end is None else end, _fail)


def parse(buf):
    """{field: [(wire type, value), ...]} of a message (formats.wire.parse), DataLossError when malformed."""
    return _wire.parse(buf, _fail)


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
