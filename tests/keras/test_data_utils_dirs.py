"""pad_sequences, text_/image_dataset_from_directory, timeseries_dataset_from_array and split_dataset."""
import random
import sys

import numpy as np
import pytest

import rivulet as tf
from rivulet import errors


def test_pad_sequences():
    pad = tf.keras.utils.pad_sequences
    np.testing.assert_array_equal(pad([[1, 2, 3], [4], [5, 6]]), [[1, 2, 3], [0, 0, 4], [0, 5, 6]])
    np.testing.assert_array_equal(pad([[1, 2, 3], [4]], maxlen=2, padding="post", truncating="post", value=-1),
                                  [[1, 2], [4, -1]])
    np.testing.assert_array_equal(pad([[1, 2, 3], []], maxlen=2), [[2, 3], [0, 0]])
    assert pad([[1, 2]]).dtype == np.int32
    out = pad([[[1, 1], [2, 2]], [[3, 3]]], dtype="float32")
    assert out.shape == (2, 2, 2) and out[1].tolist() == [[0, 0], [3, 3]]
    assert tf.keras.preprocessing.sequence.pad_sequences is pad
    with pytest.raises(ValueError, match="non-iterable"):
        pad([[1], 2])
    with pytest.raises(ValueError, match="Padding type"):
        pad([[1]], padding="middle")
    with pytest.raises(ValueError, match="dtype=object"):
        pad([["a"]], value="x")
    with pytest.raises(ValueError, match="Shape of sample"):
        pad([[[1, 1]], [[1, 1, 1]]])


@pytest.fixture
def text_dir(tmp_path):
    for cls, texts in (("pos", ["good 1", "good 2", "good 3"]), ("neg", ["bad 1"])):
        (tmp_path / cls).mkdir()
        for i, t in enumerate(texts):
            (tmp_path / cls / f"{i}.txt").write_text(t)
    (tmp_path / "neg" / "notes.md").write_text("not a text sample")
    (tmp_path / ".hidden").mkdir()
    return tmp_path


def test_text_dataset_from_directory(text_dir, capsys):
    ds = tf.keras.utils.text_dataset_from_directory(text_dir, batch_size=2, seed=1)
    assert capsys.readouterr().out == "Found 4 files belonging to 2 classes.\n"
    assert ds.class_names == ["neg", "pos"]
    assert str(ds.element_spec) == ("(TensorSpec(shape=(None,), dtype=tf.string, name=None), "
                                    "TensorSpec(shape=(None,), dtype=tf.int32, name=None))")
    pairs = [(t, int(y)) for x, yb in ds for t, y in zip(x.numpy(), yb.numpy())]
    assert sorted(pairs) == [(b"bad 1", 0), (b"good 1", 1), (b"good 2", 1), (b"good 3", 1)]

    train, val = tf.keras.utils.text_dataset_from_directory(
        text_dir, seed=7, validation_split=0.25, subset="both", max_length=4, label_mode="binary")
    assert capsys.readouterr().out.splitlines()[1:] == ["Using 3 files for training.", "Using 1 files for validation."]
    (x, y), = list(val)
    assert len(x.numpy()[0]) == 4 and y.shape == (1, 1) and y.dtype == tf.float32
    assert sum(len(b[0]) for b in train) == 3 and val.class_names == ["neg", "pos"]
    # the same seed gives the same split as a separate subset call
    (vx, _), = list(tf.keras.utils.text_dataset_from_directory(
        text_dir, seed=7, validation_split=0.25, subset="validation", max_length=4))
    assert vx.numpy().tolist() == x.numpy().tolist()

    capsys.readouterr()
    ds = tf.keras.utils.text_dataset_from_directory(text_dir, labels=None, shuffle=False, batch_size=None)
    assert capsys.readouterr().out == "Found 4 files belonging to 1 classes.\n"  # tf_keras's words
    assert [t.numpy() for t in ds] == [b"bad 1", b"good 1", b"good 2", b"good 3"]
    ds = tf.keras.utils.text_dataset_from_directory(text_dir, class_names=["pos", "neg"], shuffle=False)
    assert next(iter(ds))[1].numpy().tolist() == [1, 0, 0, 0]


def test_text_dataset_from_directory_errors(text_dir, tmp_path):
    f = tf.keras.utils.text_dataset_from_directory
    with pytest.raises(ValueError, match="must provide a `seed`"):
        f(text_dir, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="`subset` is set"):
        f(text_dir, subset="training")
    with pytest.raises(ValueError, match="did not match"):
        f(text_dir, class_names=["a", "b"])
    with pytest.raises(ValueError, match="label_mode"):
        f(text_dir, label_mode="sparse")
    with pytest.raises(errors.NotFoundError, match="nowhere"):
        f(tmp_path / "nowhere")
    (tmp_path / "empty" / "a").mkdir(parents=True)
    with pytest.raises(ValueError, match="No text files found in directory .*Allowed format: .txt"):
        f(tmp_path / "empty")


def _images(root, Image):
    colours = {"cat": (255, 0, 0), "dog": (0, 0, 255)}
    for cls, colour in colours.items():
        (root / cls).mkdir(parents=True)
        Image.new("RGB", (40, 30), colour).save(root / cls / "0.png")
        Image.new("RGB", (20, 20), colour).save(root / cls / "1.jpg", quality=100)
        Image.new("L", (10, 12), 128).save(root / cls / "2.bmp")
    return colours


def test_image_dataset_from_directory(tmp_path, capsys):
    Image = pytest.importorskip("PIL.Image")
    _images(tmp_path, Image)
    ds = tf.keras.utils.image_dataset_from_directory(tmp_path, image_size=(8, 6), batch_size=4, seed=3,
                                                     label_mode="categorical")
    assert capsys.readouterr().out == "Found 6 files belonging to 2 classes.\n"
    assert ds.class_names == ["cat", "dog"] and len(ds.file_paths) == 6
    assert str(ds.element_spec[0]) == "TensorSpec(shape=(None, 8, 6, 3), dtype=tf.float32, name=None)"
    images, labels = (np.concatenate(parts) for parts in zip(*[(x.numpy(), y.numpy()) for x, y in ds]))
    assert images.shape == (6, 8, 6, 3) and labels.shape == (6, 2)
    for img, label in zip(images, labels):
        px = img[4, 3]
        if np.allclose(px, 128):  # the grayscale BMPs become RGB
            continue
        assert np.argmax(px) == (0 if label[0] else 2) and px.max() > 250
    gray = tf.keras.utils.image_dataset_from_directory(tmp_path, image_size=(4, 4), color_mode="grayscale",
                                                       shuffle=False, interpolation="nearest", batch_size=None)
    img, label = next(iter(gray))
    assert img.shape == (4, 4, 1) and img.dtype == tf.uint8 and int(label) == 0
    cropped = tf.keras.utils.image_dataset_from_directory(tmp_path, image_size=(5, 5), crop_to_aspect_ratio=True,
                                                          shuffle=False, labels=None)
    assert next(iter(cropped)).shape == (6, 5, 5, 3)


def test_image_dataset_errors(tmp_path, monkeypatch):
    Image = pytest.importorskip("PIL.Image")
    _images(tmp_path, Image)
    (tmp_path / "cat" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    ds = tf.keras.utils.image_dataset_from_directory(tmp_path, image_size=(4, 4), shuffle=False, batch_size=None)
    with pytest.raises(errors.InvalidArgumentError, match="broken.png"):
        list(ds)
    with pytest.raises(ValueError, match="exactly 2"):
        (tmp_path / "cow").mkdir()
        tf.keras.utils.image_dataset_from_directory(tmp_path, label_mode="binary")
    with pytest.raises(ValueError, match="color_mode"):
        tf.keras.utils.image_dataset_from_directory(tmp_path, color_mode="cmyk")
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"pip install rivulet\[images\]"):
        tf.keras.utils.image_dataset_from_directory(tmp_path)


def test_timeseries_dataset_from_array():
    data, targets = np.arange(20).reshape(10, 2).astype("float32"), np.arange(10) * 10
    ds = tf.keras.utils.timeseries_dataset_from_array(data, targets, sequence_length=3, sampling_rate=2,
                                                      sequence_stride=2, batch_size=2, start_index=1)
    assert str(ds.element_spec[0]) == "TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None)"
    batches = [(x.numpy(), y.numpy()) for x, y in ds]
    x = np.concatenate([b[0] for b in batches])
    y = np.concatenate([b[1] for b in batches])
    # windows start at data[1 + p] for p in range(0, 9 - 4, 2), and take every other step
    assert x[:, :, 0].tolist() == [[2, 6, 10], [6, 10, 14], [10, 14, 18]]
    assert y.tolist() == [10, 30, 50]
    shuffled = tf.keras.utils.timeseries_dataset_from_array(data, None, sequence_length=2, shuffle=True, seed=5,
                                                            batch_size=None)
    starts = sorted(int(w.numpy()[0, 0]) // 2 for w in shuffled)
    assert starts == list(range(9))
    with pytest.raises(ValueError, match="sampling_rate"):
        tf.keras.utils.timeseries_dataset_from_array(data, None, 2, sampling_rate=0)
    with pytest.raises(ValueError, match="end_index"):
        tf.keras.utils.timeseries_dataset_from_array(data, None, 2, end_index=10)


def test_split_dataset():
    left, right = tf.keras.utils.split_dataset(np.arange(10), left_size=0.8, shuffle=True, seed=1)
    expected = list(range(10))
    random.seed(1)
    random.shuffle(expected)
    assert [int(v) for v in left] == expected[:8] and [int(v) for v in right] == expected[8:]

    ds = tf.data.Dataset.from_tensor_slices((np.arange(6), np.arange(6) * 2.0)).batch(2)
    left, right = tf.keras.utils.split_dataset(ds, right_size=2)
    assert str(left.element_spec[0]) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    assert [(a.tolist(), b.tolist()) for a, b in right.as_numpy_iterator()] == [([4, 5], [8.0, 10.0])]

    left, right = tf.keras.utils.split_dataset((np.zeros((5, 2)), np.arange(5)), left_size=3)
    assert len(list(left)) == 3 and len(list(right)) == 2
    dict_ds = tf.data.Dataset.from_tensor_slices({"a": np.arange(4), "b": np.arange(4) * 3})
    left, right = tf.keras.utils.split_dataset(dict_ds, left_size=0.5)
    assert [int(e["b"]) for e in right] == [6, 9]
    with pytest.raises(ValueError, match="At least one"):
        tf.keras.utils.split_dataset(np.arange(4))
    with pytest.raises(ValueError, match="left_size"):
        tf.keras.utils.split_dataset(np.arange(4), left_size=4)
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        tf.keras.utils.split_dataset("abc", left_size=1)


def test_load_img_img_to_array_array_to_img_save_img(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    u = tf.keras.utils
    x = np.zeros((4, 6, 3), "float32")
    x[:, :3] = [255, 0, 0]
    u.save_img(tmp_path / "a.png", x)
    img = u.load_img(tmp_path / "a.png")
    assert img.size == (6, 4) and img.mode == "RGB"
    arr = u.img_to_array(img)
    assert arr.dtype == np.float32 and arr.shape == (4, 6, 3) and arr[0, 0].tolist() == [255, 0, 0]
    small = u.img_to_array(u.load_img(str(tmp_path / "a.png"), target_size=(2, 3), color_mode="grayscale"))
    assert small.shape == (2, 3, 1)
    cropped = u.load_img(tmp_path / "a.png", target_size=(2, 2), keep_aspect_ratio=True)
    assert cropped.size == (2, 2)
    assert u.img_to_array(img, data_format="channels_first").shape == (3, 4, 6)
    scaled = u.array_to_img(np.array([[[0.0], [0.5]], [[1.0], [0.25]]]))
    assert scaled.mode == "L" and np.asarray(scaled).tolist() == [[0, 127], [255, 63]]
    assert tf.keras.preprocessing.image.load_img is u.load_img
    with pytest.raises(ValueError, match="rank 3"):
        u.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Invalid interpolation"):
        u.load_img(tmp_path / "a.png", target_size=(2, 2), interpolation="fancy")
    with pytest.raises(TypeError, match="path-like"):
        u.load_img(42)


def test_audio_dataset_from_directory(tmp_path, capsys):
    lengths = {"no": [30, 50], "yes": [40, 20, 60]}
    for cls, ns in lengths.items():
        (tmp_path / cls).mkdir()
        for i, n in enumerate(ns):
            clip = np.full((n, 1), 0.5 if cls == "yes" else -0.5, "float32")
            (tmp_path / cls / f"{i}.wav").write_bytes(tf.audio.encode_wav(clip, 16000).numpy())
    ds = tf.keras.utils.audio_dataset_from_directory(tmp_path, batch_size=2, seed=3)
    assert capsys.readouterr().out == "Found 5 files belonging to 2 classes.\n"
    assert ds.class_names == ["no", "yes"]
    assert str(ds.element_spec[0]) == "TensorSpec(shape=(None, None, None), dtype=tf.float32, name=None)"
    seen = 0
    for audio, labels in ds:
        a = audio.numpy()
        assert a.shape[0] == len(labels.numpy()) and a.shape[2] == 1
        for clip, label in zip(a, labels.numpy()):
            n = int((clip != 0).sum())
            assert n in lengths[ds.class_names[label]]
            assert np.all(clip[:n] == (0.5 if label else -0.5)) and np.all(clip[n:] == 0)  # zero-padded
            seen += 1
    assert seen == 5
    train, val = tf.keras.utils.audio_dataset_from_directory(tmp_path, output_sequence_length=25, seed=1,
                                                             validation_split=0.4, subset="both")
    (a, _), = list(val)
    assert a.shape == (2, 25, 1) and sum(len(b[1]) for b in train) == 3
    with pytest.raises(ValueError, match="both `ragged` and `output_sequence_length`"):
        tf.keras.utils.audio_dataset_from_directory(tmp_path, ragged=True, output_sequence_length=4)
    with pytest.raises(ImportError, match="tensorflow_io"):
        tf.keras.utils.audio_dataset_from_directory(tmp_path, sampling_rate=8000)


def test_follow_links_survives_a_link_cycle(text_dir):
    os_link = text_dir / "pos" / "again"
    os_link.symlink_to(text_dir / "pos", target_is_directory=True)  # pos/again -> pos
    (text_dir / "neg" / "up").symlink_to(text_dir, target_is_directory=True)  # neg/up -> the top
    (text_dir / "neg" / "side").symlink_to(text_dir / "pos", target_is_directory=True)  # no cycle: listed
    ds = tf.keras.utils.text_dataset_from_directory(text_dir, follow_links=True, shuffle=False)
    # neg/up/pos is a plain directory below the link (listed); pos/again and neg/up/neg lead back to an ancestor
    assert len(ds.file_paths) == 10 and sum("/side/" in p for p in ds.file_paths) == 3
    assert not any("/again/" in p or "/up/neg/" in p for p in ds.file_paths)


def test_plot_model_as_tf_keras_without_pydot(monkeypatch, capsys):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    monkeypatch.delitem(sys.modules, "IPython.core.magics.namespace", raising=False)
    with pytest.raises(ImportError, match="install pydot"):
        tf.keras.utils.plot_model(model, show_shapes=True)
    monkeypatch.setitem(sys.modules, "IPython.core.magics.namespace", object())  # as in a notebook
    assert tf.keras.utils.plot_model(model) is None
    assert "install pydot" in capsys.readouterr().out
    with pytest.raises(ValueError, match="not yet been built"):
        tf.keras.utils.plot_model(tf.keras.Sequential([tf.keras.layers.Dense(2)]))


def test_explicit_labels_are_int32_as_tensorflow_converts_them(text_dir):
    ds = tf.keras.utils.text_dataset_from_directory(text_dir, labels=[0, 1, 1, 0], shuffle=False)
    x, y = next(iter(ds))
    assert y.dtype == tf.int32 and y.numpy().tolist() == [0, 1, 1, 0]
