"""parse_example's fast path (io/example_fast.py) returns what the general path returns, value for value and
dtype for dtype, and hands everything unusual (defaults, wrong types, odd wire forms) to the general path."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.io import example_fast, parsing

F = tf.train.Feature


def _example(**feats):
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


def _records(n=40, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        out.append(_example(
            image=F(bytes_list=tf.train.BytesList(value=[rng.bytes(int(rng.integers(0, 300)))])),
            label=F(int64_list=tf.train.Int64List(value=[int(rng.integers(-2 ** 63, 2 ** 63 - 1))])),
            ids=F(int64_list=tf.train.Int64List(value=rng.integers(-2 ** 40, 2 ** 40, 4).tolist())),
            big=F(int64_list=tf.train.Int64List(value=rng.integers(0, 2 ** 62, 30).tolist())),
            feats=F(float_list=tf.train.FloatList(value=rng.random(int(rng.integers(0, 9))).tolist())),
            tags=F(bytes_list=tf.train.BytesList(value=[b"a", b"bc", b""][:i % 4])),
            extra=F(float_list=tf.train.FloatList(value=[1.5]))))
    return out


SPEC = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64),
        "ids": tf.io.FixedLenFeature([2, 2], tf.int64), "big": tf.io.FixedLenFeature([30], tf.int64),
        "feats": tf.io.VarLenFeature(tf.float32), "tags": tf.io.VarLenFeature(tf.string)}


def _general(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(example_fast, "parse", lambda *a, **k: None)
        return fn()


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, tf.SparseTensor):
            for p, q in [(x.indices, y.indices), (x.values, y.values), (x.dense_shape, y.dense_shape)]:
                assert p.dtype == q.dtype and p.shape == q.shape
                assert p.numpy().tolist() == q.numpy().tolist()
        else:
            assert x.dtype == y.dtype and x.shape == y.shape
            assert np.asarray(x.numpy()).tolist() == np.asarray(y.numpy()).tolist()


def test_batch_equals_general_path(monkeypatch):
    recs = _records()
    calls = []
    real = example_fast.parse
    monkeypatch.setattr(example_fast, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    fast = tf.io.parse_example(recs, SPEC)
    assert calls and real(recs, *[()] * 0, **_attrs()) is not None  # the fast path answered
    _same(fast, _general(monkeypatch, lambda: tf.io.parse_example(recs, SPEC)))


def _attrs(spec=SPEC):
    dense, sparse, *_ = parsing._features(spec)
    return dict(dense_keys=tuple(k for k, *_ in dense), dense_types=tuple(d[1] for d in dense),
                dense_shapes=tuple(d[2] for d in dense), sparse_keys=tuple(k for k, _ in sparse),
                sparse_types=tuple(t for _, t in sparse), scalar=False)


def test_single_equals_general_path(monkeypatch):
    for r in _records(10, seed=1):
        _same(tf.io.parse_single_example(r, SPEC), _general(monkeypatch, lambda: tf.io.parse_single_example(r, SPEC)))


def test_known_values():
    r = _example(a=F(int64_list=tf.train.Int64List(value=[-1, 300, 2 ** 63 - 1])),
                 b=F(float_list=tf.train.FloatList(value=[0.5, -2.0])), c=F(bytes_list=tf.train.BytesList(value=[b"x\0"])))
    got = tf.io.parse_example([r, r], {"a": tf.io.FixedLenFeature([3], tf.int64),
                                       "b": tf.io.VarLenFeature(tf.float32), "c": tf.io.FixedLenFeature([], tf.string)})
    assert got["a"].numpy().tolist() == [[-1, 300, 2 ** 63 - 1]] * 2
    assert got["b"].values.numpy().tolist() == [0.5, -2.0, 0.5, -2.0]
    assert got["b"].indices.numpy().tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert got["c"].numpy().tolist() == [b"x\0", b"x\0"]


@pytest.mark.parametrize("record", [
    b"",  # no features: the dense ones are missing
    _example(label=F(float_list=tf.train.FloatList(value=[1.0]))),  # wrong type
    _example(label=F(int64_list=tf.train.Int64List(value=[1, 2]))),  # wrong count
    _example(label=F()),  # a feature with no list
    b"\x0a\x0b\x0a\x09\x0a\x05label\x12\x00",  # a feature with no list, by hand
    b"\x0a\x0c\x0a\x0a\x0a\x05label\x12\x01\x1a",  # truncated
    b"\x0a\x0f\x0a\x0d\x0a\x05label\x12\x04\x1a\x02\x08\x07",  # an unpacked int64
    b"\x0a\x0f\x0a\x0d\x0a\x05label\x12\x04\x1a\x02\x0a\x80",  # a varint cut short
    b"\x12\x00",  # an unknown field of Example
])
def test_unusual_records_go_the_general_way(monkeypatch, record):
    spec = {"label": tf.io.FixedLenFeature([], tf.int64, default_value=7)}
    good = _example(label=F(int64_list=tf.train.Int64List(value=[5])))
    for recs in ([record], [good, record]):
        def run():
            try:
                return tf.io.parse_example(recs, spec)["label"].numpy().tolist()
            except Exception as e:  # the same error, by type and message
                return type(e), str(e)
        assert run() == _general(monkeypatch, run)
