"""What several loaders share: the storage bucket, the word-index files, and filtering long sequences."""
import json
import os

import numpy as np

from ..data_utils import get_file

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def cache_root(cache_dir):
    """load_data's cache_dir: created when given (tf_keras 2.21 takes it), None for get_file's default."""
    if not cache_dir:
        return None
    cache_dir = os.path.expanduser(cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
    return cache_dir


def load_word_index(path, origin, file_hash):
    path = get_file(path, origin=origin, file_hash=file_hash)
    try:
        with open(path, encoding="utf-8") as f:
            index = json.load(f)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError, a nesting bomb
        raise ValueError(f"{path}: not a word index JSON file ({type(e).__name__}: {e}).") from None
    if not isinstance(index, dict) or not all(isinstance(v, int) and not isinstance(v, bool)
                                              for v in index.values()):
        raise ValueError(f"{path}: a word index maps words to integers; this file holds something else.")
    return index


def remove_long_seq(maxlen, seq, label):
    """Keeps the sequences strictly shorter than `maxlen` (tf_keras's rule) with their labels."""
    kept = [(x, y) for x, y in zip(seq, label) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]


def _word_list(x):
    """x as a list of Python ints in [0, 2**31), or None."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.ndim == 1:
        x = x.tolist()
    if not isinstance(x, (list, tuple)):
        return None
    if not set(map(type, x)) <= {int}:  # exactly int: a bool is no word; NumPy scalars (pickled as such) become ints
        x = [int(w) if isinstance(w, np.integer) else w for w in x]
        if not set(map(type, x)) <= {int}:
            return None
    return list(x) if not x or (min(x) >= 0 and max(x) < 2 ** 31) else None


def word_sequences(arr, path, key):
    """An object array of word-index lists -> a list of lists of Python ints, checked."""
    if not isinstance(arr, np.ndarray) or arr.ndim != 1:
        raise ValueError(f"{path}: {key} is not a 1-D array of word-index lists.")
    out = []
    for i, x in enumerate(arr):
        words = _word_list(x)
        if words is None:
            raise ValueError(f"{path}: {key}[{i}] is not a list of non-negative word indices.")
        out.append(words)
    return out


def labels(arr, path, key, n):
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"{path}: {key} is not a 1-D integer array.")
    if len(arr) != n:
        raise ValueError(f"{path}: {key} has {len(arr)} labels for {n} sequences.")
    return arr


def object_array(lists):
    """A 1-D object array of lists, even when every list has the same length (np.array would make it 2-D)."""
    out = np.empty(len(lists), dtype=object)
    for i, x in enumerate(lists):
        out[i] = x
    return out


def index_words(xs, start_char, index_from):
    """Word indices shifted by index_from, each sequence led by start_char when it is not None (tf_keras)."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    if index_from:
        return [[w + index_from for w in x] for x in xs]
    return xs


def limit_words(xs, num_words, skip_top, oov_char):
    """Words outside [skip_top, num_words) (num_words: the largest index, when not given) become oov_char, or
    are dropped when oov_char is None."""
    if not num_words:
        num_words = max((max(x) for x in xs if x), default=0)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]
