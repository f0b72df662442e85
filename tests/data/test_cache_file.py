"""Dataset.cache(filename): the data read back is exactly what was written, or DataLossError naming the file.

Before the element count was recorded, a cache file cut at an element's end (or holding a duplicated tail)
was read as a shorter (longer) dataset without any error.
"""
import gc
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.formats.records import record
from rivulet.formats.tfrecord import read_records

WANT = [(0.0, b"0"), (0.5, b"1"), (1.0, b"2"), (1.5, b"3"), (2.0, b"4"), (2.5, b"5")]


def _pipeline():
    return tf.data.Dataset.range(6).map(lambda i: (tf.cast(i, tf.float32) / 2, tf.strings.as_string(i)))


def _got(ds):
    return [(float(a), bytes(b)) for a, b in ds.as_numpy_iterator()]


def _filled(tmp_path):
    prefix = str(tmp_path / "c")
    assert _got(_pipeline().cache(prefix)) == WANT
    (name,) = os.listdir(tmp_path)
    path = str(tmp_path / name)
    return prefix, path, [bytes(r) for r in read_records(path)]


def _rewrite(path, recs):
    with open(path, "wb") as f:
        f.write(b"".join(record(r) for r in recs))


def test_a_cache_reads_back_its_elements(tmp_path):
    prefix, path, recs = _filled(tmp_path)
    assert len(recs) == 1 + 2 * 6  # the count, then two records per element
    assert recs[0] == b"rivulet.data.cache/1\n%020d\n" % 6
    assert _got(_pipeline().cache(prefix)) == WANT
    other = tf.data.Dataset.range(2).map(lambda i: (tf.cast(i, tf.float32), tf.strings.as_string(i)))
    assert _got(other.cache(prefix)) == WANT  # as TensorFlow: a filled cache is read whatever the input


def test_a_cache_cut_at_an_element_end_is_data_loss(tmp_path):
    prefix, path, recs = _filled(tmp_path)
    _rewrite(path, recs[:1 + 2 * 4])  # four of the six elements, every CRC sound
    with pytest.raises(tf.errors.DataLossError, match="ends before the 6 elements it counts"):
        _got(_pipeline().cache(prefix))
    _rewrite(path, recs + recs[-2:])  # the last element twice
    with pytest.raises(tf.errors.DataLossError, match="holds more than the 6 elements it counts"):
        _got(_pipeline().cache(prefix))
    _rewrite(path, recs[1:])  # no count: a file of an older rivulet
    with pytest.raises(tf.errors.DataLossError, match="has no element count"):
        _got(_pipeline().cache(prefix))


def test_damaged_or_hostile_cache_files_are_data_loss(tmp_path):
    prefix, path, recs = _filled(tmp_path)
    data = open(path, "rb").read()
    open(path, "wb").write(data[:len(data) // 2])  # cut inside a record
    with pytest.raises(tf.errors.DataLossError, match="truncated record .* in " + path):
        _got(_pipeline().cache(prefix))
    open(path, "wb").write(data[:40] + bytes([data[40] ^ 1]) + data[41:])  # a flipped bit
    with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
        _got(_pipeline().cache(prefix))
    _rewrite(path, [b"rivulet.data.cache/1\n%020d\n" % (10 ** 19)] + recs[1:])  # a hostile count: no allocation
    with pytest.raises(tf.errors.DataLossError, match="ends before the 10000000000000000000 elements"):
        _got(_pipeline().cache(prefix))
    open(path, "wb").write(data[:12] + (2 ** 62).to_bytes(8, "little") + data[20:])
    with pytest.raises(tf.errors.DataLossError):
        _got(_pipeline().cache(prefix))
    shape = tf.io.serialize_tensor(tf.constant([1.0, 2.0])).numpy()  # a record of another shape, sound CRCs
    _rewrite(path, recs[:1] + [shape] + recs[2:])
    with pytest.raises(tf.errors.DataLossError, match=r"an element of shape \(2,\)"):
        _got(_pipeline().cache(prefix))


def test_an_interrupted_pass_leaves_no_cache(tmp_path):
    prefix = str(tmp_path / "c")
    ds = _pipeline().cache(prefix)
    it = iter(ds)
    assert [float(next(it)[0]) for _ in range(3)] == [0.0, 0.5, 1.0]
    assert [n for n in os.listdir(tmp_path) if not n.count(".tmp")] == []  # only the pass's own file
    del it
    gc.collect()
    assert os.listdir(tmp_path) == []  # as TensorFlow, the partial cache is discarded
    assert _got(ds) == WANT and _got(ds) == WANT
    assert next(read_records(str(tmp_path / "c.rivulet-cache.tfrecord"))).endswith(b"%020d\n" % 6)
    # a pass's file left by a crash is never read as the cache
    open(str(tmp_path / "c.rivulet-cache.tfrecord.tmp1234"), "wb").write(b"garbage")
    assert _got(_pipeline().cache(str(tmp_path / "c"))) == WANT


def test_two_passes_at_once_each_write_their_own_file(tmp_path):
    prefix = str(tmp_path / "c")
    ds = tf.data.Dataset.range(50).cache(prefix)
    a, b = iter(ds), iter(ds)
    got_a, got_b = [], []
    for _ in range(50):  # interleaved: before, both wrote one file name (the process id) over each other
        got_a.append(int(next(a)))
        got_b.append(int(next(b)))
    for rest, got in ((a, got_a), (b, got_b)):
        got.extend(int(x) for x in rest)
    assert got_a == got_b == list(range(50))
    assert [int(x) for x in ds] == list(range(50))
    assert os.listdir(tmp_path) == ["c.rivulet-cache.tfrecord"]


def test_sparse_elements_round_trip_with_a_count(tmp_path):
    st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 2])
    ds = tf.data.Dataset.from_tensor_slices(st).cache(str(tmp_path / "s"))
    first = [tf.sparse.to_dense(x).numpy().tolist() for x in ds]
    assert first == [[0.0, 1.5], [0.0, 0.0], [2.5, 0.0]]
    assert [tf.sparse.to_dense(x).numpy().tolist() for x in ds] == first
    (name,) = os.listdir(tmp_path)
    assert bytes(next(read_records(str(tmp_path / name)))).endswith(b"%020d\n" % 3)
    assert np.asarray(first).shape == (3, 2)
