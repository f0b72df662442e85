"""tf.lookup: KeyValueTensorInitializer, StaticHashTable, StaticVocabularyTable (TensorFlow 2.21).

A table's keys and values are fixed when it is made (from eager tensors); its lookup is one op holding them,
so it runs eagerly, in tf.function and in tf.data's map, and is saved with the graph that uses it. Out-of-
vocabulary keys of a StaticVocabularyTable go to `size + Fingerprint64(key as a string) % num_oov_buckets`,
TensorFlow's buckets.
"""
import numpy as np

import rivulet as tf
from rivulet.ops import lookup_ops as _ops

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "experimental"]


def _python(values, dtype):
    a = values.numpy() if hasattr(values, "numpy") else np.asarray(values)
    a = a.reshape(-1)
    if dtype == tf.string:
        return tuple(v if isinstance(v, bytes) else str(v).encode() for v in a.tolist())
    if dtype.is_floating:
        return tuple(float(v) for v in a.tolist())
    if dtype == tf.bool:
        return tuple(bool(v) for v in a.tolist())
    return tuple(int(v) for v in a.tolist())


class KeyValueTensorInitializer:
    """The keys and values a static table is made from (two 1-D tensors of the same length)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        if not tf.executing_eagerly() and not isinstance(keys, (list, tuple, np.ndarray, range)):
            raise NotImplementedError("rivulet's tf.lookup tables are made from eager keys and values (make the "
                                      "table outside tf.function)")
        self._keys = tf.convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = tf.convert_to_tensor(list(values) if isinstance(values, range) else values,
                                            dtype=value_dtype, name="values")
        if self._keys.shape.rank != 1 or self._values.shape.rank != 1 or \
                self._keys.shape[0] != self._values.shape[0]:
            raise tf.errors.InvalidArgumentError(
                None, None, f"Expected shape {self._keys.shape} for keys and values to be the same 1-D shape, "
                            f"got values of shape {self._values.shape}")
        self._name = name or "key_value_init"

    key_dtype = property(lambda self: self._keys.dtype)
    value_dtype = property(lambda self: self._values.dtype)

    def _pairs(self):
        return _python(self._keys, self.key_dtype), _python(self._values, self.value_dtype)


def _check_keys(keys, key_dtype):
    if isinstance(keys, (tf.SparseTensor, tf.RaggedTensor)):
        return keys
    keys = tf.convert_to_tensor(keys, dtype=key_dtype if not isinstance(keys, tf.Tensor) else None)
    if keys.dtype != key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype}, received: {keys.dtype}")
    return keys


def _on_values(keys, fn):
    """fn on a tensor, or on the values of a SparseTensor/RaggedTensor (keeping its structure)."""
    if isinstance(keys, tf.SparseTensor):
        return tf.SparseTensor(keys.indices, fn(keys.values), keys.dense_shape)
    if isinstance(keys, tf.RaggedTensor):
        return keys.with_flat_values(fn(keys.flat_values))
    return fn(keys)


class StaticHashTable:
    """A table of the initializer's keys -> values; other keys give `default_value`."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._keys, self._values = initializer._pairs()
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        self._default_value = tf.convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.rank != 0:
            raise ValueError(f"Default value must be a scalar, got shape {self._default_value.shape}")
        self._default = _python(self._default_value, self._value_dtype)[0]
        self._name = name or "hash_table"

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default_value)
    name = property(lambda self: self._name)

    def size(self, name=None):
        return tf.constant(len(self._keys), tf.int64)

    def lookup(self, keys, name=None):
        keys = _check_keys(keys, self._key_dtype)
        return _on_values(keys, lambda k: _ops.hash_table_lookup(k, self._keys, self._values, self._default,
                                                                 self._value_dtype))

    __getitem__ = lookup

    def export(self, name=None):
        return (tf.constant(list(self._keys), self._key_dtype), tf.constant(list(self._values), self._value_dtype))


class StaticVocabularyTable:
    """Keys of the initializer -> their int64 ids; any other key -> one of `num_oov_buckets` ids after them
    (its Fingerprint64 as a string, as TensorFlow hashes it)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer is not None and initializer.value_dtype != tf.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {tf.int64} but got {initializer.value_dtype}.")
        self._num_oov_buckets = int(num_oov_buckets)
        self._table = StaticHashTable(initializer, -1) if initializer is not None else None
        key_dtype = self._table.key_dtype if self._table is not None else (lookup_key_dtype or tf.string)
        if lookup_key_dtype is not None and self._table is not None and lookup_key_dtype != key_dtype:
            if not (key_dtype == tf.int64 and lookup_key_dtype in (tf.int32, tf.int64)):
                raise TypeError(f"Invalid `key_dtype`, expected {key_dtype} but got {lookup_key_dtype}.")
        self._key_dtype = lookup_key_dtype or key_dtype
        self._name = name or "hash_table"

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: tf.int64)
    name = property(lambda self: self._name)

    def size(self, name=None):
        size = self._table.size() if self._table is not None else tf.constant(0, tf.int64)
        return size + self._num_oov_buckets

    def lookup(self, keys, name=None):
        keys = _check_keys(keys, self._key_dtype)

        def ids(values):
            if self._table is not None and self._table.key_dtype == tf.int64 and values.dtype != tf.int64:
                values = tf.cast(values, tf.int64)
            as_text = values if values.dtype == tf.string else tf.strings.as_string(values)
            buckets = tf.strings.to_hash_bucket_fast(as_text, self._num_oov_buckets)
            if self._table is None:
                return buckets
            found = self._table.lookup(values)
            return tf.where(tf.not_equal(found, -1), found, buckets + self._table.size())
        return _on_values(keys, ids)

    __getitem__ = lookup


class experimental:  # noqa: N801  (tf.lookup.experimental)
    pass
