"""Intel's oneDNN (the library TensorFlow's CPU convolutions run on), called through its C API with ctypes:
float32 Conv2D forward, its input gradient (also Conv2DTranspose) and its filter gradient, depthwise
convolutions, and max/average pooling with their gradients, on NHWC arrays with no layout copy.

The optional extra `onednn` installs the library (the `onednn-cpu-gomp` wheel: libdnnl.so.3, oneDNN v3 with
GNU OpenMP threads; it ships no Python bindings). `api()` is None when it is not installed or does not load
(then every kernel runs on NumPy as before), and in a child process after a fork (GNU OpenMP's threads do not
survive one): nothing here ever raises to a caller for a missing library.

Every call checks its arrays before any pointer reaches C: float32, C-contiguous, exactly the shapes the
primitive was built for (the byte size oneDNN reports for each plain operand must equal the array's); the
outputs are arrays allocated here. Anything else raises ValueError, and the callers (ops/nn_ops.py,
ops/conv_ops.py) check the same before calling. Primitives are built once per shape and attribute set and
cached (the `_CACHE_MAX` most recently used). Weights are reordered into the
blocked layout the primitive asks for on each call (they change every training step). Each call runs on a
stream of the calling Python thread, with its scratchpad in a buffer of that thread.

Threads follow execute/blas_threads.py's rules: inside a one-thread region (small GEMMs, loop bodies), or
while other runnable threads fill the cores (`blas_threads._busy`), a primitive runs on one OpenMP thread;
otherwise on every core (or tf.config.threading's intra-op thread count where set), kept only while its
calls run faster that way (a `_Threads` per problem, the same probing as blas_threads.Tuner). oneDNN fixes
a primitive's thread count when its descriptor is made (OpenMP's count at that moment; omp_set_num_threads
before a call does not change it), so each thread count has its own primitive, made under that count. OpenMP's
idle threads sleep (OMP_WAIT_POLICY=PASSIVE unless the user set it) instead of spinning against other work. On
a busy machine a primitive of 200k+ multiply-adds runs on a helper thread of the caller, which waits (`_execute`:
the scheduler serves a thread that wakes from a wait ahead of one that never sleeps).
"""
import contextlib
import ctypes
import math
import os
import queue
import sys
import threading
import weakref
from pathlib import Path
from time import perf_counter as _clock

import numpy as np

from .. import config_devices
from . import blas_threads

_F32 = 3  # dnnl_f32
_ANY = 1  # dnnl_format_tag_any
_FORWARD_TRAINING, _FORWARD_INFERENCE, _BACKWARD = 64, 96, 128
_CONV_DIRECT = 0x1
_ELTWISE_RELU = 0x20
_POOL_MAX, _POOL_AVG_INCLUDE, _POOL_AVG_EXCLUDE = 0x1FF, 0x2FF, 0x3FF
_SCRATCHPAD_USER = 1
# dnnl_query_t: the memory descriptors of a primitive descriptor
_Q_SRC, _Q_DIFF_SRC, _Q_WEIGHTS, _Q_DIFF_WEIGHTS, _Q_DST, _Q_DIFF_DST, _Q_WORKSPACE, _Q_SCRATCHPAD = range(129, 137)
_Q_EXEC_ARG = 255  # the memory descriptor of an execution argument (its DNNL_ARG_* as the index)
# DNNL_ARG_*
SRC, DST, WEIGHTS, BIAS, WORKSPACE, SCRATCHPAD = 1, 17, 33, 41, 64, 80
ATTR_SCALES = 4096  # DNNL_ARG_ATTR_SCALES, or-ed with the argument scaled
POST_OP_SRC1 = 32768 | 2  # DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1: the first post-op's operand
_U8, _BINARY_MUL = 6, 0x1FFF1  # dnnl_u8, dnnl_binary_mul
DIFF_SRC, DIFF_DST, DIFF_WEIGHTS = 129, 145, 161
_FROM, _TO = 1, 17
_NONE = ctypes.c_void_p(0)
_CACHE_MAX = 512

_P = ctypes.c_void_p
_Dims = ctypes.c_int64 * 12


class _Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", _P)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int),
                ("hash", ctypes.c_char_p), ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]


_RUNTIME_SEQ, _RUNTIME_OMP = 1, 2


# ------------------------------------------------------------------------------------------ loading
_found = []  # [Api] once loaded; [None] when there is no usable oneDNN
_lock = threading.Lock()


def api():
    """The loaded library (an `Api`), or None: not installed, not loadable, not oneDNN 3 with CPU threads of
    its own (OpenMP or sequential), or switched off with RIVULET_ONEDNN=0."""
    if not _found:
        with _lock:
            if not _found:
                _found.append(_load())
    return _found[0]


def available():
    return api() is not None


def _runs_here(op):
    """Whether a graph's convolution runs on oneDNN (float32, the library loaded: ops/nn_ops.py's rule), not on
    OpenBLAS: its size then does not make the graph's OpenBLAS GEMMs big (blas_threads.Profile). A convnet's
    small Dense GEMMs kept OpenBLAS's two spinning workers beside oneDNN's two threads on two cores (epoch
    760 -> 520 ms)."""
    return op.type in blas_threads.CONVOLUTIONS and op.outputs[0].dtype.name == "float32" and api() is not None


blas_threads.register_offload(_runs_here)


def _forked():
    """In a child process after fork: oneDNN stays unused (the kernels run on NumPy). GNU OpenMP's thread pool
    does not survive a fork: a child's first primitive hangs there, even on one thread, once the parent has
    run one."""
    _found[:] = [None]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def _candidates():
    """Where libdnnl.so.3 may be: RIVULET_ONEDNN_LIB, the `onednn-cpu-gomp` distribution's files, this
    environment's lib/."""
    env = os.environ.get("RIVULET_ONEDNN_LIB")
    if env:
        yield Path(env)
        return
    try:
        from importlib import metadata
        dist = metadata.distribution("onednn-cpu-gomp")
        for f in dist.files or ():
            if f.name == "libdnnl.so.3":
                yield Path(dist.locate_file(f))
    except Exception:  # noqa: BLE001 - not installed, or metadata unreadable: look in lib/
        pass
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        yield Path(prefix) / "lib" / "libdnnl.so.3"


def _load():
    if os.environ.get("RIVULET_ONEDNN", "1") == "0" or not sys.platform.startswith("linux"):
        return None
    for path in _candidates():
        if not path.is_file():
            continue
        # OpenMP's idle threads sleep rather than spin against other work (read when libgomp starts; a user's
        # own setting wins)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            return Api(ctypes.CDLL(str(path)))
        except (OSError, AttributeError, RuntimeError):
            continue
    return None


def _omp_setter(lib):
    """omp_set_num_threads of the OpenMP runtime libdnnl loaded (looked up through libdnnl's own handle, which
    searches its dependencies: the very libgomp it calls), or None."""
    try:
        fn = lib.omp_set_num_threads
    except AttributeError:
        return None
    fn.argtypes, fn.restype = [ctypes.c_int], None
    return fn


class Error(RuntimeError):
    """A oneDNN call that returned an error status (an unsupported problem: callers run NumPy instead)."""


class Api:
    """The C functions, with their argument types, the CPU engine, and the primitive cache."""

    def __init__(self, lib):
        self.lib = d = lib
        d.dnnl_version.restype = ctypes.POINTER(_Version)
        v = d.dnnl_version().contents
        if v.major != 3 or v.cpu_runtime not in (_RUNTIME_SEQ, _RUNTIME_OMP):
            raise RuntimeError(f"oneDNN {v.major}.{v.minor} with CPU runtime {v.cpu_runtime} is not supported")
        self.version = (v.major, v.minor, v.patch)
        st, i, p, pp, dims = ctypes.c_int, ctypes.c_int, _P, ctypes.POINTER(_P), _Dims
        sig = {
            "dnnl_engine_create": ([pp, i, ctypes.c_size_t], st),
            "dnnl_stream_create": ([pp, p, ctypes.c_uint], st),
            "dnnl_stream_wait": ([p], st),
            "dnnl_memory_desc_create_with_strides": ([pp, i, dims, i, dims], st),
            "dnnl_memory_desc_create_with_tag": ([pp, i, dims, i, i], st),
            "dnnl_memory_desc_destroy": ([p], st),
            "dnnl_memory_desc_equal": ([p, p], i),
            "dnnl_memory_desc_get_size": ([p], ctypes.c_size_t),
            "dnnl_memory_create": ([pp, p, p, p], st),
            "dnnl_memory_destroy": ([p], st),
            "dnnl_memory_set_data_handle": ([p, p], st),
            "dnnl_primitive_attr_create": ([pp], st),
            "dnnl_primitive_attr_set_scratchpad_mode": ([p, i], st),
            "dnnl_primitive_attr_destroy": ([p], st),
            "dnnl_primitive_attr_set_post_ops": ([p, p], st),
            "dnnl_post_ops_create": ([pp], st),
            "dnnl_post_ops_append_eltwise": ([p, i, ctypes.c_float, ctypes.c_float], st),
            "dnnl_post_ops_append_sum": ([p, ctypes.c_float, ctypes.c_int32, i], st),
            "dnnl_post_ops_append_binary": ([p, i, p], st),
            "dnnl_primitive_attr_set_scales_mask": ([p, i, i], st),
            "dnnl_post_ops_destroy": ([p], st),
            "dnnl_primitive_desc_query_md": ([p, i, i], p),
            "dnnl_primitive_desc_destroy": ([p], st),
            "dnnl_primitive_create": ([pp, p], st),
            "dnnl_primitive_destroy": ([p], st),
            "dnnl_primitive_execute": ([p, p, i, p], st),
            "dnnl_reorder_primitive_desc_create": ([pp, p, p, p, p, p], st),
            "dnnl_convolution_forward_primitive_desc_create":
                ([pp, p, i, i, p, p, p, p, dims, dims, dims, dims, p], st),
            "dnnl_convolution_backward_data_primitive_desc_create":
                ([pp, p, i, p, p, p, dims, dims, dims, dims, p, p], st),
            "dnnl_convolution_backward_weights_primitive_desc_create":
                ([pp, p, i, p, p, p, p, dims, dims, dims, dims, p, p], st),
            "dnnl_pooling_forward_primitive_desc_create":
                ([pp, p, i, i, p, p, dims, dims, dims, dims, dims, p], st),
            "dnnl_pooling_backward_primitive_desc_create":
                ([pp, p, i, p, p, dims, dims, dims, dims, dims, p, p], st),
            "dnnl_eltwise_forward_primitive_desc_create":
                ([pp, p, i, i, p, p, ctypes.c_float, ctypes.c_float, p], st),
            "dnnl_eltwise_backward_primitive_desc_create":
                ([pp, p, i, p, p, p, ctypes.c_float, ctypes.c_float, p, p], st),
        }
        for name, (args, res) in sig.items():
            fn = getattr(d, name)
            fn.argtypes, fn.restype = args, res
        self.engine = _P()
        self.check(d.dnnl_engine_create(ctypes.byref(self.engine), 1, 0), "dnnl_engine_create")  # dnnl_cpu, 0
        self.attr = self.make_attr()
        self.relu_attr = self.make_attr(relu=True)
        self.set_threads = _omp_setter(d) if v.cpu_runtime == _RUNTIME_OMP else None
        self.cache = {}
        self.refused = set()  # keys oneDNN could not build a primitive for
        self.cache_lock = threading.Lock()
        self.local = threading.local()
        self.choices = {}  # problem key -> its _Threads (one choice for the primitives of each thread count)

    def make_attr(self, relu=False):
        """Primitive attributes: the scratchpad is ours; relu=True adds a ReLU post-op."""
        d, attr = self.lib, _P()
        self.check(d.dnnl_primitive_attr_create(ctypes.byref(attr)), "dnnl_primitive_attr_create")
        self.check(d.dnnl_primitive_attr_set_scratchpad_mode(attr, _SCRATCHPAD_USER), "scratchpad mode")
        if relu:
            ops = _P()
            self.check(d.dnnl_post_ops_create(ctypes.byref(ops)), "dnnl_post_ops_create")
            try:
                self.check(d.dnnl_post_ops_append_eltwise(ops, _ELTWISE_RELU, 0.0, 0.0), "ReLU post-op")
                self.check(d.dnnl_primitive_attr_set_post_ops(attr, ops), "post-ops")
            finally:
                d.dnnl_post_ops_destroy(ops)
        return attr

    def update_attr(self):
        """Attributes of a matmul that updates its destination in place, dst += scale * (src @ weights): the
        product times a runtime weights scale (one float32, passed as ATTR_SCALES | WEIGHTS), then a sum post-op
        adding the destination's old value. Each output element is fl(old + fl(scale * acc)): the IEEE
        operations of `old - c * product` for scale = -c, signed zeros included (optimize/fusion.py's
        _MatMulAssignSub; an eltwise `linear` post-op would compute fl(scale * acc + 0), losing a -0)."""
        d, attr = self.lib, self.make_attr()
        ops = _P()
        try:
            self.check(d.dnnl_primitive_attr_set_scales_mask(attr, WEIGHTS, 0), "weights scale")
            self.check(d.dnnl_post_ops_create(ctypes.byref(ops)), "dnnl_post_ops_create")
            try:
                self.check(d.dnnl_post_ops_append_sum(ops, 1.0, 0, 0), "sum post-op")  # (dnnl_data_type_undef)
                self.check(d.dnnl_primitive_attr_set_post_ops(attr, ops), "post-ops")
            finally:
                d.dnnl_post_ops_destroy(ops)
        except Error:
            d.dnnl_primitive_attr_destroy(attr)
            raise
        return attr

    def mask_attr(self, m, n):
        """(attributes, the mask's memory descriptor) of a matmul whose [m, n] product is multiplied by a mask of
        0/1 bytes (a bool array's), a binary post-op read as POST_OP_SRC1: each element fl(acc * mask), the IEEE
        operation of ReluGrad's dy * (x > 0) (NaN and infinite products times 0 stay NaN; a masked negative
        product is -0). The caller destroys neither (a few shapes, kept for the process)."""
        d, attr = self.lib, self.make_attr()
        md, ops = _P(), _P()
        try:
            self.check(d.dnnl_memory_desc_create_with_strides(ctypes.byref(md), 2, _Dims(m, n), _U8, _Dims(n, 1)),
                       "mask descriptor")
            self.check(d.dnnl_post_ops_create(ctypes.byref(ops)), "dnnl_post_ops_create")
            try:
                self.check(d.dnnl_post_ops_append_binary(ops, _BINARY_MUL, md), "binary post-op")
                self.check(d.dnnl_primitive_attr_set_post_ops(attr, ops), "post-ops")
            finally:
                d.dnnl_post_ops_destroy(ops)
        except Error:
            d.dnnl_primitive_attr_destroy(attr)
            raise
        return attr, md

    @staticmethod
    def check(status, what):
        if status != 0:
            raise Error(f"oneDNN: {what} failed (status {status})")

    # ---------------------------------------------------------------------------- descriptors
    def md(self, dims, strides=None, owner=None):
        """A float32 memory descriptor: plain with these element strides, or format `any` (None); appended to
        owner (a list whose descriptors its primitive destroys)."""
        m = _P()
        if strides is None:
            self.check(self.lib.dnnl_memory_desc_create_with_tag(ctypes.byref(m), len(dims), _Dims(*dims), _F32,
                                                                 _ANY), "memory descriptor")
        else:
            self.check(self.lib.dnnl_memory_desc_create_with_strides(ctypes.byref(m), len(dims), _Dims(*dims), _F32,
                                                                     _Dims(*strides)), "memory descriptor")
        if owner is not None:
            owner.append(m)
        return m

    def stream(self):
        s = getattr(self.local, "stream", None)
        if s is None:
            s = _P()
            self.check(self.lib.dnnl_stream_create(ctypes.byref(s), self.engine, 1), "dnnl_stream_create")
            self.local.stream = s
        return s

    def scratch(self, nbytes):
        """A buffer of this thread of at least nbytes (64-byte aligned), reused across calls."""
        held = getattr(self.local, "scratch", None)  # (buffer, its first 64-byte aligned address)
        if held is None or held[0].nbytes < nbytes + 64:
            buf = np.empty(max(nbytes + 64, 1 << 16), np.uint8)
            addr = buf.ctypes.data
            held = self.local.scratch = (buf, addr + (-addr) % 64)
        return held[1]

    def threads_of(self, key):
        """The `_Threads` choosing between the one-thread and the every-core primitive of a problem."""
        t = self.choices.get(key)
        if t is None:
            if len(self.choices) > 4 * _CACHE_MAX:
                self.choices.clear()
            t = self.choices.setdefault(key, _Threads())
        return t

    @contextlib.contextmanager
    def chosen(self, key, build, work):
        """(primitive, threads, record) for this call: the primitive of key built for the thread count the
        problem's `_Threads` chooses now, and record(took) to report its run's time. oneDNN fixes a
        primitive's thread count when its descriptor is made (OpenMP's count at that moment; a count set
        later is ignored), so each count has its own primitive, built under that count. A problem of
        fewer than _SPLIT_MIN_WORK multiply-adds (pools: elements moved) always runs on one thread."""
        if work < _SPLIT_MIN_WORK or self.set_threads is None:
            one, record = True, _no_record
        elif work >= _ALWAYS_SPLIT_WORK:  # every free core, untimed: one when other work fills them
            one, record = _busy_lately(_clock()), _no_record
        else:
            choice = self.threads_of(key)
            now = _clock()
            one, probing = choice.choose(now)

            def record(took):
                choice.record(one, took, probing, now)
        n = 1 if one else _all_threads()
        with self.primitive(key + (n,), lambda: self.build_on(n, build)) as prim:
            yield prim, n, record

    def build_on(self, n, build):
        """build() with OpenMP's thread count at n (the count the primitive's descriptor keeps)."""
        if self.set_threads is not None:
            self.set_threads(n)
        return build()

    @contextlib.contextmanager
    def primitive(self, key, build):
        """The cached `Primitive` for key (built by build() on a miss), held for the block: the cache keeps the
        _CACHE_MAX most recently used; one pushed out is destroyed once no thread runs it."""
        lock, cache = self.cache_lock, self.cache
        with lock:
            p = cache.pop(key, None)
            if p is not None:
                cache[key] = p  # most recently used
                p.users += 1
        if p is None:
            if key in self.refused:
                raise Error("oneDNN: this problem was refused before")
            try:
                built = build()
            except Error:
                if len(self.refused) < _CACHE_MAX:
                    self.refused.add(key)  # asked once: the NumPy kernel runs it from now on
                raise
            with lock:
                p = cache.get(key)
                if p is None:
                    p = cache[key] = built
                    built = None
                    while len(cache) > _CACHE_MAX:
                        old = cache.pop(next(iter(cache)))
                        old.evicted = True
                        if not old.users:
                            old.destroy()
                p.users += 1
            if built is not None:  # another thread built it meanwhile
                built.destroy()
        try:
            yield p
        finally:
            with lock:
                p.users -= 1
                if p.evicted and not p.users:
                    p.destroy()


# ------------------------------------------------------------------------------------------ primitives
class _Threads:
    """Every core or one for one problem, as blas_threads.Tuner chooses for big GEMMs: one thread while other
    work fills the cores; otherwise the faster of the two, judged by the calls' times and tried again now and
    then."""
    __slots__ = ("one", "recent", "probe_at", "backoff", "lock")

    def __init__(self):
        self.one, self.recent, self.probe_at, self.backoff = False, [], None, _PROBE_S
        self.lock = threading.Lock()  # threads running the primitive record their times one at a time

    def choose(self, now):
        """(one thread?, probing?). OpenBLAS's one-thread regions (a graph or loop of small GEMMs) do not bind
        a primitive: they keep OpenBLAS's spinning workers off the cores, and oneDNN's OpenMP workers wait
        passively and leave a busy machine by the check below."""
        if self.probe_at is None:
            self.probe_at = now + _PROBE_S
            self.one = blas_threads._busy()
        if now >= self.probe_at:
            if self.one and blas_threads._busy():
                self.probe_at = now + self.backoff
                return True, False
            return not self.one, True
        if not self.one and _busy_lately(now):  # other work filled the cores since: one thread, untimed, until
            return True, None                   # they are free again (a split primitive waits for a
        return self.one, False                  # descheduled worker; the timed probes see it late)

    def record(self, one, took, probing, now):
        if probing is None:
            return
        with self.lock:  # (another thread's probe replacing the times while this one averaged them mixed both)
            blas_threads.record_call(self, one, took, probing, now)


_PROBE_S = blas_threads._PROBE_S  # the same probing as the BLAS Tuner's
# Below this many multiply-adds (pools: elements read and written) a second thread never paid: the conv
# autoencoder's 0.9M and 1.8M-MAC convolutions took 0.032 and 0.061 ms on one thread, 0.040-0.052 and
# 0.067-0.071 on two (2-core AMD EPYC, best of 10, six runs); from 3.6M on, two were up to 1.7x faster.
_SPLIT_MIN_WORK = 3_000_000
# From this many, free cores always paid and the timed probes of one thread only cost: a probe runs the problem
# at half speed (and first builds a primitive for it), and a primitive called once a step probed on most of a
# short run's calls (style_transfer's VGG19 convolutions, 0.1-1.9G multiply-adds: a step took 1.14 s with the
# probes, 0.76 s on every core; 2-core AMD EPYC, idle). A busy machine still gets one thread (_busy_lately).
_ALWAYS_SPLIT_WORK = 100_000_000


def _no_record(took):
    pass
_BUSY_TTL = 0.02  # seconds a reading of the runnable count serves every primitive (one read costs ~10-20 us)
_busy_seen = [-1.0, False]  # [when, busy?]


def _busy_lately(now):
    """blas_threads._busy(), read at most once per _BUSY_TTL for the whole process."""
    seen = _busy_seen
    if now - seen[0] >= _BUSY_TTL or now < seen[0]:
        seen[1] = blas_threads._busy()
        seen[0] = now
    return seen[1]


class Primitive:
    """A primitive with the memory descriptors of its arguments: `plain` ones (the user's NHWC/HWIO arrays,
    with their byte sizes) and, where the primitive wants another layout (weights), a reorder into or out
    of a buffer of that layout. Each Python thread that runs it gets its own memory objects and argument
    lists (`_Bound`), pointed at the call's arrays with dnnl_memory_set_data_handle."""

    def __init__(self, api, pd, plain, workspace=False, mds=()):
        self.api, self.pd, self.mds = api, pd, list(mds)
        lib = api.lib
        self.handle = _P()
        api.check(lib.dnnl_primitive_create(ctypes.byref(self.handle), pd), "dnnl_primitive_create")
        self.owned, self.reorders = [pd], []
        if api.set_threads is not None:
            api.set_threads(1)  # the weights reorders: small, on one thread (waking a second costs more)
        self.order = tuple(sorted(plain))  # the plain arguments
        self.slots = []  # per plain argument: (arg, user md, byte size, output?, reorder md or None, reorder)
        for arg in self.order:
            _, user = plain[arg]
            want = lib.dnnl_primitive_desc_query_md(pd, _Q_EXEC_ARG, arg)
            size = lib.dnnl_memory_desc_get_size(user)
            out = arg in (DST, DIFF_SRC, DIFF_WEIGHTS)
            if lib.dnnl_memory_desc_equal(want, user):
                self.slots.append((arg, user, size, out, None, None, 0))
                continue
            src, dst = (want, user) if out else (user, want)
            rpd = _P()
            api.check(lib.dnnl_reorder_primitive_desc_create(ctypes.byref(rpd), src, api.engine, dst, api.engine,
                                                             None), "reorder")
            self.owned.append(rpd)
            reorder = _P()
            api.check(lib.dnnl_primitive_create(ctypes.byref(reorder), rpd), "reorder primitive")
            self.reorders.append(reorder)
            self.slots.append((arg, user, size, out, want, reorder, lib.dnnl_memory_desc_get_size(want)))
        self.workspace = lib.dnnl_primitive_desc_query_md(pd, _Q_WORKSPACE, 0) if workspace else None
        self.workspace_size = lib.dnnl_memory_desc_get_size(self.workspace) if workspace else 0
        self.scratch_md = lib.dnnl_primitive_desc_query_md(pd, _Q_SCRATCHPAD, 0)
        self.scratch_size = lib.dnnl_memory_desc_get_size(self.scratch_md)
        # this thread's scratch buffer holds the primitive's scratchpad, then each reordered argument
        self.buffer_size = _up(self.scratch_size) + sum(_up(s[6]) for s in self.slots)
        self.bound = threading.local()
        self.all_bound = []
        self.users, self.evicted = 0, False  # threads running it now; out of the cache

    def destroy(self):
        lib = self.api.lib
        for b in self.all_bound:
            b.destroy(lib)
        lib.dnnl_primitive_destroy(self.handle)
        for reorder in self.reorders:
            lib.dnnl_primitive_destroy(reorder)
        for pd in self.owned:
            lib.dnnl_primitive_desc_destroy(pd)
        _destroy_mds(self.api, self.mds)

    def run(self, arrays, workspace=None, threads=1):
        """Executes with arrays {arg: ndarray} (every plain argument; outputs are written) and, for pooling,
        a workspace byte array, on `threads` OpenMP threads (the count it was built for); returns the
        seconds the primitive itself took. Checks every array against its descriptor first."""
        if len(arrays) != len(self.slots) or any(s[0] not in arrays for s in self.slots):
            raise ValueError(f"oneDNN: arguments {sorted(arrays)} do not match {list(self.order)}")
        ptrs = []
        for arg, _, size, out, _, _, _ in self.slots:
            a = arrays[arg]
            if not isinstance(a, np.ndarray) or a.dtype != np.float32 or not a.flags.c_contiguous \
                    or a.nbytes != size:
                raise ValueError(f"oneDNN: argument {arg} must be a C-contiguous float32 array of {size} bytes")
            if out and not a.flags.writeable:
                raise ValueError(f"oneDNN: output {arg} is read-only")
            ptrs.append(a.ctypes.data)
        if self.workspace is not None:
            if not isinstance(workspace, np.ndarray) or workspace.dtype != np.uint8 \
                    or not workspace.flags.c_contiguous or workspace.nbytes < self.workspace_size \
                    or not workspace.flags.writeable:
                raise ValueError(f"oneDNN: a workspace of {self.workspace_size} bytes is needed")
            ptrs.append(workspace.ctypes.data)
        b = getattr(self.bound, "b", None)
        if b is None:
            b = self.bound.b = _Bound(self)
            self.all_bound.append(b)
        api, lib = self.api, self.api.lib
        base = api.scratch(self.buffer_size)
        setp = lib.dnnl_memory_set_data_handle
        for m, ptr in zip(b.user, ptrs):
            api.check(setp(m, _P(ptr)), "dnnl_memory_set_data_handle")
        for m, off in b.internal:
            api.check(setp(m, _P(base + off)), "dnnl_memory_set_data_handle")
        stream = api.stream()
        for reorder, args in b.before:
            self._reorder(reorder, stream, args)
        if api.set_threads is not None:
            api.set_threads(threads)
        start = _clock()
        self._exec(self.handle, stream, b.args)
        took = _clock() - start
        for reorder, args in b.after:
            self._reorder(reorder, stream, args)
        return took

    def _reorder(self, reorder, stream, args):
        """A weights reorder: small, so on one thread (waking a second one costs more than it saves)."""
        if self.api.set_threads is not None:
            self.api.set_threads(1)
        self._exec(reorder, stream, args)

    def _exec(self, prim, stream, args):
        lib = self.api.lib
        self.api.check(lib.dnnl_primitive_execute(prim, stream, len(args), args), "dnnl_primitive_execute")
        self.api.check(lib.dnnl_stream_wait(stream), "dnnl_stream_wait")


def _all_threads():
    """The cores this process may use, or tf.config.threading's intra-op thread count where it is set."""
    intra = config_devices.threading.get_intra_op_parallelism_threads()
    return intra if intra > 0 else blas_threads._cpus()


def _up(n):
    return n + (-n) % 64


class _Bound:
    """One thread's memory objects for a primitive (created with no buffer; each call sets their data
    handles): `user` in the order of the plain arguments (then the workspace), `internal` the scratchpad
    and reordered arguments with their offsets in the thread's scratch buffer, and the argument lists of
    the reorders before, the primitive, and the reorders after."""

    def __init__(self, prim):
        api, lib = prim.api, prim.api.lib
        self.mems = []

        def mem(md):
            m = _P()
            api.check(lib.dnnl_memory_create(ctypes.byref(m), md, api.engine, _NONE), "dnnl_memory_create")
            self.mems.append(m)
            return m

        self.user, self.internal, before, after, main = [], [], [], [], []
        off = _up(prim.scratch_size)
        for arg, user, _, out, want, reorder, wsize in prim.slots:
            um = mem(user)
            self.user.append(um)
            if reorder is None:
                main.append((arg, um))
                continue
            bm = mem(want)
            self.internal.append((bm, off))
            off += _up(wsize)
            main.append((arg, bm))
            (after if out else before).append((reorder, _args([(_FROM, bm), (_TO, um)] if out
                                                              else [(_FROM, um), (_TO, bm)])))
        if prim.workspace is not None:
            wm = mem(prim.workspace)
            self.user.append(wm)
            main.append((WORKSPACE, wm))
        if prim.scratch_size:
            sm = mem(prim.scratch_md)
            self.internal.append((sm, 0))
            main.append((SCRATCHPAD, sm))
        self.before, self.after, self.args = before, after, _args(main)

    def destroy(self, lib):
        for m in self.mems:
            lib.dnnl_memory_destroy(m)


def _args(pairs):
    return (_Arg * len(pairs))(*[_Arg(k, m) for k, m in pairs])


# ------------------------------------------------------------------------------------------ layouts
def _nhwc(n, h, w, c):
    """Logical (N, C, H, W) of an NHWC array: dims and strides."""
    return (n, c, h, w), (h * w * c, 1, w * c, c)


def _hwio(kh, kw, i, o):
    """Logical (O, I, KH, KW) of a TensorFlow [KH, KW, I, O] filter."""
    return (o, i, kh, kw), (1, o, kw * i * o, i * o)


def _hwcm(kh, kw, c, m):
    """Logical (G=C, O=M, I=1, KH, KW) of a TensorFlow depthwise [KH, KW, C, M] filter."""
    return (c, m, 1, kh, kw), (m, 1, 1, kw * c * m, c * m)


def _ints(*vals):
    return _Dims(*vals)


def _check4(a, what):
    if not isinstance(a, np.ndarray) or a.dtype != np.float32 or a.ndim != 4 or not a.flags.c_contiguous:
        raise ValueError(f"oneDNN: {what} must be a C-contiguous 4-D float32 array")


def _geometry(ishape, oshape, k, strides, dilations, pads):
    """Checks that the output size follows from the input, filter, strides, dilations and padding as
    oneDNN computes it; returns oneDNN's (strides, dilations - 1, padding_l, padding_r)."""
    for i in range(2):
        eff = (k[i] - 1) * dilations[i] + 1
        lo, hi = pads[i]
        if min(lo, hi) < 0 or strides[i] < 1 or dilations[i] < 1 \
                or (ishape[i] + lo + hi - eff) // strides[i] + 1 != oshape[i]:
            raise ValueError(f"oneDNN: input {ishape}, filter {k}, strides {strides}, dilations {dilations}, "
                             f"padding {pads} do not give output {oshape}")
    return (_ints(*strides), _ints(dilations[0] - 1, dilations[1] - 1), _ints(pads[0][0], pads[1][0]),
            _ints(pads[0][1], pads[1][1]))


def _destroy_mds(a, mds):
    for m in mds:
        a.lib.dnnl_memory_desc_destroy(m)


def _primitive(a, pd, plain, mds, workspace=False):
    """A Primitive that owns pd and the memory descriptors mds (all destroyed here if it cannot be made)."""
    try:
        return Primitive(a, pd, plain, workspace, mds)
    except Error:
        a.lib.dnnl_primitive_desc_destroy(pd)
        _destroy_mds(a, mds)
        raise


def _run(a, key, build, arrays, work):
    with a.chosen(key, build, work) as (prim, n, record):
        record(_execute(a, prim, arrays, None, n, work))


# ------------------------------------------------------------------------------------------ the helper thread
# While other runnable threads fill the cores (`_busy_lately`), a primitive of at least this many
# multiply-adds (pools, ReLU: elements read and written) runs on a helper thread of the calling thread, which
# waits for it (the call is synchronous either way): the scheduler serves a thread that wakes from a short
# sleep ahead of one that never sleeps, as it serves TensorFlow's pools, which hand every op over. The MNIST
# convnet's epoch, primitives handed over against run in place, alternating processes on the loaded 2-core
# machine (same CPU time, ~0.8 s): load 9-11, medians 2026 and 3058 against 2624 and 3291 ms wall; with two busy
# processes of the same session beside it 2318 and 5018 against 8096 and 8048 ms (TensorFlow 2.21: 2286,
# 4132). The conv autoencoder's epoch (0.2-1.8M-MAC convolutions) at load ~10.5: median 370 ms from 200k
# multiply-adds up, 603 from 1M up, 1371 run in place (TensorFlow 1308). A hand-over costs two thread wake-ups
# (tens of microseconds): tiny primitives, and every primitive on a machine with a free core, run in place.
_HANDOFF_MIN_WORK = 200_000


def _execute(a, prim, arrays, workspace, n, work):
    """prim.run(arrays, workspace, n), on the calling thread's helper thread for a big problem on a busy
    machine."""
    if work < _HANDOFF_MIN_WORK or not _busy_lately(_clock()):
        return prim.run(arrays, workspace, n)
    helper = getattr(a.local, "helper", None)
    if helper is None:
        helper = a.local.helper = _Helper()
    return helper.call(prim.run, arrays, workspace, n)


class _Helper:
    """One calling thread's helper: a daemon thread that runs what call() gives it while the caller waits
    (so each thread's primitives still run one at a time, and threads calling at once each have their own).
    It ends once its caller's thread-local _Helper is gone."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.done = threading.Event()
        self.thread = threading.Thread(target=_helper_loop, args=(self.jobs,), name="onednn-helper", daemon=True)
        self.thread.start()
        weakref.finalize(self, self.jobs.put, None)

    def call(self, fn, *args):
        box = [None, None]
        self.done.clear()
        self.jobs.put((fn, args, box, self.done))
        self.done.wait()
        if box[1] is not None:
            raise box[1]
        return box[0]


def _helper_loop(jobs):
    while True:
        job = jobs.get()
        if job is None:
            return
        fn, args, box, done = job
        try:
            box[0] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box[1] = e
        done.set()


# ------------------------------------------------------------------------------------------ convolutions
def _conv_mds(a, x_shape, w_shape, y_shape, depthwise, mds):
    n, h, w, c = x_shape
    kh, kw = w_shape[:2]
    xd, xs = _nhwc(n, h, w, c)
    yd, ys = _nhwc(*y_shape)
    wd, ws = (_hwcm if depthwise else _hwio)(*w_shape)
    return a.md(xd, xs, mds), a.md(wd, ws, mds), a.md(yd, ys, mds), a.md(wd, None, mds), (kh, kw)


def _conv_pd(a, kind, x_shape, w_shape, y_shape, strides, dilations, pads, depthwise, mds, bias=False,
             relu=False):
    """(primitive descriptor, {arg: (query, user md)}) of a convolution's forward (with a bias and a ReLU
    fused), backward-data or backward-weights primitive; the descriptors it creates go to mds."""
    lib = a.lib
    geo = _geometry(x_shape[1:3], y_shape[1:3], w_shape[:2], strides, dilations, pads)
    xm, wm, ym, wany, _ = _conv_mds(a, x_shape, w_shape, y_shape, depthwise, mds)
    bm = a.md((y_shape[3],), (1,), mds) if bias else _NONE
    fwd = _P()
    a.check(lib.dnnl_convolution_forward_primitive_desc_create(
        ctypes.byref(fwd), a.engine, _FORWARD_INFERENCE if kind == "fwd" else _FORWARD_TRAINING, _CONV_DIRECT,
        xm, wany, bm, ym, *geo, a.relu_attr if relu else a.attr), "convolution forward")
    if kind == "fwd":
        plain = {SRC: (_Q_SRC, xm), WEIGHTS: (_Q_WEIGHTS, wm), DST: (_Q_DST, ym)}
        if bias:
            plain[BIAS] = (_Q_WEIGHTS, bm)
        return fwd, plain
    pd = _P()
    try:
        if kind == "data":
            a.check(lib.dnnl_convolution_backward_data_primitive_desc_create(
                ctypes.byref(pd), a.engine, _CONV_DIRECT, xm, wany, ym, *geo, fwd, a.attr), "convolution backward data")
            plain = {DIFF_SRC: (_Q_DIFF_SRC, xm), WEIGHTS: (_Q_WEIGHTS, wm), DIFF_DST: (_Q_DIFF_DST, ym)}
        else:
            a.check(lib.dnnl_convolution_backward_weights_primitive_desc_create(
                ctypes.byref(pd), a.engine, _CONV_DIRECT, xm, wany, _NONE, ym, *geo, fwd, a.attr),
                "convolution backward weights")
            plain = {SRC: (_Q_SRC, xm), DIFF_WEIGHTS: (_Q_DIFF_WEIGHTS, wm), DIFF_DST: (_Q_DIFF_DST, ym)}
    finally:
        lib.dnnl_primitive_desc_destroy(fwd)
    return pd, plain


def _conv(kind, x_shape, w_shape, y_shape, strides, dilations, pads, depthwise, arrays, relu=False):
    a = api()
    if a is None:
        raise ValueError("oneDNN is not available")
    bias = BIAS in arrays
    key = ("conv", kind, depthwise, x_shape, w_shape, y_shape, strides, dilations, pads)
    if bias or relu:
        key += (bias, relu)

    def build():
        mds = []
        try:
            pd, plain = _conv_pd(a, kind, x_shape, w_shape, y_shape, strides, dilations, pads, depthwise, mds, bias,
                                 relu)
        except Error:
            _destroy_mds(a, mds)
            raise
        return _primitive(a, pd, plain, mds)
    kh, kw, c = w_shape[:3]
    _run(a, key, build, arrays, math.prod(y_shape) * kh * kw * (1 if depthwise else c))


def _conv_shapes(x, w, depthwise):
    _check4(x, "input")
    _check4(w, "filter")
    if depthwise:
        if w.shape[2] != x.shape[3]:
            raise ValueError(f"oneDNN: depthwise filter {w.shape} does not fit input {x.shape}")
        return w.shape[2] * w.shape[3]
    if w.shape[2] != x.shape[3]:
        raise ValueError(f"oneDNN: filter {w.shape} does not fit input {x.shape}")
    return w.shape[3]


def conv2d(x, w, strides, dilations, pads, depthwise=False, bias=None, relu=False):
    """NHWC float32 convolution (TensorFlow's Conv2D, or DepthwiseConv2dNative with depthwise=True) of x with
    filter w [KH, KW, C, O] (depthwise: [KH, KW, C, M]); pads ((top, bottom), (left, right)); then + bias
    (a float32 vector of the output channels) and ReLU when asked (the fused conv)."""
    o = _conv_shapes(x, w, depthwise)
    arrays = {}
    if bias is not None:
        if not isinstance(bias, np.ndarray) or bias.dtype != np.float32 or bias.shape != (o,) \
                or not bias.flags.c_contiguous:
            raise ValueError(f"oneDNN: the bias must be a contiguous float32 vector of {o} channels")
        arrays[BIAS] = bias
    n, h, wd, _ = x.shape
    kh, kw = w.shape[:2]
    oh = (h + pads[0][0] + pads[0][1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (wd + pads[1][0] + pads[1][1] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    y = np.empty((n, oh, ow, o), np.float32)
    arrays.update({SRC: x, WEIGHTS: w, DST: y})
    _conv("fwd", x.shape, w.shape, y.shape, tuple(strides), tuple(dilations), _pads(pads), depthwise, arrays,
          relu=bool(relu))
    return y


def conv2d_backprop_input(x_shape, w, dy, strides, dilations, pads, depthwise=False):
    """The gradient of conv2d with respect to its input, of shape x_shape (also Conv2DTranspose)."""
    _check4(w, "filter")
    _check4(dy, "gradient")
    x_shape = tuple(int(d) for d in x_shape)
    if len(x_shape) != 4 or x_shape[3] != w.shape[2] or dy.shape[0] != x_shape[0]:
        raise ValueError(f"oneDNN: input shape {x_shape}, filter {w.shape} and gradient {dy.shape} do not agree")
    dx = np.empty(x_shape, np.float32)
    _conv("data", x_shape, w.shape, dy.shape, tuple(strides), tuple(dilations), _pads(pads), depthwise,
          {DIFF_SRC: dx, WEIGHTS: w, DIFF_DST: dy})
    return dx


def conv2d_backprop_filter(x, w_shape, dy, strides, dilations, pads, depthwise=False):
    """The gradient of conv2d with respect to its filter, of shape w_shape."""
    _check4(x, "input")
    _check4(dy, "gradient")
    w_shape = tuple(int(d) for d in w_shape)
    if len(w_shape) != 4 or w_shape[2] != x.shape[3] or dy.shape[0] != x.shape[0]:
        raise ValueError(f"oneDNN: input {x.shape}, filter shape {w_shape} and gradient {dy.shape} do not agree")
    dw = np.empty(w_shape, np.float32)
    _conv("weights", x.shape, w_shape, dy.shape, tuple(strides), tuple(dilations), _pads(pads), depthwise,
          {SRC: x, DIFF_WEIGHTS: dw, DIFF_DST: dy})
    return dw


def _pads(pads):
    return (tuple(int(p) for p in pads[0]), tuple(int(p) for p in pads[1]))


# ------------------------------------------------------------------------------------------ pooling
def _pool_pd(a, kind, alg, x_shape, y_shape, ksize, strides, pads, mds):
    lib = a.lib
    geo = _geometry(x_shape[1:3], y_shape[1:3], ksize, strides, (1, 1), pads)
    xm, ym = a.md(*_nhwc(*x_shape), mds), a.md(*_nhwc(*y_shape), mds)
    fwd = _P()
    prop = _FORWARD_TRAINING if (kind == "bwd" or alg == _POOL_MAX and kind == "ws") else _FORWARD_INFERENCE
    a.check(lib.dnnl_pooling_forward_primitive_desc_create(
        ctypes.byref(fwd), a.engine, prop, alg, xm, ym, geo[0], _ints(*ksize), geo[1], geo[2], geo[3], a.attr),
        "pooling forward")
    if kind != "bwd":
        return fwd, {SRC: (_Q_SRC, xm), DST: (_Q_DST, ym)}
    pd = _P()
    try:
        a.check(lib.dnnl_pooling_backward_primitive_desc_create(
            ctypes.byref(pd), a.engine, alg, xm, ym, geo[0], _ints(*ksize), geo[1], geo[2], geo[3], fwd, a.attr),
            "pooling backward")
    finally:
        lib.dnnl_primitive_desc_destroy(fwd)
    return pd, {DIFF_SRC: (_Q_DIFF_SRC, xm), DIFF_DST: (_Q_DIFF_DST, ym)}


def _pool(kind, alg, x_shape, y_shape, ksize, strides, pads, arrays, workspace=None):
    a = api()
    if a is None:
        raise ValueError("oneDNN is not available")
    key = ("pool", kind, alg, x_shape, y_shape, ksize, strides, pads)

    def build():
        mds = []
        try:
            pd, plain = _pool_pd(a, kind, alg, x_shape, y_shape, ksize, strides, pads, mds)
        except Error:
            _destroy_mds(a, mds)
            raise
        return _primitive(a, pd, plain, mds, workspace=alg == _POOL_MAX and kind != "fwd")
    work = 2 * math.prod(x_shape)
    with a.chosen(key, build, work) as (prim, n, record):
        if workspace is None and prim.workspace is not None:
            workspace = np.empty(prim.workspace_size, np.uint8)
        record(_execute(a, prim, arrays, workspace, n, work))
        return workspace


def _pool_out(x_shape, ksize, strides, pads):
    n, h, w, c = x_shape
    oh = (h + pads[0][0] + pads[0][1] - ksize[0]) // strides[0] + 1
    ow = (w + pads[1][0] + pads[1][1] - ksize[1]) // strides[1] + 1
    return (n, oh, ow, c)


def max_pool(x, ksize, strides, pads):
    """NHWC float32 max pooling (padding never wins a window). The window indices the forward pass finds (its
    workspace) are kept while y lives, for max_pool_grad of this x and y."""
    _check4(x, "input")
    ksize, strides, pads = tuple(ksize), tuple(strides), _pads(pads)
    y = np.empty(_pool_out(x.shape, ksize, strides, pads), np.float32)
    ws = _pool("ws", _POOL_MAX, x.shape, y.shape, ksize, strides, pads, {SRC: x, DST: y})
    key = id(y)

    def gone(_, key=key):
        _WORKSPACES.pop(key, None)
    _WORKSPACES[key] = (weakref.ref(y, gone), weakref.ref(x), (ksize, strides, pads), ws)
    return y


_WORKSPACES = {}  # id(y) -> (y, x (weak references), (ksize, strides, pads), workspace) of each live max pool


def avg_pool(x, ksize, strides, pads):
    """NHWC float32 average pooling over each window's input elements (padding excluded, as TensorFlow)."""
    _check4(x, "input")
    y = np.empty(_pool_out(x.shape, ksize, strides, pads), np.float32)
    _pool("fwd", _POOL_AVG_EXCLUDE, x.shape, y.shape, tuple(ksize), tuple(strides), _pads(pads), {SRC: x, DST: y})
    return y


def max_pool_grad(x, dy, ksize, strides, pads, y=None):
    """The max-pool gradient: each window's dy goes to the input element the forward pass chose (its
    workspace: the one max_pool kept when y is its output for this very x, else the forward runs again
    here)."""
    _check4(x, "input")
    _check4(dy, "gradient")
    ksize, strides, pads = tuple(ksize), tuple(strides), _pads(pads)
    y_shape = _pool_out(x.shape, ksize, strides, pads)
    if dy.shape != y_shape:
        raise ValueError(f"oneDNN: gradient {dy.shape} does not match the pool's output {y_shape}")
    kept = _WORKSPACES.get(id(y)) if y is not None else None
    if kept is not None and kept[0]() is y and kept[1]() is x and kept[2] == (ksize, strides, pads):
        ws = kept[3]
    else:
        ws = _pool("ws", _POOL_MAX, x.shape, y_shape, ksize, strides, pads,
                   {SRC: x, DST: np.empty(y_shape, np.float32)})
    dx = np.empty(x.shape, np.float32)
    _pool("bwd", _POOL_MAX, x.shape, y_shape, ksize, strides, pads, {DIFF_SRC: dx, DIFF_DST: dy}, ws)
    return dx


def avg_pool_grad(x_shape, dy, ksize, strides, pads):
    """The average-pool gradient (padding excluded from each window's count)."""
    _check4(dy, "gradient")
    x_shape = tuple(int(d) for d in x_shape)
    ksize, strides, pads = tuple(ksize), tuple(strides), _pads(pads)
    if len(x_shape) != 4 or _pool_out(x_shape, ksize, strides, pads) != dy.shape:
        raise ValueError(f"oneDNN: gradient {dy.shape} does not match the pool of {x_shape}")
    dx = np.empty(x_shape, np.float32)
    _pool("bwd", _POOL_AVG_EXCLUDE, x_shape, dy.shape, ksize, strides, pads, {DIFF_SRC: dx, DIFF_DST: dy})
    return dx


# ------------------------------------------------------------------------------------------ ReLU gradient
def _relu_grad_pd(a, n, mds):
    lib, m = a.lib, a.md((n,), (1,), mds)
    fwd = _P()
    a.check(lib.dnnl_eltwise_forward_primitive_desc_create(
        ctypes.byref(fwd), a.engine, _FORWARD_TRAINING, _ELTWISE_RELU, m, m, 0.0, 0.0, a.attr), "eltwise forward")
    pd = _P()
    try:
        a.check(lib.dnnl_eltwise_backward_primitive_desc_create(
            ctypes.byref(pd), a.engine, _ELTWISE_RELU, m, m, m, 0.0, 0.0, fwd, a.attr), "eltwise backward")
    finally:
        lib.dnnl_primitive_desc_destroy(fwd)
    return pd, {DIFF_SRC: (_Q_DIFF_SRC, m), DIFF_DST: (_Q_DIFF_DST, m), SRC: (_Q_SRC, m)}


def relu_grad(dy, x, out=None):
    """TensorFlow's ReluGrad, dy * (x > 0) (a masked gradient is dy * 0: -0 for a negative one, NaN for an
    infinite or NaN one), in one pass of oneDNN's ReLU backward over float32 arrays of any shape; into out
    (which may be dy itself) or a new array."""
    for v, what in ((dy, "gradient"), (x, "features")):
        if not isinstance(v, np.ndarray) or v.dtype != np.float32 or not v.flags.c_contiguous:
            raise ValueError(f"oneDNN: the {what} must be a C-contiguous float32 array")
    if x.shape != dy.shape or not x.size:
        raise ValueError(f"oneDNN: features {x.shape} and gradient {dy.shape} must be one non-empty shape")
    if out is None:
        out = np.empty(dy.shape, np.float32)
    elif not isinstance(out, np.ndarray) or out.shape != dy.shape or out.dtype != np.float32 \
            or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(f"oneDNN: the output must be a writeable C-contiguous float32 array of shape {dy.shape}")
    a = api()
    if a is None:
        raise ValueError("oneDNN is not available")
    n = int(x.size)

    def build():
        mds = []
        try:
            pd, plain = _relu_grad_pd(a, n, mds)
        except Error:
            _destroy_mds(a, mds)
            raise
        return _primitive(a, pd, plain, mds)
    flat = {DIFF_SRC: out.reshape(-1), DIFF_DST: dy.reshape(-1), SRC: x.reshape(-1)}
    _run(a, ("relu_grad", n), build, flat, 2 * n)
    return out
