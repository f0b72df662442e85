"""The sorted string table behind a checkpoint's `.index` file (LevelDB's table format, as TensorFlow
writes it: no compression, no filter block).

File: data blocks, an (empty) metaindex block, an index block, then a 48-byte footer: two block handles
(varint offset and size) padded to 40 bytes, and the magic number. A block is a run of entries
(varint shared-prefix length, varint unshared length, varint value length, key suffix, value) followed by
fixed32 restart offsets and their count; every 16th key is stored whole (a restart point). Each block is
followed by a type byte (0: uncompressed) and the masked CRC-32C of block + type byte. The index block maps
a separator key (>= the block's last key, < the next block's first) to each data block's handle.
"""
import struct

from ..errors import DataLossError
from . import crc32c
from . import wire as _wire
from .wire import encode_varint

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_RESTART_INTERVAL = 16
_BLOCK_SIZE = 256 * 1024
_OUTPUT_SLACK, _OUTPUT_RATIO = 64 << 20, 16


def _fail(kind, detail=None):
    return DataLossError(None, None, f"corrupted {kind} in checkpoint data")  # (read_varint fails only as "varint")


def read_varint(buf, pos, end=None):
    return _wire.read_varint(buf, pos, len(buf) if end is None else end, _fail)


def _corrupt(path, what):
    return DataLossError(None, None, f"Unable to read checkpoint index {path!r}: {what}")


# ------------------------------------------------------------------------------------------ reading
def read_table(data, path="<bytes>"):
    """All (key, value) pairs of a table, in order, as bytes. Every length, offset and CRC is checked."""
    data = bytes(data)
    if len(data) < FOOTER_SIZE:
        raise _corrupt(path, "file too short to be an sstable")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, 40)[0] != MAGIC:
        raise _corrupt(path, "not an sstable (bad magic number)")
    pos = 0
    handles = []
    for _ in range(2):
        off, pos = read_varint(footer, pos, 40)
        size, pos = read_varint(footer, pos, 40)
        handles.append((off, size))
    limit = len(data) - FOOTER_SIZE
    index = _read_block(data, handles[1], limit, path)
    out = []
    last = None
    block_end = 0
    # Prefix compression lets a small block spell out huge keys (one long key shared by thousands of
    # entries): the bytes of all keys built, index block's included, are bounded by a generous multiple
    # of the file's size.
    budget = [_OUTPUT_SLACK + _OUTPUT_RATIO * len(data)]
    for _, handle in _entries(index, path, budget):
        off, p = read_varint(handle, 0)
        size, p = read_varint(handle, p)
        if off < block_end:  # a table's data blocks follow one another; overlapping ones would be reread
            raise _corrupt(path, "data blocks overlap or are out of order")
        block_end = off + size
        for key, value in _entries(_read_block(data, (off, size), limit, path), path, budget):
            if last is not None and key <= last:
                raise _corrupt(path, "keys out of order")
            last = key
            out.append((key, value))
    return out


def _read_block(data, handle, limit, path):
    off, size = handle
    if off > limit or size + 5 > limit - off:
        raise _corrupt(path, f"block handle (offset {off}, size {size}) out of range")
    block = data[off:off + size]
    kind = data[off + size]
    if kind != 0:
        raise _corrupt(path, f"unsupported block compression type {kind}")
    stored = struct.unpack_from("<I", data, off + size + 1)[0]
    if crc32c.unmask(stored) != crc32c.value(data[off:off + size + 1]):
        raise _corrupt(path, "block checksum mismatch")
    return block


def _entries(block, path, budget):
    n = len(block)
    if n < 4:
        raise _corrupt(path, "block too short")
    restarts = struct.unpack_from("<I", block, n - 4)[0]
    if restarts > (n - 4) // 4:
        raise _corrupt(path, "bad restart count in block")
    end = n - 4 - 4 * restarts
    pos, key = 0, b""
    while pos < end:
        shared, pos = read_varint(block, pos, end)
        unshared, pos = read_varint(block, pos, end)
        vlen, pos = read_varint(block, pos, end)
        if shared > len(key) or unshared + vlen > end - pos:
            raise _corrupt(path, "bad entry in block")
        budget[0] -= shared + unshared
        if budget[0] < 0:
            raise _corrupt(path, "its keys decompress to an implausible size")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + vlen]
        pos += vlen


# ------------------------------------------------------------------------------------------ writing
def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (LevelDB's bytewise FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _short_successor(key):
    """A short key k >= key (LevelDB's bytewise FindShortSuccessor)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


def _common_prefix(a, b):
    """The length of the prefix bytes a and b share: a bisection on slice comparisons (memcmp), not a
    Python loop over every byte (a 256 KiB shared prefix took 65 ms a key)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo]; a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


class _BlockBuilder:
    def __init__(self):
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last = b""

    def add(self, key, value):
        shared = 0
        if self.counter < _RESTART_INTERVAL:
            shared = _common_prefix(self.last, key)
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        self.buf += encode_varint(shared) + encode_varint(len(key) - shared) + encode_varint(len(value))
        self.buf += key[shared:] + value
        self.last = key
        self.counter += 1

    def size_estimate(self):
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self):
        return bytes(self.buf) + b"".join(struct.pack("<I", r) for r in self.restarts) + \
            struct.pack("<I", len(self.restarts))

    def empty(self):
        return not self.buf


def write_table(items):
    """The bytes of a table holding `items` ((key, value) bytes pairs, keys strictly increasing), laid out
    exactly as TensorFlow's table builder lays them out."""
    out = bytearray()
    index = _BlockBuilder()
    block = _BlockBuilder()
    pending = None  # handle of the last finished data block, waiting for the next key to pick a separator

    def flush():
        nonlocal block
        handle = _write_block(out, block.finish())
        block = _BlockBuilder()
        return handle

    last_key = None
    for key, value in items:
        if last_key is not None and key <= last_key:
            raise ValueError("table keys must be added in strictly increasing order")
        if pending is not None:
            index.add(_shortest_separator(last_key, key), pending)
            pending = None
        block.add(key, value)
        last_key = key
        if block.size_estimate() >= _BLOCK_SIZE:
            pending = flush()
    if not block.empty():
        pending = flush()
    if pending is not None:
        index.add(_short_successor(last_key), pending)
    meta = _write_block(out, _BlockBuilder().finish())
    idx = _write_block(out, index.finish())
    footer = meta + idx
    out += footer + b"\0" * (40 - len(footer)) + struct.pack("<Q", MAGIC)
    return bytes(out)


def _write_block(out, contents):
    """Appends block + trailer; returns the encoded handle."""
    handle = encode_varint(len(out)) + encode_varint(len(contents))
    out += contents + b"\0" + struct.pack("<I", crc32c.mask(crc32c.value(contents + b"\0")))
    return handle
