"""Dataset.snapshot / tf.data.experimental.snapshot: the input's elements written to disk on the first
complete pass, read back by later passes (also by later programs).

As TensorFlow's, a snapshot lives in `path/<fingerprint>/`, where the fingerprint (a decimal uint64) is a hash
of the input pipeline: its datasets' kinds and parameters, the values of its source tensors and the graphs of
its traced functions (and their captured values). A changed pipeline gets another directory, never the
data of the old one; random seeds drawn when a dataset is made (no op or global seed) are not part of it.
A pass writes `<run id>/00000000.shard/00000000.snapshot` (TFRecords of serialized tensors: data only, no
pickle) and, once complete, `snapshot.metadata` (magic, run id and element count, one a line), which marks the
snapshot finished; an unfinished one (a pass stopped early, a crash) is never read, and a shard holding fewer or
more elements than the count (a file cut at an element's end) is DataLossError, never returned as data. These files are rivulet's own, not readable by TensorFlow.
"""
import collections
import functools
import hashlib
import os
import re
import threading
import types
import uuid

import numpy as np

from ..errors import DataLossError
from ..shape import TensorSpec
from . import composites, structure
from .dataset import DatasetV2

_METADATA = "snapshot.metadata"
_MAGIC = b"rivulet.data.snapshot/1\n"
_SKIP = frozenset(["_inputs", "_options_obj", "_graph_handle", "_lock", "_epoch", "_epoch_lock", "_cache",
                   "_cheap", "_batched", "_fn_cache"])


def fingerprint(dataset):
    """A uint64 naming the pipeline that makes `dataset` (see the module docstring)."""
    h = hashlib.sha256()
    _feed(h, dataset, {})
    return int.from_bytes(h.digest()[:8], "little")


def _feed(h, x, seen, depth=0):
    if depth > 64:
        h.update(b"<deep>")
        return
    if isinstance(x, (bool, int, float, complex, str, bytes, type(None), range, slice, np.dtype)):
        h.update(type(x).__name__.encode() + b":" + repr(x).encode() + b";")
        return
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        h.update(b"array:" + str(a.dtype).encode() + repr(a.shape).encode())
        if a.dtype == object:
            for v in a.reshape(-1):
                _feed(h, v, seen, depth + 1)
        else:
            h.update(np.ascontiguousarray(a).tobytes())
        return
    key = id(x)
    if key in seen:  # shared stages (a dataset zipped with itself) hash as a reference
        h.update(b"ref:%d;" % seen[key])
        return
    if isinstance(x, (set, frozenset)):
        x = sorted(x, key=repr)
    elif isinstance(x, collections.deque):
        x = list(x)
    if isinstance(x, (list, tuple)):
        h.update(type(x).__name__.encode() + b"[")
        for v in x:
            _feed(h, v, seen, depth + 1)
        h.update(b"]")
        return
    if isinstance(x, dict):
        h.update(b"dict{")
        for k in sorted(x, key=repr):
            _feed(h, k, seen, depth + 1)
            _feed(h, x[k], seen, depth + 1)
        h.update(b"}")
        return
    seen[key] = len(seen)
    if isinstance(x, DatasetV2):
        h.update(b"dataset:" + type(x).__name__.encode() + repr(x.element_spec).encode())
        state = vars(x)
        for name in sorted(state):
            if name in _SKIP or name == "_seeds" and not getattr(x, "_seeded", True):
                continue
            h.update(name.encode())
            _feed(h, state[name], seen, depth + 1)
        return
    if hasattr(x, "graph") and hasattr(x, "python_function"):  # a traced user function (StructuredFunction)
        h.update(b"function:" + str(x.graph.as_graph_def()).encode())
        _feed(h, list(getattr(x, "_captures", ())), seen, depth + 1)
        return
    if isinstance(x, types.MethodType):  # a bound method: its object's state is part of what it gives
        _feed(h, x.__self__, seen, depth + 1)
        x = x.__func__
    if isinstance(x, types.FunctionType):  # a function run eagerly (from_generator, flat_map, interleave)
        _feed_code(h, x.__code__, seen, depth)
        for cell in x.__closure__ or ():
            try:
                _feed(h, cell.cell_contents, seen, depth + 1)
            except ValueError:  # an empty cell
                pass
        for name in _global_names(x.__code__):  # the globals it reads, as their values are now
            if name in x.__globals__:
                v = x.__globals__[name]
                h.update(b"global:" + name.encode())
                if isinstance(v, types.ModuleType):
                    h.update(v.__name__.encode())
                elif isinstance(v, type):
                    h.update(v.__module__.encode() + v.__qualname__.encode())
                else:
                    _feed(h, v, seen, depth + 1)
        return
    if isinstance(x, functools.partial):
        _feed(h, [x.func, list(x.args), dict(x.keywords)], seen, depth + 1)
        return
    if hasattr(x, "_v"):  # an eager tensor
        _feed(h, x._v, seen, depth + 1)
        return
    if hasattr(x, "as_list") or isinstance(x, TensorSpec) or type(x).__name__.endswith("Spec"):
        h.update(repr(x).encode())
        return
    if isinstance(x, (types.ModuleType, types.BuiltinFunctionType, type)):
        h.update(b"named:" + getattr(x, "__module__", "").__str__().encode() + getattr(x, "__qualname__",
                                                                                        x.__name__).encode())
        return
    h.update(b"object:" + type(x).__module__.encode() + type(x).__qualname__.encode())
    state = getattr(x, "__dict__", None)  # a user's object (a generator class, a callable): its state
    if isinstance(state, dict) and not isinstance(x, _OPAQUE):
        _feed(h, {k: v for k, v in state.items() if isinstance(k, str)}, seen, depth + 1)


_OPAQUE = (threading.Thread,)  # running machinery, no part of what a pipeline gives


def _global_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return sorted(names)


def _feed_code(h, code, seen, depth):
    h.update(b"code:" + code.co_code + repr(code.co_names).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _feed_code(h, c, seen, depth + 1)
        else:
            _feed(h, c, seen, depth + 1)


class SnapshotDataset(DatasetV2):
    _tf_name = "_MapDataset"  # TensorFlow's snapshot ends with a map (its reader), and prints so

    def __init__(self, input_dataset, path, compression="AUTO", reader_func=None, shard_func=None):
        if not isinstance(input_dataset, DatasetV2):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset).__name__}")
        for s in structure.flat_specs(input_dataset.element_spec):
            if not isinstance(s, TensorSpec) and not composites.is_composite_spec(s):
                raise NotImplementedError(f"rivulet's Dataset.snapshot writes elements of tensors; this dataset's "
                                          f"elements hold {s}.")
        if compression not in (None, "AUTO", "GZIP", "SNAPPY", "NONE", ""):
            raise ValueError(f"Invalid `compression`: {compression!r}; use 'AUTO', 'GZIP', 'SNAPPY' or None.")
        super().__init__(input_dataset.element_spec, (input_dataset,))
        self._input = input_dataset
        p = getattr(path, "_v", path)
        p = p.item() if isinstance(p, np.ndarray) else p
        self._path = os.fspath(p.decode() if isinstance(p, bytes) else p)
        self._dir = os.path.join(self._path, str(fingerprint(input_dataset)))

    def _card(self):
        return self._input._card()

    def _make_iter(self):
        if os.path.exists(os.path.join(self._dir, _METADATA)):
            return self._read()
        return self._write()

    def _read(self):
        from ..formats.tfrecord import read_records
        meta = os.path.join(self._dir, _METADATA)
        with open(meta, "rb") as f:
            text = f.read(4096)
        if not text.startswith(_MAGIC):
            raise DataLossError(None, None, f"Snapshot {self._dir}: {_METADATA} is not rivulet's.")
        lines = text[len(_MAGIC):].split(b"\n")
        run = lines[0].decode("ascii", errors="replace")
        if not run.isalnum() or not run.isascii():
            raise DataLossError(None, None, f"Snapshot {self._dir}: bad run id in {_METADATA}.")
        if len(lines) != 3 or lines[2] or not re.fullmatch(rb"[0-9]{1,19}", lines[1]):
            raise DataLossError(None, None, f"Snapshot {self._dir}: no element count in {_METADATA} (written by an "
                                "older rivulet, or damaged): delete the directory to write the snapshot again.")
        count = int(lines[1])
        recs = read_records(os.path.join(self._dir, run, "00000000.shard", "00000000.snapshot"))
        yield from composites.read_elements(
            recs, self.element_spec, count, f"Snapshot {self._dir}",
            f"Snapshot {self._dir}: the shard ends before the {count} elements {_METADATA} counts.",
            f"Snapshot {self._dir}: the shard holds more than the {count} elements {_METADATA} counts.")

    def _write(self):
        from ..formats.tfrecord import TFRecordWriter
        run = uuid.uuid4().hex
        shard = os.path.join(self._dir, run, "00000000.shard")
        os.makedirs(shard, exist_ok=True)
        with TFRecordWriter(os.path.join(shard, "00000000.snapshot")) as w:
            count = 0
            for e in self._input._make_iter():
                for r in composites.serialized_records(e):
                    w.write(r)
                count += 1
                yield e
        tmp = os.path.join(self._dir, f"{_METADATA}.tmp{run}")  # per pass: threads of one process share a pid
        with open(tmp, "wb") as f:
            f.write(_MAGIC + run.encode() + b"\n%d\n" % count)
        if not os.path.exists(os.path.join(self._dir, _METADATA)):
            os.replace(tmp, os.path.join(self._dir, _METADATA))  # the pass is complete: the snapshot is finished
        else:
            os.remove(tmp)


def snapshot(dataset, path, compression="AUTO", reader_func=None, shard_func=None):
    return SnapshotDataset(dataset, path, compression, reader_func, shard_func)
