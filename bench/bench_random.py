"""Random numbers at the DCGAN tutorial's shapes: rivulet vs TensorFlow side by side.

    python bench/bench_random.py [WORKLOAD ...] [--tf PYTHON] [--rounds N]

Workloads (eager calls; a figure is the fastest of 5 calls in a round, in ms):
  noise        tf.random.normal([256, 100]): the generator's input in every training step (no seed)
  dropout14    keras Dropout(0.3)(x, training=True), x 256x14x14x64 float32: the discriminator's first
               Dropout (no seed, as in the tutorial), twice a step
  dropout7     the same at 256x7x7x128: the second Dropout
  uniform      tf.random.uniform([256, 14, 14, 64]) (no seed)
  uniform_s    the same with an op seed: TensorFlow's Philox stream, bit for bit
  dropout_s    tf.nn.dropout(x, 0.3, seed=1) at 256x14x14x64 (Philox, bit for bit)
  normal_s     tf.random.normal([256, 14, 14, 64], seed=1): Philox and the float32 Box-Muller
  int_s        tf.random.uniform([256, 14, 14, 64], 0, 1000, tf.int32, seed=1)

Each workload also runs as NAME:cpu, timed in the process's CPU time (every thread's) instead of wall time:
the work each backend does, which a busy machine distorts less than wall time (TensorFlow's kernels spread
over its thread pool, so on a busy machine its many threads get more of the cores than rivulet's).

Unseeded draws are nondeterministic on both: TensorFlow runs Philox under a random key, rivulet takes random
words from PCG64 (ops/philox.py); seeded ones give the same numbers on both. Each backend is a worker process
(bench/sidebyside.py); the rounds alternate rivulet / TensorFlow; the table gives each workload's minimum over
the rounds and TensorFlow's time / rivulet's (> 1: rivulet is faster), its range over the rounds in brackets.
"""
import time

from sidebyside import main_table

BASE = ("noise", "dropout14", "dropout7", "uniform", "uniform_s", "dropout_s", "normal_s", "int_s")
WORKLOADS = BASE + tuple(n + ":cpu" for n in BASE)
_CLOCK = [time.perf_counter]


def _best_of(fn, calls=5):
    clock = _CLOCK[0]

    def run():
        best = float("inf")
        for _ in range(calls):
            t = clock()
            fn()
            best = min(best, clock() - t)
        return best * 1e3
    return run


def _x(tf, np, shape):
    return tf.constant(np.random.default_rng(0).random(shape, dtype=np.float32))


def _dropout(shape):
    def build(tf, np):
        tf.random.set_seed(None)
        layer, x = tf.keras.layers.Dropout(0.3), _x(tf, np, shape)
        return _best_of(lambda: layer(x, training=True).numpy())
    return build


def _unseeded(draw):
    def build(tf, np):
        tf.random.set_seed(None)
        return _best_of(lambda: draw(tf).numpy())
    return build


def _dropout_seeded(tf, np):
    x = _x(tf, np, (256, 14, 14, 64))
    return _best_of(lambda: tf.nn.dropout(x, 0.3, seed=1).numpy())


WORKLOAD_FNS = {
    "noise": _unseeded(lambda tf: tf.random.normal([256, 100])),
    "dropout14": _dropout((256, 14, 14, 64)),
    "dropout7": _dropout((256, 7, 7, 128)),
    "uniform": _unseeded(lambda tf: tf.random.uniform([256, 14, 14, 64])),
    "uniform_s": _unseeded(lambda tf: tf.random.uniform([256, 14, 14, 64], seed=1)),
    "dropout_s": _dropout_seeded,
    "normal_s": _unseeded(lambda tf: tf.random.normal([256, 14, 14, 64], seed=1)),
    "int_s": _unseeded(lambda tf: tf.random.uniform([256, 14, 14, 64], 0, 1000, tf.int32, seed=1)),
}


def _on_cpu_clock(build):
    def built(tf, np):
        _CLOCK[0] = time.process_time
        try:
            return build(tf, np)
        finally:
            _CLOCK[0] = time.perf_counter
    return built


WORKLOAD_FNS.update({n + ":cpu": _on_cpu_clock(WORKLOAD_FNS[n]) for n in BASE})


def child(backend, names):
    from sidebyside import serve
    serve(backend, WORKLOAD_FNS, names)


def main(argv=None):
    return main_table(__file__, __doc__, WORKLOADS, child, "random numbers, eager, ms per call", argv)


if __name__ == "__main__":
    main()
