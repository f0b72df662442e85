"""Dataset.snapshot (load_data/csv tutorial): the first complete pass writes path/<fingerprint>/, later passes
(and later pipelines built the same way) read it; a changed pipeline gets another fingerprint, never the old
data. TensorFlow prints the dataset as a _MapDataset and keeps the input's cardinality."""
import functools
import itertools
import os

import numpy as np
import pytest

import rivulet as tf


def _gen():
    n = next(_gen.passes)  # (kept on the function object, where a fingerprint does not look)
    _gen.seen.append(n)
    for i in range(4):
        yield i * n  # another pass would give other values


_gen.passes, _gen.seen = itertools.count(1), []


def test_first_pass_writes_later_passes_read(tmp_path):
    calls, gen = _gen.seen, _gen
    calls.clear()
    make = lambda: tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64))  # noqa: E731
    ds = make().snapshot(str(tmp_path / "snap"))
    assert repr(ds) == "<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
    want = list(ds.as_numpy_iterator())
    assert want == [i * calls[0] for i in range(4)]
    assert list(ds.as_numpy_iterator()) == want and len(calls) == 1  # read back, not regenerated
    again = make().snapshot(str(tmp_path / "snap"))  # the same pipeline built anew: the same snapshot
    assert list(again.as_numpy_iterator()) == want and len(calls) == 1
    (fp,) = os.listdir(tmp_path / "snap")
    assert fp.isdigit() and "snapshot.metadata" in os.listdir(tmp_path / "snap" / fp)


def test_changed_pipeline_is_never_served_stale_data(tmp_path):
    path = str(tmp_path / "snap")
    base = tf.data.Dataset.range(5)
    assert list(base.map(lambda x: x * 2).snapshot(path).as_numpy_iterator()) == [0, 2, 4, 6, 8]
    assert list(base.map(lambda x: x * 3).snapshot(path).as_numpy_iterator()) == [0, 3, 6, 9, 12]
    assert list(tf.data.Dataset.range(6).map(lambda x: x * 2).snapshot(path).as_numpy_iterator()) == \
        [0, 2, 4, 6, 8, 10]
    src = tf.data.Dataset.from_tensor_slices(np.array([1.0, 2.0], np.float32))
    other = tf.data.Dataset.from_tensor_slices(np.array([1.0, 5.0], np.float32))
    assert list(src.snapshot(path).as_numpy_iterator()) == [1.0, 2.0]
    assert list(other.snapshot(path).as_numpy_iterator()) == [1.0, 5.0]
    assert len(os.listdir(path)) == 5
    # the experimental spelling, and the input's cardinality
    ds = base.apply(tf.data.experimental.snapshot(path))
    assert int(ds.cardinality()) == 5 and list(ds.as_numpy_iterator()) == [0, 1, 2, 3, 4]


def test_an_unfinished_pass_is_not_read(tmp_path):
    path = str(tmp_path / "snap")
    ds = tf.data.Dataset.range(5).snapshot(path)
    assert list(ds.take(2).as_numpy_iterator()) == [0, 1]
    assert list(ds.as_numpy_iterator()) == [0, 1, 2, 3, 4]
    assert list(ds.as_numpy_iterator()) == [0, 1, 2, 3, 4]


def test_unseeded_shuffle_keeps_its_fingerprint_and_structured_elements(tmp_path):
    from rivulet.data.snapshot import fingerprint
    tf.random.set_seed(None)  # no global seed (with one, each shuffle gets its own op seed, as in TensorFlow)
    make = lambda: tf.data.Dataset.from_tensor_slices(  # noqa: E731
        {"a": np.arange(6), "b": np.array([b"x", b"y", b"z", b"u", b"v", b"w"], dtype=object)}).shuffle(6).batch(2)
    assert fingerprint(make()) == fingerprint(make())
    assert fingerprint(tf.data.Dataset.range(3).shuffle(3, seed=1)) != \
        fingerprint(tf.data.Dataset.range(3).shuffle(3, seed=2))
    ds = make().snapshot(str(tmp_path / "s"))
    first = [(b["a"].numpy().tolist(), b["b"].numpy().tolist()) for b in ds]
    assert [(b["a"].numpy().tolist(), b["b"].numpy().tolist()) for b in ds] == first


def test_corrupt_metadata_is_data_loss(tmp_path):
    path = str(tmp_path / "snap")
    ds = tf.data.Dataset.range(3).snapshot(path)
    list(ds)
    (fp,) = os.listdir(path)
    with open(os.path.join(path, fp, "snapshot.metadata"), "wb") as f:
        f.write(b"garbage")
    with pytest.raises(tf.errors.DataLossError):
        list(ds)


class _Rows:
    def __init__(self, rows):
        self.rows = rows

    def __call__(self):
        yield from self.rows

    def gen(self):
        yield from self.rows


def _rows(rows):
    yield from rows


SCALE = 2


def _scaled(x):
    return tf.data.Dataset.from_tensors(x * SCALE)


def test_generators_and_eager_functions_differing_only_in_their_state_get_their_own_snapshots(tmp_path):
    global SCALE
    path = str(tmp_path / "snap")
    sig = tf.TensorSpec([], tf.int64)
    for make in (lambda r: _Rows(r), lambda r: _Rows(r).gen, lambda r: functools.partial(_rows, r)):
        for rows in ([1, 2], [3, 4]):
            ds = tf.data.Dataset.from_generator(make(rows), output_signature=sig).snapshot(path)
            assert list(ds.as_numpy_iterator()) == rows
    SCALE = 2
    assert list(tf.data.Dataset.range(2).flat_map(_scaled).snapshot(path).as_numpy_iterator()) == [0, 2]
    SCALE = 3  # a global the function reads: another pipeline
    assert list(tf.data.Dataset.range(2).flat_map(_scaled).snapshot(path).as_numpy_iterator()) == [0, 3]
