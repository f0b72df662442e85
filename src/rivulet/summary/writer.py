"""Summary writers and the ops that write through them.

A writer appends TFRecord-framed Event protobufs to `LOGDIR/events.out.tfevents.TIME.HOST.PID.N.v2`, the
file TensorBoard watches. Writes made while a tf.function is traced become a stateful WriteSummary op, so
they happen on every call of the function, in program order, like TensorFlow's.
"""
import atexit
import contextlib
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
from .records import record

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
def _write_kernel(step, value, writer, tag, plugin, content, description):
    writer.write_event(proto.event(time.time(), int(step), [proto.summary_value(tag, value, plugin, content,
                                                                               description)]))
    return ()


WRITE_SUMMARY = defop("WriteSummary", _write_kernel, lambda step, value, **attrs: [], num_outputs=0,
                      stateful=True)


def write(tag, tensor, step=None, metadata=None, name=None):
    """tf.summary.write: `tensor` under `tag`, for no particular TensorBoard plugin."""
    return _write(tag, tensor, step, "")


def _write(tag, tensor, step, plugin, content=b"", description=None):
    """Writes `tensor` under `tag` for TensorBoard's `plugin`; False (a bool tensor) without a default
    writer. Inside a tf.function this adds a WriteSummary op that writes on every call."""
    writer = _defaults.writer
    if writer is None:
        return EagerTensor(np.bool_(False))
    step = convert_to_tensor(_step(step), dtype=_dt.int64)
    value = convert_to_tensor(tensor)
    attrs = {"writer": writer, "tag": tag, "plugin": plugin, "content": content, "description": description}
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
    return _write(_tag(name), cast(convert_to_tensor(data), _dt.float32), step, "scalars", description=description)


def text(name, data, step=None, description=None):
    """tf.summary.text: a string tensor for TensorBoard's text dashboard."""
    return _write(_tag(name), data, step, "text", description=description)


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
_trace = {"on": False, "functions": [], "original": None}
_trace_lock = threading.Lock()


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Records the graph of every tf.function call until trace_export / trace_off."""
    from ..function.concrete import ConcreteFunction
    with _trace_lock:
        if _trace["on"]:
            return
        original = ConcreteFunction._build_output
        recorded = _trace["functions"]

        # Every way of calling a ConcreteFunction (cached fast path included) ends in _build_output.
        # TODO(function owners): replace this temporary wrapper with a call-observer hook in function/.
        def recording(self, flat):
            if not any(cf is self for cf in recorded):
                recorded.append(self)
            return original(self, flat)
        ConcreteFunction._build_output = recording
        _trace.update(on=True, original=original)


def trace_off():
    from ..function.concrete import ConcreteFunction
    with _trace_lock:
        if _trace["on"]:
            ConcreteFunction._build_output = _trace["original"]
        _trace.update(on=False, functions=[], original=None)


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
