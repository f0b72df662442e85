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
import argparse
import os
import sys
import time
from pathlib import Path

from sidebyside import Worker, busy as spinning, keras_lstm, rivulet_env, serve, timed

HERE = Path(__file__).resolve().parent
WORKLOADS = ("lstm", "w5")


# ---------------------------------------------------------------------------------------------- child
def _lstm(tf, np):
    model, x, y = keras_lstm(tf, np, 2560)
    return timed(lambda: model.fit(x, y, batch_size=64, epochs=1, verbose=0))


def _w5(tf, np):
    tf.random.set_seed(0)
    w = [tf.Variable(tf.random.normal([784, 128]) * 0.05), tf.Variable(tf.random.normal([128, 128]) * 0.05),
         tf.Variable(tf.random.normal([128, 10]) * 0.05)]
    b = [tf.Variable(tf.zeros([128])), tf.Variable(tf.zeros([128])), tf.Variable(tf.zeros([10]))]
    xb = tf.random.normal([64, 784])
    yb = tf.random.uniform([64], maxval=10, dtype=tf.int32)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            h = xb
            for i in range(3):
                h = tf.matmul(h, w[i]) + b[i]
                if i < 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h))
        grads = tape.gradient(loss, w + b)
        for v, g in zip(w + b, grads):
            v.assign_sub(0.01 * g)
        return loss

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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"workloads ({', '.join(WORKLOADS)}); default all")
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow-cpu")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per load (idle, then busy)")
    ap.add_argument("--busy", type=int, default=2, help="busy processes during the busy rounds")
    ap.add_argument("--src", action="append", default=[], help="another rivulet src/ folder to measure too")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    names = a.names or list(WORKLOADS)
    if a.child:
        return child(a.child, names)
    bad = [n for n in names if n not in WORKLOADS]
    if bad:
        sys.exit(f"unknown workload(s) {bad}; known: {', '.join(WORKLOADS)}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    workers = [Worker("rivulet", sys.executable, __file__, "rivulet", names, rivulet_env(HERE.parent / "src"))]
    for src in a.src:
        workers.append(Worker(f"rivulet@{Path(src).resolve().parent.name}", sys.executable, __file__, "rivulet",
                              names, rivulet_env(Path(src).resolve())))
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, __file__, "tensorflow", names))
    got = {w.label: {n: {"idle": [], "busy": []} for n in names} for w in workers}
    rounds = max(1, a.rounds)
    try:
        for mode in ("idle", "busy"):
            with spinning(a.busy if mode == "busy" else 0):
                for _ in range(rounds):
                    for w in workers:
                        for n, ms in w.round().items():
                            got[w.label][n][mode].append(ms)
    finally:
        for w in workers:
            w.close()
    print(f"ms, min of {rounds} rounds per load; idle = the machine as it was (load average {load:.1f} on "
          f"{os.cpu_count()} cores), busy = plus {a.busy} spinning processes")
    print(f"{'workload':9} {'backend':22} {'idle':>9} {'busy':>9} {'slowdown':>9}")
    for n in names:
        for w in workers:
            idle, busy = min(got[w.label][n]["idle"]), min(got[w.label][n]["busy"])
            print(f"{n:9} {w.label:22} {idle:9.2f} {busy:9.2f} {busy / idle:8.2f}x")
        if a.tf:
            tf_ = got["tensorflow"][n]
            for w in workers[:-1]:
                mine = got[w.label][n]
                print(f"{'':9} {'TF / ' + w.label:22} {min(tf_['idle']) / min(mine['idle']):8.2f}x "
                      f"{min(tf_['busy']) / min(mine['busy']):8.2f}x")


if __name__ == "__main__":
    main()
