"""The compiled tier behind jit_compile=True: a function's optimised graph run by onnxruntime.

A jit function starts on the NumPy executor (its first calls cost no compile time); once it is hot (called
`warmup_calls` times, or 0.1 s spent in it) its graph is lowered to ONNX (jit/lower.py) and compiled by
onnxruntime in the calling thread, as XLA compiles, and later calls run there. With background=True
(rivulet.jit.configure) a fast function compiles in a thread while the NumPy executor keeps serving its
calls (a slow one still compiles in the caller: there the compile costs a few of its own calls). What cannot be compiled (an op with no ONNX form,
a side effect, onnxruntime not installed) is said once, naming the op and the user's line, and the function
stays on the NumPy executor: results never depend on the tier beyond float rounding. A run that fails
inside onnxruntime (bad data: an index out of range) is run again on the NumPy executor, which raises
TensorFlow's error naming the node and the user's line.
"""
import atexit
import itertools
import operator
import os
import threading
import time
import warnings
import weakref
from time import perf_counter

import numpy as np

from ..core import context
from ..core.tensor import EagerTensor
from ..execute.blas_threads import PARALLEL_MNK, Profile  # one intra-op thread below it: a pool costs more

INSTALL = "pip install 'rivulet[jit]' (onnx and onnxruntime)"
# Warm-up before compiling, and whether to compile in a background thread (see rivulet.jit.configure).
SETTINGS = {"warmup_calls": 2, "background": False, "threads": None}
# Warm-up also ends once the NumPy executor has spent this long on the function; a function whose call
# takes longer than _INLINE_SECONDS is compiled in the calling thread.
_HOT_SECONDS, _INLINE_SECONDS = 0.1, 0.02
# Once compiled, the first _TRIALS onnxruntime calls are timed, the first _SKIPPED not counted (onnxruntime
# grows its memory arena and warms up over its first runs: w5's step took 1.8, 1.1, 0.9, 0.9, 0.8 ms ...
# reaching 0.72 ms after about ten). If the fastest counted one is slower than the NumPy executor's fastest
# warm-up call, the function goes back to NumPy for good (tier 'numpy (faster)'): jit_compile=True never
# makes a function slower than graph mode (one big convolution: rivulet's kernel sums a GEMM per filter
# tap with no im2col copy; onnxruntime's copies). A slow function (a call over _SLOW_SECONDS) is timed
# on fewer calls: each costs much more than the noise, and a losing tier's calls cost the most there (the
# seed guides' Conv2D(100, 3) on 200x200x100, 16 ms on oneDNN, ~30 ms on onnxruntime, was still in its trial
# after ten calls).
_TRIALS, _SKIPPED, _SLOW_TRIALS, _SLOW_SKIPPED = 12, 4, 3, 1
# A fast function's trial, once onnxruntime's _SKIPPED calls are past: blocks of _BLOCK calls on one tier, then
# the other (NumPy first), the first call of each block not counted (the other tier's data has just left the
# caches), until each tier has _COUNTED counted calls. Alternating single calls timed every NumPy call right
# after an onnxruntime one: w5's step (at real-time priority) took 248-307 us on NumPy in the trial against
# 210 steady, onnxruntime 241-258 against 225, and onnxruntime was kept.
_BLOCK, _COUNTED = 3, 8
_SLOW_SECONDS = 0.005
# From this many multiply-adds in its biggest product a step without recurrent layers gets every core (up to 8)
_SPLIT_MNK = 1 << 24
_said = set()
_compiling = weakref.WeakSet()  # background compiles: finished (or given up on) before the interpreter exits


@atexit.register
def _finish_compiles():
    for t in list(_compiling):
        t.join(timeout=10)


class JitFunction:
    """What a jit ConcreteFunction's compiled graph calls: the NumPy executor until the ONNX one is ready.

    `fn(*arguments, *captures)` (the compiled graph's convention) and `call_args(*arguments)` (the cached-call
    path's: no capture values packed, no quiet context entered for onnxruntime) keep one identity for the
    function's life; `impl` (all values) and `args_impl` (arguments only, while onnxruntime serves; else None)
    switch tiers."""

    def __init__(self, numpy_fn, name, lower_args, capture_values=()):
        self.numpy_fn = numpy_fn
        self.name = name
        self.n_args = lower_args[4]
        self.capture_values = caps = tuple(capture_values)
        self._lower_args = lower_args  # (graph, inputs, outputs, captures, n_args), dropped once used
        self._calls = 0
        self._spent = self._last = 0.0  # seconds on the NumPy executor while warming up
        self._best = None  # its fastest warm-up call
        self._lock = threading.Lock()
        # "numpy" (warming up), "compiling", "onnxruntime", "fallback", "numpy (faster)"
        self.tier = "numpy"
        self.session = None
        self.op_types = None
        self._checked = None  # the call that checks the frozen variables, while it is the one in use
        self._gemm = None  # the largest GEMM of the call that made it hot (unknown dims sized by its values)
        self._trying = None  # the call timing onnxruntime against NumPy, while it is the one in use
        self.impl = self._warming
        self.args_impl = None

        def fn(*values):
            return self.impl(*values)
        self.fn = fn
        quiet = context.run_quiet

        def call_args(*args):
            run = self.args_impl
            if run is not None:
                return run(*args)
            return quiet(self.impl, *args, *caps)  # the NumPy executor runs in the quiet context
        self.call_args = call_args

    def _use(self, run):
        """Calls go to `run`, an onnxruntime call taking the arguments only."""
        n = self.n_args
        self.impl = lambda *values: run(*values[:n])
        self.args_impl = run

    def _use_numpy(self, tier):
        self.args_impl = None
        self.impl = self.numpy_fn
        self.tier = tier

    # -- tiering -------------------------------------------------------------------------------------------
    def _warming(self, *values):
        self._calls += 1
        if self._calls > SETTINGS["warmup_calls"] or self._spent > _HOT_SECONDS:
            # Hot. A slow function compiles in the caller (its compile costs a few of its own calls);
            # a fast one in the background while the NumPy executor keeps serving.
            self._size_gemms(values)
            self.compile_now(background=SETTINGS["background"] and self._last < _INLINE_SECONDS)
            if self.impl is not self._warming:
                return self.impl(*values)
        t0 = perf_counter()
        result = self.numpy_fn(*values)
        self._last = perf_counter() - t0
        self._spent += self._last
        self._best = self._last if self._best is None else min(self._best, self._last)
        return result

    def _size_gemms(self, values):
        """Sizes the GEMMs from the hot call's values (a batch unknown when traced counts as what it is):
        the size decides onnxruntime's intra-op threads, as the NumPy executor's BLAS threads."""
        args = self._lower_args
        if args is not None and self._gemm is None:
            try:
                p = Profile(args[0].get_operations(), args[1])
                self._gemm = p.largest(p.unknown_size(values))
            except Exception:  # noqa: BLE001  (sizing is advice: the static estimate stands)
                self._gemm = None

    def compile_now(self, background=False):
        """Lowers and compiles the graph (once); the NumPy executor serves calls until it is ready."""
        with self._lock:
            if self.tier != "numpy":
                return
            self.tier = "compiling"
            self.impl = self.numpy_fn
        if background:
            t = threading.Thread(target=self._compile, name=f"rivulet-jit {self.name}", daemon=True)
            _compiling.add(t)
            t.start()
        else:
            self._compile()

    def _compile(self):
        try:
            run = self._build()
        except Exception as e:  # noqa: BLE001  (a compiler failure must never break the user's function)
            _say(f"jit_compile=True: '{self.name}' runs on the NumPy executor: onnxruntime could not compile "
                 f"it ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})")
            run = None
        if run is None:
            self._lower_args = None
            self._use_numpy("fallback")
        else:
            self.tier = "onnxruntime"
            self._use(run if self._best is None else self._trial(run))

    def _trial(self, run):
        """`run`, timed on its first calls against the NumPy executor (see _TRIALS). Once onnxruntime has warmed
        up, the calls alternate between the two tiers, so that both are timed under the same load: a warm-up
        call timed while the machine was busier (or while oneDNN built its primitives) is no yardstick."""
        times, np_times = [], []
        slow = self._best >= _SLOW_SECONDS
        caps, quiet, numpy_fn = self.capture_values, context.run_quiet, self.numpy_fn
        if not slow:
            return self._block_trial(run, times, np_times)
        trials, skipped = _SLOW_TRIALS, _SLOW_SKIPPED

        def trial(*args):
            if len(times) > skipped and len(np_times) < len(times) - skipped:
                t0 = perf_counter()
                result = quiet(numpy_fn, *args, *caps)
                np_times.append(perf_counter() - t0)
                return result
            t0 = perf_counter()
            result = run(*args)
            times.append(perf_counter() - t0)
            if len(times) >= trials:
                with self._lock:
                    if self.args_impl is trial:  # (a thaw may have replaced it meanwhile)
                        if min(times[skipped:]) > min(np_times, default=self._best):
                            self._use_numpy("numpy (faster)")
                        else:
                            self._use(run)
            return result
        self._trying = trial
        return trial

    def _block_trial(self, run, times, np_times):
        """A fast function's trial (see _BLOCK): onnxruntime's first _SKIPPED calls, then blocks of each tier."""
        caps, quiet, numpy_fn = self.capture_values, context.run_quiet, self.numpy_fn
        calls = [0]

        def trial(*args):
            k = calls[0] - _SKIPPED
            calls[0] += 1
            if k < 0:
                return run(*args)
            block, first = divmod(k, _BLOCK)
            on_numpy = not block % 2
            t0 = perf_counter()
            result = quiet(numpy_fn, *args, *caps) if on_numpy else run(*args)
            if first:
                (np_times if on_numpy else times).append(perf_counter() - t0)
            if not on_numpy and first == _BLOCK - 1 and len(times) >= _COUNTED:
                with self._lock:
                    if self.args_impl is trial:  # (a thaw may have replaced it meanwhile)
                        if min(times) > min(np_times):
                            self._use_numpy("numpy (faster)")
                        else:
                            self._use(run)
            return result
        self._trying = trial
        return trial

    def _thaw(self, *args):
        """A frozen variable changed (the weights are being trained elsewhere): from now on every variable
        is an input of the compiled step (compiled again, once)."""
        with self._lock:
            if self.args_impl is self._checked or self.args_impl is self._trying:
                run = self._build(freeze=False)
                if run is None:
                    self._use_numpy("fallback")
                else:
                    self._use(run)
                self._lower_args = None
        return self.call_args(*args)

    def _build(self, freeze=True):
        try:
            import onnxruntime as ort
            from .lower import lower
        except ImportError:
            _say(f"jit_compile=True needs onnxruntime: {INSTALL}. Until then jit functions run on the NumPy "
                 f"executor (same results).")
            return None
        low, report = lower(*self._lower_args, freeze=freeze)
        if low is None and report is None:
            return None
        if low is None:
            p = report.problems[0]
            more = f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
            _say(f"jit_compile=True: '{self.name}' runs on the NumPy executor: {p}{more}")
            return None
        self.session = _session(ort, low, self._gemm)
        self.op_types = {n.op_type for n in low.model.graph.node}  # what onnxruntime was given (tests)
        # a step run in chunks also gets a two-thread session for whole batches on a busy machine (_runner)
        self.whole_session = _session(ort, low, threads=min(2, os.cpu_count() or 1)) if _in_chunks(low) else None
        run = _runner(self.session, low, self.numpy_fn, self.name, ort, self.n_args, self.capture_values,
                      self.whole_session)
        if not low.frozen:
            self._lower_args = None
            return run
        holders = tuple(v for v, _ in low.frozen)
        arrays = tuple(a for _, a in low.frozen)
        current = operator.attrgetter("_value")
        same = operator.is_
        thaw = self._thaw

        def checked(*args):
            if all(map(same, map(current, holders), arrays)):  # the frozen arrays are still the variables'
                return run(*args)
            return thaw(*args)
        self._checked = checked
        return checked


def _in_chunks(low):
    """Whether the step runs a big batch in chunks on two threads (see _runner): a row-wise recurrent step
    (jit/rows.py) with the threads left to rivulet on a machine with two cores or more."""
    return low.rows is not None and SETTINGS["threads"] is None and (os.cpu_count() or 1) >= 2


def _session(ort, low, gemm=None, threads=None):
    """threads: onnxruntime's intra-op threads (default: SETTINGS', else chosen here)."""
    so = ort.SessionOptions()
    threads = threads or SETTINGS["threads"]
    if threads is None and _in_chunks(low):
        threads = 1  # each chunk on one thread: the parallelism is the chunks'
    elif threads is None:
        heavy = max(low.heavy_flops, gemm or 0.0)
        threads = 1 if heavy < PARALLEL_MNK else max(1, min(os.cpu_count() or 1, 8))
        if threads > 1 and not low.fused_rnns and heavy < _SPLIT_MNK:
            # a mid-size product: the pool's sleeping workers wake too late for two threads to pay (w5's step,
            # 64x784x128 its biggest, at real-time priority: 187 us on one thread, 263 on two, 187 with
            # spinning workers, which a shared machine cannot afford)
            threads = 1
        if "GRU" in low.fused_rnns:
            # onnxruntime's GRU kernel on two threads took twice the CPU time of one and ran slower on a busy
            # 2-core machine at batch 64 and 1024 alike (2.3 -> 12.6 ms, 65 -> 123 ms); its LSTM scales
            threads = 1
        if "Scan" in low.fused_rnns:
            # an LSTM/GRU Scan (onnx/ops_rnn.py; a row-wise one runs big batches in chunks instead: _in_chunks)
            # of batch 1024: two threads cost ~6% more CPU than one, yet on a loaded machine the step got twice
            # the CPU share of a one-thread process (LSTM predict under two busy processes: 288 ms on one
            # thread, ~180 on two); its per-step GEMMs are too small for more
            threads = min(threads, 2)
    so.intra_op_num_threads = threads
    if threads > 1:  # the pool serves a few big GEMMs/convs: idle workers sleep instead of spinning
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(low.model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def _runner(sess, low, numpy_fn, name, ort, n_args, caps, whole=None):
    """The call, on the arguments alone: arrays in (the arguments, then the current values of the variables
    not frozen, held here), outputs wrapped, variables set. (Binding the variables' new values to buffers of
    ours with io_binding measured slower here: the per-call binding costs more than copying the outputs out
    of onnxruntime; passing RunOptions, or OrtValues through run_with_ort_values, measured no faster on w1 either:
134.5 against 137.3 us of CPU.) A row-wise recurrent step (_in_chunks) runs big batches in chunks, or whole
on the two-thread session `whole` while the machine is busy."""
    run = sess._sess.run  # the binding itself: sess.run re-validates its arguments on every call
    out_names = list(low.output_names)
    in_names = low.input_names
    arg_plan = tuple(zip(in_names, low.arg_index))
    var_plan = tuple((n, caps[pos - n_args]) for n, pos in zip(in_names[len(low.arg_index):], low.var_index))
    n_out, updated = low.n_outputs, tuple(low.updated)
    errors = _ort_errors(ort)
    ndarray, asarray, wrap = np.ndarray, np.asarray, EagerTensor
    quiet = context.run_quiet
    said = []

    def feed(args):
        feeds = {}
        for n, i in arg_plan:
            v = args[i]
            feeds[n] = v if v.__class__ is ndarray else asarray(v)
        for n, var in var_plan:
            v = var._value
            feeds[n] = v if v.__class__ is ndarray else asarray(v)
        return feeds

    def calling(run):
        def call(*args):
            return done(run, args)
        return call

    def done(run, args):
        try:
            outs = run(out_names, feed(args), None)
        except errors as e:
            # The NumPy executor runs it again: it raises TensorFlow's error naming the user's line (or, if
            # onnxruntime refused something NumPy accepts, computes the result: then say so, once).
            result = quiet(numpy_fn, *args, *caps)
            if not said:
                said.append(1)
                _say(f"jit_compile=True: '{name}': onnxruntime failed ({str(e).splitlines()[0]}); this call ran on "
                     f"the NumPy executor")
            return result
        if updated:
            for var, new in zip(updated, outs[n_out:]):
                var._value = new
        return tuple([wrap(o) for o in outs[:n_out]])
    call = calling(run)
    if whole is None:
        return call
    rows, concat, pool, event = tuple(low.rows), np.concatenate, _worker(), threading.Event
    whole_call = calling(whole._sess.run)
    busy = [0]  # calls left to run whole on the two-thread session
    cpu, thread_cpu, clock = time.process_time, time.thread_time, perf_counter

    def chunked(*args):
        # A big batch of a row-wise recurrent step, in chunks of rows that the caller and the worker thread take
        # in turn until none is left (onnxruntime releases the GIL while it runs): one hand-over per call, where
        # onnxruntime's own two threads share out every node of every step of the recurrence (LSTM(64) at
        # batch 1024: 80 steps of 13 nodes of ~25 us, each a wake-up of a sleeping worker and a join). Taken in
        # turn: a worker that a loaded machine does not run soon costs nothing but the chunk it took.
        arrays = [a if a.__class__ is ndarray else asarray(a) for a in args]
        n = arrays[0].shape[0] if arrays[0].ndim else 0
        k = max(2, min(_CHUNKS, n // _CHUNK_ROWS))
        if n < _SPLIT_ROWS or any(not a.ndim or a.shape[0] != n for a in arrays):
            return call(*args)
        if busy[0]:
            # The machine is busy: the batch whole on onnxruntime's two threads, whose many short waits
            # for work get them more of the cores from the scheduler (GRU(64) at batch 1024 beside two
            # busy processes: 94 ms, against 180 in chunks, 280 on one thread). Chunks again once this
            # process has a core's worth to itself, or after _BUSY_CALLS calls.
            busy[0] -= 1
            c0, t0 = cpu(), clock()
            result = whole_call(*args)
            if cpu() - c0 >= _ALONE * (clock() - t0):
                busy[0] = 0
            return result
        bounds = [n * i // k for i in range(k + 1)]
        results, done, claim = [None] * k, [event() for _ in range(k)], itertools.count().__next__

        def work():
            while True:
                i = claim()  # (count's next is atomic)
                if i >= k:
                    return
                try:
                    results[i] = run(out_names, feed([a[bounds[i]:bounds[i + 1]] for a in arrays]), None)
                except Exception as e:  # noqa: BLE001  (the whole call runs again: below)
                    results[i] = e
                done[i].set()
        pool.submit(work)
        t0, c0 = clock(), thread_cpu()
        work()
        if thread_cpu() - c0 < _ALONE * (clock() - t0):  # this thread was kept waiting for a core
            busy[0] = _BUSY_CALLS
        for i in range(k):
            if results[i] is None:  # the worker's, still running
                done[i].wait()
        if any(isinstance(r, Exception) for r in results):
            return call(*args)  # whole, and onto the NumPy executor's error (or result) as ever
        return tuple([wrap(concat([r[j] for r in results]) if rows[j] else results[0][j]) for j in range(n_out)])
    return chunked


# A row-wise recurrent step's batch of _SPLIT_ROWS rows or more runs in chunks (tier._runner): two, up to _CHUNKS
# of _CHUNK_ROWS at least. LSTM(64) (80 steps) at real-time priority on 2 cores, ms per call on one thread /
# in 2 chunks / in 4: 64 rows 2.5 / 2.0 / 2.8, 128 rows 4.1 / 2.7 / 3.5, 256 rows 7.3 / 4.1 / 4.9, 512 rows
# 13.0 / 6.9 / 7.4, 1024 rows 24.6 / 12.9 / 12.7 (CPU 24.6 / 25.6 / 25.3: 256 rows a run cost no more).
_SPLIT_ROWS, _CHUNK_ROWS, _CHUNKS = 128, 256, 4
# A chunked call whose thread got less than _ALONE of a core while running its chunks finds the machine busy:
# the next _BUSY_CALLS big batches run whole on two onnxruntime threads (until one gets _ALONE of a core).
_ALONE, _BUSY_CALLS = 0.8, 16
_pool = []


def _worker():
    """The one thread that takes chunks beside the caller (idle: asleep on its queue)."""
    if not _pool:
        from concurrent.futures import ThreadPoolExecutor
        _pool.append(ThreadPoolExecutor(1, thread_name_prefix="rivulet-jit-rows"))
    return _pool[0]


def _ort_errors(ort):
    from onnxruntime.capi import onnxruntime_pybind11_state as st
    names = ("Fail", "InvalidArgument", "RuntimeException", "InvalidGraph", "NotImplemented", "EPFail")
    return tuple(getattr(st, n) for n in names if hasattr(st, n)) + (RuntimeError,)


def _say(msg):
    if msg not in _said:
        _said.add(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=2)
