"""ExtensionTypes as tf.data elements (from_tensors, from_tensor_slices / batch / unbatch of a
BatchableExtensionType, from_generator with a Spec signature) and through tf.map_fn; values from TensorFlow 2.21
(the extension_type guide)."""
import numpy as np
import pytest

import rivulet as tf


class Pastry(tf.experimental.ExtensionType):
    sweetness: tf.Tensor
    chewiness: tf.Tensor


class MaskedTensor(tf.experimental.BatchableExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)


class Network(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape
    work: tf.Tensor
    bandwidth: tf.Tensor

    def __init__(self, work, bandwidth):
        self.work = tf.convert_to_tensor(work)
        self.bandwidth = tf.convert_to_tensor(bandwidth)
        self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])


def balance_work_greedy(network):
    delta = (tf.expand_dims(network.work, -1) - tf.expand_dims(network.work, -2))
    delta /= 4
    delta = tf.maximum(tf.minimum(delta, network.bandwidth), -network.bandwidth)
    return Network(network.work + tf.reduce_sum(delta, -1), network.bandwidth)


def test_from_tensors_and_next():
    ds = tf.data.Dataset.from_tensors(Pastry(5, 5))
    v = iter(ds).next()
    assert repr(v) == ("Pastry(sweetness=<tf.Tensor: shape=(), dtype=int32, numpy=5>, "
                       "chewiness=<tf.Tensor: shape=(), dtype=int32, numpy=5>)")
    with pytest.raises(TypeError, match="not a tf.experimental.BatchableExtensionType"):
        ds.batch(2)


def test_slices_batch_unbatch():
    mt = MaskedTensor(tf.reshape(range(20), [5, 4]), tf.ones([5, 4]) > 0)
    ds = tf.data.Dataset.from_tensor_slices(mt)
    rows = list(ds)
    assert len(rows) == 5 and isinstance(rows[1], MaskedTensor)
    np.testing.assert_array_equal(rows[1].values.numpy(), [4, 5, 6, 7])
    assert repr(ds.element_spec) == ("MaskedTensor.Spec(values=TensorSpec(shape=(4,), dtype=tf.int32, name=None), "
                                     "mask=TensorSpec(shape=(4,), dtype=tf.bool, name=None))")

    def gen():
        for i in range(2, 7):
            yield MaskedTensor(range(10), [j % i != 0 for j in range(10)])
    ds = tf.data.Dataset.from_generator(gen, output_signature=MaskedTensor.Spec(shape=[10], dtype=tf.int32))
    batches = list(ds.batch(2))
    assert [b.values.shape.as_list() for b in batches] == [[2, 10], [2, 10], [1, 10]]
    np.testing.assert_array_equal(batches[0].mask.numpy()[1], [j % 3 != 0 for j in range(10)])
    again = list(ds.batch(2).unbatch())
    assert len(again) == 5
    np.testing.assert_array_equal(again[4].mask.numpy(), [j % 6 != 0 for j in range(10)])


def test_network_slices_and_map_fn():
    net1 = Network([5., 3, 8], [[0., 2, 0], [2, 0, 3], [0, 3, 0]])
    net2 = Network([3., 4, 2], [[0., 2, 2], [2, 0, 2], [2, 2, 0]])
    batch = Network(work=tf.stack([net1.work, net2.work]), bandwidth=tf.stack([net1.bandwidth, net2.bandwidth]))
    assert batch.shape == tf.TensorShape([2])
    elements = list(tf.data.Dataset.from_tensor_slices(batch))
    assert elements[1].shape == tf.TensorShape([])
    np.testing.assert_array_equal(elements[1].work.numpy(), [3., 4, 2])
    out = tf.map_fn(balance_work_greedy, batch)
    assert isinstance(out, Network) and out.shape == tf.TensorShape([2])
    np.testing.assert_array_equal(out.work.numpy(), [[5.5, 1.25, 9.25], [3., 4.75, 1.25]])

    @tf.function
    def traced(b):
        return tf.map_fn(balance_work_greedy, b)
    np.testing.assert_array_equal(traced(batch).work.numpy(), [[5.5, 1.25, 9.25], [3., 4.75, 1.25]])


def test_batch_encoder_and_as_dict():
    calls = []

    class Enc(tf.experimental.ExtensionTypeBatchEncoder):
        def batch(self, spec, batch_size):
            calls.append(("batch", batch_size))
            return super().batch(spec, batch_size)

    class MT(tf.experimental.BatchableExtensionType):
        __batch_encoder__ = Enc()
        values: tf.Tensor
        shape: tf.TensorShape
    mt = MT(tf.ones([4, 2]), [4])
    ds = tf.data.Dataset.from_tensor_slices(mt)
    assert repr(ds.element_spec).endswith(
        "MT.Spec(values=TensorSpec(shape=(2,), dtype=tf.float32, name=None), shape=TensorShape([]))")
    assert repr(ds.batch(2).element_spec).endswith(
        "MT.Spec(values=TensorSpec(shape=(None, 2), dtype=tf.float32, name=None), shape=TensorShape([None]))")
    assert calls[:1] == [("batch", None)]
    d = tf.experimental.extension_type.as_dict(mt)
    assert list(d) == ["values", "shape"] and d["shape"] == tf.TensorShape([4])
    with pytest.raises(ValueError, match="__batch_encoder__ should only be defined for BatchableExtensionType"):
        class Bad(tf.experimental.ExtensionType):  # noqa: F841
            __batch_encoder__ = Enc()
            x: tf.Tensor
