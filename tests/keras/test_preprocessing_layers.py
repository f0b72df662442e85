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
    assert tf.strings.to_hash_bucket(["Hello", "TensorFlow", "2.x"], 3).numpy().tolist() == [2, 0, 1]
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


# ============================================================================ ImageProjectiveTransformV3
# tf_keras' image_preprocessing_test: a [1, 5, 3, 1] ramp shifted by one pixel down/up/left/right under each
# fill mode (rows of the expected images).
RAMP = np.arange(15, dtype=np.float32).reshape(1, 5, 3, 1)
SHIFTS = ([1, 0, 0, 0, 1, -1, 0, 0], [1, 0, 0, 0, 1, 1, 0, 0], [1, 0, 1, 0, 1, 0, 0, 0], [1, 0, -1, 0, 1, 0, 0, 0])
EXPECTED_SHIFTS = {
    "REFLECT": ([[0, 1, 2], [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
                [[3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [12, 13, 14]],
                [[1, 2, 2], [4, 5, 5], [7, 8, 8], [10, 11, 11], [13, 14, 14]],
                [[0, 0, 1], [3, 3, 4], [6, 6, 7], [9, 9, 10], [12, 12, 13]]),
    "WRAP": ([[12, 13, 14], [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
             [[3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [0, 1, 2]],
             [[1, 2, 0], [4, 5, 3], [7, 8, 6], [10, 11, 9], [13, 14, 12]],
             [[2, 0, 1], [5, 3, 4], [8, 6, 7], [11, 9, 10], [14, 12, 13]]),
    "NEAREST": ([[0, 1, 2], [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
                [[3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [12, 13, 14]],
                [[1, 2, 2], [4, 5, 5], [7, 8, 8], [10, 11, 11], [13, 14, 14]],
                [[0, 0, 1], [3, 3, 4], [6, 6, 7], [9, 9, 10], [12, 12, 13]]),
    "CONSTANT": ([[1, 1, 1], [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],  # fill_value=1
                 [[3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [1, 1, 1]],
                 [[1, 2, 1], [4, 5, 1], [7, 8, 1], [10, 11, 1], [13, 14, 1]],
                 [[1, 0, 1], [1, 3, 4], [1, 6, 7], [1, 9, 10], [1, 12, 13]]),
}


@pytest.mark.parametrize("fill_mode", sorted(EXPECTED_SHIFTS))
@pytest.mark.parametrize("interpolation", ["BILINEAR", "NEAREST"])
def test_image_projective_transform_v3_fill_modes(fill_mode, interpolation):
    from rivulet.ops.image_transform_ops import image_projective_transform_v3
    for t, want in zip(SHIFTS, EXPECTED_SHIFTS[fill_mode]):
        out = image_projective_transform_v3(RAMP, np.array([t], np.float32), [5, 3], 1.0, interpolation, fill_mode)
        assert out.dtype == tf.float32 and out.shape == (1, 5, 3, 1)
        np.testing.assert_array_equal(out.numpy()[0, :, :, 0], want)


def test_image_projective_transform_v3_bilinear_dtypes_output_shape_and_errors():
    from rivulet.ops.image_transform_ops import image_projective_transform_v3
    img = np.array([[0, 10], [20, 30]], np.uint8).reshape(1, 2, 2, 1)
    half = np.array([[1, 0, 0.5, 0, 1, 0.5, 0, 0]], np.float32)  # read at (x + .5, y + .5)
    out = image_projective_transform_v3(img, half, [2, 2], 0.0, "BILINEAR", "NEAREST")
    assert out.dtype == tf.uint8
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[15, 20], [25, 30]])
    filled = image_projective_transform_v3(img, np.array([[1, 0, 1, 0, 1, 0, 0, 0]], np.float32), [2, 2], 7.9,
                                           "NEAREST", "CONSTANT")  # the fill value is held as the image dtype
    np.testing.assert_array_equal(filled.numpy()[0, :, :, 0], [[10, 7], [30, 7]])
    big = image_projective_transform_v3(RAMP, np.array([[1, 0, 0, 0, 1, 0, 0, 0]], np.float32), [6, 4], 0.0,
                                        "NEAREST", "CONSTANT")
    assert big.shape == (1, 6, 4, 1) and big.numpy()[0, 5].sum() == 0 and big.numpy()[0, 0, :3, 0].tolist() == [0, 1, 2]
    from rivulet.ops.image_transform_ops import image_projective_transform_v2
    v2 = image_projective_transform_v2(RAMP, np.array([SHIFTS[0]], np.float32), [5, 3], "NEAREST", "CONSTANT")
    np.testing.assert_array_equal(v2.numpy()[0, :, :, 0], [[0, 0, 0]] + RAMP[0, :4, :, 0].tolist())  # fills 0
    f = tf.function(lambda x: image_projective_transform_v3(x, half, [2, 2], 0.0, "NEAREST", "REFLECT"))
    assert f(tf.zeros([3, 2, 2, 1])).shape == (3, 2, 2, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_images x 8"):
        image_projective_transform_v3(RAMP, np.zeros((1, 6), np.float32), [5, 3], 0.0, "NEAREST", "CONSTANT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="fill_mode"):
        image_projective_transform_v3(RAMP, half, [5, 3], 0.0, "NEAREST", "MIRROR")


# ============================================================================ augmentation layers
GRID = np.arange(25).reshape(1, 5, 5, 1)


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_random_translation_numeric_as_tf_keras(dtype):
    up = L.RandomTranslation(height_factor=(-0.2, -0.2), width_factor=0.0)(GRID.astype(dtype))
    assert up.dtype == tf.float32
    np.testing.assert_array_equal(up.numpy()[0, :, :, 0], [[5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19],
                                                           [20, 21, 22, 23, 24], [20, 21, 22, 23, 24]])
    down = L.RandomTranslation(height_factor=(0.2, 0.2), width_factor=0.0, fill_mode="constant")(GRID.astype(dtype))
    np.testing.assert_array_equal(down.numpy()[0, :, :, 0], [[0] * 5, [0, 1, 2, 3, 4], [5, 6, 7, 8, 9],
                                                             [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]])


def test_random_rotation_and_zoom_numeric_as_tf_keras():
    rot = L.RandomRotation(factor=(0.5, 0.5))(GRID[0].astype(np.float32))  # unbatched, 180 degrees
    np.testing.assert_allclose(rot.numpy()[:, :, 0], np.arange(25)[::-1].reshape(5, 5), atol=1e-5)
    zin = L.RandomZoom((-0.5, -0.5), (-0.5, -0.5), interpolation="nearest")(GRID)
    np.testing.assert_array_equal(zin.numpy()[0, :, :, 0], [[6, 7, 7, 8, 8], [11, 12, 12, 13, 13],
                                                            [11, 12, 12, 13, 13], [16, 17, 17, 18, 18],
                                                            [16, 17, 17, 18, 18]])
    zout = L.RandomZoom((0.5, 0.5), (0.8, 0.8), fill_mode="constant", interpolation="nearest")(GRID)
    np.testing.assert_array_equal(zout.numpy()[0, :, :, 0], [[0] * 5, [0, 5, 7, 9, 0], [0, 10, 12, 14, 0],
                                                             [0, 20, 22, 24, 0], [0] * 5])
    keep = L.RandomZoom((0.5, 0.5), fill_mode="constant", interpolation="nearest")(GRID)
    np.testing.assert_array_equal(keep.numpy()[0, :, :, 0], [[0] * 5, [0, 6, 7, 9, 0], [0, 11, 12, 14, 0],
                                                             [0, 21, 22, 24, 0], [0] * 5])


def test_random_layers_are_identity_at_inference_and_random_in_training():
    x = np.random.RandomState(0).rand(2, 6, 8, 3).astype("float32") * 255
    layers = [L.RandomFlip(seed=1), L.RandomRotation(0.3, seed=1), L.RandomZoom(0.3, seed=1),
              L.RandomTranslation(0.3, 0.3, seed=1), L.RandomContrast(0.5, seed=1), L.RandomBrightness(0.5, seed=1),
              L.RandomHeight(0.5, seed=1), L.RandomWidth(0.5, seed=1)]
    for layer in layers:
        np.testing.assert_array_equal(layer(x, training=False).numpy(), x)
        outs = [layer(x) for _ in range(3)]  # training defaults to True when called directly, as in tf_keras
        assert any(o.shape != x.shape or not np.array_equal(o.numpy(), x) for o in outs), type(layer).__name__
    model = tf.keras.Sequential([tf.keras.Input((6, 8, 3)), L.RandomFlip(seed=3), L.RandomRotation(0.2, seed=3)])
    np.testing.assert_array_equal(model.predict(x, verbose=0), x)


def test_seeded_layers_repeat_their_draws():
    x = np.random.RandomState(1).rand(4, 5, 5, 1).astype("float32")
    for make in (lambda: L.RandomRotation(0.4, seed=7), lambda: L.RandomFlip(seed=7),
                 lambda: L.RandomCrop(3, 3, seed=7), lambda: L.RandomBrightness(0.3, value_range=(0, 1), seed=7)):
        a, b = make(), make()
        first = a(x).numpy()
        np.testing.assert_array_equal(first, b(x).numpy())
        assert not np.array_equal(a(x).numpy(), first) or isinstance(a, L.RandomFlip)


def test_random_flip_uses_stateless_coins_from_generator_seeds():
    x = np.arange(2 * 2 * 3).reshape(2, 2, 3, 1).astype("float32")
    layer = L.RandomFlip("horizontal", seed=5)
    g = tf.random.Generator.from_seed(5)
    coins = tf.random.stateless_uniform([2], seed=g.make_seeds()[:, 0], minval=0, maxval=1.0).numpy()
    out = layer(x).numpy()
    for i in range(2):
        np.testing.assert_array_equal(out[i], x[i, :, ::-1] if np.round(coins[i]) else x[i])


def test_random_contrast_and_brightness():
    x = np.array([[[[0.0], [100.0]], [[200.0], [300.0]]]], "float32")
    out = L.RandomContrast((0.5, 0.5))(x).numpy()  # factor 1 - 0.5 .. 1 + 0.5: a draw in [0.5, 1.5]
    mean = x.mean()
    f = (out[0, 0, 0, 0] - mean) / (x[0, 0, 0, 0] - mean)
    assert 0.5 <= f <= 1.5 and out.max() <= 255
    b = L.RandomBrightness((0.1, 0.1), value_range=(0, 1))(np.full((2, 2, 2, 3), 0.5, "float32")).numpy()
    np.testing.assert_allclose(b, 0.6, rtol=1e-6)
    with pytest.raises(ValueError, match="factor"):
        L.RandomBrightness(2.0)
    with pytest.raises(ValueError, match="factor"):
        L.RandomContrast(-0.1)
    with pytest.raises(ValueError, match="upper must be > lower"):  # a zero factor fails in training, as in TF
        L.RandomContrast(0.0)(x)
    np.testing.assert_array_equal(L.RandomContrast(0.0)(x, training=False).numpy(), x)


def test_resizing_center_crop_random_crop():
    img = np.arange(16).reshape(1, 4, 4, 1)
    near = L.Resizing(2, 2, interpolation="nearest")(img.astype("float32"))
    np.testing.assert_array_equal(near.numpy()[0, :, :, 0], [[5, 7], [13, 15]])
    up = L.Resizing(4, 4, interpolation="nearest")(np.arange(4).reshape(1, 2, 2, 1).astype("float32"))
    np.testing.assert_array_equal(up.numpy()[0, :, :, 0], [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]])
    assert L.Resizing(3, 5)(np.zeros((2, 8, 8, 3))).shape == (2, 3, 5, 3)
    assert L.Resizing(2, 4, crop_to_aspect_ratio=True)(np.zeros((6, 6, 1))).shape == (2, 4, 1)
    cc = L.CenterCrop(2, 2)(img)
    assert cc.dtype == tf.float32
    np.testing.assert_array_equal(cc.numpy()[0, :, :, 0], [[5, 6], [9, 10]])
    assert L.CenterCrop(6, 6)(img).shape == (1, 6, 6, 1)  # smaller images are resized up
    crop = L.RandomCrop(2, 3, seed=3)(img).numpy()[0, :, :, 0]
    windows = [img[0, i:i + 2, j:j + 3, 0] for i in range(3) for j in range(2)]
    assert any(np.array_equal(crop, w) for w in windows)
    np.testing.assert_array_equal(L.RandomCrop(2, 2)(img, training=False).numpy(),
                                  L.Resizing(2, 2)(img.astype("float32")).numpy())


def test_random_height_and_width_numeric_as_tf_keras():
    img = np.arange(6).reshape(1, 2, 3, 1).astype("float32")
    out = L.RandomHeight(factor=(1.0, 1.0))(img)
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[0, 1, 2], [0.75, 1.75, 2.75], [2.25, 3.25, 4.25],
                                                            [3, 4, 5]])
    short = L.RandomHeight(factor=(-0.5, -0.5), interpolation="nearest")(np.arange(8).reshape(1, 4, 2, 1))
    np.testing.assert_array_equal(short.numpy()[0, :, :, 0], [[2, 3], [6, 7]])
    assert L.RandomWidth(factor=(1.0, 1.0))(img).shape == (1, 2, 6, 1)
    assert L.RandomWidth(0.5).compute_output_shape((None, 4, 4, 3)).as_list() == [None, 4, None, 3]


def test_augmentation_in_fit_and_keras_round_trip(tmp_path):
    pytest.importorskip("h5py")
    x = np.random.RandomState(2).rand(16, 8, 8, 3).astype("float32")
    y = np.random.RandomState(3).randint(0, 2, 16)
    model = tf.keras.Sequential([
        tf.keras.Input((8, 8, 3)), L.RandomFlip("horizontal", seed=1), L.RandomRotation(0.1, seed=1),
        L.RandomZoom(0.1, seed=1), L.RandomTranslation(0.1, 0.1, seed=1), L.RandomContrast(0.1, seed=1),
        L.Resizing(6, 6), L.CenterCrop(4, 4), L.Rescaling(1 / 255.0), L.Flatten(), L.Dense(2)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    path = str(tmp_path / "aug.keras")
    model.save(path)
    again = tf.keras.models.load_model(path)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)
    cfg = again.layers[1].get_config()
    assert cfg["factor"] == 0.1 and cfg["fill_mode"] == "reflect" and cfg["seed"] == 1


def test_configs_round_trip():
    for layer in (L.RandomFlip("vertical", seed=2), L.RandomRotation((-0.1, 0.2), fill_mode="constant", fill_value=3.0),
                  L.RandomZoom(0.2, (0.1, 0.3), interpolation="nearest"), L.RandomTranslation(0.1, (0.0, 0.2)),
                  L.RandomContrast((0.1, 0.2)), L.RandomBrightness(0.2, value_range=(0, 1)), L.RandomHeight(0.3),
                  L.RandomWidth((0.1, 0.2), interpolation="nearest"), L.Resizing(3, 4, crop_to_aspect_ratio=True),
                  L.CenterCrop(2, 3), L.RandomCrop(2, 3, seed=4)):
        cfg = layer.get_config()
        assert type(layer).from_config(cfg).get_config() == cfg
    assert L.RandomBrightness(0.2).get_config()["factor"] == [-0.2, 0.2]
    assert list(L.RandomTranslation(0.1, 0.2).get_config())[3:] == [  # tf_keras' key order
        "rng_type", "height_factor", "width_factor", "fill_mode", "fill_value", "interpolation", "seed"]
    assert list(L.Hashing(3).get_config())[3:] == ["num_bins", "salt", "mask_value", "output_mode", "sparse"]
    flip = L.RandomFlip("horizontal").get_config()  # tf_keras' BaseRandomLayer adds its generator's kind
    assert list(flip)[-3:] == ["rng_type", "mode", "seed"] and flip["rng_type"] == "stateful"
    assert L.RandomFlip.from_config({**flip, "name": "f2"}).mode == "horizontal"
    with pytest.raises(NotImplementedError, match="fill_mode"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="unknown mode"):
        L.RandomFlip("diagonal")


def test_experimental_preprocessing_namespace():
    pre = tf.keras.layers.experimental.preprocessing
    assert pre.RandomFlip is L.RandomFlip and pre.Resizing is L.Resizing and pre.Hashing is L.Hashing
    assert pre.Rescaling is L.Rescaling and pre.StringLookup is L.StringLookup


def test_augmentation_in_dataset_map_and_tf_function_draws_anew():
    aug = L.RandomRotation(0.2, seed=1)
    x = np.random.RandomState(4).rand(2, 5, 5, 1).astype("float32")
    outs = [b.numpy() for b in tf.data.Dataset.from_tensors(x).repeat(2).map(lambda v: aug(v, training=True))]
    assert not np.array_equal(outs[0], outs[1])
    f = tf.function(lambda v: aug(v, training=True))
    assert not np.array_equal(f(x).numpy(), f(x).numpy())


def test_image_projective_transform_gradient_warps_back():
    from rivulet.ops.image_transform_ops import image_projective_transform_v3
    x = tf.constant(np.random.RandomState(5).rand(1, 4, 4, 1).astype("float32"))
    w = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = image_projective_transform_v3(x, np.array([[1, 0, 1, 0, 1, 0, 0, 0]], np.float32), [4, 4], 0.0,
                                          "BILINEAR", "CONSTANT")  # y[:, j] = x[:, j + 1]
        loss = tf.reduce_sum(y * w)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy()[0, :, :, 0],
                                  [[0, 0, 1, 2], [0, 4, 5, 6], [0, 8, 9, 10], [0, 12, 13, 14]])


def test_random_height_width_and_crops_in_graphs_with_unknown_sizes():
    spec = [tf.TensorSpec([None, None, None, 1])]
    img = np.arange(6).reshape(1, 2, 3, 1).astype("float32")
    tall = L.RandomHeight(factor=(1.0, 1.0))
    f = tf.function(lambda v: tall(v, training=True), input_signature=spec)
    np.testing.assert_array_equal(f(img).numpy()[0, :, :, 0], [[0, 1, 2], [0.75, 1.75, 2.75], [2.25, 3.25, 4.25],
                                                               [3, 4, 5]])
    wide = L.RandomWidth(factor=(1.0, 1.0), interpolation="nearest")
    assert tf.function(lambda v: wide(v, training=True), input_signature=spec)(img).shape == (1, 2, 6, 1)
    for size in ((1, 2), (3, 3)):  # crop, or (larger than the image) smart-resize
        for layer in (L.RandomCrop(*size, seed=1), L.CenterCrop(*size)):
            g = tf.function(lambda v: layer(v, training=True), input_signature=spec)
            assert g(img).shape == (1, *size, 1)


def test_hashing_and_discretization_keep_ragged_and_sparse_inputs():
    ragged = L.Hashing(num_bins=3)(tf.ragged.constant([["A", "B"], ["C"]]))
    assert isinstance(ragged, tf.RaggedTensor) and ragged.to_list() == [[1, 0], [1]]
    sparse = L.Hashing(num_bins=3)(tf.sparse.from_dense(tf.constant([["A", ""], ["", "E"]])))
    assert isinstance(sparse, tf.SparseTensor) and sparse.values.numpy().tolist() == [1, 2]
    bins = L.Discretization(bin_boundaries=[0.0, 1.0])(tf.ragged.constant([[-1.0, 0.5], [2.0]]))
    assert bins.to_list() == [[0, 1], [2]] and bins.dtype == tf.int64


def test_lookup_vocabulary_assets_as_tf_keras_writes_them(tmp_path):
    s = L.StringLookup(mask_token="")
    s.adapt(np.array(["a", "b", "b"]))
    s.save_assets(str(tmp_path))
    assert (tmp_path / "vocabulary.txt").read_text() == "\n[UNK]\nb\na"  # special tokens first, one a line
    again = L.StringLookup(mask_token="")
    again.load_assets(str(tmp_path))
    assert again.get_vocabulary() == ["", "[UNK]", "b", "a"]
    (tmp_path / "vocabulary.txt").write_text("-1\n7\n5")
    ints = L.IntegerLookup()
    ints.load_assets(str(tmp_path))
    assert ints.get_vocabulary() == [-1, 7, 5] and ints(tf.constant([5, 9])).numpy().tolist() == [2, 0]
    fixed = L.StringLookup(vocabulary=["q"])
    fixed.load_assets(str(tmp_path))  # a vocabulary given in the config wins, as in tf_keras
    assert fixed.get_vocabulary() == ["[UNK]", "q"]


def test_discretization_summary_state_in_tf_keras_store_form():
    layer = L.Discretization(num_bins=4)
    layer.adapt(np.arange(100, dtype="float32"))
    store = {}
    layer.save_own_variables(store)
    assert store["0"].shape[0] == 2 and store["0"].dtype == np.float32
    again = L.Discretization(num_bins=4)
    again.load_own_variables(store)
    assert again.bin_boundaries == layer.bin_boundaries
    with pytest.raises(ValueError, match="shape"):
        again.load_own_variables({"0": np.zeros(3, "float32")})


def test_lookup_layers_with_several_oov_indices_as_tf_keras_docstrings():
    s = L.StringLookup(vocabulary=["a", "b", "c", "d"], num_oov_indices=2)
    out = s(tf.constant([["a", "c", "d"], ["m", "z", "b"]]))
    assert out.numpy().tolist() == [[2, 4, 5], [0, 1, 3]]  # 'm' and 'z' hash to OOV indices 0 and 1
    assert s.get_vocabulary() == ["[UNK]", "[UNK]", "a", "b", "c", "d"]
    i = L.IntegerLookup(vocabulary=[12, 36, 1138, 42], num_oov_indices=2)
    assert i(tf.constant([[12, 1138, 42], [42, 1000, 36]])).numpy().tolist() == [[2, 4, 5], [5, 0, 3]]
    with pytest.raises(ValueError, match="num_oov_indices"):
        L.StringLookup(num_oov_indices=-1)


# ============================================================================ tf_idf
def test_lookup_tf_idf_as_tf_keras_docstrings():
    data = tf.constant([["a", "c", "d", "d"], ["d", "z", "b", "z"]])
    layer = L.StringLookup(output_mode="tf_idf")
    layer.set_vocabulary(["a", "b", "c", "d"], idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(layer(data).numpy(), [[0, 0.25, 0, 0.6, 0.8], [1.0, 0, 0.75, 0, 0.4]], rtol=1e-6)
    layer.set_vocabulary(["[UNK]", "a", "b", "c", "d"], idf_weights=[0.9, 0.25, 0.75, 0.6, 0.4])
    out = layer(data)
    np.testing.assert_allclose(out.numpy(), [[0, 0.25, 0, 0.6, 0.8], [1.8, 0, 0.75, 0, 0.4]], rtol=1e-6)
    again = L.StringLookup.from_config(layer.get_config())
    np.testing.assert_array_equal(again(data).numpy(), out.numpy())
    ints = L.IntegerLookup(output_mode="tf_idf", vocabulary=[12, 36, 1138, 42], idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(ints(tf.constant([[12, 1138, 42, 42], [42, 7, 36, 7]])).numpy(),
                               [[0, 0.25, 0, 0.6, 0.8], [1.0, 0, 0.75, 0, 0.4]], rtol=1e-6)
    with pytest.raises(ValueError, match="idf_weights"):
        L.StringLookup(output_mode="tf_idf", vocabulary=["a"])
    with pytest.raises(ValueError, match="idf_weights"):
        L.StringLookup(vocabulary=["a"], idf_weights=[1.0])


def test_text_vectorization_tf_idf_as_tf_keras_tests():
    fixed = L.TextVectorization(max_tokens=6, standardize=None, split=None, output_mode="tf_idf",
                                pad_to_max_tokens=True, vocabulary=["earth", "wind", "and", "fire"],
                                idf_weights=[0.4, 0.25, 0.75, 0.6])
    out = fixed(np.array([["earth", "wind", "and", "earth"], ["ohio", "fire", "earth", "michigan"]]))
    np.testing.assert_allclose(out.numpy(), [[0, 0.8, 0.25, 0.75, 0, 0], [1, 0.4, 0, 0, 0.6, 0]], rtol=1e-6)
    tokens = L.TextVectorization(max_tokens=5, pad_to_max_tokens=True, standardize=None, split=None,
                                 output_mode="tf_idf")
    tokens.adapt(np.array([["fire"], ["earth"], ["earth"], ["earth"], ["earth"], ["wind"], ["wind"], ["wind"],
                           ["and"], ["and"]]))
    np.testing.assert_allclose(
        tokens(np.array([["earth"], ["wind"], ["and"], ["fire"], ["michigan"]])).numpy(),
        [[0, 1.098612, 0, 0, 0], [0, 0, 1.252763, 0, 0], [0, 0, 0, 1.466337, 0], [0, 0, 0, 0, 1.7917595],
         [1.402368, 0, 0, 0, 0]], rtol=1e-5)
    docs = L.TextVectorization(max_tokens=5, pad_to_max_tokens=True, standardize=None, output_mode="tf_idf")
    docs.adapt(tf.data.Dataset.from_tensor_slices(
        np.array([["fire earth earth"], ["earth earth"], ["wind wind"], ["and wind and"]])).batch(2))
    np.testing.assert_allclose(
        docs(np.array([["earth wind"], ["and"], ["fire fire"], ["earth michigan"]])).numpy(),
        [[0, 0.847298, 0.847298, 0, 0], [0, 0, 0, 1.098612, 0], [0, 0, 0, 0, 2.197225],
         [0.972955, 0.847298, 0, 0, 0]], rtol=1e-5)
    again = L.TextVectorization.from_config(docs.get_config())
    np.testing.assert_array_equal(again(np.array([["fire and"]])).numpy(), docs(np.array([["fire and"]])).numpy())


def test_max_tokens_leaves_no_slot_for_the_mask_outside_int_mode():
    layer = L.TextVectorization(max_tokens=5, standardize=None, split=None, output_mode="multi_hot")
    layer.adapt(np.array([["fire"], ["earth"], ["earth"], ["wind"], ["wind"], ["and"], ["and"], ["and"]]))
    assert layer.get_vocabulary() == ["[UNK]", "and", "wind", "earth", "fire"]


def test_text_vectorization_split_none_takes_rows_of_tokens():
    layer = L.TextVectorization(standardize="lower", split=None, output_sequence_length=5,
                                vocabulary=["earth", "wind"])
    out = layer(np.array([["Earth", "x", "wind"], ["wind", "wind", "EARTH"]]))
    assert out.numpy().tolist() == [[2, 1, 3, 0, 0], [3, 3, 2, 0, 0]]
    f = tf.function(lambda v: layer(v))
    assert f(tf.constant([["Earth", "x", "wind"]])).numpy().tolist() == [[2, 1, 3, 0, 0]]


def test_text_vectorization_ragged_output():
    layer = L.TextVectorization(ragged=True, vocabulary=["the", "sat", "dog", "cat"])
    out = layer(["the cat", "a dog sat on the mat", ""])
    assert isinstance(out, tf.RaggedTensor) and out.to_list() == [[2, 5], [1, 4, 3, 1, 2, 1], []]
    f = tf.function(lambda v: layer(v))
    assert f(tf.constant(["the cat", "dog"])).to_list() == [[2, 5], [4]]
    with pytest.raises(ValueError, match="output_sequence_length"):
        L.TextVectorization(ragged=True, output_sequence_length=3)
    with pytest.raises(ValueError, match="ragged"):
        L.TextVectorization(ragged=True, output_mode="multi_hot")


def test_sparse_outputs():
    out = L.CategoryEncoding(num_tokens=4, output_mode="count", sparse=True)(tf.constant([[0, 1, 1], [3, 3, 2]]))
    assert isinstance(out, tf.SparseTensor)
    assert out.indices.numpy().tolist() == [[0, 0], [0, 1], [1, 2], [1, 3]]
    assert out.values.numpy().tolist() == [1, 2, 1, 2] and out.dense_shape.numpy().tolist() == [2, 4]
    hot = L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot", sparse=True)(tf.constant([["a", "z"]]))
    np.testing.assert_array_equal(tf.sparse.to_dense(hot).numpy(), [[1, 1, 0]])
    hashed = L.Hashing(num_bins=3, output_mode="one_hot", sparse=True)(tf.constant(["A", "B"]))
    np.testing.assert_array_equal(tf.sparse.to_dense(hashed).numpy(), [[0, 1, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match="`sparse` may only be true"):
        L.StringLookup(sparse=True)


def test_lookup_vocabulary_from_a_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("earth\nwind\nand\nfire\n", encoding="utf-8")
    s = L.StringLookup(vocabulary=str(path))
    assert s.get_vocabulary() == ["[UNK]", "earth", "wind", "and", "fire"]
    assert s(tf.constant(["fire", "x"])).numpy().tolist() == [4, 0]
    t = L.TextVectorization(vocabulary=str(path))
    assert t(["Earth and sky"]).numpy().tolist() == [[2, 4, 1]]
    (tmp_path / "ints.txt").write_text("7\n9\n")
    assert L.IntegerLookup(vocabulary=str(tmp_path / "ints.txt")).get_vocabulary() == [-1, 7, 9]
    with pytest.raises(ValueError, match="does not exist"):
        L.StringLookup(vocabulary=str(tmp_path / "missing.txt"))


def test_text_vectorization_callable_split():
    def split_slash(x):
        return tf.strings.split(x, sep="/")
    layer = L.TextVectorization(standardize="lower", split=split_slash, output_sequence_length=4)
    layer.adapt(["A/b/b", "c/A"])
    assert layer.get_vocabulary() == ["", "[UNK]", "b", "a", "c"]
    assert layer(["a/c/zz", "b"]).numpy().tolist() == [[3, 4, 1, 0], [2, 0, 0, 0]]
    assert tf.function(lambda v: layer(v))(tf.constant(["a/b"])).numpy().tolist() == [[3, 2, 0, 0]]
    grams = L.TextVectorization(standardize=None, split=split_slash, ngrams=2, output_mode="multi_hot")
    grams.adapt(["a/b"])
    assert grams.get_vocabulary() == ["[UNK]", "b", "a b", "a"]  # ties: descending, "a b" before its prefix "a"
    np.testing.assert_array_equal(grams(["a/b", "b/a"]).numpy(), [[0, 1, 1, 1], [1, 1, 0, 1]])


def test_random_layers_make_their_generator_when_built():
    model = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), L.RandomFlip(), L.Flatten(), L.Dense(2)])
    assert model.layers[0]._generator is not None and model.layers[0].weights == []
