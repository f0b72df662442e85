"""TFRecord framing, as TensorBoard reads event files:

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)     (little-endian)
"""
import struct

from .crc32c import mask, value


_U64, _U32 = struct.Struct("<Q").pack, struct.Struct("<I").pack


def masked_crc(data):
    return mask(value(data))


def record(data):
    header = _U64(len(data))
    return b"".join((header, _U32(mask(value(header))), data, _U32(mask(value(data)))))
