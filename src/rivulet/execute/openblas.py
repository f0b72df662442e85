"""The OpenBLAS that NumPy loaded, called directly where NumPy has no door: its thread count, and GEMM that
accumulates into its output (C = A @ B + beta * C), which NumPy's matmul cannot do.

The convolution kernel uses `shifted_gemm_sum` to sum one GEMM per filter tap into a block of output rows while it
stays in cache, with no im2col copy. Every call checks its arrays (dtype, 2-D shapes that agree, rows
whose elements are contiguous, a writeable C) before any pointer reaches C code; anything else raises
ValueError, and callers fall back to NumPy. With another BLAS (MKL, Accelerate), or none found, `api()`
is None and nothing here is used.
"""
import ctypes
import os
import threading
from pathlib import Path

import numpy as np

_found = []  # [Api] once found; [None] when there is no OpenBLAS to talk to
_lock = threading.Lock()


class Api:
    __slots__ = ("get_threads", "set_threads", "_gemm")

    def __init__(self, get, set_, gemm):
        self.get_threads, self.set_threads, self._gemm = get, set_, gemm

    def has_gemm(self, dtype):
        return np.dtype(dtype) in self._gemm

    def shifted_gemm_sum(self, a, offsets, bs, out):
        """out[...] = sum over t of a[offsets[t]:offsets[t] + m] @ bs[t], m = len(out): one GEMM per term,
        each accumulating into `out` (beta=1) while it is in cache. a: [rows, k], bs: [k, n] each, out:
        [m, n]; one float dtype, each with unit stride along its rows (the row stride is BLAS's leading
        dimension). Every shape and bound is checked here, once, before any pointer reaches C."""
        fn = self._gemm.get(a.dtype)
        if fn is None or out.dtype != a.dtype or any(b.dtype != a.dtype for b in bs):
            raise ValueError(f"shifted_gemm_sum: no BLAS GEMM for {a.dtype} -> {out.dtype}")
        if a.ndim != 2 or out.ndim != 2 or any(b.ndim != 2 for b in bs) or len(bs) != len(offsets):
            raise ValueError("shifted_gemm_sum: 2-D operands, one per offset")
        (m, n), k = out.shape, a.shape[1]
        if any(b.shape != (k, n) for b in bs):
            raise ValueError(f"shifted_gemm_sum: [{m}, {k}] @ {[b.shape for b in bs]} -> {out.shape} do not agree")
        if any(not 0 <= off <= a.shape[0] - m for off in offsets):
            raise ValueError(f"shifted_gemm_sum: a row offset in {offsets} leaves {a.shape[0]} rows")
        if not out.flags.writeable:
            raise ValueError("shifted_gemm_sum: output is read-only")
        lda, ldc = _lead(a), _lead(out)
        if m == 0 or n == 0:
            return out
        if k == 0 or not bs:
            out.fill(0)
            return out
        pa, pc = a.ctypes.data, out.ctypes.data
        step = a.strides[0]
        for t, (off, b) in enumerate(zip(offsets, bs)):
            fn(101, 111, 111, m, n, k, 1.0, pa + off * step, lda, b.ctypes.data, _lead(b), 1.0 if t else 0.0,
               pc, ldc)
        return out


def _lead(t):
    """BLAS's leading dimension of a row-major 2-D view: its row stride in elements."""
    rows, cols = t.shape
    s0, s1 = t.strides
    size = t.itemsize
    if cols > 1 and s1 != size:
        raise ValueError("gemm: rows must be contiguous")
    if rows > 1 and (s0 % size or s0 // size < cols):
        raise ValueError("gemm: rows overlap or are misaligned")
    return max(s0 // size if rows > 1 else cols, cols, 1)


def api():
    """The OpenBLAS entry points, or None."""
    if not _found:
        with _lock:
            if not _found:
                _found.append(_find())
    return _found[0]


# (prefix of the thread functions, prefix of cblas_*gemm, suffix, integer type): NumPy 2's scipy-openblas
# builds (64- and 32-bit integers), then the plain OpenBLAS names older wheels and distributions use.
_NAMES = (("scipy_openblas_", "scipy_cblas_", "64_", ctypes.c_int64), ("scipy_openblas_", "scipy_cblas_", "", ctypes.c_int),
          ("openblas_", "cblas_", "64_", ctypes.c_int64), ("openblas_", "cblas_", "", ctypes.c_int))


def _find():
    root = Path(np.__file__).parent
    for folder in (root.parent / "numpy.libs", root / ".libs", root / "_core", root.parent / "scipy_openblas64" / "lib",
                   root.parent / "scipy_openblas32" / "lib"):
        if not folder.is_dir():
            continue
        for lib in sorted(folder.glob("*openblas*")):
            try:
                dll = ctypes.CDLL(str(lib))
            except OSError:
                continue
            for tprefix, gprefix, suffix, integer in _NAMES:
                get = getattr(dll, f"{tprefix}get_num_threads{suffix}", None)
                set_ = getattr(dll, f"{tprefix}set_num_threads{suffix}", None)
                if get is None or set_ is None:
                    continue
                get.restype, set_.argtypes = ctypes.c_int, [ctypes.c_int]
                gemm = {}
                for dtype, letter, real in ((np.float32, "s", ctypes.c_float), (np.float64, "d", ctypes.c_double)):
                    fn = getattr(dll, f"{gprefix}{letter}gemm{suffix}", None)
                    if fn is not None:
                        e, i, p = ctypes.c_int, integer, ctypes.c_void_p
                        fn.argtypes = [e, e, e, i, i, i, real, p, i, p, i, real, p, i]
                        fn.restype = None
                        gemm[np.dtype(dtype)] = fn
                _shorten_spin(dll)
                return Api(get, set_, gemm)
    return None


# OpenBLAS's idle workers spin for 2**28 CPU cycles (~0.1 s) after every threaded GEMM before they sleep: on
# a busy machine that spinning takes the cores the caller's next single-threaded ops (an RNN's loop body, the
# next layer) need - a Keras GRU predict measured 3x the CPU time and 2-6x the wall time with two other
# processes running. 2**20 cycles (~0.4 ms) still covers back-to-back GEMMs. OpenBLAS reads the variable once,
# when it loads (before rivulet can set it), so it is re-read here and the workers restarted (lazily, on the
# next threaded GEMM) with it. A value the user set is kept.
_SPIN_LOG2_CYCLES = "20"


def _shorten_spin(dll):
    read, stop = (getattr(dll, n, None) for n in ("openblas_read_env", "blas_thread_shutdown_"))
    if read is None or stop is None or "OPENBLAS_THREAD_TIMEOUT" in os.environ:
        return
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = _SPIN_LOG2_CYCLES
    try:
        read()
    finally:
        del os.environ["OPENBLAS_THREAD_TIMEOUT"]  # not passed on to the user's subprocesses
    stop()
