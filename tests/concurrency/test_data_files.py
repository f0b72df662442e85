"""Dataset.snapshot and Dataset.save/load from several threads at once: every pass sees whole, right data, no
thread raises, and a snapshot or saved directory is never read as complete while it is being written."""
import functools
import os
import threading

import numpy as np

import rivulet as tf
from tests.concurrency.threads import run_in_threads

THREADS = 6


def _run(target, n=THREADS):
    run_in_threads([functools.partial(target, i) for i in range(n)], together=True)


def test_snapshot_written_by_several_iterators_at_once(tmp_path):
    want = [i * i for i in range(50)]
    for rnd in range(4):
        path = str(tmp_path / f"snap{rnd}")
        ds = tf.data.Dataset.range(50).map(lambda x: x * x).snapshot(path)
        got = {}

        def body(i):
            got[i] = list(ds.as_numpy_iterator())  # all start before any pass is complete
            got[i, "again"] = list(ds.as_numpy_iterator())  # finished by now: read back

        _run(body)
        assert all(v == want for v in got.values())
        (fp,) = os.listdir(path)
        names = os.listdir(os.path.join(path, fp))
        assert "snapshot.metadata" in names and not [n for n in names if ".tmp" in n]


def test_snapshot_reader_never_sees_a_pass_being_written(tmp_path):
    path = str(tmp_path / "snap")
    started, release = threading.Event(), threading.Event()

    def slow(x):
        if x == 3:
            started.set()
            release.wait(10)
        return x

    ds = tf.data.Dataset.range(8).map(lambda x: tf.py_function(slow, [x], tf.int64)).snapshot(path)
    out = {}
    writer = threading.Thread(target=lambda: out.setdefault("w", list(ds.as_numpy_iterator())))
    writer.start()
    assert started.wait(10)
    (fp,) = os.listdir(path)
    assert "snapshot.metadata" not in os.listdir(os.path.join(path, fp))  # half written: not finished
    reader = threading.Thread(target=lambda: out.setdefault("r", list(ds.as_numpy_iterator())))
    reader.start()  # a pass of its own, not the half-written file
    release.set()
    writer.join(20)
    reader.join(20)
    assert out == {"w": list(range(8)), "r": list(range(8))}


def test_save_and_load_in_threads_different_and_same_directories(tmp_path):
    def elements(i):
        return tf.data.Dataset.range(40).map(lambda x: (x + i, tf.fill([3], tf.cast(x, tf.float32) * i)))

    def body(i):
        for k in range(3):
            own = str(tmp_path / f"own{i}")
            tf.data.Dataset.save(elements(i), own)
            got = list(tf.data.Dataset.load(own).as_numpy_iterator())
            assert [int(a) for a, _ in got] == [x + i for x in range(40)]
            assert all(np.array_equal(b, np.full([3], x * i, np.float32)) for x, (_, b) in enumerate(got))
            tf.data.Dataset.save(elements(7), str(tmp_path / "shared"))  # all threads into one directory

    _run(body)
    got = list(tf.data.Dataset.load(str(tmp_path / "shared")).as_numpy_iterator())
    assert [int(a) for a, _ in got] == [x + 7 for x in range(40)]
    assert not [n for n in os.listdir(tmp_path / "shared") if ".tmp" in n]
