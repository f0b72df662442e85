"""Background threads (parallel map, prefetch), for-over-dataset inside tf.function, Keras fit on datasets."""
import gc
import threading
import time

import numpy as np
import pytest

import rivulet as tf


def _data_threads():
    return [t for t in threading.enumerate() if t.name.startswith("rivulet-data")]


def _wait_gone(timeout=5.0):
    end = time.monotonic() + timeout
    while _data_threads() and time.monotonic() < end:
        gc.collect()
        time.sleep(0.02)
    return _data_threads()


def test_abandoned_pipeline_leaves_no_threads():
    assert _wait_gone() == []
    ds = tf.data.Dataset.range(10_000).map(lambda x: x * 2, num_parallel_calls=3).prefetch(4)
    it = iter(ds)
    assert [int(next(it)) for _ in range(5)] == [0, 2, 4, 6, 8]
    assert len(_data_threads()) == 4  # three map workers and one prefetch producer
    del it
    assert _wait_gone() == []
    for _ in range(3):  # complete epochs clean up too
        assert sum(1 for _ in ds.take(50)) == 50
    assert _wait_gone() == []


def test_errors_cross_threads_in_order():
    def gen():
        yield from range(3)
        raise RuntimeError("generator failed")
    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).prefetch(2)
    it = iter(ds)
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="generator failed"):
        next(it)
    bad = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(lambda x: tf.debugging.check_numerics(
        tf.math.log(x - 2.0), "bad value"), num_parallel_calls=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
        list(bad)
    assert _wait_gone() == []


def test_parallel_map_runs_on_workers_when_asked():
    ds = tf.data.Dataset.range(200).map(lambda x: tf.reduce_sum(tf.ones([50, 50])) + tf.cast(x, tf.float32),
                                        num_parallel_calls=4, deterministic=True)
    it = iter(ds)
    assert [float(next(it)) for _ in range(5)] == [2500.0, 2501.0, 2502.0, 2503.0, 2504.0]
    assert sum(t.name == "rivulet-data-map" for t in _data_threads()) == 4
    assert [float(v) for v in it] == [2500.0 + i for i in range(5, 200)]  # in order
    assert _wait_gone() == []


def test_for_over_dataset_in_tf_function_is_a_graph_loop():
    @tf.function
    def total(d):
        s = tf.constant(0, tf.int64)
        for x in d:
            s += x
        return s
    ds = tf.data.Dataset.range(5).map(lambda x: x * 2)
    assert int(total(ds)) == 20 and int(total(ds)) == 20  # each call iterates afresh
    cf = total.get_concrete_function(ds)
    assert "While" in {op.type for op in cf.graph.get_operations()} or \
        "StatelessWhile" in {op.type for op in cf.graph.get_operations()}
    assert int(total(tf.data.Dataset.range(3))) == 3
    assert total.experimental_get_tracing_count() == 1  # traced by element_spec, not by object

    @tf.function
    def count(d):
        n = tf.constant(0)
        for _ in d:
            n += 1
        return n
    assert int(count(tf.data.Dataset.range(3))) == 3 and int(count(tf.data.Dataset.range(5))) == 5
    assert int(count(tf.data.Dataset.from_tensor_slices(["a", "b"]))) == 2  # a new spec: a new trace
    assert count.experimental_get_tracing_count() == 2
    assert "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))" in str(cf)

    @tf.function
    def transformed(d):
        for x in d.map(lambda v: v + 1):
            pass
        return 0
    with pytest.raises(NotImplementedError, match="transform a dataset argument"):
        transformed(ds)

    batches = tf.data.Dataset.from_tensor_slices((np.arange(7, dtype=np.float32), np.arange(7))).batch(3)

    @tf.function
    def count():
        n, s = tf.constant(0), tf.constant(0.0)
        for x, y in batches:
            n += tf.shape(x)[0]
            s += tf.reduce_sum(x)
        return n, s
    n, s = count()
    assert int(n) == 7 and float(s) == 21.0


def test_dataset_reduce_and_map_with_autograph_loop():
    def f(x):
        acc = tf.constant(0, tf.int64)
        for i in tf.range(x):
            acc += i
        return acc
    assert [int(v) for v in tf.data.Dataset.range(5).map(f)] == [0, 0, 1, 3, 6]
    assert int(tf.data.Dataset.range(5).map(f).reduce(np.int64(0), lambda a, b: a + b)) == 10


def test_keras_fit_evaluate_predict_on_datasets():
    rs = np.random.default_rng(0)
    X = rs.normal(size=(256, 8)).astype(np.float32)
    Y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).shuffle(256, seed=1).batch(32)
    tf.random.set_seed(0)
    m = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                             tf.keras.layers.Dense(2)])
    m.compile(tf.keras.optimizers.Adam(0.05), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    h = m.fit(ds, epochs=5, validation_data=ds.take(2), verbose=0)
    assert set(h.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert h.history["loss"][-1] < h.history["loss"][0] and h.history["accuracy"][-1] > 0.8
    h = m.fit(ds.repeat(), epochs=2, steps_per_epoch=3, verbose=0)
    assert len(h.history["loss"]) == 2
    loss, acc = m.evaluate(ds, verbose=0)
    assert acc > 0.8
    assert m.predict(ds.map(lambda x, y: x)).shape == (256, 2)
    with pytest.raises(ValueError, match="infinite dataset"):
        m.fit(ds.repeat(), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="`y` argument is not supported when using dataset as input."):
        m.fit(ds, Y, verbose=0)


def test_one_iterator_shared_by_threads():
    it = iter(tf.data.Dataset.range(2000).map(lambda x: x + 1).prefetch(8))
    got = [[], [], []]

    def pull(out):
        for v in it:
            out.append(int(v))
    threads = [threading.Thread(target=pull, args=(g,)) for g in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got[0] + got[1] + got[2]) == list(range(1, 2001))


def test_reduce_inside_tf_function_runs_in_the_graph():
    calls = []

    def gen():
        calls.append(1)
        yield from range(4)
    g = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64))

    @tf.function
    def f():
        return g.reduce(np.int64(0), lambda s, x: s + x)
    assert int(f()) == 6 and int(f()) == 6 and len(calls) == 2  # iterated on each call, not at trace time

    @tf.function
    def h(d):
        return d.reduce((np.int64(0), np.int64(0)), lambda s, x: (s[0] + x, s[1] + 1))
    assert [int(v) for v in h(tf.data.Dataset.range(5))] == [10, 5]
    assert [int(v) for v in h(tf.data.Dataset.range(3))] == [3, 3]
    assert h.experimental_get_tracing_count() == 1


def test_iterators_inside_tf_function():
    it = iter(tf.data.Dataset.range(10))

    @tf.function
    def step(i):
        return next(i) * 10
    # an eager iterator passed in is pulled from when the function runs, and shared with eager next()
    assert [int(step(it)) for _ in range(3)] == [0, 10, 20] and int(next(it)) == 3

    @tf.function
    def rest(i):
        s = tf.constant(0, tf.int64)
        for x in i:
            s += x
        return s
    assert int(rest(it)) == 4 + 5 + 6 + 7 + 8 + 9
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        step(it)

    ds = tf.data.Dataset.range(3, 10)

    @tf.function
    def two():
        j = iter(ds)  # made afresh on each call
        return next(j) + next(j)
    assert int(two()) == 7 and int(two()) == 7
