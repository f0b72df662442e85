"""Chains of small dense layers run as oneDNN matmul primitives with the bias and ReLU fused, one C call a layer.

A compiled graph's _FusedMatMul ops (relu(a @ w + bias), optimize/fusion.py) often form a chain: each one's
product is read by the next alone, as its left operand (a stack of Keras Dense layers). With the optional
`onednn` extra the executor (execute/codegen.py) runs such a chain as one call of a `Chain`: each layer is one
`dnnl_primitive_execute` of a matmul primitive with its bias and ReLU post-op, writing into a buffer the next
layer reads. The NumPy form costs three calls a layer (np.dot, the bias add, np.maximum: 3.4 us on a 20x64x64
layer, of which 1.5 us is the product); the primitive 1.4 us in all.

Buffers and thread safety: a call takes an `_Arena` from the chain's pool (or makes one) and puts it back when
done, so concurrent calls of one compiled function never share buffers, memory objects or streams. An arena
holds oneDNN memory objects bound once to its own buffers; the weights and biases (variables' arrays, the
same objects call after call) are re-bound only when another array comes (a weak reference tells), the
input once a call. The chain's output is a fresh array (a copy of the last buffer): nothing of the arena
escapes. Every array is checked (float32, C-contiguous, exactly the layer's shape) before its pointer
reaches C; anything else is copied into such an array first.

Only float32 chains whose GEMMs are all under blas_threads.PARALLEL_MNK multiply-adds (one thread pays
there) form chains; the primitives run on one OpenMP thread. Without oneDNN (not installed, RIVULET_ONEDNN=0,
or a child process after a fork) chains are not formed, or a chain already compiled runs the NumPy form.
Results equal NumPy's up to float32 rounding (oneDNN sums the products in another order, as TensorFlow's
graphs, which run on oneDNN, do).

The graph's other 2-D float32 products of GEMM_MIN to GEMM_MAX multiply-adds (a training step's layers, whose
products the gradient reads again, and the gradient's products, transposed operands included) run as a `Gemm`
each: one oneDNN matmul (bias and ReLU fused where the op has them) into a fresh array, its operands bound
per call (again only where another array comes), memory objects from a pool as above. Those of 3M+ choose one
thread or every core by their calls' times (`_GemmThreads`). Two training-step fusions (optimize/fusion.py) run
here too, bit for bit the ops they replace: `GemmUpdate`, an SGD step on a layer's weights written into the
variable's array (a weights scale and a sum post-op), and `GemmMask`, an input gradient through a ReLU (a binary
post-op multiplying by the mask's bytes).
"""
import ctypes
import sys
import threading
import weakref
from time import perf_counter as _clock

import numpy as np

from ..errors import InvalidArgumentError
from . import blas_threads, onednn

_P = ctypes.c_void_p
_Q_SCRATCHPAD = 136  # dnnl_query_scratchpad_md
_lock = threading.Lock()
_prims = {}  # (m, k, n, bias, relu) or ("gemm", m, k, n, ...) -> _Matmul, shared; never destroyed (a few shapes)
_PRIMS_MAX = 256


class _Arg(ctypes.Structure):  # dnnl_exec_arg_t
    _fields_ = [("arg", ctypes.c_int), ("memory", _P)]


class _Matmul:
    """A matmul primitive [m, k] @ [k, n] (+ [n] bias) (+ ReLU) on plain row-major float32 arrays, built for one
    OpenMP thread, with its memory descriptors (kept: each arena makes its memory objects from them)."""

    def __init__(self, api, m, k, n, bias, relu, ta=False, tb=False, attr=None, threads=1):
        lib = api.lib
        fn = lib.dnnl_matmul_primitive_desc_create
        fn.argtypes, fn.restype = [ctypes.POINTER(_P), _P, _P, _P, _P, _P, _P], ctypes.c_int
        self.mds = [api.md([m, k], [1, m] if ta else [k, 1]), api.md([k, n], [1, k] if tb else [n, 1]),
                    api.md([1, n], [n, 1]) if bias else None, api.md([m, n], [n, 1])]
        self.pd, self.handle = _P(), _P()
        if api.set_threads is not None:
            api.set_threads(threads)  # (the count the primitive keeps: OpenMP's when its descriptor is made)
        api.check(fn(ctypes.byref(self.pd), api.engine, *self.mds, attr or (api.relu_attr if relu else api.attr)),
                  "dnnl_matmul_primitive_desc_create")
        api.check(lib.dnnl_primitive_create(ctypes.byref(self.handle), self.pd), "dnnl_primitive_create")
        self.scratch_md = lib.dnnl_primitive_desc_query_md(self.pd, _Q_SCRATCHPAD, 0)
        self.scratch_size = lib.dnnl_memory_desc_get_size(self.scratch_md)


def _matmul(api, key, *args, threads=1):
    """The shared primitive of `key` (made from `args`, by default the key itself: m, k, n, bias, relu), built
    for this many threads."""
    p = _prims.get(key)
    if p is None:
        with _lock:
            p = _prims.get(key)
            if p is None:
                if len(_prims) >= _PRIMS_MAX:
                    raise onednn.Error("oneDNN: too many matmul shapes")
                p = _prims[key] = _Matmul(api, *(args or key), threads=threads)
    return p


def _execute():
    """dnnl_primitive_execute without argument conversion (every argument a prebuilt ctypes object)."""
    api = onednn.api()
    return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.cast(api.lib.dnnl_primitive_execute, _P).value)


class _Arena:
    """One call's buffers: two ping-pong buffers for the layers' products, a scratchpad, a stream, and per layer
    its memory objects and execute arguments. Weights and biases are bound lazily (`bound` holds weak
    references to the arrays bound)."""

    def __init__(self, chain, api):
        lib = api.lib
        self.api, self.mems = api, []
        size = max(m * n for m, _, n, _, _ in chain.layers)
        self.bufs = [np.empty(size, np.float32) for _ in range(2)]
        scratch = max(p.scratch_size for p in chain.prims)
        self.scratch = np.empty(scratch + 64, np.uint8)
        self.stream = _P()
        api.check(lib.dnnl_stream_create(ctypes.byref(self.stream), api.engine, 1), "dnnl_stream_create")
        self.src0, self.ids = None, None
        self.weights, self.biases, self.calls, self.outs = [], [], [], []
        spad = self.scratch.ctypes.data + (-self.scratch.ctypes.data) % 64
        last = len(chain.layers) - 1
        for i, ((m, k, n, bias, relu), p) in enumerate(zip(chain.layers, chain.prims)):
            out = self.bufs[i & 1][:m * n].reshape(m, n)
            self.outs.append(out)
            src = self._mem(p.mds[0], self.bufs[(i - 1) & 1].ctypes.data if i else 0)
            if not i:
                self.src0 = src
            w = self._mem(p.mds[1], 0)
            pairs = [(onednn.SRC, src), (onednn.WEIGHTS, w), (onednn.DST, self._mem(p.mds[3], out.ctypes.data))]
            b = None
            if bias:
                b = self._mem(p.mds[2], 0)
                pairs.append((onednn.BIAS, b))
            if p.scratch_size:
                pairs.append((onednn.SCRATCHPAD, self._mem(p.scratch_md, spad)))
            args = (_Arg * len(pairs))(*[_Arg(a, mem) for a, mem in pairs])
            self.weights.append([w, None])
            self.biases.append([b, None])
            self.calls.append((p.handle, self.stream, ctypes.c_int(len(pairs)), args))
        self.last = last

    def forget(self, _ref):
        """A bound weight or bias array is gone: the next call binds them again."""
        self.ids = None

    def _mem(self, md, ptr):
        m = _P()
        self.api.check(self.api.lib.dnnl_memory_create(ctypes.byref(m), md, self.api.engine, _P(ptr)),
                       "dnnl_memory_create")
        self.mems.append(m)
        return m

    def destroy(self):
        lib = self.api.lib
        for m in self.mems:
            lib.dnnl_memory_destroy(m)
        lib.dnnl_stream_destroy(self.stream)


def _destroy(pool):
    if onednn.api() is None:  # a forked child: the parent's objects are not ours to free
        return
    while pool:
        pool.pop().destroy()


def _plain_fast(a, shape, strides):
    """_plain, checking a C-contiguous float32 array of this shape by its strides (no flags object: ~0.1 us a
    call on a Gemm's operands)."""
    if a.__class__ is np.ndarray and a.dtype is _F32 and a.shape == shape and a.strides == strides:
        return a
    return _plain(a, shape)


_F32 = np.dtype(np.float32)


def _c_strides(shape):
    """The strides of a C-contiguous float32 array of this shape."""
    out, step = [], 4
    for d in reversed(shape):
        out.append(step)
        step *= d
    return tuple(reversed(out))


def _plain(a, shape):
    """a as a C-contiguous float32 array of exactly this shape (copied where it is not one)."""
    if a.__class__ is not np.ndarray or a.dtype != np.float32 or not a.flags.c_contiguous or a.shape != shape:
        a = np.ascontiguousarray(a, np.float32)
        if a.shape != shape:
            raise ValueError(f"dense chain: an operand of shape {a.shape} where {shape} was traced")
    return a


class Chain:
    """relu?(... relu?(x @ w1 + b1) ... @ wn + bn) for static float32 shapes; called as chain(x, w1, b1, ...)
    (a bias only for the layers that have one)."""

    def __init__(self, layers, numpy_layers):
        self.layers = layers  # [(m, k, n, has_bias, relu)]
        self.numpy_layers = numpy_layers  # per layer f(a, w, *bias): the NumPy form (a fork's child runs it)
        api = onednn.api()
        self.prims = [_matmul(api, key) for key in layers]
        self.pool = []
        self.lock = threading.Lock()
        self.exe = _execute()
        self.sizes = [(k, n) for _, k, n, _, _ in layers]
        weakref.finalize(self, _destroy, self.pool).atexit = False  # (at exit the process frees it all)

    def __call__(self, x, *params):
        api = onednn.api()
        if api is None:
            return self._numpy(x, params)
        pool = self.pool
        try:
            ar = pool.pop()
        except IndexError:
            ar = _Arena(self, api)
        try:
            return self._run(api, ar, x, params)
        finally:
            pool.append(ar)

    def _run(self, api, ar, x, params):
        m, k = self.layers[0][:2]
        x = _plain(x, (m, k))
        api.check(api.lib.dnnl_memory_set_data_handle(ar.src0, _P(_ptr(x))), "dnnl_memory_set_data_handle")
        if api.set_threads is not None:
            api.set_threads(1)
        # The weights and biases of the arena's last call, all alive (a bound array's death clears ar.ids):
        # nothing to bind again
        ids = tuple(map(id, params))
        if ids != ar.ids:
            ar.ids = ids if self._bind(api, ar, params) else None
        exe = self.exe
        for call in ar.calls:
            if exe(*call):
                raise onednn.Error("oneDNN: dnnl_primitive_execute failed")
        return ar.outs[ar.last].copy()

    def _bind(self, api, ar, params):
        """Points the arena's weight and bias memory objects at params' arrays (where they are not already);
        True when every one is the caller's own array (none copied to a plain float32 layout)."""
        ar.ids = None
        sd, own, j = api.lib.dnnl_memory_set_data_handle, True, 0
        for i, (_, _, n, bias, _) in enumerate(self.layers):
            for slot, shape in ((ar.weights[i], self.sizes[i]), (ar.biases[i], (n,)))[:1 + bias]:
                a = params[j]
                j += 1
                ref = slot[1]
                if ref is None or ref() is not a:
                    plain = _plain(a, shape)
                    own = own and plain is a
                    api.check(sd(slot[0], _P(_ptr(plain))), "dnnl_memory_set_data_handle")
                    slot[1] = weakref.ref(plain, ar.forget)
        return own

    def _numpy(self, x, params):
        j = 0
        for f, (_, _, _, bias, _) in zip(self.numpy_layers, self.layers):
            n = 2 if bias else 1
            x = f(x, *params[j:j + n])
            j += n
        return x


def _numpy_layer(relu, zero):
    """One layer's NumPy form, as the executor computes an unchained _FusedMatMul (optimize/fusion.py)."""
    def layer(a, w, *bias):
        r = np.dot(a, w)
        if bias:
            r += bias[0]
        if relu:
            np.maximum(r, zero, out=r)
        return r
    return layer


def _layer(op):
    """(m, k, n, has_bias, relu) of a _FusedMatMul a chain can run, else None."""
    if op.type != "_FusedMatMul" or set(op.attrs) != {"activation"} or op.attrs["activation"] not in (None, "relu"):
        return None
    a, w = op.inputs[:2]
    out = op.outputs[0]
    if any(t.dtype.name != "float32" or t.shape.rank != 2 or not t.shape.is_fully_defined() for t in (a, w, out)):
        return None
    (m, k), (k2, n) = a.shape.as_list(), w.shape.as_list()
    if k != k2 or m * k * n >= blas_threads.PARALLEL_MNK or not m or not k or not n:
        return None
    bias = len(op.inputs) == 3
    if bias and (op.inputs[2].dtype.name != "float32" or op.inputs[2].shape.as_list() != [n]):
        return None
    return m, k, n, bias, op.attrs["activation"] == "relu"


def plan(ops, uses, excluded, kept):
    """The chains among a compiled graph's ops: {id of a chain's last op: (Chain, its ops in order)}. A link
    is a _FusedMatMul whose product only the next one reads, as its left operand (`uses`: id(tensor) -> its
    reads, a graph output counted as many). `excluded`: ids of ops compiled otherwise; `kept`: ids of tensors
    that must exist as values (a shape-only read's stand-in, a TensorList's element). Empty without oneDNN."""
    if not any(op.type == "_FusedMatMul" for op in ops) or onednn.api() is None:  # (loading oneDNN costs a
        return {}  # first trace 20-50 ms: not for a graph with no layer)
    layer = {}
    for op in ops:
        if op.type == "_FusedMatMul" and op._id not in excluded and id(op.outputs[0]) not in kept:
            info = _layer(op)
            if info is not None:
                layer[op._id] = info
    if len(layer) < 2:
        return {}
    nxt = {}  # id of a link's op -> the op reading its product
    for op in ops:
        if op._id in layer:
            src = op._inputs[0].op
            if src._id in layer and uses.get(id(op._inputs[0])) == 1 and op._inputs[1] is not op._inputs[0]:
                nxt[src._id] = op
    heads = set(nxt) - {op._id for op in nxt.values()}
    from .codegen import zeros_like
    chains = {}
    byid = {op._id: op for op in ops}
    for h in heads:
        members = [byid[h]]
        while members[-1]._id in nxt:
            members.append(nxt[members[-1]._id])
        infos = [layer[op._id] for op in members]
        try:
            chain = Chain(infos, [_numpy_layer(relu, zeros_like(op.outputs[0]))
                                  for op, (_, _, _, _, relu) in zip(members, infos)])
        except onednn.Error:
            continue
        chains[members[-1]._id] = (chain, members)
    return chains


# ------------------------------------------------------------------------------------------ single GEMMs
# A graph's other float32 GEMMs of this size range (a training step's forward layers, whose products the
# gradient reads again, and the gradient's own products, transposed operands included) run as one oneDNN
# matmul each: on one thread about twice OpenBLAS's speed on the AVX-512 machines (64x784x128: 55 us against
# 116; 64x128x128: 10 against 20), with the bias and ReLU fused. Below GEMM_MIN multiply-adds (GEMM_MIN_PLAIN
# for a product with no bias to fuse: 20x64x64 2.9 us against np.dot's 2.2, 64x64x64 4.3 against 5.2) the
# data handles set per call cost more than that saves; from GEMM_MAX the BLAS rules' threads take over.
GEMM_MIN, GEMM_MIN_PLAIN, GEMM_MAX = 1 << 16, 1 << 18, 1 << 23
_set_handle = []  # dnnl_memory_set_data_handle(memory, address): both as plain integers


def _setter(api):
    if not _set_handle:
        _set_handle.append(ctypes.CFUNCTYPE(ctypes.c_int, _P, _P)(ctypes.cast(api.lib.dnnl_memory_set_data_handle,
                                                                              _P).value))


def _ptr(a):
    """The address of a's first element (a C-contiguous array)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):  # read-only
        return a.ctypes.data


class _Bound:
    """One call's memory objects, scratchpad and stream for a `Gemm` (a pool keeps them between calls); `extra`:
    more (argument, memory descriptor, address) bound once (an update's scale). `call` runs the one-thread
    primitive; on(n, prim) the call of the primitive built for n threads (its own scratchpad, the same memory)."""

    def __init__(self, gemm, api, extra=()):
        lib, p = api.lib, gemm.prim
        self.api, self.mems, self.scratches = api, [], []
        self.stream = _P()
        api.check(lib.dnnl_stream_create(ctypes.byref(self.stream), api.engine, 1), "dnnl_stream_create")
        self.user = [self._mem(md, 0) for md in p.mds if md is not None]  # src, weights, [bias], dst
        self.pairs = list(zip((onednn.SRC, onednn.WEIGHTS) + ((onednn.BIAS,) if gemm.bias else ()) + (onednn.DST,),
                              self.user))
        self.pairs.extend((arg, self._mem(md, ptr)) for arg, md, ptr in extra)
        self.call = self._call(p)
        self.calls = {1: self.call}
        self.refs = [None] * len(self.user)

    def _call(self, p):
        pairs = list(self.pairs)
        if p.scratch_size:
            scratch = np.empty(p.scratch_size + 64, np.uint8)
            self.scratches.append(scratch)
            at = scratch.ctypes.data
            pairs.append((onednn.SCRATCHPAD, self._mem(p.scratch_md, at + (-at) % 64)))
        args = (_Arg * len(pairs))(*[_Arg(a, mem) for a, mem in pairs])
        return (p.handle, self.stream, ctypes.c_int(len(pairs)), args)

    def on(self, n, prim):
        c = self.calls.get(n)
        if c is None:
            c = self.calls[n] = self._call(prim)
        return c

    _mem = _Arena._mem
    destroy = _Arena.destroy


class _GemmThreads(onednn._Threads):
    """One thread or every core for a big GEMM, whichever its calls run faster, busy machine or not: unlike a
    convolution's choice (onednn._Threads), a busy machine does not settle it on one thread. w5's 64x784x128
    products with other jobs filling the 2-core machine (load 7): 150 us on one thread, 89 on two (the
    scheduler shares the cores per thread); quiet, 54 on one. oneDNN's OpenMP workers wait passively
    (OMP_WAIT_POLICY=PASSIVE): a split product spins on no core, and on a quiet machine the sleeping worker's
    wake-up makes two threads slower (56 us on one, 65 on two, at real-time priority): the first calls run on
    one thread, two are tried after onednn._PROBE_S (a jit function's tier trial, in its first calls, times
    the NumPy executor's usual form)."""
    __slots__ = ()

    def __init__(self):
        super().__init__()
        self.one = True

    def choose(self, now):
        if self.probe_at is None:
            self.probe_at = now + onednn._PROBE_S
        if now >= self.probe_at:
            return not self.one, True
        return self.one, False


def _threads(api, work):
    """The `_GemmThreads` choosing one thread or every core for a GEMM of this many multiply-adds, or None:
    under onednn._SPLIT_MIN_WORK a second thread never paid (w5's 64x784x128 products, 6.4M, take 54 us on
    one core of the AMD EPYC machines)."""
    if work < onednn._SPLIT_MIN_WORK or api.set_threads is None or onednn._all_threads() < 2:
        return None
    return _GemmThreads()


class _Split:
    """What a `Gemm`, `GemmMask` or `GemmUpdate` shares: its primitive per thread count and the thread choice."""

    def _setup(self, api, key, dims):
        """The primitive of (key, dims), the thread choice for its m*k*n multiply-adds, and the pool of bound
        calls (freed with the object); self.shapes must be set."""
        self.key, self.dims = key, dims
        self.prim = _matmul(api, key, *dims)
        m, k, n = dims[:3]
        self.split, self.choice = {}, _threads(api, m * k * n)
        self.pool = []
        self.exe = _execute()
        _setter(api)
        self.strides = tuple(_c_strides(sh) for sh in self.shapes)
        weakref.finalize(self, _destroy, self.pool).atexit = False  # (at exit the process frees it all)

    def prim_on(self, api, n):
        p = self.split.get(n)
        if p is None:
            p = self.split[n] = _matmul(api, self.key + (n,), *self.dims, threads=n)
        return p

    def run(self, api, b):
        """Executes bound `b` on the chosen thread count, timing it where the choice is being made."""
        choice = self.choice
        if choice is None:
            if api.set_threads is not None:
                api.set_threads(1)
            if self.exe(*b.call):
                raise onednn.Error("oneDNN: dnnl_primitive_execute failed")
            return
        now = _clock()
        one, probing = choice.choose(now)
        n = 1 if one else onednn._all_threads()
        call = b.call if n == 1 else b.on(n, self.prim_on(api, n))
        api.set_threads(n)
        if self.exe(*call):
            raise onednn.Error("oneDNN: dnnl_primitive_execute failed")
        choice.record(one, _clock() - now, probing, now)


class Gemm(_Split):
    """op(a) @ op(b) (+ bias) (+ ReLU) for static float32 shapes (op: a transpose where asked), into a fresh
    array, as one oneDNN matmul; gemm(a, b[, bias]). From onednn._SPLIT_MIN_WORK multiply-adds on one thread
    or every core, whichever its calls run faster (`_threads`)."""

    def __init__(self, m, k, n, ta, tb, bias, relu, numpy_form):
        self.shapes = ((k, m) if ta else (m, k), (n, k) if tb else (k, n)) + (((n,),) if bias else ()) + ((m, n),)
        self.bias, self.numpy_form, self.out = bias, numpy_form, (m, n)
        api = onednn.api()
        self._setup(api, ("gemm", m, k, n, ta, tb, bias, relu), (m, k, n, bias, relu, ta, tb))

    def __call__(self, *arrays):
        api = onednn.api()
        if api is None:
            return self.numpy_form(*arrays)
        out = np.empty(self.out, np.float32)
        pool = self.pool
        try:
            b = pool.pop()
        except IndexError:
            b = _Bound(self, api)
        try:
            sd, refs, mems, shapes, strides = _set_handle[0], b.refs, b.user, self.shapes, self.strides
            i = 0
            for a in arrays:
                ref = refs[i]
                if ref is None or ref() is not a:  # a variable's array comes again and again: bound once
                    a = _plain_fast(a, shapes[i], strides[i])
                    if sd(mems[i], _ptr(a)):
                        raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
                    refs[i] = weakref.ref(a)
                i += 1
            if sd(mems[-1], _ptr(out)):
                raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
            self.run(api, b)
        finally:
            pool.append(b)
        return out


class GemmMask(_Split):
    """(op(a) @ op(b)) * (x > 0) for static float32 shapes, into a fresh array, as one oneDNN matmul with a binary
    post-op multiplying by the mask's bytes (onednn.Api.mask_attr): ReluGrad(MatMul(a, b), x), a Dense layer's
    input gradient through its ReLU (optimize/fusion.py's _MatMulReluGrad), bit for bit the two ops on oneDNN's
    product: fl(acc * mask) is ReluGrad's dy * (x > 0). The mask is written into a buffer of the call's bound
    memory (np.greater, one pass); w5's 64x128x128: 14.9 -> 11.1 us."""

    def __init__(self, m, k, n, ta, tb, numpy_form):
        self.shapes = ((k, m) if ta else (m, k), (n, k) if tb else (k, n), (m, n))
        self.numpy_form, self.out, self.bias = numpy_form, (m, n), False
        api = onednn.api()
        with _lock:
            made = _MASK_ATTRS.get((m, n))
            if made is None:
                made = _MASK_ATTRS[m, n] = api.mask_attr(m, n)
        attr, self.mask_md = made
        self._setup(api, ("mask", m, k, n, ta, tb), (m, k, n, False, False, ta, tb, attr))

    def __call__(self, a, b, x):
        api = onednn.api()
        if api is None:  # a forked child: the two ops' NumPy forms
            return np.multiply(self.numpy_form(a, b), x > 0, dtype=np.float32)
        x = _plain_fast(x, self.out, self.strides[2])
        out = np.empty(self.out, np.float32)
        pool = self.pool
        try:
            bd = pool.pop()
        except IndexError:
            mask = np.empty(self.out, np.bool_)
            bd = _Bound(self, api, [(onednn.POST_OP_SRC1, self.mask_md, mask.ctypes.data)])
            bd.mask = mask
        try:
            np.greater(x, 0, out=bd.mask)
            sd, refs, mems = _set_handle[0], bd.refs, bd.user
            for i, y in enumerate((a, b)):
                ref = refs[i]
                if ref is None or ref() is not y:
                    y = _plain_fast(y, self.shapes[i], self.strides[i])
                    if sd(mems[i], _ptr(y)):
                        raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
                    refs[i] = weakref.ref(y)
            if sd(mems[2], _ptr(out)):
                raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
            self.run(api, bd)
        finally:
            pool.append(bd)
        return out


_MASK_ATTRS = {}  # (m, n) -> (attributes, mask descriptor), kept for the process (a few shapes)


def gemm_mask(m, k, n, ta, tb, numpy_form):
    """A `GemmMask` where oneDNN runs the product unfused too (GEMM_MIN_PLAIN to GEMM_MAX multiply-adds: the
    fused result is then bit for bit the two ops'), else None."""
    if not GEMM_MIN_PLAIN <= m * k * n < GEMM_MAX or onednn.api() is None:
        return None
    try:
        return GemmMask(m, k, n, ta, tb, numpy_form)
    except onednn.Error:
        return None


def _dims(op):
    """(m, k, n, transpose a, transpose b, bias, relu) of a 2-D float32 MatMul (transposes, no adjoints) or
    _FusedMatMul of static shapes, else None."""
    if op.type not in ("MatMul", "_FusedMatMul") or len(op.inputs) < 2:
        return None
    a, b = op.inputs[:2]
    out = op.outputs[0]
    if any(t.dtype.name != "float32" or t.shape.rank != 2 or not t.shape.is_fully_defined() for t in (a, b, out)):
        return None
    attrs = dict(op.attrs)
    relu = attrs.pop("activation", None)
    ta, tb = bool(attrs.pop("transpose_a", False)), bool(attrs.pop("transpose_b", False))
    bias = len(op.inputs) == 3
    if any(attrs.values()) or relu not in (None, "relu") or op.type == "MatMul" and bias or len(op.inputs) > 3:
        return None
    m, n = out.shape.as_list()
    k = a.shape[0] if ta else a.shape[1]
    if bias and op.inputs[2].shape.as_list() != [n]:
        return None
    return m, k, n, ta, tb, bias, relu == "relu"


def gemm(op, numpy_form):
    """A `Gemm` for a 2-D float32 MatMul (transposes, no adjoints) or _FusedMatMul of static shapes in the size
    range, or None (then the caller's form runs)."""
    dims = _dims(op)
    if dims is None or not (GEMM_MIN if dims[5] else GEMM_MIN_PLAIN) <= dims[0] * dims[1] * dims[2] < GEMM_MAX:
        return None
    if onednn.api() is None:  # (looked for only once a product of this size is there: loading it takes 20-50 ms)
        return None
    try:
        return Gemm(*dims, numpy_form)
    except onednn.Error:
        return None


# ------------------------------------------------------------------------------------------ SGD updates
class GemmUpdate(_Split):
    """var -= c * (op(a) @ op(b)) as one oneDNN matmul writing into the variable's array (optimize/fusion.py's
    _MatMulAssignSub: a gradient's product, scaled by a learning rate, subtracted from a float32 variable of
    static shape [m, n], as `v.assign_sub(lr * g)` for g = x^T dy). The product is scaled by -c and added to the
    old value (onednn.Api.update_attr): fl(old + fl(-c * acc)), bit for bit what the three ops give on
    oneDNN's product (`Gemm`): the scaled product and the subtraction are the IEEE operations of Mul and
    AssignSubVariableOp, signed zeros included. The variable's array is written in place when nothing else holds
    it, as AssignSubVariableOp's kernel (state/resource_ops.py) does, else the update goes to a copy that
    replaces it; under the variable's lock. It saves the product's array and the two passes over it (w5's
    784x128 weights: 66 -> 54 us)."""

    def __init__(self, m, k, n, ta, tb, c, numpy_form):
        self.shapes = ((k, m) if ta else (m, k), (n, k) if tb else (k, n))
        self.out, self.c, self.numpy_form = (m, n), np.float32(c), numpy_form
        api = onednn.api()
        attr = getattr(api, "dense_update_attr", None)
        if attr is None:
            with _lock:
                attr = getattr(api, "dense_update_attr", None)
                if attr is None:
                    attr = api.dense_update_attr = api.update_attr()
        self.scale = np.array([-self.c], np.float32)  # the runtime weights scale: -c, exactly
        self.scale_md = api.md([1], [1])
        self.bias = False
        self._setup(api, ("update", m, k, n, ta, tb), (m, k, n, False, False, ta, tb, attr))

    def __call__(self, var, a, b):
        api = onednn.api()
        with var._lock:  # read-modify-write under the variable's lock, as AssignSubVariableOp
            old = var._value
            if np.shape(old) != self.out:
                from ..state.resource_ops import update_shape_error
                raise InvalidArgumentError(update_shape_error(np.shape(old), self.out))
            # in place only when nothing else holds the array (refs: the variable, `old`, getrefcount's argument)
            if (old.__class__ is np.ndarray and old.dtype == np.float32 and old.flags.c_contiguous
                    and old.flags.owndata and old.flags.writeable and sys.getrefcount(old) == 3):
                dst = old
            else:
                dst = np.array(old, np.float32, order="C")  # copy on write
            if api is None:  # a forked child: the three ops' NumPy forms
                np.subtract(dst, np.multiply(self.c, self.numpy_form(a, b)), out=dst)
            else:
                self._run(api, dst, a, b)
            if dst is not old:
                var._value = dst
        return ()

    def _run(self, api, dst, a, b):
        pool = self.pool
        try:
            bd = pool.pop()
        except IndexError:
            bd = _Bound(self, api, [(onednn.ATTR_SCALES | onednn.WEIGHTS, self.scale_md, self.scale.ctypes.data)])
        try:
            sd, refs, mems = _set_handle[0], bd.refs, bd.user
            for i, x in enumerate((a, b)):
                ref = refs[i]
                if ref is None or ref() is not x:
                    x = _plain_fast(x, self.shapes[i], self.strides[i])
                    if sd(mems[i], _ptr(x)):
                        raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
                    refs[i] = weakref.ref(x)
            if refs[2] is None or refs[2]() is not dst:  # the variable's array: the same one step after step
                if sd(mems[2], _ptr(dst)):
                    raise onednn.Error("oneDNN: dnnl_memory_set_data_handle failed")
                refs[2] = weakref.ref(dst)
            self.run(api, bd)
        finally:
            pool.append(bd)


def updates_on_onednn(m, k, n):
    """Whether an update's product of m x k x n runs as a `GemmUpdate`: GEMM_MIN_PLAIN to GEMM_MAX multiply-adds
    (below, w5's 128x64x10 last layer, the call's checks cost more than the passes it saves), oneDNN loaded."""
    return GEMM_MIN_PLAIN <= m * k * n < GEMM_MAX and onednn.api() is not None


def gemm_update(m, k, n, ta, tb, c, numpy_form):
    """A `GemmUpdate` where oneDNN runs it (`updates_on_onednn`), else None."""
    if not updates_on_onednn(m, k, n):
        return None
    try:
        return GemmUpdate(m, k, n, ta, tb, c, numpy_form)
    except onednn.Error:
        return None
