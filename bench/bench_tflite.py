"""TFLite conversion: rivulet's converter (no TensorFlow) against TensorFlow's, on the same Keras models.

    python bench/bench_tflite.py [--tf /path/to/python-with-tensorflow] [--rounds N] [names...]

Each backend runs in a worker process of its own (sidebyside.py) that builds the models once, converts each
once to warm up, then converts them all again on every round, the backends alternating. The figure is a
conversion's wall time (`TFLiteConverter.from_keras_model(model)` + `convert()`), the minimum over the rounds,
and the size of the .tflite file it wrote. Models: `mlp` the digits MLP (64-128-64-10), `cnn` a small image
classifier (28x28x1: Conv2D 32, pool, Conv2D 64, pool, Dense 10), `lstm` the LSTM text classifier of
bench_busy.py (Embedding 5000x32, LSTM(64), Dense 1; 80 tokens; a batch of 1). Modes: `float`, `dynamic`
(Optimize.DEFAULT) and `int8` (a representative dataset of 20 samples; MLP and CNN). Without --tf, rivulet's
figures alone.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sidebyside  # noqa: E402

ROOT = os.path.dirname(HERE)


def _mlp(tf, np):
    layers = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((64,)), layers.Dense(128, activation="relu"),
                                 layers.Dense(64, activation="relu"), layers.Dense(10)])
    return model, np.random.default_rng(0).random((20, 64), dtype=np.float32)


def _cnn(tf, np):
    layers = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
                                 layers.MaxPooling2D(), layers.Conv2D(64, 3, activation="relu"),
                                 layers.MaxPooling2D(), layers.Flatten(), layers.Dense(10)])
    return model, np.random.default_rng(0).random((20, 28, 28, 1), dtype=np.float32)


def _lstm(tf, np):
    """bench_busy.py's LSTM classifier with a batch of 1: TensorFlow 2.21's converter cannot lower Keras 3's
    LSTM (its TensorList) when the batch dimension is unknown."""
    layers = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((80,), batch_size=1, dtype="int32"), layers.Embedding(5000, 32),
                                 layers.LSTM(64), layers.Dense(1, activation="sigmoid")])
    return model, np.random.default_rng(0).integers(1, 5000, (20, 80)).astype(np.int32)


MODELS = {"mlp": _mlp, "cnn": _cnn, "lstm": _lstm}
MODES = {"mlp": ("float", "dynamic", "int8"), "cnn": ("float", "dynamic", "int8"), "lstm": ("float", "dynamic")}
NAMES = [f"{m} {mode}" for m in MODELS for mode in MODES[m]]


def _workload(model_name, mode):
    def build(tf, np):
        import time
        model, samples = MODELS[model_name](tf, np)
        model(samples[:1])

        def run():
            t = time.perf_counter()
            c = tf.lite.TFLiteConverter.from_keras_model(model)
            if mode != "float":
                c.optimizations = [tf.lite.Optimize.DEFAULT]
            if mode == "int8":
                c.representative_dataset = lambda: ([samples[i:i + 1]] for i in range(len(samples)))
            content = c.convert()
            return {"ms": (time.perf_counter() - t) * 1e3, "bytes": len(content)}
        return run
    return build


WORKLOADS = {name: _workload(*name.split()) for name in NAMES}


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        import logging
        logging.disable(logging.WARNING)
        import warnings
        warnings.filterwarnings("ignore")
        return sidebyside.serve(sys.argv[2], WORKLOADS, sys.argv[3:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tf", help="a Python with TensorFlow (and its converter) installed")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("names", nargs="*", default=NAMES, help=f"workloads, of: {', '.join(NAMES)}")
    args = ap.parse_args()
    names = [n for n in NAMES if n in args.names or n.split()[0] in args.names] or NAMES
    script = os.path.abspath(__file__)
    workers = [sidebyside.Worker("rivulet", sys.executable, script, "rivulet", names,
                                 env=sidebyside.rivulet_env(os.path.join(ROOT, "src")))]
    if args.tf:
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        workers.append(sidebyside.Worker("tensorflow", args.tf, script, "tensorflow", names, env=env))
    best = [{} for _ in workers]
    for _ in range(args.rounds):
        for w, b in zip(workers, best):
            for name, r in w.round().items():
                if name not in b or r["ms"] < b[name]["ms"]:
                    b[name] = r
    for w in workers:
        w.close()
    if args.tf:
        print(f"| model | rivulet | TensorFlow | ratio | rivulet file | TensorFlow file |")
        print("|---|---:|---:|---:|---:|---:|")
        for name in names:
            r, t = best[0][name], best[1][name]
            print(f"| {name} | {r['ms']:.1f} ms | {t['ms']:.0f} ms | {t['ms'] / r['ms']:.1f}x | "
                  f"{r['bytes']:,} B | {t['bytes']:,} B |")
    else:
        for name in names:
            r = best[0][name]
            print(f"{name:14s} {r['ms']:8.1f} ms {r['bytes']:>10,} bytes")


if __name__ == "__main__":
    main()
