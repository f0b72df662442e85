"""tf.RaggedTensor, tf.ragged and the tf.strings ops returning ragged results, against TensorFlow 2.21
(printed forms and values recorded from it)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


def _digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def test_constant_printing_and_properties():
    d = _digits()
    assert str(d) == repr(d) == "<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], []]>"
    assert d.shape.as_list() == [5, None] and d.dtype == tf.int32 and d.ragged_rank == 1
    assert d.row_splits.numpy().tolist() == [0, 4, 4, 7, 8, 8] and d.row_splits.dtype == tf.int64
    assert d.flat_values.numpy().tolist() == [3, 1, 4, 1, 5, 9, 2, 6]
    assert d.row_lengths().numpy().tolist() == [4, 0, 3, 1, 0] and d.nrows().numpy() == 5
    assert d.value_rowids().numpy().tolist() == [0, 0, 0, 0, 2, 2, 2, 3]
    assert d.bounding_shape().numpy().tolist() == [5, 4]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert str(nested) == "<tf.RaggedTensor [[[1, 2], [3]], [[4, 5, 6]]]>"
    assert nested.shape.as_list() == [2, None, None] and nested.ragged_rank == 2
    assert str(tf.ragged.constant([[1., 2.], [3.]])) == "<tf.RaggedTensor [[1.0, 2.0], [3.0]]>"
    assert str(tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])) == \
        "<tf.RaggedTensor [[b'So', b'long'], [b'thanks', b'for', b'all', b'the', b'fish']]>"
    assert str(abs(tf.ragged.constant([[-1.5], [2.]]))) == "<tf.RaggedTensor [[1.5],\n [2.0]]>"  # as TF prints it


def test_factories_and_conversions():
    vals = [3, 1, 4, 1, 5, 9, 2]
    want = [[3, 1, 4, 1], [], [5, 9, 2]]
    assert tf.RaggedTensor.from_row_lengths(vals, [4, 0, 3]).to_list() == want
    assert tf.RaggedTensor.from_row_splits(vals, [0, 4, 4, 7]).to_list() == want
    assert tf.RaggedTensor.from_value_rowids(vals, [0, 0, 0, 0, 2, 2, 2], nrows=4).to_list() == want + [[]]
    assert tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0).to_list() == [[1, 2], [3]]
    assert tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]).to_list() == [[1], [3, 0, 0]]
    d = _digits()
    assert d.to_tensor().numpy().tolist() == [[3, 1, 4, 1], [0, 0, 0, 0], [5, 9, 2, 0], [6, 0, 0, 0],
                                              [0, 0, 0, 0]]
    assert d.to_tensor(default_value=-1, shape=[5, 3]).numpy().tolist() == [[3, 1, 4], [-1, -1, -1], [5, 9, 2],
                                                                            [6, -1, -1], [-1, -1, -1]]
    assert tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]).to_tensor().numpy().tolist() == \
        [[[1, 2, 0], [3, 0, 0]], [[4, 5, 6], [0, 0, 0]]]
    assert d[0].numpy().tolist() == [3, 1, 4, 1] and d[2, 1].numpy() == 9 and d[1:3].to_list() == [[], [5, 9, 2]]
    with pytest.raises(InvalidArgumentError, match="do not form a valid RaggedTensor"):
        tf.RaggedTensor.from_row_splits([1, 2], [0, 3])
    with pytest.raises(ValueError, match="RaggedTensor constructor is private"):
        tf.RaggedTensor([1], [0, 1])


def test_ops_dispatch_on_ragged():
    d = _digits()
    assert tf.add(d, 3).to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert (d + 3).to_list() == (3 + d).to_list() == tf.add(d, 3).to_list()
    assert (d * d).to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]
    assert tf.ragged.map_flat_values(tf.math.square, d).to_list() == (d * d).to_list()
    assert tf.cast(d, tf.float32).dtype == tf.float32
    np.testing.assert_array_equal(tf.reduce_mean(d, axis=1).numpy(), [2.25, np.nan, 16 / 3, 6., np.nan])
    assert tf.reduce_mean(d, axis=1).dtype == tf.float64
    assert tf.reduce_sum(d, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert tf.reduce_max(d, axis=1).numpy().tolist() == [4, -2147483648, 9, 6, -2147483648]
    assert tf.reduce_sum(d).numpy() == 31
    assert tf.concat([d, [[5, 3]]], axis=0).to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [5, 3]]
    with pytest.raises(InvalidArgumentError, match="Condition x == y did not hold"):
        d + tf.ragged.constant([[1], [2], [3], [4], [5]])
    with pytest.raises(TypeError, match="RaggedTensor may not be used as a boolean"):
        bool(d)
    with pytest.raises(ValueError):  # a ragged list is no dense tensor
        tf.constant([[0, 1, 2, 3], [4, 5]])


def test_ragged_tensor_as_tf_function_argument():
    seen = []

    @tf.function
    def f(rt):
        seen.append(str(rt))
        return tf.reduce_sum(rt, axis=1)

    assert f(tf.ragged.constant([[1, 2], [3]])).numpy().tolist() == [3, 3]
    assert f(tf.ragged.constant([[4], [5, 6]])).numpy().tolist() == [4, 11]
    assert f.experimental_get_tracing_count() == 1
    assert seen == ['tf.RaggedTensor(values=Tensor("rt:0", shape=(None,), dtype=int32), row_splits=Tensor('
                    '"rt_1:0", shape=(3,), dtype=int64))']
    assert f(tf.ragged.constant([[1], [2], [3]])).numpy().tolist() == [1, 2, 3]
    assert f.experimental_get_tracing_count() == 2
    assert "rt (POSITIONAL_OR_KEYWORD): RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)" in \
        str(f.get_concrete_function(tf.ragged.constant([[1, 2], [3]])))


def test_strings_returning_ragged():
    s = tf.strings.split(tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"]))
    assert str(s) == "<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>"
    assert tf.strings.split(tf.constant("1 10 100"), " ").numpy().tolist() == [b"1", b"10", b"100"]
    assert str(tf.strings.to_number(tf.strings.split(tf.constant(["1 10", "100"])))) == \
        "<tf.RaggedTensor [[1.0, 10.0], [100.0]]>"
    assert tf.strings.bytes_split(tf.constant("Duck")).numpy().tolist() == [b"D", b"u", b"c", b"k"]
    assert tf.strings.bytes_split(tf.constant(["ab", "c"])).to_list() == [[b"a", b"b"], [b"c"]]
    u = tf.constant("アヒル 🦆")
    assert tf.strings.unicode_split(u, "UTF-8").numpy().tolist() == [
        b"\xe3\x82\xa2", b"\xe3\x83\x92", b"\xe3\x83\xab", b" ", b"\xf0\x9f\xa6\x86"]
    assert tf.strings.unicode_decode(u, "UTF-8").numpy().tolist() == [12450, 12498, 12523, 32, 129414]
    assert str(tf.strings.unicode_decode(tf.constant(["ab", "é"]), "UTF-8")) == "<tf.RaggedTensor [[97, 98], [233]]>"
    assert tf.strings.regex_replace(tf.constant(["hello world", "foo"]), "o+", "0").numpy().tolist() == \
        [b"hell0 w0rld", b"f0"]
    assert tf.strings.ngrams(tf.constant(["a", "b", "c", "d"]), 2).numpy().tolist() == [b"a b", b"b c", b"c d"]
    assert str(tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]), 2)) == \
        "<tf.RaggedTensor [[b'a b', b'b c'], []]>"


def test_tf_function_returns_ragged_and_sparse():
    @tf.function
    def f(x):
        return tf.ragged.map_flat_values(tf.math.square, x), tf.sparse.from_dense(tf.constant([[0, 1], [2, 0]]))

    r, s = f(tf.ragged.constant([[1, 2], [3]]))
    assert isinstance(r, tf.RaggedTensor) and r.to_list() == [[1, 4], [9]]
    assert isinstance(s, tf.SparseTensor) and tf.sparse.to_dense(s).numpy().tolist() == [[0, 1], [2, 0]]
    assert "Tuple[RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64), SparseTensorSpec(" in \
        str(f.get_concrete_function(tf.ragged.constant([[1, 2], [3]])))


def test_column_slices_tile_and_string_dispatch():
    d = _digits()
    assert d[:, :2].to_list() == [[3, 1], [], [5, 9], [6], []]
    assert d[:, -2:].to_list() == [[4, 1], [], [9, 2], [6], []]
    assert d[1:, 1:3].to_list() == [[], [9, 2], [], []]
    assert tf.tile(d, [1, 2]).to_list() == [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert tf.strings.substr(words, 0, 2).to_list() == [[b"So", b"lo"], [b"th", b"fo", b"al", b"th", b"fi"]]
    assert (d * 2 + 1).to_list() == [[7, 3, 9, 3], [], [11, 19, 5], [13], []]

    @tf.function
    def f(r):
        return r[:, -2:], tf.tile(r, [2, 1])
    a, b = f(tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2]]))
    assert a.to_list() == [[4, 1], [], [9, 2]]
    assert b.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [3, 1, 4, 1], [], [5, 9, 2]]
