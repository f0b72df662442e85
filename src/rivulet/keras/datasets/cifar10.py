"""tf.keras.datasets.cifar10: 50,000 + 10,000 32x32 RGB uint8 images, uint8 labels of shape (N, 1)."""
import os

import numpy as np

from ..data_utils import get_file
from ._common import cache_root
from .cifar import load_batch

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


def load_data(cache_dir=None):
    """Returns `(x_train, y_train), (x_test, y_test)`; images channels-last."""
    path = get_file("cifar-10-batches-py", origin=ORIGIN, untar=True, file_hash=FILE_HASH,
                    cache_dir=cache_root(cache_dir))
    parts = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(p[1], dtype="int64") for p in parts]).astype("uint8")
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = y_train.reshape(len(y_train), 1)
    y_test = np.reshape(y_test, (len(y_test), 1)).astype(y_train.dtype)
    return (x_train.transpose(0, 2, 3, 1), y_train), (x_test.transpose(0, 2, 3, 1).astype(x_train.dtype), y_test)
