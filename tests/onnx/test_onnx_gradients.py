"""Gradients computed inside an exported function (saliency maps, input gradients)."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def test_gradients_of_cross_entropies_use_their_backprop_outputs(rt):
    @tf.function
    def g(logits, labels, dense):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(logits)
            sparse = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
            full = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(dense, logits * 2.0))
        return tape.gradient(sparse, logits), tape.gradient(full, logits)
    rng = np.random.default_rng(3)
    logits = tf.constant(rng.normal(size=(3, 4)).astype(np.float32))
    dense = tf.nn.softmax(tf.constant(rng.normal(size=(3, 4)).astype(np.float32)))
    rt.check(g, logits, tf.constant([0, 3, 1]), dense, atol=1e-6)


def test_input_gradient_of_a_dense_layer_for_any_batch_size(rt):
    layer = tf.keras.layers.Dense(3, activation="relu")
    scale = tf.Variable([[1.0, 2.0, 3.0, 4.0]])

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def saliency(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_mean(layer(x * scale) ** 2)
        return tape.gradient(y, [x, scale])
    saliency(tf.zeros([1, 4]))
    sess, _ = rt.export(saliency)
    for n in (1, 6):
        x = np.random.default_rng(n).normal(size=(n, 4)).astype(np.float32)
        for got, want in zip(rt.run(sess, x), saliency(x)):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
