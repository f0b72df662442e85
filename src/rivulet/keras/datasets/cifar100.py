"""tf.keras.datasets.cifar100: 50,000 + 10,000 32x32 RGB uint8 images with 100 fine or 20 coarse int64 labels."""
import os

import numpy as np

from ..data_utils import get_file
from ._common import cache_root
from .cifar import load_batch

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode="fine", cache_dir=None):
    """Returns `(x_train, y_train), (x_test, y_test)`; labels of shape (N, 1), int64 (a reshaped list, as tf_keras)."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    path = get_file("cifar-100-python", origin=ORIGIN, untar=True, file_hash=FILE_HASH,
                    cache_dir=cache_root(cache_dir))
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    return (x_train.transpose(0, 2, 3, 1), y_train), (x_test.transpose(0, 2, 3, 1), y_test)
