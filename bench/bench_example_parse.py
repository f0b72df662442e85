"""tf.io.parse_example figures: large packed lists (decoded with NumPy) and a batch of small Examples.

    python bench/bench_example_parse.py [--tf PYTHON] [--rounds N]

Each figure is the best of N rounds (default 5), in milliseconds; with --tf the same cases run under
TensorFlow in that Python (a process of its own) and the ratio TensorFlow / rivulet is shown.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def _cases(tf):
    rng = np.random.default_rng(0)
    f = tf.train.Feature

    def example(**feats):
        return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()
    ones = example(v=f(int64_list=tf.train.Int64List(value=[1] * 2_000_000)))
    wide = example(v=f(int64_list=tf.train.Int64List(
        value=rng.integers(-2 ** 63, 2 ** 63 - 1, 500_000, dtype=np.int64, endpoint=True).tolist())))
    floats = example(v=f(float_list=tf.train.FloatList(value=rng.random(1_000_000, dtype=np.float32).tolist())))
    small = [example(id=f(int64_list=tf.train.Int64List(value=[i, -i])),
                     x=f(float_list=tf.train.FloatList(value=[i / 7])),
                     tags=f(bytes_list=tf.train.BytesList(value=[b"a", b"bc"][:i % 3])))
             for i in range(1000)]
    var_i, var_f = {"v": tf.io.VarLenFeature(tf.int64)}, {"v": tf.io.VarLenFeature(tf.float32)}
    spec = {"id": tf.io.FixedLenFeature([2], tf.int64), "x": tf.io.FixedLenFeature([], tf.float32),
            "tags": tf.io.VarLenFeature(tf.string)}
    return {"2M_small_int64_ms": lambda: tf.io.parse_single_example(ones, var_i),
            "500k_64bit_int64_ms": lambda: tf.io.parse_single_example(wide, var_i),
            "1M_float_ms": lambda: tf.io.parse_single_example(floats, var_f),
            "batch_1000_small_ms": lambda: tf.io.parse_example(small, spec)}


def measure(backend, rounds):
    if backend == "tensorflow":
        import tensorflow as tf
    else:
        import rivulet as tf
    out = {}
    for name, fn in _cases(tf).items():
        fn()  # warm-up (TensorFlow builds its kernels)
        best = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        out[name] = best * 1000
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--child", choices=["tensorflow"], help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(measure(a.child, a.rounds)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    riv = measure("rivulet", a.rounds)
    tfm = {}
    if a.tf:
        got = subprocess.run([a.tf, __file__, "--child", "tensorflow", "--rounds", str(a.rounds)],
                             capture_output=True, text=True, check=True)
        tfm = json.loads(got.stdout.strip().splitlines()[-1])
    print(f"{'figure':24} {'rivulet':>10} {'tensorflow':>11} {'ratio':>8}")
    for k, v in riv.items():
        t = tfm.get(k)
        print(f"{k:24} {v:10.1f} {'' if t is None else f'{t:11.1f}':>11} "
              f"{'' if t is None else f'{t / v:7.2f}x':>8}")


if __name__ == "__main__":
    main()
