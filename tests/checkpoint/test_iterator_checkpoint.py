"""Dataset iterators in tf.train.Checkpoint (the data and checkpoint guides): an iterator saves its position
(and its random stages' state) as data, under TensorFlow's key, and restoring it continues where it was."""
import numpy as np
import pytest

import rivulet as tf


def test_the_data_guide_cell(tmp_path):
    iterator = iter(tf.data.Dataset.range(20))
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "my_ckpt"), max_to_keep=3)
    assert [next(iterator).numpy() for _ in range(5)] == [0, 1, 2, 3, 4]
    save_path = manager.save()
    assert [next(iterator).numpy() for _ in range(5)] == [5, 6, 7, 8, 9]
    ckpt.restore(manager.latest_checkpoint)
    assert [next(iterator).numpy() for _ in range(5)] == [5, 6, 7, 8, 9]  # TensorFlow prints these
    shapes = dict(tf.train.list_variables(save_path))
    assert "iterator/.ATTRIBUTES/ITERATOR_STATE" in shapes  # TensorFlow's key


def test_state_is_data_and_the_object_graph_names_it_as_tensorflow(tmp_path):
    it = iter(tf.data.Dataset.range(20))
    next(it), next(it)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    state = tf.train.load_checkpoint(path).get_tensor("iterator/.ATTRIBUTES/ITERATOR_STATE")
    assert state.dtype == object and state.tolist() == [
        b"rivulet.data.Iterator/1", b"TensorSpec(shape=(), dtype=tf.int64, name=None)", b"2", b"0"]
    from rivulet.formats import object_graph as og
    graph = og.decode(tf.train.load_checkpoint(path).get_tensor(og.OBJECT_GRAPH_KEY))
    assert graph[1].attributes == [("ITERATOR", "", "iterator/.ATTRIBUTES/ITERATOR")]


@pytest.mark.parametrize("seed", [None, 7])
def test_shuffled_repeated_batched_pipeline_continues_in_a_new_iterator(tmp_path, seed):
    def make():
        return tf.data.Dataset.range(10).shuffle(4, seed=seed).repeat().batch(3).prefetch(2)
    it = iter(make())
    ckpt = tf.train.Checkpoint(iterator=it)
    for _ in range(5):
        next(it)
    path = ckpt.write(str(tmp_path / "c"))
    want = [next(it).numpy().tolist() for _ in range(6)]
    it2 = iter(make())  # as the checkpoint guide: a new dataset, a new iterator, then restore
    tf.train.Checkpoint(iterator=it2).read(path)
    assert [next(it2).numpy().tolist() for _ in range(6)] == want


def test_restored_iterator_used_by_a_tf_function(tmp_path):
    it = iter(tf.data.Dataset.range(10))
    ckpt = tf.train.Checkpoint(iterator=it)

    @tf.function
    def step():
        return next(it)
    assert [int(step()) for _ in range(3)] == [0, 1, 2]
    path = ckpt.write(str(tmp_path / "c"))
    assert [int(step()) for _ in range(3)] == [3, 4, 5]
    ckpt.read(path)
    assert [int(step()) for _ in range(3)] == [3, 4, 5]


def test_other_pipeline_or_short_dataset_refused_before_assigning(tmp_path):
    it = iter(tf.data.Dataset.range(10))
    for _ in range(7):
        next(it)
    path = tf.train.Checkpoint(v=tf.Variable(3.0), iterator=it).write(str(tmp_path / "c"))
    v = tf.Variable(0.0)
    other = iter(tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="element_spec"):
        tf.train.Checkpoint(v=v, iterator=other).read(path)
    assert float(v.numpy()) == 0.0  # nothing assigned
    with pytest.raises(tf.errors.OutOfRangeError, match="saved position 7"):
        tf.train.Checkpoint(iterator=iter(tf.data.Dataset.range(5))).read(path)


def test_malformed_state_is_invalid_argument():
    from rivulet.data import iterator_state
    spec = tf.TensorSpec([], tf.int64)
    bad = [np.array([b"x"], dtype=object), np.zeros([4], np.int64),
           np.array([iterator_state.MAGIC, repr(spec).encode(), b"12ab", b"0"], dtype=object),
           np.array([iterator_state.MAGIC, repr(spec).encode(), b"-3", b"0"], dtype=object),
           np.array([iterator_state.MAGIC, repr(spec).encode(), b"1", b"1"], dtype=object)]
    for value in bad:
        with pytest.raises(tf.errors.InvalidArgumentError):
            iterator_state.decode(value, spec, 0)


def test_pipelines_with_external_state_refuse_to_save_as_tensorflow(tmp_path):
    gen = tf.data.Dataset.from_generator(lambda: iter(range(5)), output_signature=tf.TensorSpec([], tf.int64))
    cases = [(gen, "PyFunc"),
             (tf.data.Dataset.range(5).map(lambda x: tf.py_function(lambda y: y, [x], tf.int64)), "EagerPyFunc"),
             (tf.data.Dataset.range(5).map(lambda x: x + tf.random.uniform([], maxval=3, dtype=tf.int64)),
              "RandomUniformInt")]
    for ds, op in cases:  # TensorFlow 2.21: FailedPreconditionError '<op> is stateful. [Op:SerializeIterator]'
        it = iter(ds)
        next(it)
        with pytest.raises(tf.errors.FailedPreconditionError, match=f"{op} is stateful. \\[Op:SerializeIterator\\]"):
            tf.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    options = tf.data.Options()
    options.experimental_external_state_policy = tf.data.experimental.ExternalStatePolicy.IGNORE
    it = iter(gen.with_options(options))
    next(it)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "ok"))
    it2 = iter(gen.with_options(options))
    tf.train.Checkpoint(iterator=it2).read(path)
    assert int(next(it2)) == 1


def _elements(it, n):
    import itertools
    return [tuple(np.asarray(x).tolist() for x in (e if isinstance(e, tuple) else (e,)))
            for e in itertools.islice(it, n)]


@pytest.mark.parametrize("name", ["map-batch", "batch-drop-repeat", "shuffle-repeat", "shuffle-full-repeat",
                                  "repeat-shuffle", "filter", "zip-concat", "take-skip-pmap", "counter", "sample"])
def test_restored_position_gives_what_the_saved_iterator_gives(tmp_path, name):
    r = tf.data.Dataset.range(23)
    make = {
        "map-batch": lambda: r.map(lambda x: x * 2).batch(4),
        "batch-drop-repeat": lambda: r.batch(4, drop_remainder=True).repeat(3),
        "shuffle-repeat": lambda: r.shuffle(5, seed=3).repeat(4).batch(3),
        "shuffle-full-repeat": lambda: r.shuffle(100).repeat().batch(5).prefetch(2),
        "repeat-shuffle": lambda: r.repeat(3).shuffle(7).batch(2),
        "filter": lambda: r.filter(lambda x: x % 3 == 0).repeat(2),
        "zip-concat": lambda: tf.data.Dataset.zip((r, r.map(lambda x: x + 1))).concatenate(
            tf.data.Dataset.zip((r, r))),
        "take-skip-pmap": lambda: r.skip(3).take(15).map(lambda x: x, num_parallel_calls=2),
        "counter": lambda: tf.data.experimental.Counter(5, 2),
        "sample": lambda: tf.data.Dataset.sample_from_datasets([r, r.map(lambda x: -x)], seed=1).repeat(2),
    }[name]
    for k in (1, 5, 17):
        it = iter(make())
        if len(_elements(it, k)) < k:
            continue
        path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"c{k}"))
        want = _elements(it, 12)
        it2 = iter(make())
        tf.train.Checkpoint(iterator=it2).read(path)
        assert _elements(it2, 12) == want, k


def test_a_far_position_is_reached_without_replaying(tmp_path):
    import time
    ds = tf.data.Dataset.range(10 ** 8).map(lambda x: x * 2).batch(10).repeat()
    it = iter(ds)
    next(it)
    ckpt = tf.train.Checkpoint(iterator=it)
    it._res.position = 9_000_000  # as if 9 million batches had been read
    path = ckpt.write(str(tmp_path / "c"))
    it2 = iter(ds)
    t = time.perf_counter()
    tf.train.Checkpoint(iterator=it2).read(path)
    assert next(it2).numpy().tolist()[:3] == [180000000, 180000002, 180000004]
    assert time.perf_counter() - t < 5.0  # indexing, not 9 million batches made again


def test_tensorflows_own_iterator_state_is_refused_clearly():
    import os
    # written by TensorFlow 2.21: Checkpoint(step=tf.Variable(0), iterator=iter(range(20))) after 5 elements
    prefix = os.path.join(os.path.dirname(__file__), "data", "tf_iterator_range")
    assert dict(tf.train.list_variables(prefix))["iterator/.ATTRIBUTES/ITERATOR_STATE"] == [3]  # a variant
    v = tf.Variable(5)
    with pytest.raises(tf.errors.UnimplementedError, match="written by TensorFlow for OwnedIterator"):
        tf.train.Checkpoint(step=v, iterator=iter(tf.data.Dataset.range(20))).read(prefix)
    assert int(v.numpy()) == 5  # nothing assigned
    status = tf.train.Checkpoint(step=v).read(prefix)  # the variables alone restore
    assert int(v.numpy()) == 0
    status.assert_existing_objects_matched()
