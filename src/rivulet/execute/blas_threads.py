"""BLAS threads per graph: a compiled graph whose GEMMs are all small runs with OpenBLAS on one thread.

OpenBLAS splits every GEMM above ~262k multiply-adds over its threads, whose workers then spin waiting for
the next job. For a graph of many small GEMMs (a small MLP's training step, a stack of Dense layers) the
hand-offs cost more than they save, and on a busy machine, where a worker may be descheduled, one call can
stall for milliseconds (measured on the 2-core machines with other jobs running: w5's step 0.7 -> 3.7-18 ms,
w1's forward 2.3 -> 41-63 ms). Graphs with a bigger GEMM or a convolution keep every thread: from about 2M
multiply-adds a second core pays on a quiet machine (measured on the 2-core AMD EPYC machines, OpenBLAS's
Haswell kernels: 64x784x128 takes 369 us on one thread, 224 us on two; 20x784x64 69 vs 61 us). Like threadpoolctl,
this sets OpenBLAS's global thread count through its C API (the library NumPy loaded); with another BLAS
(MKL, Accelerate) nothing changes. Switch: tf.config.optimizer option `blas_threads_per_graph`.
"""
import threading

import numpy as np

from . import openblas

_SPLIT_MNK = 1 << 18  # OpenBLAS's own threshold: smaller GEMMs already run on one thread
# Up to this size one thread is about as fast on a quiet machine and far steadier on a busy one. The
# compiled tier (rivulet.jit) gives onnxruntime one intra-op thread below the same size.
PARALLEL_MNK = 1 << 21
_GEMM = ("MatMul", "_FusedMatMul", "BatchMatMulV2", "Conv2D", "_FusedConv2D", "Conv2DBackpropInput",
         "Conv2DBackpropFilter", "Einsum", "_MatrixPowerMatMul")
_lock = threading.Lock()
_active = [0, None]  # graphs running single-threaded now, and the thread count to restore after them


def largest_gemm(ops):
    """The largest GEMM/convolution among ops in multiply-adds, estimated as sqrt(|A| |B| |C|) from the
    two operands' and the result's sizes (exact for a GEMM; unknown dims count as 1); 0 when none."""
    best = 0.0
    for op in ops:
        if op.type in _GEMM and op.inputs:
            size = 1.0
            for t in (op.inputs[0], op.inputs[-1] if len(op.inputs) < 2 else op.inputs[1], op.outputs[0]):
                dims = t.shape.as_list() if t.shape.rank is not None else []
                size *= float(np.prod([d or 1 for d in dims])) if dims else 1.0
            best = max(best, size ** 0.5)
    return best


def limit(compiled, ops):
    """Makes `compiled.fn` run with one BLAS thread when every GEMM of `ops` is small but some would be
    split (see the module docstring)."""
    from . import options
    if not options.enabled("blas_threads_per_graph"):
        return
    if not _SPLIT_MNK <= largest_gemm(ops) < PARALLEL_MNK or _openblas() is None:
        return
    compiled.fn = single_threaded(compiled.fn)


def single_threaded(fn):
    get, set_ = _openblas()

    def run(*values):
        with _lock:
            if not _active[0]:
                _active[1] = get()
                if _active[1] != 1:
                    set_(1)
            _active[0] += 1
        try:
            return fn(*values)
        finally:
            with _lock:
                _active[0] -= 1
                if not _active[0] and _active[1] != 1:
                    set_(_active[1])
    run.__wrapped__ = fn
    return run


def _openblas():
    """(get, set) of OpenBLAS's global thread count, or None."""
    api = openblas.api()
    return None if api is None else (api.get_threads, api.set_threads)
