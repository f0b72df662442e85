"""tf.experimental.RowPartition and tf.experimental.DynamicRaggedShape: the shape of a RaggedTensor (tf.shape of
one), a list of row partitions (one per ragged dimension) over an inner dense shape. tf.reshape, tf.zeros,
tf.ones and tf.fill accept one and build a RaggedTensor of that shape."""
import numpy as np

from .. import dtypes as _dt
from ..core.tensor import EagerTensor
from ..ops import array_ops as _a, math_ops as _m
from .tensor import RaggedTensor, _splits, _t


class RowPartition:
    """How a flat list of values is cut into rows (tf.experimental.RowPartition): row_splits, int64."""

    def __init__(self, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise ValueError("RowPartition constructor is private; please use one of the factory methods instead "
                             "(e.g., RowPartition.from_row_lengths())")
        self._row_splits, self._uniform = row_splits, uniform_row_length

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        return cls(_splits(row_splits), internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = _splits(row_lengths)
        return cls(_a.concat([_t(np.zeros(1, np.int64)), _m.cumsum(lengths)], 0), internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None, dtype_hint=None):
        rt = RaggedTensor.from_value_rowids(_a.zeros_like(_splits(value_rowids)), value_rowids, nrows,
                                            validate=False)
        return cls(rt.row_splits, internal=True)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals, nrows=None, validate=True, dtype=None,
                                dtype_hint=None):
        length = int(np.asarray(_t(uniform_row_length).numpy()))
        n = int(np.asarray(_t(nvals).numpy()))
        rows = int(np.asarray(_t(nrows).numpy())) if nrows is not None else (n // length if length else 0)
        return cls(_t(np.arange(rows + 1, dtype=np.int64) * length), internal=True, uniform_row_length=length)

    def row_splits(self):
        return self._row_splits

    def row_lengths(self):
        return _m.subtract(self._row_splits[1:], self._row_splits[:-1])

    def row_starts(self):
        return self._row_splits[:-1]

    def row_limits(self):
        return self._row_splits[1:]

    def nrows(self):
        return _m.subtract(_a.shape(self._row_splits, out_type=_dt.int64)[0], np.int64(1))

    def nvals(self):
        return self._row_splits[-1]

    def value_rowids(self):
        return _a.repeat(_a.range(self.nrows(), dtype=_dt.int64), self.row_lengths())

    def uniform_row_length(self):
        return None if self._uniform is None else _t(np.int64(self._uniform))

    def is_uniform(self):
        return self._uniform is not None

    dtype = property(lambda self: _dt.int64)

    def __repr__(self):
        s = self._row_splits
        shown = np.array2string(s._v) if isinstance(s, EagerTensor) else str(s)
        return f"tf.RowPartition(row_splits={shown})"

    __str__ = __repr__


def _value(t):
    return t._v if isinstance(t, EagerTensor) else None


class DynamicRaggedShape:
    """The shape of a RaggedTensor: `row_partitions` (one per ragged dimension, outermost first) over
    `inner_shape` (the shape of the flat values)."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=False, static_inner_shape=None):
        self._partitions = tuple(row_partitions)
        for p in self._partitions:
            if not isinstance(p, RowPartition):
                raise TypeError(f"row_partitions must be RowPartitions, got {type(p).__name__}")
        self._dtype = _dt.as_dtype(dtype) if dtype is not None else _dt.int64
        inner = _t(inner_shape)
        if inner.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"inner_shape must be int32 or int64, got {inner.dtype.name}")
        self._inner = inner if inner.dtype == self._dtype else _m.cast(inner, self._dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=_dt.int64):
        """From a list of dimension lengths: an int for a uniform dimension, a tuple of row lengths for a
        ragged one (its number of rows being the product of the dimensions before it)."""
        lengths = list(lengths)
        if not lengths:
            return cls([], np.zeros(0, np.int64), dtype=dtype)
        last_ragged = max((i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))), default=0)
        partitions, nvals = [], None
        for i in range(1, last_ragged + 1):
            d, outer = lengths[i], (int(lengths[0]) if i == 1 else nvals)
            if isinstance(d, (tuple, list)):
                if len(d) != outer:
                    raise ValueError(f"Dimension {i} has {len(d)} row lengths, expected {outer}")
                partitions.append(RowPartition.from_row_lengths(np.asarray(d, np.int64)))
                nvals = int(np.sum(d))
            else:
                partitions.append(RowPartition.from_uniform_row_length(int(d), outer * int(d), outer))
                nvals = outer * int(d)
        inner = [int(lengths[0])] if not partitions else [nvals]
        inner += [int(d) for d in lengths[last_ragged + 1:]]
        return cls(partitions, np.asarray(inner, np.int64), dtype=dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        return cls([], _a.shape(t, out_type=dtype or _dt.int64), dtype=dtype)

    @classmethod
    def _from_ragged(cls, rt, dtype):
        parts, r = [], rt
        while isinstance(r, RaggedTensor):
            parts.append(RowPartition(r.row_splits, internal=True, uniform_row_length=r._uniform_row_length))
            r = r.values
        return cls(parts, _a.shape(r, out_type=_dt.int64), dtype=dtype)

    row_partitions = property(lambda self: self._partitions)
    num_row_partitions = property(lambda self: len(self._partitions))
    inner_shape = property(lambda self: self._inner)
    dtype = property(lambda self: self._dtype)

    @property
    def rank(self):
        n = self._inner.shape[0]
        return None if n is None else n + len(self._partitions)

    def _nrows(self):
        return self._partitions[0].nrows() if self._partitions else self._inner[0]

    def static_lengths(self, ragged_lengths=True):
        """The lengths as from_lengths takes them (None where a length is not known statically)."""
        if not self._partitions:
            v = _value(self._inner)
            return [int(d) for d in v] if v is not None else [None] * (self.rank or 0)
        out = []
        first = _value(self._partitions[0].nrows())
        out.append(None if first is None else int(first))
        for p in self._partitions:
            if p.is_uniform():
                out.append(p._uniform)
                continue
            v = _value(p.row_lengths())
            out.append(None if v is None or not ragged_lengths else tuple(int(d) for d in v))
        v = _value(self._inner)
        n = self._inner.shape[0]
        out += ([None] * max((n or 1) - 1, 0)) if v is None else [int(d) for d in v[1:]]
        return out

    def _dimension(self, i):
        rank = self.rank
        if i < 0:
            if rank is None:
                raise ValueError("Index is negative and the rank is not known")
            i += rank
        if i == 0:
            return _m.cast(self._nrows(), self._dtype)
        if i <= len(self._partitions):
            p = self._partitions[i - 1]
            if p.is_uniform():
                return _t(np.asarray(p._uniform, self._dtype.as_numpy_dtype))
            raise ValueError(f"Index {i} is not uniform")
        return self._inner[i - len(self._partitions)]

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step not in (None, 1) or (key.start not in (None, 0)):
                raise NotImplementedError("rivulet slices a DynamicRaggedShape as [:stop]")
            stop = key.stop if key.stop is not None else self.rank
            if stop < 0:
                stop += self.rank
            stop = max(stop, 0)
            if stop <= len(self._partitions):
                if stop <= 1:
                    return DynamicRaggedShape([], _a.reshape(_m.cast(self._nrows(), self._dtype), [stop])
                                              if stop else np.zeros(0, np.int64), dtype=self._dtype)
                parts = self._partitions[:stop - 1]
                return DynamicRaggedShape(parts, _a.reshape(_m.cast(parts[-1].nvals(), self._dtype), [1]),
                                          dtype=self._dtype)
            return DynamicRaggedShape(self._partitions, self._inner[:stop - len(self._partitions)],
                                      dtype=self._dtype)
        return self._dimension(int(key))

    def _build(self, flat):
        """A RaggedTensor of this shape around `flat` (the values, shaped like inner_shape)."""
        out = flat
        for p in reversed(self._partitions):
            out = RaggedTensor.from_row_splits(out, p.row_splits(), validate=False)
            out._uniform_row_length = p._uniform
        return out

    def __repr__(self):
        lengths = self.static_lengths()
        return f"<DynamicRaggedShape lengths={lengths} num_row_partitions={len(self._partitions)}>"

    __str__ = __repr__


def shape(input, out_type=_dt.int32, name=None):  # noqa: A002
    """tf.shape of a RaggedTensor: its DynamicRaggedShape."""
    return DynamicRaggedShape._from_ragged(input, out_type)


def reshape(tensor, shape, name=None):
    """tf.reshape(x, DynamicRaggedShape): x's values in row-major order cut by the shape's partitions."""
    if isinstance(tensor, RaggedTensor):
        tensor = tensor.flat_values
    return shape._build(_a.reshape(_t(tensor), shape.inner_shape))


def fill(dims, value, name=None):
    return dims._build(_a.fill(dims.inner_shape, value))


def zeros(shape, dtype=_dt.float32, name=None):
    return shape._build(_a.zeros(shape.inner_shape, dtype))


def ones(shape, dtype=_dt.float32, name=None):
    return shape._build(_a.ones(shape.inner_shape, dtype))

