"""tf.io.gfile on the local file system: exists, isdir, listdir, glob, walk, stat, makedirs, mkdir, remove,
rmtree, rename, copy, join and GFile, with TensorFlow 2.21's errors (NotFoundError, AlreadyExistsError)."""
import glob as _glob
import os
import shutil

from .. import errors

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir", "remove", "rename",
           "rmtree", "stat", "walk"]


def _path(p):
    p = os.fspath(p)
    return p.decode() if isinstance(p, bytes) else p


def exists(path):
    return os.path.exists(_path(path))


def isdir(path):
    return os.path.isdir(_path(path))


def join(path, *paths):
    return os.path.join(_path(path), *(_path(p) for p in paths))


def listdir(path):
    """The names in a directory (in the file system's order, as TensorFlow's)."""
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def glob(pattern):
    return sorted(_glob.glob(_path(pattern)))


def walk(top, topdown=True, onerror=None):
    """(dirname, subdirectory names, file names) for each directory under `top`."""
    top = _path(top)
    try:
        names = listdir(top)
    except errors.NotFoundError as e:
        if onerror is not None:
            onerror(e)
        return
    dirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if not os.path.isdir(os.path.join(top, n))]
    if topdown:
        yield top, dirs, files
    for d in dirs:
        yield from walk(os.path.join(top, d), topdown, onerror)
    if not topdown:
        yield top, dirs, files


class FileStatistics:
    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def _missing(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


def stat(path):
    path = _path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _missing(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def makedirs(path):
    os.makedirs(_path(path), exist_ok=True)


def mkdir(path):
    path = _path(path)
    if not os.path.isdir(path):
        try:
            os.mkdir(path)
        except FileNotFoundError:
            raise _missing(os.path.dirname(path)) from None


def remove(path):
    path = _path(path)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _missing(path) from None


def rmtree(path):
    path = _path(path)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def _check_target(dst, overwrite):
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def rename(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    _check_target(dst, overwrite)
    if not os.path.exists(src):
        raise _missing(src)
    os.replace(src, dst)


def copy(src, dst, overwrite=False):
    src, dst = _path(src), _path(dst)
    _check_target(dst, overwrite)
    if not os.path.exists(src):
        raise _missing(src)
    shutil.copyfile(src, dst)


class GFile:
    """A file: 'r'/'w'/'a' (text) or with 'b' (bytes); opened on first use, as TensorFlow's."""

    def __init__(self, name, mode="r"):
        self.name, self.mode = _path(name), mode
        self._f = None

    def _file(self):
        if self._f is None:
            try:
                self._f = open(self.name, self.mode,
                               **({} if "b" in self.mode else {"encoding": "utf-8", "newline": ""}))
            except FileNotFoundError:
                raise _missing(self.name) from None
        return self._f

    def read(self, n=-1):
        return self._file().read(n)

    def readline(self):
        return self._file().readline()

    def readlines(self):
        return self._file().readlines()

    def write(self, data):
        self._file().write(data)

    def __iter__(self):
        return iter(self._file())

    def __next__(self):
        return next(self._file())

    def seek(self, offset=None, whence=0, position=None):
        return self._file().seek(position if position is not None else offset, whence)

    def tell(self):
        return self._file().tell()

    def size(self):
        return os.stat(self.name).st_size

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
