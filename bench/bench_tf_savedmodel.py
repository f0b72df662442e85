"""Load + first call of a TensorFlow-written SavedModel in a fresh process: rivulet vs TensorFlow.

    python bench/bench_tf_savedmodel.py [--tf /path/to/python-with-tensorflow] [--model DIR] [--repeat N]

Each run is a new interpreter that imports the library, loads the model (tf.saved_model.load), and calls
its serving_default signature once on the inputs in DIR.io.npz; the figure is that process's wall time from
start to the first result (import included), the minimum over --repeat runs, interleaved, with bytecode
cached as for an installed package. The columns split it: import, load, first call. Default model:
tests/tf_savedmodel/fixtures/keras_mlp (Keras Dense-relu-Dense-softmax written by TensorFlow 2.21).
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MODEL = os.path.join(ROOT, "tests", "tf_savedmodel", "fixtures", "keras_mlp")

CHILD = r"""
import time
t0 = time.perf_counter()
import os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import {module} as tf
t1 = time.perf_counter()
d = sys.argv[1]
io = np.load(d + ".io.npz", allow_pickle=False)
m = tf.saved_model.load(d)
t2 = time.perf_counter()
out = m.signatures["serving_default"](**{{k[3:]: tf.constant(io[k]) for k in io.files if k.startswith("in_")}})
vals = {{k: np.asarray(v) for k, v in out.items()}}
t3 = time.perf_counter()
ok = all(np.allclose(vals[k], io["out_" + k], rtol=1e-4, atol=1e-6) for k in vals)
print(t1 - t0, t2 - t1, t3 - t2, ok)
"""


def run(python, module, model, env):
    start = time.perf_counter()
    out = subprocess.run([python, "-c", CHILD.format(module=module), model], capture_output=True, text=True,
                         env=env, check=False)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{module} failed:\n{out.stderr[-2000:]}")
    imp, load, call, ok = out.stdout.split()
    return {"wall": wall, "import": float(imp), "load": float(load), "call": float(call), "ok": ok == "True"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tf", help="a Python interpreter with TensorFlow installed, for the side-by-side figure")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    # As an installed package runs: bytecode cached (PYTHONDONTWRITEBYTECODE would recompile every source
    # file in every process), written by one warm-up run of each that is not counted.
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env = dict(base, PYTHONPATH=os.path.join(ROOT, "src"))
    runs = {"rivulet": []}
    run(sys.executable, "rivulet", a.model, env)
    if a.tf:
        runs["tensorflow"] = []
        run(a.tf, "tensorflow", a.model, base)
    for _ in range(a.repeat):  # interleaved: both see the same machine load
        runs["rivulet"].append(run(sys.executable, "rivulet", a.model, env))
        if a.tf:
            runs["tensorflow"].append(run(a.tf, "tensorflow", a.model, base))
    best = {k: {f: min(r[f] for r in v) for f in ("wall", "import", "load", "call")} for k, v in runs.items()}
    print(f"model: {os.path.relpath(a.model)}   (min of {a.repeat} fresh processes)")
    print(f"{'':12}{'process':>10}{'import':>10}{'load':>10}{'1st call':>10}{'load+call':>11}  outputs match")
    for k, b in best.items():
        ok = all(r["ok"] for r in runs[k])
        print(f"{k:12}{b['wall']:>9.3f}s{b['import']:>9.3f}s{b['load']:>9.3f}s{b['call']:>9.3f}s"
              f"{b['load'] + b['call']:>10.3f}s  {ok}")
    if a.tf:
        r, t = best["rivulet"], best["tensorflow"]
        print(f"ratio (TensorFlow / rivulet): process {t['wall'] / r['wall']:.1f}x, "
              f"load + first call {(t['load'] + t['call']) / (r['load'] + r['call']):.1f}x")


if __name__ == "__main__":
    main()
