"""Keras inference as users call it (no jit_compile, default batch size): rivulet vs TensorFlow side by side.

    python bench/bench_infer.py [convnet_predict convnet_evaluate lstm_predict gru_predict] [--tf PYTHON]
                                [--rounds N] [--busy K]

Workloads (the models of bench_train.py, trained weights not needed; synthetic data, fixed seeds):
  convnet_predict   `model.predict(x)` of the keras-io MNIST convnet on 6000 images 28x28x1 (batch 32: Keras's default)
  convnet_evaluate  `model.evaluate(x, y)` of the same (loss and accuracy)
  lstm_predict      `model.predict(x)` of the LSTM text classifier on 640 sequences of 80 tokens (batch 32)
  gru_predict       the same with the GRU classifier
Each backend is one long-lived worker (sidebyside.py's protocol) that builds the models and runs each workload
once to warm up; the rounds then alternate the backends. A figure is the minimum over the rounds (ms per call);
the ratio is TensorFlow's time / rivulet's (> 1: rivulet is faster). --busy K runs K busy processes during the
timed rounds. TensorFlow is optional (--tf or RIVULET_TF_PYTHON); rivulet never imports it.
"""
import sys
from pathlib import Path

from bench_train import convnet_model, gru_model
from sidebyside import (Worker, alternate, busy, close, keras_lstm, parser, rivulet_env, serve, spread, timed,
                        workload_names)

HERE = Path(__file__).resolve().parent
WORKLOADS = ("convnet_predict", "convnet_evaluate", "lstm_predict", "gru_predict")


def _images(np, n=6000):
    rng = np.random.default_rng(0)
    x = rng.random((n, 28, 28, 1), dtype=np.float32)
    return x, np.eye(10, dtype=np.float32)[rng.integers(0, 10, n)]


def _convnet_predict(tf, np):
    model, (x, _) = convnet_model(tf), _images(np)
    return timed(lambda: model.predict(x, verbose=0))


def _convnet_evaluate(tf, np):
    model, (x, y) = convnet_model(tf), _images(np)
    return timed(lambda: model.evaluate(x, y, verbose=0))


def _lstm_predict(tf, np):
    model, x, _ = keras_lstm(tf, np, 640)
    return timed(lambda: model.predict(x, verbose=0))


def _gru_predict(tf, np):
    model = gru_model(tf)
    x = np.random.default_rng(0).integers(1, 5000, (640, 80)).astype(np.int32)
    return timed(lambda: model.predict(x, verbose=0))


def child(backend, names):
    serve(backend, {"convnet_predict": _convnet_predict, "convnet_evaluate": _convnet_evaluate,
                    "lstm_predict": _lstm_predict, "gru_predict": _gru_predict}, names)


def main(argv=None):
    ap = parser(__doc__, WORKLOADS)
    ap.add_argument("--busy", type=int, default=0, help="busy processes running during the timed rounds")
    a = ap.parse_args(argv)
    if a.child:
        return child(a.child, a.names or list(WORKLOADS))
    names = workload_names(a, WORKLOADS)
    workers = [Worker("rivulet", sys.executable, __file__, "rivulet", names, rivulet_env(HERE.parent / "src"))]
    if a.tf:
        workers.append(Worker("tensorflow", a.tf, __file__, "tensorflow", names))
    try:
        with busy(a.busy):
            got = alternate(workers, a.rounds)
    finally:
        close(workers)
    load = f", {a.busy} busy processes" if a.busy else ", idle"
    print(f"Keras inference, ms per call (min of {max(1, a.rounds)} rounds{load})")
    print(f"{'workload':17} {'rivulet':>10} {'tensorflow':>11} {'ratio':>7}  spread")
    for n in names:
        mine = got["rivulet"][n]
        line = f"{n:17} {min(mine):10.1f}"
        if "tensorflow" in got:
            theirs = got["tensorflow"][n]
            line += f" {min(theirs):11.1f} {min(theirs) / min(mine):6.2f}x  {spread(theirs, mine)}"
        print(line)


if __name__ == "__main__":
    main()
