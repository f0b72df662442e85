"""tf.keras.datasets.boston_housing: 506 samples of 13 float64 features and a float64 price."""
import numpy as np

from ..data_utils import get_file
from ._common import ORIGIN_FOLDER, cache_root
from .npz import load_npz

FILE_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path="boston_housing.npz", test_split=0.2, seed=113, cache_dir=None):
    """Shuffles with NumPy's RandomState(seed) and keeps the last `test_split` of the samples for testing."""
    if not 0 <= test_split < 1:
        raise ValueError(f"`test_split` must be in [0, 1). Received: test_split={test_split}")
    path = get_file(path, origin=ORIGIN_FOLDER + "boston_housing.npz", file_hash=FILE_HASH,
                    cache_dir=cache_root(cache_dir))
    d = load_npz(path, ("x", "y"))
    x, y = d["x"], d["y"]
    if x.ndim < 1 or y.ndim < 1 or len(x) != len(y):
        raise ValueError(f"{path}: x of shape {x.shape} and y of shape {y.shape} do not pair up.")
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    n = int(len(x) * (1 - test_split))
    return (np.array(x[:n]), np.array(y[:n])), (np.array(x[n:]), np.array(y[n:]))
