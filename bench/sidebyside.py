"""What the side-by-side benchmarks share (bench_train.py, bench_busy.py, bench_jit.py, ...): one worker process
per backend (rivulet, an older rivulet src/, TensorFlow in a Python of its own) that builds its workloads once
and times them each time it is told "go", so the backends alternate round by round; the command line they have
in common; busy processes that spin on the cores, for the busy-machine figures; and workloads more than one
of them times."""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

SPIN = "import time\nt = time.time()\nwhile time.time() - t < 3600:\n    pass\n"


class Worker:
    """`python script --child backend names...` run as a worker: it prints {"ready": true} once its workloads
    are built, then one JSON object of timings (ms) per "go" line it reads."""

    def __init__(self, label, python, script, backend, names, env=None):
        self.label = label
        self.p = subprocess.Popen([python, script, "--child", backend, *names], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env)
        self._read()

    def _read(self):
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"{self.label} worker died (exit {self.p.wait()})")
            if line.startswith("{"):
                return json.loads(line)

    def round(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()
        return self._read()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def parser(doc, workloads, rounds=5, rounds_help="alternate the backends this many times"):
    """The arguments every side-by-side script takes: workload names, --tf, --rounds (and the hidden --child)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"workloads ({', '.join(workloads)}); default all")
    ap.add_argument("--tf", default=os.environ.get("RIVULET_TF_PYTHON"), help="a Python with tensorflow-cpu")
    ap.add_argument("--rounds", type=int, default=rounds, help=rounds_help)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    return ap


def workload_names(a, workloads):
    """The workloads named on the command line (all of them when none is), exiting on an unknown one."""
    names = a.names or list(workloads)
    bad = [n for n in names if n not in workloads]
    if bad:
        sys.exit(f"unknown workload(s) {bad}; known: {', '.join(workloads)}")
    return names


def alternate(workers, rounds):
    """`rounds` rounds (at least one), each worker timed once a round, in turn: {label: {name: [ms, ...]}}."""
    got = {w.label: {} for w in workers}
    for _ in range(max(1, rounds)):
        for w in workers:
            for n, ms in w.round().items():
                got[w.label].setdefault(n, []).append(ms)
    return got


def close(workers):
    for w in workers:
        w.close()


def spread(theirs, mine):
    """The range of the per-round ratios theirs / mine, as "lo-hix"."""
    r = [t / m for t, m in zip(theirs, mine)]
    return f"{min(r):.2f}-{max(r):.2f}x"


def serve(backend, workloads, names):
    """The worker's side: builds workloads[name](tf, np) for each name (each returns a callable that runs once
    and returns its time in ms), warms each up once, then times them all on every "go" line."""
    import numpy as np
    tf = import_backend(backend)
    tf.random.set_seed(0)
    runs = {name: workloads[name](tf, np) for name in names}
    for run in runs.values():
        run()  # warm-up: tracing, first allocations
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip() != "go":
            break
        print(json.dumps({name: run() for name, run in runs.items()}), flush=True)


def timed(fn):
    """fn as a workload run: its wall time in ms."""
    def run():
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3
    return run


def rivulet_env(src):
    """The environment of a worker importing rivulet from the folder `src`."""
    return dict(os.environ, PYTHONPATH=str(src) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@contextlib.contextmanager
def busy(n):
    """n processes spinning on the cores while the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(n)]
    try:
        yield
    finally:
        for s in spinners:
            s.kill()
            s.wait()


def import_backend(backend):
    """The `tf` module of a worker: TensorFlow (quiet) or rivulet."""
    if backend == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import rivulet as tf
    return tf


def keras_lstm(tf, np, n=640):
    """(model, x, y) of the LSTM text classifier: Embedding 5000x32, LSTM(64), Dense 1; 80 tokens."""
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(80,), dtype="int32"),
        layers.Embedding(5000, 32),
        layers.LSTM(64),
        layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.integers(1, 5000, (n, 80)).astype(np.int32)
    y = rng.integers(0, 2, (n, 1)).astype(np.float32)
    return model, x, y


def mlp_step(tf):
    """The seed guides' training step (w5), not yet a tf.function: GradientTape + SGD (0.01) on a 784-128-128-10
    MLP, batch 64; the variables and the batch are closed over (not arguments), as in the seed workload."""
    tf.random.set_seed(0)
    ws = [tf.Variable(tf.random.normal([784, 128]) * 0.05), tf.Variable(tf.random.normal([128, 128]) * 0.05),
          tf.Variable(tf.random.normal([128, 10]) * 0.05)]
    bs = [tf.Variable(tf.zeros([128])), tf.Variable(tf.zeros([128])), tf.Variable(tf.zeros([10]))]
    xb = tf.random.normal([64, 784])
    yb = tf.random.uniform([64], maxval=10, dtype=tf.int32)

    def step():
        with tf.GradientTape() as tape:
            h = xb
            for i in range(3):
                h = tf.matmul(h, ws[i]) + bs[i]
                if i < 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h))
        grads = tape.gradient(loss, ws + bs)
        for v, g in zip(ws + bs, grads):
            v.assign_sub(0.01 * g)
        return loss
    return step


def _run(script, doc, workloads, child, argv, before):
    """A main()'s command line (names, --tf, --rounds, --busy, and --before SRC where `before`) and its workers
    alternating: (args, names, workers, {label: {name: [figure, ...]}}), or None in a --child process."""
    ap = parser(doc, workloads)
    if before:
        ap.add_argument("--before", help="an older rivulet src/ folder: a third worker, for before/after figures")
    ap.add_argument("--busy", type=int, default=0, help="busy processes running during the timed rounds")
    a = ap.parse_args(argv)
    if a.child:
        child(a.child, a.names or list(workloads))
        return None
    names = workload_names(a, workloads)
    src = os.path.join(os.path.dirname(os.path.abspath(script)), "..", "src")
    workers = [Worker("rivulet", sys.executable, script, "rivulet", names, rivulet_env(src))]
    if getattr(a, "before", None):
        workers.append(Worker("before", sys.executable, script, "rivulet", names, rivulet_env(a.before)))
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, script, "tensorflow", names))
    try:
        with busy(a.busy):
            got = alternate(workers, a.rounds)
    finally:
        close(workers)
    return a, names, workers, got


def main_table(script, doc, workloads, child, title, argv=None):
    """The whole main() of a script timing one figure per workload (bench_train.py, bench_infer.py): its command
    line (names, --tf, --rounds, --busy), a rivulet worker and a TensorFlow one alternating, and the table of
    minimums with TensorFlow's time / rivulet's and the ratio's range over the rounds."""
    run = _run(script, doc, workloads, child, argv, before=False)
    if run is None:
        return None
    a, names, workers, got = run
    load = f", {a.busy} busy processes" if a.busy else ", idle"
    width = max(10, max(len(n) for n in names) + 1)
    print(f"{title} (min of {max(1, a.rounds)} rounds{load})")
    print(f"{'workload':{width}} {'rivulet':>10} {'tensorflow':>11} {'ratio':>7}  spread")
    for n in names:
        mine = got["rivulet"][n]
        line = f"{n:{width}} {min(mine):10.1f}"
        if "tensorflow" in got:
            theirs = got["tensorflow"][n]
            line += f" {min(theirs):11.1f} {min(theirs) / min(mine):6.2f}x  {spread(theirs, mine)}"
        print(line)


def timed_cpu(fn):
    """fn as a workload run: [wall ms, CPU ms of this process]."""
    def run():
        t, c = time.perf_counter(), time.process_time()
        fn()
        return [(time.perf_counter() - t) * 1e3, (time.process_time() - c) * 1e3]
    return run


def main_wall_cpu(script, doc, workloads, child, title, argv=None):
    """The whole main() of a script whose workloads give [wall ms, CPU ms] a run (timed_cpu: bench_rnn_gan.py,
    bench_style_transfer.py): names, --tf, --rounds, --busy and --before SRC (an older rivulet src/ folder as a
    third worker), the workers alternating, and a table of minimums, wall / CPU, with each other backend's
    ratio to rivulet's (its time / rivulet's) and the wall ratio's range over the rounds."""
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    run = _run(script, doc, workloads, child, argv, before=True)
    if run is None:
        return None
    a, names, workers, got = run
    load = f", {a.busy} busy processes" if a.busy else ""
    print(f"{title} (min of {max(1, a.rounds)} rounds{load}; load average {load0:.1f} at the start; wall / CPU)")
    labels = [w.label for w in workers]
    width = max(15, max(len(n) for n in names) + 1)
    print(f"{'workload':{width}} " + " ".join(f"{lab:>17}" for lab in labels) + "   ratios to rivulet (wall, CPU)")
    for n in names:
        mine = got["rivulet"][n]
        cells = [f"{min(r[0] for r in got[lab][n]):8.1f}/{min(r[1] for r in got[lab][n]):8.1f}" for lab in labels]
        line = f"{n:{width}} " + " ".join(f"{c:>17}" for c in cells)
        for lab in labels[1:]:
            v = got[lab][n]
            wall = min(r[0] for r in v) / min(r[0] for r in mine)
            cpu = min(r[1] for r in v) / min(r[1] for r in mine)
            line += (f"   {lab} {wall:.2f}x [{spread([r[0] for r in v], [r[0] for r in mine])}]"
                     f" cpu {cpu:.2f}x")
        print(line)
