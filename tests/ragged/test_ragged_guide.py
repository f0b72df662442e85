"""What TensorFlow's RaggedTensor guide (site/en/guide/ragged_tensor.ipynb) does with RaggedTensors: values and
printed forms recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def _digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def _rt3():
    return tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])


# -------------------------------------------------------------------- factories and conversions
def test_from_row_splits_with_ragged_values():
    inner = tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                            row_splits=[0, 3, 3, 5, 9, 10])
    rt = tf.RaggedTensor.from_row_splits(values=inner, row_splits=[0, 1, 1, 5])
    assert str(rt) == "<tf.RaggedTensor [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]>"
    assert rt.shape.as_list() == [3, None, None] and rt.ragged_rank == 2
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits(values=inner, row_splits=[0, 1, 4])  # 5 rows, not 4


def test_from_uniform_row_length():
    rt = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    assert str(rt) == "<tf.RaggedTensor [[[10, 11, 12], [13, 14]],\n [[15, 16, 17, 18], [19]]]>"
    assert rt.shape.as_list() == [2, 2, None] and rt.ragged_rank == 2
    assert rt.row_splits.numpy().tolist() == [0, 2, 4] and int(rt.uniform_row_length) == 2
    with pytest.raises(ValueError, match="uniform_row_length=2 times nrows=1 must equal nvals=3"):
        tf.RaggedTensor.from_uniform_row_length([1, 2, 3], 2)


def test_to_sparse_and_from_sparse():
    s = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']]).to_sparse()
    assert isinstance(s, tf.SparseTensor)
    assert s.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2], [1, 3], [2, 0], [2, 1]]
    assert s.values.numpy().tolist() == [b'Hi', b'Welcome', b'to', b'the', b'fair', b'Have', b'fun']
    assert s.dense_shape.numpy().tolist() == [3, 4]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]).to_sparse()
    assert nested.indices.numpy().tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]]
    assert nested.dense_shape.numpy().tolist() == [2, 2, 3]
    st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=['a', 'b', 'c'], dense_shape=[3, 3])
    assert str(tf.RaggedTensor.from_sparse(st)) == "<tf.RaggedTensor [[b'a'], [], [b'b', b'c']]>"
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    dense = tf.sparse.to_dense(tf.sparse.concat(sp_inputs=[x.to_sparse(), y.to_sparse()], axis=1), '')
    assert dense.numpy().tolist() == [[b'John', b'', b'', b'fell', b'asleep'], [b'a', b'big', b'dog', b'barked', b''],
                                      [b'my', b'cat', b'', b'is', b'fuzzy']]


# -------------------------------------------------------------------- indexing
def test_row_and_column_slices_with_steps():
    d = _digits()
    assert d[:, ::-1].to_list() == [[1, 4, 1, 3], [], [2, 9, 5], [6], []]
    assert d[::2].to_list() == [[3, 1, 4, 1], [5, 9, 2], []]
    assert d[:, 1::2].to_list() == [[1, 1], [], [9], [], []]
    assert d[-2:].to_list() == [[6], []] and d[-1].numpy().tolist() == []
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        d[:, 0]
    with pytest.raises(IndexError, match="Row key 10 out of bounds"):
        d[10]


def test_slices_of_ragged_rank_2():
    rt = _rt3()
    assert str(rt[:, 1:3]) == "<tf.RaggedTensor [[[4]], [[], [6]], [], [[10]]]>"
    assert str(rt[:, -1:]) == "<tf.RaggedTensor [[[4]],\n\n [[6]],\n\n [[7]],\n\n [[10]]]>"
    assert rt[:, :, 1:].to_list() == [[[2, 3], []], [[], [], []], [[]], [[9], []]]
    assert rt[:, ::-1].to_list() == [[[4], [1, 2, 3]], [[6], [], [5]], [[7]], [[10], [8, 9]]]
    assert rt[1].to_list() == [[5], [], [6]] and rt[3, 0].numpy().tolist() == [8, 9]


def test_slicing_in_a_function():
    @tf.function
    def f(rt, i):
        return rt[i], rt[:, 1:]
    row, cut = f(_digits(), tf.constant(2))
    assert row.numpy().tolist() == [5, 9, 2] and cut.to_list() == [[1, 4, 1], [], [9, 2], [], []]


# -------------------------------------------------------------------- ops
def test_concat_along_rows_and_columns():
    d = _digits()
    assert str(tf.concat([d, [[5, 3]]], axis=0)) == "<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [5, 3]]>"
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    assert str(tf.concat([x, y], axis=1)) == ("<tf.RaggedTensor [[b'John', b'fell', b'asleep'], "
                                              "[b'a', b'big', b'dog', b'barked'],\n [b'my', b'cat', b'is', b'fuzzy']]>")
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert tf.concat([nested, nested], 0).to_list() == [[[1, 2], [3]], [[4, 5, 6]], [[1, 2], [3]], [[4, 5, 6]]]
    assert tf.concat([nested, nested], 1).to_list() == [[[1, 2], [3], [1, 2], [3]], [[4, 5, 6], [4, 5, 6]]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input tensors at index 0 \\(=x\\) and 1 \\(=y\\) have "
                                                             "incompatible shapes"):
        tf.concat([d, tf.ragged.constant([[1]])], axis=1)
    with pytest.raises(ValueError, match="axis=2 out of bounds: expected -2<=axis<2"):
        tf.concat([d, d], axis=2)
    assert tf.concat([d, d], axis=-1).to_list() == [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]


def test_reverse_and_palindrome_in_a_function():
    d = _digits()
    assert tf.reverse(d, [1]).to_list() == [[1, 4, 1, 3], [], [2, 9, 5], [6], []]
    assert tf.reverse(d, [0]).to_list() == [[], [6], [5, 9, 2], [], [3, 1, 4, 1]]

    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)
    out = make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
    assert str(out) == "<tf.RaggedTensor [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]>"


def test_broadcasting_across_row_partitions():
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert str(x + [[1000], [2000], [3000]]) == "<tf.RaggedTensor [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]>"
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert str(x + tf.constant([[10]])) == "<tf.RaggedTensor [[[11, 12],\n  [13, 14],\n  [15, 16]], [[17, 18]]]>"
    x = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    assert (x + tf.constant([10, 20, 30])).to_list() == [
        [[[11, 21, 31], [12, 22, 32]], [], [[13, 23, 33]], [[14, 24, 34]]], [[[15, 25, 35], [16, 26, 36]],
                                                                            [[17, 27, 37]]]]
    x = tf.ragged.constant([[1, 2], [3, 4, 5]])
    assert (x + tf.constant([[1], [2]])).to_list() == [[2, 3], [5, 6, 7]] and (x * [2]).to_list() == [[2, 4], [6, 8, 10]]
    with pytest.raises(tf.errors.InvalidArgumentError):  # trailing dimensions do not match
        tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    ok = tf.ragged.constant([[1, 2], [3, 4]]) + tf.constant([[10, 20], [30, 40]])  # row lengths agree
    assert ok.to_list() == [[11, 22], [33, 44]]


def test_word_and_bigram_embeddings():
    queries = tf.ragged.constant([['Who', 'is', 'Dan', 'Smith'], ['Pause'], ['Will', 'it', 'rain', 'later', 'today']])
    buckets = tf.strings.to_hash_bucket_fast(queries, 1024)
    assert str(buckets) == "<tf.RaggedTensor [[633, 768, 237, 309], [28], [847, 998, 635, 20, 547]]>"
    table = tf.reshape(tf.range(4096.), [1024, 4])
    emb = tf.nn.embedding_lookup(table, buckets)
    assert emb.shape.as_list() == [3, None, 4] and emb[1].numpy().tolist() == [[112., 113., 114., 115.]]
    marker = tf.fill([queries.nrows(), 1], '#')
    padded = tf.concat([marker, queries, marker], axis=1)
    bigrams = tf.strings.join([padded[:, :-1], padded[:, 1:]], separator='+')
    assert str(bigrams) == ("<tf.RaggedTensor [[b'#+Who', b'Who+is', b'is+Dan', b'Dan+Smith', b'Smith+#'],\n"
                            " [b'#+Pause', b'Pause+#'],\n"
                            " [b'#+Will', b'Will+it', b'it+rain', b'rain+later', b'later+today',\n"
                            "  b'today+#']                                                      ]>")
    r = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(8.), [4, 2]), [3, 1])
    assert tf.reduce_mean(r, axis=1).numpy().tolist() == [[2., 3.], [6., 7.]]
    assert tf.reduce_sum(r, axis=2).to_list() == [[1., 5., 9.], [13.]]


# -------------------------------------------------------------------- DynamicRaggedShape
def test_shape_of_a_ragged_tensor():
    rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    rt_shape = tf.shape(rt)
    assert str(rt_shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    x = tf.constant([['a', 'b'], ['c', 'd'], ['e', 'f']])
    assert str(tf.reshape(x, rt_shape)) == "<tf.RaggedTensor [[b'a'], [b'b', b'c', b'd'], [], [b'e', b'f']]>"
    assert str(tf.zeros(rt_shape)) == "<tf.RaggedTensor [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]]>"
    assert str(tf.ones(rt_shape, dtype=tf.int32)) == "<tf.RaggedTensor [[1], [1, 1, 1], [], [1, 1]]>"
    assert str(tf.fill(rt_shape, 'x')) == "<tf.RaggedTensor [[b'x'], [b'x', b'x', b'x'], [], [b'x', b'x']]>"
    assert repr(rt_shape[0]) == "<tf.Tensor: shape=(), dtype=int32, numpy=4>"
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        rt_shape[1]
    assert str(rt_shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    nested = tf.shape(tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]))
    assert str(nested) == "<DynamicRaggedShape lengths=[2, (2, 1), (2, 1, 3)] num_row_partitions=2>"


def test_experimental_dynamic_ragged_shape_and_row_partition():
    p = tf.experimental.RowPartition.from_row_lengths([5, 3, 2])
    assert repr(p) == "tf.RowPartition(row_splits=[ 0  5  8 10])"
    assert p.nrows().numpy() == 3 and p.nvals().numpy() == 10 and p.uniform_row_length() is None
    assert p.value_rowids().numpy().tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 2, 2]
    s = tf.experimental.DynamicRaggedShape(row_partitions=[p], inner_shape=[10, 8])
    assert repr(s) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    assert s.rank == 3 and s.num_row_partitions == 1 and s.inner_shape.numpy().tolist() == [10, 8]
    s2 = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert repr(s2) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert s2.inner_shape.numpy().tolist() == [11, 12] and int(s2[2]) == 12 and int(s2[0]) == 4
    assert repr(tf.experimental.DynamicRaggedShape.from_lengths([2, 3])) == \
        "<DynamicRaggedShape lengths=[2, 3] num_row_partitions=0>"


# -------------------------------------------------------------------- tf.function signatures
def test_ragged_tensor_spec_in_input_signature():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return (tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1))
    hi, lo = max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert repr(hi) == "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([2, 3, 6], dtype=int32)>"
    assert lo.numpy().tolist() == [1, 3, 4]
    max_and_min(tf.ragged.constant([[7], [8, 9]]))  # another shape: the same graph
    assert len(max_and_min._list_all_concrete_functions()) == 1
    with pytest.raises(TypeError):
        max_and_min(tf.ragged.constant([[1.5]]))


def test_get_concrete_function_of_a_ragged_tensor_spec():
    class CustomModule(tf.Module):
        def __init__(self, variable_value):
            super().__init__()
            self.v = tf.Variable(variable_value)

        @tf.function
        def grow(self, x):
            return x * self.v
    module = CustomModule(100.0)
    cf = module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    assert str(cf(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))) == "<tf.RaggedTensor [[100.0, 400.0, 300.0], [200.0]]>"


def test_stack_gather_expand_dims_where_size_rank():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert str(tf.stack([rt, rt])) == "<tf.RaggedTensor [[[1, 2], [3]], [[1, 2], [3]]]>"
    assert tf.stack([rt, rt]).shape.as_list() == [2, None, None]
    assert tf.ragged.stack([rt, [[5]]]).to_list() == [[[1, 2], [3]], [[5]]]
    assert str(tf.gather(rt, [1, 0])) == "<tf.RaggedTensor [[3], [1, 2]]>" and tf.gather(rt, 1).numpy().tolist() == [3]
    e1 = tf.expand_dims(rt, 1)
    assert str(e1) == "<tf.RaggedTensor [[[1, 2]],\n [[3]]]>" and e1.shape.as_list() == [2, 1, None]
    assert str(tf.expand_dims(rt, 0)) == "<tf.RaggedTensor [[[1, 2], [3]]]>"
    assert tf.expand_dims(rt, 2).to_list() == [[[1], [2]], [[3]]]
    assert tf.where(rt > 1).numpy().tolist() == [[0, 1], [1, 0]]
    assert str(tf.where(rt > 1, rt, rt * 0)) == "<tf.RaggedTensor [[0, 2], [3]]>"
    assert repr(tf.size(rt)) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>" and int(tf.rank(rt)) == 2
    with pytest.raises(ValueError, match="Attempt to convert a value"):  # no implicit conversion to a tensor
        tf.convert_to_tensor(rt)
