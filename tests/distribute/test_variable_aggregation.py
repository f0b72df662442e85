"""Updates made inside `strategy.run` to variables with an aggregation: the replicas' values are summed,
averaged or replica 0's taken, and applied once (TensorFlow 2.21's MirroredVariable, two CPU replicas; the
values below were recorded with it)."""
import numpy as np
import pytest

import rivulet as tf

A = tf.VariableAggregation


@pytest.fixture
def mirrored():
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _per_replica_value():  # 2.0 on replica 0, 3.0 on replica 1
    return 2.0 + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


# (aggregation, method) -> the variable (initially 1.0) after each replica updated it with 2.0 / 3.0
RECORDED = {
    (A.SUM, "assign"): 5.0, (A.SUM, "assign_add"): 6.0, (A.SUM, "assign_sub"): -4.0,
    (A.MEAN, "assign"): 2.5, (A.MEAN, "assign_add"): 3.5, (A.MEAN, "assign_sub"): -1.5,
    (A.ONLY_FIRST_REPLICA, "assign"): 2.0, (A.ONLY_FIRST_REPLICA, "assign_add"): 3.0,
    (A.ONLY_FIRST_REPLICA, "assign_sub"): -1.0,
}


@pytest.mark.parametrize("mode", ["eager", "in_tf_function", "of_tf_function"])
@pytest.mark.parametrize("agg,method", list(RECORDED))
def test_replica_updates_are_aggregated_once(mirrored, agg, method, mode):
    with mirrored.scope():
        v = tf.Variable(1.0, aggregation=agg)

    def step():
        return tf.identity(getattr(v, method)(_per_replica_value()))

    if mode == "eager":
        out = mirrored.run(step)
    elif mode == "in_tf_function":
        out = tf.function(lambda: mirrored.run(step))()
    else:  # each replica runs the tf.function: traced per replica, as TensorFlow does
        out = mirrored.run(tf.function(step))
    want = RECORDED[(agg, method)]
    assert v.numpy() == want
    assert [r.numpy() for r in mirrored.experimental_local_results(out)] == [want, want]  # each replica reads it


def test_mean_and_sum_in_a_compiled_step_keep_running(mirrored):
    with mirrored.scope():
        v = tf.Variable([1.0, 2.0], aggregation=A.MEAN)
        w = tf.Variable(10, aggregation=A.SUM)

    @tf.function
    def outer():
        def step():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            v.assign_sub(tf.cast(tf.stack([rid, 2 * rid]), tf.float32) + 1.0)
            w.assign_add(rid + 1)
            return v.read_value(), w.read_value()
        return mirrored.run(step)

    vs, ws = outer()
    assert [x.numpy().tolist() for x in vs.values] == [[-0.5, 0.0], [-0.5, 0.0]]
    assert [x.numpy() for x in ws.values] == [13, 13]
    outer()
    assert v.numpy().tolist() == [-2.0, -2.0] and w.numpy() == 16


def test_one_value_for_every_replica(mirrored):
    """A Python number the replicas share: MEAN and ONLY_FIRST_REPLICA take it, SUM refuses it (TensorFlow's
    error)."""
    for agg, want in [(A.MEAN, 4.0), (A.ONLY_FIRST_REPLICA, 4.0)]:
        with mirrored.scope():
            v = tf.Variable(1.0, aggregation=agg)
        mirrored.run(lambda: v.assign_add(3.0))
        assert v.numpy() == want
    with mirrored.scope():
        v = tf.Variable(1.0, aggregation=A.SUM)
    with pytest.raises(ValueError, match=r"A non-DistributedValues value 3.0 cannot be reduced with the given "
                                         r"reduce op ReduceOp.SUM."):
        mirrored.run(lambda: v.assign_add(3.0))
    assert v.numpy() == 1.0


def test_read_value_false_and_cross_replica_assign(mirrored):
    with mirrored.scope():
        v = tf.Variable([1.0, 2.0], aggregation=A.MEAN)
    out = mirrored.run(lambda: v.assign_add([1.0, 1.0], read_value=False))
    assert out is None and v.numpy().tolist() == [2.0, 3.0]
    v.assign([5.0, 6.0])  # cross-replica context: assigned as it is
    assert v.numpy().tolist() == [5.0, 6.0]


def test_mean_of_integers_is_refused(mirrored):
    msg = "creating distributed tf.Variable with aggregation=MEAN and a non-floating dtype is not supported"
    for value in (1, tf.constant(1 + 0j, tf.complex64)):
        with mirrored.scope(), pytest.raises(ValueError, match=msg):
            tf.Variable(value, aggregation=A.MEAN)
    with mirrored.scope():
        assert tf.Variable(1, aggregation=A.SUM).numpy() == 1
    assert tf.Variable(1, aggregation=A.MEAN).numpy() == 1  # no strategy: allowed


def test_run_of_a_tf_function_traces_each_replica(mirrored):
    """strategy.run(tf.function(fn)): every replica gets its own replica id and merges work (TensorFlow's
    values); a merge inside a tf.function that the replicas' Python calls raises TensorFlow's RuntimeError."""
    x = mirrored.experimental_distribute_values_from_function(
        lambda c: tf.constant(float(c.replica_id_in_sync_group + 2)))
    step = tf.function(lambda x: (tf.distribute.get_replica_context().all_reduce("SUM", x),
                                  tf.distribute.get_replica_context().replica_id_in_sync_group))
    total, ids = mirrored.run(step, args=(x,))
    assert [t.numpy() for t in total.values] == [5.0, 5.0] and [i.numpy() for i in ids.values] == [0, 1]
    with mirrored.scope():
        v = tf.Variable(1.0, aggregation=A.SUM)
    inner = tf.function(lambda: v.assign_add(tf.constant(2.0)))
    with pytest.raises(RuntimeError, match=r"`merge_call` called while defining a new graph or a tf.function\. "
                                           r"This can often happen if the function `fn` passed to `strategy.run\(\)` "
                                           r"contains a nested `@tf.function`"):
        mirrored.run(lambda: inner())
    # a tf.function the replicas' Python calls is traced per replica, as TensorFlow's (its cache keys on the
    # device): each trace has its replica's id
    r = mirrored.run(lambda: tf.function(_per_replica_value)())
    assert [x.numpy() for x in mirrored.experimental_local_results(r)] == [2.0, 3.0]


def test_one_replica_updates_as_it_is():
    s = tf.distribute.MirroredStrategy(["/cpu:0"])
    with s.scope():
        v = tf.Variable(1.0, aggregation=A.MEAN)
    s.run(lambda: v.assign_add(2.0))
    assert v.numpy() == 3.0
    np.testing.assert_equal(tf.Variable(1.0, aggregation=A.SUM).assign_add(1.0).numpy(), 2.0)


# -- synchronization=ON_READ: one component per replica, combined when read across replicas ----------------
ON_READ = tf.VariableSynchronization.ON_READ
# aggregation -> (cross-replica read after replica i added 1 + i to 1.0, components after assign(6.0) there)
ON_READ_RECORDED = {A.SUM: (5.0, [3.0, 3.0]), A.MEAN: (2.5, [6.0, 6.0]), A.ONLY_FIRST_REPLICA: (2.0, [6.0, 6.0])}


@pytest.mark.parametrize("agg", list(ON_READ_RECORDED))
def test_on_read_components_and_reads(mirrored, agg):
    with mirrored.scope():
        v = tf.Variable(1.0, synchronization=ON_READ, aggregation=agg)
    assert not v.trainable
    mirrored.run(lambda: v.assign_add(_per_replica_value() - 1.0))
    components = mirrored.experimental_local_results(v)
    assert [c.name for c in components] == ["Variable:0", "Variable/replica_1:0"]
    assert [c.numpy() for c in components] == [2.0, 3.0]  # each replica updated its own
    read, assigned = ON_READ_RECORDED[agg]
    assert v.numpy() == read and v.read_value().numpy() == read and tf.convert_to_tensor(v).numpy() == read
    assert tf.function(lambda: tf.identity(v))().numpy() == read
    in_replicas = mirrored.run(lambda: tf.identity(v))
    assert [x.numpy() for x in mirrored.experimental_local_results(in_replicas)] == [2.0, 3.0]
    v.assign(6.0)
    assert [c.numpy() for c in mirrored.experimental_local_results(v)] == assigned
    if agg is A.SUM:
        with pytest.raises(ValueError, match=r"SyncOnReadVariable does not support `assign_add` in cross-replica "
                                             r"context when aggregation is set to `tf.VariableAggregation.SUM`."):
            v.assign_add(1.0)
    else:
        v.assign_add(1.0)
        assert [c.numpy() for c in mirrored.experimental_local_results(v)] == [7.0, 7.0]
    assert repr(v) == ("SyncOnReadVariable:{\n"
                       f"  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy={assigned[0] + (agg is not A.SUM):.1f}>,\n"
                       f"  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, "
                       f"numpy={assigned[1] + (agg is not A.SUM):.1f}>\n}}")


def test_on_read_none_cannot_be_read_across_replicas(mirrored):
    with mirrored.scope():
        v = tf.Variable(1.0, synchronization=ON_READ)
    mirrored.run(lambda: v.assign_add(_per_replica_value() - 1.0))
    msg = "Could not convert from `tf.VariableAggregation` VariableAggregationV2.NONE to`tf.distribute.ReduceOp` type"
    with pytest.raises(ValueError, match=msg):
        v.numpy()
    assert [c.numpy() for c in mirrored.experimental_local_results(v)] == [2.0, 3.0]


def test_on_read_accumulators_in_a_compiled_step(mirrored):
    """Metric-style totals: each replica accumulates its own; the step reads their sum / mean."""
    with mirrored.scope():
        total = tf.Variable(0.0, synchronization=ON_READ, aggregation=A.SUM)
        count = tf.Variable(0.0, synchronization=ON_READ, aggregation=A.MEAN)

    @tf.function
    def step(x):
        def fn(x):
            total.assign_add(tf.reduce_sum(x))
            count.assign_add(tf.cast(tf.size(x), tf.float32))
            return total.read_value()
        return mirrored.run(fn, args=(x,)), total.read_value(), count.read_value()

    x = mirrored.experimental_distribute_values_from_function(
        lambda c: tf.constant([1.0, 2.0]) * float(c.replica_id_in_sync_group + 1))
    for want in [([3.0, 6.0], 9.0, 2.0), ([6.0, 12.0], 18.0, 4.0)]:
        r, t, c = step(x)
        assert ([y.numpy() for y in mirrored.experimental_local_results(r)], t.numpy(), c.numpy()) == want
    mirrored.run(tf.function(lambda: total.assign_add(1.0)))  # each replica its own component
    assert total.numpy() == 20.0
    inner = tf.function(lambda: total.assign_add(_per_replica_value()))  # traced per replica: its component
    for want in ([9.0, 16.0], [11.0, 19.0]):  # components 7 and 13, plus 2 and 3 a run
        r = mirrored.run(lambda: inner())
        assert [x.numpy() for x in mirrored.experimental_local_results(r)] == want
        assert [x.numpy() for x in mirrored.experimental_local_results(total)] == want
    assert inner.experimental_get_tracing_count() == 2


def test_on_read_checkpoint_holds_the_combined_value(mirrored, tmp_path):
    with mirrored.scope():
        total = tf.Variable(0.0, synchronization=ON_READ, aggregation=A.SUM)
    mirrored.run(lambda: total.assign_add(_per_replica_value()))  # 2 + 3
    path = tf.train.Checkpoint(t=total).write(str(tmp_path / "ck"))
    assert tf.train.load_checkpoint(path).get_tensor("t/.ATTRIBUTES/VARIABLE_VALUE") == 5.0
    total.assign(0.0)
    tf.train.Checkpoint(t=total).read(path)
    assert [c.numpy() for c in mirrored.experimental_local_results(total)] == [2.5, 2.5]  # SUM: divided
