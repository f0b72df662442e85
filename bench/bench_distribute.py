"""tf.distribute on Ray: training throughput of an MLP on 1 and 2 Ray workers, and the cost of one
all-reduce by payload size (what bounds scaling).

    python bench/bench_distribute.py [--epochs 3] [--examples 16384]

Each configuration trains the same model on the same global batches (global batch 256) and reports
examples/second measured inside the workers (Ray start-up excluded), best of the epochs after the first.
"""
import argparse
import time

import numpy as np

import rivulet as tf

P = argparse.ArgumentParser()
P.add_argument("--epochs", type=int, default=3)
P.add_argument("--examples", type=int, default=16384)
P.add_argument("--batch", type=int, default=256)
ARGS = P.parse_args()


def _train(resolver_or_none, epochs, examples, batch):
    import time as _t
    import numpy as _np
    import rivulet as _tf
    strategy = (_tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver_or_none)
                if resolver_or_none is not None else _tf.distribute.OneDeviceStrategy("/cpu:0"))
    rng = _np.random.default_rng(0)
    x = rng.normal(size=(examples, 784)).astype("float32")
    y = rng.integers(0, 10, size=(examples,)).astype("int64")
    with strategy.scope():
        _tf.random.set_seed(0)
        m = _tf.keras.Sequential([_tf.keras.layers.Dense(256, activation="relu", input_shape=(784,)),
                                  _tf.keras.layers.Dense(256, activation="relu"), _tf.keras.layers.Dense(10)])
        m.compile(optimizer="adam", loss=_tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    times = []
    for _ in range(epochs):
        t = _t.perf_counter()
        m.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
        times.append(_t.perf_counter() - t)
    return examples / min(times[1:] or times)


def _allreduce(sizes, reps=20):
    import time as _t
    import numpy as _np
    from rivulet.distribute import collective
    out = {}
    for n in sizes:
        a = _np.ones(n, _np.float32)
        collective.current().all_reduce_sum([a])
        t = _t.perf_counter()
        for _ in range(reps):
            collective.current().all_reduce_sum([a])
        out[n] = (_t.perf_counter() - t) / reps
    return out


def main():
    one = _train(None, ARGS.epochs, ARGS.examples, ARGS.batch)
    print(f"1 process, no Ray:   {one:9.0f} examples/s")
    for workers in (1, 2):
        r = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=workers)
        rates = r.run(_train, args=(r, ARGS.epochs, ARGS.examples, ARGS.batch))
        print(f"{workers} Ray worker(s):     {rates[0]:9.0f} examples/s (each worker's global rate)")
    r = tf.distribute.cluster_resolver.RayClusterResolver(num_workers=2)
    cost = r.run(_allreduce, args=([1_000, 100_000, 1_000_000],))[0]
    params = 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10
    for n, s in cost.items():
        print(f"all-reduce of {n:>9,} float32 over 2 workers: {s * 1e3:7.2f} ms ({n * 4 / s / 1e6:7.1f} MB/s)")
    print(f"(the MLP has {params:,} parameters: one all-reduce per step)")
    r.shutdown()


if __name__ == "__main__":
    main()
