"""MirroredStrategy's cross_device_ops (HierarchicalCopyAllReduce, NcclAllReduce, ReductionToOneDevice),
tf.distribute.experimental's CommunicationImplementation / CommunicationOptions and CentralStorageStrategy
(guide/distributed_training.ipynb). Messages and printed forms recorded from TF 2.21."""
import numpy as np
import pytest

import rivulet as tf
from training_case import data as _data, model as _model

CPUS = ["/cpu:0", "/cpu:1"]


def test_guide_cells():
    mirrored_strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())
    assert mirrored_strategy.num_replicas_in_sync == 1
    assert isinstance(mirrored_strategy.extended._cross_device_ops, tf.distribute.CrossDeviceOps)
    communication_options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.NCCL)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=communication_options)
    assert strategy.num_replicas_in_sync == 1
    central_storage_strategy = tf.distribute.experimental.CentralStorageStrategy()
    # TF 2.21 on a CPU-only machine: one replica on the CPU, the parameters there too
    assert central_storage_strategy.num_replicas_in_sync == 1
    assert central_storage_strategy.extended.worker_devices == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert central_storage_strategy.extended.parameter_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)


def test_all_reduce_classes_check_num_packs():
    for cls in (tf.distribute.HierarchicalCopyAllReduce, tf.distribute.NcclAllReduce):
        assert isinstance(cls(), tf.distribute.CrossDeviceOps) and isinstance(cls(num_packs=0), cls)
    with pytest.raises(ValueError, match=r"^NCCL all-reduce requires num_packs >= 0, but -1 is specified$"):
        tf.distribute.NcclAllReduce(num_packs=-1)
    with pytest.raises(ValueError, match=r"^HierarchicalCopy requires num_packs >= 0, but -1 is specified$"):
        tf.distribute.HierarchicalCopyAllReduce(num_packs=-1)


@pytest.mark.parametrize("cls", [tf.distribute.ReductionToOneDevice, tf.distribute.NcclAllReduce,
                                 tf.distribute.HierarchicalCopyAllReduce])
def test_reduce_batch_reduce_broadcast(cls):
    ops = cls()
    pr = tf.distribute.MirroredStrategy(CPUS).run(
        lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32) * 2.0)
    assert float(ops.reduce(tf.distribute.ReduceOp.SUM, pr, destinations="/cpu:0")) == 6.0
    assert float(ops.reduce("MEAN", pr, destinations="/cpu:0")) == 3.0
    assert float(ops.reduce("SUM", tf.constant(3.0), destinations="/cpu:0")) == 3.0  # TF 2.21: 3.0
    out = ops.batch_reduce("SUM", [(tf.constant(3.0), "/cpu:0"), (tf.constant([1., 2.]), "/cpu:0")])
    assert [o.numpy().tolist() for o in out] == [3.0, [1.0, 2.0]]
    assert float(ops.broadcast(tf.constant(3.0), "/cpu:0")) == 3.0
    with pytest.raises(ValueError, match=r"^destinations must be one of a `DistributedValues` object, a "
                                         r"tf.Variable object, or a device string.$"):
        ops.reduce("SUM", tf.constant(3.0), destinations=None)
    with pytest.raises(ValueError, match="^destinations can not be empty$"):
        ops.reduce("SUM", tf.constant(3.0), "")
    with pytest.raises(ValueError, match=r"^Each element of `value_destination_pairs` should be a tuple.$"):
        ops.batch_reduce("SUM", [tf.constant(3.0)])


def test_reduction_to_one_device_accumulation_fn_sums_the_replicas_gradients():
    calls = []

    def accumulate(values):
        calls.append(len(values))
        return tf.math.add_n(values)
    strategy = tf.distribute.MirroredStrategy(CPUS, cross_device_ops=tf.distribute.ReductionToOneDevice(
        accumulation_fn=accumulate))
    with strategy.scope():
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(1.0)

    def step(x):
        with tf.GradientTape() as tape:
            loss = v * x
        opt.apply_gradients([(tape.gradient(loss, v), v)])
    strategy.run(step, args=(strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group + 1))),))
    assert float(v) == 1.0 - (1.0 + 2.0) and calls == [2]  # the gradients 1 and 2, summed by accumulate
    assert float(strategy.reduce("SUM", strategy.run(lambda: tf.constant(2.0)), axis=None)) == 4.0
    assert calls == [2, 2]


def test_communication_options():
    CI = tf.distribute.experimental.CommunicationImplementation
    assert [m.value for m in CI] == ["AUTO", "RING", "NCCL"]
    assert tf.distribute.experimental.CollectiveCommunication is CI
    o = tf.distribute.experimental.CommunicationOptions(bytes_per_pack=10, timeout_seconds=5.0)
    assert str(o) == "Options(bytes_per_pack=10,timeout_seconds=5.0, implementation=CommunicationImplementation.AUTO)"
    assert tf.distribute.experimental.CommunicationOptions(implementation="nccl").implementation is CI.NCCL
    merged = o.merge(tf.distribute.experimental.CommunicationOptions(timeout_seconds=7.0))
    assert (merged.bytes_per_pack, merged.timeout_seconds) == (10, 7.0)
    with pytest.raises(ValueError, match=r"^Argument `bytes_per_pack` must be >=0, Received -1.$"):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="must be instance of `tf.distribute.experimental.CommunicationImplementation`"):
        tf.distribute.experimental.CommunicationOptions(implementation=3)
    with pytest.raises(ValueError, match="'FOO' is not a valid CommunicationImplementation"):
        tf.distribute.experimental.CommunicationOptions(implementation="foo")


def test_central_storage_strategy_devices_and_replicas():
    s = tf.distribute.experimental.CentralStorageStrategy(compute_devices=CPUS)
    # TF 2.21 (two logical CPUs): 2 replicas, the parameters on '/device:CPU:0'
    assert s.num_replicas_in_sync == 2
    assert s.extended.worker_devices == ["/job:localhost/replica:0/task:0/device:CPU:0",
                                         "/job:localhost/replica:0/task:0/device:CPU:1"]
    assert s.extended.parameter_devices == ("/device:CPU:0",)
    one = tf.distribute.experimental.CentralStorageStrategy(compute_devices=["/cpu:0"], parameter_device="/cpu:0")
    assert one.extended.parameter_devices == ("/cpu:0",)
    with s.scope():
        v = tf.Variable(1.0)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"  # one variable, as TF prints
    pr = s.run(lambda x: v * x, args=(tf.constant(3.0),))
    assert [float(t) for t in s.experimental_local_results(pr)] == [3.0, 3.0]
    assert float(s.reduce("SUM", s.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group),
                          axis=None)) == 1


def test_central_storage_keras_fit_matches_one_replica():
    x, y = _data()

    def train(strategy):
        with strategy.scope():
            m = _model()
            m.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        m.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        return m
    m1 = train(tf.distribute.OneDeviceStrategy("/cpu:0"))
    m2 = train(tf.distribute.experimental.CentralStorageStrategy(compute_devices=CPUS))
    for a, b in zip(m1.get_weights(), m2.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)
    assert int(m2.optimizer.iterations) == 8
