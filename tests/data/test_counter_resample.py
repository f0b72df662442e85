"""tf.data.experimental.Counter / Dataset.counter and Dataset.rejection_resample (the data guide's cells).
Printed forms and element specs recorded from TensorFlow 2.21."""
import numpy as np

import rivulet as tf


def test_counter_is_an_infinite_scan():
    c = tf.data.experimental.Counter()
    assert repr(c) == "<_ScanDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    assert int(c.cardinality()) == -1
    assert list(c.take(3).as_numpy_iterator()) == [0, 1, 2]
    c2 = tf.data.experimental.Counter(start=5, step=-2, dtype=tf.int32)
    got = list(c2.take(3).as_numpy_iterator())
    assert got == [5, 3, 1] and got[0].dtype == np.int32
    assert repr(tf.data.Dataset.counter(2).element_spec) == "TensorSpec(shape=(), dtype=tf.int64, name=None)"


def test_counter_zipped_shuffled_batched_as_the_guide():
    lines = tf.data.Dataset.from_tensor_slices([b"line %d" % i for i in range(50)])
    ds = tf.data.Dataset.zip((tf.data.experimental.Counter(), lines)).shuffle(buffer_size=100).batch(20)
    n, line_batch = next(iter(ds))
    assert n.shape == (20,) and line_batch.shape == (20,)
    shuffled = tf.data.Dataset.zip((tf.data.experimental.Counter(), lines)).shuffle(100).batch(10).repeat(2)
    ids = np.concatenate([n.numpy() for n, _ in shuffled])
    assert sorted(ids.tolist()) == sorted(list(range(50)) * 2)


def test_rejection_resample_specs_and_passthrough():
    ds = tf.data.Dataset.from_tensor_slices((tf.random.uniform([100, 3]),
                                             tf.cast(tf.range(100) % 10 == 0, tf.int64)))
    r = ds.rejection_resample(lambda f, l: l, target_dist=[0.5, 0.5], initial_dist=[0.9, 0.1], seed=1)
    assert repr(r) == ("<_DirectedInterleaveDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), "
                       "(TensorSpec(shape=(3,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int64, "
                       "name=None)))>")
    assert int(r.cardinality()) == -2
    for cls, (f, l) in r:
        assert int(cls) == int(l)
    # target == initial: TensorFlow maps the class on, in order
    r3 = tf.data.Dataset.range(10).rejection_resample(lambda x: x % 2, target_dist=[0.5, 0.5],
                                                      initial_dist=[0.5, 0.5])
    assert repr(r3) == ("<_MapDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), "
                        "TensorSpec(shape=(), dtype=tf.int64, name=None))>")
    assert list(r3.as_numpy_iterator()) == [(i % 2, i) for i in range(10)]
    r4 = tf.data.Dataset.range(10).apply(tf.data.experimental.rejection_resample(
        lambda x: x % 2, target_dist=[0.5, 0.5], initial_dist=[0.5, 0.5]))
    assert list(r4.as_numpy_iterator()) == list(r3.as_numpy_iterator())


def test_rejection_resample_balances_classes():
    ds = tf.data.Dataset.from_tensor_slices((tf.zeros([100, 2]), tf.cast(tf.range(100) % 10 == 0, tf.int64)))
    resampled = ds.repeat().rejection_resample(lambda f, l: l, target_dist=[0.5, 0.5], seed=3)
    labels = [int(l) for _, (_, l) in resampled.take(2000)]
    assert 0.45 < np.mean(labels) < 0.55  # the input is 10% positives
    balanced = ds.repeat().rejection_resample(lambda f, l: l, target_dist=[0.5, 0.5],
                                              initial_dist=[0.9, 0.1], seed=3).batch(10)
    balanced = balanced.map(lambda extra_label, features_and_label: features_and_label)
    lab = np.concatenate([l.numpy() for _, l in balanced.take(200)])
    assert 0.45 < lab.mean() < 0.55


def test_batches_of_a_huge_range_are_computed_from_their_indices():
    # each batch of a range used to be sliced from the whole range materialised (np.arange of 10**12: MemoryError)
    ds = tf.data.Dataset.range(3, 10 ** 12, 7)
    assert next(iter(ds.batch(3))).numpy().tolist() == [3, 10, 17]
    assert next(iter(ds.map(lambda x: x * 2).batch(2))).numpy().tolist() == [6, 20]
    assert list(tf.data.Dataset.range(30, 3, -7).batch(2).as_numpy_iterator())[1].tolist() == [16, 9]
    got = next(iter(tf.data.Dataset.range(5, output_type=tf.int32).batch(2)))
    assert got.dtype == tf.int32 and got.numpy().tolist() == [0, 1]


def test_rejection_resample_filtered_only_and_class_dtype():
    ds = tf.data.Dataset.range(20)
    r = ds.rejection_resample(lambda x: x % 2, target_dist=[1.0, 0.0], initial_dist=[0.5, 0.5], seed=1)
    assert repr(r).startswith("<_PrefetchDataset element_spec=")  # TensorFlow: the filtered pass alone
    assert [int(c) for c, _ in r] == [0] * len(list(r))  # class 1 is never accepted
    r = ds.rejection_resample(lambda x: tf.cast(x % 2, tf.int32), target_dist=[0.5, 0.5], initial_dist=[0.5, 0.5])
    assert repr(r.element_spec[0]) == "TensorSpec(shape=(), dtype=tf.int32, name=None)"
    import pytest
    with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
        ds.rejection_resample(lambda x: tf.cast(x, tf.float32), target_dist=[0.5, 0.5])
