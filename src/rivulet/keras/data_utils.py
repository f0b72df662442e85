"""tf.keras.utils.get_file: download once into the Keras cache (~/.keras/datasets, $KERAS_HOME), check md5/sha256,
and extract tar/zip archives without letting any member land outside the target directory."""
import hashlib
import os
import pathlib
import shutil
import sys
import urllib.parse
import uuid

from .progbar import Progbar

_CHUNK = 65535


def _print(msg):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


def resolve_hasher(algorithm, file_hash=None):
    """'auto' picks sha256 for a 64-digit hash, md5 otherwise (as tf_keras)."""
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None and len(file_hash) == 64):
        return hashlib.sha256()
    if algorithm in ("md5", "auto"):
        return hashlib.md5()
    raise ValueError(f"Unknown hash algorithm: {algorithm!r}. Expected 'md5', 'sha256' or 'auto'.")


def hash_file(fpath, algorithm="sha256", chunk_size=_CHUNK):
    hasher = resolve_hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=_CHUNK):
    hasher = resolve_hasher(algorithm, file_hash)
    return str(hash_file(fpath, hasher, chunk_size)) == str(file_hash)


def _cache_root(cache_dir):
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    root = os.path.expanduser(os.fspath(cache_dir))
    try:
        os.makedirs(root, exist_ok=True)  # importing Keras creates ~/.keras; rivulet creates it on first use
    except OSError:
        pass
    if not os.access(root, os.W_OK):  # a read-only home: tf_keras falls back to /tmp/.keras
        root = os.path.join("/tmp", ".keras")
    return root


class _DownloadProgress:
    """urlretrieve's reporthook -> a Keras progress bar over the bytes received."""

    def __init__(self):
        self.bar, self.done = None, False

    def __call__(self, block_num, block_size, total_size):
        if self.bar is None:
            self.bar = Progbar(total_size if total_size > 0 else None)
        current = block_num * block_size
        if self.bar.target is None or current < self.bar.target:
            self.bar.update(current)
        elif not self.done:
            self.bar.update(self.bar.target, finalize=True)
            self.done = True


def _download(origin, fpath, file_hash, hash_algorithm):
    import urllib.error  # here: urllib.request costs ~30 ms to import, and most calls find the file cached
    import urllib.request
    _print(f"Downloading data from {origin}")
    # a download cut short never looks like a cached file, and two processes never write the same one
    # (mkstemp would also make the cached file private to this user)
    tmp = f"{fpath}.{os.getpid()}.{uuid.uuid4().hex[:8]}.part"
    error_msg = "URL fetch failure on {}: {} -- {}"
    try:
        try:
            urllib.request.urlretrieve(origin, tmp, _DownloadProgress())
        except urllib.error.HTTPError as e:
            raise Exception(error_msg.format(origin, e.code, e.msg)) from None
        except urllib.error.URLError as e:
            raise Exception(error_msg.format(origin, e.errno, e.reason)) from None
        # checked before it takes the cache's name, so that a corrupt download is not kept
        if file_hash is not None and not validate_file(tmp, file_hash, hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected at {fpath} (downloaded from {origin}). "
                             f"The {hash_algorithm} file hash does not match the provided value of {file_hash}.")
        os.replace(tmp, fpath)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None):
    """Downloads `origin` into `<cache_dir>/<cache_subdir>/<fname>` unless a file is already there (with a matching
    hash when one is given); returns its path (tf_keras's). `untar=True` returns the directory `<fname>` beside
    `<fname>.tar.gz`; `extract=True` extracts tar/zip archives.

    Archives land where both Kerases put them, because TensorFlow's own programs are written for either:
    TF 2.21's tf.keras (Keras 3) extracts into `<stem>_extracted/` (a `fname` with a suffix) or `<fname>/`,
    tf_keras extracts beside the archive. The files go into Keras 3's directory and each top-level entry is
    linked beside the archive (where nothing of that name exists yet)."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    if file_hash is not None:
        resolve_hasher(hash_algorithm, file_hash)  # an unknown algorithm fails before any download
    datadir = os.path.join(_cache_root(cache_dir), os.fspath(cache_subdir))
    os.makedirs(datadir, exist_ok=True)

    fname = os.fspath(fname) if fname is not None else None
    provided = bool(fname)
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'."
                             "Please specify the `fname` as the input param.")
    keras3_dir = _keras3_extraction_dir(datadir, fname, provided) if (untar or extract) else None
    if untar:
        if fname.endswith(".tar.gz"):
            fname = str(pathlib.Path(fname).with_suffix("").with_suffix(""))
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    if extract and not untar and keras3_dir == fpath and not os.path.isfile(fpath):
        # the URL's file name (or a name without a suffix): Keras 3 downloads it as `<fname>_archive` and
        # extracts into the directory `<fname>`, the path both Kerases return (load_data/images:
        # `Path(get_file(origin=url, extract=True)) / 'flower_photos'`); tf_keras's entries are linked beside
        if not os.path.isdir(fpath):
            archive = fpath + "_archive"
            if not os.path.exists(archive) or (file_hash is not None
                                               and not validate_file(archive, file_hash, hash_algorithm)):
                _download(origin, archive, file_hash, hash_algorithm)
            if not _extract(archive, datadir, archive_format, fpath):
                os.replace(archive, fpath)  # not an archive: the file itself, as both Kerases leave it
        return fpath

    download = not os.path.exists(fpath)
    if not download and file_hash is not None and not validate_file(fpath, file_hash, hash_algorithm):
        _print("A local file was found, but it seems to be incomplete or outdated because the "
               f"{hash_algorithm} file hash does not match the original value of {file_hash} "
               "so we will re-download the data.")
        download = True
    if download:
        _download(origin, fpath, file_hash, hash_algorithm)

    if untar:
        if not os.path.exists(untar_fpath):
            _extract(fpath, datadir, "tar", keras3_dir, os.path.basename(untar_fpath), required=True)
        return untar_fpath
    if extract:
        _extract(fpath, datadir, archive_format, keras3_dir if keras3_dir != fpath else None)
    return fpath


def _keras3_extraction_dir(datadir, fname, provided):
    """Where Keras 3's get_file extracts: `<fname up to its first dot>_extracted` for a given name with a suffix,
    else `<fname>` (the URL's file name included)."""
    if os.sep in fname or (os.altsep and os.altsep in fname):
        return None  # a path: Keras 3 refuses it, tf_keras's layout alone
    if provided and "." in fname:
        return os.path.join(datadir, fname[:fname.find(".")] + "_extracted")
    return os.path.join(datadir, fname)


def _extract(fpath, datadir, archive_format, keras3_dir, own_name=None, required=False):
    from .archives import extract_archive
    if keras3_dir is None:
        return extract_archive(fpath, datadir, archive_format, required=required)
    # into a fresh directory first: a refused archive leaves nothing behind, and the top-level names decide
    staging = os.path.join(datadir, f".{os.path.basename(keras3_dir)}.{os.getpid()}.{uuid.uuid4().hex[:8]}.extracting")
    try:
        if not extract_archive(fpath, staging, archive_format, required=required):
            return False
        top = sorted(os.listdir(staging))
        if own_name is not None and own_name in top and os.path.join(datadir, own_name) == keras3_dir:
            # untar of an archive whose top directory is `fname` itself (CIFAR's): tf_keras's layout, unnested
            for name in top:
                _replace(os.path.join(staging, name), os.path.join(datadir, name))
            return True
        _replace(staging, keras3_dir)
        for name in top:
            beside = os.path.join(datadir, name)
            if not os.path.lexists(beside):
                os.symlink(os.path.join(os.path.basename(keras3_dir), name), beside)
        return True
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)


def _replace(src, dst):
    if os.path.islink(dst) or os.path.isfile(dst):
        os.remove(dst)
    elif os.path.isdir(dst):
        shutil.rmtree(dst)
    os.replace(src, dst)
