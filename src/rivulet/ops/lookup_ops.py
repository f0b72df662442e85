"""Vocabulary lookups and text tokenisation behind Keras's StringLookup/IntegerLookup/TextVectorization.

The vocabulary is an attr (a tuple, so a traced function bakes in the vocabulary it saw, as TensorFlow's
table would hold it); tables are built once per vocabulary. Not TensorFlow op types: TensorFlow composes these
from hash tables and string ops.
"""
import functools
import re

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..shape import TensorShape
from ._rules import to_tensor

_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,\-\./:;<=>?@\[\\\]^_`{|}~\']')


@functools.lru_cache(maxsize=64)
def _table(keys, first_index):
    return {k: first_index + i for i, k in enumerate(keys)}


def _key(v):
    return v if isinstance(v, bytes) else int(v)


def _lookup_kernel(x, keys, first_index, oov_index, mask_key=None):
    table = _table(keys, first_index)
    flat = x.reshape(-1).tolist()
    out = np.empty(len(flat), np.int64)
    for i, v in enumerate(flat):
        v = _key(v)
        out[i] = 0 if mask_key is not None and v == mask_key else table.get(v, oov_index)
    return out.reshape(x.shape)


LOOKUP = defop("VocabularyLookup", _lookup_kernel, lambda x, **a: (x.shape, _dt.int64))


def lookup(x, keys, first_index, oov_index, mask_key=None):
    """Each entry's index: keys[i] -> first_index + i, mask_key -> 0, anything else -> oov_index."""
    return bind(LOOKUP, (to_tensor(x),), {"keys": tuple(keys), "first_index": int(first_index),
                                          "oov_index": int(oov_index), "mask_key": mask_key})


def _hash_table_kernel(x, keys, values, default, value_dtype):
    table = _table_of(keys, values)
    x = np.asarray(x, dtype=object) if isinstance(x, bytes) else np.asarray(x)  # (a scalar string in a graph)
    flat = x.reshape(-1).tolist()
    np_dtype = object if value_dtype == "string" else _dt.as_dtype(value_dtype).as_numpy_dtype
    out = np.empty(len(flat), np_dtype)
    for i, v in enumerate(flat):
        out[i] = table.get(_key(v) if not isinstance(v, float) else v, default)
    return out.reshape(x.shape)


@functools.lru_cache(maxsize=64)
def _table_of(keys, values):
    return dict(zip(keys, values))


HASH_TABLE = defop("HashTableLookup", _hash_table_kernel,
                   lambda x, value_dtype, **a: (x.shape, _dt.as_dtype(value_dtype)))


def hash_table_lookup(x, keys, values, default, value_dtype):
    """tf.lookup's static tables: keys[i] -> values[i], anything else -> default (keys and values are attrs,
    as the vocabulary above)."""
    return bind(HASH_TABLE, (to_tensor(x),), {"keys": tuple(keys), "values": tuple(values), "default": default,
                                              "value_dtype": _dt.as_dtype(value_dtype).name})


def _invert_kernel(x, tokens, oov_token):
    arr = np.array(list(tokens) + [oov_token], dtype=object if isinstance(oov_token, bytes) else np.int64)
    idx = np.where((x >= 0) & (x < len(tokens)), x, len(tokens))
    return arr[idx]


def _invert_infer(x, tokens, oov_token):
    return x.shape, _dt.string if isinstance(oov_token, bytes) else _dt.int64


INVERT = defop("VocabularyInvert", _invert_kernel, _invert_infer)


def invert(x, tokens, oov_token):
    """Index -> token (tokens[i] for index i; oov_token out of range)."""
    return bind(INVERT, (to_tensor(x),), {"tokens": tuple(tokens), "oov_token": oov_token})


# ---------------------------------------------------------------- text
def standardize(text, mode):
    if mode in ("lower", "lower_and_strip_punctuation"):
        text = text.lower()
    if mode in ("strip_punctuation", "lower_and_strip_punctuation"):
        text = _PUNCTUATION.sub("", text)
    return text


def tokens_of(text, mode, split, ngrams):
    """The tokens of one string (str): standardised, split and extended by the requested n-grams."""
    text = standardize(text, mode)
    if split == "whitespace":
        words = text.split()
    elif split == "character":
        words = list(text)
    else:
        words = [text]
    if not ngrams:
        return words
    out = []
    for n in ngrams:
        out.extend(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
    return out


def _tokenize_kernel(x, standardize, split, ngrams, length):
    rows = [[t.encode() for t in tokens_of(s.decode() if isinstance(s, bytes) else str(s), standardize, split,
                                           ngrams)] for s in x.reshape(-1).tolist()]
    width = length if length is not None else max([len(r) for r in rows] + [0])
    out = np.full((len(rows), width), b"", dtype=object)
    for i, r in enumerate(rows):
        r = r[:width]
        out[i, :len(r)] = r
    return out


def _tokenize_infer(x, standardize, split, ngrams, length):
    n = x.shape[0] if x.shape.rank else None
    return TensorShape([n, length]), _dt.string


TOKENIZE = defop("TextTokenize", _tokenize_kernel, _tokenize_infer)


def tokenize(x, standardize, split, ngrams, length):
    """[N] strings -> [N, width] tokens padded with b"" (width: `length`, else the longest row)."""
    return bind(TOKENIZE, (to_tensor(x),), {"standardize": standardize, "split": split,
                                            "ngrams": tuple(ngrams) if ngrams else None, "length": length})
