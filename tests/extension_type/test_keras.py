"""ExtensionTypes as Keras inputs (the extension_type guide): Input(type_spec=...) of an ExtensionType's Spec, a
Sequential model called on single and batched values, fit on a BatchableExtensionType (its rows batched by
components) with Dense reaching a dispatched tf.matmul, and the model saved and loaded with that input spec."""
import numpy as np

import rivulet as tf


class Network(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape
    work: tf.Tensor
    bandwidth: tf.Tensor

    def __init__(self, work, bandwidth):
        self.work = tf.convert_to_tensor(work)
        self.bandwidth = tf.convert_to_tensor(bandwidth)
        self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])


class BalanceNetworkLayer(tf.keras.layers.Layer):
    def call(self, network):
        delta = (tf.expand_dims(network.work, -1) - tf.expand_dims(network.work, -2)) / 4
        delta = tf.maximum(tf.minimum(delta, network.bandwidth), -network.bandwidth)
        return Network(network.work + tf.reduce_sum(delta, -1), network.bandwidth)


class MaskedTensor(tf.experimental.BatchableExtensionType):
    __name__ = "rivulet_tests.keras.MaskedTensor"
    values: tf.Tensor
    mask: tf.Tensor
    shape = property(lambda self: self.values.shape)
    dtype = property(lambda self: self.values.dtype)

    def with_default(self, default):
        return tf.where(self.mask, self.values, default)

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)

        shape = property(lambda self: self.values.shape)
        dtype = property(lambda self: self.values.dtype)


def test_sequential_on_extension_type_input():
    spec = Network.Spec(shape=None, work=tf.TensorSpec(None, tf.float32), bandwidth=tf.TensorSpec(None, tf.float32))
    model = tf.keras.Sequential([tf.keras.layers.Input(type_spec=spec), BalanceNetworkLayer()])
    single = model(Network(work=[8.0, 5, 12, 2], bandwidth=[[0.0, 1, 2, 2], [1, 0, 0, 2], [2, 0, 0, 1],
                                                             [2, 2, 1, 0]]))
    assert isinstance(single, Network) and single.shape == tf.TensorShape([])
    # TensorFlow 2.21's balance_work_greedy on the guide's values
    np.testing.assert_array_equal(single.work.numpy(), [9.25, 5.0, 14.0, -1.25])
    batch = model(Network(work=[[8.0, 5], [3, 2]], bandwidth=[[[0.0, 1], [1, 0]], [[0, 2], [2, 0]]]))
    np.testing.assert_array_equal(batch.work.numpy(), [[8.75, 4.25], [3.25, 1.75]])


def test_fit_and_save_masked_tensor_model(tmp_path):
    @tf.experimental.dispatch_for_api(tf.matmul)
    def masked_matmul(a: MaskedTensor, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
                      a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False, grad_b=False, name=None):
        return tf.matmul(a.with_default(0), b, transpose_a, transpose_b)
    try:
        model = tf.keras.Sequential([tf.keras.layers.Input(type_spec=MaskedTensor.Spec([None, 2], tf.float32)),
                                     tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)])
        model.compile(loss="binary_crossentropy", optimizer="rmsprop")
        a = MaskedTensor([[1., 2], [3, 4], [5, 6]], [[True, False], [False, True], [True, True]])
        hist = model.fit(a, tf.constant([[1], [0], [1]]), epochs=2, verbose=0)
        assert len(hist.history["loss"]) == 2
        out = model(a)
        w1, b1, w2, b2 = (v.numpy() for v in model.weights)
        x = np.where(a.mask.numpy(), a.values.numpy(), 0)
        np.testing.assert_allclose(out.numpy(), np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-5, atol=1e-6)
        tf.saved_model.save(model, str(tmp_path))
        loaded = tf.saved_model.load(str(tmp_path))
        np.testing.assert_allclose(loaded(a).numpy(), out.numpy(), rtol=1e-6)
    finally:
        tf.experimental.unregister_dispatch_for(masked_matmul)


def test_input_type_spec_of_a_tensor():
    x = tf.keras.Input(type_spec=tf.TensorSpec([None, 3], tf.float32))
    assert x.shape.as_list() == [None, 3] and x.dtype == tf.float32
    model = tf.keras.Model(x, tf.keras.layers.Dense(2)(x))
    assert model(tf.ones([1, 3])).shape == tf.TensorShape([1, 2])
