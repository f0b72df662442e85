"""The parallel executor on wide graphs: independent branches, with and without `parallel_execution`.

    python bench/bench_parallel.py

Two graphs: 4 independent 1024x1024 matmuls (BLAS already uses every core: expect no gain on a small
machine), and 4 independent elementwise branches on 1M-element arrays (single-threaded NumPy ufuncs that
release the GIL: this is where inter-op parallelism pays).
"""
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import rivulet as tf  # noqa: E402


def wide_matmul(a, b, c, d):
    return tf.matmul(a, a), tf.matmul(b, b), tf.matmul(c, c), tf.matmul(d, d)


def wide_elementwise(a, b, c, d):
    return [tf.tanh(tf.exp(x * 0.5) + tf.sqrt(tf.abs(x))) for x in (a, b, c, d)]


def measure(fn, args, parallel):
    tf.config.optimizer.set_experimental_options({"parallel_execution": parallel})
    f = tf.function(fn)
    f(*args)
    return min(timeit.repeat(lambda: f(*args), number=5, repeat=5)) / 5


def main():
    rng = np.random.default_rng(0)
    cases = {"4 x matmul 1024^2": (wide_matmul, [tf.constant(rng.random((1024, 1024), np.float32))
                                                 for _ in range(4)]),
             "4 x elementwise 1M": (wide_elementwise, [tf.constant(rng.random((1000, 1000), np.float32))
                                                       for _ in range(4)])}
    print(f"{'graph':22} {'sequential ms':>14} {'parallel ms':>12} {'speed-up':>9}   (cores: {os.cpu_count()})")
    for name, (fn, args) in cases.items():
        seq, par = measure(fn, args, False), measure(fn, args, True)
        print(f"{name:22} {seq * 1e3:14.2f} {par * 1e3:12.2f} {seq / par:8.2f}x")


if __name__ == "__main__":
    main()
