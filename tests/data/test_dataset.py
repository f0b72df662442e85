"""tf.data against TensorFlow 2.21's documented behaviour (expected values recorded from TensorFlow)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


def _py(x):
    if isinstance(x, tuple):
        return tuple(_py(v) for v in x)
    if isinstance(x, dict):
        return {k: _py(v) for k, v in x.items()}
    return x.tolist() if hasattr(x, "tolist") else x


def L(ds):
    return [_py(x) for x in ds.as_numpy_iterator()]


R = tf.data.Dataset.range(10)


def test_printed_forms_and_element_spec():
    assert repr(tf.data.Dataset.from_tensor_slices([1, 2, 3])) == \
        "<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>"
    assert repr(tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [1., 2.]})) == (
        "<_TensorSliceDataset element_spec={'a': TensorSpec(shape=(), dtype=tf.int32, name=None), "
        "'b': TensorSpec(shape=(), dtype=tf.float32, name=None)}>")
    assert repr(tf.data.Dataset.from_tensors(([1, 2], "x"))) == (
        "<_TensorDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.int32, name=None), "
        "TensorSpec(shape=(), dtype=tf.string, name=None))>")
    names = {"_RangeDataset": R, "_MapDataset": R.map(lambda x: x * 2),
             "_ParallelMapDataset": R.map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE),
             "_FilterDataset": R.filter(lambda x: x > 2), "_BatchDataset": R.batch(3),
             "_PaddedBatchDataset": R.padded_batch(2), "_UnbatchDataset": R.batch(2).unbatch(),
             "_ShuffleDataset": R.shuffle(4), "_RepeatDataset": R.repeat(), "_TakeDataset": R.take(3),
             "_SkipDataset": R.skip(2), "_PrefetchDataset": R.prefetch(1), "CacheDataset": R.cache(),
             "_WindowDataset": R.window(3), "_ZipDataset": R.enumerate(), "_ScanDataset":
             R.scan(np.int64(0), lambda s, x: (s + x, s)), "_ConcatenateDataset": R.concatenate(R),
             "_ShardDataset": R.shard(2, 0), "_TakeWhileDataset": R.take_while(lambda x: x < 3),
             "_UniqueDataset": R.unique(), "_RebatchDataset": R.batch(4).rebatch(2),
             "_InterleaveDataset": R.interleave(lambda x: tf.data.Dataset.range(x)),
             "_FlatMapDataset": R.flat_map(lambda x: tf.data.Dataset.range(x)),
             "_GroupByWindowDataset": R.group_by_window(lambda x: x % 2, lambda k, d: d.batch(2), window_size=2)}
    for name, ds in names.items():
        assert repr(ds).startswith(f"<{name} element_spec="), (name, repr(ds))
    assert repr(R.window(3).element_spec) == \
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    assert R.batch(3).element_spec == tf.TensorSpec([None], tf.int64)
    assert R.batch(3, drop_remainder=True).element_spec == tf.TensorSpec([3], tf.int64)
    assert tf.data.Dataset.from_tensor_slices(np.zeros((3, 2))).element_spec == tf.TensorSpec([2], tf.float64)
    assert tf.data.Dataset.from_tensor_slices([1.5, 2]).element_spec == tf.TensorSpec([], tf.float32)
    spec = R.map(lambda x: {"y": x, "z": (x, 1.0)}).element_spec
    assert spec == {"y": tf.TensorSpec([], tf.int64), "z": (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.float32))}


def test_cardinality_and_len():
    assert (tf.data.AUTOTUNE, tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY) == (-1, -1, -2)
    assert tf.data.experimental.AUTOTUNE == -1 and tf.data.experimental.INFINITE_CARDINALITY == -1
    cards = [R.batch(3), R.batch(3, drop_remainder=True), R.repeat(3), R.take(-1), R.skip(20), R.repeat().take(5),
             R.filter(lambda x: True).repeat(), R.filter(lambda x: True), R.shard(3, 1), R.window(3),
             R.window(3, drop_remainder=True), R.repeat(), R.concatenate(R), tf.data.Dataset.zip((R, R.take(4)))]
    assert [int(d.cardinality()) for d in cards] == [4, 3, 30, 10, 0, 5, -1, -2, 3, 4, 3, -1, 20, 4]
    assert len(R) == 10
    with pytest.raises(TypeError, match="The dataset is infinite."):
        len(R.repeat())
    with pytest.raises(TypeError, match="The dataset length is unknown."):
        len(R.filter(lambda x: True))


def test_transformations_match_tensorflow():
    assert L(R.interleave(lambda x: tf.data.Dataset.range(x).take(2), cycle_length=2).take(8)) == \
        [0, 0, 1, 0, 1, 0, 1, 0]
    assert L(tf.data.Dataset.range(1, 4).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(3),
                                                    cycle_length=2, block_length=2)) == [1, 1, 2, 2, 1, 2, 3, 3, 3]
    three = tf.data.Dataset.range(1, 4)
    assert L(three.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=3)) == \
        [1, 2, 3, 1, 2, 3]
    assert L(three.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=1)) == \
        [1, 1, 2, 2, 3, 3]
    assert L(R.group_by_window(lambda x: x % 3, lambda k, d: d.batch(2), window_size=2)) == \
        [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    assert L(tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2)) == \
        [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    pb = list(tf.data.Dataset.range(1, 3).map(lambda x: (tf.fill([x], x), x)).padded_batch(
        2, padded_shapes=([5], []), padding_values=(np.int64(-1), np.int64(0))).as_numpy_iterator())
    assert pb[0][0].tolist() == [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]] and pb[0][1].tolist() == [1, 2]
    assert L(tf.data.Dataset.range(1, 8).map(lambda x: tf.fill([x], x)).bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2])) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]],
                                                           [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]],
                                                           [[7, 7, 7, 7, 7, 7, 7]]]
    assert [[L(w) for w in ws] for ws in [R.take(5).window(2, shift=2)]] == [[[0, 1], [2, 3], [4]]]
    assert L(R.window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3)))[:2] == [[0, 1, 2], [1, 2, 3]]
    assert L(R.batch(4).rebatch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert L(tf.data.Dataset.from_tensor_slices([1, 1, 2, 3, 2]).unique()) == [1, 2, 3]
    assert L(tf.data.Dataset.range(3).enumerate(5)) == [(5, 0), (6, 1), (7, 2)]
    assert L(R.take(3).concatenate(R.skip(8))) == [0, 1, 2, 8, 9]
    assert L(tf.data.Dataset.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 10))) == [0, 0, 10, 30, 60]
    assert L(R.shard(3, 1)) == [1, 4, 7] and L(R.take_while(lambda x: x < 3)) == [0, 1, 2]
    assert L(R.batch(3).unbatch()) == list(range(10))
    assert L(R.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert L(R.take(2).repeat(2)) == [0, 1, 0, 1]
    assert L(tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": ([3, 4], ["x", "y"])})) == \
        [{"a": 1, "b": (3, b"x")}, {"a": 2, "b": (4, b"y")}]
    assert int(R.reduce(np.int64(0), lambda s, x: s + x)) == 45
    assert int(tf.data.Dataset.from_tensors(7).get_single_element()) == 7
    with pytest.raises(InvalidArgumentError, match="Dataset had more than one element."):
        R.get_single_element()
    assert L(R.apply(lambda d: d.take(1))) == [0]


def test_iteration_protocols():
    it = iter(R.take(2))
    assert repr(next(it)) == "<tf.Tensor: shape=(), dtype=int64, numpy=0>"
    next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert repr(R.as_numpy_iterator()).startswith("NumpyIterator(iterator=")
    x, y = next(iter(tf.data.Dataset.from_tensor_slices((np.arange(4).reshape(2, 2), [1, 2]))))
    assert x.numpy().tolist() == [0, 1] and int(y) == 1


def test_map_is_traced_once_with_the_element_spec():
    calls = []

    def f(x, y):
        calls.append((x.shape, x.dtype))  # a Python side effect: runs once, at trace time
        if x > 2:  # AutoGraph: a tensor condition becomes a cond
            x = x * 10
        return x + y

    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [0, 0, 1, 1])).map(f)
    assert L(ds) == [1, 2, 31, 41] and L(ds) == [1, 2, 31, 41]
    assert calls == [(tf.TensorShape([]), tf.int32)]


def test_whole_batch_map_equals_per_element_map():
    X = np.arange(5 * 4 * 3, dtype=np.uint8).reshape(5, 4, 3)
    fn = lambda x: tf.cast(tf.reshape(x, [12]), tf.float32) / 255.0 + 1.0  # noqa: E731
    batched = [b.numpy() for b in tf.data.Dataset.from_tensor_slices(X).map(fn).batch(2)]
    per_elem = [np.stack([fn(tf.constant(x)).numpy() for x in X[i:i + 2]]) for i in range(0, 5, 2)]
    for a, b in zip(batched, per_elem):
        np.testing.assert_array_equal(a, b)
    def normalize(x):  # reductions over the element and broadcasting inside it: vectorized per batch
        x = tf.cast(x, tf.float32)
        return (x - tf.reduce_mean(x)) / (tf.reduce_max(x, axis=0) + 1.0) + tf.reduce_sum(x, 1, keepdims=True) + \
            tf.nn.softmax(x) + tf.where(x > 30.0, x, -x)
    ds = tf.data.Dataset.from_tensor_slices(X).map(normalize)
    assert ds._fn is not None and __import__("rivulet.data.functions").data.functions.vectorize(ds._fn) is not None
    for a, b in zip([b.numpy() for b in ds.batch(2)], [np.stack([normalize(tf.constant(x)).numpy() for x in
                                                                  X[i:i + 2]]) for i in range(0, 5, 2)]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # not element-wise: a reduction over the element runs per element, giving per-element results
    sums = [b.numpy().tolist() for b in tf.data.Dataset.from_tensor_slices(X).map(
        lambda x: x - tf.reduce_min(x)).map(lambda x: tf.reduce_sum(tf.cast(x, tf.int32))).batch(5)]
    assert sums == [[66, 66, 66, 66, 66]]


def test_seeded_shuffle_is_a_permutation_and_reshuffles_each_epoch():
    for buf in (3, 100):
        ds = tf.data.Dataset.range(20).shuffle(buf, seed=7)
        e1, e2 = L(ds), L(ds)
        assert sorted(e1) == sorted(e2) == list(range(20))
        assert e1 != e2
        again = tf.data.Dataset.range(20).shuffle(buf, seed=7)
        assert L(again) == e1 and L(again) == e2  # the same seed replays the same epochs
        fixed = tf.data.Dataset.range(20).shuffle(buf, seed=7, reshuffle_each_iteration=False)
        assert L(fixed) == L(fixed)
    # a buffer of 2 can hold an element back, but never emit one before its predecessor entered the buffer
    order = L(tf.data.Dataset.range(50).shuffle(2, seed=1))
    assert all(order.index(i) >= i - 1 for i in range(50)) and order != list(range(50))
    # whole-batch path (shuffle of a slice source, batched) still a permutation per epoch
    ds = tf.data.Dataset.from_tensor_slices(np.arange(30)).shuffle(30, seed=3).batch(8)
    b1, b2 = np.concatenate(L(ds)), np.concatenate(L(ds))
    assert sorted(b1.tolist()) == list(range(30)) and b1.tolist() != b2.tolist()


def test_parallel_map_keeps_order_and_prefetch_passes_through():
    ds = R.map(lambda x: x * x, num_parallel_calls=3)
    assert L(ds) == [i * i for i in range(10)]
    assert L(R.map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)) == list(range(1, 11))
    assert L(R.prefetch(tf.data.AUTOTUNE)) == list(range(10))


def test_cache_memory_and_file(tmp_path):
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)
    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64)).cache()
    assert L(ds) == L(ds) == [0, 1, 2] and len(calls) == 1
    f = str(tmp_path / "c")
    fd = tf.data.Dataset.from_tensor_slices((["a", "b"], [[1., 2.], [3., 4.]])).cache(f)
    first = L(fd)
    assert L(fd) == first == [(b"a", [1.0, 2.0]), (b"b", [3.0, 4.0])]


def test_from_generator_checks_and_errors():
    def gen():
        for i in range(3):
            yield i, [i] * i
    g = tf.data.Dataset.from_generator(gen, output_signature=(tf.TensorSpec((), tf.int32),
                                                              tf.TensorSpec((None,), tf.int32)))
    assert [(a, b.tolist()) for a, b in g.as_numpy_iterator()] == [(0, []), (1, [1]), (2, [2, 2])]
    bad_shape = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=tf.TensorSpec((), tf.int32))
    with pytest.raises(InvalidArgumentError, match=r"yielded an element of shape \(2,\) where an element of shape"):
        list(bad_shape)
    bad_type = tf.data.Dataset.from_generator(lambda: iter(["a"]), output_signature=tf.TensorSpec((), tf.int32))
    with pytest.raises(InvalidArgumentError, match="could not be converted to the expected type"):
        list(bad_type)
    bad_struct = tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=(
        tf.TensorSpec((), tf.int32), tf.TensorSpec((), tf.int32)))
    with pytest.raises(InvalidArgumentError, match="did not match the expected structure"):
        list(bad_struct)

    def raises():
        yield 1
        raise ValueError("boom")
    it = iter(tf.data.Dataset.from_generator(raises, output_signature=tf.TensorSpec((), tf.int32)))
    assert int(next(it)) == 1
    with pytest.raises(ValueError, match="boom"):
        next(it)
    with pytest.raises(TypeError):
        tf.data.Dataset.from_generator(gen)


def test_structure_mismatch_errors():
    with pytest.raises(TypeError, match="Python `list` is not supported"):
        tf.data.Dataset.zip([R, R])
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        R.concatenate(tf.data.Dataset.from_tensor_slices([1.0]))
    with pytest.raises(TypeError, match="Incompatible dataset elements"):
        R.concatenate(tf.data.Dataset.zip((R, R)))
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar tensor"):
        R.filter(lambda x: x)
    with pytest.raises(InvalidArgumentError, match="Batch size must be greater than zero."):
        R.batch(0)
    with pytest.raises(ValueError, match="Cannot unbatch an input with scalar components."):
        R.unbatch()
    with pytest.raises(InvalidArgumentError, match="same size in the 0th dimension"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_a_failing_map_names_the_users_line():
    ds = tf.data.Dataset.from_tensor_slices([[1.0, 2.0], [3.0, 4.0]]).map(
        lambda x: tf.reshape(x, [3]) if False else tf.gather(x, 5))  # the failing line
    with pytest.raises(InvalidArgumentError) as e:
        list(ds)
    assert "test_dataset.py" in str(e.value) and "the failing line" not in str(e.value)
    with pytest.raises(TypeError) as e:
        R.map(lambda x: x + "a")
    assert "test_dataset.py" in str(e.value.__notes__) if getattr(e.value, "__notes__", None) else True


def test_choose_sample_assert_cardinality_ignore_errors_options():
    a = tf.data.Dataset.from_tensors("a").repeat(3)
    b = tf.data.Dataset.from_tensors("b").repeat(3)
    choice = tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 1], np.int64))
    assert L(tf.data.Dataset.choose_from_datasets([a, b], choice)) == [b"a", b"b", b"b", b"a", b"a", b"b"]
    assert L(tf.data.Dataset.choose_from_datasets([a, b.take(1)], tf.data.Dataset.from_tensor_slices(
        np.array([1, 1, 0], np.int64)), stop_on_empty_dataset=False)) == [b"b", b"a"]
    s = tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)], seed=1)
    assert sorted(L(s)) == [0, 1, 2, 10, 11, 12] and int(s.cardinality()) == -2
    assert repr(s).startswith("<_DirectedInterleaveDataset ")
    assert int(R.take(5).apply(tf.data.experimental.assert_cardinality(5)).cardinality()) == 5
    with pytest.raises(tf.errors.FailedPreconditionError, match="expected to contain 3 elements but contained at "
                                                                "least 4 elements"):
        list(R.filter(lambda x: True).apply(tf.data.experimental.assert_cardinality(3)))
    d = tf.data.Dataset.from_tensor_slices([1., 0., 2.]).map(
        lambda x: tf.debugging.check_numerics(1. / x, "inf")).ignore_errors()
    assert L(d) == [1.0, 0.5]
    g = tf.data.Dataset.from_generator(lambda n: range(int(n)), output_types=tf.int64, output_shapes=(), args=(3,))
    assert g.element_spec == tf.TensorSpec([], tf.int64) and L(g) == [0, 1, 2]
    o = tf.data.Options()
    o.deterministic = False
    assert R.with_options(o).options().deterministic is False
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options."):
        o.foo = 1


def test_fixed_length_records(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"HDR" + b"abcdefgh" + b"FT")
    ds = tf.data.FixedLengthRecordDataset(str(p), 4, header_bytes=3, footer_bytes=2)
    assert L(ds) == [b"abcd", b"efgh"]


def test_csv_datasets(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text('a,b,name\n1,2.5,x\n3,,"y,z"\n5,4.0,w\n')
    ds = tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.constant(0.0), tf.string], header=True)
    assert repr(ds).startswith("<CsvDatasetV2 element_spec=(TensorSpec(shape=(), dtype=tf.int32, name=None), ")
    assert L(ds) == [(1, 2.5, b"x"), (3, 0.0, b"y,z"), (5, 4.0, b"w")]
    with pytest.raises(InvalidArgumentError, match="Field 1 is required but missing in record!"):
        list(tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.float32, tf.string], header=True))
    m = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, label_name="a", shuffle=False, num_epochs=1)
    assert repr(m) == ("<_PrefetchDataset element_spec=(OrderedDict([('b', TensorSpec(shape=(None,), dtype=tf.float32, "
                       "name=None)), ('name', TensorSpec(shape=(None,), dtype=tf.string, name=None))]), "
                       "TensorSpec(shape=(None,), dtype=tf.int32, name=None))>")
    assert [(f["b"].tolist(), f["name"].tolist(), lab.tolist()) for f, lab in m.as_numpy_iterator()] == \
        [([2.5, 0.0], [b"x", b"y,z"], [1, 3]), ([4.0], [b"w"], [5])]


# -- dict elements: components travel in tf.nest's sorted-key order; the user's key order is kept ----------
def test_dict_elements_keep_each_key_with_its_own_values():
    # TensorFlow: {'b': 1, 'a': 3, 'c': 5}, keys in the order given (rivulet gave {'b': 3, 'a': 1, 'c': 5})
    ds = tf.data.Dataset.from_tensor_slices({"b": [1, 2], "a": [3, 4], "c": [5, 6]})
    assert list(ds.element_spec) == ["b", "a", "c"]
    first = next(iter(ds))
    assert list(first) == ["b", "a", "c"]
    assert {k: int(v) for k, v in first.items()} == {"b": 1, "a": 3, "c": 5}
    assert L(ds) == [{"b": 1, "a": 3, "c": 5}, {"b": 2, "a": 4, "c": 6}]
    one = tf.data.Dataset.from_tensors({"y": np.float32(0.5), "x": np.int64(7)})
    assert {k: (v.dtype.name, v.numpy().item()) for k, v in next(iter(one)).items()} == \
        {"y": ("float32", 0.5), "x": ("int64", 7)}


def test_reduce_and_scan_with_a_dict_state():
    ds = tf.data.Dataset.from_tensor_slices({"n": [1, 2, 3], "f": [0.5, 0.25, 0.25]})
    out = ds.reduce({"total": np.int32(0), "frac": np.float32(0)},
                    lambda s, e: {"total": s["total"] + e["n"], "frac": s["frac"] + e["f"]})
    assert (out["total"].dtype.name, int(out["total"]), float(out["frac"])) == ("int32", 6, 1.0)
    sc = ds.scan({"z": np.int32(0), "a": np.float32(0)},
                 lambda s, e: ({"z": s["z"] + e["n"], "a": s["a"] + e["f"]}, s["z"]))
    assert [int(x) for x in sc] == [0, 1, 3]


def test_padded_batch_matches_padded_shapes_and_values_by_key():
    ds = tf.data.Dataset.from_tensor_slices({"b": [[1, 2], [3, 4]], "a": [[3.0], [4.0]]})
    got = next(iter(ds.padded_batch(2, padded_shapes={"b": [4], "a": [2]}, padding_values={"b": -1, "a": 9.0})))
    assert _py({k: v.numpy() for k, v in got.items()}) == {"b": [[1, 2, -1, -1], [3, 4, -1, -1]],
                                                           "a": [[3.0, 9.0], [4.0, 9.0]]}
    # other keys were matched by position (silently padding the wrong component)
    with pytest.raises(ValueError, match="padded_shapes"):
        ds.padded_batch(2, padded_shapes={"b": [4], "c": [2]})
    with pytest.raises(ValueError, match="padding_values"):
        ds.padded_batch(2, padded_shapes={"b": [4], "a": [2]}, padding_values={"c": -1, "a": 9.0})


def test_from_generator_output_types_and_shapes_by_key():
    import collections
    P = collections.namedtuple("P", "y x")
    ds = tf.data.Dataset.from_generator(lambda: iter([P(1, 2.0)]), output_types=P(tf.int32, tf.float32),
                                        output_shapes=P([], []))
    assert type(ds.element_spec) is P and type(next(iter(ds))) is P  # was a plain tuple
    ds = tf.data.Dataset.from_generator(lambda: iter([{"b": 1, "a": [2.0, 3.0]}]),
                                        output_types={"b": tf.int32, "a": tf.float32},
                                        output_shapes={"a": [2], "b": []})
    assert L(ds) == [{"b": 1, "a": [2.0, 3.0]}]
    with pytest.raises(ValueError, match="output_shapes"):  # was KeyError
        tf.data.Dataset.from_generator(lambda: iter([]), output_types={"a": tf.int32}, output_shapes={"b": []})
