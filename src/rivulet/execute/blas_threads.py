"""BLAS threads that never spin against busy cores: every GEMM of a few hundred thousand to ~2M multiply-adds
runs with OpenBLAS on one thread, wherever it runs (a compiled graph, a loop body, a gradient, an eager op).

OpenBLAS splits every GEMM above ~262k multiply-adds over its threads, whose workers then spin waiting for
the next job. For many small GEMMs (a small MLP's training step, a stack of Dense layers, an RNN cell's
64x64x256 products in a loop body) the hand-offs cost more than they save, and on a busy machine, where a
worker may be descheduled, one call can stall for milliseconds (measured on the 2-core machines with other
jobs running: w5's step 0.7 -> 3.7-18 ms, w1's forward 2.3 -> 41-63 ms, one 64x64x256 product 8.6 ms against
50 us on one thread). Bigger GEMMs and convolutions keep every thread: from about 2M multiply-adds a second
core pays on a quiet machine (measured on the 2-core AMD EPYC machines, OpenBLAS's Haswell kernels:
64x784x128 takes 369 us on one thread, 224 us on two; 20x784x64 69 vs 61 us).

Where the rule is applied:
- a compiled graph (`limit`: tf.function's graphs, the sub-graphs of cond/case/while_loop) runs on one thread
  when its largest GEMM is in that range. The size is decided from the ops' static shapes; where a GEMM has
  unknown dimensions (a batch of None) they take, on each call, the largest size the inputs' unknown
  dimensions have (memoised per size, so a call pays a dict look-up);
- a loop (`Profile.one_thread` on its first iteration's values) and the While gradient's per-iteration
  vector-Jacobian products run wholly on one thread when the body's GEMMs are small;
- an eager GEMM kernel (`matmul`, `sized`: MatMul, BatchMatMul, Conv2D) checks its operands' shapes on every
  call (well under a microsecond) and switches only when that GEMM is in the range and no enclosing region
  already did;
- code with a bigger GEMM (a graph, a loop body's iteration, an eager MatMul) keeps every thread while that
  is faster and moves to one thread while the machine is busy, judged by the times its calls take (`Tuner`).

Like threadpoolctl, this sets OpenBLAS's global thread count through its C API (the library NumPy loaded);
with another BLAS (MKL, Accelerate) nothing changes. The setting is process-global: regions nest and count
under one lock, the first one in saves the thread count and the last one out restores it. Switch:
tf.config.optimizer option `blas_threads_per_graph`.
"""
import os
import threading
from time import perf_counter as _clock

import numpy as np

from . import openblas

_SPLIT_MNK = 1 << 18  # OpenBLAS's own threshold: smaller GEMMs already run on one thread
# Up to this size one thread is about as fast on a quiet machine and far steadier on a busy one. The
# compiled tier (rivulet.jit) gives onnxruntime one intra-op thread below the same size.
PARALLEL_MNK = 1 << 21
_GEMM = ("MatMul", "_FusedMatMul", "BatchMatMulV2", "Conv2D", "_FusedConv2D", "Conv2DBackpropInput",
         "Conv2DBackpropFilter", "Einsum", "_MatrixPowerMatMul")
CONVOLUTIONS = ("Conv2D", "_FusedConv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
_lock = threading.Lock()
_active = [0, None]  # regions running single-threaded now, and the thread count to restore after them
# Predicates op -> whether another library runs that GEMM op, not OpenBLAS (execute/onednn.py registers
# float32 convolutions): such ops do not make a graph's OpenBLAS GEMMs "big".
_offloaded = []


def register_offload(runs_elsewhere):
    _offloaded.append(runs_elsewhere)


def _small(size):
    return _SPLIT_MNK <= size < PARALLEL_MNK


# ------------------------------------------------------------------------------------------ GEMM sizes
def _gemm_terms(op):
    """(product of the known dims, count of unknown dims) over a GEMM op's first two operands and result:
    its size in multiply-adds is sqrt(known * u ** unknown) when each unknown dim is u (exact for a GEMM;
    an unknown rank counts as 1)."""
    known, unknown = 1.0, 0
    for t in (op.inputs[0], op.inputs[-1] if len(op.inputs) < 2 else op.inputs[1], op.outputs[0]):
        if t.shape.rank is None:
            continue
        for d in t.shape.as_list():
            if d is None:
                unknown += 1
            else:
                known *= d
    return known, unknown


def largest_gemm(ops):
    """The largest GEMM/convolution among ops in multiply-adds, estimated as sqrt(|A| |B| |C|) from the
    two operands' and the result's sizes (exact for a GEMM; unknown dims count as 1); 0 when none."""
    return Profile(ops).largest(1)


class Profile:
    """The GEMMs of some ops, sized as a function of what their unknown dimensions turn out to be: on a
    call, the largest size the inputs' unknown dimensions have (`inputs`: the placeholders fed in order)."""
    __slots__ = ("fixed", "terms", "where", "_memo")

    def __init__(self, ops, inputs=()):
        fixed, terms = 0.0, set()
        for op in ops:
            if op.type in _GEMM and op.inputs and not any(runs_elsewhere(op) for runs_elsewhere in _offloaded):
                known, unknown = _gemm_terms(op)
                if unknown:
                    terms.add((known, unknown))
                else:
                    fixed = max(fixed, known)
        self.fixed, self.terms = fixed ** 0.5, tuple(terms)
        self.where = tuple((i, ax) for i, t in enumerate(inputs) if t.shape.rank is not None
                           for ax, d in enumerate(t.shape.as_list()) if d is None)
        self._memo = {}

    @property
    def has_gemm(self):
        return bool(self.fixed or self.terms)

    def largest(self, u=1):
        """The largest GEMM in multiply-adds when every unknown dimension is u."""
        return max([self.fixed] + [(k * float(u) ** e) ** 0.5 for k, e in self.terms])

    def unknown_size(self, values):
        """The largest size an input's unknown dimension has in `values` (1 when none is unknown)."""
        u = 1
        for i, ax in self.where:
            try:
                d = values[i].shape[ax]
                if d > u:
                    u = d
            except (AttributeError, IndexError, TypeError):  # not an array (a variable, a number)
                continue
        return u

    def kind(self, values=()):
        """What these GEMMs, run on `values`, call for: SMALL (all small, some split: one BLAS thread), BIG
        (every thread while that is faster: `Tuner`) or NONE (OpenBLAS would not split any)."""
        u = self.unknown_size(values) if self.terms else 1
        got = self._memo.get(u)
        if got is None:
            size = self.largest(u)
            got = self._memo[u] = NONE if size < _SPLIT_MNK else SMALL if size < PARALLEL_MNK else BIG
        return got

    def one_thread(self, values=()):
        """Whether these GEMMs, run on `values`, should run on one BLAS thread (all small, some split)."""
        return self.kind(values) == SMALL


NONE, SMALL, BIG = 0, 1, 2


# ------------------------------------------------------------------------------------------ regions
def _enter(api):
    with _lock:
        if not _active[0]:
            n = _active[1] = api.get_threads()
            if n != 1:
                api.set_threads(1)
        _active[0] += 1


def _exit(api):
    with _lock:
        _active[0] -= 1
        if not _active[0] and _active[1] != 1:
            api.set_threads(_active[1])


class one_thread:
    """`with one_thread():` runs its block with OpenBLAS on one thread (nothing without OpenBLAS or with
    the option off); the thread count is restored when the last region ends."""
    __slots__ = ("_api",)

    def __enter__(self):
        api = self._api = _api()
        if api is not None:
            _enter(api)
        return self

    def __exit__(self, *exc):
        if self._api is not None:
            _exit(self._api)
        return False


def _openblas():
    """(get, set) of OpenBLAS's global thread count, or None."""
    api = openblas.api()
    return None if api is None else (api.get_threads, api.set_threads)


def _api():
    return openblas.api() if _enabled() else None


def call_on_one_thread(fn, *args, **kwargs):
    """fn(*args, **kwargs) with OpenBLAS on one thread."""
    api = _api()
    if api is None:
        return fn(*args, **kwargs)
    _enter(api)
    try:
        return fn(*args, **kwargs)
    finally:
        _exit(api)


def matmul(a, b):
    """np.matmul(a, b), on one BLAS thread when each of its GEMMs is small but would be split, tuned when
    big (a `Tuner` per power of two of the size): the eager MatMul/BatchMatMul kernels' entry, decided from
    the shapes alone, with no switch inside a region."""
    sa, sb = a.shape, b.shape
    if len(sa) > 1 and len(sb) > 1 and not _active[0]:
        size = sa[-2] * sa[-1] * sb[-1]
        if size >= _SPLIT_MNK:
            if size < PARALLEL_MNK:
                return call_on_one_thread(np.matmul, a, b)
            api = _api()
            if api is not None:
                key = size.bit_length()
                tuner = _eager_tuners.get(key)
                if tuner is None:
                    tuner = _eager_tuners.setdefault(key, Tuner())
                return tuner.run(api, np.matmul, (a, b))
    return np.matmul(a, b)


_eager_tuners = {}


def sized(kernel, gemm_size):
    """`kernel` checking, on each call, gemm_size(*args, **attrs) (its largest GEMM in multiply-adds, from
    the shapes) and running on one BLAS thread when that GEMM is small but would be split."""
    def run(*args, **attrs):
        if not _active[0] and _small(gemm_size(*args, **attrs)):
            return call_on_one_thread(kernel, *args, **attrs)
        return kernel(*args, **attrs)
    run.__wrapped__ = kernel
    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run


# ------------------------------------------------------------------------------------------ big GEMMs
class Tuner:
    """For code with big GEMMs: OpenBLAS's threads on a quiet machine, one thread on a busy one, told apart by
    the times its calls take. Calls run with the current choice (at first every thread, unless other work
    fills the cores: `_busy`) and are timed; now
    and then (after _PROBE_S, doubling up to _PROBE_MAX_S each time the other choice loses; at once when a
    call on every thread takes over _JUMP times the fastest recent one: the machine got busy) one call tries the other
    choice, which is kept when that call beats the mean of the last _KEEP calls (every thread is not tried
    while `_busy`: that try would cost a hundred calls). On a busy machine a split
    GEMM waits for a descheduled worker: w5's step measured 0.9 ms idle, 133 ms with two spinning
    processes on the 2-core machine (TensorFlow's 0.6 -> 1.3 ms)."""
    __slots__ = ("one", "recent", "probe_at", "backoff")

    def __init__(self):
        self.one = False
        self.recent = []  # the last durations with the current choice
        self.probe_at = None  # set by the first call
        self.backoff = _PROBE_S

    def run(self, api, fn, values):
        start = _clock()
        one = self.one
        if self.probe_at is None:  # the first call: on one thread if other work fills the cores now
            self.probe_at = start + _PROBE_S
            one = self.one = _busy()
        probing = start >= self.probe_at
        if probing:
            if one and _busy():  # every thread would stall now: try again later, at no cost
                self.probe_at = start + self.backoff
                probing = False
            else:
                one = not one
        if one:
            _enter(api)
        try:
            return fn(*values)
        finally:
            if one:
                _exit(api)
            self._record(one, _clock() - start, probing, start)

    def _record(self, one, took, probing, now):
        record_call(self, one, took, probing, now)


def record_call(state, one, took, probing, now):
    """One timed call of a threads-or-one choice (`state`: recent, one, backoff, probe_at): a probe of the other
    choice that ran clearly faster switches to it, else the next probe waits twice as long; a call on several
    threads far slower than the recent ones brings a probe forward."""
    recent = state.recent
    if probing:
        if recent and took * 1.1 < sum(recent) / len(recent):  # the other choice is faster now
            state.one, state.backoff = one, _PROBE_S
            recent.clear()
            recent.append(took)
        else:
            state.backoff = min(state.backoff * 2, _PROBE_MAX_S)
        state.probe_at = now + state.backoff
        return
    if not one and recent and took > _JUMP * min(recent):
        state.probe_at = now  # the machine got busy: try one thread next (on one thread a slow call
        # is the process being descheduled, which more threads would not mend)
    recent.append(took)
    if len(recent) > _KEEP:
        del recent[0]


_PROBE_S, _PROBE_MAX_S, _JUMP, _KEEP = 0.25, 16.0, 4.0, 4


def _busy():
    """Whether other runnable threads fill every core this process may use, now (Linux: the runnable count
    in /proc/loadavg, less this thread; about 10 us, read on a Tuner's first call and before it tries every
    thread again). False where that cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as f:
            runnable = int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return runnable - 1 >= _cpus()


def _cpus():
    if not _ncpu:
        try:
            _ncpu.append(len(os.sched_getaffinity(0)) or 1)
        except (AttributeError, OSError):
            _ncpu.append(os.cpu_count() or 1)
    return _ncpu[0]


_ncpu = []


def tuned(fn):
    """fn (big GEMMs), on OpenBLAS's threads or on one thread, whichever its calls run faster (`Tuner`)."""
    api = openblas.api()
    tuner = Tuner()

    def run(*values):
        if _active[0] or api is None or not _enabled():
            return fn(*values)
        return tuner.run(api, fn, values)
    run.__wrapped__ = fn
    run.tuner = tuner
    return run


def _enabled():
    from . import options
    return options.enabled("blas_threads_per_graph")


# ------------------------------------------------------------------------------------------ graphs
def limit(compiled, ops, inputs=None):
    """Makes `compiled.fn` run with one BLAS thread when every GEMM of `ops` is small but some would be
    split, and tunes the threads of one with a big GEMM (`Tuner`). `inputs` (the placeholders compiled.fn
    is fed, in order) lets GEMMs with unknown dimensions be sized on each call from the values' shapes;
    without them unknown dims count as 1."""
    if not _enabled() or openblas.api() is None:
        return
    onednn, ran = getattr(compiled, "onednn", None), getattr(compiled, "ops", None)
    if onednn:  # products the compiled code runs on oneDNN (execute/dense_chain.py), or ops it prunes: no
        ran = {op._id for op in ran} if ran is not None else None  # OpenBLAS threads to set for them
        ops = [op for op in ops if op._id not in onednn and (ran is None or op._id in ran)]
    profile = Profile(ops, inputs or ())
    if not profile.has_gemm:
        return
    if not (profile.terms and profile.where):  # decided once, from the static shapes
        kind = profile.kind()
        if kind == SMALL:
            compiled.fn = single_threaded(compiled.fn)
        elif kind == BIG:
            compiled.fn = tuned(compiled.fn)
        return
    compiled.fn = adaptive(compiled.fn, profile)


def single_threaded(fn):
    """fn on one BLAS thread (while the option is on)."""
    def run(*values):
        return call_on_one_thread(fn, *values)
    run.__wrapped__ = fn
    return run


def adaptive(fn, profile):
    """fn, on one BLAS thread on the calls whose values make its GEMMs small and tuned on those that make
    them big (see Profile, Tuner)."""
    kind = profile.kind
    big = tuned(fn)

    def run(*values):
        if _active[0]:
            return fn(*values)
        k = kind(values)
        if k == SMALL:
            return call_on_one_thread(fn, *values)
        if k == BIG:
            return big(*values)
        return fn(*values)
    run.__wrapped__ = fn
    run.profile = profile
    run.tuner = big.tuner
    return run
