"""Train a small MLP on scikit-learn's 8x8 handwritten digits with rivulet's Keras API.

    pip install scikit-learn      # the "examples" extra; the data ships with it (no download)
    PYTHONPATH=src python examples/digits.py
"""
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import rivulet as tf


def build_model():
    """The digits MLP, compiled (examples/digits_data.py trains the same model from a tf.data pipeline)."""
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(128, activation="relu", input_shape=(64,)),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def main():
    tf.keras.utils.set_random_seed(0)
    digits = load_digits()
    x = (digits.data / 16.0).astype("float32")  # pixel intensities 0..16 -> 0..1
    x_train, x_test, y_train, y_test = train_test_split(x, digits.target, test_size=0.25, random_state=0,
                                                        stratify=digits.target)

    model = build_model()
    model.summary()

    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=32, epochs=20, validation_split=0.1, verbose=2)
    seconds = time.perf_counter() - start

    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    predicted = model.predict(x_test).argmax(axis=1)
    assert np.isclose((predicted == y_test).mean(), accuracy)
    print(f"trained in {seconds:.1f}s; test loss {loss:.4f}, test accuracy {accuracy:.2%}")
    return accuracy


if __name__ == "__main__":
    main()
