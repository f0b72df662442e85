"""tf.keras.datasets.imdb: 25,000 + 25,000 movie reviews as lists of word indices (ranked by frequency), with
0/1 sentiment labels; the index shifts, OOV handling and shuffles of tf_keras."""
import numpy as np

from ..data_utils import get_file
from ._common import (ORIGIN_FOLDER, cache_root, index_words, labels, limit_words, load_word_index, object_array,
                      remove_long_seq, word_sequences)
from .npz import load_npz

FILE_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
WORD_INDEX_HASH = "bfafd718b763782e994055a2d397834f"


def load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
              index_from=3, cache_dir=None, **kwargs):
    """Returns `(x_train, y_train), (x_test, y_test)`: object arrays of lists of ints and int64 labels."""
    if "nb_words" in kwargs:  # the Keras 1 name
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}.")
    path = get_file(path, origin=ORIGIN_FOLDER + "imdb.npz", file_hash=FILE_HASH, cache_dir=cache_root(cache_dir))
    d = load_npz(path, ("x_train", "y_train", "x_test", "y_test"), allow_object=("x_train", "x_test"))
    x_train, x_test = word_sequences(d["x_train"], path, "x_train"), word_sequences(d["x_test"], path, "x_test")
    labels_train = labels(d["y_train"], path, "y_train", len(x_train))
    labels_test = labels(d["y_test"], path, "y_test", len(x_test))

    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, labels_train = [x_train[i] for i in indices], labels_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, labels_test = [x_test[i] for i in indices], labels_test[indices]

    x_train, x_test = index_words(x_train, start_char, index_from), index_words(x_test, start_char, index_from)

    if maxlen:
        x_train, labels_train = remove_long_seq(maxlen, x_train, labels_train)
        x_test, labels_test = remove_long_seq(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. "
                             "Increase maxlen.")

    xs = x_train + x_test
    all_labels = np.concatenate([np.asarray(labels_train, dtype=d["y_train"].dtype),
                                 np.asarray(labels_test, dtype=d["y_test"].dtype)])
    xs = limit_words(xs, num_words, skip_top, oov_char)  # 0 pads, 1 starts a sequence, 2 an out-of-range word

    idx = len(x_train)
    return ((object_array(xs[:idx]), all_labels[:idx]), (object_array(xs[idx:]), all_labels[idx:]))


def get_word_index(path="imdb_word_index.json"):
    """{word: index} (index 1 = the most frequent word), before `index_from` shifts."""
    return load_word_index(path, ORIGIN_FOLDER + "imdb_word_index.json", WORD_INDEX_HASH)
