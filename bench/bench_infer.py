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
from bench_train import convnet_model, gru_model
from sidebyside import keras_lstm, main_table, serve, timed

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
    return main_table(__file__, __doc__, WORKLOADS, child, "Keras inference, ms per call", argv)


if __name__ == "__main__":
    main()
