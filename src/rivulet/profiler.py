"""tf.profiler.experimental: start/stop/Trace/Profile with TensorFlow's rules (one profiler at a time), but
recording nothing: TensorBoard's profile plugin reads TensorFlow's XPlane protobufs of device and kernel
activity, which rivulet does not produce. start() says so once (a warning on the `rivulet` logger). For
timings use tf.summary.trace_on/trace_export, or Python's profilers on the compiled graphs."""
import collections
import logging
import threading
import types as _types

from .errors import AlreadyExistsError, UnavailableError

_lock = threading.Lock()
_running = [None]
_warned = [False]

ProfilerOptions = collections.namedtuple("ProfilerOptions", ["host_tracer_level", "python_tracer_level",
                                                             "device_tracer_level", "delay_ms"])
ProfilerOptions.__new__.__defaults__ = (2, 0, 1, None)


def start(logdir, options=None):
    with _lock:
        if _running[0] is not None:
            raise AlreadyExistsError("Another profiler is running.")
        _running[0] = str(logdir)
    if not _warned[0]:
        _warned[0] = True
        logging.getLogger("rivulet").warning(
            "tf.profiler.experimental: rivulet records no profile (TensorBoard's profiler needs TensorFlow's "
            "device traces); nothing will be written to %s.", logdir)


def stop(save=True):
    with _lock:
        if _running[0] is None:
            raise UnavailableError("Cannot export profiling results. No profiler is running.")
        _running[0] = None


class Profile:
    """with tf.profiler.experimental.Profile(logdir): start() ... stop()."""

    def __init__(self, logdir, options=None):
        self._logdir, self._options = logdir, options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()
        return False


class Trace:
    """with tf.profiler.experimental.Trace(name, **metadata): marks a step or region (recorded nowhere)."""

    def __init__(self, name, **kwargs):
        self.name, self.metadata = name, kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def set_metadata(self, **kwargs):
        self.metadata.update(kwargs)


experimental = _types.SimpleNamespace(start=start, stop=stop, Profile=Profile, Trace=Trace,
                                      ProfilerOptions=ProfilerOptions)
