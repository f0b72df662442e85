"""Reads the dataset .npz files without np.load(allow_pickle=True): plain arrays are read after their header's
shape and dtype are checked against the bytes the member holds, and object arrays (imdb's and reuters' lists of
word indices) go through the data-only pickle reader."""
import lzma
import math
import tokenize
import zipfile
import zlib

import numpy as np
from numpy.lib import format as npy_format

from .safe_pickle import loads, read_limited

MAX_ARRAY_BYTES = 1 << 31  # the real files' largest array is ~50 MB
_BAD_ZIP = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError,
            RuntimeError, OSError, UnicodeDecodeError)


def _plain_dtype(dtype):
    return (isinstance(dtype, np.dtype) and dtype.kind in "biuf" and dtype.fields is None
            and dtype.subdtype is None)


def _read_member(zf, path, key, allow_object):
    name = key + ".npy"
    try:
        info = zf.getinfo(name)
    except KeyError:
        found = sorted(n[:-4] for n in zf.namelist() if n.endswith(".npy"))
        raise ValueError(f"{path}: the archive has no array {key!r} (it holds {found}).") from None
    with zf.open(info) as f:
        try:
            version = npy_format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = npy_format.read_array_header_1_0(f)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = npy_format.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy format version {version}")
        except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as e:  # numpy tokenizes the header
            raise ValueError(f"{path}: array {key!r} has an invalid .npy header ({e}).") from None
        count = math.prod(shape)
        if dtype.hasobject:
            if dtype != np.dtype(object) or key not in allow_object:
                raise ValueError(f"{path}: array {key!r} holds Python objects ({dtype}), which this dataset's "
                                 "file never does.")
            data = read_limited(f, MAX_ARRAY_BYTES, f"{path}: array {key!r}")
            arr = loads(data, what=f"{path}: array {key!r}", allow_object=True)
            if not isinstance(arr, np.ndarray) or arr.shape != shape:
                raise ValueError(f"{path}: array {key!r} does not hold the array of shape {shape} that its "
                                 "header declares.")
            return arr
        if not _plain_dtype(dtype):
            raise ValueError(f"{path}: array {key!r} has dtype {dtype}; the datasets hold plain numeric arrays.")
        nbytes = count * dtype.itemsize
        if nbytes > MAX_ARRAY_BYTES:
            raise ValueError(f"{path}: array {key!r} declares shape {shape} ({nbytes} bytes), more than "
                             f"{MAX_ARRAY_BYTES} bytes.")
        data = bytearray(f.read(nbytes))
        if len(data) != nbytes:
            raise ValueError(f"{path}: array {key!r} is truncated: its header declares shape {shape} and dtype "
                             f"{dtype} ({nbytes} bytes) but it holds {len(data)}.")
        f.read()  # to the end, so that zipfile checks the member's CRC
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def load_npz(path, keys, allow_object=()):
    """{key: array} for `keys` of the .npz file at `path`; only keys in `allow_object` may hold object arrays."""
    try:
        with zipfile.ZipFile(path) as zf:
            return {k: _read_member(zf, path, k, allow_object) for k in keys}
    except _BAD_ZIP as e:
        if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        raise ValueError(f"{path}: not a valid .npz file ({type(e).__name__}: {e}).") from None

