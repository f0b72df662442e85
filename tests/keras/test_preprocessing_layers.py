"""Keras preprocessing and augmentation layers as tf_keras 2.21 has them: lookup layers' `.keras` round trips,
FarmHash Fingerprint64 (Hashing, HashedCrossing, tf.strings.to_hash_bucket_*), ImageProjectiveTransformV3 and
the augmentation layers built on it, Resizing/CenterCrop/RandomCrop, Discretization. Expected values are
TensorFlow's (its docstrings and docs) or follow from its definitions."""
import numpy as np
import pytest

import rivulet as tf

L = tf.keras.layers


# ============================================================================ lookup layers reload
def _reloaded(layer, inp, x, tmp_path):
    model = tf.keras.Model(inp, layer(inp))
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(again(x).numpy(), model(x).numpy())
    return again


def test_string_lookup_model_reloads_its_keras_file(tmp_path):
    pytest.importorskip("h5py")
    s = L.StringLookup()
    s.adapt(np.array(["a", "b", "b"]))
    m = _reloaded(s, tf.keras.Input(shape=(1,), dtype="string"), tf.constant([["a"], ["b"], ["z"]]), tmp_path)
    assert m.layers[1].get_vocabulary() == ["[UNK]", "b", "a"]
    assert m.layers[1].get_config()["vocabulary_size"] == 3


def test_integer_lookup_and_text_vectorization_reload(tmp_path):
    pytest.importorskip("h5py")
    _reloaded(L.IntegerLookup(vocabulary=[3, 4, 5], output_mode="one_hot"), tf.keras.Input(shape=(1,), dtype="int64"),
              tf.constant([[3], [9]], dtype=tf.int64), tmp_path)
    t = L.TextVectorization(max_tokens=10, output_sequence_length=3)
    t.adapt(np.array(["a b", "b c d"]))
    _reloaded(t, tf.keras.Input(shape=(1,), dtype="string"), tf.constant([["a d"], ["z b"]]), tmp_path)


def test_lookup_from_config_drops_tf_keras_saver_keys():
    cfg = L.StringLookup(vocabulary=["x", "y"]).get_config()
    cfg.update(vocabulary_size=3, has_input_vocabulary=True, has_static_table=True)
    assert L.StringLookup.from_config(cfg).get_vocabulary() == ["[UNK]", "x", "y"]


# ============================================================================ FarmHash and friends
# FarmHash Fingerprint64 (farmhashna::Hash64) of strings of every length class (0-16, 17-32, 33-64, longer:
# one and several 64-byte blocks), from FarmHash's published test table (go-farm's farmhash_test.go, column
# "oh64na").
FARMHASH_VECTORS = {
    "": 0x9AE16A3B2F90404F,
    "a": 0xB3454265B6DF75E3,
    "abcd": 0x1A5502DE4A1F8101,
    "abcdefgh": 0xFEE9D22990C82909,
    "0123456789=012345": 0x46A7416ED4861E3B,
    "C is as portable as Stonehedge!!": 0xB944F8A16261E414,
    "Discard medicine more than two years old.": 0xE8F89AB6DF9BDD25,
    "For every action there is an equal and opposite government program.": 0x55182F8859ECA4CE,
    "The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole "
    "fraction.  Lewis-Randall Rule": 0x098EFF6958C5E91A,
}


def test_fingerprint64_matches_farmhash_test_vectors():
    from rivulet.ops.fingerprint import fingerprint64
    for text, want in FARMHASH_VECTORS.items():
        assert fingerprint64(text) == want, text


def test_siphash_reference_vectors():
    from rivulet.ops.fingerprint import siphash24
    k0, k1 = int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24(k0, k1, b"") == 0x726FDB47DD0E0E31  # the SipHash paper's vectors, key 00..0f
    assert siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5


def test_to_hash_bucket_fast_and_strong_as_tensorflow_docs():
    out = tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [0, 2, 2]
    assert tf.strings.to_hash_bucket_strong(["Hello", "TF"], 3, [1, 2]).numpy().tolist() == [2, 0]
    f = tf.function(lambda x: tf.strings.to_hash_bucket_fast(x, 3))
    assert f(tf.constant([["Hello"], ["2.x"]])).numpy().tolist() == [[0], [2]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
        tf.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
        tf.strings.to_hash_bucket_strong(["a"], 3, [1])


def test_hashing_layer_docstring_examples():
    inp = [["A"], ["B"], ["C"], ["D"], ["E"]]
    out = L.Hashing(num_bins=3)(inp)
    assert out.dtype == tf.int64 and out.shape == (5, 1) and out.numpy().ravel().tolist() == [1, 0, 1, 1, 2]
    masked = L.Hashing(num_bins=3, mask_value="")([["A"], ["B"], [""], ["C"], ["D"]])
    assert masked.numpy().ravel().tolist() == [1, 1, 0, 2, 2]
    assert L.Hashing(num_bins=3, salt=[133, 137])(inp).numpy().ravel().tolist() == [1, 2, 1, 0, 2]
    assert L.Hashing(num_bins=3, salt=133)(inp).numpy().ravel().tolist() == [0, 0, 2, 1, 0]


def test_hashing_integers_hash_their_text_and_modes():
    from rivulet.ops.fingerprint import fingerprint64
    out = L.Hashing(num_bins=7)(tf.constant([[12], [-3]], dtype=tf.int64))
    assert out.numpy().ravel().tolist() == [fingerprint64("12") % 7, fingerprint64("-3") % 7]
    hot = L.Hashing(num_bins=3, output_mode="one_hot")(tf.constant(["A", "B"]))
    np.testing.assert_array_equal(hot.numpy(), [[0, 1, 0], [1, 0, 0]])
    assert hot.dtype == tf.float32
    with pytest.raises(ValueError, match="num_bins"):
        L.Hashing(num_bins=0)
    with pytest.raises(ValueError, match="salt"):
        L.Hashing(num_bins=3, salt="x")
    cfg = L.Hashing(num_bins=3, salt=133, mask_value="").get_config()
    assert cfg["salt"] == [133, 133] and cfg["num_bins"] == 3
    assert L.Hashing.from_config(cfg)(inp := tf.constant([["A"], [""]])).numpy().ravel()[1] == 0 and inp is not None


def test_hashed_crossing_docstring_examples():
    feat1 = tf.constant(["A", "B", "A", "B", "A"])
    feat2 = tf.constant([101, 101, 101, 102, 102])
    out = L.HashedCrossing(num_bins=5)((feat1, feat2))
    assert out.dtype == tf.int64 and out.shape == (5,) and out.numpy().tolist() == [1, 4, 1, 1, 3]
    hot = L.HashedCrossing(num_bins=5, output_mode="one_hot")((feat1, feat2))
    np.testing.assert_array_equal(hot.numpy()[:2], [[0, 1, 0, 0, 0], [0, 0, 0, 0, 1]])
    col = L.HashedCrossing(num_bins=5)((tf.reshape(feat1, [-1, 1]), tf.reshape(feat2, [-1, 1])))
    assert col.shape == (5, 1) and col.numpy().ravel().tolist() == [1, 4, 1, 1, 3]
    with pytest.raises(ValueError, match="at least two inputs"):
        L.HashedCrossing(num_bins=5)((feat1,))
    with pytest.raises(ValueError, match="equal shape"):
        L.HashedCrossing(num_bins=5)((feat1, tf.constant([1, 2])))


def test_hashed_crossing_in_a_functional_model_and_tf_function():
    a = tf.keras.Input(shape=(), dtype="string")
    b = tf.keras.Input(shape=(), dtype="int64")
    model = tf.keras.Model([a, b], L.HashedCrossing(num_bins=5)((a, b)))
    out = model.predict([np.array(["A", "B", "A"], dtype=object), np.array([101, 101, 102])], verbose=0)
    assert out.tolist() == [1, 4, 3]


# ============================================================================ Discretization
def test_discretization_docstring_examples():
    inp = np.array([[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 0.0]])
    out = L.Discretization(bin_boundaries=[0., 1., 2.])(inp)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [[0, 2, 3, 1], [1, 3, 2, 1]]
    layer = L.Discretization(num_bins=4, epsilon=0.01)
    layer.adapt(inp)
    assert layer(inp).numpy().tolist() == [[0, 2, 3, 2], [1, 3, 3, 1]]


def test_discretization_adapt_on_dataset_modes_and_config():
    data = np.arange(100, dtype="float32")
    layer = L.Discretization(num_bins=4)
    layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(25))
    np.testing.assert_allclose(layer.bin_boundaries, [25.0, 50.0, 75.0], atol=1.5)  # approximate quantiles
    on_array = L.Discretization(num_bins=4)
    on_array.adapt(data, batch_size=25)
    assert on_array.bin_boundaries == layer.bin_boundaries
    hot = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")(tf.constant([-1.0, 0.5, 7.0]))
    np.testing.assert_array_equal(hot.numpy(), np.eye(3))
    again = L.Discretization.from_config(layer.get_config())
    np.testing.assert_array_equal(again(data[:5] * 20).numpy(), layer(data[:5] * 20).numpy())
    with pytest.raises(ValueError, match="Both `num_bins` and `bin_boundaries`"):
        L.Discretization(bin_boundaries=[1.0], num_bins=2)
    with pytest.raises(ValueError, match="Cannot adapt"):
        L.Discretization(bin_boundaries=[1.0]).adapt(data)
