"""tf.keras.datasets.fashion_mnist: the four gzipped IDX files of Fashion-MNIST (uint8 images and labels)."""
import gzip
import os
import zlib

import numpy as np

from ..data_utils import get_file
from ._common import ORIGIN_FOLDER, cache_root

FILES = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
         "t10k-images-idx3-ubyte.gz"]
MAX_LABELS = 1 << 24  # bounds what a gzip member may inflate to (the real files hold 60,000 and 10,000)


def _gunzip(path, limit):
    """At most `limit` + 1 inflated bytes (enough to tell that a file holds more than it should)."""
    chunks, total = [], 0
    try:
        with gzip.open(path, "rb") as f:
            while total <= limit:
                chunk = f.read(min(1 << 20, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        return b"".join(chunks)
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, (FileNotFoundError, PermissionError)):
            raise
        raise ValueError(f"{path}: not a valid gzip file ({type(e).__name__}: {e}).") from None


def _load_pair(labels_path, images_path):
    raw = _gunzip(labels_path, 8 + MAX_LABELS)
    if len(raw) < 8 or len(raw) > 8 + MAX_LABELS:
        raise ValueError(f"{labels_path}: an IDX label file holds an 8-byte header and at most {MAX_LABELS} "
                         f"labels; this one inflates to {len(raw)} bytes.")
    y = np.frombuffer(raw, np.uint8, offset=8)
    want = 16 + len(y) * 28 * 28
    raw = _gunzip(images_path, want)
    if len(raw) != want:
        raise ValueError(f"{images_path}: expected a 16-byte header and {len(y)} 28x28 images ({want} bytes, "
                         f"one per label in {os.path.basename(labels_path)}); it inflates to "
                         f"{len(raw) if len(raw) <= want else 'more'} bytes.")
    return np.frombuffer(raw, np.uint8, offset=16).reshape(len(y), 28, 28), y


def load_data(cache_dir=None):
    """Returns `(x_train, y_train), (x_test, y_test)`: uint8 arrays of shapes (60000, 28, 28) and (60000,) ..."""
    dirname = os.path.join("datasets", "fashion-mnist")
    cache_dir = cache_root(cache_dir)
    paths = [get_file(fname, origin=ORIGIN_FOLDER + fname, cache_subdir=dirname, cache_dir=cache_dir) for fname in FILES]
    x_train, y_train = _load_pair(paths[0], paths[1])
    x_test, y_test = _load_pair(paths[2], paths[3])
    return (x_train, y_train), (x_test, y_test)
