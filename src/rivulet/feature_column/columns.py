"""tf.feature_column: feature columns turn a dict of raw feature tensors into dense model inputs.

Each column is a named tuple as in TensorFlow (same fields, reprs and names). Categorical columns give, per
example, a padded row of ids: `_Ids(ids [batch, k] int64, present [batch, k] bool, weights or None)`, where
`present` is False for the ignored inputs (TensorFlow drops '' and -1 before looking them up) and their ids are
-1. An id of -1 that is present (an out-of-vocabulary value without OOV buckets) still takes part in crosses,
as in TensorFlow; indicator and embedding columns skip negative ids. Everything is built from the ops of the
public API, so a column works eagerly, in tf.function and under a GradientTape (embedding tables).
"""
import collections
import math

import numpy as np

import rivulet as tf
from rivulet.ops import fingerprint as _fp
from rivulet.ops import lookup_ops as _lookup

_Ids = collections.namedtuple("_Ids", ["ids", "present", "weights"])


# ------------------------------------------------------------------------------------------------ base classes
class FeatureColumn:
    """Base of every column (TensorFlow's feature_column_v2.FeatureColumn)."""
    __slots__ = ()

    @property
    def parents(self):
        return []

    def get_config(self):
        return {f: _serialize_value(getattr(self, f)) for f in self._fields}

    @classmethod
    def from_config(cls, config, custom_objects=None, columns_by_name=None):
        kwargs = {k: _deserialize_value(v, custom_objects, columns_by_name) for k, v in config.items()}
        if "dtype" in kwargs and kwargs["dtype"] is not None:
            kwargs["dtype"] = tf.as_dtype(kwargs["dtype"])
        for k in ("shape", "boundaries", "vocabulary_list", "default_value", "keys"):
            if isinstance(kwargs.get(k), list):
                kwargs[k] = _tupled(kwargs[k])
        return cls(**kwargs)


class DenseColumn(FeatureColumn):
    __slots__ = ()


class CategoricalColumn(FeatureColumn):
    __slots__ = ()


class _KeyedCategoricalColumn(CategoricalColumn):
    """A categorical column reading one feature, `key` (its name), parsed as a VarLenFeature of `dtype`."""
    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: tf.io.VarLenFeature(self.dtype)}


def _tupled(v):
    return tuple(_tupled(x) for x in v) if isinstance(v, (list, tuple)) else v


def _serialize_value(v):
    if isinstance(v, FeatureColumn):
        return serialize_feature_column(v)
    if isinstance(v, tf.DType):
        return v.name
    if isinstance(v, tuple) and any(isinstance(x, FeatureColumn) for x in v):
        return tuple(_serialize_value(x) for x in v)
    return v


def _deserialize_value(v, custom_objects, columns_by_name):
    if isinstance(v, dict) and "class_name" in v and "config" in v:
        return deserialize_feature_column(v, custom_objects, columns_by_name)
    if isinstance(v, (list, tuple)) and any(isinstance(x, dict) for x in v):
        return tuple(_deserialize_value(x, custom_objects, columns_by_name) for x in v)
    return v


# ------------------------------------------------------------------------------------------------ input helpers
def _raw(features, key):
    """The feature as a dense tensor, rank >= 2 (a [batch] feature becomes [batch, 1], as TensorFlow does)."""
    if key not in features:
        raise ValueError(f"Feature {key} is not in features dictionary.")
    x = features[key]
    if isinstance(x, tf.SparseTensor):
        fill = "" if x.dtype == tf.string else -1 if x.dtype.is_integer else 0
        x = tf.sparse.to_dense(x, default_value=tf.constant(fill, x.dtype))
    elif not isinstance(x, tf.Tensor):
        x = tf.convert_to_tensor(np.asarray(x) if isinstance(x, (list, tuple)) else x)
    if x.shape.rank == 0:
        raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {x}")
    if x.shape.rank == 1:
        x = tf.expand_dims(x, -1)
    return x


def _flat2(x):
    """[batch, ...] -> [batch, k]."""
    if x.shape.rank == 2:
        return x
    return tf.reshape(x, [tf.shape(x)[0], -1])


def _ignored(x):
    """TensorFlow's ignore value of a categorical input: '' for strings, -1 for integers."""
    return tf.equal(x, "") if x.dtype == tf.string else tf.equal(x, tf.constant(-1, x.dtype))


def _check_categorical_input(column, x):
    if x.dtype != tf.string and not x.dtype.is_integer:
        raise ValueError(f"column_name: {column.key} input_tensor dtype must be string or integer. "
                         f"dtype: {x.dtype}.")
    if column.dtype.is_integer != x.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {column.key}, column "
                         f"dtype: {column.dtype}, tensor dtype: {x.dtype}")


def _with_present(ids, x):
    present = tf.logical_not(_ignored(x))
    return _Ids(tf.where(present, ids, tf.constant(-1, tf.int64)), present, None)


# ------------------------------------------------------------------------------------------------ numeric
class NumericColumn(DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued feature."""
    __slots__ = ()

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: tf.io.FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        return tf.TensorShape(self.shape)

    def _dense(self, features, cache):
        if isinstance(features.get(self.key), tf.SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is "
                             f"not supported. key: {self.key}")
        x = _raw(features, self.key)
        if x.dtype == tf.string:
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {self.key}, "
                             f"column dtype: {self.dtype}, tensor dtype: {x.dtype}")
        if self.normalizer_fn is not None:
            x = self.normalizer_fn(x)
        x = tf.cast(x, tf.float32)
        return tf.reshape(x, (-1,) + tuple(self.shape))

    def get_config(self):
        config = super().get_config()
        config["normalizer_fn"] = _serialize_fn(self.normalizer_fn)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, columns_by_name=None):
        config = dict(config)
        config["normalizer_fn"] = _deserialize_fn(config.get("normalizer_fn"), custom_objects)
        return super().from_config(config, custom_objects, columns_by_name)


def _serialize_fn(fn):
    if fn is None:
        return None
    name = getattr(fn, "__name__", None)
    if not name or name == "<lambda>":
        return None if name is None else name
    return name


def _deserialize_fn(name, custom_objects):
    if name is None or callable(name):
        return name
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    raise ValueError(f"Unknown normalizer_fn: {name!r}. Please ensure this object is passed to the "
                     f"`custom_objects` argument.")


def _check_shape(shape, key):
    if shape is None:
        raise ValueError("shape cannot be None.")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for d in shape:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return tuple(int(d) for d in shape)


def numeric_column(key, shape=(1,), default_value=None, dtype=tf.float32, normalizer_fn=None):
    """A real-valued column: the feature cast to float32 (after `normalizer_fn`), of `shape` per example."""
    _check_key(key)
    shape = _check_shape(shape, key)
    dtype = tf.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if default_value is not None:
        arr = np.asarray(default_value)
        if arr.dtype == object or arr.dtype.kind not in "biuf":
            raise TypeError(f"default_value must be compatible with dtype. default_value: {default_value}, "
                            f"dtype: {dtype}, key: {key}")
        if arr.ndim and arr.shape != shape:
            raise ValueError(f"The shape of default_value must be equal to given shape. default_value: "
                             f"{default_value}, shape: {shape}, key: {key}")
        default_value = _tupled(np.broadcast_to(arr, shape).astype(dtype.as_numpy_dtype).tolist())
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def _check_key(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Given: {key}")


# ------------------------------------------------------------------------------------------------ bucketized
class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column discretised by boundaries: one-hot in dense use, ids in crosses and embeddings."""
    __slots__ = ()

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def parents(self):
        return [self.source_column]

    @property
    def parse_example_spec(self):
        return self.source_column.parse_example_spec

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * int(np.prod(self.source_column.shape))

    @property
    def variable_shape(self):
        return tf.TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _buckets(self, features, cache):
        x = cache.dense(self.source_column, features)
        b = tf.constant(np.asarray(self.boundaries, np.float32))
        flat = tf.reshape(x, [-1])
        idx = tf.searchsorted(b, flat, side="right", out_type=tf.int64)
        return tf.reshape(idx, tf.shape(x))

    def _dense(self, features, cache):
        return tf.one_hot(self._buckets(features, cache), len(self.boundaries) + 1, dtype=tf.float32)

    def _ids(self, features, cache):
        buckets = _flat2(self._buckets(features, cache))
        n = int(np.prod(self.source_column.shape))
        offsets = tf.constant(np.arange(n, dtype=np.int64) * (len(self.boundaries) + 1))
        ids = buckets + offsets
        return _Ids(ids, tf.ones_like(ids, dtype=tf.bool), None)


def bucketized_column(source_column, boundaries):
    """Buckets of a numeric column: [-inf, b0), [b0, b1), ..., [bn, inf)."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError(f"boundaries must not be empty. Given: {boundaries}")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError(f"boundaries must be a sorted list. Given: {boundaries}")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError(f"boundaries must be a sorted list. Given: {boundaries}")
    return BucketizedColumn(source_column, tuple(boundaries))


# ------------------------------------------------------------------------------------------------ categorical
class HashedCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    __slots__ = ()

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def _ids(self, features, cache):
        x = _flat2(_raw(features, self.key))
        _check_categorical_input(self, x)
        s = x if self.dtype == tf.string else tf.strings.as_string(x)
        return _with_present(tf.strings.to_hash_bucket_fast(s, self.hash_bucket_size), x)


def _check_categorical_dtype(dtype, key):
    dtype = tf.as_dtype(dtype)
    if dtype != tf.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype}, column_name: {key}")
    return dtype


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=tf.string):
    """Ids from hashing the input (TensorFlow's Fingerprint64 string hash; integers hash their decimal text)."""
    _check_key(key)
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, _check_categorical_dtype(dtype, key))


def _vocab_ids(column, x, vocab):
    """Shared by the vocabulary list and file columns: index in vocab, OOV buckets, else default_value."""
    _check_categorical_input(column, x)
    keys = tuple(v.encode() if isinstance(v, str) else v if isinstance(v, bytes) else int(v) for v in vocab)
    look = x if x.dtype == tf.string else tf.cast(x, tf.int64)
    if column.num_oov_buckets:
        ids = _lookup.lookup(look, keys, 0, -1)
        s = x if x.dtype == tf.string else tf.strings.as_string(x)
        spread = tf.strings.to_hash_bucket_fast(s, column.num_oov_buckets) + len(keys)
        ids = tf.where(tf.equal(ids, -1), spread, ids)
    else:
        ids = _lookup.lookup(look, keys, 0, column.default_value)
    return _with_present(ids, x)


class VocabularyListCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    __slots__ = ()

    @property
    def num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _ids(self, features, cache):
        return _vocab_ids(self, _flat2(_raw(features, self.key)), self.vocabulary_list)


def _check_oov(default_value, num_oov_buckets, key):
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Ids from an in-memory vocabulary: position in the list; unknown values -> default_value or OOV buckets."""
    _check_key(key)
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    vocab = tuple(v.decode() if isinstance(v, bytes) else v.item() if isinstance(v, np.generic) else v
                  for v in np.asarray(vocabulary_list, dtype=object).reshape(-1).tolist())
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    is_str = [isinstance(v, str) for v in vocab]
    if all(is_str):
        vocab_dtype = tf.string
    elif not any(is_str) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vocab):
        vocab_dtype = tf.int64
    else:
        raise ValueError(f"Invalid vocabulary dtype: {vocabulary_list}. Column_name: {key}")
    _check_oov(default_value, num_oov_buckets, key)
    if dtype is None:
        dtype = vocab_dtype
    else:
        dtype = _check_categorical_dtype(dtype, key)
        if dtype.is_integer != vocab_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocab_dtype} do not match, column_name: {key}")
    return VocabularyListCategoricalColumn(key, vocab, dtype, default_value, num_oov_buckets)


class VocabularyFileCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype", "default_value", "file_format"))):
    __slots__ = ()

    @property
    def num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    def _vocab(self):
        lines = _read_vocab(self.vocabulary_file)
        if len(lines) < self.vocabulary_size:
            raise tf.errors.InvalidArgumentError(
                None, None, f"Invalid vocab_size in {self.vocabulary_file}: expected {self.vocabulary_size} "
                            f"lines, found {len(lines)}.")
        lines = lines[:self.vocabulary_size]
        if self.dtype.is_integer:
            try:
                return [int(v) for v in lines]
            except ValueError as e:
                raise tf.errors.InvalidArgumentError(
                    None, None, f"Field is not an int64 in {self.vocabulary_file}: {e}") from None
        return lines

    def _ids(self, features, cache):
        return _vocab_ids(self, _flat2(_raw(features, self.key)), cache.vocab(self))


def _read_vocab(path):
    with tf.io.gfile.GFile(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, dtype=tf.string,
                                            default_value=None, num_oov_buckets=0, file_format=None):
    """Ids from a vocabulary file, one value a line (line i -> id i)."""
    _check_key(key)
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if file_format is not None:
        raise NotImplementedError(f"file_format {file_format!r} in {key}: rivulet reads text vocabulary files "
                                  f"(file_format=None) only.")
    if vocabulary_size is None:
        if not tf.io.gfile.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        vocabulary_size = len(_read_vocab(vocabulary_file))
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    return VocabularyFileCategoricalColumn(key, vocabulary_file, vocabulary_size, num_oov_buckets,
                                           _check_categorical_dtype(dtype, key),
                                           -1 if default_value is None else default_value, file_format)


class IdentityCategoricalColumn(_KeyedCategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    __slots__ = ()

    @property
    def num_buckets(self):
        return self.number_buckets

    @property
    def parse_example_spec(self):
        return {self.key: tf.io.VarLenFeature(tf.int64)}

    def _ids(self, features, cache):
        x = _flat2(_raw(features, self.key))
        if not x.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {x.dtype}")
        ids = tf.cast(x, tf.int64)
        present = tf.logical_not(_ignored(ids))
        inside = tf.logical_and(tf.greater_equal(ids, 0), tf.less(ids, self.number_buckets))
        if self.default_value is None:
            ok = tf.reduce_all(tf.logical_or(inside, tf.logical_not(present)))
            tf.debugging.Assert(ok, [f"Bucket ids of {self.key} must be in [0, {self.number_buckets})", ids])
        else:
            ids = tf.where(inside, ids, tf.constant(self.default_value, tf.int64))
        return _Ids(tf.where(present, ids, tf.constant(-1, tf.int64)), present, None)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """The integer input is the id, in [0, num_buckets) (else default_value, or an error without one)."""
    _check_key(key)
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return IdentityCategoricalColumn(key, num_buckets, default_value)


class WeightedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def num_buckets(self):
        return self.categorical_column.num_buckets

    @property
    def parse_example_spec(self):
        spec = dict(self.categorical_column.parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        spec[self.weight_feature_key] = tf.io.VarLenFeature(self.dtype)
        return spec

    def _ids(self, features, cache):
        inner = cache.ids(self.categorical_column, features)
        w = _flat2(_raw(features, self.weight_feature_key))
        if w.dtype == tf.string:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {w.dtype}.")
        w = tf.cast(w, self.dtype)
        present = tf.logical_and(inner.present, tf.not_equal(w, 0))
        return _Ids(tf.where(present, inner.ids, tf.constant(-1, tf.int64)), present, w)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=tf.float32):
    """Gives each id of a categorical column the weight read from another feature."""
    dtype = tf.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


# ------------------------------------------------------------------------------------------------ crossed
class CrossedColumn(CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Hashed conjunctions of categorical features (TensorFlow's SparseCrossHashed: the same ids)."""
    __slots__ = ()

    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in _leaves(self)))

    @property
    def parents(self):
        return list(self.keys)

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    @property
    def parse_example_spec(self):
        spec = {}
        for k in self.keys:
            if isinstance(k, str):
                spec[k] = tf.io.VarLenFeature(tf.string)
            else:
                spec.update(k.parse_example_spec)
        return spec

    def _ids(self, features, cache):
        # TensorFlow's SparseCross takes its sparse inputs (categorical columns, sparse features) before its
        # dense ones (raw dense features, kept whole: '' and -1 are crossed too); the order changes the hash
        parts, dense_parts = [], []
        for key in _leaves(self):
            if isinstance(key, str):
                sparse = isinstance(features.get(key), tf.SparseTensor)
                x = _flat2(_raw(features, key))
                x = x if x.dtype == tf.string else tf.cast(x, tf.int64)
                if sparse:
                    parts.append((x, tf.logical_not(_ignored(x))))
                else:
                    dense_parts.append((x, tf.fill(tf.shape(x), True)))
            else:
                got = cache.ids(key, features)
                if got.weights is not None:
                    raise ValueError(f"crossed_column does not support weight_tensor, but the given column "
                                     f"populates weight_tensor. Given column: {key.name}")
                parts.append((got.ids, got.present))
        parts += dense_parts
        # every combination of one value of each part, row by row (TensorFlow's cross product)
        batch = tf.shape(parts[0][0])[0]
        widths = [p[0].shape[1] for p in parts]
        if any(w is None for w in widths):
            widths = [tf.shape(p[0])[1] for p in parts]
        values, present = [], None
        total = 1
        for w in widths:
            total = total * w
        inner = total
        for (v, p), w in zip(parts, widths):
            inner = inner // w
            outer = total // (inner * w)
            idx = tf.reshape(tf.tile(tf.reshape(tf.tile(tf.reshape(tf.range(w), [-1, 1]), [1, inner]), [1, -1]),
                                     [outer, 1]), [-1])
            vv = tf.gather(v, idx, axis=1)
            pp = tf.gather(p, idx, axis=1)
            values.append(tf.reshape(vv, [-1]))
            present = pp if present is None else tf.logical_and(present, pp)
        hashed = _fp.cross_hashed_dense(values, num_buckets=self.hash_bucket_size,
                                        hash_key=self.hash_key if self.hash_key is not None else None)
        ids = tf.reshape(hashed, [batch, -1])
        return _Ids(tf.where(present, ids, tf.constant(-1, tf.int64)), present, None)


def _leaves(column):
    out = []
    for k in column.keys:
        out.extend(_leaves(k) if isinstance(k, CrossedColumn) else [k])
    return out


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Crosses string feature keys and categorical columns: hash(cross) % hash_bucket_size, as TensorFlow."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column "
                             f"except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as "
                             f"a string. Given: {key}")
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)


# ------------------------------------------------------------------------------------------------ dense wrappers
class IndicatorColumn(DenseColumn, collections.namedtuple("IndicatorColumn", ("categorical_column",))):
    """Multi-hot of a categorical column (counts, or summed weights for a weighted column)."""
    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self):
        return tf.TensorShape([1, self.categorical_column.num_buckets])

    def _dense(self, features, cache):
        got = cache.ids(self.categorical_column, features)
        hot = tf.one_hot(got.ids, self.categorical_column.num_buckets, on_value=1.0, off_value=0.0)
        if got.weights is not None:
            hot = hot * tf.expand_dims(tf.where(got.present, tf.cast(got.weights, tf.float32), 0.0), -1)
        return tf.reduce_sum(hot, axis=-2)


def indicator_column(categorical_column):
    """Dense multi-hot representation of a categorical column."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


class EmbeddingColumn(DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable", "use_safe_embedding_lookup"))):
    """A trainable [num_buckets, dimension] table; each example combines the rows of its ids."""
    __slots__ = ()

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def parents(self):
        return [self.categorical_column]

    @property
    def parse_example_spec(self):
        return self.categorical_column.parse_example_spec

    @property
    def variable_shape(self):
        return tf.TensorShape([self.dimension])

    def create_state(self, layer):
        """The layer's embedding variable, named '<column name>/embedding_weights' as in tf_keras."""
        return layer.add_weight(name=f"{self.name}/embedding_weights",
                                shape=(self.categorical_column.num_buckets, self.dimension), dtype=tf.float32,
                                initializer=self.initializer, trainable=self.trainable)

    def _dense(self, features, cache):
        table = cache.state(self)
        got = cache.ids(self.categorical_column, features)
        valid = tf.logical_and(got.present, tf.greater_equal(got.ids, 0))
        if got.weights is not None:
            valid = tf.logical_and(valid, tf.greater(got.weights, 0))
        ids = tf.where(valid, got.ids, tf.zeros_like(got.ids))
        rows = tf.gather(table, ids)  # [batch, k, dimension]
        if self.max_norm is not None:
            rows = tf.clip_by_norm(rows, self.max_norm, axes=[-1])
        w = tf.where(valid, tf.ones_like(got.ids, dtype=tf.float32) if got.weights is None
                     else tf.cast(got.weights, tf.float32), 0.0)
        total = tf.reduce_sum(rows * tf.expand_dims(w, -1), axis=-2)
        if self.combiner == "sum":
            return total
        if self.combiner == "mean":
            denom = tf.reduce_sum(w, axis=-1, keepdims=True)
        else:  # sqrtn
            denom = tf.sqrt(tf.reduce_sum(w * w, axis=-1, keepdims=True))
        return tf.math.divide_no_nan(total, denom)

    def get_config(self):
        from rivulet.keras.saving.serialization import serialize_keras_object
        config = super().get_config()
        config["initializer"] = serialize_keras_object(self.initializer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, columns_by_name=None):
        from rivulet.keras import initializers
        from rivulet.keras.saving.serialization import deserialize_keras_object
        config = dict(config)
        config["initializer"] = deserialize_keras_object(config["initializer"], custom_objects=custom_objects,
                                                         module_objects=vars(initializers),
                                                         printable_module_name="initializer")
        return super().from_config(config, custom_objects, columns_by_name)


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """Dense low-dimensional embedding of a categorical column (combiner: 'mean', 'sqrtn' or 'sum')."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if ckpt_to_load_from is not None:
        raise NotImplementedError("embedding_column(ckpt_to_load_from=...) is not supported by rivulet: load "
                                  "the checkpoint's tensor and pass it with initializer=tf.constant_initializer.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"Invalid combiner {combiner!r}: use 'mean', 'sqrtn' or 'sum'.")
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    if initializer is None:
        from rivulet.keras import initializers
        initializer = initializers.TruncatedNormal(mean=0.0, stddev=1 / math.sqrt(dimension))
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer, ckpt_to_load_from,
                           tensor_name_in_ckpt, max_norm, trainable, use_safe_embedding_lookup)


# ------------------------------------------------------------------------------------------------ transformations
class TransformationCache:
    """One batch's computed columns (a column used twice is computed once), and the layer's state."""

    def __init__(self, states=None):
        self._dense, self._ids, self._states = {}, {}, states or {}
        self._vocabs = {}

    def dense(self, column, features):
        if column not in self._dense:
            self._dense[column] = column._dense(features, self)
        return self._dense[column]

    def ids(self, column, features):
        if column not in self._ids:
            self._ids[column] = column._ids(features, self)
        return self._ids[column]

    def state(self, column):
        if column not in self._states:
            raise ValueError(f"The state of column {column.name} was not created: use it through "
                             f"tf.keras.layers.DenseFeatures.")
        return self._states[column]

    def vocab(self, column):
        if column not in self._vocabs:
            self._vocabs[column] = column._vocab()
        return self._vocabs[column]


def output_width(column):
    """n of a dense column's [batch, n] part of DenseFeatures' output."""
    if isinstance(column, IndicatorColumn):
        return column.categorical_column.num_buckets
    return int(np.prod(column.variable_shape.as_list()))


def dense_output(columns, features, cache, per_column=None):
    """tf_keras DenseFeatures' computation: each column's dense tensor (from `cache`, a TransformationCache),
    [batch, n], in column name order, concatenated on the last axis; `per_column` (a dict), when given,
    receives each column's [batch, n] tensor (DenseFeatures' cols_to_output_tensors)."""
    outs = []
    for column in sorted(columns, key=lambda c: c.name):
        outs.append(tf.reshape(cache.dense(column, features), [-1, output_width(column)]))
        if per_column is not None:
            per_column[column] = outs[-1]
    return tf.concat(outs, axis=-1)


def check_dense_columns(feature_columns):
    """A list of DenseColumns with unique names (tf_keras's checks and messages)."""
    if isinstance(feature_columns, (FeatureColumn, dict)) or not hasattr(feature_columns, "__iter__"):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("Expected feature_columns to be iterable, found list.")
    names = set()
    for c in feature_columns:
        if not isinstance(c, DenseColumn):
            raise ValueError(f"Items of feature_columns must be a DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {c}")
        if c.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: {c} and another one. This "
                             f"usually means that these columns refer to same base feature. Either one must be "
                             f"discarded or a duplicated but renamed item must be inserted in features dict.")
        names.add(c.name)
    return feature_columns


def make_parse_example_spec(feature_columns):
    """The tf.io.parse_example spec (feature key -> FixedLenFeature/VarLenFeature) of the columns."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: {column}")
        for key, value in column.parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. Given {value} "
                                 f"and {result[key]}")
        result.update(column.parse_example_spec)
    return result


# ------------------------------------------------------------------------------------------------ serialization
_CLASSES = {c.__name__: c for c in (NumericColumn, BucketizedColumn, HashedCategoricalColumn,
                                    VocabularyListCategoricalColumn, VocabularyFileCategoricalColumn,
                                    IdentityCategoricalColumn, WeightedCategoricalColumn, CrossedColumn,
                                    IndicatorColumn, EmbeddingColumn)}


def serialize_feature_column(fc):
    """{'class_name': ..., 'config': ...}; a string key stays a string (as in TensorFlow)."""
    if isinstance(fc, str):
        return fc
    if not isinstance(fc, FeatureColumn):
        raise ValueError(f"Instance: {fc} is not a FeatureColumn")
    return {"class_name": type(fc).__name__, "config": fc.get_config()}


def deserialize_feature_column(config, custom_objects=None, columns_by_name=None):
    if isinstance(config, str):
        return config
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"Improper config format for {config}. Expecting python dict contains `class_name` "
                         f"and `config` as keys")
    cls = (custom_objects or {}).get(config["class_name"]) or _CLASSES.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Unknown feature_column: {config['class_name']}")
    columns_by_name = {} if columns_by_name is None else columns_by_name
    column = cls.from_config(config["config"], custom_objects, columns_by_name)
    return columns_by_name.setdefault(column.name, column)

