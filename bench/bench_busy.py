"""Training on a busy machine: how much slower a step gets when other processes keep the cores busy (issue 26).

    python bench/bench_busy.py [lstm w5] [--tf PYTHON] [--rounds N] [--busy K] [--src DIR ...]

Workloads (synthetic data, fixed seeds):
  lstm  a Keras text classifier's `fit` epoch: Embedding(5000, 32), LSTM(64), Dense(1, sigmoid); Adam, binary
        cross-entropy; 2560 sequences of 80 tokens, batch 64 (40 steps; the LSTM's loop body runs 64x64x256
        and 64x32x256 GEMMs, its gradient replays them per time step)
  w5    the seed guides' training step (tf.function): GradientTape + SGD on a 784-128-128-10 MLP, batch 64;
        the figure is the mean of 50 steps, so stalls count

Each backend is one long-lived worker process (this file with --child) that builds the models and runs a
warm-up; then rounds alternate the backends: first --rounds rounds on the machine as it is ("idle"), then
--rounds rounds with K busy processes (pure-Python spin loops, default 2) running. A figure is the minimum
over the rounds, in milliseconds; `slowdown` is busy / idle for the same backend, `ratio` TensorFlow's time /
rivulet's (> 1: rivulet is faster). --src names a rivulet source folder (its `src/`, e.g. an older commit's
`git archive`) to measure besides this checkout's, labelled by the folder: a before/after in one run.
TensorFlow is optional: --tf names a Python that has tensorflow-cpu (or set RIVULET_TF_PYTHON); rivulet itself
never imports it. The machine's load average when the run starts is printed: the "idle" rounds are only as
idle as the machine is.
"""
import os
import sys
import time
from pathlib import Path

from sidebyside import (Worker, alternate, busy as spinning, close, keras_lstm, mlp_step, parser, rivulet_env,
                        serve, timed, workload_names)

HERE = Path(__file__).resolve().parent
WORKLOADS = ("lstm", "w5")


# ---------------------------------------------------------------------------------------------- child
def _lstm(tf, np):
    model, x, y = keras_lstm(tf, np, 2560)
    return timed(lambda: model.fit(x, y, batch_size=64, epochs=1, verbose=0))


def _w5(tf, np):
    step = tf.function(mlp_step(tf))

    def steps(n=50):
        t = time.perf_counter()
        for _ in range(n):
            step()
        return (time.perf_counter() - t) * 1e3 / n
    return steps


def child(backend, names):
    serve(backend, {"lstm": _lstm, "w5": _w5}, names)


# ---------------------------------------------------------------------------------------------- parent
def main(argv=None):
    ap = parser(__doc__, WORKLOADS, rounds=3, rounds_help="rounds per load (idle, then busy)")
    ap.add_argument("--busy", type=int, default=2, help="busy processes during the busy rounds")
    ap.add_argument("--src", action="append", default=[], help="another rivulet src/ folder to measure too")
    a = ap.parse_args(argv)
    names = workload_names(a, WORKLOADS)
    if a.child:
        return child(a.child, names)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    workers = [Worker("rivulet", sys.executable, __file__, "rivulet", names, rivulet_env(HERE.parent / "src"))]
    for src in a.src:
        workers.append(Worker(f"rivulet@{Path(src).resolve().parent.name}", sys.executable, __file__, "rivulet",
                              names, rivulet_env(Path(src).resolve())))
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, __file__, "tensorflow", names))
    got = {}  # {"idle" or "busy": {label: {name: [ms, ...]}}}
    rounds = max(1, a.rounds)
    try:
        for mode in ("idle", "busy"):
            with spinning(a.busy if mode == "busy" else 0):
                got[mode] = alternate(workers, rounds)
    finally:
        close(workers)
    print(f"ms, min of {rounds} rounds per load; idle = the machine as it was (load average {load:.1f} on "
          f"{os.cpu_count()} cores), busy = plus {a.busy} spinning processes")
    print(f"{'workload':9} {'backend':22} {'idle':>9} {'busy':>9} {'slowdown':>9}")
    for n in names:
        for w in workers:
            idle, busy = min(got["idle"][w.label][n]), min(got["busy"][w.label][n])
            print(f"{n:9} {w.label:22} {idle:9.2f} {busy:9.2f} {busy / idle:8.2f}x")
        if a.tf:
            for w in workers[:-1]:
                idle, busy = (min(got[m]["tensorflow"][n]) / min(got[m][w.label][n]) for m in ("idle", "busy"))
                print(f"{'':9} {'TF / ' + w.label:22} {idle:8.2f}x {busy:8.2f}x")


if __name__ == "__main__":
    main()
