"""TFRecord framing, as TensorBoard reads event files:

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)     (little-endian)
"""
import struct

from .crc32c import mask, value


def masked_crc(data):
    return mask(value(data))


def record(data):
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data))
