"""TFRecord files: each record is framed as

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)     (little-endian)

(formats/records.py holds the CRC and the framing, shared with TensorBoard event files). Both CRCs are
verified on reading; a mismatch or a truncated record raises DataLossError. Files may be GZIP or ZLIB
compressed as a whole, as TensorFlow writes them.
"""
import atexit
import gzip
import io
import os
import stat
import struct
import threading
import weakref
import zlib

import numpy as np

from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from . import crc32c
from .crc32c import mask
from .records import record

_COMPRESSIONS = {None: "", "": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def compression_kind(c):
    c = getattr(c, "compression_type", c)
    if isinstance(c, bytes):
        c = c.decode()
    key = c.upper() if isinstance(c, str) else c
    if key not in _COMPRESSIONS:
        raise InvalidArgumentError(f"Unsupported compression_type: {c!r}; use '', 'ZLIB' or 'GZIP'.")
    return _COMPRESSIONS[key]


class TFRecordOptions:
    compression_type_map = {"ZLIB": "ZLIB", "GZIP": "GZIP", "": ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.compression_type = compression_kind(compression_type)
        self.compression_level = compression_level


class TFRecordWriter:
    """tf.io.TFRecordWriter: write(bytes) appends a record; a context manager that closes the file.

    An uncompressed file's records are gathered and written a megabyte at a time (one system call per
    megabyte, not per record); flush() and close() write what is gathered, as TensorFlow's writer does."""

    def __init__(self, path, options=None):
        self._path = _path(path)
        self._kind = compression_kind(options)
        level = getattr(options, "compression_level", None)
        level = -1 if level is None else level
        try:
            raw = open(self._path, "wb")
        except OSError as e:
            raise NotFoundError(f"{self._path}; {e.strerror}") from None
        if self._kind == "GZIP":
            self._f = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9 if level < 0 else level)
            self._raw = raw
        elif self._kind == "ZLIB":
            self._f, self._raw, self._z = raw, raw, zlib.compressobj(level)
        else:
            self._f, self._raw = raw, raw
        self._closed = False
        self._parts, self._held = [], 0  # framed pieces not yet written, and their size
        self._lock = threading.Lock()
        _OPEN.add(self)
        self._fast = not self._kind  # write()'s short path: an open uncompressed file
        self._crc = crc32c.bytes_value()

    def write(self, record_bytes):
        if self._fast and type(record_bytes) is bytes:  # the usual case, without the checks below
            n = len(record_bytes)
            header = _HEADERS.get(n)
            if header is None:
                header = _header(n)
            c = self._crc(record_bytes)
            parts = self._parts  # one list for the writer's life: a record's three pieces go in by one extend
            parts += (header, record_bytes, _U32_PACK((((c >> 15 | c << 17) & 0xFFFFFFFF) + 0xA282EAD8)
                                                      & 0xFFFFFFFF))
            self._held += n + 16
            if self._held >= _HOLD:
                self._drain()
            return
        if self._closed:
            raise ValueError("Writer is closed.")
        data = getattr(record_bytes, "_v", record_bytes)
        if hasattr(data, "item") and not isinstance(data, bytes):
            data = data.item()
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"write() argument must be bytes, got {type(data).__name__}")
        if self._fast:
            return self.write(bytes(data))
        framed = record(bytes(data))
        if self._kind == "ZLIB":
            framed = self._z.compress(framed)
        self._f.write(framed)

    def _drain(self):
        """Writes the gathered pieces. Threads writing at once: each record's pieces were added by one list
        extend (atomic), the pieces are taken from the front of the list and the file written under a lock,
        so records are neither split, lost nor written twice."""
        with self._lock:
            parts = self._parts
            n = len(parts)
            self._held = 0
            if n:
                data = b"".join(parts[:n])
                del parts[:n]
                self._f.write(data)

    def flush(self):
        self._drain()
        if self._kind == "ZLIB":
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        if self._closed:
            return
        self._fast = False
        try:
            self._drain()
        finally:
            self._closed = True
            try:
                if self._kind == "ZLIB":
                    self._f.write(self._z.flush())
            finally:
                self._f.close()
                if self._raw is not self._f:
                    self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


_OPEN = weakref.WeakSet()  # writers not yet closed: closed at exit, so that no gathered record is lost


@atexit.register
def _close_open_writers():
    for w in list(_OPEN):
        try:
            w.close()
        except Exception:
            pass


_HOLD = 1 << 20  # bytes of records gathered before they are written
_U32_PACK = struct.Struct("<I").pack
_HEADERS = {}  # data length -> its 12 header bytes (length and the length's masked CRC)


def _header(n):
    length = struct.pack("<Q", n)
    header = length + _U32_PACK(mask(crc32c.value(length)))
    if len(_HEADERS) < 4096:
        _HEADERS[n] = header
    return header


def _path(p):
    p = getattr(p, "numpy", lambda: p)()
    if isinstance(p, bytes):
        p = p.decode()
    return str(p)


_CHUNK = 1 << 20  # bytes asked of a stream at a time: a declared length is never allocated up front


class _ZlibReader(io.RawIOBase):
    """A ZLIB-compressed file, inflated a buffer at a time (a small file may inflate to gigabytes).
    Streams written one after another are read as one; a stream cut short raises EOFError."""

    def __init__(self, raw):
        self._raw, self._d, self._in = raw, None, b""

    def readable(self):
        return True

    def readinto(self, b):
        if not len(b):
            return 0  # (decompress's max_length 0 would mean no limit)
        while True:
            if self._d is None or self._d.eof:
                if self._d is not None:
                    self._in = self._d.unused_data
                if not self._in:
                    self._in = self._raw.read(_CHUNK)
                    if not self._in:
                        return 0
                self._d = zlib.decompressobj()
            if not self._in:
                self._in = self._raw.read(_CHUNK)
                if not self._in:
                    raise EOFError("compressed stream ended before its end marker")
            out = self._d.decompress(self._in, len(b))
            self._in = self._d.unconsumed_tail
            if out:
                b[:len(out)] = out
                return len(out)

    def close(self):
        self._raw.close()
        super().close()


def _raw_open(path, kind):
    """The file's bytes, decompressed as they are read; decompression errors are the caller's to map."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except OSError as e:
        raise NotFoundError(f"{path}; {e.strerror}") from None
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "ZLIB":
        return io.BufferedReader(_ZlibReader(raw), _CHUNK)
    return raw


_STREAM_ERRORS = (OSError, EOFError, zlib.error)  # gzip.BadGzipFile is an OSError


class _Checked(io.RawIOBase):
    """A file (decompressed) whose read errors are DataLossError naming the file and the offset."""

    def __init__(self, path, kind, f):
        self._path, self._kind, self._f, self._pos = path, kind, f, 0

    def readable(self):
        return True

    def readinto(self, b):
        try:
            n = self._f.readinto(b)
        except _STREAM_ERRORS as e:
            raise _stream_error(self._path, self._kind, self._pos, e) from None
        self._pos += n
        return n

    def close(self):
        self._f.close()
        super().close()


def _stream_error(path, kind, offset, e):
    what = f"{'truncated' if isinstance(e, EOFError) else 'corrupted'} {kind} data" if kind else "read error"
    return DataLossError(f"{what} at offset {offset} in {path}: {e or type(e).__name__}")


def open_compressed(path, kind):
    """A binary file object over the (decompressed) bytes of `path` for the line, CSV and fixed-length
    readers: a missing file is NotFoundError, a corrupt or truncated compressed stream DataLossError."""
    f = _raw_open(path, kind)
    return io.BufferedReader(_Checked(path, kind, f), _CHUNK)


def _read_some(f, n, path, kind, offset):
    """(up to n bytes, None), or (the bytes read before a stream error, that error as DataLossError). Read a
    decompressed piece at a time (read1), so that what came before a cut or corrupt spot is kept."""
    parts = []
    read = getattr(f, "read1", f.read)
    try:
        while n > 0:
            b = read(min(n, _CHUNK))
            if not b:
                break
            parts.append(b)
            n -= len(b)
    except _STREAM_ERRORS as e:
        return b"".join(parts), _stream_error(path, kind, offset, e)
    return (parts[0] if len(parts) == 1 else b"".join(parts)), None


def _file_size(f):
    """The size of a plain regular file, else None (a pipe or a device has no size to check against)."""
    try:
        st = os.fstat(f.fileno())
    except (OSError, AttributeError, io.UnsupportedOperation):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


_HEADER = struct.Struct("<QI")
_AT_ONCE = 4  # whole records in the buffer, at least, cut and checked at once
_LAST4 = np.arange(-4, 0)  # a record's stored data checksum: the four bytes before its end
_U32 = struct.Struct("<I")


def read_records(path, compression_type=None, buffer_size=None):
    """Yields the data of each record of one file, verifying both CRCs. The file is read a megabyte at a time
    and the records are cut from that buffer (one slice each: the bytes yielded). Offsets in messages are
    those of the uncompressed records, as TensorFlow reports them."""
    path = _path(path)
    kind = compression_kind(compression_type)
    f = _raw_open(path, kind)
    with f:
        size = _file_size(f) if not kind else None
        buf, pos, offset = b"", 0, 0  # buf[pos] is the first byte of the record at `offset`
        failed = []  # a stream error met reading ahead: raised once the records before it are yielded

        def more(n):
            if failed:
                raise failed[0]
            data, err = _read_some(f, n, path, kind, offset)
            if err is not None:
                failed.append(err)
                if not data:
                    raise err
            return data

        crc_of, header_at, u32_at = crc32c.bytes_value(), _HEADER.unpack_from, _U32.unpack_from
        good = set()
        while True:
            # the usual: the buffer's whole records whose headers are known good, cut at once, their checksums
            # taken by one map and compared together; those before a bad one are yielded, the steps below then
            # raise for it (and handle new headers, refills and records that straddle two buffers)
            n, p, ends = len(buf), pos, []
            while p + 12 <= n:
                header = header_at(buf, p)
                e = p + 16 + header[0]
                if e > n or header not in good:
                    break
                ends.append(e)
                p = e
            if len(ends) >= _AT_ONCE:
                datas = [buf[s + 12:e - 4] for s, e in zip([pos] + ends[:-1], ends)]
                crcs = np.fromiter(map(crc_of, datas), np.uint64, len(datas))
                stored = np.frombuffer(buf, np.uint8)[np.array(ends)[:, None] + _LAST4].view("<u4")[:, 0]
                ok = mask(crcs) == stored
                k = len(datas) if ok.all() else int(np.argmin(ok))
                if k:
                    end = ends[k - 1]
                    offset += end - pos
                    pos = end
                    yield from datas[:k]
                if k == len(datas):
                    continue
            if len(buf) - pos < 12:
                buf, pos = buf[pos:] + more(_CHUNK), 0
                if not buf:
                    return
                if len(buf) < 12:
                    if failed:
                        raise failed[0]
                    raise DataLossError(f"truncated record at {offset} in {path}: {len(buf)} of the 12 header "
                                        f"bytes")
            header = header_at(buf, pos)  # (length, its masked CRC)
            if header not in good:  # a header checked once is known good (records often share lengths)
                c = crc_of(buf[pos:pos + 8])
                if mask(c) != header[1]:
                    raise DataLossError(f"corrupted record at {offset} in {path}: the length's checksum does "
                                        f"not match")
                if len(good) < 4096:
                    good.add(header)
            length = header[0]
            end = pos + 16 + length
            if end > len(buf):  # read on: at least the rest of this record (what there is of it, in chunks)
                if size is not None and length + 4 > size - offset - 12:
                    raise DataLossError(f"truncated record at {offset} in {path}: declares {length} bytes, only "
                                        f"{size - offset - 12} follow the header")
                need = end - len(buf)  # the rest of this record: the start of the next buffer
                new = more(max(need, _CHUNK))
                if need > len(new):
                    buf = buf[pos:] + new
                    if failed:
                        raise failed[0]
                    raise DataLossError(f"truncated record at {offset} in {path}: declares {length} bytes, only "
                                        f"{len(buf) - 12} follow the header")
                # this record alone is joined (not the new buffer to what was left of the old: a copy per megabyte)
                buf, pos, end = buf[pos:] + new[:need], 0, 16 + length
                data = buf[12:end - 4]
                c = crc_of(data)
                if mask(c) != u32_at(buf, end - 4)[0]:
                    raise DataLossError(f"corrupted record at {offset} in {path}: the data's checksum does not "
                                        f"match")
                offset += 16 + length
                buf, pos = new, need
                yield data
                continue
            data = buf[pos + 12:end - 4]
            c = crc_of(data)
            if mask(c) != u32_at(buf, end - 4)[0]:
                raise DataLossError(f"corrupted record at {offset} in {path}: the data's checksum does not match")
            offset += 16 + length
            pos = end
            yield data


def tf_record_iterator(path, options=None):
    """tf.compat.v1.io.tf_record_iterator: the records of one file, as bytes."""
    return read_records(path, options)
