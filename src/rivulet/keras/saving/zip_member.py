"""The weights member of a .keras zip as a read-only file for h5py, without inflating it whole.

A stored member (what Keras writes) is read in place from the archive after one streaming CRC pass, so
h5py's random reads cost nothing extra and corrupted bytes are not loaded silently. A compressed member is
inflated into memory, but never past `limit` bytes (the most the model's own variables can need), whatever
sizes its headers declare.
"""
import io
import os
import struct
import zipfile
import zlib

_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature ... file name length, extra field length (30 bytes)


def open_member(archive, info, limit, where):
    """A file object over member `info` of the open ZipFile `archive` (whose file is at `archive.filename`)."""
    if info.flag_bits & 0x1:
        raise ValueError(f"{where} is encrypted: a .keras archive's members are plain")
    if info.file_size > limit:
        raise ValueError(f"{where} inflates to {info.file_size} bytes, more than the model's weights can fill "
                         f"({limit} bytes at most): not this model's weights")
    if info.compress_type == zipfile.ZIP_STORED:
        return _stored(archive.filename, info, where)
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as e:
        raise ValueError(f"{where} cannot be read: {e}") from None
    if len(data) > limit:
        raise ValueError(f"{where} inflates to more than the model's weights can fill ({limit} bytes at most)")
    return io.BytesIO(data)


def _stored(path, info, where):
    f = open(path, "rb")
    try:
        size = os.fstat(f.fileno()).st_size
        f.seek(info.header_offset)
        header = f.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or _LOCAL_HEADER.unpack(header)[0] != b"PK\x03\x04":
            raise ValueError(f"{where}: the archive's local header is missing or corrupted")
        name_len, extra_len = _LOCAL_HEADER.unpack(header)[1:]
        start = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len
        if info.compress_size != info.file_size or start + info.file_size > size:
            raise ValueError(f"{where}: the archive is truncated or its sizes are inconsistent")
        member = StoredMember(f, start, info.file_size)
        crc = 0
        while chunk := member.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
        if crc != info.CRC:
            raise ValueError(f"{where}: bad CRC-32 (the archive is corrupted)")
        member.seek(0)
        return member
    except BaseException:
        f.close()
        raise


class StoredMember(io.RawIOBase):
    """Bytes [start, start + size) of an open file, as a read-only seekable file (closing it closes that file)."""

    def __init__(self, f, start, size):
        super().__init__()
        self._f, self._start, self._size, self._pos = f, start, size, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self._pos

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise OSError("seek before the start of the member")
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer):
        n = max(0, min(len(buffer), self._size - self._pos))
        if not n:
            return 0
        self._f.seek(self._start + self._pos)
        got = self._f.readinto(memoryview(buffer)[:n])
        self._pos += got
        return got

    def close(self):
        if not self.closed:
            self._f.close()
        super().close()
