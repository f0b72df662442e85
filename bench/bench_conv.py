"""Conv2D formulations in NumPy on workload w3 (Conv2D(100, 3), [1,200,200,100] float32, VALID, stride 1).

    PYTHONPATH=src python bench/bench_conv.py [--reps N]

Rounds interleave the formulations (the machines are noisy); prints min and median milliseconds. The kernel
rivulet uses is `nn_ops._conv_kernel`: for this stride-1 float32 case `_conv_taps`, one OpenBLAS GEMM per
filter tap summed (beta=1) into cache-sized blocks of output rows, no im2col copy; "blocked im2col" is the
kernel other convolutions take (copy of block k+1 overlapping the matmul of block k). "shifted matmuls" is
the tap-sum idea in plain NumPy, whose matmul cannot accumulate. On the 2-core AMD EPYC (AVX2) machines,
2026-11-25: gemm only 106-108 ms, rivulet kernel 108-114, blocked im2col 130-137, one-gemm im2col 138.
"""
import argparse
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import rivulet as tf
from rivulet.ops import nn_ops

N, H, W, C, K, O = 1, 200, 200, 100, 3, 100


def im2col_one_gemm(x, w):
    """All windows copied into one [OH*OW, K*K*C] matrix, then one matmul."""
    v = sliding_window_view(x, (K, K), axis=(1, 2))  # N, OH, OW, C, KH, KW
    cols = np.ascontiguousarray(v.transpose(0, 1, 2, 4, 5, 3)).reshape(-1, K * K * C)
    return (cols @ w.reshape(-1, O)).reshape(N, H - K + 1, W - K + 1, O)


def shifted_matmuls(x, w):
    """Sum over the K*K filter taps of a contiguous [rows, C] @ [C, O] matmul on the flattened image (rows
    past each image row's end are computed and dropped): no copy of the input at all."""
    oh, ow = H - K + 1, W - K + 1
    xf = x.reshape(H * W, C)
    p = (oh - 1) * W + ow
    out = np.zeros((oh * W, O), np.float32)
    tmp = np.empty((p, O), np.float32)
    for i in range(K):
        for j in range(K):
            np.matmul(xf[i * W + j:i * W + j + p], w[i, j], out=tmp)
            out[:p] += tmp
    return out.reshape(1, oh, W, O)[:, :, :ow]


def einsum_optimize(x, w):
    v = sliding_window_view(x, (K, K), axis=(1, 2))
    return np.einsum("nhwcij,ijco->nhwo", v, w, optimize=True)


def tensordot(x, w):
    v = sliding_window_view(x, (K, K), axis=(1, 2))
    return np.tensordot(v, w, axes=([3, 4, 5], [2, 0, 1]))


def rivulet_kernel(x, w):
    return nn_ops._conv_kernel(x, w, (1, 1), "VALID", (1, 1))


def blocked_im2col(x, w):
    """The kernel without the tap sums (as when NumPy's BLAS is not OpenBLAS)."""
    real = nn_ops.openblas.api
    nn_ops.openblas.api = lambda: None
    try:
        return nn_ops._conv_kernel(x, w, (1, 1), "VALID", (1, 1))
    finally:
        nn_ops.openblas.api = real


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, H, W, C), dtype=np.float32)
    w = rng.standard_normal((K, K, C, O), dtype=np.float32)
    xt, wt = tf.constant(x), tf.constant(w)
    fn = tf.function(lambda a, b: tf.nn.conv2d(a, b, 1, "VALID"))
    cols = np.ones(((H - K + 1) * (W - K + 1), K * K * C), np.float32)
    cands = {
        "gemm only (floor)": lambda: cols @ w.reshape(-1, O),
        "im2col, one gemm": lambda: im2col_one_gemm(x, w),
        "shifted matmuls": lambda: shifted_matmuls(x, w),
        "tensordot": lambda: tensordot(x, w),
        "einsum optimize": lambda: einsum_optimize(x, w),
        "rivulet kernel": lambda: rivulet_kernel(x, w),
        "blocked im2col": lambda: blocked_im2col(x, w),
        "tf.nn.conv2d eager": lambda: tf.nn.conv2d(xt, wt, 1, "VALID"),
        "tf.function conv2d": lambda: fn(xt, wt),
    }
    ref = im2col_one_gemm(x, w)
    for name, f in cands.items():
        if "floor" not in name:
            out = f()
            out = out.numpy() if hasattr(out, "numpy") else out
            assert np.allclose(out, ref, atol=2e-3), name
    times = {k: [] for k in cands}
    for _ in range(args.reps):
        for name, f in cands.items():
            if name in ("einsum optimize", "tensordot") and len(times[name]) >= 2:
                continue  # slow ones: two rounds are enough
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    for name, ts in times.items():
        ts = sorted(ts)
        print(f"{name:22s} min {ts[0] * 1e3:7.1f} ms   median {ts[len(ts) // 2] * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
