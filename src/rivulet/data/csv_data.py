"""CSV files: tf.data.experimental.CsvDataset (typed columns with defaults) and make_csv_dataset (column types
inferred from the first rows, batches of (OrderedDict of features, label))."""
import collections
import csv
import glob
import io

import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor, to_numpy_value
from ..errors import InvalidArgumentError
from ..shape import TensorSpec
from .readers import _FileDataset


def _default(d):
    """A record default: a DType (the field is required) or a value (used when the field is empty)."""
    if isinstance(d, _dt.DType) or isinstance(d, str) and d in ("int32", "int64", "float32", "float64", "string"):
        return _dt.as_dtype(d), None
    v = np.asarray(d._v if isinstance(d, Tensor) else to_numpy_value(d)).reshape(-1)  # TF's rules: 0 -> int32
    if v.size > 1:
        raise ValueError(f"A record default must be a scalar or empty, got {d!r}")
    dt = _dt.from_numpy(v.dtype) if v.dtype != object else _dt.string
    return dt, (v[0] if v.size else None)


def _parse(field, dt):
    if dt is _dt.string:
        return np.array(field.encode(), dtype=object)
    try:
        return dt._np.type(int(field) if dt.is_integer else float(field))
    except ValueError:
        raise InvalidArgumentError(f"Field {field!r} is not a valid {dt.name}.") from None


class CsvDatasetV2(_FileDataset):
    _tf_name = "CsvDatasetV2"

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None,
                 name=None):
        self._defaults = [_default(d) for d in record_defaults]
        self._header, self._delim, self._quote, self._na = bool(header), field_delim, use_quote_delim, na_value
        self._select = None if select_cols is None else [int(i) for i in select_cols]
        super().__init__(filenames, compression_type)
        self._element_spec = tuple(TensorSpec([], dt) for dt, _ in self._defaults)

    def _make_iter(self):
        from .readers import _name
        for e in self._files._make_iter():
            yield from self._rows(_name(e))

    def _rows(self, path):
        from ..formats.tfrecord import open_compressed
        with open_compressed(path, self._kind) as f:
            text = io.TextIOWrapper(f, encoding="utf-8", newline="")
            reader = csv.reader(text, delimiter=self._delim, quoting=csv.QUOTE_MINIMAL if self._quote
                                else csv.QUOTE_NONE)
            for i, row in enumerate(reader):
                if i == 0 and self._header or not row:
                    continue
                if self._select is not None:
                    row = [row[j] if j < len(row) else "" for j in self._select]
                out = []
                for k, (dt, default) in enumerate(self._defaults):
                    field = row[k] if k < len(row) else ""
                    if field == "" or field == self._na:
                        if default is None:
                            raise InvalidArgumentError(f"Field {k} is required but missing in record!")
                        out.append(np.array(default, dtype=object) if dt is _dt.string else dt._np.type(default))
                    else:
                        out.append(_parse(field, dt))
                yield tuple(out)


def _infer(values):
    """int32, then int64, then float32, else string: the narrowest type every non-empty value parses as."""
    vals = [v for v in values if v != ""]
    for dt, conv in ((_dt.int32, int), (_dt.float32, float)):
        try:
            parsed = [conv(v) for v in vals]
        except ValueError:
            continue
        if dt is _dt.int32 and parsed and max(abs(p) for p in parsed) >= 2 ** 31:
            return _dt.int64
        return dt
    return _dt.string


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    pats = [file_pattern] if isinstance(file_pattern, str) else list(file_pattern)
    files = sorted({f for p in pats for f in glob.glob(p)})
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    rows = []
    if column_names is None or column_defaults is None:
        rows = _probe(files[0], compression_type, field_delim, encoding, num_rows_for_inference + 1)
    if column_names is None and not header:
        raise ValueError("Cannot infer column names without a header line.")
    names = list(column_names) if column_names is not None else rows[0]
    data = rows[1:] if header else rows
    if column_defaults is None:
        column_defaults = [_infer([r[i] if i < len(r) else "" for r in data]) for i in range(len(names))]
        column_defaults = [{_dt.int32: np.int32(0), _dt.int64: np.int64(0), _dt.float32: np.float32(0.0)}.get(dt, "")
                           for dt in column_defaults]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}.")
    select = list(range(len(names)))
    if select_columns is not None:
        select = [names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
    ds = CsvDatasetV2(files, [column_defaults[i] for i in select], compression_type=compression_type,
                      header=header, field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                      select_cols=select if select_columns is not None else None)
    keys = [names[i] for i in select]

    def to_features(*cols):
        feats = collections.OrderedDict(zip(keys, cols))
        if label_name is None:
            return feats
        label = feats.pop(label_name)
        return feats, label
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size).map(to_features)
    if ignore_errors:
        ds = ds.ignore_errors()
    return ds.prefetch(prefetch_buffer_size if prefetch_buffer_size is not None else -1)


def _probe(path, compression_type, field_delim, encoding, n):
    """The first n rows of the first file, read to infer column names and types: plain or GZIP files only,
    as TensorFlow probes them (ZLIB files need column_names and column_defaults)."""
    from ..formats.tfrecord import open_compressed
    kind = "" if compression_type is None else compression_type
    kind = kind.decode() if isinstance(kind, bytes) else kind
    if isinstance(kind, Tensor):
        kind = to_numpy_value(kind)
        kind = kind.decode() if isinstance(kind, bytes) else str(kind)
    if kind == "ZLIB":
        raise ValueError(f"compression_type ({compression_type}) is not supported for probing columns")
    if kind not in ("", "GZIP"):
        raise ValueError(f"compression_type ({compression_type}) is not supported")
    with open_compressed(path, kind) as f:
        text = io.TextIOWrapper(f, encoding=encoding, newline="")
        return list(_head(csv.reader(text, delimiter=field_delim), n))


def _head(it, n):
    for i, row in enumerate(it):
        if i >= n:
            return
        yield row
