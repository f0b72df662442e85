"""The data and model the tf.distribute tests train, so one replica and several reach comparable weights."""
import numpy as np

import rivulet as tf


def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(64, 8)).astype("float32"), rng.integers(0, 3, size=(64,)).astype("int64")


def model(compiled=False):
    m = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                             tf.keras.layers.Dense(3)])
    rng = np.random.default_rng(1)  # the same start for every run (unseeded initializers differ per build, as in TF)
    m.set_weights([rng.normal(scale=0.3, size=w.shape).astype("float32") for w in m.get_weights()])
    if compiled:
        m.compile(optimizer=tf.keras.optimizers.Adam(0.01), metrics=["accuracy"],
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return m
