"""tf.keras.utils.get_file with local origins only (file:// URLs and pre-placed cache files), and safe extraction."""
import hashlib
import io
import os
import tarfile
import zipfile

import pytest

import rivulet as tf
from rivulet.keras import archives


def _origin(tmp_path, name, data):
    src = tmp_path / "server" / name
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(data)
    return src.as_uri()


def _tar_gz(entries):
    """entries: (name, bytes) files, or TarInfo objects as they are."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for e in entries:
            if isinstance(e, tarfile.TarInfo):
                tar.addfile(e)
            else:
                info = tarfile.TarInfo(e[0])
                info.size = len(e[1])
                tar.addfile(info, io.BytesIO(e[1]))
    return buf.getvalue()


def test_downloads_once_into_the_cache_with_a_progress_bar(tmp_path, capsys):
    url = _origin(tmp_path, "data.bin", b"x" * 5000)
    path = tf.keras.utils.get_file("data.bin", url, cache_dir=tmp_path / "cache")
    assert path == os.path.join(tmp_path / "cache", "datasets", "data.bin")
    assert open(path, "rb").read() == b"x" * 5000
    out = capsys.readouterr().out
    assert f"Downloading data from {url}" in out
    assert "5000/5000 [==============================]" in out
    os.remove(tmp_path / "server" / "data.bin")  # cached: the origin is not read again
    assert tf.keras.utils.get_file("data.bin", url, cache_dir=tmp_path / "cache") == path
    assert "Downloading" not in capsys.readouterr().out


def test_fname_defaults_to_the_url_basename_and_keras_home_is_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    url = _origin(tmp_path, "words.txt", b"hello")
    path = tf.keras.utils.get_file(origin=url, cache_subdir="text")
    assert path == os.path.join(tmp_path / "kh", "text", "words.txt")


def test_hashes_are_checked(tmp_path, capsys):
    data = b"payload"
    url = _origin(tmp_path, "p.bin", data)
    cache = tmp_path / "cache"
    sha, md5 = hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest()
    assert open(tf.keras.utils.get_file("p.bin", url, file_hash=sha, cache_dir=cache), "rb").read() == data
    assert tf.keras.utils.get_file("p.bin", url, md5_hash=md5, cache_dir=cache)
    # a download whose hash does not match is refused, naming the file, and not kept
    with pytest.raises(ValueError, match=r"q\.bin.*hash does not match"):
        tf.keras.utils.get_file("q.bin", url, file_hash="0" * 64, cache_dir=cache)
    assert not os.path.exists(cache / "datasets" / "q.bin")
    # a cached file whose hash is stale is downloaded again
    (cache / "datasets" / "p.bin").write_bytes(b"stale")
    capsys.readouterr()
    path = tf.keras.utils.get_file("p.bin", url, file_hash=sha, cache_dir=cache)
    assert open(path, "rb").read() == data
    assert "hash does not match the original value" in capsys.readouterr().out
    with pytest.raises(ValueError, match="Unknown hash algorithm"):
        tf.keras.utils.get_file("p.bin", url, file_hash=sha, hash_algorithm="sha1", cache_dir=cache)


def test_offline_and_not_cached_is_a_url_fetch_failure(tmp_path):
    url = (tmp_path / "nowhere" / "f.npz").as_uri()
    with pytest.raises(Exception, match=r"URL fetch failure on file://.*f\.npz"):
        tf.keras.utils.get_file("f.npz", url, cache_dir=tmp_path / "cache")
    assert os.listdir(tmp_path / "cache" / "datasets") == []
    with pytest.raises(ValueError, match="origin"):
        tf.keras.utils.get_file("f.npz")


def test_untar_and_extract(tmp_path):
    data = _tar_gz([("flowers/a/1.txt", b"one"), ("flowers/b/2.txt", b"two")])
    url = _origin(tmp_path, "flowers.tgz", data)
    path = tf.keras.utils.get_file("flowers", url, untar=True, cache_dir=tmp_path / "c")
    assert path == os.path.join(tmp_path / "c", "datasets", "flowers")
    assert open(os.path.join(path, "b", "2.txt"), "rb").read() == b"two"
    assert os.path.exists(path + ".tar.gz")

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("pack/x.txt", "zipped")
    url = _origin(tmp_path, "pack.zip", buf.getvalue())
    path = tf.keras.utils.get_file("pack.zip", url, extract=True, cache_dir=tmp_path / "c")
    assert path.endswith("pack.zip")
    assert open(os.path.join(tmp_path / "c", "datasets", "pack", "x.txt")).read() == "zipped"


def test_archives_land_where_keras_3_and_tf_keras_both_look(tmp_path):
    """TensorFlow's tutorials are written for either layout: Keras 3 (TF 2.21's tf.keras) extracts into
    `<stem>_extracted/` or `<fname>/`, tf_keras beside the archive."""
    cache = tmp_path / "c"
    data = _tar_gz([("aclImdb/train/pos/0.txt", b"good"), ("aclImdb/README", b"r")])
    path = tf.keras.utils.get_file("aclImdb_v1", _origin(tmp_path, "aclImdb_v1.tar.gz", data), untar=True,
                                   cache_dir=cache, cache_subdir="")
    assert path == os.path.join(cache, "aclImdb_v1")
    # text_classification's Keras 3 path, and the tf_keras one
    assert open(os.path.join(path, "aclImdb", "train", "pos", "0.txt"), "rb").read() == b"good"
    assert open(os.path.join(cache, "aclImdb", "README"), "rb").read() == b"r"
    assert tf.keras.utils.get_file("aclImdb_v1", "file:///nowhere", untar=True, cache_dir=cache,
                                   cache_subdir="") == path  # cached: no download, no second extraction

    data = _tar_gz([("flower_photos/roses/1.jpg", b"rose")])
    path = tf.keras.utils.get_file("flower_photos.tgz", _origin(tmp_path, "flower_photos.tgz", data), extract=True,
                                   cache_dir=cache)
    assert path == os.path.join(cache, "datasets", "flower_photos.tgz")  # tf_keras returns the archive
    for where in ("flower_photos_extracted/flower_photos", "flower_photos"):  # images/classification, tf_keras
        assert open(os.path.join(cache, "datasets", where, "roses", "1.jpg"), "rb").read() == b"rose"

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("jena.csv", "a,b\n1,2\n")
    zip_path = tf.keras.utils.get_file(origin=_origin(tmp_path, "jena.csv.zip", buf.getvalue()), fname="jena.csv.zip",
                                       extract=True, cache_dir=cache)
    assert open(os.path.splitext(zip_path)[0]).read() == "a,b\n1,2\n"  # time_series: the csv beside the zip
    assert os.path.isfile(os.path.join(cache, "datasets", "jena_extracted", "jena.csv"))

    # a file already beside the archive is left alone; the archive's copy is in the Keras 3 directory
    (cache / "datasets" / "keep.txt").write_text("mine")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("keep.txt", "theirs")
    tf.keras.utils.get_file("k.zip", _origin(tmp_path, "k.zip", buf.getvalue()), extract=True, cache_dir=cache)
    assert (cache / "datasets" / "keep.txt").read_text() == "mine"
    assert (cache / "datasets" / "k_extracted" / "keep.txt").read_text() == "theirs"


def test_an_archive_named_by_its_url_extracts_into_a_directory_of_that_name(tmp_path):
    """Keras 3 (TF 2.21's tf.keras) downloads it as `<fname>_archive` and extracts into `<fname>/`, the path
    returned (load_data/images: `Path(get_file(origin=url, extract=True)) / 'flower_photos'`); tf_keras's
    `Path(archive).with_suffix('')` finds the files too."""
    cache = tmp_path / "c"
    data = _tar_gz([("flower_photos/roses/1.jpg", b"rose")])
    url = _origin(tmp_path, "flower_photos.tgz", data)
    path = tf.keras.utils.get_file(origin=url, extract=True, cache_dir=cache)
    assert path == os.path.join(cache, "datasets", "flower_photos.tgz") and os.path.isdir(path)
    assert sorted(os.listdir(cache / "datasets")) == ["flower_photos", "flower_photos.tgz", "flower_photos.tgz_archive"]
    for where in ("flower_photos.tgz/flower_photos", "flower_photos"):
        assert open(os.path.join(cache, "datasets", where, "roses", "1.jpg"), "rb").read() == b"rose"
    assert tf.keras.utils.get_file(origin=url, extract=True, cache_dir=cache) == path  # cached
    plain = tf.keras.utils.get_file(origin=_origin(tmp_path, "plain.txt", b"text"), extract=True, cache_dir=cache)
    assert open(plain, "rb").read() == b"text"  # not an archive: the file itself


def _link(name, target, kind=tarfile.SYMTYPE):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize("entries, words", [
    ([("../evil.txt", b"x")], "outside"),
    ([("ok/../../evil.txt", b"x")], "outside"),
    ([("/tmp/evil.txt", b"x")], "absolute"),
    ([_link("d/ln", "../../elsewhere")], "outside"),
    ([_link("d/ln", "/etc/passwd")], "absolute"),
    ([_link("d/hard", "../../etc/passwd", tarfile.LNKTYPE)], "outside"),
    ([_link("d/dev", "", tarfile.CHRTYPE)], "special"),
    ([_link("d/up", "../.."), ("d/up/evil.txt", b"x")], "outside"),
    # found by fuzzing: a trailing '/' moved the directory the link resolves from (Python's data filter too)
    ([_link("d/x///", "../../elsewhere")], "outside"),
    ([_link("d/hard", "d/nowhere", tarfile.LNKTYPE)], "names no earlier file"),  # tarfile raised KeyError
    ([_link("d/a", "b"), _link("d/b", "a")], "loop"),
    ([_link("d/y", "."), _link("d/x", "y/y/../..")], "passes through"),
])
def test_hostile_tar_members_are_refused_whole(tmp_path, entries, words):
    url = _origin(tmp_path, "bad.tar.gz", _tar_gz([("d/fine.txt", b"fine")] + entries))
    cache = tmp_path / "deep" / "cache"
    with pytest.raises(ValueError, match=rf"bad\.tar\.gz.*{words}"):
        tf.keras.utils.get_file("bad", url, untar=True, cache_dir=cache)
    assert not os.path.exists(cache / "datasets" / "d")  # nothing extracted, not even the good member
    assert not os.path.exists(tmp_path / "deep" / "evil.txt") and not os.path.exists(tmp_path / "evil.txt")


def test_hostile_zip_members_and_archive_bombs_are_refused(tmp_path, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../evil.txt", "x")
    url = _origin(tmp_path, "bad.zip", buf.getvalue())
    with pytest.raises(ValueError, match=r"bad\.zip.*outside"):
        tf.keras.utils.get_file("bad.zip", url, extract=True, cache_dir=tmp_path / "c")

    many = _tar_gz([(f"m/{i}.txt", b"") for i in range(5)])
    monkeypatch.setattr(archives, "MAX_MEMBERS", 4)
    with pytest.raises(ValueError, match="more than 4 members"):
        tf.keras.utils.get_file("many", _origin(tmp_path, "many.tar.gz", many), untar=True, cache_dir=tmp_path / "c")
    monkeypatch.setattr(archives, "MAX_MEMBERS", 100)
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 1000)
    big = _tar_gz([("big/zeros", b"\0" * 2000)])
    with pytest.raises(ValueError, match="more than 1000 bytes"):
        tf.keras.utils.get_file("big", _origin(tmp_path, "big.tar.gz", big), untar=True, cache_dir=tmp_path / "c")


def test_untar_of_a_file_that_is_no_archive_is_a_clear_error(tmp_path):
    url = _origin(tmp_path, "junk.tar.gz", b"<html>Service unavailable</html>")
    with pytest.raises(ValueError, match=r"junk\.tar\.gz.*not a tar archive"):
        tf.keras.utils.get_file("junk", url, untar=True, cache_dir=tmp_path / "c")
    data = _tar_gz([("t/a.txt", b"a" * 1000)])
    url = _origin(tmp_path, "trunc.tar.gz", data[:len(data) // 2])
    with pytest.raises(ValueError, match=r"trunc\.tar\.gz"):
        tf.keras.utils.get_file("trunc", url, untar=True, cache_dir=tmp_path / "c")


def test_a_damaged_bzip2_member_is_a_corrupt_archive(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("a.txt", "hello " * 100)
    data = bytearray(buf.getvalue())
    start = data.index(b"BZh") + 10  # inside the compressed stream; the zip's structure intact
    data[start:start + 8] = b"\xff" * 8
    (tmp_path / "bz.zip").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"bz\.zip.*corrupt"):  # bz2 raised a bare OSError('Invalid data stream')
        archives.extract_archive(tmp_path / "bz.zip", tmp_path / "out", "zip")
