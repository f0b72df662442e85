"""Dataset.save / Dataset.load (and tf.data.experimental.save/load): a dataset's elements written to a directory
and read back, in rivulet's own data-only format (TensorFlow's is its snapshot protos; neither reads the other's).

    path/dataset_spec.json          {"format": "rivulet.data.save/1", "element_spec": ..., "cardinality": n,
                                     "compression": "" | "GZIP" | "ZLIB"}
    path/00000000.shard/00000000.snapshot   TFRecords: each element's components as serialized tensors

The spec file is JSON describing the structure (tuples, dicts, namedtuples by name and fields) and its leaves
(TensorSpec, SparseTensorSpec: shape and dtype name); loading checks every field and never executes anything.
The spec file is written last, so an interrupted save leaves no loadable directory.
"""
import collections
import json
import os
import threading
import uuid

from .. import dtypes as _dt
from ..errors import DataLossError, InvalidArgumentError, NotFoundError
from ..shape import TensorShape, TensorSpec
from . import composites, structure
from .dataset import DatasetV2

FORMAT = "rivulet.data.save/1"
SPEC_FILE = "dataset_spec.json"
_DATA = os.path.join("00000000.shard", "00000000.snapshot")
_MAX_SPEC = 1 << 20  # bytes of spec JSON read at most
_MAX_ITEMS = 100_000


# -- element_spec <-> JSON ------------------------------------------------------------------------------------
def encode_spec(spec):
    if isinstance(spec, TensorSpec):
        return {"t": "tensor", "shape": _shape(spec.shape), "dtype": spec.dtype.name}
    kind = composites.kind_of_spec(spec)
    if kind is not None and kind.name == "sparse":
        return {"t": "sparse", "shape": _shape(spec.shape), "dtype": spec.dtype.name}
    if isinstance(spec, dict):
        keys = list(spec)
        if not all(isinstance(k, str) for k in keys):
            raise TypeError(f"Dataset.save: dict keys must be strings, got {keys!r}")
        return {"t": "dict", "keys": keys, "items": [encode_spec(spec[k]) for k in keys]}
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):
        return {"t": "namedtuple", "name": type(spec).__name__, "fields": list(spec._fields),
                "items": [encode_spec(s) for s in spec]}
    if isinstance(spec, tuple):
        return {"t": "tuple", "items": [encode_spec(s) for s in spec]}
    raise NotImplementedError(f"rivulet's Dataset.save writes elements of tensors and SparseTensors; this "
                              f"dataset's elements hold {spec}.")


def _shape(shape):
    return None if shape.rank is None else [d for d in shape.as_list()]


def decode_spec(obj, budget=None):
    budget = budget if budget is not None else [_MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0 or not isinstance(obj, dict):
        raise DataLossError(None, None, "Dataset.load: the element_spec in the spec file is malformed.")
    t = obj.get("t")
    if t in ("tensor", "sparse"):
        dtype = _dtype(obj.get("dtype"))
        shape = _shape_of(obj.get("shape"))
        if t == "tensor":
            return TensorSpec(shape, dtype)
        return composites.SparseKind().make_spec(shape, dtype)
    items = obj.get("items")
    if not isinstance(items, list):
        raise DataLossError(None, None, f"Dataset.load: a {t!r} entry of the spec file has no items.")
    children = [decode_spec(x, budget) for x in items]
    if t == "tuple":
        return tuple(children)
    if t == "dict":
        keys = obj.get("keys")
        if not isinstance(keys, list) or len(keys) != len(children) or not all(isinstance(k, str) for k in keys) \
                or len(set(keys)) != len(keys):
            raise DataLossError(None, None, "Dataset.load: a dict entry of the spec file has bad keys.")
        return dict(zip(keys, children))
    if t == "namedtuple":
        name, fields = obj.get("name"), obj.get("fields")
        if not isinstance(name, str) or not name.isidentifier() or not isinstance(fields, list) or \
                len(fields) != len(children) or not all(isinstance(f, str) and f.isidentifier() and
                                                         not f.startswith("_") for f in fields):
            raise DataLossError(None, None, "Dataset.load: a namedtuple entry of the spec file is malformed.")
        try:
            return collections.namedtuple(name, fields)(*children)
        except ValueError:  # keywords, repeated fields
            raise DataLossError(None, None, "Dataset.load: a namedtuple entry of the spec file is malformed.") \
                from None
    raise DataLossError(None, None, f"Dataset.load: unknown entry {t!r} in the spec file.")


def _dtype(name):
    if not isinstance(name, str):
        raise DataLossError(None, None, f"Dataset.load: bad dtype {name!r} in the spec file.")
    try:
        return _dt.as_dtype(name)
    except (TypeError, ValueError, KeyError):
        raise DataLossError(None, None, f"Dataset.load: unknown dtype {name!r} in the spec file.") from None


def _shape_of(dims):
    if dims is None:
        return TensorShape(None)
    if not isinstance(dims, list) or len(dims) > 254 or not all(
            d is None or (isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 62) for d in dims):
        raise DataLossError(None, None, f"Dataset.load: bad shape {dims!r:.100} in the spec file.")
    return TensorShape(dims)


# -- save / load ----------------------------------------------------------------------------------------------
def save(dataset, path, compression=None):
    from ..formats.tfrecord import TFRecordOptions, TFRecordWriter, compression_kind
    kind = compression_kind(compression)
    spec_json = encode_spec(dataset.element_spec)
    path = os.fspath(path)
    os.makedirs(os.path.join(path, os.path.dirname(_DATA)), exist_ok=True)
    spec_path = os.path.join(path, SPEC_FILE)
    tag = uuid.uuid4().hex  # temporary files of this save (threads of one process share a pid)
    with _dir_lock(path):  # saves into one directory from several threads: one after the other
        if os.path.exists(spec_path):
            os.remove(spec_path)  # a directory being rewritten is not loadable until the new data is complete
        n = 0
        data = os.path.join(path, _DATA)
        try:
            with TFRecordWriter(data + f".tmp{tag}", TFRecordOptions(kind)) as w:
                for e in dataset._make_iter():
                    for r in composites.serialized_records(e):
                        w.write(r)
                    n += 1
        except BaseException:
            if os.path.exists(data + f".tmp{tag}"):
                os.remove(data + f".tmp{tag}")
            raise
        os.replace(data + f".tmp{tag}", data)  # a load still reading the old file keeps it whole
        tmp = spec_path + f".tmp{tag}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "element_spec": spec_json, "cardinality": n, "compression": kind}, f)
        os.replace(tmp, spec_path)


_DIR_LOCKS, _DIR_LOCKS_LOCK = {}, threading.Lock()


def _dir_lock(path):
    key = os.path.realpath(path)
    with _DIR_LOCKS_LOCK:
        return _DIR_LOCKS.setdefault(key, threading.Lock())


class LoadDataset(DatasetV2):
    _tf_name = "_LoadDataset"

    def __init__(self, path, element_spec=None, compression=None):
        path = os.fspath(path)
        spec_path = os.path.join(path, SPEC_FILE)
        if not os.path.isfile(spec_path):
            raise NotFoundError(None, None, f"tf.data snapshot element_spec file not found: {spec_path}.")
        with open(spec_path, "rb") as f:
            raw = f.read(_MAX_SPEC + 1)
        if len(raw) > _MAX_SPEC:
            raise DataLossError(None, None, f"Dataset.load: {spec_path} is larger than {_MAX_SPEC} bytes.")
        try:
            meta = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise DataLossError(None, None, f"Dataset.load: {spec_path} is not rivulet's spec file.") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise DataLossError(None, None, f"Dataset.load: {spec_path} is not a {FORMAT} spec file (TensorFlow's "
                                "saved datasets cannot be loaded).")
        saved = decode_spec(meta.get("element_spec"))
        card = meta.get("cardinality")
        kind = meta.get("compression")
        if not isinstance(card, int) or isinstance(card, bool) or card < 0 or kind not in ("", "GZIP", "ZLIB"):
            raise DataLossError(None, None, f"Dataset.load: bad cardinality or compression in {spec_path}.")
        if element_spec is not None:
            if structure.compatible(saved, element_spec) is None:
                raise InvalidArgumentError(f"Dataset.load: `element_spec` {element_spec} does not match the saved "
                                           f"dataset's {saved}.")
            saved = element_spec
        super().__init__(saved)
        self._file, self._n, self._kind = os.path.join(path, _DATA), card, kind

    def _card(self):
        return self._n

    def _make_iter(self):
        from ..formats.tfrecord import read_records
        return composites.read_elements(
            read_records(self._file, self._kind), self.element_spec, self._n, "Dataset.load",
            f"Dataset.load: {self._file} ends before its {self._n} elements.",
            f"Dataset.load: {self._file} holds more than the {self._n} elements its spec file counts.")


def load(path, element_spec=None, compression=None, reader_func=None):
    return LoadDataset(path, element_spec, compression)
