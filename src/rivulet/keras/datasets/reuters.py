"""tf.keras.datasets.reuters: 11,228 newswires as word-index lists with 46 topic labels, split by `test_split`."""
import numpy as np

from ..data_utils import get_file
from ._common import (ORIGIN_FOLDER, cache_root, index_words, labels, limit_words, load_word_index, object_array,
                      remove_long_seq, word_sequences)
from .npz import load_npz

FILE_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
WORD_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"


def load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113, start_char=1,
              oov_char=2, index_from=3, cache_dir=None, **kwargs):
    """Returns `(x_train, y_train), (x_test, y_test)`: object arrays of lists of ints and int64 labels."""
    if "nb_words" in kwargs:
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}.")
    path = get_file(path, origin=ORIGIN_FOLDER + "reuters.npz", file_hash=FILE_HASH, cache_dir=cache_root(cache_dir))
    d = load_npz(path, ("x", "y"), allow_object=("x",))
    xs = word_sequences(d["x"], path, "x")
    ys = labels(d["y"], path, "y", len(xs))

    indices = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(indices)
    xs, ys = [xs[i] for i in indices], ys[indices]

    xs = index_words(xs, start_char, index_from)
    if maxlen:
        xs, ys = remove_long_seq(maxlen, xs, ys)
    xs = limit_words(xs, num_words, skip_top, oov_char)

    idx = int(len(xs) * (1 - test_split))
    ys = np.asarray(ys, dtype=d["y"].dtype)
    return (object_array(xs[:idx]), np.array(ys[:idx])), (object_array(xs[idx:]), np.array(ys[idx:]))


def get_word_index(path="reuters_word_index.json"):
    return load_word_index(path, ORIGIN_FOLDER + "reuters_word_index.json", WORD_INDEX_HASH)


def get_label_names():
    """The 46 topics, in label order."""
    return ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee",
            "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx",
            "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock",
            "retail", "ipi", "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
            "dlr", "gas", "silver", "wpi", "hog", "lead")
