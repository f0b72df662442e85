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


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "in_tf_function"])
@pytest.mark.parametrize("agg,method", list(RECORDED))
def test_replica_updates_are_aggregated_once(mirrored, agg, method, traced):
    with mirrored.scope():
        v = tf.Variable(1.0, aggregation=agg)

    def step():
        return tf.identity(getattr(v, method)(_per_replica_value()))

    out = tf.function(lambda: mirrored.run(step))() if traced else mirrored.run(step)
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


def test_merge_inside_a_per_replica_tf_function_is_refused(mirrored):
    with mirrored.scope():
        v = tf.Variable(1.0, aggregation=A.SUM)
    with pytest.raises(NotImplementedError, match="call `strategy.run` inside the tf.function"):
        mirrored.run(tf.function(lambda: v.assign_add(_per_replica_value())))


def test_one_replica_updates_as_it_is():
    s = tf.distribute.MirroredStrategy(["/cpu:0"])
    with s.scope():
        v = tf.Variable(1.0, aggregation=A.MEAN)
    s.run(lambda: v.assign_add(2.0))
    assert v.numpy() == 3.0
    np.testing.assert_equal(tf.Variable(1.0, aggregation=A.SUM).assign_add(1.0).numpy(), 2.0)
