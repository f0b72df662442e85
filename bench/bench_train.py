"""Keras `fit` epochs of real models: rivulet vs TensorFlow side by side (issue 26).

    python bench/bench_train.py [convnet convae lstm gru] [--tf PYTHON] [--rounds N] [--busy K]

Workloads (synthetic data, fixed seeds):
  convnet  keras-io's MNIST convnet: Conv2D(32, 3, relu), MaxPool 2, Conv2D(64, 3, relu), MaxPool 2, Flatten,
           Dropout 0.5, Dense(10, softmax); Adam, categorical cross-entropy; 6000 images 28x28x1, batch 128
  convae   the denoising conv autoencoder of TensorFlow's autoencoder tutorial: Conv2D(16, 3, strides 2, relu,
           same), Conv2D(8, 3, strides 2, relu, same), Conv2DTranspose(8, 3, strides 2, relu, same),
           Conv2DTranspose(16, 3, strides 2, relu, same), Conv2D(1, 3, sigmoid, same); Adam, MSE; 3200 noisy
           images 28x28x1 against the clean ones, batch 32 (the tutorial's default)
  lstm     Embedding(5000, 32), LSTM(64), Dense(1, sigmoid); Adam, binary cross-entropy; 640 sequences of
           80 tokens, batch 64
  gru      the same text classifier with GRU(64) in place of the LSTM

Each backend is one long-lived worker process (this file with --child) that builds and compiles the
models and runs one warm-up epoch each; then the rounds alternate rivulet / TensorFlow, one timed `fit`
epoch per workload per round. A figure is the minimum over the rounds (milliseconds per epoch); the ratio
is TensorFlow's time / rivulet's (> 1: rivulet is faster), its range over the rounds in brackets.
--busy K runs K busy processes (pure-Python spin loops) during the timed rounds only, for the busy-machine
figures (both backends under the same load). TensorFlow is optional: --tf names a Python that has
tensorflow-cpu (or set RIVULET_TF_PYTHON); rivulet itself never imports it.
"""
from sidebyside import keras_lstm, main_table, serve, timed

WORKLOADS = ("convnet", "convae", "lstm", "gru")


# ---------------------------------------------------------------------------------------------- child
def convnet_model(tf):
    """The keras-io MNIST convnet, compiled (Adam, categorical cross-entropy)."""
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    return model


def _convnet(tf, np):
    model = convnet_model(tf)
    rng = np.random.default_rng(0)
    x = rng.random((6000, 28, 28, 1), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 6000)]
    return timed(lambda: model.fit(x, y, batch_size=128, epochs=1, verbose=0))


def _convae(tf, np):
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(16, (3, 3), activation="relu", padding="same", strides=2),
        layers.Conv2D(8, (3, 3), activation="relu", padding="same", strides=2),
        layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation="relu", padding="same"),
        layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation="relu", padding="same"),
        layers.Conv2D(1, kernel_size=(3, 3), activation="sigmoid", padding="same"),
    ])
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    clean = rng.random((3200, 28, 28, 1), dtype=np.float32)
    noisy = np.clip(clean + 0.2 * rng.standard_normal(clean.shape).astype(np.float32), 0, 1)
    return timed(lambda: model.fit(noisy, clean, batch_size=32, epochs=1, verbose=0))


def _lstm(tf, np):
    model, x, y = keras_lstm(tf, np, 640)
    return timed(lambda: model.fit(x, y, batch_size=64, epochs=1, verbose=0))


def gru_model(tf):
    """The GRU text classifier: Embedding 5000x32, GRU(64), Dense 1; 80 tokens; compiled."""
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(80,), dtype="int32"),
        layers.Embedding(5000, 32),
        layers.GRU(64),
        layers.Dense(1, activation="sigmoid"),
    ])
    model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    return model


def _gru(tf, np):
    model = gru_model(tf)
    rng = np.random.default_rng(0)
    x = rng.integers(1, 5000, (640, 80)).astype(np.int32)
    y = rng.integers(0, 2, (640, 1)).astype(np.float32)
    return timed(lambda: model.fit(x, y, batch_size=64, epochs=1, verbose=0))


def child(backend, names):
    serve(backend, {"convnet": _convnet, "convae": _convae, "lstm": _lstm, "gru": _gru}, names)


# ---------------------------------------------------------------------------------------------- parent
def main(argv=None):
    return main_table(__file__, __doc__, WORKLOADS, child, "Keras fit, one epoch, ms", argv)


if __name__ == "__main__":
    main()
