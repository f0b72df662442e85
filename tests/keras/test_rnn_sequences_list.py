"""Keras RNNs with return_sequences, traced under a gradient tape: the outputs go into a TensorArray (a
TensorList written once per step, its gradient a list) instead of a buffer copied by tensor_scatter_nd_update
at each step; gradients equal the eager layer's. Traced without a tape, the buffer form stays (the ONNX and
TFLite converters fuse it)."""
import numpy as np
import pytest

import rivulet as tf


def _loop_ops(graph):
    bodies = [op.attrs["body"].body.graph for op in graph.get_operations() if op.type in ("While", "StatelessWhile")]
    return {op.type for g in bodies for op in g.get_operations()}


@pytest.mark.parametrize("make,masked", [(lambda: tf.keras.layers.LSTM(4, return_sequences=True), True),
                                         (lambda: tf.keras.layers.GRU(4, return_sequences=True), True),
                                         (lambda: tf.keras.layers.LSTM(4, return_sequences=True), False),
                                         (lambda: tf.keras.layers.SimpleRNN(4, return_sequences=True), False)])
def test_sequences_under_a_tape_are_a_tensor_list_with_the_eager_gradients(make, masked):
    tf.keras.utils.set_random_seed(1)
    layer = make()
    x = tf.constant(np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32))
    mask = tf.constant([[True] * 5, [True, True, True, False, False]]) if masked else None
    w = tf.constant(np.arange(20, dtype=np.float32).reshape(5, 4) / 10.)

    def loss_and_grads(x):
        with tf.GradientTape() as t:
            t.watch(x)
            loss = tf.reduce_sum(tf.tanh(layer(x, mask=mask)) * w)
        return loss, t.gradient(loss, [x] + layer.trainable_variables)
    eager = loss_and_grads(x)
    f = tf.function(loss_and_grads)
    traced = f(x)
    np.testing.assert_allclose(traced[0].numpy(), eager[0].numpy(), rtol=1e-5)
    for a, b in zip(traced[1], eager[1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
    graph = f.get_concrete_function(x).graph
    ops = _loop_ops(graph)
    if isinstance(layer, (tf.keras.layers.LSTM, tf.keras.layers.GRU)):  # no loop: one op over the sequence,
        kind = "_LSTMSequence" if isinstance(layer, tf.keras.layers.LSTM) else "_GRUSequence"  # whose states
        assert not ops and kind in {op.type for op in graph.get_operations()}  # are the outputs
    else:
        assert "TensorListSetItem" in ops and "TensorScatterUpdate" not in ops
    plain = _loop_ops(tf.function(lambda x: layer(x, mask=mask)).get_concrete_function(x).graph)
    assert "TensorScatterUpdate" in plain and "TensorListSetItem" not in plain

