"""tf.distribute in one process: strategies, replica/cross-replica context, PerReplica values, reductions,
merge_call, distributed datasets, and training (Keras fit and custom loops) that ends with the weights a
single replica reaches on the same global batches."""
import threading

import numpy as np
import pytest

import rivulet as tf
from training_case import data as _data, model as _model

CPUS = ["/cpu:0", "/cpu:1"]


@pytest.fixture
def mirrored():
    return tf.distribute.MirroredStrategy(CPUS)


def test_devices_and_contexts(mirrored):
    assert mirrored.num_replicas_in_sync == 2
    assert mirrored.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",
                                                "/job:localhost/replica:0/task:0/device:CPU:1")
    assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 1  # no GPUs: one CPU replica, as TF
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_replica_context() is not None
    with mirrored.scope():
        assert tf.distribute.get_strategy() is mirrored and tf.distribute.has_strategy()
        assert tf.distribute.in_cross_replica_context() and tf.distribute.get_replica_context() is None
    assert tf.distribute.get_strategy() is not mirrored


def test_bad_strategies(mirrored):
    with pytest.raises(ValueError, match="device"):
        tf.distribute.MirroredStrategy(["/cpu:0", "nonsense"])
    with pytest.raises(ValueError, match="duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/device:CPU:0"])
    with mirrored.scope():
        with pytest.raises(ValueError, match="Mixing different"):
            with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
                pass
    with pytest.raises(TypeError):
        mirrored.run(42)


def test_run_gives_per_replica_values_and_reduce(mirrored):
    def f(x):
        return x * tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32)
    pr = mirrored.run(f, args=(tf.constant(2.0),))
    assert repr(pr) == ("PerReplica:{\n  0: <tf.Tensor: shape=(), dtype=float32, numpy=2.0>,\n"
                        "  1: <tf.Tensor: shape=(), dtype=float32, numpy=4.0>\n}")
    assert str(pr).splitlines()[1] == "  0: tf.Tensor(2.0, shape=(), dtype=float32),"
    assert [float(v) for v in mirrored.experimental_local_results(pr)] == [2.0, 4.0]
    assert float(mirrored.reduce("SUM", pr, axis=None)) == 6.0
    assert float(mirrored.reduce(tf.distribute.ReduceOp.MEAN, pr, axis=None)) == 3.0
    vec = mirrored.run(lambda: tf.constant([1.0, 2.0]))
    assert float(mirrored.reduce("SUM", vec, axis=0)) == 6.0
    assert float(mirrored.reduce("MEAN", vec, axis=0)) == 1.5
    assert float(mirrored.reduce("MEAN", tf.constant([1.0, 2.0, 3.0]), axis=0)) == 2.0
    with pytest.raises(ValueError, match="non-DistributedValues"):
        mirrored.reduce("SUM", tf.constant(3.0), axis=None)
    with pytest.raises(ValueError, match="reduce_op"):
        mirrored.reduce("MAX", pr, axis=None)


def test_all_reduce_and_merge_call_eager_and_traced(mirrored):
    def g(x):
        return tf.distribute.get_replica_context().all_reduce("SUM", x)
    dd = list(mirrored.experimental_distribute_dataset([tf.constant([0, 1, 2, 3])]))
    assert [v.numpy().tolist() for v in dd[0]] == [[0, 1], [2, 3]]
    out = mirrored.run(g, args=(dd[0],))
    assert [v.numpy().tolist() for v in out] == [[2, 4], [2, 4]]

    traces = []

    @tf.function
    def h(d):
        traces.append(1)
        return mirrored.reduce("SUM", mirrored.run(g, args=(d,)), axis=None)
    assert h(dd[0]).numpy().tolist() == [4, 8]
    assert h(dd[0]).numpy().tolist() == [4, 8] and len(traces) == 1

    calls = []

    def merge_fn(strategy, value):
        calls.append(value)
        return strategy.reduce("MEAN", value, axis=None)

    def replica_fn():
        rc = tf.distribute.get_replica_context()
        return rc.merge_call(merge_fn, args=(tf.cast(rc.replica_id_in_sync_group, tf.float32) * 10,))
    res = mirrored.run(replica_fn)
    assert len(calls) == 1 and [float(v) for v in calls[0]] == [0.0, 10.0]
    assert [float(v) for v in res] == [5.0, 5.0]


def test_replica_errors_propagate_without_leaving_threads(mirrored):
    before = threading.active_count()

    def fails_on_one():
        if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 1:
            raise KeyError("replica one")
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
    with pytest.raises(KeyError, match="replica one"):
        mirrored.run(fails_on_one)

    def uneven():
        if int(tf.distribute.get_replica_context().replica_id_in_sync_group) == 0:
            tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
        return tf.constant(0.0)
    with pytest.raises(RuntimeError, match="merge_call was called by 1 of 2 replicas"):
        mirrored.run(uneven)
    with pytest.raises(RuntimeError, match="cross-replica context"):
        mirrored.run(lambda: mirrored.run(lambda: 1))
    assert threading.active_count() == before


def test_variables_created_in_replicas_are_one_variable(mirrored):
    made = mirrored.run(lambda: tf.Variable(3.0))
    assert isinstance(made, tf.Variable)  # the same object for both replicas, not a PerReplica
    mirrored.run(lambda: made.assign_add(1.0))  # each replica adds to the one store
    assert float(made) == 5.0


def test_datasets_from_function_and_input_context(mirrored):
    seen = []

    def dataset_fn(ctx):
        seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return [tf.constant([i]) for i in range(5)]
    batches = list(mirrored.distribute_datasets_from_function(dataset_fn))
    assert seen == [(1, 0, 2)]
    assert [[v.numpy().tolist() for v in b] for b in batches] == [[[0], [1]], [[2], [3]], [[4], []]]
    ctx = tf.distribute.InputContext(1, 0, 2)
    assert ctx.get_per_replica_batch_size(8) == 4
    assert str(ctx) == "tf.distribute.InputContext(input pipeline id 0, total: 1)"
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(7)


def test_compute_average_loss(mirrored):
    per_example = tf.constant([1.0, 2.0, 3.0, 4.0])
    assert float(tf.nn.compute_average_loss(per_example)) == 2.5
    assert float(tf.nn.compute_average_loss(per_example, global_batch_size=8)) == 1.25
    out = mirrored.run(lambda: tf.nn.compute_average_loss(per_example))  # 4 per replica, 8 in all
    assert [float(v) for v in out] == [1.25, 1.25]
    assert [float(v) for v in mirrored.run(lambda: tf.nn.scale_regularization_loss(tf.constant(3.0)))] == [1.5, 1.5]
    with pytest.raises(TypeError):
        tf.nn.compute_average_loss(tf.constant([1, 2]))


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_keras_fit_matches_one_replica(mirrored, run_eagerly):
    x, y = _data()

    def train(strategy):
        with strategy.scope():
            m = _model()
            m.compile(optimizer=tf.keras.optimizers.Adam(0.01), metrics=["accuracy"], run_eagerly=run_eagerly,
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        hist = m.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
        return m, hist.history
    m1, h1 = train(tf.distribute.OneDeviceStrategy("/cpu:0"))
    m2, h2 = train(mirrored)
    assert m2.distribute_strategy is mirrored
    for a, b in zip(m1.get_weights(), m2.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)
    np.testing.assert_allclose(h1["loss"], h2["loss"], rtol=1e-5)
    assert h1["accuracy"] == h2["accuracy"]
    assert int(m2.optimizer.iterations) == 12  # one update per global batch
    np.testing.assert_allclose(m1.evaluate(x, y, verbose=0), m2.evaluate(x, y, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(m1.predict(x[:10]), m2.predict(x[:10]), atol=1e-5)  # order kept when joined


@pytest.mark.parametrize("traced", [False, True])
def test_custom_training_loop_matches_one_replica(mirrored, traced):
    x, y = _data()
    global_batch = 16

    def train(strategy):
        with strategy.scope():
            model = _model()
            opt = tf.keras.optimizers.SGD(0.1)
            loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(
                from_logits=True, reduction=tf.keras.losses.Reduction.NONE)

        def step(inputs):
            xb, yb = inputs
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(loss_obj(yb, model(xb, training=True)),
                                                  global_batch_size=global_batch)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        def distributed_step(d):
            return strategy.reduce("SUM", strategy.run(step, args=(d,)), axis=None)
        if traced:
            distributed_step = tf.function(distributed_step)
        batches = [(tf.constant(x[i:i + global_batch]), tf.constant(y[i:i + global_batch]))
                   for i in range(0, 64, global_batch)]
        losses = [float(distributed_step(d)) for _ in range(3)
                  for d in strategy.experimental_distribute_dataset(batches)]
        return model.get_weights(), losses
    w1, l1 = train(tf.distribute.OneDeviceStrategy("/cpu:0"))
    w2, l2 = train(mirrored)
    for a, b in zip(w1, w2):
        np.testing.assert_allclose(a, b, atol=1e-5)
    np.testing.assert_allclose(l1, l2, rtol=1e-5)


def test_default_mirrored_strategy_takes_every_logical_cpu():
    """TensorFlow on a CPU-only machine mirrors over the logical CPUs: two after splitting the CPU in two."""
    from rivulet import devices as _device

    def reset():
        _device._logical_config.clear()
        _device._initialized[0] = False
    reset()
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy()
        assert strategy.num_replicas_in_sync == 2
        assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",
                                                    "/job:localhost/replica:0/task:0/device:CPU:1")
        ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
        assert [int(t) for t in strategy.experimental_local_results(ids)] == [0, 1]
    finally:
        reset()
    assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 1
    reset()


def test_distributed_dataset_element_spec_is_per_replica_and_binds_an_input_signature():
    """With two replicas, element_spec is a PerReplicaSpec per component (batch dim unknown), as in
    TensorFlow, and a tf.function with it as input_signature takes the distributed batches."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    ds = tf.data.Dataset.from_tensors(([1.0], [2.0])).repeat(8).batch(4)
    dist = strategy.experimental_distribute_dataset(ds)
    spec = dist.element_spec
    assert repr(spec[0]) == ("PerReplicaSpec(TensorSpec(shape=(None, 1), dtype=tf.float32, name=None), "
                             "TensorSpec(shape=(None, 1), dtype=tf.float32, name=None))")

    @tf.function(input_signature=[spec])
    def step(batch):
        return strategy.run(lambda x, y: x + y, args=batch)
    out = step(next(iter(dist)))
    assert [t.numpy().tolist() for t in strategy.experimental_local_results(out)] == [[[3.0]] * 2] * 2


def test_distributed_variables_print_as_tensorflow_prints_them(mirrored):
    """TF 2.21's forms: MirroredVariable / SyncOnReadVariable with one line per replica (no values inside a
    graph), also with one replica; OneDeviceStrategy and CentralStorageStrategy make plain variables."""
    with mirrored.scope():
        v = tf.Variable(1.0)
        r = tf.Variable([0, 1], synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    assert (type(v).__name__, type(r).__name__) == ("MirroredVariable", "SyncOnReadVariable")
    assert isinstance(v, tf.Variable) and isinstance(r, tf.Variable)
    assert str(v) == repr(v) == (
        "MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,\n"
        "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=1.0>\n}")
    assert repr(r) == (
        "SyncOnReadVariable:{\n  0: <tf.Variable 'Variable:0' shape=(2,) dtype=int32, numpy=array([0, 1], "
        "dtype=int32)>,\n  1: <tf.Variable 'Variable/replica_1:0' shape=(2,) dtype=int32, numpy=array([0, 1], "
        "dtype=int32)>\n}")
    seen = []
    tf.function(lambda: seen.append(repr(v)) or v + 1)()
    assert seen == ["MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32>,\n"
                    "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32>\n}"]

    with tf.distribute.MirroredStrategy(["/cpu:0"]).scope():
        one = tf.Variable(2.0)
        with pytest.raises(ValueError, match="aggregation=MEAN and a non-floating dtype"):
            tf.Variable(1, aggregation=tf.VariableAggregation.MEAN)
    assert repr(one) == "MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>\n}"
    for strategy in (tf.distribute.OneDeviceStrategy("/cpu:0"), tf.distribute.experimental.CentralStorageStrategy()):
        with strategy.scope():
            plain = tf.Variable(3.0)
        assert repr(plain) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=3.0>"
