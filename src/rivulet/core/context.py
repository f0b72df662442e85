"""Per-thread execution state: the stack of graphs being built and the active gradient tapes.

`SLOW[0]` counts, across all threads, graphs being built and tapes recording. While it is zero the
tensor operators may take their eager fast path without asking anything else.
"""
import contextvars
import functools
import threading

import numpy as np

SLOW = [0]
_lock = threading.Lock()


class _State(threading.local):
    def __init__(self):
        self.graphs = []  # Graphs being built, innermost last
        self.tapes = []  # GradientTapes recording, innermost last
        self.init_scope = 0  # >0 inside tf.init_scope: ops run eagerly even while tracing
        self.stop_recording = 0
        self.device = None  # the tf.device scope (rivulet.devices._Placement), None outside any
        self.quiet = _quiet_runner()  # quiet(fn, *args): fn run with NumPy's floating-point warnings off


def _quiet_runner():
    """`run` of a private context in which NumPy ignores floating-point errors. TensorFlow computes with
    NaN, inf and 0 silently; NumPy would warn. Entering it costs about 0.05 us, np.errstate about 1 us.
    Only for pure-NumPy functions: the context is entered once at a time (one per thread, not nested)."""
    with np.errstate(all="ignore"):
        return contextvars.copy_context().run


# One shared runner for the operators' eager fast path (a thread-local lookup would cost 0.1 us there). When
# another thread is inside it (NumPy released the GIL), entering raises RuntimeError and the operator takes
# its ordinary op path instead.
shared_quiet = _quiet_runner()


def quiet(fn):
    """Decorates a pure-NumPy kernel so that NaN/inf/0 arithmetic raises no RuntimeWarning."""
    k = functools.partial(run_quiet, fn)
    k.__name__ = k.__qualname__ = getattr(fn, "__name__", "kernel")
    k.__wrapped__ = k.quiet_inner = fn  # compiled graphs, already quiet as a whole, call fn itself
    return k


def unquiet(kernel):
    """The kernel a compiled graph calls: its pure-NumPy body when `quiet` wrapped it."""
    return getattr(kernel, "quiet_inner", kernel)


def run_quiet(fn, *args, **kw):
    """Calls fn (a kernel, a compiled graph) inside this thread's quiet context, or inside the one it is
    already in."""
    try:
        return state.quiet(fn, *args, **kw)
    except RuntimeError as e:  # raised on entry, before fn ran: already inside (a quiet kernel calling another)
        if "already entered" not in str(e):
            raise
        return fn(*args, **kw)


state = _State()
_run_functions_eagerly = [False]


def _bump(delta):
    with _lock:
        SLOW[0] += delta


def push_graph(g):
    state.graphs.append(g)
    _bump(1)


def pop_graph(g):
    top = state.graphs.pop()
    _bump(-1)
    assert top is g, "graph stack corrupted"


def push_tape(t):
    state.tapes.append(t)
    _bump(1)


def pop_tape(t):
    state.tapes.remove(t)
    _bump(-1)


def current_graph():
    """The graph ops go into now, or None when running eagerly."""
    st = state
    if st.graphs and not st.init_scope:
        return st.graphs[-1]
    return None


def executing_eagerly():
    return current_graph() is None


def run_functions_eagerly(run_eagerly):
    _run_functions_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly():
    return _run_functions_eagerly[0]


class init_scope:
    """Lifts code out of any graph being built: ops inside run eagerly (tf.init_scope)."""

    def __enter__(self):
        state.init_scope += 1
        self._tapes = state.tapes
        state.tapes = []
        return None

    def __exit__(self, *exc):
        state.init_scope -= 1
        state.tapes = self._tapes
        return False
