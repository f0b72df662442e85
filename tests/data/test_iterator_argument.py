"""A tf.data iterator passed to a tf.function is traced by its element_spec (TensorFlow's IteratorSpec) and
read by reference: a step function called with each epoch's new iterator traces once, as on TF 2.21."""
import numpy as np
import pytest

import rivulet as tf


def test_new_iterators_of_one_spec_share_a_trace_and_each_call_reads_its_own():
    traces = []

    @tf.function
    def take_two(it):
        traces.append(1)
        return next(it) + next(it)

    got = [take_two(iter(tf.data.Dataset.range(10).skip(k))).numpy() for k in range(3)]
    assert got == [1, 3, 5] and len(traces) == 1
    it = iter(tf.data.Dataset.range(10))
    assert [take_two(it).numpy(), take_two(it).numpy()] == [1, 5]  # the same iterator advances
    assert next(it).numpy() == 4 and len(traces) == 1  # and carries on eagerly where the graph left it
    assert "IteratorSpec(TensorSpec(shape=(), dtype=tf.int64, name=None),)" in \
        take_two.pretty_printed_concrete_signatures()

    take_two(iter(tf.data.Dataset.range(4).map(lambda x: tf.cast(x, tf.float32))))  # another spec: a new trace
    assert len(traces) == 2
    cf = take_two.get_concrete_function(iter(tf.data.Dataset.range(3)))
    with pytest.raises(TypeError, match="IteratorSpec"):
        cf(iter(tf.data.Dataset.from_tensor_slices([1.0, 2.0])))


def test_loops_and_optionals_over_an_iterator_argument():
    @tf.function
    def total(it):
        s = tf.constant(0, tf.int64)
        for x in it:
            s += x
        return s

    @tf.function
    def maybe(it):
        o = it.get_next_as_optional()
        return o.has_value()

    assert total(iter(tf.data.Dataset.range(5))).numpy() == 10
    assert total(iter(tf.data.Dataset.range(3))).numpy() == 3
    assert total.experimental_get_tracing_count() == 1
    it = iter(tf.data.Dataset.range(1))
    assert [maybe(it).numpy(), maybe(it).numpy()] == [True, False]


@pytest.mark.parametrize("from_function", [False, True])
def test_distributed_step_over_each_epochs_iterator_traces_once(from_function):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    data = tf.data.Dataset.from_tensor_slices(np.arange(16, dtype=np.float32)).batch(4)
    traces = []

    @tf.function
    def step(it):
        traces.append(1)
        per = strategy.run(lambda x: tf.reduce_sum(x), args=(next(it),))
        return strategy.reduce("SUM", per, axis=None)

    for epoch in range(3):
        dist = (strategy.distribute_datasets_from_function(lambda ctx: data) if from_function
                else strategy.experimental_distribute_dataset(data))
        it = iter(dist)
        first = step(it).numpy()
        assert first == (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7 if from_function else 0 + 1 + 2 + 3)
    assert len(traces) == 1
