"""Tracing cost side by side (seed workload w6, and a Keras model's first `fit` step): rivulet vs TensorFlow.

    python bench/bench_trace.py [--tf PYTHON] [--rounds N] [--src OLD/src]

Each figure is one fresh process per backend per round, the rounds alternating rivulet / TensorFlow (/ the
old rivulet of --src), each figure the minimum over the rounds, in wall and CPU milliseconds (the process's CPU
time, every thread's: the figure a loaded machine moves least):
  w6_cold   the first call of w6's tf.function (`for _ in range(1000): x = x * 1.0001 + 0.5`) as the first
            tf.function of the process: trace, AutoGraph, optimise, compile, run, and the lazy imports they need
            (what `seed_bench.py w6` alone measures)
  w6_warm   the same after another function was traced (what w6 measures after the other seed workloads)
  fit_first a Keras `fit` of one batch of keras-io's MNIST convnet (bench_train.py's convnet, batch 128) less
            a second such `fit`: the train step's trace and compile, as the second model of the process
Ratios are TensorFlow's time / rivulet's.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r'''
import os, sys, time, json
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
backend, what = sys.argv[1], sys.argv[2]
import importlib
tf = importlib.import_module(backend)
import numpy as np

def clock():
    return time.perf_counter(), time.process_time()

def since(t):
    w, c = clock()
    return {"wall": (w - t[0]) * 1e3, "cpu": (c - t[1]) * 1e3}

def chain(x):
    for _ in range(1000):
        x = x * 1.0001 + 0.5
    return x

def small(x):
    for _ in range(3):
        x = x * 2.0 + 1.0
    return x

out = {}
if what == "w6_cold":
    x = tf.constant(1.0)
    t = clock(); tf.function(chain)(x); out = since(t)
elif what == "w6_warm":
    tf.function(small)(tf.constant(1.0))
    x = tf.constant(1.0)
    t = clock(); tf.function(chain)(x); out = since(t)
else:
    layers = tf.keras.layers
    rng = np.random.default_rng(0)
    x = rng.random((128, 28, 28, 1), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]

    def build():
        m = tf.keras.Sequential([
            tf.keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"), layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"), layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(), layers.Dropout(0.5), layers.Dense(10, activation="softmax")])
        m.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
        return m

    build().fit(x, y, batch_size=128, epochs=1, verbose=0)  # the first model pays the lazy imports
    m = build()
    t = clock(); m.fit(x, y, batch_size=128, epochs=1, verbose=0); first = since(t)
    t = clock(); m.fit(x, y, batch_size=128, epochs=1, verbose=0); second = since(t)
    out = {k: first[k] - second[k] for k in first}
print(json.dumps(out))
'''

WORKLOADS = ("w6_cold", "w6_warm", "fit_first")


def run(python, backend, what, src=None):
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([python, "-c", CHILD, backend, what], capture_output=True, text=True, env=env,
                       timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode or not lines:
        sys.exit(f"{backend} {what} failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(lines[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow")
    ap.add_argument("--src", help="an older rivulet's src/ to time alongside (its figures as 'old')")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("workloads", nargs="*", default=list(WORKLOADS))
    a = ap.parse_args(argv)
    backends = [("rivulet", sys.executable, str(HERE.parent / "src"))]
    if a.src:
        backends.append(("old", sys.executable, a.src))
    if a.tf:
        backends.append(("tensorflow", a.tf, None))
    best = {}
    for _ in range(max(1, a.rounds)):
        for what in a.workloads:
            for label, python, src in backends:
                r = run(python, "tensorflow" if label == "tensorflow" else "rivulet", what, src)
                for k, v in r.items():
                    key = (what, label, k)
                    best[key] = min(best.get(key, v), v)
    labels = [b[0] for b in backends]
    print(f"{'workload':10} " + " ".join(f"{lb + ' ' + k:>18}" for lb in labels for k in ("wall", "cpu")) +
          ("   TF/rivulet wall, cpu" if a.tf else ""))
    for what in a.workloads:
        row = " ".join(f"{best[(what, lb, k)]:18.1f}" for lb in labels for k in ("wall", "cpu"))
        ratio = ""
        if a.tf:
            ratio = "   " + ", ".join(f"{best[(what, 'tensorflow', k)] / best[(what, 'rivulet', k)]:.1f}x"
                                      for k in ("wall", "cpu"))
        print(f"{what:10} {row}{ratio}")


if __name__ == "__main__":
    main()
