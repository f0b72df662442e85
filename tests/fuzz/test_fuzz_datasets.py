"""Fuzzing of the Keras dataset readers: CIFAR pickled batches (Python 2 and 3 pickles), the .npz files of mnist
and imdb (object arrays), Fashion-MNIST's gzipped IDX files, and get_file's tar/zip extraction. A bad file may only
raise ValueError (a file that is not what the loader reads) or OSError; nothing is unpickled or written outside
the case's directory (the harness's audit hook checks both)."""
import encodings.cp437  # noqa: F401 - zipfile decodes member names with it; imported here, not during a case
import gzip
import io
import os
import pickle
import tarfile
import zipfile

import numpy as np
import pytest

from rivulet.keras.archives import extract_archive
from rivulet.keras.datasets import cifar, fashion_mnist, imdb, mnist
from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261125
_BASE = {}


def _base():
    if not _BASE:
        rng = np.random.default_rng(0)
        data = rng.integers(0, 256, (3, 3072), dtype=np.uint8)
        batch = {b"batch_label": b"training batch 1 of 5", b"labels": [1, 9, 4], b"data": data,
                 b"filenames": [b"a.png", b"b.png", b"c.png"]}
        _BASE["cifar2"] = pickle.dumps(batch, protocol=2)
        _BASE["cifar5"] = pickle.dumps(batch, protocol=5)
        words = np.empty(3, object)
        words[:] = [[1, 14, 22], [3, 7], [9, 9, 9, 2]]
        buf = io.BytesIO()
        np.savez(buf, x_train=words, y_train=np.array([0, 1, 1]), x_test=words[:2], y_test=np.array([1, 0]))
        _BASE["imdb"] = buf.getvalue()
        buf = io.BytesIO()
        np.savez_compressed(buf, x_train=rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
                            y_train=np.array([3, 4], np.uint8), x_test=np.zeros((1, 28, 28), np.uint8),
                            y_test=np.array([7], np.uint8))
        _BASE["mnist"] = buf.getvalue()
        _BASE["labels"] = gzip.compress(b"\0\0\x08\x01\0\0\0\x02\x05\x06", mtime=0)
        _BASE["images"] = gzip.compress(b"\0\0\x08\x03\0\0\0\x02\0\0\0\x1c\0\0\0\x1c" + bytes(range(256)) * 6
                                        + bytes(32), mtime=0)
        for key, mode in (("tar", "w"), ("tgz", "w:gz")):
            _BASE[key] = _tar(mode)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(zipfile.ZipInfo("z/a.txt", (2026, 1, 1, 0, 0, 0)), "zipped" * 20)
            zf.writestr(zipfile.ZipInfo("z/b/c.txt", (2026, 1, 1, 0, 0, 0)), "more")
        _BASE["zip"] = buf.getvalue()
    return _BASE


def _tar(mode):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as tar:
        for name, payload in (("d/a.txt", b"alpha"), ("d/sub/b.txt", b"beta" * 50)):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(payload), 0
            tar.addfile(info, io.BytesIO(payload))
        link = tarfile.TarInfo("d/link")
        link.type, link.linkname = tarfile.SYMTYPE, "a.txt"
        tar.addfile(link)
    return buf.getvalue()


def _writer(key, name):
    def build(rng, case_dir):
        path = os.path.join(case_dir, name)
        with open(path, "wb") as f:
            f.write(mutate_bytes(rng, _base()[key]))
        return path
    build.__name__ = f"build_{key}"
    return build


def load_cifar(path):
    data, labels = cifar.load_batch(path)
    int(data.sum()) + sum(labels)


def load_imdb(path):
    os.environ["KERAS_HOME"] = os.path.dirname(path)  # the cache is the case's own directory
    imdb.FILE_HASH = None
    (x, y), (xt, yt) = imdb.load_data(path=path, num_words=20, maxlen=10)
    sum(len(s) for s in x) + int(y.sum())


def load_mnist(path):
    os.environ["KERAS_HOME"] = os.path.dirname(path)
    mnist.FILE_HASH = None
    (x, y), _ = mnist.load_data(path=path)
    int(x.sum()) + int(y.sum())


def _npz_inner(key, member):
    """Mutates one .npy member inside an intact zip, so that the reader (not the zip CRC) meets the damage."""
    def build(rng, case_dir):
        path = os.path.join(case_dir, f"{key}.npz")
        with zipfile.ZipFile(io.BytesIO(_base()[key])) as src, zipfile.ZipFile(path, "w") as dst:
            for info in src.infolist():
                data = src.read(info)
                dst.writestr(info.filename, mutate_bytes(rng, data) if info.filename == member else data)
        return path
    build.__name__ = f"build_{key}_{member}"
    return build


def build_fashion_inner(rng, case_dir):
    """Fashion-MNIST files whose inflated IDX bytes are mutated (each gzip intact)."""
    folder = os.path.join(case_dir, "datasets", "fashion-mnist")
    os.makedirs(folder)
    which = rng.integers(2)
    for prefix in ("train", "t10k"):
        for kind, key in (("labels-idx1", "labels"), ("images-idx3", "images")):
            data = gzip.decompress(_base()[key])
            if (key == "images") == bool(which) and prefix == "train":
                data = mutate_bytes(rng, data)
            with open(os.path.join(folder, f"{prefix}-{kind}-ubyte.gz"), "wb") as f:
                f.write(gzip.compress(data, mtime=0))
    return case_dir


def build_fashion(rng, case_dir):
    folder = os.path.join(case_dir, "datasets", "fashion-mnist")
    os.makedirs(folder)
    which = rng.integers(2)
    for prefix in ("train", "t10k"):
        for kind, key in (("labels-idx1", "labels"), ("images-idx3", "images")):
            data = _base()[key]
            if (key == "images") == bool(which) and prefix == "train":
                data = mutate_bytes(rng, data)
            with open(os.path.join(folder, f"{prefix}-{kind}-ubyte.gz"), "wb") as f:
                f.write(data)
    return case_dir


def load_fashion(path):
    os.environ["KERAS_HOME"] = path
    (x, y), _ = fashion_mnist.load_data()
    int(x.sum()) + int(y.sum())


def _extract(fmt):
    def load(path):
        out = os.path.join(os.path.dirname(path), "out")
        os.makedirs(out)
        # the harness resolves a symlink's relative target from the working directory: make that the target's
        os.chdir(out)
        extract_archive(path, out, archive_format=fmt, required=True)
    return load


_PIECES = ["a", "b", "..", ".", "", "/", "link", "d"]
_TYPES = [tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE, tarfile.CHRTYPE]


def _path(rng):
    return "/".join(_PIECES[i] for i in rng.integers(len(_PIECES), size=rng.integers(1, 5)))


def build_tar_members(rng, case_dir):
    """Tars of random names, link targets and member types (the checks' own ground, not the bytes')."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for _ in range(rng.integers(1, 6)):
            info = tarfile.TarInfo(_path(rng))
            info.type = _TYPES[rng.integers(len(_TYPES))]
            info.mtime = 0
            if info.type in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = _path(rng)
            payload = b"x" * int(rng.integers(0, 20)) if info.type == tarfile.REGTYPE else b""
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    path = os.path.join(case_dir, "m.tar")
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return path


def build_zip_members(rng, case_dir):
    """Zips of random member names ('..', '/', '\\', drive letters, directories and files of one name)."""
    pieces = _PIECES + ["\\", "C:", "..\\x"]
    path = os.path.join(case_dir, "m.zip")
    with zipfile.ZipFile(path, "w") as zf:
        for _ in range(rng.integers(1, 6)):
            name = "/".join(pieces[i] for i in rng.integers(len(pieces), size=rng.integers(1, 5)))
            zf.writestr(zipfile.ZipInfo(name or "e", (2026, 1, 1, 0, 0, 0)), b"z" * int(rng.integers(0, 9)))
    return path


def load_members(path):
    """Extracts (a tar or a zip) into case/out/inner, then checks that nothing landed beside it and no link leads out of it."""
    case = os.path.dirname(path)
    inner = os.path.join(case, "out", "inner")
    os.makedirs(inner)
    os.chdir(inner)  # the harness resolves a symlink's relative target from the working directory
    extract_archive(path, inner, archive_format="zip" if path.endswith(".zip") else "tar", required=True)

    def inside(p):
        return p == inner or p.startswith(inner + os.sep)

    for root, dirs, files in os.walk(case):  # links are not followed: each is checked where it points
        for name in dirs + files:
            full = os.path.join(root, name)
            if full in (path, os.path.join(case, "out"), inner):
                continue
            if not inside(full):
                raise AssertionError(f"{full} was written outside the extraction directory")
            if os.path.islink(full):  # where it points, one step (a loop of links points nowhere)
                where = os.path.normpath(os.path.join(os.path.realpath(root), os.readlink(full)))
                if not inside(where):
                    raise AssertionError(f"{full} -> {os.readlink(full)} points outside the extraction directory")


def _either(*builds):
    """One target over several builds (each child process costs a second to start)."""
    def build(rng, case_dir):
        return builds[rng.integers(len(builds))](rng, case_dir)
    return build


build_cifar = _either(_writer("cifar2", "data_batch_1"), _writer("cifar5", "data_batch_1"))
build_imdb = _either(_writer("imdb", "imdb.npz"), _npz_inner("imdb", "x_train.npy"), _npz_inner("imdb", "y_test.npy"))
build_mnist = _either(_writer("mnist", "mnist.npz"), _npz_inner("mnist", "x_train.npy"))
build_fashion_any = _either(build_fashion, build_fashion_inner)
build_tar = _either(_writer("tar", "a.tar"), _writer("tgz", "a.tar.gz"))
_ALLOWED = (ValueError, OSError)

TARGETS = [
    FuzzTarget(name="cifar-batch", build=build_cifar, load=load_cifar, allowed=_ALLOWED),
    FuzzTarget(name="imdb-npz", build=build_imdb, load=load_imdb, allowed=_ALLOWED),
    FuzzTarget(name="mnist-npz", build=build_mnist, load=load_mnist, allowed=_ALLOWED),
    FuzzTarget(name="fashion-idx-gz", build=build_fashion_any, load=load_fashion, allowed=_ALLOWED),
    FuzzTarget(name="extract-tar", build=build_tar, load=_extract("tar"), allowed=_ALLOWED),
    FuzzTarget(name="extract-tar-members", build=build_tar_members, load=load_members, allowed=_ALLOWED),
    FuzzTarget(name="extract-zip-members", build=build_zip_members, load=load_members, allowed=_ALLOWED),
    FuzzTarget(name="extract-zip", build=_writer("zip", "a.zip"), load=_extract("zip"), allowed=_ALLOWED),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(60), seed=SEED)
    assert not report.failures, report.summary()
