"""tf.keras.preprocessing.image.ImageDataGenerator: random parameters, flow, fit/standardize and
flow_from_directory. Values recorded from Keras's ImageDataGenerator (tf_keras 2.21's algorithm, as Keras 3
keeps it in keras.src.legacy.preprocessing.image) with the same NumPy seeds."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.preprocessing.image import ImageDataGenerator, apply_affine_transform


def _x():
    return np.arange(3 * 4 * 5 * 3, dtype="float32").reshape(3, 4, 5, 3)


def test_random_parameters_drawn_in_keras_order():
    g = ImageDataGenerator(rotation_range=30, width_shift_range=0.2, height_shift_range=2, shear_range=10,
                           zoom_range=0.2, horizontal_flip=True, channel_shift_range=5., brightness_range=(0.5, 1.5))
    np.random.seed(3)
    p = g.get_random_transform((4, 5, 3))
    got = {k: (round(float(v), 6) if v is not None else None) for k, v in p.items()}
    assert got == {"theta": 3.047874, "tx": 1.0, "ty": -0.418191, "shear": 0.216552, "zx": 1.157179,
                   "zy": 1.158517, "flip_horizontal": 1.0, "flip_vertical": 0.0,
                   "channel_shift_intensity": -4.485328, "brightness": 0.94081}


def test_flow_batches_flips_channel_shift_and_rescale():
    g = ImageDataGenerator(horizontal_flip=True, vertical_flip=True, channel_shift_range=5., rescale=0.5)
    it = g.flow(_x(), np.array([0, 1, 2]), batch_size=2, seed=7, shuffle=True)
    assert len(it) == 2
    bx, by = next(it)
    assert bx.dtype == np.float32 and bx.shape == (2, 4, 5, 3)
    np.testing.assert_array_equal(by, [2, 1])
    np.testing.assert_allclose(bx[0, :, :, 1][0], [66.27792358398438, 64.77792358398438, 63.277923583984375,
                                                  61.777923583984375, 60.277923583984375], rtol=1e-6)
    bx, by = next(it)
    np.testing.assert_array_equal(by, [0])  # the last, smaller batch of the epoch
    np.testing.assert_allclose(bx[0, :, :, 1][3], [24.845972061157227, 26.345972061157227, 27.845972061157227,
                                                  29.345972061157227, 29.5], rtol=1e-6)
    bx, by = next(it)
    np.testing.assert_array_equal(by, [1, 0])
    np.testing.assert_allclose(bx[0, :, :, 1][3], [30.0, 30.169147491455078, 31.669147491455078,
                                                  33.16914749145508, 34.66914749145508], rtol=1e-6)


def test_flow_without_labels_and_errors():
    g = ImageDataGenerator(rescale=1 / 255.)
    batch = next(g.flow(_x(), batch_size=3, shuffle=False))
    np.testing.assert_allclose(batch, _x() / 255., rtol=1e-6)
    with pytest.raises(ValueError, match="should have rank 4"):
        g.flow(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="should have the same length"):
        g.flow(_x(), np.zeros(2))
    with pytest.raises(ValueError, match="zoom_range"):
        ImageDataGenerator(zoom_range=(1, 2, 3))
    with pytest.raises(ValueError, match="validation_split"):
        ImageDataGenerator(validation_split=1.5)


def test_fit_and_standardize():
    g = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    g.fit(_x())
    np.testing.assert_allclose(g.mean.ravel(), [88.5, 89.5, 90.5])
    np.testing.assert_allclose(g.std.ravel(), [51.954307556152344] * 3, rtol=1e-6)
    np.testing.assert_allclose(g.standardize(_x()[0].copy())[0, 0], [-1.7034199237823486] * 3, rtol=1e-6)


def test_affine_transform_rotates_and_shifts_about_the_centre():
    pytest.importorskip("scipy")
    x = np.arange(16, dtype="float32").reshape(4, 4, 1)
    r = apply_affine_transform(x, theta=90, row_axis=0, col_axis=1, channel_axis=2)
    np.testing.assert_allclose(r[:, :, 0], np.rot90(x[:, :, 0]), atol=1e-6)
    s = apply_affine_transform(x, tx=1, row_axis=0, col_axis=1, channel_axis=2)  # fill_mode 'nearest'
    np.testing.assert_array_equal(s[:, :, 0], [[1, 2, 3, 3], [5, 6, 7, 7], [9, 10, 11, 11], [13, 14, 15, 15]])


def test_affine_transform_without_scipy_names_the_package(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "scipy", None)
    with pytest.raises(ImportError, match="pip install scipy"):
        apply_affine_transform(np.zeros((4, 4, 1)), theta=10, row_axis=0, col_axis=1, channel_axis=2)


def test_flow_from_directory_into_a_dataset(tmp_path, capsys):
    Image = pytest.importorskip("PIL.Image")
    pytest.importorskip("scipy")
    for cls, n in (("roses", 3), ("tulips", 2)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            Image.fromarray(np.full((6, 8, 3), 40 * i + 10, np.uint8)).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "tulips" / "notes.txt").write_text("not an image")
    img_gen = ImageDataGenerator(rescale=1. / 255, rotation_range=20)
    it = img_gen.flow_from_directory(str(tmp_path), target_size=(6, 8), batch_size=4, shuffle=False)
    assert capsys.readouterr().out == "Found 5 images belonging to 2 classes.\n"
    assert it.class_indices == {"roses": 0, "tulips": 1}
    assert it.filenames == ["roses/0.png", "roses/1.png", "roses/2.png", "tulips/0.png", "tulips/1.png"]
    np.testing.assert_array_equal(it.classes, [0, 0, 0, 1, 1])
    images, labels = next(it)
    assert images.dtype == np.float32 and images.shape == (4, 6, 8, 3)
    np.testing.assert_array_equal(labels, [[1, 0], [1, 0], [1, 0], [0, 1]])
    np.testing.assert_allclose(images[1], 50 / 255, rtol=1e-6)  # a flat image stays flat under rotation
    sparse = ImageDataGenerator().flow_from_directory(str(tmp_path), target_size=(6, 8), class_mode="sparse",
                                                      shuffle=False, batch_size=5)
    np.testing.assert_array_equal(next(sparse)[1], [0., 0., 0., 1., 1.])
    ds = tf.data.Dataset.from_generator(lambda: img_gen.flow_from_directory(str(tmp_path), target_size=(6, 8),
                                                                            batch_size=5),
                                        output_types=(tf.float32, tf.float32),
                                        output_shapes=([5, 6, 8, 3], [5, 2]))
    for images, labels in ds.take(1):
        assert images.shape == (5, 6, 8, 3) and labels.shape == (5, 2)
    with pytest.raises(ValueError, match="Invalid class_mode"):
        img_gen.flow_from_directory(str(tmp_path), class_mode="onehot")


def test_fit_and_predict_take_the_iterators_as_sequences():
    x = np.random.default_rng(0).random((10, 4, 4, 3)).astype("float32")
    y = np.arange(10) % 2
    model = tf.keras.Sequential([tf.keras.Input((4, 4, 3)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    g = ImageDataGenerator(horizontal_flip=True)
    history = model.fit(g.flow(x, y, batch_size=4), epochs=2, verbose=0)  # len() == 3 batches per epoch
    assert len(history.history["loss"]) == 2 and int(model.optimizer.iterations.numpy()) == 6
    out = model.predict(ImageDataGenerator().flow(x, batch_size=4, shuffle=False), verbose=0)
    np.testing.assert_allclose(out, model.predict(x, verbose=0), rtol=1e-6)
