"""Iterators of distributed datasets: next/get_next/get_next_as_optional, eagerly and inside a tf.function
(tutorials/distribute/input.ipynb; values and errors as TF 2.21 gives them with two replicas)."""
import pytest

import rivulet as tf

CPUS = ["/cpu:0", "/cpu:1"]


def test_tutorial_cell_get_next_as_optional_in_tf_function(capsys):
    strategy = tf.distribute.MirroredStrategy(CPUS)
    dataset = tf.data.Dataset.range(9).batch(4)
    distributed_iterator = iter(strategy.experimental_distribute_dataset(dataset))

    @tf.function
    def train_fn(distributed_iterator):
        for _ in tf.range(5):
            optional_data = distributed_iterator.get_next_as_optional()
            if not optional_data.has_value():
                break
            per_replica_results = strategy.run(lambda x: x, args=(optional_data.get_value(),))
            tf.print(strategy.experimental_local_results(per_replica_results))
    train_fn(distributed_iterator)
    train_fn(distributed_iterator)  # the iterator is exhausted: nothing more, as in TensorFlow
    assert capsys.readouterr().err.splitlines() == ["([0 1], [2 3])", "([4 5], [6 7])", "([8], [])"]


def test_eager_iterator():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(9).batch(4)))
    assert repr(it.element_spec) == ("PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                                     "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    o = it.get_next_as_optional()
    assert bool(o.has_value())
    assert [t.numpy().tolist() for t in strategy.experimental_local_results(o.get_value())] == [[0, 1], [2, 3]]
    assert [t.numpy().tolist() for t in it.get_next()] == [[4, 5], [6, 7]]
    o = it.get_next_as_optional()
    assert bool(o.has_value()) and [t.numpy().tolist() for t in o.get_value()] == [[8], []]
    o = it.get_next_as_optional()
    assert not bool(o.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value"):
        o.get_value()
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)


def test_get_next_and_optional_value_in_tf_function():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)))

    @tf.function
    def g(it):
        return it.get_next()

    @tf.function
    def h(it):
        o = it.get_next_as_optional()
        return o.has_value(), o.get_value()
    assert [t.numpy().tolist() for t in g(it)] == [[0, 1], [2, 3]]
    has, value = h(it)
    assert bool(has) and [t.numpy().tolist() for t in value] == [[4, 5], [6, 7]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value"):
        h(it)


def test_python_iterable_distributed():
    strategy = tf.distribute.MirroredStrategy(CPUS)
    it = iter(strategy.experimental_distribute_dataset([tf.constant([1.0, 2.0])]))
    o = it.get_next_as_optional()
    assert [t.numpy().tolist() for t in o.get_value()] == [[1.0], [2.0]]
    assert not bool(it.get_next_as_optional().has_value())


def test_for_loop_over_a_distributed_dataset_in_tf_function_is_a_while_loop():
    # tutorials/distribute/custom_training.ipynb, distributed_train_epoch: one While, read as the function runs
    strategy = tf.distribute.MirroredStrategy(CPUS)
    dist = strategy.experimental_distribute_dataset(
        tf.data.Dataset.range(8).map(lambda x: tf.cast(x, tf.float32)).batch(4))

    @tf.function
    def epoch(dataset):
        total = 0.0
        n = 0
        for x in dataset:
            total += strategy.reduce("SUM", strategy.run(lambda v: tf.reduce_sum(v) * 2.0, args=(x,)), axis=None)
            n += 1
        return total, n
    for _ in range(2):  # a fresh pass over the data on every call
        total, n = epoch(dist)
        assert float(total) == 56.0 and int(n) == 2
    assert "While" in [op.type for op in epoch.get_concrete_function(dist).graph.get_operations()]
    it = iter(dist)
    next(it)
    total, n = epoch(it)  # an iterator: what is left of it
    assert float(total) == 2 * (4 + 5 + 6 + 7) and int(n) == 1


def test_for_loop_over_datasets_from_function_in_tf_function():
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    dist = one.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(6).batch(3))

    @tf.function
    def total(dataset):
        s = tf.constant(0, tf.int64)
        for x in dataset:
            s += tf.reduce_sum(x)
        return s
    assert int(total(dist)) == 15
    two = tf.distribute.MirroredStrategy(CPUS)
    with pytest.raises(NotImplementedError, match="distribute_datasets_from_function"):
        total(two.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(6).batch(3)))


@pytest.mark.parametrize("replicas", [1, 2])
def test_an_iterator_of_datasets_from_function_passed_to_a_function_step(replicas):
    """distribute/multi_worker_with_ctl: `iterator = iter(dist_ds)` made eagerly, `train_step(iterator)` calls
    `next(iterator)` inside the tf.function (the dataset's iterator was made lazily inside the trace: out of scope)."""
    import rivulet as tf
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(replicas)]) if replicas > 1 else \
        tf.distribute.MultiWorkerMirroredStrategy()
    if replicas > 1 and strategy.num_replicas_in_sync != replicas:
        pytest.skip("needs logical CPUs")

    def dataset_fn(ctx):
        return tf.data.Dataset.range(12).batch(ctx.get_per_replica_batch_size(2 * replicas))
    ds = strategy.distribute_datasets_from_function(dataset_fn)

    @tf.function
    def step(iterator):
        per_replica = strategy.run(lambda x: tf.reduce_sum(x), args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    it = iter(ds)
    got = [int(step(it)) for _ in range(6 // replicas)]
    assert got == ([1, 5, 9, 13, 17, 21] if replicas == 1 else [6, 22, 38])
    with pytest.raises((StopIteration, tf.errors.OutOfRangeError)):
        step(it)
