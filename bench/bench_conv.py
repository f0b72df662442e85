"""Conv2D formulations in NumPy on workload w3 (Conv2D(100, 3), [1,200,200,100] float32, VALID, stride 1).

    PYTHONPATH=src python bench/bench_conv.py [--reps N] [--shapes | --onednn]

Rounds interleave the formulations (the machines are noisy); prints min and median milliseconds. The kernel
rivulet uses is `nn_ops._conv_kernel`: for this stride-1 float32 case `_conv_taps`, one OpenBLAS GEMM per
filter tap summed (beta=1) into cache-sized blocks of output rows, no im2col copy; "blocked im2col" is the
kernel other convolutions take (copy of block k+1 overlapping the matmul of block k). "shifted matmuls" is
the tap-sum idea in plain NumPy, whose matmul cannot accumulate. On the 2-core AMD EPYC (AVX2) machines,
2026-11-25: gemm only 106-108 ms, rivulet kernel 108-114, blocked im2col 130-137, one-gemm im2col 138.

--shapes times rivulet's kernel against blocked im2col on typical 3x3 layers instead (nn_ops._taps_pay
chooses between them from these; same machines, ratios im2col / tap sums): 64x28x28 with 1/3/4 input
channels 0.4-0.8x (im2col kept), 16 channels 1.5x, 32 1.1-1.2x, 64 1.0-1.4x, 200x200x100 1.2x; 128-256
channels 0.87-1.0x on 14x14 and 28x28 images (im2col kept), 1.03-1.13x on 56x56 and larger.

--onednn times every kernel of bench_train.py's convnet and convae layers with the onednn extra against
NumPy's (process CPU time, both on one thread; a (T) layer's input gradient is its Conv2DTranspose's
forward). 2026-11-25, the 2-core AMD EPYC (AVX-512) machine, oneDNN 3.2 (onednn-cpu-gomp 2023.2), NumPy ms /
oneDNN ms: convnet conv2 forward 8.13 / 2.68, input grad 7.30 / 3.14, filter grad 7.35 / 2.91; conv1 forward
1.58 / 0.43, filter grad 1.28 / 0.42; pool1 gradient 3.32 / 1.25; the convae's layers 1.1-8.2x; one input
channel's input gradient 0.4x (1.67 / 4.67: it stays on NumPy).
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


def blocked_im2col(x, w, padding="VALID"):
    """The kernel without the tap sums (as when NumPy's BLAS is not OpenBLAS)."""
    real = nn_ops.openblas.api
    nn_ops.openblas.api = lambda: None
    try:
        return nn_ops._conv_kernel(x, w, (1, 1), padding, (1, 1))
    finally:
        nn_ops.openblas.api = real


SHAPES = [(64, 28, 1, 32, "VALID"), (64, 28, 16, 16, "SAME"), (64, 26, 32, 64, "VALID"), (32, 32, 64, 64, "SAME"),
          (16, 14, 128, 128, "SAME"), (8, 56, 128, 128, "SAME"), (4, 28, 256, 256, "SAME"), (1, 200, 100, 100, "VALID")]


def shapes(reps):
    """Tap sums (forced) against blocked im2col: batch, image size, in/out channels, padding."""
    rng = np.random.default_rng(0)
    real = nn_ops._taps_pay
    for n, h, c, o, pad in SHAPES:
        x = rng.standard_normal((n, h, h, c), dtype=np.float32)
        w = rng.standard_normal((3, 3, c, o), dtype=np.float32)
        taps, cols = [], []
        for _ in range(reps):
            nn_ops._taps_pay = lambda *a: True
            try:
                t = time.perf_counter()
                nn_ops._conv_kernel(x, w, (1, 1), pad, (1, 1))
                taps.append(time.perf_counter() - t)
            finally:
                nn_ops._taps_pay = real
            t = time.perf_counter()
            blocked_im2col(x, w, pad)
            cols.append(time.perf_counter() - t)
        print(f"{n}x{h}x{h}x{c} -> {o} {pad:5s}  tap sums {min(taps) * 1e3:7.2f} ms  im2col {min(cols) * 1e3:7.2f} ms  "
              f"ratio {min(cols) / min(taps):.2f}  (chosen: {'taps' if real((n, h, h, c), c, *_out(h, pad)) else 'im2col'})")


# The convolutions and pools of bench_train.py's convnet (batch 128) and convae (batch 32): (name, op, input
# shape, filter shape or ksize, strides, padding). Conv2DTranspose's forward is Conv2D's input gradient.
LAYERS = [
    ("convnet conv1", "conv", (128, 28, 28, 1), (3, 3, 1, 32), (1, 1), "VALID"),
    ("convnet conv2", "conv", (128, 13, 13, 32), (3, 3, 32, 64), (1, 1), "VALID"),
    ("convnet pool1", "pool", (128, 26, 26, 32), (2, 2), (2, 2), "VALID"),
    ("convnet pool2", "pool", (128, 11, 11, 64), (2, 2), (2, 2), "VALID"),
    ("convae enc1", "conv", (32, 28, 28, 1), (3, 3, 1, 16), (2, 2), "SAME"),
    ("convae enc2", "conv", (32, 14, 14, 16), (3, 3, 16, 8), (2, 2), "SAME"),
    ("convae dec1 (T)", "conv", (32, 14, 14, 8), (3, 3, 8, 8), (2, 2), "SAME"),
    ("convae dec2 (T)", "conv", (32, 28, 28, 16), (3, 3, 16, 8), (2, 2), "SAME"),
    ("convae out", "conv", (32, 28, 28, 16), (3, 3, 16, 1), (1, 1), "SAME"),
]


def onednn_layers(reps):
    """Each layer's kernels (forward, input gradient, filter gradient; pool and pool gradient) with the
    onednn extra and on NumPy, in milliseconds of this process's CPU time per call (min over reps rounds;
    oneDNN on one thread, as NumPy's kernels on one OpenBLAS thread), the machine's load does not count."""
    from rivulet.execute import blas_threads, onednn
    if onednn.api() is None:
        raise SystemExit("the onednn extra is not installed (pip install 'rivulet[onednn]')")
    rng = np.random.default_rng(0)
    real = nn_ops._dnnl
    print(f"{'layer':18s} {'kernel':12s} {'numpy ms':>9s} {'onednn ms':>10s} {'ratio':>6s}")
    for name, kind, xs, ws, st, pad in LAYERS:
        x = rng.standard_normal(xs, dtype=np.float32)
        if kind == "conv":
            w = rng.standard_normal(ws, dtype=np.float32)
            y = nn_ops._conv_kernel(x, w, st, pad, (1, 1))
            dy = rng.standard_normal(y.shape, dtype=np.float32)
            kernels = {"forward": lambda: nn_ops._conv_kernel(x, w, st, pad, (1, 1)),
                       "input grad": lambda: nn_ops._conv_backprop_input_kernel(x, w, dy, st, pad, (1, 1)),
                       "filter grad": lambda: nn_ops._conv_backprop_filter_kernel(x, w, dy, st, pad, (1, 1))}
        else:
            y = nn_ops._max_pool_kernel(x, ws, st, pad)
            dy = rng.standard_normal(y.shape, dtype=np.float32)
            kernels = {"max pool": lambda: nn_ops._max_pool_kernel(x, ws, st, pad),
                       "pool grad": lambda: nn_ops._max_pool_grad_kernel(x, y, dy, ws, st, pad)}
        for kname, f in kernels.items():
            got = {}
            for label, dnnl in (("numpy", lambda *a: False), ("onednn", real)):
                nn_ops._dnnl = dnnl
                try:
                    with blas_threads.one_thread():
                        blas_threads._active[0] += 1  # oneDNN on one thread too
                        try:
                            f()
                            ts = []
                            for _ in range(reps):
                                t = time.process_time()
                                f()
                                ts.append(time.process_time() - t)
                        finally:
                            blas_threads._active[0] -= 1
                finally:
                    nn_ops._dnnl = real
                got[label] = min(ts) * 1e3
            ratio = got["numpy"] / got["onednn"]
            print(f"{name:18s} {kname:12s} {got['numpy']:9.2f} {got['onednn']:10.2f} {ratio:5.1f}x")


def _out(h, pad):
    oh = h if pad == "SAME" else h - K + 1
    p = (1, 1) if pad == "SAME" else (0, 0)
    return oh, oh, p, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--shapes", action="store_true", help="typical layers: tap sums against im2col")
    ap.add_argument("--onednn", action="store_true", help="the convnet's and convae's layers: oneDNN against NumPy")
    args = ap.parse_args()
    if args.shapes:
        return shapes(min(args.reps, 3))
    if args.onednn:
        return onednn_layers(args.reps)
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
