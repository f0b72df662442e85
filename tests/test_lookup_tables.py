"""tf.lookup static tables; values recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def _vocab_table():
    init = tf.lookup.KeyValueTensorInitializer(["x", "y"], tf.constant([0, 1], tf.int64))
    return tf.lookup.StaticVocabularyTable(init, 5)


def test_static_vocabulary_table_hashes_unknown_keys_as_tensorflow():
    table = _vocab_table()
    np.testing.assert_array_equal(table.lookup(tf.constant(["x", "hello", "world", "y", "z"])).numpy(), [0, 3, 5, 1, 4])
    assert int(table.size()) == 7
    ints = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([7, 9], tf.int64), tf.constant([0, 1], tf.int64)), 5)
    np.testing.assert_array_equal(ints.lookup(tf.constant([7, 8, 9, 100, 12345], tf.int64)).numpy(), [0, 4, 1, 2, 5])
    assert table.lookup(tf.ragged.constant([["x", "q"], ["y"]])).to_list() == [[0, 5], [1]]


def test_load_data_text_vocab_table_layer():
    class MyVocabTable(tf.keras.layers.Layer):
        def __init__(self, vocab):
            super().__init__()
            self.keys = [""] + vocab
            self.values = range(len(self.keys))
            self.init = tf.lookup.KeyValueTensorInitializer(self.keys, self.values, key_dtype=tf.string,
                                                            value_dtype=tf.int64)
            self.table = tf.lookup.StaticVocabularyTable(self.init, 1)

        def call(self, x):
            return self.table.lookup(x)

    out = MyVocabTable(["a", "b", "c"])(tf.constant([""] + list("abcdefghi")))
    assert out.dtype == tf.int64
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2, 3, 4, 4, 4, 4, 4, 4])


def test_static_hash_table_in_functions_datasets_and_saved_models(tmp_path):
    h = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1.5, 2.5]), -1.0)
    got = h.lookup(tf.constant([["a", "q"], ["b", "a"]]))
    assert got.dtype == tf.float32 and int(h.size()) == 2 and float(h[tf.constant("b")]) == 2.5
    np.testing.assert_array_equal(got.numpy(), [[1.5, -1.0], [2.5, 1.5]])
    np.testing.assert_array_equal(tf.function(lambda x: h.lookup(x) * 2)(tf.constant(["a", "zz"])).numpy(), [3.0, -2.0])
    table = _vocab_table()
    ds = tf.data.Dataset.from_tensor_slices(["x", "b", "y"]).map(table.lookup)
    assert list(ds.as_numpy_iterator()) == [0, 4, 1]
    m = tf.Module()
    m.f = tf.function(lambda x: table.lookup(x), input_signature=[tf.TensorSpec([None], tf.string)])
    tf.saved_model.save(m, str(tmp_path / "sm"))
    np.testing.assert_array_equal(tf.saved_model.load(str(tmp_path / "sm")).f(tf.constant(["y", "hello"])).numpy(),
                                  [1, 3])
    keys, values = h.export()
    assert keys.numpy().tolist() == [b"a", b"b"] and values.numpy().tolist() == [1.5, 2.5]


def test_errors_match_tensorflow():
    h = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1.5]), -1.0)
    with pytest.raises(TypeError, match=r"^Dtype of argument `keys` must be <dtype: 'string'>, received: "
                                        r"<dtype: 'int32'>$"):
        h.lookup(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"^Invalid `value_dtype`, expected <dtype: 'int64'> but got "
                                        r"<dtype: 'float32'>\.$"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["x"], [1.0]), 1)
    with pytest.raises(ValueError, match=r"^`num_oov_buckets` must be > 0; use StaticHashTable\.$"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["x"], tf.constant([1], tf.int64)), 0)
