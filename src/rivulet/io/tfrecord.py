"""TFRecord files: each record is framed as

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)     (little-endian)

(summary/records.py holds the CRC and the framing, shared with TensorBoard event files). Both CRCs are
verified on reading; a mismatch or a truncated record raises DataLossError. Files may be GZIP or ZLIB
compressed as a whole, as TensorFlow writes them.
"""
import gzip
import io
import struct
import zlib

from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..summary.records import masked_crc, record

_COMPRESSIONS = {None: "", "": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def _compression(c):
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
        self.compression_type = _compression(compression_type)
        self.compression_level = compression_level


class TFRecordWriter:
    """tf.io.TFRecordWriter: write(bytes) appends a record; a context manager that closes the file."""

    def __init__(self, path, options=None):
        self._path = _path(path)
        self._kind = _compression(options)
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

    def write(self, record_bytes):
        if self._closed:
            raise ValueError("Writer is closed.")
        data = getattr(record_bytes, "_v", record_bytes)
        if hasattr(data, "item") and not isinstance(data, bytes):
            data = data.item()
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"write() argument must be bytes, got {type(data).__name__}")
        framed = record(bytes(data))
        if self._kind == "ZLIB":
            framed = self._z.compress(framed)
        self._f.write(framed)

    def flush(self):
        if self._kind == "ZLIB":
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        if self._closed:
            return
        if self._kind == "ZLIB":
            self._f.write(self._z.flush())
        self._f.close()
        if self._raw is not self._f:
            self._raw.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _path(p):
    p = getattr(p, "numpy", lambda: p)()
    if isinstance(p, bytes):
        p = p.decode()
    return str(p)


def _open(path, kind):
    try:
        data = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    except OSError as e:
        raise NotFoundError(f"{path}; {e.strerror}") from None
    if kind == "GZIP":
        return gzip.GzipFile(fileobj=data, mode="rb")
    if kind == "ZLIB":
        with data:
            try:
                return io.BytesIO(zlib.decompress(data.read()))
            except zlib.error as e:
                raise DataLossError(f"corrupted ZLIB stream in {path}: {e}") from None
    return data


def read_records(path, compression_type=None, buffer_size=None):
    """Yields the data of each record of one file, verifying both CRCs."""
    path = _path(path)
    f = _open(path, _compression(compression_type))
    with f:
        offset = 0
        while True:
            try:
                header = f.read(12)
            except (OSError, EOFError, zlib.error) as e:
                raise DataLossError(f"corrupted compressed record in {path}: {e}") from None
            if not header:
                return
            if len(header) < 12:
                raise DataLossError(f"truncated record at {offset} in {path}")
            (length,), (crc,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
            if masked_crc(header[:8]) != crc:
                raise DataLossError(f"corrupted record at {offset} in {path}")
            body = f.read(length + 4)
            if len(body) < length + 4:
                raise DataLossError(f"truncated record at {offset} in {path}")
            data = body[:length]
            if masked_crc(data) != struct.unpack("<I", body[length:])[0]:
                raise DataLossError(f"corrupted record at {offset} in {path}")
            offset += 16 + length
            yield data


def tf_record_iterator(path, options=None):
    """tf.compat.v1.io.tf_record_iterator: the records of one file, as bytes."""
    return read_records(path, options)
