"""TFRecordDataset(...).batch(n) gathers each batch's records (bytes) in a list and makes one object array of
them (issue 26): no 0-d array per record; the batches, their order, drop_remainder, errors unchanged."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.data import readers
from rivulet.formats.wire import decode_varints


def _files(tmp_path, counts):
    names = []
    for k, n in enumerate(counts):
        name = str(tmp_path / f"f{k}.tfrecord")
        with tf.io.TFRecordWriter(name) as w:
            for i in range(n):
                w.write(f"{k}:{i}".encode() * (i % 3))
        names.append(name)
    return names


def _no_per_record_arrays(monkeypatch):
    def refuse(self):
        raise AssertionError("batch() went through the per-record elements")
    monkeypatch.setattr(readers._FileDataset, "_make_iter", refuse)


@pytest.mark.parametrize("drop", [False, True])
def test_batches_of_records(tmp_path, monkeypatch, drop):
    names = _files(tmp_path, [5, 0, 7])
    want = [r for n in names for r in tf.data.TFRecordDataset(n).as_numpy_iterator()]
    assert len(want) == 12
    _no_per_record_arrays(monkeypatch)
    ds = tf.data.TFRecordDataset(names).batch(5, drop_remainder=drop)
    got = [b.numpy() for b in ds]
    sizes = [5, 5] if drop else [5, 5, 2]
    assert [len(b) for b in got] == sizes
    assert all(b.dtype == object and b.ndim == 1 for b in got)
    assert [x for b in got for x in b.tolist()] == want[:sum(sizes)]
    assert ds.element_spec == tf.TensorSpec([5 if drop else None], tf.string)


def test_batched_then_parsed(tmp_path, monkeypatch):
    name = str(tmp_path / "e.tfrecord")
    F = tf.train.Feature
    with tf.io.TFRecordWriter(name) as w:
        for i in range(10):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "x": F(int64_list=tf.train.Int64List(value=[i, 1 << 40])),
                "s": F(bytes_list=tf.train.BytesList(value=[b"v" * i]))})).SerializeToString())
    _no_per_record_arrays(monkeypatch)
    spec = {"x": tf.io.FixedLenFeature([2], tf.int64), "s": tf.io.FixedLenFeature([], tf.string)}
    out = list(tf.data.TFRecordDataset(name).batch(4).map(lambda r: tf.io.parse_example(r, spec)))
    assert [o["x"].shape.as_list() for o in out] == [[4, 2], [4, 2], [2, 2]]
    assert np.concatenate([o["x"].numpy() for o in out])[:, 0].tolist() == list(range(10))
    assert out[2]["s"].numpy().tolist() == [b"v" * 8, b"v" * 9]


def test_a_corrupt_record_still_raises(tmp_path, monkeypatch):
    name = _files(tmp_path, [6])[0]
    data = bytearray(open(name, "rb").read())
    data[-2] ^= 1  # the last record's data CRC
    open(name, "wb").write(bytes(data))
    _no_per_record_arrays(monkeypatch)
    it = iter(tf.data.TFRecordDataset(name).batch(4))
    assert len(next(it).numpy()) == 4
    with pytest.raises(tf.errors.DataLossError):
        next(it)


def test_decode_varints_equals_a_plain_decoder():
    rng = np.random.default_rng(1)
    for _ in range(300):
        vals = [int(v) >> int(s) for v, s in zip(rng.integers(0, 1 << 63, 20), rng.integers(0, 63, 20))]
        vals += [(1 << 64) - 1, 0, 127, 128]
        data = b"".join(tf.train.Int64List(value=[v - (1 << 64) if v >= 1 << 63 else v])._encode()[2:]
                        for v in vals)
        got, end = decode_varints(np.frombuffer(data, dtype=np.uint8))
        assert end == len(data) and got.dtype == np.uint64 and got.tolist() == vals
    over = np.frombuffer(b"\xff" * 9 + b"\x7f", dtype=np.uint8)  # a 10th byte's bits past the 64th dropped
    assert decode_varints(over)[0].tolist() == [(1 << 64) - 1]
    assert decode_varints(np.frombuffer(b"\xff" * 10 + b"\x01", dtype=np.uint8)) is None


@pytest.mark.parametrize("sizes", [[3, 3, 3, 3] * 5, [0] * 20, [2, 0, 3, 1] * 5])
def test_varlen_indices(sizes):
    # a VarLenFeature of a batch: indices [record, position], dense_shape [records, longest] (as TensorFlow's)
    F = tf.train.Feature
    recs = [tf.train.Example(features=tf.train.Features(feature={
        "v": F(float_list=tf.train.FloatList(value=[float(k)] * k + [0.5] * (n - k) if n >= k else [0.5] * n))}))
        .SerializeToString() for k, n in enumerate(sizes)]
    sp = tf.io.parse_example(recs, {"v": tf.io.VarLenFeature(tf.float32)})["v"]
    want = [[i, j] for i, n in enumerate(sizes) for j in range(n)]
    assert sp.indices.numpy().tolist() == want and sp.indices.dtype == tf.int64
    assert sp.indices.numpy().shape == (len(want), 2)
    assert sp.dense_shape.numpy().tolist() == [len(sizes), max(sizes)]
    assert len(sp.values.numpy()) == sum(sizes)


def test_layouts_remembered_between_batches_never_misread():
    # batches of one length whose framing differs from the first batch's (the byte counts of the values move
    # between the features): each batch parsed right, against the values written
    F = tf.train.Feature
    spec = {"a": tf.io.VarLenFeature(tf.int64), "b": tf.io.FixedLenFeature([], tf.string)}

    def rec(a, b):
        return tf.train.Example(features=tf.train.Features(feature={
            "a": F(int64_list=tf.train.Int64List(value=a)), "b": F(bytes_list=tf.train.BytesList(value=[b]))})
        ).SerializeToString()

    layouts = [([1, 2, 3], b"xyz"), ([300, 2], b"xyz"), ([1, 2], b"wxyz"), ([5], b"vwxyz"), ([1 << 14], b"xyz")]
    assert len({len(rec(*x)) for x in layouts}) == 1  # one record length, four framings
    for k in range(2):
        for a, b in layouts:
            recs = [rec([v + i % 3 if v < 128 else v for v in a], b[:-1] + bytes([65 + i % 26])) for i in range(20)]
            got = tf.io.parse_example(recs, spec)
            want_a = [[v + i % 3 if v < 128 else v for v in a] for i in range(20)]
            assert got["a"].values.numpy().tolist() == [v for row in want_a for v in row]
            assert got["a"].indices.numpy()[:, 0].tolist() == [i for i, row in enumerate(want_a) for _ in row]
            assert got["b"].numpy().tolist() == [b[:-1] + bytes([65 + i % 26]) for i in range(20)]
