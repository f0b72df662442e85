"""tf.keras.datasets.mnist: 60,000 + 10,000 28x28 uint8 digits with uint8 labels, from mnist.npz."""
from ..data_utils import get_file
from ._common import ORIGIN_FOLDER, cache_root
from .npz import load_npz

FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path="mnist.npz", cache_dir=None):
    """Returns `(x_train, y_train), (x_test, y_test)`, downloading mnist.npz into the Keras cache if needed."""
    path = get_file(path, origin=ORIGIN_FOLDER + "mnist.npz", file_hash=FILE_HASH, cache_dir=cache_root(cache_dir))
    d = load_npz(path, ("x_train", "y_train", "x_test", "y_test"))
    for x, y in (("x_train", "y_train"), ("x_test", "y_test")):
        if d[x].ndim < 1 or d[y].ndim != 1 or len(d[x]) != len(d[y]):
            raise ValueError(f"{path}: {x} of shape {d[x].shape} and {y} of shape {d[y].shape} do not pair up.")
    return (d["x_train"], d["y_train"]), (d["x_test"], d["y_test"])
