"""TFRecord framing, as TensorBoard reads event files:

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)     (little-endian)
"""
import struct

from . import crc32c
from .crc32c import mask, value


_U64, _U32 = struct.Struct("<Q").pack, struct.Struct("<I").pack


def masked_crc(data):
    return mask(value(data))


_VALUE = []  # crc32c.bytes_value(), found on first use


def record(data):
    """The framed record of `data` (bytes)."""
    if type(data) is not bytes:
        data = bytes(data)
    crc = _VALUE[0] if _VALUE else _first_value()
    header = _U64(len(data))
    return b"".join((header, _U32(mask(crc(header))), data, _U32(mask(crc(data)))))


def _first_value():
    _VALUE.append(crc32c.bytes_value())
    return _VALUE[0]
