"""Keras SimpleRNN / GRU / LSTM with their input projections hoisted out of the time loop (one stacked GEMM,
keras/layers/recurrent.py `_project`) and the While gradient compiled (function/control_flow.py): outputs and
gradients equal the per-step projection with the eager per-iteration replay (the implementation before)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.function import control_flow as cf
from rivulet.keras.layers import recurrent


def _run(layer, x, mask=None):
    @tf.function(input_signature=[tf.TensorSpec([None] + x.shape.as_list()[1:], x.dtype)])  # batch unknown
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, mask=mask)
            loss = tf.reduce_sum(tf.sin(y if not isinstance(y, list) else tf.concat(y, -1)))
        return [y if not isinstance(y, list) else tf.concat(y, -1)] + tape.gradient(loss, [x] + layer.trainable_weights)
    return [v.numpy() for v in step(x)]


CASES = [
    (lambda: tf.keras.layers.LSTM(5), "LSTMCell"),
    (lambda: tf.keras.layers.LSTM(5, return_sequences=True, go_backwards=True), "LSTMCell"),
    (lambda: tf.keras.layers.GRU(5, return_state=True), "GRUCell"),
    (lambda: tf.keras.layers.GRU(5, reset_after=False, return_sequences=True), "GRUCell"),
    (lambda: tf.keras.layers.SimpleRNN(5, use_bias=False), "SimpleRNNCell"),
]


@pytest.mark.parametrize("make,cell", CASES)
def test_gradients_unchanged(make, cell, monkeypatch):
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((4, 7, 3)).astype(np.float32))
    layer = make()
    layer.build(x.shape)
    mask = tf.constant(rng.random((4, 7)) > 0.3)
    projected = []
    orig = recurrent._Cell._project

    def project(self, seq):
        out = orig(self, seq)
        projected.append(out is not None)
        return out
    monkeypatch.setattr(recurrent._Cell, "_project", project)
    pulled = []
    pull = cf._Backward.pull
    monkeypatch.setattr(cf._Backward, "pull", lambda self, *a: pulled.append(self) or pull(self, *a))
    got = _run(layer, x)
    default = not (cell == "SimpleRNNCell" or cell == "GRUCell" and not layer.cell.reset_after)
    got_masked = _run(layer, x, mask)
    # a default LSTM or GRU under a tape (masked too, from zero states): no loop, one op over the sequence
    # (ops/rnn_ops.py) that projects its inputs itself
    assert bool(pulled) != default
    assert projected == ([] if default else [True, True])
    if not default:  # the backward was compiled; values its gradient reads only for their shape are stashed
        assert pulled[0].n_shaped > 0  # as shapes
    with monkeypatch.context() as m:  # before: the projection in every step, the gradient replayed eagerly
        m.setattr(recurrent, "_PROJECTED_CALL", {})
        m.setattr(cf, "_backward_of", lambda lb: None)
        want = _run(layer, x)
        want_masked = _run(layer, x, mask)
    assert type(layer.cell).__name__ == cell
    for a, b in zip(got + got_masked, want + want_masked):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_eager_layer_projects_too(monkeypatch):
    rng = np.random.default_rng(4)
    x = tf.constant(rng.standard_normal((2, 5, 3)).astype(np.float32))
    layer = tf.keras.layers.LSTM(4, return_sequences=True)
    steps = []
    orig = recurrent.LSTMCell._call_projected
    monkeypatch.setattr(recurrent.LSTMCell, "_call_projected", lambda self, *a: steps.append(1) or orig(self, *a))
    y = layer(x).numpy()
    assert len(steps) == 5
    cell = layer.cell
    k, r, b = cell.kernel.numpy(), cell.recurrent_kernel.numpy(), cell.bias.numpy()
    h = c = np.zeros((2, 4), np.float32)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    outs = []
    for t in range(5):
        z = x.numpy()[:, t] @ k + h @ r + b
        i, f, g, o = np.split(z, 4, axis=1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        outs.append(h)
    np.testing.assert_allclose(y, np.stack(outs, 1), rtol=1e-5, atol=1e-6)


def test_subclassed_cell_runs_its_own_call():
    class Doubled(tf.keras.layers.SimpleRNNCell):
        def call(self, inputs, states, training=None, masks=(None, None)):
            out, new = super().call(inputs, states, training=training, masks=masks)
            return out * 2.0, [new[0] * 2.0]

    layer = tf.keras.layers.RNN(Doubled(3))
    x = tf.ones((1, 2, 2))
    y = layer(x).numpy()
    cell = layer.cell
    h = np.zeros((1, 3), np.float32)
    for _ in range(2):
        h = 2 * np.tanh(np.ones((1, 2)) @ cell.kernel.numpy() + h @ cell.recurrent_kernel.numpy() + cell.bias.numpy())
    np.testing.assert_allclose(y, h, rtol=1e-5)
    assert cell._project(tf.ones((2, 1, 2))) is None


@pytest.mark.parametrize("kwargs,masked,n_vars", [({}, False, 3), ({"return_sequences": True}, False, 4),
                                                  ({}, True, 4), ({"return_sequences": True}, True, 5)])
def test_loop_carries_only_what_it_needs(kwargs, masked, n_vars):
    """t, h, c; the outputs' buffer only with return_sequences; the previous output only under a mask (else it
    is h)."""
    layer = tf.keras.layers.LSTM(3, **kwargs)
    mask = tf.constant([[True, True, False]]) if masked else None
    f = tf.function(lambda x: layer(x, mask=mask))
    x = tf.constant(np.ones((1, 3, 2), np.float32))
    g = f.get_concrete_function(x).graph
    loops = [op.attrs["body"] for op in g.get_operations() if op.type in ("While", "StatelessWhile")]
    assert [lb.n_vars for lb in loops] == [n_vars]
    eager = layer(x, mask=mask).numpy()
    np.testing.assert_allclose(f(x).numpy(), eager, rtol=1e-6)


def test_gru_reads_its_recurrent_bias_once_outside_the_loop():
    layer = tf.keras.layers.GRU(3)
    f = tf.function(lambda x: layer(x))
    x = tf.constant(np.ones((2, 4, 2), np.float32))
    g = f.get_concrete_function(x).graph
    body = [op.attrs["body"] for op in g.get_operations() if op.type in ("While", "StatelessWhile")][0].body
    reads = [op for op in body.graph.get_operations() if op.type == "ReadVariableOp"]
    assert len(reads) == 1  # the recurrent kernel; the bias row is a loop constant
    np.testing.assert_allclose(f(x).numpy(), layer(x).numpy(), rtol=1e-6)
