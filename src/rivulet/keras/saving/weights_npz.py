"""Reading rivulet's `save_weights("w.npz")` archives: `w0000.npy`... in `model.weights` order, `names.npy` and
`format.npy` in a zip, as `np.savez` writes them.

Every array's header is read and checked against the model (kind, shape, a size the member can hold) before its
data is read, so a forged header never allocates what it declares; a value of another dtype is refused, never
cast; a member's CRC is checked by reading it to its end. Every failure is a ValueError naming the file."""
import ast
import os
import zipfile

import numpy as np

_MAX_HEADER = 10000  # np.load's own limit


class _Bad(Exception):
    pass


def _member(z, name):
    try:
        return z.getinfo(name)
    except KeyError:
        raise _Bad(f"it has no {name}") from None


def _header(f, name):
    """(dtype, shape, fortran_order) of an .npy member, from its header alone."""
    magic = f.read(8)
    if len(magic) != 8 or magic[:6] != b"\x93NUMPY" or magic[6] not in (1, 2, 3):
        raise _Bad(f"{name} is not an .npy array")
    size_bytes = 2 if magic[6] == 1 else 4
    n = int.from_bytes(f.read(size_bytes), "little")
    if n > _MAX_HEADER:
        raise _Bad(f"{name} has a header of {n} bytes")
    text = f.read(n)
    try:
        d = ast.literal_eval(text.decode("latin-1" if magic[6] < 3 else "utf-8"))
        descr, fortran, shape = d["descr"], d["fortran_order"], d["shape"]
        if set(d) != {"descr", "fortran_order", "shape"} or not isinstance(fortran, bool) or \
                not isinstance(shape, tuple) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise ValueError("bad keys")
        dtype = np.lib.format.descr_to_dtype(descr)
    except Exception:  # noqa: BLE001 - literal_eval and descr_to_dtype raise many kinds on a forged header
        raise _Bad(f"{name} has a malformed header") from None
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
        raise _Bad(f"{name} holds {dtype}, not plain values")
    return dtype, shape, fortran


def _array(z, name, check):
    """The member's array; `check(dtype, shape)` raises _Bad before the data is read."""
    info = _member(z, name)
    try:
        with z.open(info) as f:
            dtype, shape, fortran = _header(f, name)
            check(dtype, shape)
            count = 1
            for s in shape:
                count *= s
            nbytes = count * dtype.itemsize
            if nbytes > info.file_size:
                raise _Bad(f"{name} declares {nbytes} bytes of data but holds {info.file_size}")
            data = f.read(nbytes)
            rest = f.read(1)  # to the member's end: the zip's CRC of it is checked there
            if len(data) != nbytes or rest:
                raise _Bad(f"{name} holds {len(data) + len(rest)}{'+' if rest else ''} bytes of data, its "
                           f"header says {nbytes}")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        raise _Bad(f"{name}: {e}") from None
    except Exception as e:  # zlib.error, lzma/bz2 errors from a damaged compressed member
        if isinstance(e, _Bad):
            raise
        raise _Bad(f"{name}: {type(e).__name__}: {e}") from None
    return np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")


def read_weights_npz(model, filepath, weights_format):
    """The archive's arrays for `model.weights` (checked: count, kind and shape; the model's own dtype in either
    byte order), or a ValueError. FileNotFoundError passes through."""
    weights = model.weights
    try:
        with open(filepath, "rb") as fh:
            try:
                z = zipfile.ZipFile(fh)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError,
                    NotImplementedError) as e:  # (a version the zipfile module does not read)
                raise _Bad(f"not a zip archive ({e})") from None
            with z:
                def text_scalar(dtype, shape):
                    if dtype.kind != "U" or shape != ():
                        raise _Bad("format.npy is not a string")
                fmt = _array(z, "format.npy", text_scalar)
                if str(fmt[()]) != weights_format:
                    raise _Bad("it is not a rivulet weights file (written by Model.save_weights)")

                def names_list(dtype, shape):
                    if dtype.kind != "U" or len(shape) != 1:
                        raise _Bad("names.npy is not a list of names")
                names = [str(n) for n in _array(z, "names.npy", names_list)]
                stored = sorted(n for n in z.namelist() if n.startswith("w") and n.endswith(".npy"))
                if stored != [f"w{i:04d}.npy" for i in range(len(names))]:
                    raise _Bad(f"it lists {len(names)} names but holds the arrays {stored[:10]}")
                if not weights and names:
                    raise ValueError(f"Model \"{model.name}\" has no weights yet (it is not built): call it on data "
                                     f"or build() it before load_weights, which expects {len(names)} weights.")
                if len(weights) != len(names):
                    raise ValueError(f"Weight count mismatch: the file {filepath} holds {len(names)} weights but "
                                     f"model \"{model.name}\" has {len(weights)}.")
                values = []
                for i, (w, name) in enumerate(zip(weights, names)):
                    want = np.dtype(w.dtype.as_numpy_dtype)
                    wshape = tuple(w.shape)

                    def fits(dtype, shape, w=w, name=name, want=want, wshape=wshape):
                        if dtype.kind != want.kind or dtype.itemsize != want.itemsize:
                            raise _Bad(f"{w.name} is {want.name}, the file's value (saved as {name}) is {dtype}: "
                                       "a value of another dtype is never cast")
                        if tuple(shape) != wshape:
                            raise _Bad(f"Weight shape mismatch for {w.name}: the model's is {wshape}, the file's "
                                       f"(saved as {name}) is {tuple(shape)}.")
                    values.append(_array(z, f"w{i:04d}.npy", fits).astype(want, copy=False))
                return values
    except _Bad as e:
        raise ValueError(f"Could not read weights from {os.fspath(filepath)}: {e}") from None
