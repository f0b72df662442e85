"""File-reading datasets (TFRecordDataset, TextLineDataset, FixedLengthRecordDataset, list_files) and the
file-backed cache."""
import glob
import itertools
import os

import numpy as np

from .. import dtypes as _dt
from ..errors import InvalidArgumentError
from ..shape import TensorSpec
from . import structure
from .dataset import DatasetV2, UNKNOWN
from .sources import TensorSliceDataset

_STRING = TensorSpec([], _dt.string)


def _filenames(filenames):
    if isinstance(filenames, DatasetV2):
        s = filenames.element_spec
        if not isinstance(s, TensorSpec) or s.dtype is not _dt.string or s.shape.rank != 0:
            raise TypeError(f"`filenames` must be a `tf.data.Dataset` of scalar `tf.string` elements, got {s}.")
        return filenames
    v = getattr(filenames, "_v", filenames)
    a = np.asarray(v if not isinstance(v, str) else v.encode(), dtype=object).reshape(-1)
    names = [x.encode() if isinstance(x, str) else x for x in a.tolist()]
    for x in names:
        if not isinstance(x, bytes):
            raise TypeError(f"`filenames` must be a `tf.Tensor` of `tf.string`, got {x!r}")
    return TensorSliceDataset(np.array(names, dtype=object)) if names else _EmptyNames()


class _EmptyNames(DatasetV2):
    def __init__(self):
        super().__init__(_STRING)

    def _make_iter(self):
        return iter(())

    def _card(self):
        return 0


def _name(e):
    v = e[0]
    v = v.item() if isinstance(v, np.ndarray) else v
    return v.decode() if isinstance(v, bytes) else str(v)


class _FileDataset(DatasetV2):
    """Records of files (names: a string, a list, or a dataset of names), read by `_read(path)`."""

    def __init__(self, filenames, compression_type=None):
        from ..formats.tfrecord import compression_kind
        self._kind = compression_kind(compression_type)
        self._files = _filenames(filenames)
        super().__init__(_STRING, (self._files,))

    def _card(self):
        return UNKNOWN

    def _records(self):
        for e in self._files._make_iter():
            yield from self._read(_name(e))

    def _make_iter(self):
        for rec in self._records():
            yield (np.array(rec, dtype=object),)

    def _batches_of_records(self, n, drop_remainder):
        """batch(n)'s elements without a 0-d array per record: each batch's records (bytes) are gathered in a
        list and become one 1-D object array (BatchDataset asks for `_record_batches`, which the readers of
        records below name this)."""
        records = self._records()
        while True:
            chunk = list(itertools.islice(records, n))
            if not chunk or drop_remainder and len(chunk) < n:
                return
            batch = np.empty(len(chunk), dtype=object)
            batch[:] = chunk
            yield (batch,)


class TFRecordDatasetV2(_FileDataset):
    """Records of TFRecord files, in file order; each CRC is checked (DataLossError on corruption)."""
    _tf_name = "_TFRecordDataset"
    _record_batches = _FileDataset._batches_of_records

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type)

    def _read(self, path):
        from ..formats.tfrecord import read_records
        return read_records(path, self._kind)


class TextLineDatasetV2(_FileDataset):
    _tf_name = "_TextLineDataset"
    _record_batches = _FileDataset._batches_of_records

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type)

    def _read(self, path):
        from ..formats.tfrecord import open_compressed
        with open_compressed(path, self._kind) as f:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-1]
                    if line.endswith(b"\r"):
                        line = line[:-1]
                yield line


class FixedLengthRecordDatasetV2(_FileDataset):
    _tf_name = "_FixedLengthRecordDataset"
    _record_batches = _FileDataset._batches_of_records

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        self._rec, self._head, self._foot = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        if self._rec <= 0:
            raise InvalidArgumentError("record_bytes must be greater than zero.")
        super().__init__(filenames, compression_type)

    def _read(self, path):
        from ..formats.tfrecord import open_compressed
        with open_compressed(path, self._kind) as f:
            data = f.read()
        body = data[self._head:len(data) - self._foot]
        for i in range(0, len(body) - self._rec + 1, self._rec):
            yield body[i:i + self._rec]


def list_files(file_pattern, shuffle=None, seed=None):
    v = getattr(file_pattern, "_v", file_pattern)
    pats = np.asarray(v, dtype=object).reshape(-1).tolist()
    pats = [p.decode() if isinstance(p, bytes) else str(p) for p in pats]
    names = sorted({f for p in pats for f in glob.glob(p)})
    if not names:
        raise InvalidArgumentError(f"Expected 'tf.Tensor({pats[0] if len(pats) == 1 else pats}, shape=(), "
                                   f"dtype=string)' to match at least one file.")
    ds = TensorSliceDataset(np.array([n.encode() for n in names], dtype=object))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(names), seed=seed)
    return ds


_CACHE_MAGIC = b"rivulet.data.cache/1\n"


def _cache_header(count):
    """The cache file's first record: its magic and the element count (fixed width, so the count is written
    over the placeholder once the pass is complete)."""
    return _CACHE_MAGIC + b"%020d\n" % count


def file_cache_iter(input_dataset, filename, spec):
    """cache(filename): the first complete pass writes the elements to `filename`.rivulet-cache.tfrecord as
    TFRecords of serialized tensors (no pickle), after a first record holding the element count; later passes
    read them back. A pass writes a file of its own and renames it into place only once complete, so an
    interrupted pass (an iterator dropped midway, a crash) leaves no cache: the next pass fills it anew, as
    TensorFlow discards a partial cache. Reading checks every record's CRCs, each element's dtypes and shapes
    and the count: a cut, damaged or padded file is DataLossError naming it, never fewer or other elements."""
    path = filename + ".rivulet-cache.tfrecord"
    if os.path.exists(path):
        return _read_cache(path, spec)
    return _write_cache(input_dataset, path)


def _read_cache(path, spec):
    from ..errors import DataLossError
    from ..formats.tfrecord import read_records
    from . import composites
    records = read_records(path)
    head = next(records, None)
    want = len(_cache_header(0))
    if head is None or len(head) != want or not head.startswith(_CACHE_MAGIC) or \
            not head[len(_CACHE_MAGIC):-1].isdigit() or not head.endswith(b"\n"):
        raise DataLossError(None, None, f"Cache file {path} has no element count (it was written by an older "
                            "rivulet, or is damaged): delete it to fill the cache again.")
    count = int(head[len(_CACHE_MAGIC):-1])
    yield from composites.read_elements(
        records, spec, count, f"Cache file {path}",
        f"Cache file {path} ends before the {count} elements it counts.",
        f"Cache file {path} holds more than the {count} elements it counts.")


def _write_cache(input_dataset, path):
    import uuid
    from ..formats.records import record
    from ..formats.tfrecord import TFRecordWriter
    from . import composites
    tmp = f"{path}.tmp{uuid.uuid4().hex}"  # per pass: two iterators of one process never share it
    try:
        count = 0
        with TFRecordWriter(tmp) as w:
            w.write(_cache_header(0))
            for e in input_dataset._make_iter():
                for r in composites.serialized_records(e):
                    w.write(r)
                count += 1
                yield e
        with open(tmp, "r+b") as f:  # the pass is complete: its count goes into the first record
            f.write(record(_cache_header(count)))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            try:
                os.remove(tmp)
            except OSError:
                pass
