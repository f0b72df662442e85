"""tf.keras.datasets on small synthetic files in the real formats, placed in a temporary KERAS_HOME (or served from a
file:// origin); nothing touches the network. Hashes are patched to the synthetic files' own."""
import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile
import zipfile

import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.datasets import (boston_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters,
                                    safe_pickle)


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets").mkdir()
    return tmp_path / "datasets"


def _place(monkeypatch, module, path, data, attr="FILE_HASH"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    monkeypatch.setattr(module, attr, hashlib.sha256(data).hexdigest())


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def test_mnist_from_the_cache_and_from_an_origin(keras_home, monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 256, (6, 28, 28), dtype=np.uint8), np.arange(6, dtype=np.uint8)
    data = _npz(x_train=x[:4], y_train=y[:4], x_test=x[4:], y_test=y[4:])
    _place(monkeypatch, mnist, keras_home / "mnist.npz", data)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    assert x_train.dtype == np.uint8 and x_train.shape == (4, 28, 28) and y_train.dtype == np.uint8
    np.testing.assert_array_equal(x_test, x[4:])
    np.testing.assert_array_equal(y_test, y[4:])

    # not cached: fetched from the origin (here a local folder standing in for the storage bucket)
    os.remove(keras_home / "mnist.npz")
    (tmp_path / "bucket").mkdir()
    (tmp_path / "bucket" / "mnist.npz").write_bytes(data)
    monkeypatch.setattr(mnist, "ORIGIN_FOLDER", (tmp_path / "bucket").as_uri() + "/")
    (x_train2, _), _ = mnist.load_data()
    np.testing.assert_array_equal(x_train2, x_train)
    assert os.path.exists(keras_home / "mnist.npz")


def test_npz_files_that_lie_are_refused(keras_home, monkeypatch):
    good = _npz(x_train=np.zeros((2, 28, 28), np.uint8), y_train=np.zeros(2, np.uint8),
                x_test=np.zeros((1, 28, 28), np.uint8), y_test=np.zeros(1, np.uint8))
    # a header declaring far more data than the member holds (the zip itself intact)
    npy = io.BytesIO()
    np.lib.format.write_array(npy, np.zeros((2, 28, 28), np.uint8))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("x_train.npy", npy.getvalue().replace(b"(2, 28, 28)", b"(9, 28, 28)"))
    _place(monkeypatch, mnist, keras_home / "mnist.npz", buf.getvalue())
    with pytest.raises(ValueError, match=r"mnist\.npz.*x_train.*truncated"):
        mnist.load_data()
    obj = np.empty(2, object)
    obj[:] = [[1], [2]]
    _place(monkeypatch, mnist, keras_home / "mnist.npz", _npz(x_train=obj, y_train=np.zeros(2, np.uint8),
                                                              x_test=obj, y_test=np.zeros(2, np.uint8)))
    with pytest.raises(ValueError, match=r"mnist\.npz.*x_train.*Python objects"):
        mnist.load_data()
    _place(monkeypatch, mnist, keras_home / "mnist.npz", b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match=r"mnist\.npz.*not a valid \.npz"):
        mnist.load_data()


def test_fashion_mnist_reads_the_idx_files(keras_home):
    folder = keras_home / "fashion-mnist"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for prefix, n in (("train", 3), ("t10k", 2)):
        labels = np.arange(n, dtype=np.uint8)
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        (folder / f"{prefix}-labels-idx1-ubyte.gz").write_bytes(
            gzip.compress(b"\0\0\x08\x01" + n.to_bytes(4, "big") + labels.tobytes()))
        (folder / f"{prefix}-images-idx3-ubyte.gz").write_bytes(
            gzip.compress(b"\0\0\x08\x03" + n.to_bytes(4, "big") + b"\0\0\0\x1c\0\0\0\x1c" + images.tobytes()))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
    assert x_train.shape == (3, 28, 28) and x_train.dtype == np.uint8 and y_test.tolist() == [0, 1]
    np.testing.assert_array_equal(x_test, images)
    (folder / "t10k-images-idx3-ubyte.gz").write_bytes(gzip.compress(b"\0" * 16 + images.tobytes()[:-5]))
    with pytest.raises(ValueError, match=r"t10k-images-idx3-ubyte\.gz.*2 28x28 images"):
        fashion_mnist.load_data()


def _cifar_tar(dirname, batches, protocol):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, d in batches.items():
            raw = pickle.dumps(d, protocol=protocol)
            info = tarfile.TarInfo(f"{dirname}/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    return buf.getvalue()


@pytest.mark.parametrize("protocol", [2, 3, 5])
def test_cifar10_reads_pickled_batches_without_unpickling(keras_home, monkeypatch, protocol):
    rng = np.random.default_rng(2)
    data = {f"data_batch_{i}": rng.integers(0, 256, (2, 3072), dtype=np.uint8) for i in range(1, 6)}
    data["test_batch"] = rng.integers(0, 256, (3, 3072), dtype=np.uint8)
    batches = {k: {b"batch_label": k.encode(), b"labels": list(range(len(v))), b"data": v,
                   b"filenames": [b"a.png"] * len(v)} for k, v in data.items()}
    _place(monkeypatch, cifar10, keras_home / "cifar-10-batches-py.tar.gz",
           _cifar_tar("cifar-10-batches-py", batches, protocol))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8 and y_test.dtype == np.uint8
    np.testing.assert_array_equal(x_test[1], data["test_batch"][1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert y_train[:, 0].tolist() == [0, 1] * 5


def test_cifar100_label_modes(keras_home, monkeypatch):
    rng = np.random.default_rng(3)
    batches = {name: {b"fine_labels": [7, 99][:n], b"coarse_labels": [3, 19][:n],
                      b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8)}
               for name, n in (("train", 2), ("test", 1))}
    _place(monkeypatch, cifar100, keras_home / "cifar-100-python.tar.gz",
           _cifar_tar("cifar-100-python", batches, 4))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar100.load_data()
    assert x_train.shape == (2, 32, 32, 3) and y_train.tolist() == [[7], [99]] and y_train.dtype == np.int64
    (_, y_train), _ = cifar100.load_data(label_mode="coarse")
    assert y_train.tolist() == [[3], [19]]
    with pytest.raises(ValueError, match="label_mode"):
        cifar100.load_data(label_mode="medium")


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


@pytest.mark.parametrize("payload, words", [
    (pickle.dumps({b"data": _Boom()}, protocol=2), "calls posix.system"),
    (pickle.dumps({b"data": np.zeros((1, 3072), "uint8"), b"labels": [1]}, protocol=2)[:-40], "truncated"),
    (pickle.dumps({b"data": np.zeros((1, 3072), "U1"), b"labels": [1]}, protocol=4), "dtype"),
    (pickle.dumps({b"data": np.zeros((1, 3072), "uint8"), b"labels": [300]}, protocol=4), r"\[0, 256\)"),
    (pickle.dumps([1, 2], protocol=4), "not a dict"),
    (b"\x80\x04}\x94(h\x07", "memo entry 7"),
    (b"(lp0\nI1\na.", "opcode"),  # protocol 0 text opcodes
])
def test_hostile_cifar_batches_are_refused(tmp_path, payload, words):
    path = tmp_path / "data_batch_1"
    path.write_bytes(payload)
    with pytest.raises(ValueError, match=rf"data_batch_1.*{words}"):
        cifar10.load_batch(str(path))


def test_safe_pickle_reads_numpys_array_pickles():
    a = np.arange(12, dtype="<i4").reshape(3, 4)
    for protocol in (2, 3, 4, 5):
        for arr in (a, np.asfortranarray(a), a.astype(">f8")):
            out = safe_pickle.loads(pickle.dumps({"a": arr, "t": (1, 2.5, None, True)}, protocol=protocol))
            np.testing.assert_array_equal(out["a"], arr)
            assert out["a"].dtype == arr.dtype and out["t"] == (1, 2.5, None, True)
    obj = np.empty(2, object)
    obj[:] = [[1, 2], [3]]
    with pytest.raises(ValueError, match="dtype 'O8'"):
        safe_pickle.loads(pickle.dumps(obj))
    assert safe_pickle.loads(pickle.dumps(obj), allow_object=True).tolist() == [[1, 2], [3]]


def _word_lists(lengths, rng, top=30):
    out = np.empty(len(lengths), object)
    for i, n in enumerate(lengths):
        out[i] = rng.integers(1, top, n).tolist()
    return out


def test_imdb_shuffles_shifts_and_filters_as_tf_keras(keras_home, monkeypatch):
    rng = np.random.default_rng(4)
    x_tr, x_te = _word_lists([3, 5, 2, 7], rng), _word_lists([4, 1, 6], rng)
    y_tr, y_te = np.array([0, 1, 0, 1]), np.array([1, 1, 0])
    _place(monkeypatch, imdb, keras_home / "imdb.npz", _npz(x_train=x_tr, y_train=y_tr, x_test=x_te, y_test=y_te))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.imdb.load_data()
    order = np.arange(4)
    rs = np.random.RandomState(113)
    rs.shuffle(order)
    test_order = np.arange(3)
    rs.shuffle(test_order)
    assert x_train.dtype == object and x_train.shape == (4,) and y_train.dtype == y_tr.dtype
    assert x_train[0] == [1] + [w + 3 for w in x_tr[order[0]]]
    assert y_train.tolist() == y_tr[order].tolist() and y_test.tolist() == y_te[test_order].tolist()

    (x_train, _), (x_test, _) = imdb.load_data(num_words=10, skip_top=2, maxlen=6)
    kept = [x for x in x_tr[order] if len(x) + 1 < 6]
    assert len(x_train) == len(kept)
    assert all(w == 2 or 2 <= w < 10 for x in x_train for w in x)
    with pytest.raises(ValueError, match="Increase maxlen"):
        imdb.load_data(maxlen=1)
    with pytest.raises(TypeError, match="Unrecognized keyword"):
        imdb.load_data(bogus=1)

    index = {"the": 1, "movie": 2}
    _place(monkeypatch, imdb, keras_home / "imdb_word_index.json", json.dumps(index).encode(), "WORD_INDEX_HASH")
    assert tf.keras.datasets.imdb.get_word_index() == index


def test_reuters_and_boston_housing_splits(keras_home, monkeypatch):
    rng = np.random.default_rng(5)
    xs, ys = _word_lists([3, 4, 2, 5, 6], rng), np.array([0, 45, 3, 3, 1])
    _place(monkeypatch, reuters, keras_home / "reuters.npz", _npz(x=xs, y=ys))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.reuters.load_data(test_split=0.4)
    order = np.arange(5)
    np.random.RandomState(113).shuffle(order)
    assert len(x_train) == 3 and len(x_test) == 2
    assert (y_train.tolist() + y_test.tolist()) == ys[order].tolist()
    top = max(w + 3 for x in xs for w in x)  # num_words defaults to the largest index, itself out of range
    assert x_test[-1] == [1] + [w + 3 if w + 3 < top else 2 for w in xs[order[-1]]]
    assert len(reuters.get_label_names()) == 46

    x, y = rng.normal(size=(10, 13)), rng.normal(size=10)
    _place(monkeypatch, boston_housing, keras_home / "boston_housing.npz", _npz(x=x, y=y))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.boston_housing.load_data()
    order = np.arange(10)
    np.random.RandomState(113).shuffle(order)
    assert x_train.shape == (8, 13) and x_train.dtype == np.float64 and x_test.shape == (2, 13)
    np.testing.assert_array_equal(y_test, y[order][8:])


def test_word_index_files_that_lie_are_refused(keras_home, monkeypatch):
    _place(monkeypatch, reuters, keras_home / "reuters_word_index.json", b"[" * 100000, "WORD_INDEX_HASH")
    with pytest.raises(ValueError, match=r"reuters_word_index\.json"):
        reuters.get_word_index()
    _place(monkeypatch, reuters, keras_home / "reuters_word_index.json", b'{"a": "b"}', "WORD_INDEX_HASH")
    with pytest.raises(ValueError, match="maps words to integers"):
        reuters.get_word_index()


def _py2_cifar_batch(raw, labels):
    """A batch as the real CIFAR files hold it: Python 2's cPickle, protocol 2, str (not bytes) strings, and the
    numpy.core globals of NumPy 1."""
    def s(b):
        return b"U" + bytes([len(b)]) + b
    dtype = (b"cnumpy\ndtype\n" + s(b"u1") + b"K\x00K\x01\x87R(K\x03" + s(b"|") + b"NNNJ\xff\xff\xff\xffJ\xff\xff"
             b"\xff\xffK\x00tb")
    array = (b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85" + s(b"b") + b"\x87R(K\x01K"
             + bytes([len(raw) // 3072]) + b"M\x00\x0c\x86" + dtype + b"\x89T" + len(raw).to_bytes(4, "little")
             + raw + b"tb")
    return (b"\x80\x02}q\x00(" + s(b"data") + array + s(b"labels") + b"](" + b"".join(b"K" + bytes([v]) for v in labels)
            + b"e" + s(b"batch_label") + s(b"testing batch 1 of 1") + b"u.")


def test_cifar_batches_in_python2s_format(tmp_path):
    raw = bytes(range(256)) * 24  # 2 images
    path = tmp_path / "test_batch"
    path.write_bytes(_py2_cifar_batch(raw, [3, 8]))
    data, labels = cifar10.load_batch(str(path))
    assert data.shape == (2, 3, 32, 32) and labels == [3, 8]
    assert data.tobytes() == raw


def test_fuzz_findings_npz_header_and_zip_offsets(keras_home, monkeypatch, tmp_path):
    # a .npy header cut inside its dict: numpy's tokenizer raised tokenize.TokenError
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("x_train.npy", b"\x93NUMPY\x01\x00\x20\x00{'descr': '|u1', 'shape': (2,     \n")
    _place(monkeypatch, mnist, keras_home / "mnist.npz", buf.getvalue())
    with pytest.raises(ValueError, match=r"mnist\.npz.*x_train.*invalid \.npy header"):
        mnist.load_data()
    # a zip member whose local header offset lies before the file: zipfile's seek raised OSError(EINVAL)
    from rivulet.keras import archives
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a.txt", "x")
    data = bytearray(buf.getvalue())
    cd = data.rindex(b"PK\x01\x02")
    eocd = data.rindex(b"PK\x05\x06")  # a central directory recorded 100 bytes later than it lies
    data[eocd + 16:eocd + 20] = (cd + 100).to_bytes(4, "little")
    (tmp_path / "neg.zip").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"neg\.zip.*corrupt.*offset"):
        archives.extract_archive(tmp_path / "neg.zip", tmp_path / "out", "zip")
    # an unknown zip version: zipfile raised NotImplementedError
    data = bytearray(buf.getvalue())
    data[cd + 6] = 127  # the central directory's "version needed to extract"
    (tmp_path / "ver.zip").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"ver\.zip.*corrupt"):
        archives.extract_archive(tmp_path / "ver.zip", tmp_path / "out", "zip")


def test_word_lists_of_numpy_scalars_and_arrays(keras_home, monkeypatch):
    xs = np.empty(3, object)
    xs[:] = [[np.int64(4), np.int32(5)], np.array([6, 7], np.int64), [8]]
    _place(monkeypatch, reuters, keras_home / "reuters.npz", _npz(x=xs, y=np.array([1, 2, 3])))
    (x_train, _), (x_test, _) = reuters.load_data(test_split=0.0, start_char=None, index_from=0, num_words=100)
    assert sorted(map(list, x_train)) == [[4, 5], [6, 7], [8]] and len(x_test) == 0


def test_load_data_takes_a_cache_dir(tmp_path, monkeypatch):
    x = np.arange(26, dtype=float).reshape(2, 13)
    _place(monkeypatch, boston_housing, tmp_path / "mine" / "datasets" / "boston_housing.npz",
           _npz(x=x, y=np.array([1.0, 2.0])))
    (x_train, _), (x_test, _) = boston_housing.load_data(test_split=0.5, cache_dir=str(tmp_path / "mine"))
    assert sorted([x_train[0, 0], x_test[0, 0]]) == [0.0, 13.0]


def test_safe_pickle_word_lists_fast_path_and_every_truncation():
    words = [[1, 300, 70000, 2, -5], list(range(250, 262))]
    obj = np.empty(2, object)
    obj[:] = words
    raw = pickle.dumps(obj, protocol=3)
    assert safe_pickle.loads(raw, allow_object=True).tolist() == words
    for cut in range(len(raw)):  # each prefix is refused, the int runs' fast path included; nothing loops
        with pytest.raises(ValueError):
            safe_pickle.loads(raw[:cut], allow_object=True)
