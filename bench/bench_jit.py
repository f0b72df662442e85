"""The compiled tier (jit_compile=True) side by side with TensorFlow (issue 26).

    python bench/bench_jit.py [w1 w5 lstm64 lstm1024 gru64 gru1024] [--tf PYTHON] [--src OLD/src] [--rounds N]
                              [--busy K]

Workloads (fixed seeds):
  w1        the seed guides' 100 Dense(64, relu) layers on a [20, 28, 28] batch (intro_to_graphs), one call
  w5        the seed guides' training step: GradientTape + SGD on a 784-128-128-10 MLP, batch 64
  lstm64    Keras `predict` of the text classifier Embedding(5000, 32), LSTM(64), Dense(1, sigmoid) on 1024
            sequences of 80 tokens, batch 64 (16 steps)
  lstm1024  the same on 2048 sequences, batch 1024 (2 steps)
  gru64, gru1024   the same with GRU(64)
rivulet runs each with jit_compile=True (tf.function's, or Keras `compile`'s); TensorFlow's figure is the
better of its XLA (jit_compile=True) and its plain graph mode, as in seed_bench.py. w1 and w5 are per call
(the best of 20 calls in each round), the predict workloads per `predict` call.
Each backend is one long-lived worker (this file with --child, bench/sidebyside.py's protocol) that builds
everything and warms it up (rivulet compiles its jit functions then); the rounds alternate the backends. A
figure is the minimum over the rounds, in ms; the ratio is TensorFlow's time / rivulet's (> 1: rivulet is
faster), with its range over the rounds; each workload's `cpu` row is the process's CPU time per call (every
thread's, in the mode that made the fastest call; the minimum over the rounds); --src adds a column for an older rivulet's src/ folder (`before`).
--busy K runs K busy processes (pure-Python spin loops) during the timed rounds: the loaded-machine figures.
On a machine others load, `chrt -f 10 python bench/bench_jit.py ...` (as root) runs every worker at real-time
priority, the cores theirs whenever they want them: a stand-in for the idle-machine figures (not with --busy:
the spinners would be real-time too).
TensorFlow is optional: --tf names a Python that has it (or set
RIVULET_TF_PYTHON); rivulet never imports it.
"""
import sys
import time
from pathlib import Path

from sidebyside import (Worker, alternate, busy, close, mlp_step, parser, rivulet_env, serve, spread,
                        workload_names)

HERE = Path(__file__).resolve().parent
WORKLOADS = ("w1", "w5", "lstm64", "lstm1024", "gru64", "gru1024")
CALLS = 20  # calls per round of w1 and w5: their figure is the fastest


def _best_call(fns, calls=CALLS):
    """A workload run timing each fn `calls` times: the fastest call of any, in ms; its `cpu_ms` attribute is
    then the process's CPU time (every thread's) per call of the fn that made the fastest call."""
    def run():
        best = float("inf")
        for fn in fns:
            fastest = float("inf")
            c0 = time.process_time()
            for _ in range(calls):
                t = time.perf_counter()
                fn()
                fastest = min(fastest, time.perf_counter() - t)
            if fastest < best:
                best, run.cpu_ms = fastest, (time.process_time() - c0) * 1e3 / calls
        return best * 1e3
    return run


def _is_tf(tf):
    return tf.__name__ == "tensorflow"


def _modes(tf):
    """The jit_compile settings a backend is timed with: rivulet's compiled tier; TensorFlow's XLA and graph."""
    return (True, False) if _is_tf(tf) else (True,)


def _w1(tf, np):
    class SequentialModel(tf.keras.Model):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.flatten = tf.keras.layers.Flatten()
            self.my_layers = [tf.keras.layers.Dense(64, activation="relu") for _ in range(100)]
            self.dropout = tf.keras.layers.Dropout(0.2)
            self.dense_2 = tf.keras.layers.Dense(10)

        def call(self, x):
            x = self.flatten(x)
            for layer in self.my_layers:
                x = layer(x)
            x = self.dropout(x)
            return self.dense_2(x)
    inp = tf.random.uniform([20, 28, 28])
    fns = []
    for jit in _modes(tf):
        m = SequentialModel()
        m.call = tf.function(m.call, jit_compile=jit)
        for _ in range(5):  # rivulet: warm-up calls, then compiled
            m(inp)
        fns.append(lambda m=m: m(inp))
    return _best_call(fns)


def _w5(tf, np):
    fns = []
    for jit in _modes(tf):
        f = tf.function(mlp_step(tf), jit_compile=jit)
        for _ in range(20):  # rivulet: warm-up, compile and the timed trials against NumPy
            f()
        fns.append(f)
    return _best_call(fns)


def _predict(kind, rows, batch):
    def build(tf, np):
        rng = np.random.default_rng(0)
        x = rng.integers(1, 5000, (rows, 80)).astype(np.int32)
        fns = []
        for jit in _modes(tf):
            tf.random.set_seed(0)
            layers = tf.keras.layers
            model = tf.keras.Sequential([tf.keras.Input(shape=(80,), dtype="int32"), layers.Embedding(5000, 32),
                                         getattr(layers, kind)(64), layers.Dense(1, activation="sigmoid")])
            model.compile(loss="binary_crossentropy", optimizer="adam", jit_compile=jit)
            for _ in range(2):
                model.predict(x, batch_size=batch, verbose=0)
            fns.append(lambda model=model: model.predict(x, batch_size=batch, verbose=0))
        return _best_call(fns, calls=1)  # the fastest single predict
    return build


BUILDERS = {"w1": _w1, "w5": _w5, "lstm64": _predict("LSTM", 1024, 64), "lstm1024": _predict("LSTM", 2048, 1024),
            "gru64": _predict("GRU", 1024, 64), "gru1024": _predict("GRU", 2048, 1024)}


def child(backend, names):
    if backend != "tensorflow":
        import rivulet
        rivulet.jit.configure(warmup_calls=2, background=False)
    built = {}

    def keep(name):  # the workload's run, remembered for its "cpu" figure (timed right after it)
        def build(tf, np):
            built[name] = BUILDERS[name](tf, np)
            return built[name]
        return build
    workloads = {}
    for n in names:
        workloads[n] = keep(n)
        workloads[n + " cpu"] = lambda tf, np, n=n: lambda: built[n].cpu_ms
    serve(backend, workloads, [k for n in names for k in (n, n + " cpu")])


def main(argv=None):
    ap = parser(__doc__, WORKLOADS)
    ap.add_argument("--src", help="an older rivulet's src/ folder, timed as 'before'")
    ap.add_argument("--busy", type=int, default=0, help="busy processes running during the timed rounds")
    a = ap.parse_args(argv)
    names = workload_names(a, WORKLOADS)
    if a.child:
        return child(a.child, names)
    workers = [Worker("rivulet", sys.executable, __file__, "rivulet", names, rivulet_env(HERE.parent / "src"))]
    if a.src:
        workers.append(Worker("before", sys.executable, __file__, "rivulet", names, rivulet_env(Path(a.src))))
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, __file__, "tensorflow", names))
    try:
        with busy(a.busy):
            got = alternate(workers, a.rounds)
    finally:
        close(workers)
    print(f"jit_compile=True, ms (min of {max(1, a.rounds)} rounds{f', {a.busy} busy processes' if a.busy else ''}; "
          f"TensorFlow: the better of XLA and graph mode; "
          f"cpu: the process's CPU time per call, every thread, in the mode of the fastest call)")
    print(f"{'workload':12} {'before' if a.src else '':>10} {'rivulet':>10} {'tensorflow':>11} {'ratio':>7}  spread"
          f"{'  (before)' if a.src and a.tf else ''}")
    for n in [n for n in names] + [n + " cpu" for n in names]:
        mine = got["rivulet"][n]
        line = f"{n:12} {min(got['before'][n]) if a.src else '':>10.3f} {min(mine):10.3f}" if a.src else \
            f"{n:12} {'':>10} {min(mine):10.3f}"
        if "tensorflow" in got:
            theirs = got["tensorflow"][n]
            line += f" {min(theirs):11.3f} {min(theirs) / min(mine):6.2f}x  {spread(theirs, mine)}"
            if a.src:
                line += f"  ({min(theirs) / min(got['before'][n]):.2f}x)"
        print(line)


if __name__ == "__main__":
    main()
