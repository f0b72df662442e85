"""Normalization, CategoryEncoding, StringLookup, IntegerLookup, TextVectorization against tf_keras 2.21
(expected values recorded from it)."""
import numpy as np
import pytest

import rivulet as tf

L = tf.keras.layers
TEXTS = ["The cat sat.", "the DOG, the cat!", "a bird"]


def test_string_lookup_adapt_orders_by_frequency_then_descending_token():
    s = L.StringLookup()
    s.adapt(["a", "b", "b", "c", "c", "d", "e", "e", "e"])
    assert s.get_vocabulary() == ["[UNK]", "e", "c", "b", "d", "a"]
    out = s(tf.constant([["a", "z"], ["e", "c"]]))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [[5, 0], [1, 2]]
    assert s.get_config()["vocabulary_size"] == 6


def test_string_lookup_modes_and_invert():
    s = L.StringLookup(vocabulary=["x", "y"], mask_token="", output_mode="multi_hot")
    assert s.get_vocabulary() == ["[UNK]", "x", "y"]  # outside "int" mode the mask token has no column
    np.testing.assert_array_equal(s(tf.constant([["x", "q"], ["", ""]])).numpy(), [[1, 1, 0], [0, 0, 0]])
    inv = L.StringLookup(vocabulary=["x", "y"], invert=True)
    assert inv(tf.constant([0, 1, 2])).numpy().tolist() == [b"[UNK]", b"x", b"y"]
    masked = L.StringLookup(vocabulary=["x", "y"], mask_token="")
    assert masked(["", "y", "w"]).numpy().tolist() == [0, 3, 1]
    with pytest.raises(ValueError, match="repeated"):
        L.StringLookup(vocabulary=["x", "x"])


def test_integer_lookup():
    i = L.IntegerLookup()
    i.adapt([5, 5, 7, 9, 9, 9, 1])
    assert i.get_vocabulary() == [-1, 9, 5, 7, 1]
    assert i(tf.constant([5, 9, 100])).numpy().tolist() == [2, 1, 0]
    one_hot = L.IntegerLookup(vocabulary=[12, 36], output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(tf.constant([12, 36, 5])).numpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])


def test_text_vectorization():
    t = L.TextVectorization()
    t.adapt(TEXTS)
    assert t.get_vocabulary() == ["", "[UNK]", "the", "cat", "sat", "dog", "bird", "a"]
    out = t(["the cat and a dog", "sat"])
    assert out.dtype == tf.int64 and out.numpy().tolist() == [[2, 3, 1, 7, 5], [4, 0, 0, 0, 0]]
    t2 = L.TextVectorization(max_tokens=5, output_sequence_length=4)
    t2.adapt(TEXTS)
    assert t2.get_vocabulary() == ["", "[UNK]", "the", "cat", "sat"]
    assert t2(["the cat and a dog dog", "sat"]).numpy().tolist() == [[2, 3, 1, 1], [4, 0, 0, 0]]
    assert t2.get_config()["output_sequence_length"] == 4
    multi = L.TextVectorization(output_mode="multi_hot", vocabulary=["cat", "dog"])
    np.testing.assert_array_equal(multi(["cat cat bird"]).numpy(), [[1, 1, 0]])
    count = L.TextVectorization(output_mode="count", vocabulary=["cat", "dog"])
    np.testing.assert_array_equal(count(["cat cat bird"]).numpy(), [[1, 2, 0]])

    @tf.function
    def f(x):
        return t2(x)
    assert f(tf.constant(["the cat and a dog dog", "sat"])).numpy().tolist() == [[2, 3, 1, 1], [4, 0, 0, 0]]


def test_text_vectorization_feeds_a_model():
    vec = L.TextVectorization(output_sequence_length=3)
    vec.adapt(TEXTS)
    model = tf.keras.Sequential([vec, L.Embedding(10, 2), L.GlobalAveragePooling1D(), L.Dense(1)])
    assert model(tf.constant(["the cat", "a bird sat"])).shape == (2, 1)


def test_category_encoding():
    np.testing.assert_array_equal(L.CategoryEncoding(num_tokens=4, output_mode="one_hot")([3, 2, 0]).numpy(),
                                  [[0, 0, 0, 1], [0, 0, 1, 0], [1, 0, 0, 0]])
    ids = [[0, 1], [0, 0], [1, 2], [3, 1]]
    np.testing.assert_array_equal(L.CategoryEncoding(num_tokens=4, output_mode="multi_hot")(ids).numpy(),
                                  [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]])
    weights = np.array([[.1, .2], [.1, .1], [.2, .3], [.4, .2]])
    np.testing.assert_allclose(L.CategoryEncoding(num_tokens=4, output_mode="count")(ids, count_weights=weights),
                               [[.1, .2, 0, 0], [.2, 0, 0, 0], [0, .2, .3, 0], [0, .2, 0, .4]], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="0 <= values < num_tokens with num_tokens=4"):
        L.CategoryEncoding(num_tokens=4)([[5]])


def test_normalization():
    n = L.Normalization()
    n.adapt(np.array([[1., 2], [3, 4], [5, 9]]))
    mean, var, count = n.get_weights()
    np.testing.assert_allclose(mean, [3, 5])
    np.testing.assert_allclose(var, [2.6666667, 8.666667], rtol=1e-6)
    assert count == 3
    np.testing.assert_allclose(n(np.array([[1., 2]])).numpy(), [[-1.2247448, -1.0190493]], rtol=1e-6)
    whole = L.Normalization(axis=None)
    whole.adapt(iter([np.array([[1., 2], [3, 4]]), np.array([[5., 9]])]))  # batches, as from a dataset
    np.testing.assert_allclose([w for w in whole.get_weights()], [4.0, 6.6666665, 6], rtol=1e-6)
    np.testing.assert_allclose(whole(np.array([[1., 2]])).numpy(), [[-1.161895, -0.7745967]], rtol=1e-6)
    fixed = L.Normalization(mean=2., variance=4.)
    np.testing.assert_allclose(fixed(np.array([[1., 2]])).numpy(), [[-0.5, 0]])
    assert fixed.get_weights() == []
    np.testing.assert_allclose(L.Normalization(invert=True, mean=2., variance=4.)(np.array([[1., 2]])).numpy(),
                               [[4, 6]])
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        L.Normalization(mean=1.)
