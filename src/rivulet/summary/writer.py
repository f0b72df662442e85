"""Summary writers and the ops that write through them.

A writer appends TFRecord-framed Event protobufs to `LOGDIR/events.out.tfevents.TIME.HOST.PID.N.v2`, the
file TensorBoard watches. Writes made while a tf.function is traced become a stateful WriteSummary op, so
they happen on every call of the function, in program order, like TensorFlow's.
"""
import atexit
import contextlib
import dataclasses
import itertools
import os
import socket
import threading
import time
import weakref

import numpy as np

from ..core import context
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, convert_to_tensor
from .. import dtypes as _dt
from . import proto
from ..formats.records import record

_counter = itertools.count()
_open = weakref.WeakSet()


class _Defaults(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None


_defaults = _Defaults()


class SummaryWriter:
    """tf.summary.SummaryWriter: made by create_file_writer; `with writer.as_default(): tf.summary.scalar(...)`."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        os.makedirs(logdir, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_counter)}{filename_suffix}")
        self.path = os.path.join(logdir, name)
        self._max_queue, self._flush_s = max_queue, flush_millis / 1000
        self._queue, self._lock, self._closed = [], threading.Lock(), False
        self._file = open(self.path, "wb")
        self._last_flush = time.time()
        _open.add(self)
        self.write_event(proto.event(time.time(), file_version="brain.Event:2", writer="rivulet"))
        self.flush()

    def write_event(self, event_bytes):
        with self._lock:
            if self._closed:
                raise RuntimeError(f"SummaryWriter for {self.path} is closed")
            self._queue.append(record(event_bytes))
            due = len(self._queue) > self._max_queue or time.time() - self._last_flush > self._flush_s
        if due:
            self.flush()

    def flush(self):
        with self._lock:
            if self._closed:
                return
            self._file.write(b"".join(self._queue))
            self._queue.clear()
            self._file.flush()
            self._last_flush = time.time()

    def close(self):
        self.flush()
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()

    @contextlib.contextmanager
    def as_default(self, step=None):
        old = _defaults.writer, _defaults.step
        _defaults.writer = self
        if step is not None:
            _defaults.step = step
        try:
            yield self
        finally:
            self.flush()
            _defaults.writer, _defaults.step = old

    def set_as_default(self, step=None):
        _defaults.writer = self
        if step is not None:
            _defaults.step = step

    def init(self):
        pass

    def __repr__(self):
        return f"<rivulet.summary.SummaryWriter logdir={os.path.dirname(self.path)!r}>"


@atexit.register
def _flush_all():
    for w in list(_open):
        w.flush()


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    return SummaryWriter(logdir, 10 if max_queue is None else max_queue,
                         120000 if flush_millis is None else flush_millis,
                         ".v2" if filename_suffix is None else filename_suffix)


def default_writer():
    return _defaults.writer


# ------------------------------------------------------------------------------------------ steps
def set_step(step):
    """tf.summary.experimental.set_step."""
    _defaults.step = step


def get_step():
    return _defaults.step


def _step(step):
    step = _defaults.step if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    return step


# ------------------------------------------------------------------------------------------ writing
def _write_kernel(step, value, writer, tag, plugin, content, description, encode=None):
    if encode is not None:
        value = encode(value)  # histogram buckets, PNG images: computed from the value when it is written
    writer.write_event(proto.event(time.time(), int(step), [proto.summary_value(tag, value, plugin, content,
                                                                               description)]))
    return ()


WRITE_SUMMARY = defop("WriteSummary", _write_kernel, lambda step, value, **attrs: [], num_outputs=0,
                      stateful=True)


def write(tag, tensor, step=None, metadata=None, name=None):
    """tf.summary.write: `tensor` under `tag`, for no particular TensorBoard plugin."""
    return _write(tag, tensor, step, "")


def _write(tag, tensor, step, plugin, content=b"", description=None, encode=None):
    """Writes `tensor` under `tag` for TensorBoard's `plugin`; False (a bool tensor) without a default
    writer. Inside a tf.function this adds a WriteSummary op that writes on every call."""
    writer = _defaults.writer
    if writer is None:
        return EagerTensor(np.bool_(False))
    step = convert_to_tensor(_step(step), dtype=_dt.int64)
    value = convert_to_tensor(tensor)
    attrs = {"writer": writer, "tag": tag, "plugin": plugin, "content": content, "description": description}
    if encode is not None:
        attrs["encode"] = encode
    if context.current_graph() is None:
        _write_kernel(step._v, value._v, **attrs)
    else:
        bind(WRITE_SUMMARY, (step, value), attrs, name="write_summary")
    return EagerTensor(np.bool_(True))


def _tag(name):
    from ..state.naming import eager_prefix
    return eager_prefix() + name if context.current_graph() is None else name


def scalar(name, data, step=None, description=None):
    """tf.summary.scalar: a float32 scalar for TensorBoard's scalars dashboard."""
    from ..ops.math_ops import cast
    t = convert_to_tensor(data)
    if t.shape.rank not in (0, None):
        raise ValueError(f"tf.summary.scalar '{name}': expected scalar shape, saw shape: {t.shape}.")
    return _write(_tag(name), cast(t, _dt.float32), step, "scalars", description=description)


def text(name, data, step=None, description=None):
    """tf.summary.text: a string tensor for TensorBoard's text dashboard."""
    return _write(_tag(name), data, step, "text", description=description)


@dataclasses.dataclass(frozen=True)  # an op attr: compared and hashed by value
class _Buckets:
    """`bucket_count` equal-width buckets over [min, max] as TensorBoard's histogram plugin stores them:
    float64 rows [left edge, right edge, count]; a single repeated value fills the last bucket."""
    count: int

    def __call__(self, value):
        data = np.asarray(value, dtype=np.float64).reshape(-1)
        k = max(0, self.count)
        if data.size == 0 or k == 0:
            return np.zeros((k, 3), np.float64)
        lo, hi = data.min(), data.max()
        if lo == hi:
            counts = np.zeros(k, np.float64)
            counts[-1] = data.size
            return np.stack([np.full(k, hi), np.full(k, hi), counts], axis=1)
        index = np.minimum(np.floor((data - lo) / ((hi - lo) / k)).astype(np.int64), k - 1)
        counts = np.bincount(index, minlength=k).astype(np.float64)
        edges = np.linspace(lo, hi, k + 1)
        edges[-1] = hi
        return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """tf.summary.histogram: `data` (any shape) bucketed for TensorBoard's histograms dashboard (30 buckets
    unless told)."""
    if buckets is not None and (isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer))):
        raise TypeError(f"`buckets` must be an int, got {buckets!r}")
    value = convert_to_tensor(data)
    if not (value.dtype.is_floating or value.dtype.is_integer or value.dtype is _dt.bool):
        raise TypeError(f"tf.summary.histogram needs numeric data, got dtype {value.dtype.name}")
    return _write(_tag(name), value, step, "histograms", description=description,
                  encode=_Buckets(30 if buckets is None else int(buckets)))


@dataclasses.dataclass(frozen=True)  # an op attr: compared and hashed by value
class _Images:
    """[k, h, w, c] images -> TensorBoard's image summary: [width, height, PNG of each of the first
    `max_outputs` images] as strings."""
    max_outputs: int

    def __call__(self, value):
        a = np.asarray(value)
        if a.dtype.kind == "f":
            a = np.clip(a.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)  # convert_image_dtype, saturating
        elif a.dtype.kind in "iu" and a.dtype != np.uint8:
            a = np.clip(a.astype(np.int64) // ((int(np.iinfo(a.dtype).max) + 1) // 256), 0, 255).astype(np.uint8)
        elif a.dtype == np.bool_:
            a = a.astype(np.uint8) * 255
        dims = [str(a.shape[2]).encode(), str(a.shape[1]).encode()]
        return np.array(dims + [_png(img) for img in a[:self.max_outputs]], dtype=object)


def _png(img):
    """One [h, w, c] uint8 image (c: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) as PNG bytes."""
    import struct
    import zlib
    h, w, c = img.shape
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * c)], axis=1)  # filter 0 per row

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes()))
            + chunk(b"IEND", b""))


def image(name, data, step=None, max_outputs=3, description=None):
    """tf.summary.image: a batch of [k, height, width, channels] images (channels 1, 3 or 4; floats in [0, 1]
    or uint8) for TensorBoard's images dashboard, the first `max_outputs` of them as PNG."""
    value = convert_to_tensor(data)
    shape = value.shape
    if shape.rank is not None and shape.rank != 4:
        raise ValueError(f"tf.summary.image needs a rank-4 tensor [k, height, width, channels], got shape {shape}")
    if shape.rank is not None and shape[-1] is not None and shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"tf.summary.image needs 1, 2, 3 or 4 channels, got shape {shape}")
    if not (value.dtype.is_floating or value.dtype.is_integer or value.dtype is _dt.bool):
        raise TypeError(f"tf.summary.image needs numeric images, got dtype {value.dtype.name}")
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, (int, np.integer)) or max_outputs < 0:
        raise ValueError(f"`max_outputs` must be a non-negative int, got {max_outputs!r}")
    return _write(_tag(name), value, step, "images", description=description, encode=_Images(int(max_outputs)))


def graph(graph_data):
    """tf.summary.graph: writes a tf.Graph or GraphDef for TensorBoard's graph dashboard."""
    if context.current_graph() is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = _defaults.writer
    if writer is None:
        return EagerTensor(np.bool_(False))
    gd = graph_data.as_graph_def() if hasattr(graph_data, "as_graph_def") else graph_data
    writer.write_event(proto.event(time.time(), graph_def=proto.graph_def_message(gd)))
    return EagerTensor(np.bool_(True))


def flush(writer=None, name=None):
    writer = writer or _defaults.writer
    if writer is not None:
        writer.flush()


# ------------------------------------------------------------------------------------------ tracing
_trace = {"on": False, "functions": [], "observer": None}
_trace_lock = threading.Lock()


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Records the graph of every tf.function call until trace_export / trace_off."""
    from ..function.concrete import add_call_observer
    with _trace_lock:
        if _trace["on"]:
            return
        recorded = _trace["functions"]

        def observe(cf):
            if not any(f is cf for f in recorded):
                recorded.append(cf)
        add_call_observer(observe)
        _trace.update(on=True, observer=observe)


def trace_off():
    from ..function.concrete import remove_call_observer
    with _trace_lock:
        if _trace["on"]:
            remove_call_observer(_trace["observer"])
        _trace.update(on=False, functions=[], observer=None)


def trace_export(name, step=None, profiler_outdir=None):
    """Writes the graphs of the functions called since trace_on (TensorBoard's graph dashboard, under
    `name`), then stops tracing."""
    if not _trace["on"]:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    functions = list(_trace["functions"])
    try:
        if _defaults.writer is not None:
            run_metadata = proto.run_metadata([proto.graph_def_message(cf.graph.as_graph_def())
                                               for cf in functions])
            _write(name, np.array(run_metadata, dtype=object), step, "graph_run_metadata_graph", b"1")
    finally:
        trace_off()
