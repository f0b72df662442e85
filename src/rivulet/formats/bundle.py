"""TensorFlow's tensor bundle: the `PREFIX.index` table plus `PREFIX.data-0000N-of-0000M` shards that
`tf.train.Checkpoint`, `Saver` and SavedModels' `variables/` use.

The index maps "" to a BundleHeaderProto (num_shards 1, endianness 2, version 3) and each tensor's key
to a BundleEntryProto (dtype 1, shape 2, shard_id 3, offset 4, size 5, crc32c 6 (masked), slices 7). A
shard holds the tensors' bytes back to back: numeric tensors raw little-endian; string tensors as
varint64 lengths, a masked CRC-32C of the lengths (each as a little-endian uint32,
as TensorFlow checksums them), then the bytes.

Reading never trusts the file: only regular files are opened (a FIFO or /dev/zero is DataLossError), sizes
are checked against shapes and file sizes before anything is allocated, every tensor's CRC is verified, and
a bad file raises `tf.errors.DataLossError` (a missing file or key `tf.errors.NotFoundError`). `check_dtype`
refuses a value of another dtype than its variable's (InvalidArgumentError). Nothing is executed or unpickled.
"""
import os
import stat
import struct
import threading

import numpy as np

from .. import dtypes as _dt
from . import crc32c
from .tensor_proto import datatype_name
from ..errors import DataLossError, InvalidArgumentError, NotFoundError, PermissionDeniedError, UnimplementedError
from . import sstable as table
from .wire import decode_varints
from .checkpoint_wire import bytes_field, encode_varint, first, fixed32_field, parse, parse_shape, repeated, \
    shape_message, varint_field

__all__ = ["BundleReader", "BundleWriter", "read_bundle", "write_bundle", "data_filename", "index_filename"]

_MAX_ELEMENTS = 1 << 40  # no real tensor has more; bounds the arithmetic on hostile shapes


def index_filename(prefix):
    return f"{prefix}.index"


def data_filename(prefix, shard, num_shards):
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _loss(prefix, what):
    return DataLossError(None, None, f"Checkpoint {prefix!r} is corrupted: {what}")


_PART = 8 << 20  # bytes of a tensor, at least, per reading thread


def _parts_for(size):
    if size < 2 * _PART or not hasattr(os, "preadv"):
        return 1
    return max(1, min(size // _PART, os.cpu_count() or 1, 4))


def _read_in_parts(fd, buf, offset, parts):
    """Reads len(buf) bytes of `fd` at `offset` into `buf`, `parts` slices at once (one on this thread); the
    bytes read, as readinto counts them (short where the file ends early). An OSError of any part is raised."""
    mv = memoryview(buf)
    size = len(mv)
    step = -(-size // parts)
    got, errors = [0] * parts, []

    def read(i):
        a, b = i * step, min(size, (i + 1) * step)
        try:
            while a < b:
                n = os.preadv(fd, [mv[a:b]], offset + a)
                if not n:
                    break
                a += n
                got[i] += n
        except OSError as e:
            errors.append(e)
    threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(1, parts)]
    for t in threads:
        t.start()
    read(0)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    done = 0
    for i in range(parts):  # the bytes before the first short part (readinto stops at the file's end)
        done += got[i]
        if got[i] != min(size, (i + 1) * step) - i * step:
            break
    return done


def open_regular(path):
    """`path` opened for binary reading; only a regular file is accepted: a FIFO, /dev/zero or a directory
    would block, never end or mean nothing. Opened non-blocking, so that opening a FIFO cannot hang.
    A missing file raises FileNotFoundError for the caller to word."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in the path
        raise FileNotFoundError(path) from None
    except PermissionError as e:
        raise PermissionDeniedError(None, None, f"{path}; {e.strerror}") from None
    except OSError as e:
        raise DataLossError(None, None, f"Cannot open checkpoint file {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise DataLossError(None, None, f"Checkpoint file {path} is not a regular file")
    return os.fdopen(fd, "rb")


def _read_exactly(f, size, path):
    """The file's `size` bytes (its size when opened): a file that grows meanwhile is not read on and on."""
    data = f.read(size)
    if len(data) != size:
        raise DataLossError(None, None, f"Checkpoint file {path} changed while it was read")
    return data


class _Entry:
    __slots__ = ("dtype", "enum", "shape", "shard", "offset", "size", "crc")


class BundleReader:
    """Reads a bundle written by TensorFlow or by `BundleWriter`. Thread-safe."""

    def __init__(self, prefix):
        prefix = os.fspath(prefix)
        self.prefix = prefix
        path = index_filename(prefix)
        try:
            f = open_regular(path)
        except FileNotFoundError:
            raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                f"matching files for {prefix}") from None
        with f:
            raw = _read_exactly(f, os.fstat(f.fileno()).st_size, path)
        items = table.read_table(raw, path)
        if not items or items[0][0] != b"":
            raise _loss(prefix, "the index has no header entry")
        header = self._proto("its header", parse, items[0][1])
        self._num_shards = first(header, 1)
        self._big_endian = first(header, 2) == 1
        if not 1 <= self._num_shards <= 100000:
            raise _loss(prefix, f"bad number of shards {self._num_shards}")
        version = self._proto("its header's version", parse, first(header, 3, b""))
        if first(version, 2) > 1:  # min_consumer
            raise UnimplementedError(None, None, f"Checkpoint {prefix!r} needs a newer reader (min_consumer "
                                     f"{first(version, 2)})")
        self._entries = {}
        for key, value in items[1:]:
            if key[:1] == b"\x00":  # a slice of a partitioned variable (TensorFlow's ordered-code key, listed by
                continue  # its full tensor's entry, which names the slices; reading that is UnimplementedError)
            try:
                name = key.decode("utf-8")
            except UnicodeDecodeError:
                raise _loss(prefix, "a key is not UTF-8") from None
            self._entries[name] = self._parse_entry(name, value)

    def _proto(self, what, fn, *args):
        """fn(*args) (a protobuf decode), its DataLossError worded with the checkpoint and what was read."""
        try:
            return fn(*args)
        except DataLossError as e:
            raise _loss(self.prefix, f"{what}: {e.message}") from None

    def _parse_entry(self, name, value):
        msg = self._proto(f"the entry of tensor {name!r}", parse, value)
        e = _Entry()
        enum = first(msg, 1)
        e.dtype = _dt._BY_ENUM.get(enum)  # None: a dtype NumPy lacks (bfloat16 ...), refused when read
        e.enum = enum
        e.shape = self._proto(f"the shape of tensor {name!r}", parse_shape, first(msg, 2, b""))
        if e.shape is None or any(d is None for d in e.shape):
            raise _loss(self.prefix, f"tensor {name!r} has an unknown shape")
        e.shard, e.offset, e.size = first(msg, 3), first(msg, 4), first(msg, 5)
        e.crc = first(msg, 6, None, wire=5)
        if repeated(msg, 7):
            e.dtype = "sliced"
        if e.shard >= self._num_shards:
            raise _loss(self.prefix, f"tensor {name!r} names shard {e.shard} of {self._num_shards}")
        n = bound = 1
        for d in e.shape:
            n *= d
            bound *= max(d, 1)  # NumPy refuses (0, 2**62) too: its nonzero dims must fit as well
            if bound > _MAX_ELEMENTS:
                raise _loss(self.prefix, f"tensor {name!r} has an implausible shape {list(e.shape)}")
        if isinstance(e.dtype, _dt.DType) and e.dtype._np is not None:
            if n * e.dtype._np.itemsize != e.size:
                raise _loss(self.prefix, f"tensor {name!r} of shape {list(e.shape)} and dtype {e.dtype.name} "
                            f"cannot be {e.size} bytes")
        return e

    # ------------------------------------------------------------------------ listing
    def keys(self):
        return sorted(self._entries)

    def __contains__(self, key):
        return key in self._entries

    def has_tensor(self, key):
        return key in self._entries

    def shape_map(self):
        return {k: list(e.shape) for k, e in self._entries.items()}

    def dtype_map(self):
        return {k: e.dtype for k, e in self._entries.items() if isinstance(e.dtype, _dt.DType)}

    # ------------------------------------------------------------------------ reading
    def _entry(self, key):
        e = self._entries.get(key)
        if e is None:
            raise NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return e

    def _read_bytes(self, key, e):
        path = data_filename(self.prefix, e.shard, self._num_shards)
        try:
            f = open_regular(path)
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Data file {path} of checkpoint not found") from None
        with f:
            # the entry's extent is checked against the file's real size before its buffer is allocated
            if e.offset + e.size > os.fstat(f.fileno()).st_size:
                raise _loss(self.prefix, f"tensor {key!r} (offset {e.offset}, size {e.size}) runs past the end "
                            f"of its data file {path}")
            # straight into the array's memory (uninitialised: the file's bytes are its first write); writable,
            # so arrays made from it are too. A big tensor is read in parts by as many threads (positional
            # reads, which run without the GIL: its pages are faulted in and copied on every core)
            buf = np.empty(e.size, dtype=np.uint8)
            parts = _parts_for(e.size)
            if parts > 1:
                got = _read_in_parts(f.fileno(), buf, e.offset, parts)
            else:
                f.seek(e.offset)
                got = f.readinto(buf)
        if got != e.size:
            raise _loss(self.prefix, f"tensor {key!r} is truncated")
        return buf

    def check_dtype(self, key, dtype, variable=None):
        """Raises InvalidArgumentError unless the tensor under `key` has `dtype` (as TensorFlow's RestoreV2
        refuses to restore a value into a variable of another dtype: no silent cast)."""
        e = self._entry(key)
        if e.dtype is not dtype and e.dtype != "sliced":
            # (named as TensorFlow's RestoreV2 names them: float, double, half, bfloat16 ...)
            have = datatype_name(e.dtype.as_datatype_enum if isinstance(e.dtype, _dt.DType) else e.enum)
            into = f" (restoring variable {variable})" if variable else ""
            raise InvalidArgumentError(None, None, f"tensor_name = {key}; expected dtype "
                                       f"{datatype_name(dtype.as_datatype_enum)} does not equal original dtype "
                                       f"{have} in checkpoint {self.prefix!r}{into}")

    def get_tensor(self, key):
        """The tensor stored under `key`, as a NumPy array (strings: an object array of bytes)."""
        e = self._entry(key)
        if e.dtype == "sliced":
            raise UnimplementedError(None, None, f"Tensor {key!r} is stored as slices of a partitioned "
                                     "variable, which is not supported")
        if not isinstance(e.dtype, _dt.DType) or e.dtype in (_dt.resource, _dt.variant):
            have = e.dtype.name if isinstance(e.dtype, _dt.DType) else datatype_name(e.enum)
            raise UnimplementedError(None, None, f"Tensor {key!r} has dtype {have}, which this reader does not "
                                     "support")
        buf = self._read_bytes(key, e)
        if e.dtype is _dt.string:
            arr, crc = _decode_strings(buf, e.shape, self.prefix, key)
        else:
            crc = crc32c.value(buf)
            arr = np.frombuffer(buf, dtype=e.dtype._np.newbyteorder(">" if self._big_endian else "<"))
            arr = arr.astype(e.dtype._np, copy=False).reshape(e.shape)
            if e.dtype is _dt.bool:  # a byte other than 0 or 1 would make a bool that is neither
                arr = arr.view(np.uint8) != 0
        if e.crc is not None and crc32c.mask(crc) != e.crc:
            raise _loss(self.prefix, f"checksum does not match for tensor {key!r}")
        return arr


def _decode_strings(buf, shape, prefix, key):
    buf = bytes(buf)
    n = 1
    for d in shape:
        n *= d
    if n > len(buf):  # every element needs at least its one-byte length
        raise _loss(prefix, f"string tensor {key!r} is too short for its shape")
    got = decode_varints(np.frombuffer(buf, np.uint8), n)  # millions of strings have as many lengths
    if got is None:
        raise _loss(prefix, f"string tensor {key!r} has a corrupted length")
    lengths, pos = got
    crc = crc32c.value(lengths.astype("<u4").tobytes())  # TensorFlow sums each length as a uint32
    if pos + 4 > len(buf):
        raise _loss(prefix, f"string tensor {key!r} is truncated")
    stored = buf[pos:pos + 4]
    if struct.unpack("<I", stored)[0] != crc32c.mask(crc):
        raise _loss(prefix, f"checksum of the string lengths does not match for tensor {key!r}")
    crc = crc32c.extend(crc, stored)
    pos += 4
    # each length is checked before they are summed, so the sum cannot wrap around
    if n and int(lengths.max()) > len(buf) - pos or int(lengths.sum()) != len(buf) - pos:
        raise _loss(prefix, f"string tensor {key!r} has the wrong size")
    crc = crc32c.extend(crc, buf[pos:])
    out = np.empty(n, dtype=object)
    for i, ln in enumerate(lengths.tolist()):
        out[i] = buf[pos:pos + ln]
        pos += ln
    return out.reshape(shape), crc


def read_bundle(prefix):
    """{key: array} for every tensor in the bundle (the object graph included)."""
    r = BundleReader(prefix)
    return {k: r.get_tensor(k) for k in r.keys()}


# ------------------------------------------------------------------------------------------ writing
def _encode_strings(arr):
    flat = arr.reshape(-1)
    items = [x if isinstance(x, bytes) else str(x).encode() if not isinstance(x, (bytearray, memoryview))
             else bytes(x) for x in flat]
    lengths = b"".join(encode_varint(len(x)) for x in items)
    crc = 0
    for x in items:
        crc = crc32c.extend(crc, struct.pack("<I", len(x) & 0xFFFFFFFF))
    check = struct.pack("<I", crc32c.mask(crc))
    crc = crc32c.extend(crc, check)
    body = b"".join(items)
    crc = crc32c.extend(crc, body)
    return lengths + check + body, crc


class BundleWriter:
    """Collects tensors, then `finish()` writes PREFIX.index and PREFIX.data-00000-of-00001 exactly as
    TensorFlow's writer does (data in the order added, index sorted by key). Files appear atomically."""

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        self._data = []
        self._entries = {}
        self._offset = 0

    def add(self, key, value):
        if not isinstance(key, str) or not key:
            raise ValueError(f"bundle keys must be non-empty strings, got {key!r}")
        if key in self._entries:
            raise ValueError(f"Adding duplicate key: {key}")
        arr = np.asarray(value) if not isinstance(value, bytes) else np.array(value, dtype=object)
        dt = _dt.from_numpy(arr.dtype)
        if dt is _dt.string:
            payload, crc = _encode_strings(arr)
        else:
            payload = memoryview(np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).reshape(-1)).cast("B")
            crc = crc32c.value(payload)
        entry = varint_field(1, dt.as_datatype_enum) + bytes_field(2, shape_message(arr.shape))
        if self._offset:
            entry += varint_field(4, self._offset)
        if len(payload):
            entry += varint_field(5, len(payload))
        if crc32c.mask(crc):
            entry += fixed32_field(6, crc32c.mask(crc))
        self._entries[key] = entry
        self._data.append(payload)
        self._offset += len(payload)

    def finish(self):
        header = varint_field(1, 1) + bytes_field(3, varint_field(1, 1))  # num_shards 1, version{producer 1}
        items = [(b"", header)] + sorted((k.encode(), v) for k, v in self._entries.items())
        index = table.write_table(items)
        d = os.path.dirname(self.prefix)
        if d:
            os.makedirs(d, exist_ok=True)
        _atomic_write(data_filename(self.prefix, 0, 1), self._data)
        _atomic_write(index_filename(self.prefix), [index])


def _atomic_write(path, chunks):
    tmp = f"{path}.tmp{os.getpid()}_{threading.get_ident()}"
    with open(tmp, "wb") as f:
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


def write_bundle(prefix, tensors):
    """Writes {key: array} (in that order) as a bundle at `prefix`."""
    w = BundleWriter(prefix)
    for k, v in tensors.items():
        w.add(k, v)
    w.finish()
