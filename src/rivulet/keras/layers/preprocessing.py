"""Preprocessing layers: Normalization (adapt), CategoryEncoding, StringLookup, IntegerLookup, TextVectorization.

Vocabularies learnt by `adapt` are ordered as tf_keras orders them: most frequent first, ties in descending
token order. Index 0 is the mask token when there is one, then the OOV index, then the vocabulary.
"""
import collections

import numpy as np

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.ops import fingerprint, lookup_ops

from .base import Layer


def _batches(data):
    """adapt()'s data as NumPy batches: an array, a tensor, a list, or an iterable of batches (a dataset)."""
    if isinstance(data, (np.ndarray, list, tuple, str, bytes, int, float)) or isinstance(data, tf.Tensor):
        yield np.asarray(data.numpy() if isinstance(data, tf.Tensor) else data)
        return
    for batch in data:
        yield np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch)


# ============================================================================ Normalization
class Normalization(Layer):
    """(x - mean) / sqrt(variance), per feature along `axis`; mean and variance given or learnt by adapt."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        if (mean is None) != (variance is None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        self.input_mean, self.input_variance, self.invert = mean, variance, invert

    def build(self, input_shape):
        shape = tf.TensorShape(input_shape)
        rank = shape.rank
        if rank is None:
            raise ValueError("Normalization needs inputs of known rank")
        keep = tuple(sorted(a % rank for a in self.axis))
        for a in keep:
            if shape[a] is None:
                raise ValueError(f"All `axis` values to be kept must have known shape. Got axis: {self.axis}, "
                                 f"input shape: {shape}, with unknown axis at index: {a}")
        self._keep = keep
        self._broadcast = [shape[a] if a in keep else 1 for a in range(rank)]
        stat_shape = tuple(shape[a] for a in keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", stat_shape, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight("variance", stat_shape, initializer="ones", trainable=False)
            self.count = self.add_weight("count", (), dtype="int64", initializer="zeros", trainable=False)
        self.built = True

    @property
    def mean(self):
        """The mean used, shaped to broadcast against the inputs (e.g. (1, features)), as tf_keras keeps it."""
        return self._stat(self.input_mean, "adapt_mean")

    @property
    def variance(self):
        return self._stat(self.input_variance, "adapt_variance")

    def _stat(self, given, weight):
        if not self.built:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{weight[6:]}'")
        if given is not None:
            stat_shape = [self._broadcast[a] for a in self._keep]
            value = np.asarray(given, np.float64) * np.ones(stat_shape)
            return tf.cast(tf.reshape(tf.constant(value, tf.float32), self._broadcast), self.compute_dtype)
        return tf.cast(tf.reshape(getattr(self, weight), self._broadcast), self.compute_dtype)

    def adapt(self, data, batch_size=None, steps=None):
        if not self.built and self._batch_input_shape is None:
            shape = getattr(data, "shape", None)  # arrays and DataFrames: tf_keras keeps their rank, no sizes
            if shape is not None and not callable(shape):
                try:
                    self._batch_input_shape = (None,) * len(shape)
                except TypeError:
                    pass
        total = mean = m2 = None
        for batch in _batches(data):
            b = batch.astype(np.float64)
            if b.ndim == 0:
                b = b.reshape(1)
            if not self.built:
                shape = (None,) + b.shape[1:] if b.ndim > 1 else (None,)
                self.build(shape)
                self.built = True
                self._built_input_shape = list(shape)  # its build_config: a reloaded model builds it alike
            reduce = tuple(a for a in range(b.ndim) if a not in self._keep)
            n = int(np.prod([b.shape[a] for a in reduce])) if reduce else 1
            bm = b.mean(axis=reduce) if reduce else b
            bv = b.var(axis=reduce) if reduce else np.zeros_like(b)
            if total is None:
                total, mean, m2 = n, bm, bv * n
            else:  # merge two (count, mean, M2) summaries
                delta = bm - mean
                new = total + n
                mean = mean + delta * n / new
                m2 = m2 + bv * n + delta ** 2 * total * n / new
                total = new
        if total is None:
            raise ValueError("Normalization.adapt() got no data")
        self.adapt_mean.assign(np.asarray(mean, np.float32).reshape(self.adapt_mean.shape))
        self.adapt_variance.assign(np.asarray(m2 / total, np.float32).reshape(self.adapt_variance.shape))
        self.count.assign(total)

    def call(self, inputs):
        inputs = tf.cast(tf.convert_to_tensor(inputs), self.dtype)
        if self.input_mean is not None:
            mean = tf.cast(self.input_mean, inputs.dtype)
            var = tf.cast(self.input_variance, inputs.dtype)
            if self._keep and np.ndim(self.input_mean):
                mean, var = tf.reshape(mean, self._broadcast), tf.reshape(var, self._broadcast)
        else:
            mean = tf.reshape(self.adapt_mean, self._broadcast)
            var = tf.reshape(self.adapt_variance, self._broadcast)
        std = tf.maximum(tf.sqrt(var), tf.cast(1e-7, inputs.dtype))
        return mean + inputs * std if self.invert else (inputs - mean) / std

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": _listed(self.input_mean), "variance": _listed(self.input_variance)}


def _listed(v):
    return np.asarray(v).tolist() if v is not None and np.ndim(v) else v


# ============================================================================ CategoryEncoding
def _sparse_if(dense, sparse):
    """sparse=True outputs: the encoded rows as a SparseTensor of their non-zero entries (tf_keras builds them
    with tf.sparse.bincount, whose entries are the same)."""
    return tf.sparse.from_dense(dense) if sparse else dense


def _encode(indices, num_tokens, mode, weights=None):
    """int indices [N] or [N, k] -> [N, num_tokens] float32 (one_hot, multi_hot or count)."""
    if indices.shape.rank == 1 or mode == "one_hot":
        if mode == "one_hot" and indices.shape.rank == 2 and indices.shape[-1] == 1:
            indices = tf.squeeze(indices, [-1])
        if indices.shape.rank == 1:
            indices = tf.expand_dims(indices, -1)
    hot = tf.one_hot(indices, num_tokens, dtype=tf.float32)  # [N, k, num_tokens]
    if mode == "count":
        if weights is not None:
            hot = hot * tf.expand_dims(tf.cast(weights, tf.float32), -1)
        return tf.reduce_sum(hot, axis=-2)
    return tf.reduce_max(hot, axis=-2)


class CategoryEncoding(Layer):
    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None or num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse
        self._autocast = False

    def call(self, inputs, count_weights=None):
        x = tf.convert_to_tensor(inputs)
        if not x.dtype.is_integer:
            x = tf.cast(x, tf.int64)
        if x.shape.rank is not None and x.shape.rank > 2:
            raise ValueError(f"When output_mode is not `'int'`, maximum supported output rank is 2. Received "
                             f"output_mode {self.output_mode} and input shape {x.shape}, which would result in "
                             f"output rank {x.shape.rank + 1}.")
        if tf.executing_eagerly():
            v = x.numpy()
            if v.size and (v.min() < 0 or v.max() >= self.num_tokens):
                raise InvalidArgumentError(f"Input values must be in the range 0 <= values < num_tokens with "
                                           f"num_tokens={self.num_tokens}")
        return _sparse_if(_encode(x, self.num_tokens, self.output_mode, count_weights), self.sparse)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode,
                "sparse": self.sparse}


# ============================================================================ lookups
def _sorted_vocab(counter):
    """tf_keras's order (a reversed lexsort by count, then token): most frequent first, ties in descending
    token order (b"a b" before its prefix b"a")."""
    return [t for t, _ in sorted(counter.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


class _IndexLookup(Layer):
    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=None, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False,
                 encoding="utf-8", **kwargs):
        kwargs.setdefault("dtype", "int64" if not invert or not self._string else "string")
        # Keys tf_keras writes into (or once wrote into) the config that are no constructor arguments: the frozen
        # vocabulary size (recomputed from the vocabulary) and flags of its saved-model saver.
        for key in ("vocabulary_size", "has_input_vocabulary", "has_static_table"):
            kwargs.pop(key, None)
        super().__init__(**kwargs)
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. You passed "
                             f"num_oov_indices={num_oov_indices}")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "one_hot", "multi_hot", "count", "tf_idf"):
            raise ValueError(f"Unknown value for `output_mode`. Expected one of ['int', 'one_hot', 'multi_hot', "
                             f"'count', 'tf_idf']. Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={output_mode} and idf_weights={idf_weights}")
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, `'count'` "
                             f"or `'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode}")
        self.max_tokens, self.num_oov_indices, self.mask_token = max_tokens, num_oov_indices, mask_token
        self.oov_token, self.invert, self.output_mode = oov_token, invert, output_mode
        self.sparse, self.pad_to_max_tokens, self.encoding = sparse, pad_to_max_tokens, encoding
        self._autocast = False
        self._vocab = []
        self._idf = None  # tf_idf: one inverse document frequency per vocabulary token (float32)
        self._idf_head = None  # tf_idf: the OOV columns' weights when given with the vocabulary (else the mean)
        self._has_input_vocabulary = vocabulary is not None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    def _norm(self, token):
        if self._string:
            return token.encode() if isinstance(token, str) else bytes(token)
        return int(token)

    def _out(self, token):
        return token.decode() if isinstance(token, bytes) else token

    def _vocabulary_file(self, path):
        """A vocabulary given as a file path: one token a line (read as text, never executed)."""
        import os
        if not os.path.isfile(path):
            raise ValueError(f"Vocabulary file {path} does not exist.")
        if self.output_mode == "tf_idf":
            raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
        with open(path, encoding=self.encoding or "utf-8", newline="") as f:  # lines end at "\n" only
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        lines = [t[:-1] if t.endswith("\r") else t for t in lines]  # TensorFlow's line reader drops a final \r
        if not self._string:
            try:
                return [int(t) for t in lines]
            except ValueError as e:
                raise ValueError(f"{path}: an integer vocabulary holds a token that is no integer ({e})") from None
        return lines

    def _special_tokens(self):
        """The tokens before the vocabulary: the mask token (in "int" mode), then the OOV tokens."""
        head = [self.mask_token] if self.mask_token is not None and self.output_mode == "int" else []
        return [self._norm(t) for t in head + [self.oov_token] * self.num_oov_indices]

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """The vocabulary (special tokens may lead it, in the layer's order: they are dropped, as tf_keras
        does) and, in "tf_idf" mode, one idf weight per entry."""
        if isinstance(vocabulary, str):
            vocabulary = self._vocabulary_file(vocabulary)
        vocab = [self._norm(t) for t in (vocabulary.numpy() if hasattr(vocabulary, "numpy")
                                         else np.asarray(vocabulary).reshape(-1)).tolist()]
        special = self._special_tokens()
        found_special = bool(special) and vocab[:len(special)] == special
        if found_special:
            vocab = vocab[len(special):]
        reserved = [self._norm(t) for t in (self.mask_token,) if t is not None]
        if self.invert and self.oov_token is not None:
            reserved.append(self._norm(self.oov_token))
        for t in vocab:
            if t in reserved:
                raise ValueError(f"Found reserved tokens in `vocabulary`: {self._out(t)!r}. Reserved tokens (the "
                                 f"mask and OOV tokens) are added by the layer; pass them only at the start of the "
                                 f"vocabulary, in this order: {[self._out(t) for t in special]}.")
        if len(set(vocab)) != len(vocab):
            repeated = [t for t, c in collections.Counter(vocab).items() if c > 1]
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             f"The repeated terms are {[self._out(t) for t in repeated]}")
        idf = None
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'")
            idf = np.asarray(idf_weights.numpy() if hasattr(idf_weights, "numpy") else idf_weights, np.float64)
            if idf.ndim != 1:
                raise ValueError(f"`idf_weights` must be a 1D array. Received: idf_weights.shape={idf.shape}")
            full = len(vocab) + (len(special) if found_special else 0)
            if len(idf) != full:
                raise ValueError(f"`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                                 f"{len(idf)}; len(vocabulary) is {full}")
            idf = idf.astype(np.float32)
            head, idf = (idf[:len(special)], idf[len(special):]) if found_special else (None, idf)
        elif idf_weights is not None:
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={self.output_mode} and idf_weights={idf_weights}")
        self._vocab, self._idf = vocab, idf
        self._idf_head = head if idf is not None else None  # the OOV columns' own weights, when given

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, (list, tuple, str, bytes, np.ndarray)):  # Python strings are not tensors yet
            inputs = tf.constant(inputs)
        return super().__call__(inputs, *args, **kwargs)

    def _reserved(self):
        return (1 if self.mask_token is not None else 0) + self.num_oov_indices

    def get_vocabulary(self, include_special_tokens=True):
        head = []
        if include_special_tokens:
            if self.mask_token is not None and self.output_mode == "int":
                head.append(self._out(self._norm(self.mask_token)))
            head += [self._out(self._norm(self.oov_token))] * self.num_oov_indices
        return head + [self._out(t) for t in self._vocab]

    def vocabulary_size(self):
        return len(self.get_vocabulary())

    # tf_keras keeps an adapted vocabulary out of the config, in `vocabulary.txt` among a `.keras` file's assets
    # (one token a line, special tokens first); rivulet's configs carry it, and these read and write that file.
    def save_assets(self, dir_path):
        if self._has_input_vocabulary:
            return
        import os
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(t) for t in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        if self._has_input_vocabulary:
            return
        import os
        path = os.path.join(dir_path, "vocabulary.txt")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if not self._string:
            try:
                lines = [int(t) for t in lines]
            except ValueError as e:
                raise ValueError(f"{path}: an integer vocabulary holds a token that is no integer ({e})") from None
        special = self._special_tokens()
        norm = [self._norm(t) for t in lines]
        if norm[:len(special)] == special:
            norm = norm[len(special):]
        if self.output_mode == "tf_idf":  # tf_keras keeps the idf weights among the weights, not the assets
            self._vocab, self._idf, self._idf_head = norm, None, None
            return
        self.set_vocabulary([self._out(t) for t in norm])

    def adapt(self, data, batch_size=None, steps=None):
        counter, doc_counter, documents = collections.Counter(), collections.Counter(), 0
        tf_idf = self.output_mode == "tf_idf"
        for batch in _batches(data):
            if tf_idf:
                docs = [[self._norm(t) for t in doc] for doc in self._adapt_documents(batch)]
                for doc in docs:
                    counter.update(doc)
                    doc_counter.update(set(doc))
                documents += len(docs)
            else:
                counter.update(self._norm(t) for t in self._adapt_tokens(batch))
        for t in (self.mask_token, self.oov_token):
            if t is not None:
                counter.pop(self._norm(t), None)
        vocab = _sorted_vocab(counter)
        if self.max_tokens is not None:  # the special tokens' slots: the mask token's only in "int" mode
            vocab = vocab[:max(self.max_tokens - len(self._special_tokens()), 0)]
        self._vocab = vocab
        if tf_idf:  # tf_keras: log(1 + documents / (1 + documents holding the token)), in float64, then float32
            df = np.array([doc_counter[t] for t in vocab], np.float64)
            self._idf = np.log(1 + documents / (1 + df)).astype(np.float32)
            self._idf_head = None

    def _adapt_tokens(self, batch):
        return batch.reshape(-1).tolist()

    def _adapt_documents(self, batch):
        """tf_idf's documents: each row of a batch (each element of a 1-D batch)."""
        if batch.ndim <= 1:
            return [[t] for t in batch.reshape(-1).tolist()]
        return [row.reshape(-1).tolist() for row in batch]

    def _config_idf(self):
        if self._idf is None or not self._vocab:
            return None
        head = self._idf_head.tolist() if self._idf_head is not None else []
        return head + self._idf.tolist()

    def _idf_columns(self, depth):
        """The idf weight of each output column: OOV columns weigh the vocabulary's mean, padding 0."""
        idf = self._idf if self._idf is not None else np.zeros(0, np.float32)
        mean = np.float32(idf.mean()) if idf.size else np.float32(0)
        head = self._idf_head if self._idf_head is not None else np.full(self.num_oov_indices, mean, np.float32)
        cols = np.concatenate([head, idf])
        return np.concatenate([cols, np.zeros(max(depth - cols.size, 0), np.float32)])[:depth]

    def _indices(self, x):
        mask = self._norm(self.mask_token) if self.mask_token is not None else None
        oov = 1 if self.mask_token is not None else 0
        if self.num_oov_indices <= 1:
            return lookup_ops.lookup(x, self._vocab, self._reserved(), oov if self.num_oov_indices else -1, mask)
        # Several OOV indices: an unknown token goes to OOV index hash % n, as tf_keras hashes it (FarmHash
        # Fingerprint64 of strings, floormod of integers).
        idx = lookup_ops.lookup(x, self._vocab, self._reserved(), -1, mask)
        if x.dtype == tf.string:
            spread = tf.strings.to_hash_bucket_fast(x, self.num_oov_indices)
        else:
            spread = tf.cast(tf.math.floormod(x, tf.cast(self.num_oov_indices, x.dtype)), tf.int64)
        return tf.where(tf.equal(idx, -1), spread + oov, idx)

    def call(self, inputs):
        x = inputs if isinstance(inputs, tf.Tensor) else tf.convert_to_tensor(inputs)
        if self.invert:
            tokens = self.get_vocabulary()
            tokens = [self._norm(t) for t in tokens]
            oov = self._norm(self.oov_token) if self.oov_token is not None else tokens[0]
            return lookup_ops.invert(x, tokens, oov)
        idx = self._indices(x)
        if self.output_mode == "int":
            return idx
        return self._encoded(idx)

    def _encoded(self, idx):
        """one_hot/multi_hot/count over the vocabulary; the mask token (index 0, if any) has no column."""
        masked = self.mask_token is not None
        depth = self.vocabulary_size()  # the mask token is not listed outside "int" mode
        if self.pad_to_max_tokens and self.max_tokens:
            depth = self.max_tokens
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = _encode(idx, depth + (1 if masked else 0), mode)
        out = out[:, 1:] if masked else out
        if self.output_mode == "tf_idf":
            out = out * tf.constant(self._idf_columns(depth))
        return _sparse_if(out, self.sparse)

    def get_config(self):
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode, "sparse": self.sparse,
                "pad_to_max_tokens": self.pad_to_max_tokens,
                "idf_weights": self._config_idf(),
                "vocabulary": ((self.get_vocabulary() if self._idf_head is not None else None)
                               or [self._out(t) for t in self._vocab] or None),
                "vocabulary_size": self.vocabulary_size(), "encoding": self.encoding}


class StringLookup(_IndexLookup):
    """Strings -> int64 indices (or, inverted, indices -> strings)."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 **kwargs):
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, **kwargs)


class IntegerLookup(_IndexLookup):
    """Integers -> int64 indices (or, inverted, indices -> integers); OOV token -1."""
    _string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", **kwargs):
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, **kwargs)
        self.vocabulary_dtype = vocabulary_dtype

    def get_config(self):
        config = super().get_config()
        config.pop("encoding")
        return {**config, "vocabulary_dtype": self.vocabulary_dtype}


class TextVectorization(_IndexLookup):
    """Strings -> token indices (or multi_hot/count vectors): standardise, split, n-grams, then look up."""

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", **kwargs):
        if standardize not in (None, "lower", "strip_punctuation", "lower_and_strip_punctuation") and \
                not callable(standardize):
            raise ValueError(f"Unknown value for standardize: {standardize}")
        if split not in (None, "whitespace", "character") and not callable(split):
            raise ValueError(f"Unknown value for split: {split}")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} and "
                             f"output_mode={output_mode}")
        if ragged and output_sequence_length is not None:
            raise ValueError(f"`output_sequence_length` must not be set if ragged is True. Received: "
                             f"ragged={ragged} and output_sequence_length={output_sequence_length}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                             f"output_sequence_length={output_sequence_length}.")
        self.standardize, self.split, self.output_sequence_length, self.ragged = \
            standardize, split, output_sequence_length, ragged
        self.ngrams = ngrams
        self._ngrams = None if ngrams is None else tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) \
            else tuple(ngrams)
        kwargs.setdefault("dtype", "string")
        super().__init__(max_tokens, 1, "", "[UNK]", vocabulary, idf_weights=idf_weights, output_mode=output_mode,
                         pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, encoding=encoding, **kwargs)

    def _standardized(self, x):
        return self.standardize(x) if callable(self.standardize) else x

    def _adapt_tokens(self, batch):
        return [t for doc in self._adapt_documents(batch) for t in doc]

    def _pretokenized(self, rank, last):
        return self.split is None and self._ngrams is None and rank == 2 and last != 1

    def _adapt_documents(self, batch):
        """Each string's tokens (standardised, split, n-grams); with split=None, a [batch, tokens] row's."""
        mode = None if callable(self.standardize) else self.standardize
        if callable(self.standardize):
            batch = np.asarray(self.standardize(tf.constant(batch)).numpy())

        def toks(s):
            return lookup_ops.tokens_of(s.decode() if isinstance(s, bytes) else str(s), mode, self.split,
                                        self._ngrams)
        if callable(self.split):
            return [[t.decode() if isinstance(t, bytes) else t for t in row]
                    for row in self._split_by_callable(tf.constant(batch.reshape(-1)), mode).to_list()]
        if self._pretokenized(batch.ndim, batch.shape[-1] if batch.ndim else None):
            return [[t for s in row.tolist() for t in toks(s)] for row in batch]
        return [toks(s) for s in batch.reshape(-1).tolist()]

    def _split_by_callable(self, x, mode):
        """[N] strings -> their tokens by the user's split function (after the standardisation mode), with the
        layer's n-grams, as a RaggedTensor."""
        if mode is not None:
            x = tf.reshape(lookup_ops.tokenize(x, mode, None, None, 1), [-1])
        tokens = self.split(x)
        if not isinstance(tokens, tf.RaggedTensor):
            tokens = tf.RaggedTensor.from_tensor(tokens)
        if self._ngrams:
            tokens = tf.strings.ngrams(tokens, self._ngrams, separator=" ")
        return tokens

    def call(self, inputs):
        x = inputs if isinstance(inputs, tf.Tensor) else tf.constant(np.asarray(inputs, dtype=object))
        if x.shape.rank == 2 and x.shape[-1] == 1:
            x = tf.squeeze(x, [-1])
        x = self._standardized(x)
        mode = None if callable(self.standardize) else self.standardize
        length = self.output_sequence_length if self.output_mode == "int" else None
        if callable(self.split):
            tokens = self._split_by_callable(x, mode).to_tensor(default_value=b"")
            if length is not None:
                blank = tf.fill(tf.stack([tf.shape(tokens)[0], length]), tf.constant(b""))
                tokens = tf.concat([tokens, blank], axis=1)[:, :length]
        elif self._pretokenized(x.shape.rank, x.shape[-1] if x.shape.rank else None):
            # split=None on [batch, tokens]: each row is already a sample's tokens (standardised one by one)
            tokens = tf.reshape(lookup_ops.tokenize(tf.reshape(x, [-1]), mode, None, None, 1), tf.shape(x))
            if length is not None:  # pad with "" (the mask token) and cut to output_sequence_length
                blank = tf.fill(tf.stack([tf.shape(tokens)[0], length]), tf.constant(b""))
                tokens = tf.concat([tokens, blank], axis=1)[:, :length]
        else:
            tokens = lookup_ops.tokenize(x, mode, self.split, self._ngrams, length)
        idx = self._indices(tokens)
        if self.output_mode == "int":
            # ragged: each row's own tokens (the padding "" is the mask token, index 0, and nothing else is)
            return tf.RaggedTensor.from_tensor(idx, padding=0) if self.ragged else idx
        return self._encoded(idx)

    def get_config(self):
        config = super().get_config()
        for k in ("invert", "num_oov_indices", "oov_token", "mask_token", "vocabulary_dtype"):
            config.pop(k, None)
        return {**config, "standardize": self.standardize if not callable(self.standardize) else None,
                "split": self.split if not callable(self.split) else None, "ngrams": self.ngrams, "output_sequence_length": self.output_sequence_length,
                "ragged": self.ragged}


# ============================================================================ Hashing, HashedCrossing, Discretization
_MODES = ("int", "one_hot", "multi_hot", "count")


def _check_mode(layer, output_mode, allowed=_MODES):
    if output_mode not in allowed:
        raise ValueError(f"Unknown value for `output_mode`. Expected one of {list(allowed)}. Received: "
                         f"output_mode={output_mode}")


def _encode_categorical(indices, output_mode, depth, dtype):
    """tf_keras's encode_categorical_inputs, dense: int -> cast; one_hot/multi_hot/count -> [.., depth]."""
    if output_mode == "int":
        return tf.identity(tf.cast(indices, dtype))
    if indices.shape.rank == 0:
        indices = tf.expand_dims(indices, -1)
    if output_mode == "one_hot" and indices.shape[-1] != 1:
        indices = tf.expand_dims(indices, -1)
    if indices.shape.rank is not None and indices.shape.rank > 2:
        raise ValueError(f"When output_mode is not `'int'`, maximum supported output rank is 2. Received "
                         f"output_mode {output_mode} and input shape {indices.shape}, which would result in output "
                         f"rank {indices.shape.rank}.")
    return tf.cast(_encode(indices, depth, output_mode), dtype)


class _StringInputs(Layer):
    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, (list, str, bytes, np.ndarray)):
            inputs = tf.constant(inputs)
        return super().__call__(inputs, *args, **kwargs)


def _output_dtype(kwargs, output_mode):
    """Hashing's and Discretization's dtype, as tf_keras sets it: int64 for indices, float32 for encodings."""
    if kwargs.get("dtype") is None:
        kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
    elif output_mode == "int" and not tf.as_dtype(kwargs["dtype"]).is_integer:
        kwargs["dtype"] = "int64"


class Hashing(_StringInputs):
    """Strings or integers -> hash bins: FarmHash Fingerprint64 (TensorFlow's, so bins match), or SipHash-2-4
    with `salt`; bin 0 is reserved for `mask_value` when it is set. Integers are hashed as their decimal text."""

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             f"num_bins={num_bins}.")
        _output_dtype(kwargs, output_mode)
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if sparse and output_mode == "int":
            raise ValueError(f'`sparse` may only be true if `output_mode` is `"one_hot"`, `"multi_hot"`, or '
                             f'`"count"`. Received: sparse={sparse} and output_mode={output_mode}')
        self.num_bins, self.mask_value, self.output_mode, self.sparse = num_bins, mask_value, output_mode, sparse
        self.strong_hash = salt is not None
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2:
                self.salt = list(salt)
            elif isinstance(salt, int):
                self.salt = [salt, salt]
            else:
                raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
        self._autocast = False

    def _hash_values_to_bins(self, values):
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = tf.equal(values, tf.cast(self.mask_value, values.dtype) if values.dtype != tf.string
                            else self.mask_value)
        if values.dtype.is_integer:
            values = tf.strings.as_string(values)
        elif values.dtype != tf.string:
            raise ValueError(f"`Hashing` takes string or integer inputs. Received: dtype={values.dtype.name}")
        if self.strong_hash:
            out = tf.strings.to_hash_bucket_strong(values, bins, key=self.salt, name="hash")
        else:
            out = tf.strings.to_hash_bucket_fast(values, bins, name="hash")
        if mask is not None:
            out = out + tf.ones_like(out)
            out = tf.where(mask, tf.zeros_like(out), out)
        return out

    def call(self, inputs):
        composite = _map_composite(inputs, self._hash_values_to_bins, self.output_mode, "Hashing")
        if composite is not None:
            return composite
        x = inputs if isinstance(inputs, tf.Tensor) else tf.convert_to_tensor(inputs)
        return _sparse_if(_encode_categorical(self._hash_values_to_bins(x), self.output_mode, self.num_bins,
                                              self.dtype), self.sparse)

    def compute_output_shape(self, input_shape):
        return _categorical_shape(input_shape, self.output_mode, self.num_bins)

    def get_config(self):
        base = super().get_config()
        for k in ("num_bins", "salt", "mask_value", "output_mode", "sparse"):
            base.pop(k, None)
        return {**base, "num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                "output_mode": self.output_mode, "sparse": self.sparse}


def _map_composite(inputs, fn, output_mode, name):
    """A SparseTensor or RaggedTensor input keeps its structure with fn applied to its values ("int" mode only;
    None for dense inputs)."""
    if isinstance(inputs, tf.SparseTensor):
        kind = "SparseTensor"
    elif isinstance(inputs, tf.RaggedTensor):
        kind = "RaggedTensor"
    else:
        return None
    if output_mode != "int":
        raise NotImplementedError(f"rivulet's {name} layer encodes {kind} inputs in output_mode='int' only")
    if kind == "SparseTensor":
        return tf.SparseTensor(inputs.indices, fn(inputs.values), inputs.dense_shape)
    return tf.ragged.map_flat_values(fn, inputs)


def _categorical_shape(input_shape, output_mode, depth):
    shape = tf.TensorShape(input_shape).as_list()
    if output_mode == "int":
        return tf.TensorShape(shape)
    if not shape:
        return tf.TensorShape([depth])
    if output_mode == "one_hot" and shape[-1] != 1:
        return tf.TensorShape(shape + [depth])
    return tf.TensorShape(shape[:-1] + [depth])


class HashedCrossing(_StringInputs):
    """Crosses two or more scalar features per sample into hash bins, as `tf.sparse.cross_hashed` does
    (FarmHash fingerprints of strings and the bits of integers, combined with FingerprintCat64)."""

    def __init__(self, num_bins, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if output_mode == "int" and not tf.as_dtype(self.dtype).is_integer:
            raise ValueError(f"When `output_mode='int'`, `dtype` should be an integer type. Received: "
                             f"dtype={kwargs['dtype']}")
        _check_mode(self, output_mode, ("int", "one_hot"))
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, sparse
        self._autocast = False

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, (list, tuple)):
            inputs = type(inputs)(tf.constant(x) if isinstance(x, (list, str, bytes, np.ndarray)) else x
                                  for x in inputs)
        return Layer.__call__(self, inputs, *args, **kwargs)

    @staticmethod
    def _check_two(inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"`HashedCrossing` should be called on a list or tuple of inputs. Received: "
                             f"inputs={inputs}")
        if len(inputs) < 2:
            raise ValueError(f"`HashedCrossing` should be called on at least two inputs. Received: inputs={inputs}")

    def call(self, inputs):
        self._check_two(inputs)
        inputs = [x if isinstance(x, tf.Tensor) else tf.convert_to_tensor(x) for x in inputs]
        first = inputs[0].shape.as_list()
        rank = len(first)
        if rank > 2 or (rank == 2 and first[-1] != 1):
            raise ValueError(f"All `HashedCrossing` inputs should have shape `[]`, `[batch_size]` or "
                             f"`[batch_size, 1]`. Received: inputs={inputs}")
        if not all(x.shape.as_list() == first for x in inputs[1:]):
            raise ValueError(f"All `HashedCrossing` inputs should have equal shape. Received: inputs={inputs}")
        if not all(x.dtype.is_integer or x.dtype == tf.string for x in inputs):
            raise ValueError(f"All `HashedCrossing` inputs should have an integer or string dtype. Received: "
                             f"inputs={inputs}")
        flat = [tf.reshape(x, [-1]) for x in inputs]
        out = fingerprint.cross_hashed_dense(flat, self.num_bins)
        if rank == 2:
            out = tf.reshape(out, [-1, 1])
        elif rank == 0:
            out = tf.reshape(out, [])
        return _sparse_if(_encode_categorical(out, self.output_mode, self.num_bins, self.dtype),
                          self.sparse and self.output_mode != "int")

    def compute_output_shape(self, input_shapes):
        self._check_two(input_shapes)
        return _categorical_shape(input_shapes[0], self.output_mode, self.num_bins)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse}


# ---------------------------------------------------------------- Discretization
def _summarize(values, epsilon):
    """tf_keras's quantile summary of one batch: every step-th sorted value, each weighing step."""
    values = np.sort(values.reshape(-1).astype(np.float32))
    increment = int(np.float32(values.size) / np.float32(1.0 / epsilon))
    step = max(increment, 1)
    bounds = values[increment::step]
    return np.stack([bounds, np.full(bounds.shape, step, np.float32)])


def _compress(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    cum_percents = cum / cum[-1]
    bins = np.interp(percents, cum_percents, summary[0])
    cum = np.interp(percents, cum_percents, cum)
    weights = cum - np.concatenate((np.array([0]), cum[:-1]))
    return np.stack((bins, weights)).astype(np.float32)


class Discretization(Layer):
    """Buckets numbers by `bin_boundaries` (given, or learnt by `adapt` as `num_bins` approximate quantiles, as
    tf_keras computes them); output "int" indices or one_hot/multi_hot/count encodings."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 **kwargs):
        if "bins" in kwargs:
            bins = kwargs.pop("bins")
            if isinstance(bins, int) and num_bins is None:
                num_bins = bins
            elif bin_boundaries is None:
                bin_boundaries = bins
        _output_dtype(kwargs, output_mode)
        super().__init__(**kwargs)
        _check_mode(self, output_mode)
        if sparse and output_mode == "int":
            raise ValueError(f"`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, or "
                             f"`'count'`. Received: sparse={sparse} and output_mode={output_mode}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. You passed `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(f"Both `num_bins` and `bin_boundaries` should not be set. You passed "
                             f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")
        if bin_boundaries is not None:
            bin_boundaries = np.asarray(bin_boundaries.numpy() if hasattr(bin_boundaries, "numpy")
                                        else bin_boundaries).tolist()
        self.input_bin_boundaries = bin_boundaries
        self.bin_boundaries = bin_boundaries if bin_boundaries is not None else []
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        self._autocast = False

    def adapt(self, data, batch_size=None, steps=None):
        if self.input_bin_boundaries is not None:
            raise ValueError(f"Cannot adapt a Discretization layer that has been initialized with "
                             f"`bin_boundaries`, use `num_bins` instead. You passed "
                             f"`bin_boundaries={self.input_bin_boundaries}`.")
        if self.num_bins is None:
            raise ValueError("Discretization.adapt() needs `num_bins`")
        summary = np.zeros((2, 0), np.float32)
        size = batch_size or 32  # arrays are adapted in batches of 32 rows, as tf_keras' data adapter cuts them
        seen = False
        for batch in _batches(data):
            parts = [batch] if not _is_array_input(data) or batch.ndim == 0 else \
                [batch[i:i + size] for i in range(0, len(batch), size)]
            for part in parts:
                merged = np.concatenate((_summarize(np.asarray(part), self.epsilon), summary), axis=1)
                merged = merged[:, np.argsort(merged[0], kind="stable")]
                summary = _compress(merged, self.epsilon)
                seen = True
        if not seen:
            raise ValueError("Discretization.adapt() got no data")
        self._finalize(summary)
        if not self.built:
            self.built = True

    def _finalize(self, summary):
        self._summary = summary
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    # tf_keras keeps an adapted layer's quantile summary as a (2, None) float32 weight ("vars/0" of a .keras file)
    # and recomputes the boundaries from it; these give a loader that state in tf_keras' store form.
    def save_own_variables(self, store):
        if self.input_bin_boundaries is None and getattr(self, "_summary", None) is not None:
            store["0"] = np.asarray(self._summary, np.float32)

    def load_own_variables(self, store):
        if self.input_bin_boundaries is not None or "0" not in store:
            return
        summary = np.asarray(store["0"], np.float32)
        if summary.ndim != 2 or summary.shape[0] != 2:
            raise ValueError(f"Discretization's summary weight must have shape (2, n); got {summary.shape}")
        if summary.shape[1] and self.num_bins:
            self._finalize(summary)

    def call(self, inputs):
        composite = _map_composite(inputs, lambda v: tf.cast(_bucketize(v, self.bin_boundaries), self.dtype),
                                   self.output_mode, "Discretization")
        if composite is not None:
            return composite
        x = inputs if isinstance(inputs, tf.Tensor) else tf.convert_to_tensor(inputs)
        idx = _bucketize(x, self.bin_boundaries)
        return _sparse_if(_encode_categorical(idx, self.output_mode, len(self.bin_boundaries) + 1, self.dtype),
                          self.sparse)

    def compute_output_shape(self, input_shape):
        return _categorical_shape(input_shape, self.output_mode, len(self.bin_boundaries) + 1) \
            if self.output_mode != "int" else tf.TensorShape(input_shape)

    def get_config(self):
        boundaries, num_bins = self.input_bin_boundaries, self.num_bins
        if boundaries is None and self.bin_boundaries:  # adapted: keep what was learnt (tf_keras keeps a summary
            boundaries, num_bins = list(self.bin_boundaries), None  # weight instead)
        return {**super().get_config(), "bin_boundaries": boundaries, "num_bins": num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode, "sparse": self.sparse}


def _is_array_input(data):
    return isinstance(data, (np.ndarray, list, tuple)) or isinstance(data, tf.Tensor)


def _bucketize(x, boundaries):
    """TensorFlow's Bucketize: for each value, how many boundaries are <= it (int32; boundaries are float32)."""
    values = tf.cast(x, tf.float64)
    edges = tf.constant(np.asarray(boundaries, np.float32).astype(np.float64).reshape(1, -1))
    flat = tf.reshape(values, [1, -1])
    return tf.reshape(tf.searchsorted(edges, flat, side="right", out_type=tf.int32), tf.shape(values))
