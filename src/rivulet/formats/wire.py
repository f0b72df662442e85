"""The protobuf wire format by hand, both ways, with no schema: the encoders of fields (`varint_field`,
`bytes_field` ...) that tf.summary, checkpoints and tf.train.Example write with, and the checked readers
(`read_varint`, `fields`, `parse`, `first`, `repeated`) they decode with. Every length is checked against the
bytes there are; readers take `fail(kind, detail=None)`, which builds the caller's own exception.
"""
import struct

import numpy as np


_ONE_BYTE = [bytes([i]) for i in range(128)]  # the varints of 0..127, each one byte


_SHORT = []  # [the varints of 0 .. 16383, 14-bit groups as two bytes with their continuation bits]: on first use


def _short_tables():
    _SHORT.append(_ONE_BYTE + [bytes((i & 0x7F | 0x80, i >> 7)) for i in range(128, 16384)])
    _SHORT.append([bytes((i & 0x7F | 0x80, i >> 7 | 0x80)) for i in range(16384)])
    return _SHORT


def varint_tables():
    """(the varints of 0 .. 16383, each 14-bit group 0 .. 16383 as two bytes that continue): a varint of up to
    42 bits is table lookups, e.g. pair[n & 0x3FFF] + pair[n >> 14 & 0x3FFF] + small[n >> 28]."""
    return tuple(_SHORT or _short_tables())


def encode_varint(n):
    if 0 <= n < 128:
        return _ONE_BYTE[n]
    small, pair = _SHORT or _short_tables()  # fourteen bits per table look-up
    if not 0 < n < 16384:
        n &= (1 << 64) - 1  # negative int64s are written as their two's complement, ten bytes long
        if n >= 16384:
            out = pair[n & 0x3FFF]
            n >>= 14
            while n >= 16384:
                out += pair[n & 0x3FFF]
                n >>= 14
            return out + small[n]
    return small[n]


def read_varint(buf, pos, end, fail):
    """(value, position after it) of the varint at buf[pos]; raises fail("varint") if it runs past `end`
    or ten bytes. The value is taken modulo 2**64 (a tenth byte's bits past the 64th are dropped, as
    protobuf drops them), so it always fits a uint64. `fail(kind, detail=None)` builds the caller's
    exception."""
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise fail("varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7


_FIXED = {1: 8, 5: 4}
_WIRE_NAMES = {1: "fixed64", 2: "length-delimited field", 5: "fixed32"}


def fields(buf, fail):
    """Yields (field number, wire type, value) of each field of a message: varints as ints, the rest as
    bytes, every length checked. Problems raise fail(kind, detail): "field 0", "truncated" (detail: what
    was cut short) or "wire type" (detail: the type)."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos, end, fail)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise fail("field 0")
        if wire == 0:
            v, pos = read_varint(buf, pos, end, fail)
        elif wire in _FIXED or wire == 2:
            n = _FIXED.get(wire)
            if n is None:
                n, pos = read_varint(buf, pos, end, fail)
            if n > end - pos:
                raise fail("truncated", _WIRE_NAMES[wire])
            v, pos = buf[pos:pos + n], pos + n
        else:
            raise fail("wire type", wire)
        yield field, wire, v


_KEYS = {}  # (field, wire) -> its key's bytes


def field_key(field, wire):
    key = _KEYS.get((field, wire))
    if key is None:
        key = encode_varint(field << 3 | wire)
        if len(_KEYS) < 4096:
            _KEYS[field, wire] = key
    return key


def varint_field(field, n):
    return field_key(field, 0) + encode_varint(int(n))


def bytes_field(field, b):
    if isinstance(b, str):
        b = b.encode()
    n = len(b)
    return field_key(field, 2) + (_ONE_BYTE[n] if n < 128 else encode_varint(n)) + b


def double_field(field, x):
    return field_key(field, 1) + struct.pack("<d", x)


def float_field(field, x):
    return field_key(field, 5) + struct.pack("<f", x)


def packed_varints(field, ns):
    return bytes_field(field, b"".join(encode_varint(int(n)) for n in ns))


def fixed32_field(field, n):
    return field_key(field, 5) + struct.pack("<I", n)


_U64 = (1 << 64) - 1
_WIRE_OF = {int: 0, bytes: 2}


def parse(buf, fail):
    """{field: [(wire type, value), ...]}: varints as ints (cut to 64 bits, as protobuf reads them),
    length-delimited as bytes, fixed32/64 as ints. Read values with `first` and `repeated`."""
    out = {}
    for field, wire, v in fields(bytes(buf), fail):
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


def decode_varints(a, count=None):
    """Varints at the start of the uint8 array `a`, decoded at once: (uint64 values, where they end), or None
    when `a` holds fewer than `count` (all of `a`, which must then end with one, when None) or one runs past
    ten bytes. A byte below 0x80 ends a varint; every byte's 7-bit group is shifted to its place at once and
    the groups summed per varint (a uint64 shift drops the bits past the 64th, as protobuf does)."""
    last = a < 0x80
    if count is None:
        if a.size and not last[-1]:
            return None
        if last.all():  # every value below 128: one byte each
            return a.astype(np.uint64), a.size
        ends = np.flatnonzero(last)
    else:
        ends = np.flatnonzero(last)[:count]
        if len(ends) < count:
            return None
        if count == 0:
            return np.zeros(0, np.uint64), 0
    got = _decode_ending(a, ends)
    return None if got is None else (got, int(ends[-1]) + 1)


def decode_varints_ending(a):
    """(uint64 values, positions of their last bytes) of the varints filling the uint8 array `a` (which must end
    with one), or None when it does not or one runs past ten bytes."""
    last = a < 0x80
    if not a.size:
        return np.zeros(0, np.uint64), np.zeros(0, np.intp)
    if not last[-1]:
        return None
    ends = np.flatnonzero(last)
    got = _decode_ending(a, ends)
    return None if got is None else (got, ends)


def _decode_ending(a, ends):
    """The varints of `a` ending at positions `ends` (ascending, at least one), or None past ten bytes."""
    starts = np.empty_like(ends)
    starts[0], starts[1:] = 0, ends[:-1] + 1
    lengths = ends - starts + 1
    if lengths.max() > 10:
        return None
    size = int(ends[-1]) + 1
    # each byte's 7 bits shifted to its place in its varint (7 * its position there), summed per varint (the
    # groups' bits never overlap: a sum is their OR)
    place = np.arange(size, dtype=np.intp) - np.repeat(starts, lengths)
    parts = (a[:size] & 0x7F).astype(np.uint64) << _SHIFTS[place]
    return np.add.reduceat(parts, starts)


_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)  # 7 * a byte's position in its varint (the tenth: 63)
