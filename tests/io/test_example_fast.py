"""parse_example's fast path (io/example_fast.py) returns what the general path returns, value for value and
dtype for dtype, and hands everything unusual (defaults, wrong types, odd wire forms) to the general path."""
import functools

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


def _same_length_records(n=40, seed=5):
    """Records of one length (fixed-size values): the fast path checks such a batch's framing at once."""
    rng = np.random.default_rng(seed)
    return [_example(image=F(bytes_list=tf.train.BytesList(value=[rng.bytes(200)])),
                     label=F(int64_list=tf.train.Int64List(value=[int(rng.integers(0, 100))])),
                     ids=F(int64_list=tf.train.Int64List(value=rng.integers(2 ** 35, 2 ** 40, 4).tolist())),
                     big=F(int64_list=tf.train.Int64List(value=[1, 2])),
                     feats=F(float_list=tf.train.FloatList(value=rng.random(8).tolist())),
                     tags=F(bytes_list=tf.train.BytesList(value=[b"ab", b"c"])),
                     extra=F(float_list=tf.train.FloatList(value=[1.5])))
            for _ in range(n)]


def test_a_batch_of_one_layout_equals_general_path(monkeypatch):
    recs = _same_length_records()
    assert len(set(map(len, recs))) == 1
    spec = dict(SPEC, ids=tf.io.FixedLenFeature([4], tf.int64), big=tf.io.VarLenFeature(tf.int64))
    _same(tf.io.parse_example(recs, spec), _general(monkeypatch, lambda: tf.io.parse_example(recs, spec)))


def _every_feature_spec():
    """A spec asking for every feature the test records hold (the general path decodes them all)."""
    return {"label": tf.io.FixedLenFeature([], tf.int64, default_value=0), "image": tf.io.VarLenFeature(tf.string),
            "ids": tf.io.VarLenFeature(tf.int64), "feats": tf.io.VarLenFeature(tf.float32),
            "tags": tf.io.VarLenFeature(tf.string), "big": tf.io.VarLenFeature(tf.int64),
            "extra": tf.io.VarLenFeature(tf.float32)}


def _outcome(fn, *args, **kwargs):
    """fn(*args, **kwargs)'s parsed features as comparable lists (floats by their bits), or its error's type
    and message."""
    try:
        got = fn(*args, **kwargs)
    except Exception as e:
        return type(e), str(e)
    return {k: [_bits(t.numpy()) for t in
                ((v.indices, v.values, v.dense_shape) if isinstance(v, tf.SparseTensor) else (v,))]
            for k, v in got.items()}


@pytest.mark.parametrize("base", ["varied", "one layout"])
def test_mutated_records_parse_as_the_general_path_does(monkeypatch, base):
    """Random byte flips, cuts and insertions: the fast path gives the general path's values or its error, except
    where a flip made a feature the spec does not ask for, whose contents TensorFlow (and the fast path) skip
    while the general path decodes every feature (checked against TensorFlow 2.21 on 3000 such records)."""
    rng = np.random.default_rng(7)
    base = _records(6, seed=3) if base == "varied" else _same_length_records()
    # every feature the records hold is asked for: the general path decodes all of them, the fast path
    # only those asked for (as TensorFlow's, see test_unrequested_features_are_skipped_as_tensorflow_does)
    spec = _every_feature_spec()
    outcome = functools.partial(_outcome, tf.io.parse_example, features=spec)

    for trial in range(300):
        recs = list(base)
        i = int(rng.integers(len(recs)))
        if trial % 5 == 4:  # two records mutated, the first of the batch one of them
            recs[0] = recs[0][:-1] + bytes([recs[0][-1] ^ 1])
        r = bytearray(recs[i])
        kind = trial % 3
        if kind == 0:
            for _ in range(int(rng.integers(1, 4))):
                r[int(rng.integers(len(r)))] ^= 1 << int(rng.integers(8))
        elif kind == 1:
            r = r[:int(rng.integers(len(r)))]
        else:
            at = int(rng.integers(len(r)))
            r[at:at] = rng.bytes(int(rng.integers(1, 4)))
        recs[i] = bytes(r)
        fast, general = outcome(recs), _general(monkeypatch, lambda: outcome(recs))
        if fast != general:  # only where the general path read a feature not asked for, as TensorFlow does not
            assert set(_keys(recs[i])) - set(spec), trial
            assert isinstance(general, tuple) and not isinstance(fast, tuple), trial


def _bits(a):
    """Values as comparable lists, floats by their bits (a flipped bit may make a NaN)."""
    a = np.asarray(a)
    return (a.view(np.uint32) if a.dtype == np.float32 else a).tolist()


def _keys(record):
    """The feature names of a record whose framing (Example, map entries) is sound, else []."""
    from rivulet.formats.wire import fields

    def fail(*a):
        return ValueError(a)
    try:
        keys = []
        for f, w, features in fields(record, fail):
            for _, _, entry in fields(features, fail):
                keys += [v.decode("utf-8", "replace") for ef, ew, v in fields(entry, fail) if ef == 1 and ew == 2]
        return keys
    except ValueError:
        return []


def test_unrequested_features_are_skipped_as_tensorflow_does():
    """A feature the spec does not name is skipped by its length, its bytes unread: TensorFlow 2.21 parses this
    record (feature "b" holds the bytes ff ff, no valid Feature) to a == [5], and raises only when "b" is asked
    for."""
    rec = b"\n\x15\n\n\n\x01a\x12\x05\x1a\x03\n\x01\x05\n\x07\n\x01b\x12\x02\xff\xff"
    assert tf.io.parse_example([rec], {"a": tf.io.FixedLenFeature([], tf.int64)})["a"].numpy().tolist() == [5]
    assert tf.io.parse_single_example(rec, {"a": tf.io.FixedLenFeature([], tf.int64)})["a"].numpy() == 5
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_example([rec], {"a": tf.io.FixedLenFeature([], tf.int64), "b": tf.io.VarLenFeature(tf.int64)})


def test_empty_lists_at_the_end_of_a_record_stay_on_the_fast_path(monkeypatch):
    recs = [_example(a=F(int64_list=tf.train.Int64List(value=[i])), z=F(int64_list=tf.train.Int64List(value=[])),
                     zs=F(bytes_list=tf.train.BytesList(value=[])))
            for i in range(3)]
    spec = {"a": tf.io.FixedLenFeature([], tf.int64), "z": tf.io.VarLenFeature(tf.int64),
            "zs": tf.io.VarLenFeature(tf.string)}
    assert example_fast.parse(recs, **dict(_attrs(spec), scalar=False)) is not None
    assert example_fast.parse(recs[:1], **dict(_attrs(spec), scalar=True)) is not None
    _same(tf.io.parse_example(recs, spec), _general(monkeypatch, lambda: tf.io.parse_example(recs, spec)))


def test_single_records_of_one_layout_skip_the_walk(monkeypatch):
    """parse_single_example keeps a record's layout by its length once that length has come three times: the
    next record of that length with the same framing bytes takes its spans (a few `startswith`, no walk); one
    whose framing differs is walked."""
    recs = _same_length_records()
    spec = dict(SPEC, ids=tf.io.FixedLenFeature([4], tf.int64), big=tf.io.VarLenFeature(tf.int64))
    del spec["tags"]  # (two values: not the usual form, so the layout would keep each list's header a value)
    walks, reads = [], []
    real, packed, strings = example_fast._entries, example_fast._packed, example_fast._bytes_values
    monkeypatch.setattr(example_fast, "_entries", lambda *a: walks.append(1) or real(*a))
    # every list has the usual form here: its header is framing too, its values read where the layout says
    monkeypatch.setattr(example_fast, "_packed", lambda *a: reads.append(1) or packed(*a))
    monkeypatch.setattr(example_fast, "_bytes_values", lambda *a: reads.append(1) or strings(*a))
    example_fast._ONE_LAYOUTS.clear()
    example_fast._SEEN.clear()
    got = [tf.io.parse_single_example(r, spec) for r in recs]
    assert len(walks) == 3 and len(reads) == 15  # the first three records' five features
    monkeypatch.undo()
    for r, g in zip(recs, got):
        _same(g, _general(monkeypatch, lambda: tf.io.parse_single_example(r, spec)))


def test_single_records_mutated_within_one_length_parse_as_the_general_path_does(monkeypatch):
    """Bit flips in a record of a known layout's length (its framing, keys or values): the cached layout is
    taken only where every framing byte is the same, so values and errors are the general path's."""
    rng = np.random.default_rng(11)
    base = _same_length_records()[0]
    spec = _every_feature_spec()
    outcome = functools.partial(_outcome, tf.io.parse_single_example, features=spec)

    for _ in range(3):
        outcome(base)  # the layout of this length is the base record's
    assert (id(example_fast._plan(*[_attrs(spec)[k] for k in ("dense_keys", "dense_types", "dense_shapes",
                                                               "sparse_keys", "sparse_types")])[0]),
            len(base)) in example_fast._ONE_LAYOUTS
    for trial in range(300):
        outcome(base)
        r = bytearray(base)
        for _ in range(int(rng.integers(1, 3))):
            r[int(rng.integers(len(r)))] ^= 1 << int(rng.integers(8))
        r = bytes(r)
        fast, general = outcome(r), _general(monkeypatch, lambda: outcome(r))
        if fast != general:  # only where the general path read a feature not asked for, as TensorFlow does not
            assert set(_keys(r)) - set(spec), trial
            assert isinstance(general, tuple) and not isinstance(fast, tuple), trial


def _few_length_records(n=64, seed=9):
    """Records of three lengths (none, one or two of the ids five varint bytes long, the others six): a batch of
    a few layouts, each record matching its length's."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        ids = rng.integers(2 ** 35, 2 ** 42, 4).tolist()
        for j in range((i % 5 == 0) + (i % 11 == 0)):
            ids[j] = int(rng.integers(2 ** 28, 2 ** 35))  # a five-byte varint
        out.append(_example(image=F(bytes_list=tf.train.BytesList(value=[rng.bytes(300)])),
                            label=F(int64_list=tf.train.Int64List(value=[int(rng.integers(0, 100))])),
                            ids=F(int64_list=tf.train.Int64List(value=ids)),
                            neg=F(int64_list=tf.train.Int64List(value=[-int(rng.integers(1, 2 ** 40))])),
                            feats=F(float_list=tf.train.FloatList(value=rng.random(8).tolist())),
                            extra=F(float_list=tf.train.FloatList(value=[1.5]))))
    return out


def test_a_batch_of_a_few_layouts_is_cut_by_column(monkeypatch):
    """parse_example of records of a few lengths, each matching its length's layout: every feature's values are
    the same columns of a length's records, cut for the group at once and put back in batch order; values and
    dtypes are the general path's. A length met in fewer than _GROUP records of a batch gets its layout when
    a second batch has it too."""
    recs = _few_length_records()
    assert 2 <= len(set(map(len, recs))) <= example_fast._FEW_LENGTHS
    spec = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([1], tf.int64),
            "ids": tf.io.FixedLenFeature([2, 2], tf.int64), "neg": tf.io.VarLenFeature(tf.int64),
            "feats": tf.io.VarLenFeature(tf.float32), "extra": tf.io.FixedLenFeature([], tf.float32)}
    grouped = []
    real = example_fast._grouped
    monkeypatch.setattr(example_fast, "_grouped", lambda *a: grouped.append(real(*a)) or grouped[-1])
    example_fast._LAYOUTS.clear()
    first = tf.io.parse_example(recs, spec)  # a length of fewer than _GROUP records: no layout the first time
    got = tf.io.parse_example(recs, spec)
    assert len(grouped) == 2 and grouped[0] is None and grouped[1] is not None
    _same(first, got)
    assert got["neg"].values.numpy().min() < 0 and got["ids"].numpy().max() >= 2 ** 35
    monkeypatch.setattr(example_fast, "_grouped", real)
    _same(got, _general(monkeypatch, lambda: tf.io.parse_example(recs, spec)))
    got["feats"].values.numpy()[0] = 7.0  # the values own their memory


def test_a_batch_of_a_few_layouts_with_a_bad_record_parses_as_the_general_path_does(monkeypatch):
    rng = np.random.default_rng(3)
    base = _few_length_records(32, seed=4)
    spec = {"image": tf.io.VarLenFeature(tf.string), "label": tf.io.VarLenFeature(tf.int64),
            "ids": tf.io.VarLenFeature(tf.int64), "neg": tf.io.VarLenFeature(tf.int64),
            "feats": tf.io.VarLenFeature(tf.float32), "extra": tf.io.VarLenFeature(tf.float32)}
    outcome = functools.partial(_outcome, tf.io.parse_example, features=spec)

    outcome(base)  # the layouts of these lengths
    for trial in range(200):
        recs = list(base)
        i = int(rng.integers(len(recs)))
        r = bytearray(recs[i])
        r[int(rng.integers(len(r)))] ^= 1 << int(rng.integers(8))  # one flip: the record keeps its length
        recs[i] = bytes(r)
        fast, general = outcome(recs), _general(monkeypatch, lambda: outcome(recs))
        if fast != general:  # only where the general path read a feature not asked for, as TensorFlow does not
            assert set(_keys(recs[i])) - set(spec), trial
            assert isinstance(general, tuple) and not isinstance(fast, tuple), trial


def test_packed_int64s_of_one_record_decode_every_varint_length():
    """_one_int64s reads varints of up to six bytes unrolled, longer ones and those near the end byte by byte:
    every length from one to ten bytes, and a payload cut inside its last varint leaves the fast path."""
    from rivulet.formats.wire import encode_varint
    rng = np.random.default_rng(2)
    for _ in range(2000):
        vals = [int(v) for v in rng.integers(-2 ** 63, 2 ** 63 - 1, int(rng.integers(0, 3)))]
        vals += [int(rng.integers(0, 1 << int(rng.integers(1, 63)))) for _ in range(int(rng.integers(0, 6)))]
        rng.shuffle(vals)
        buf = b"\x80" + b"".join(encode_varint(v) for v in vals) + b"\xff"
        assert example_fast._one_int64s(buf, 1, len(buf) - 1) == vals
        if vals and vals[-1] not in range(128):
            with pytest.raises(example_fast._Bail):
                example_fast._one_int64s(buf, 1, len(buf) - 2)


def test_a_batch_of_empty_packed_fields_cut_by_column(monkeypatch):
    """A numeric list written as an empty packed field (field 1, length 0; protobuf itself writes no field) in
    every record of a batch of one layout: no values, as the general path reads it, not a reshape error."""
    def rec(i):
        lst = b"\n\x00"  # Int64List / FloatList: an empty packed field
        feats = [(b"a", b"\x1a" + bytes([len(lst)]) + lst), (b"f", b"\x12" + bytes([len(lst)]) + lst),
                 (b"s", b"\n\x03\n\x01" + bytes([97 + i % 3]))]
        entries = b""
        for k, v in feats:
            e = b"\n" + bytes([len(k)]) + k + b"\x12" + bytes([len(v)]) + v
            entries += b"\n" + bytes([len(e)]) + e
        return b"\n" + bytes([len(entries)]) + entries
    recs = [rec(i) for i in range(40)]
    spec = {"a": tf.io.VarLenFeature(tf.int64), "f": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.FixedLenFeature([], tf.string)}
    for _ in range(2):
        got = tf.io.parse_example(recs, spec)
    assert got["a"].dense_shape.numpy().tolist() == [40, 0] and got["s"].numpy()[:3].tolist() == [b"a", b"b", b"c"]
    _same(got, _general(monkeypatch, lambda: tf.io.parse_example(recs, spec)))


@pytest.mark.parametrize("record", [
    b"\x0a\x09\x0a\x07\x0a\x01e\x12\x02\x00\x00",  # a Feature whose field key is the byte 0 (field 0)
    b"\x0a\x0b\x0a\x09\x0a\x01e\x12\x04\x00\x02\x0a\x00",  # the same, its "list" a bytes value
    # the wanted key twice, the first Feature's field an end-group key: TensorFlow reads every occurrence's
    # type before the last one wins
    b"\x0a\x16\x0a\x09\x0a\x01e\x12\x04\x4c\x02\x0a\x00\x0a\x09\x0a\x01e\x12\x04\x0a\x02\x0a\x00",
])
def test_a_wanted_feature_of_an_unsupported_type_is_an_error(monkeypatch, record):
    """TensorFlow 2.21: InvalidArgumentError 'Unsupported datatype.' for each of these (the fast path read a
    field key of 0 as a Feature with no list, and let a later duplicate hide the first one's bad key)."""
    spec = {"e": tf.io.VarLenFeature(tf.string)}
    for run in (lambda: tf.io.parse_single_example(record, spec), lambda: tf.io.parse_example([record] * 3, spec)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            run()
    # the records that layout caches would match: one more of the same length after three good ones
    good = b"\x0a\x09\x0a\x07\x0a\x01e\x12\x02\x0a\x00"
    for _ in range(4):
        assert tf.io.parse_single_example(good, spec)["e"].values.numpy().tolist() == []
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_single_example(b"\x0a\x09\x0a\x07\x0a\x01e\x12\x02\x00\x00", spec)


def test_layouts_of_many_big_lengths_hold_a_bounded_memory(monkeypatch):
    """Records of many lengths whose bytes are mostly a feature not asked for (its bytes are framing): the
    layouts kept hold at most _LAYOUT_BYTES (was: 256 layouts of ~9 bytes per record byte, 2.4 GB for 1 MB
    records), and parsing still equals the general path."""
    monkeypatch.setattr(example_fast, "_LAYOUT_BYTES", 1 << 20)
    example_fast._LAYOUTS.clear()
    example_fast._ONE_LAYOUTS.clear()
    spec = {"label": tf.io.FixedLenFeature([], tf.int64)}
    for i in range(12):
        r = _example(label=F(int64_list=tf.train.Int64List(value=[i])),
                     blob=F(bytes_list=tf.train.BytesList(value=[b"x" * (65536 + i)])))
        for _ in range(2):
            assert tf.io.parse_example([r] * 16, spec)["label"].numpy().tolist() == [i] * 16
        for _ in range(3):
            assert tf.io.parse_single_example(r, spec)["label"].numpy().tolist() == i
    held = sum(lay[2].nbytes + lay[3].nbytes for lay in example_fast._LAYOUTS.values())
    held_one = sum(len(p) for lay in example_fast._ONE_LAYOUTS.values() for _, p in lay[2])
    assert 0 < held <= 1 << 20 and 0 < held_one <= 1 << 20


def test_a_batch_whose_unwanted_bytes_vary_is_not_gathered(monkeypatch):
    """Records of one length whose feature not asked for differs from record to record (a fixed-size image):
    the layout's framing (those bytes too) is first checked on two records with `startswith`, which stops at
    the first differing byte, so the group's bytes are not joined and compared on every batch (was: ~12 ms a
    batch of 32 records of 150 KB, against 0.07 for the walk); values as the general path's."""
    rng = np.random.default_rng(1)
    recs = [_example(label=F(int64_list=tf.train.Int64List(value=[i % 10])),
                     image=F(bytes_list=tf.train.BytesList(value=[rng.bytes(20000)]))) for i in range(32)]
    spec = {"label": tf.io.FixedLenFeature([], tf.int64)}
    seen = []

    class Spy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def frombuffer(b, *a, **k):
            seen.append(len(b))
            return np.frombuffer(b, *a, **k)
    example_fast._LAYOUTS.clear()
    monkeypatch.setattr(example_fast, "np", Spy())
    for _ in range(3):
        got = tf.io.parse_example(recs, spec)
    assert sum(seen) < 2 * len(recs[0])  # the reference record's bytes at most, once per layout made
    monkeypatch.undo()
    assert got["label"].numpy().tolist() == [i % 10 for i in range(32)]
    _same(got, _general(monkeypatch, lambda: tf.io.parse_example(recs, spec)))


def test_a_single_record_the_fast_path_declines_is_walked_once(monkeypatch):
    """parse_single_example of a record the fast path hands back (a dense feature missing: its default is the
    general path's) asks the fast path once, not twice (was: the scalar shortcut, then the list path again)."""
    calls = []
    real = example_fast.parse
    monkeypatch.setattr(example_fast, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    spec = {"label": tf.io.FixedLenFeature([], tf.int64, default_value=-1), "x": tf.io.VarLenFeature(tf.float32)}
    r = _example(x=F(float_list=tf.train.FloatList(value=[0.5])))
    got = tf.io.parse_single_example(r, spec)
    assert got["label"].numpy().tolist() == -1 and got["x"].values.numpy().tolist() == [0.5]
    assert len(calls) == 1
    ds = tf.data.Dataset.from_tensor_slices([r, r]).map(lambda s: tf.io.parse_single_example(s, spec)["label"])
    calls.clear()
    assert [int(v) for v in ds] == [-1, -1] and len(calls) == 2


def test_records_of_a_cached_layout_with_any_payload_bytes(monkeypatch):
    """Records whose framing is a cached layout's, byte for byte, but whose value bytes are anything (varints
    of other lengths or cut short, 10-byte negatives, NaN and -0 floats): the fast path (single records and
    batches cut by column) gives the general path's values or hands the record over, never other values."""
    rng = np.random.default_rng(21)
    spec = {"i": tf.io.VarLenFeature(tf.int64), "d": tf.io.FixedLenFeature([3], tf.int64),
            "f": tf.io.VarLenFeature(tf.float32), "s": tf.io.FixedLenFeature([], tf.string)}
    base = _example(i=F(int64_list=tf.train.Int64List(value=[1] * 12)),
                    d=F(int64_list=tf.train.Int64List(value=[1] * 6)),
                    f=F(float_list=tf.train.FloatList(value=[0.0] * 3)),
                    s=F(bytes_list=tf.train.BytesList(value=[b"x" * 130])))
    wanted = {k.encode(): j for j, k in enumerate("difs")}
    found = [None] * 4
    example_fast._entries(base, wanted, found)
    regions = [(s, e) for _, s, e in found]
    for s, e in regions:  # each list in the usual form: one packed field or value, its header framing
        assert base[s] == 0x0A and e - s > 2

    def varints(n, lengths=None):  # n bytes of varints, of random lengths (or these), each byte random
        out, k = bytearray(), 0
        while len(out) < n:
            ln = lengths[k] if lengths else int(rng.integers(1, min(10, n - len(out)) + 1))
            k += 1
            out += bytes(int(rng.integers(128, 256)) for _ in range(ln - 1)) + bytes([int(rng.integers(0, 128))])
        return out

    def splits(n):
        out = []
        while sum(out) < n:
            out.append(int(rng.integers(1, min(10, n - sum(out)) + 1)))
        return out

    def variant(pattern, noise):
        r = bytearray(base)
        for j, (s, e) in enumerate(regions):
            p = s + 2 + (e - s > 130)
            if j < 2:  # the int64 lists: varints of the batch's pattern (so columns line up), or any
                r[p:e] = varints(e - p, pattern[j] if rng.random() > noise else None)
            for k in range(p, e):
                if rng.random() < noise / 4:
                    r[k] = int(rng.choice([0x00, 0x01, 0x7F, 0x80, 0xFF, 0xC0, int(rng.integers(256))]))
        return bytes(r)

    d_splits = [[1, 1, 4], [2, 2, 2], [1, 5], [6]]  # three values in d, or fewer: the general path's error
    for trial in range(60):
        pattern = (d_splits[int(rng.integers(4))], splits(regions[1][1] - regions[1][0] - 2))  # (d, i)
        noise = float(rng.choice([0.0, 0.0, 0.1, 1.0]))
        batch = [variant(pattern, noise) for _ in range(int(rng.choice([3, 16, 24])))]
        i_split = pattern[1]
        if not noise and len(i_split) >= 2 and i_split[0] + i_split[1] <= 10 and rng.random() < 0.5:
            # one record a value more, another one fewer: as many values in all, cut elsewhere
            more = [1, i_split[0] - 1] + i_split[1:] if i_split[0] > 1 else [1, 1, i_split[1] - 1] + i_split[2:]
            fewer = [i_split[0] + i_split[1]] + i_split[2:]
            if 0 not in more:
                batch[0], batch[-1] = variant((pattern[0], more), 0.0), variant((pattern[0], fewer), 0.0)
        runs = [lambda: tf.io.parse_example(batch, spec)]
        runs += [lambda r=r: tf.io.parse_single_example(r, spec) for r in batch[:4]]
        for run in runs:
            assert _outcome(run) == _general(monkeypatch, lambda: _outcome(run)), trial


def test_index_arrays_of_long_lists_are_not_kept():
    """The sparse indices kept for reuse are those of short lists: records (or batches) whose long VarLen lists
    come in many lengths kept every length's indices (was: up to 257 single-record index arrays and 65 batch
    grids of any size: 16 bytes per value each, 1.6 GB for lists of 400K values)."""
    example_fast._SPARSE_ONE.clear()
    example_fast._GRIDS.clear()
    spec = {"v": tf.io.VarLenFeature(tf.float32)}
    for n in range(5000, 5040):
        r = _example(v=F(float_list=tf.train.FloatList(value=np.arange(n, dtype=np.float32))))
        got = tf.io.parse_single_example(r, spec)["v"]
        assert got.indices.numpy()[-1].tolist() == [n - 1] and got.dense_shape.numpy().tolist() == [n]
        got = tf.io.parse_example([r] * 2, spec)["v"]
        assert got.indices.numpy()[-1].tolist() == [1, n - 1] and got.dense_shape.numpy().tolist() == [2, n]
    held = sum(a.nbytes + b.nbytes for a, b in example_fast._SPARSE_ONE.values())
    held += sum(g.nbytes for g in example_fast._GRIDS.values())
    assert held < 1 << 20  # (without the bound: 8 MB here)


def test_records_too_big_for_a_kept_layout_are_walked(monkeypatch):
    """A record past a tenth of _LAYOUT_BYTES gets no batch layout: it is walked, not joined and compared with
    its group byte for byte on every batch for a layout that could not be kept."""
    monkeypatch.setattr(example_fast, "_LAYOUT_BYTES", 100_000)
    example_fast._LAYOUTS.clear()
    recs = [_example(label=F(int64_list=tf.train.Int64List(value=[i])),
                     image=F(bytes_list=tf.train.BytesList(value=[b"\x01" * 20000]))) for i in range(16)]
    made = []
    real = example_fast._payloads
    monkeypatch.setattr(example_fast, "_payloads", lambda *a: made.append(1) or real(*a))
    for _ in range(3):
        got = tf.io.parse_example(recs, {"label": tf.io.FixedLenFeature([], tf.int64)})
    assert got["label"].numpy().tolist() == list(range(16)) and not made and not example_fast._LAYOUTS


def test_concatenated_records_and_duplicated_keys_read_as_tensorflow_does(monkeypatch):
    """Two serialized Examples one after the other parse as one with both maps (TensorFlow 2.21: a [1], b [2],
    c [4]; was: the second's features alone, so a missing); a key whose last entry is an empty Feature keeps
    an earlier entry's values (TensorFlow 2.21: [5] as FixedLenFeature, with a default, and as VarLenFeature;
    was: missing, so an error, the default, or no values)."""
    T = tf.train

    def ex(**kv):
        return _example(**{k: F(int64_list=T.Int64List(value=v)) for k, v in kv.items()})
    r = ex(a=[1], c=[3]) + ex(b=[2], c=[4])
    spec = {k: tf.io.VarLenFeature(tf.int64) for k in "abc"}
    want = {"a": [1], "b": [2], "c": [4]}
    for run in (lambda: tf.io.parse_single_example(r, spec), lambda: _general(monkeypatch, lambda: (
            tf.io.parse_single_example(r, spec)))):
        assert {k: v.values.numpy().tolist() for k, v in run().items()} == want
    got = tf.io.parse_example([r, r], spec)
    assert {k: v.values.numpy().tolist() for k, v in got.items()} == {k: v * 2 for k, v in want.items()}
    ent1, ent2 = b"\x0a\x01d\x12\x05\x1a\x03\x0a\x01\x05", b"\x0a\x01d\x12\x00"  # d: [5], then d: an empty Feature
    body = b"\x0a" + bytes([len(ent1)]) + ent1 + b"\x0a" + bytes([len(ent2)]) + ent2
    dup = b"\x0a" + bytes([len(body)]) + body
    for spec in ({"d": tf.io.FixedLenFeature([1], tf.int64)}, {"d": tf.io.FixedLenFeature([1], tf.int64, [7])},
                 {"d": tf.io.VarLenFeature(tf.int64)}):
        def values(recs, single):
            out = (tf.io.parse_single_example(recs[0], spec) if single else tf.io.parse_example(recs, spec))["d"]
            return getattr(out, "values", out).numpy().reshape(-1).tolist()
        for recs, single in (([dup], True), ([dup] * 3, False), ([dup] * 20, False)):
            assert values(recs, single) == [5] * len(recs)
            assert _general(monkeypatch, lambda: values(recs, single)) == [5] * len(recs)
