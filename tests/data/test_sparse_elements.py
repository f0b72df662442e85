"""tf.SparseTensor elements in tf.data (the data and sparse_tensor guides): from_tensors, from_tensor_slices,
batch, unbatch, map, zip; element_spec as SparseTensorSpec. Expected values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def _data():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def _parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def test_from_tensors_sparse_element_spec():
    ds = tf.data.Dataset.from_tensors(tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4]))
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.int32)"
    assert ds.element_spec.value_type is tf.SparseTensor
    assert repr(ds) == "<_TensorDataset element_spec=SparseTensorSpec(TensorShape([3, 4]), tf.int32)>"
    (e,) = list(ds)
    assert isinstance(e, tf.SparseTensor)
    assert _parts(e) == ([[0, 0], [1, 2]], [1, 2], [3, 4])


def test_from_tensor_slices_batch_unbatch_map():
    ds = tf.data.Dataset.from_tensor_slices(_data())
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    rows = list(ds)
    assert len(rows) == 6
    assert _parts(rows[0]) == ([[0], [1], [2]], [1, 1, 1], [4])
    assert _parts(rows[1]) == ([], [], [4]) and rows[1].indices.shape == (0, 1)
    b = ds.batch(4)
    assert repr(b.element_spec) == "SparseTensorSpec(TensorShape([None, 4]), tf.int32)"
    got = [_parts(x) for x in b]
    assert got == [([[0, 0], [0, 1], [0, 2]], [1, 1, 1], [4, 4]),
                   ([[0, 3], [1, 0], [1, 1]], [1, 1, 1], [2, 4])]
    u = b.unbatch()
    assert repr(u.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    assert [_parts(x) for x in u] == [_parts(x) for x in rows]
    m = ds.map(lambda x: x * 2)
    assert repr(m.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.int32)"
    assert _parts(next(iter(m))) == ([[0], [1], [2]], [2, 2, 2], [4])


def test_zip_dict_and_mixed_batches():
    ds = tf.data.Dataset.from_tensor_slices(_data())
    z = tf.data.Dataset.zip((ds, tf.data.Dataset.range(6)))
    assert repr(z.element_spec) == ("(SparseTensorSpec(TensorShape([4]), tf.int32), "
                                    "TensorSpec(shape=(), dtype=tf.int64, name=None))")
    d = tf.data.Dataset.from_tensor_slices({"a": _data(), "b": tf.range(6)})
    assert repr(d.element_spec) == ("{'a': SparseTensorSpec(TensorShape([4]), tf.int32), "
                                    "'b': TensorSpec(shape=(), dtype=tf.int32, name=None)}")
    sp, n = next(iter(tf.data.Dataset.from_tensor_slices((_data(), tf.range(6))).batch(3)))
    assert _parts(sp) == ([[0, 0], [0, 1], [0, 2]], [1, 1, 1], [3, 4])
    assert n.numpy().tolist() == [0, 1, 2]


def test_batch_of_differing_dense_shapes_and_map_to_sparse():
    a = tf.data.Dataset.from_tensors(tf.SparseTensor([[0]], [1.], [3]))
    b = tf.data.Dataset.from_tensors(tf.SparseTensor([[1]], [2.], [5]))
    ds = a.concatenate(b)
    assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([None]), tf.float32)"
    (x,) = list(ds.batch(2))
    assert _parts(x) == ([[0, 0], [1, 1]], [1.0, 2.0], [2, 5])
    m = tf.data.Dataset.range(3).map(lambda x: tf.SparseTensor([[0]], [x], [2]))
    assert repr(m.element_spec) == "SparseTensorSpec(TensorShape([2]), tf.int64)"
    assert _parts(next(iter(m.batch(2)))) == ([[0, 0], [1, 0]], [0, 1], [2, 2])


def test_sparse_elements_as_numpy_and_in_tf_function():
    ds = tf.data.Dataset.from_tensor_slices(_data())
    v = list(ds.batch(4).as_numpy_iterator())[1]
    np.testing.assert_array_equal(v.indices, [[0, 3], [1, 0], [1, 1]])
    np.testing.assert_array_equal(v.dense_shape, [2, 4])

    @tf.function
    def total(d):
        s = tf.constant(0)
        for x in d:
            s += tf.sparse.reduce_sum(x)
        return s
    assert int(total(ds)) == 6


def test_unbatch_of_scalar_sparse_refused():
    ds = tf.data.Dataset.from_tensors(tf.SparseTensor([[0]], [1], [3]))
    with pytest.raises(ValueError):
        ds.unbatch().unbatch()


def test_padded_batch_refuses_sparse_as_tensorflow():
    ds = tf.data.Dataset.from_tensors(tf.SparseTensor([[0]], [1], [3])).repeat(2)
    with pytest.raises(TypeError, match="`padded_batch` is only supported for datasets that produce tensor "
                                        "elements"):
        ds.padded_batch(2)


def test_from_generator_window_cache_and_snapshot_of_sparse(tmp_path):
    def gen():
        yield tf.SparseTensor([[0]], [1], [3])
        yield tf.SparseTensor([[1]], [2], [3])
    g = tf.data.Dataset.from_generator(gen, output_signature=tf.SparseTensorSpec([3], tf.int32))
    assert repr(g.element_spec) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    assert [x.values.numpy().tolist() for x in g] == [[1], [2]]
    w = g.window(2)
    assert repr(w.element_spec) == "DatasetSpec(SparseTensorSpec(TensorShape([3]), tf.int32), TensorShape([]))"
    (win,) = list(w)
    assert [_parts(x) for x in win] == [([[0]], [1], [3]), ([[1]], [2], [3])]
    pairs = tf.data.Dataset.range(2).map(lambda x: (x, tf.SparseTensor([[0]], [x], [2])))
    for ds in (pairs.cache(str(tmp_path / "c")), pairs.snapshot(str(tmp_path / "s"))):
        first = [(int(n), _parts(s)) for n, s in ds]
        assert first == [(0, ([[0]], [0], [2])), (1, ([[0]], [1], [2]))]
        assert [(int(n), _parts(s)) for n, s in ds] == first  # read back from the file
    assert repr(pairs.batch(2).element_spec) == ("(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
                                                 "SparseTensorSpec(TensorShape([None, 2]), tf.int64))")
    bad = tf.data.Dataset.from_generator(lambda: iter([tf.constant([1, 2, 3])]),
                                         output_signature=tf.SparseTensorSpec([3], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected type"):
        list(bad)


def test_slices_of_rank_3_and_rank_1_refused_as_tensorflow():
    d3 = tf.data.Dataset.from_tensor_slices(tf.SparseTensor([[0, 1, 1], [2, 0, 0]], [1, 2], [3, 2, 2]))
    assert repr(d3.element_spec) == "SparseTensorSpec(TensorShape([2, 2]), tf.int32)"
    assert [e.indices.numpy().tolist() for e in d3] == [[[1, 1]], [], [[0, 0]]]
    assert [e.indices.numpy().tolist() for e in d3.batch(2).unbatch()] == [[[1, 1]], [], [[0, 0]]]
    assert list(d3.map(lambda x: tf.sparse.to_dense(x)).as_numpy_iterator())[0].tolist() == [[0, 0], [0, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Rank of input SparseTensor should be > 1, but saw "
                                                             "rank: 1"):
        tf.data.Dataset.from_tensor_slices(tf.SparseTensor([[1], [3]], [10., 30.], [4]))
