"""Recurrent layers' gradients (eager and through the traced while loop) against tf_keras 2.21's, and training
them with fit (graph mode: a while loop and its gradient over captured variables)."""
import os

import numpy as np
import pytest

import rivulet as tf
from tests.keras.layer_cases import CASES

layers = tf.keras.layers
G = np.load(os.path.join(os.path.dirname(__file__), "golden", "layers.npz"), allow_pickle=False)


@pytest.mark.parametrize("name", ["simple_rnn", "lstm", "gru", "lstm_mask", "bi_lstm"])
@pytest.mark.parametrize("traced", [False, True])
def test_gradients_match_tf_keras(name, traced):
    x = G[f"{name}__x"]
    extra = {"mask": G[f"{name}__mask"]} if f"{name}__mask" in G else {}
    layer = eval(CASES[name][0])
    layer(x, **extra)
    layer.set_weights([G[f"{name}__w{i}"] for i in range(20) if f"{name}__w{i}" in G])

    def grads(a):
        with tf.GradientTape() as tape:
            y = layer(a, **extra)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, layer.trainable_weights)
    got = (tf.function(grads) if traced else grads)(tf.constant(x))
    want = [G[f"{name}__g{i}"] for i in range(20) if f"{name}__g{i}" in G]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == tf.float32
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [lambda: layers.SimpleRNN(4), lambda: layers.LSTM(4), lambda: layers.GRU(4),
                                  lambda: layers.Bidirectional(layers.LSTM(2))])
def test_fit_trains_recurrent_models(make):
    rng = np.random.RandomState(0)
    x = rng.randn(64, 6, 3).astype(np.float32)
    y = x[:, :, 0].sum(1, keepdims=True)
    model = tf.keras.Sequential([tf.keras.Input((6, 3)), make(), layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(0.05), "mse")
    losses = model.fit(x, y, epochs=10, batch_size=32, verbose=0).history["loss"]
    assert losses[-1] < 0.5 * losses[0]
