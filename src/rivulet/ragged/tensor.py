"""tf.RaggedTensor: rows of different lengths, as `values` (a tensor, or another RaggedTensor for more ragged
dimensions) cut by `row_splits` (int64, nrows + 1 offsets starting at 0). The components are ordinary
tensors, so a RaggedTensor is eager or symbolic like them, and a tf.function argument (traced by its
RaggedTensorSpec: the shape with None row lengths, the dtype and the ragged rank)."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..function.trace_type import TraceType
from ..ops import array_ops as _a, math_ops as _m, sort_segment_ops as _seg
from ..ops._rules import static_value
from ..shape import TensorShape, TensorSpec


def _t(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


def _splits(x):
    t = _t(x)
    if t.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"row partition tensors must be int32 or int64, got {t.dtype.name}")
    return t if t.dtype == _dt.int64 else _m.cast(t, _dt.int64)


class RaggedTensor:
    """tf.RaggedTensor (build with the from_* class methods or tf.ragged.constant)."""
    _composite_kind = "ragged"  # ops/composite.py

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values, self._row_splits = values, row_splits

    # -- factories ------------------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        values = values if isinstance(values, RaggedTensor) else _t(values)
        splits = _splits(row_splits)
        if validate:
            s, n = static_value(splits), _nvals(values)
            if s is not None and n is not None:
                s = np.asarray(s)
                if s.ndim != 1 or len(s) < 1 or s[0] != 0 or (np.diff(s) < 0).any() or s[-1] != n:
                    raise InvalidArgumentError("Arguments to from_row_splits do not form a valid RaggedTensor: "
                                               f"row_splits {s.tolist()} must start at 0, not decrease and end at "
                                               f"the number of values ({n})")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = _splits(row_lengths)
        splits = _a.concat([_t(np.zeros(1, np.int64)), _m.cumsum(lengths)], 0)
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = _splits(value_rowids)
        if nrows is None:
            v = static_value(ids)
            if v is None:
                raise ValueError("from_value_rowids needs `nrows` when value_rowids is not known statically")
            nrows = int(np.max(v)) + 1 if np.size(v) else 0
        counts = _seg.unsorted_segment_sum(_a.ones_like(ids), ids, int(nrows)) if not isinstance(nrows, Tensor) \
            else _seg.unsorted_segment_sum(_a.ones_like(ids), ids, nrows)
        return cls.from_row_lengths(values, counts, validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        starts = _splits(row_starts)
        return cls.from_row_splits(values, _a.concat([starts, _a.reshape(_nvals_t(values), [1])], 0),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        return cls.from_row_splits(values, _a.concat([_t(np.zeros(1, np.int64)), _splits(row_limits)], 0),
                                   validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of `uniform_row_length` values each (a uniform dimension: its size shows in `shape`)."""
        values = values if isinstance(values, RaggedTensor) else _t(values)
        length = static_value(_t(uniform_row_length))
        if length is None:
            raise NotImplementedError("rivulet's from_uniform_row_length needs a uniform_row_length known "
                                      "statically")
        length = int(np.asarray(length))
        if length < 0:
            raise InvalidArgumentError(f"uniform_row_length must be >= 0, got {length}")
        n = _nvals(values)
        if n is None:
            raise NotImplementedError("rivulet's from_uniform_row_length needs the number of values known "
                                      "statically")
        if nrows is None:
            nrows = n // length if length else 0
        nrows = int(np.asarray(static_value(_t(nrows))))
        if nrows * length != n:
            raise ValueError(f"uniform_row_length={length} times nrows={nrows} must equal nvals={n}")
        out = cls.from_row_splits(values, np.arange(nrows + 1, dtype=np.int64) * length, validate=False)
        out._uniform_row_length = length
        return out

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dt.int64):
        """The RaggedTensor of a 2-D SparseTensor whose entries are in row-major order, each row's entries
        starting at column 0 (as to_sparse gives them)."""
        rank = st_input.indices.shape[1] if st_input.indices.shape.rank == 2 else None
        if rank != 2:
            raise ValueError(f"rank(st_input) must be 2, got {rank}")
        rows = st_input.indices[:, 0]
        return cls.from_value_rowids(st_input.values, rows, nrows=st_input.dense_shape[0], validate=False)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=None):
        """Rows of a dense tensor, each cut to its length (`lengths`), or before trailing `padding`."""
        t = _t(tensor)
        if ragged_rank != 1:
            raise NotImplementedError("rivulet's RaggedTensor.from_tensor supports ragged_rank=1")
        ncols = _a.shape(t, out_type=_dt.int64)[1]
        nrows = _a.shape(t, out_type=_dt.int64)[0]
        if lengths is None and padding is not None:
            pad = _m.equal(t, _t(padding, dtype=t.dtype))
            if t.shape.rank and t.shape.rank > 2:
                pad = _m.reduce_all(pad, axis=list(range(2, t.shape.rank)))
            keep = _m.cast(_m.logical_not(pad), _dt.int64)
            # a row's length: one past its last non-padding position
            pos = _m.multiply(keep, _m.add(_a.range(ncols, dtype=_dt.int64), 1))
            lengths = _m.reduce_max(pos, axis=1)
        if lengths is None:
            lengths = _a.fill(_a.reshape(nrows, [1]), ncols)
        lengths = _splits(lengths)
        mask = _a.sequence_mask(lengths, ncols)
        return cls.from_row_lengths(_a.boolean_mask(t, mask), lengths, validate=False)

    # -- inspection -----------------------------------------------------------------------------------
    values = property(lambda self: self._values)

    @property
    def uniform_row_length(self):
        """The length of every row (an int64 scalar) for a uniform dimension, else None."""
        n = self._uniform_row_length
        return None if n is None else _t(np.int64(n))
    row_splits = property(lambda self: self._row_splits)

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    dtype = property(lambda self: self.flat_values.dtype)
    row_splits_dtype = property(lambda self: _dt.int64)

    _uniform_row_length = None  # from_uniform_row_length: the size of a uniform dimension

    @property
    def shape(self):
        n = self._row_splits.shape[0]
        nrows = None if n is None else n - 1
        inner = self._values.shape
        inner_dims = [self._uniform_row_length] + (inner.as_list()[1:] if inner.rank is not None else [])
        return TensorShape([nrows] + inner_dims)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def nrows(self, out_type=None, name=None):
        n = _m.subtract(_a.shape(self._row_splits, out_type=_dt.int64)[0], np.int64(1))
        return n if out_type is None else _m.cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        if axis != 1:
            raise NotImplementedError("rivulet's RaggedTensor.row_lengths supports axis=1")
        return _m.subtract(self._row_splits[1:], self._row_splits[:-1])

    def value_rowids(self, name=None):
        lengths = self.row_lengths()
        return _a.repeat(_a.range(self.nrows(), dtype=_dt.int64), lengths)

    def nested_row_lengths(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt._values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        dims = [self.nrows()]
        rt = self
        while isinstance(rt, RaggedTensor):
            lengths = rt.row_lengths()
            dims.append(_m.reduce_max(_a.concat([lengths, _t(np.zeros(1, np.int64))], 0)))
            rt = rt._values
        flat = self.flat_values
        out = _a.concat([_a.stack(dims), _a.shape(flat, out_type=_dt.int64)[1:]], 0)
        out = out if axis is None else out[axis]
        return out if out_type is None else _m.cast(out, out_type)

    def with_values(self, new_values):
        out = RaggedTensor(new_values, self._row_splits, internal=True)
        out._uniform_row_length = self._uniform_row_length
        return out

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        return self

    # -- conversion -----------------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        flat = self.flat_values
        dv = _t(b"" if default_value is None and flat.dtype == _dt.string else
                (0 if default_value is None else default_value), dtype=flat.dtype)
        shp = _t(np.asarray([-1] if shape is None else [(-1 if d is None else int(d)) for d in
                                                        TensorShape(shape).as_list()], np.int64))
        if shape is None:
            shp = _t(np.full(self.ragged_rank + flat.shape.rank if flat.shape.rank is not None else 1, -1,
                             np.int64))
        return bind(RAGGED_TO_TENSOR, (flat, dv, shp) + self.nested_row_splits,
                    {"ragged_rank": self.ragged_rank}, name=name or "RaggedToTensor")

    def to_sparse(self, name=None):
        """The SparseTensor of every value (indices in row-major order, dense_shape the bounding shape)."""
        from ..ops import composite as _composite
        flat = self.flat_values
        outer = outer_indices(self)  # [nflat, ragged_rank + 1]
        if flat.shape.rank is not None and flat.shape.rank > 1:  # each value's inner positions too
            inner = _a.where(_a.fill(_a.shape(flat), True))
            outer = _a.concat([_a.gather(outer, inner[:, 0]), inner[:, 1:]], 1)
            flat = _a.reshape(flat, [-1])
        return _composite.kind("sparse")(outer, flat, self.bounding_shape())

    def numpy(self):
        """An array of row arrays (dtype object) when the rows differ in shape, else a regular array."""
        vals = self._values.numpy() if isinstance(self._values, RaggedTensor) else _eager(self._values)
        splits = _eager(self._row_splits)
        rows = [vals[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + np.shape(vals)[1:], dtype=getattr(vals, "dtype", object))
        if all(getattr(r, "shape", None) == rows[0].shape and getattr(r, "dtype", object) != object for r in rows):
            return np.array(rows, dtype=rows[0].dtype)
        if self._uniform_row_length is not None:  # a uniform dimension: a 2-D array of rows
            out = np.empty((len(rows), self._uniform_row_length), dtype=object)
            for i, r in enumerate(rows):
                out[i, :] = list(r)
            return out
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = r
        return out

    def to_list(self):
        vals = self._values.to_list() if isinstance(self._values, RaggedTensor) else _eager(self._values).tolist()
        splits = _eager(self._row_splits).tolist()
        return [vals[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def __str__(self):
        if _is_eager(self):
            with np.printoptions(formatter={"all": _fmt}):
                return f"<tf.RaggedTensor {_fmt(self.numpy())}>"
        return f"tf.RaggedTensor(values={self._values!s}, row_splits={self._row_splits!s})"

    __repr__ = __str__

    # -- indexing -------------------------------------------------------------------------------------
    def __getitem__(self, key):
        from .ops import getitem
        return getitem(self, key)

    # -- operators (elementwise on the values) ----------------------------------------------------------
    def __tf_tracing_type__(self, context):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.flat_values.shape[1:])

    def _to_components(self):
        return [self.flat_values] + list(self.nested_row_splits)

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    __hash__ = None


def _binary(name, reverse=False):
    def method(self, other):
        from .ops import binary
        return binary(name, other, self) if reverse else binary(name, self, other)
    return method


for _name, _op in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "truediv"),
                   ("floordiv", "floordiv"), ("mod", "floormod"), ("pow", "pow"), ("and", "logical_and"),
                   ("or", "logical_or"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                   ("ge", "greater_equal")):
    setattr(RaggedTensor, f"__{_name}__", _binary(_op))
    if _name not in ("lt", "le", "gt", "ge"):
        setattr(RaggedTensor, f"__r{_name}__", _binary(_op, reverse=True))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(_m.negative(self.flat_values))
RaggedTensor.__abs__ = lambda self: self.with_flat_values(_m.abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(_m.logical_not(self.flat_values))


def _fmt(x):
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def _eager(t):
    if isinstance(t, EagerTensor):
        return t._v
    raise TypeError("This RaggedTensor is symbolic (inside a tf.function): its values are not available")


def _is_eager(rt):
    return all(isinstance(t, EagerTensor) for t in rt._to_components())


def _nvals(values):
    """How many rows `values` has (statically, else None): a RaggedTensor's rows are its nrows."""
    if isinstance(values, RaggedTensor):
        n = values._row_splits.shape[0]
        return None if n is None else n - 1
    return values.shape[0] if values.shape.rank else None


def _nvals_t(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return _a.shape(values, out_type=_dt.int64)[0]


def outer_indices(rt):
    """[number of flat values, ragged_rank + 1] int64: each flat value's position in the ragged dimensions."""
    levels, r = [], rt
    while isinstance(r, RaggedTensor):
        rowids = r.value_rowids()
        cols = _m.subtract(_a.range(_a.shape(rowids, out_type=_dt.int64)[0], dtype=_dt.int64),
                           _a.gather(r._row_splits, rowids))
        levels.append((rowids, cols))
        r = r._values
    rowids, cols = levels[-1]
    out = [cols]
    for outer_rowids, outer_cols in reversed(levels[:-1]):
        out.insert(0, _a.gather(outer_cols, rowids))
        rowids = _a.gather(outer_rowids, rowids)
    return _a.stack([rowids] + out, axis=1)


def outer_rowids(rt):
    """int64 [number of flat values]: the row (of the outermost dimension) of each flat value."""
    ids, r = rt.value_rowids(), rt._values
    chain = [ids]
    while isinstance(r, RaggedTensor):
        chain.append(r.value_rowids())
        r = r._values
    ids = chain[-1]
    for outer in reversed(chain[:-1]):
        ids = _a.gather(outer, ids)
    return ids


# ---------------------------------------------------------------- to_tensor kernel
def _to_tensor_kernel(flat, default, shape, *splits, ragged_rank):
    """Pads every ragged dimension to its longest row (or `shape`, where given, cropping longer rows)."""
    lens = []
    sizes = [len(splits[0]) - 1]
    for s in splits:
        ln = np.diff(s)
        lens.append(ln)
        sizes.append(int(ln.max()) if ln.size else 0)
    inner = flat.shape[1:]
    full = list(sizes) + list(inner)
    want = [int(d) for d in shape]
    if len(want) == len(full):
        full = [f if w < 0 else w for f, w in zip(full, want)]
    out = np.empty(full, dtype=flat.dtype)
    out[...] = default
    # the position of each flat value: walk the partitions from the outermost
    idx = [np.arange(sizes[0])]
    for k, s in enumerate(splits):
        rows = np.repeat(np.arange(len(s) - 1), np.diff(s))
        cols = np.arange(len(rows)) - s[:-1][rows]
        idx = [i[rows] for i in idx] + [cols]
    ok = np.ones(len(flat), bool)
    for d, i in enumerate(idx):
        ok &= i < full[d]
    out[tuple(i[ok] for i in idx)] = flat[ok]
    return out


def _to_tensor_infer(flat, default, shape, *splits, ragged_rank):
    v = static_value(shape)
    rank = ragged_rank + 1 + ((flat.shape.rank or 1) - 1)
    if v is not None and len(np.asarray(v)) == rank:
        return TensorShape([None if d < 0 else int(d) for d in np.asarray(v)]), flat.dtype
    return TensorShape([None] * rank), flat.dtype


RAGGED_TO_TENSOR = defop("RaggedTensorToTensor", _to_tensor_kernel, _to_tensor_infer)


# ---------------------------------------------------------------- spec
class RaggedTensorSpec(TraceType):
    """tf.RaggedTensorSpec(shape, dtype, ragged_rank)."""

    def __init__(self, shape=None, dtype=_dt.float32, ragged_rank=None, flat_values_shape=None,
                 row_splits_dtype=_dt.int64):
        self._shape, self._dtype = TensorShape(shape), _dt.as_dtype(dtype)
        if ragged_rank is None:
            ragged_rank = (self._shape.rank - 1) if self._shape.rank is not None else 1
        self._ragged_rank = int(ragged_rank)
        self._flat_shape = TensorShape(flat_values_shape) if flat_values_shape is not None else None

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    value_type = property(lambda self: RaggedTensor)

    @property
    def _component_specs(self):
        inner = self._flat_shape.as_list() if self._flat_shape is not None and self._flat_shape.rank is not None \
            else (self._shape.as_list()[self._ragged_rank + 1:] if self._shape.rank is not None else [])
        if self._ragged_rank == 0:  # a row of a RaggedTensor: a plain tensor
            return (TensorSpec(self._shape, self._dtype),)
        nrows = self._shape[0] if self._shape.rank else None
        splits = [TensorSpec([None if nrows is None else nrows + 1], _dt.int64)] + \
            [TensorSpec([None], _dt.int64) for _ in range(self._ragged_rank - 1)]
        return (TensorSpec([None] + inner, self._dtype),) + tuple(splits)

    def _from_components(self, components):
        return RaggedTensor.from_nested_row_splits(components[0], components[1:], validate=False)

    def is_subtype_of(self, other):
        return isinstance(other, RaggedTensorSpec) and (self._dtype, self._ragged_rank) == (
            other._dtype, other._ragged_rank) and self._shape.is_subtype_of(other._shape)

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, RaggedTensorSpec) or (o._dtype, o._ragged_rank) != (self._dtype, self._ragged_rank):
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._flat_shape)

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError("rivulet's tracer makes a RaggedTensor's placeholders from its components")

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and (self._shape, self._dtype, self._ragged_rank) == (
            other._shape, other._dtype, other._ragged_rank)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._ragged_rank))

    def __repr__(self):
        return f"RaggedTensorSpec(TensorShape({self._shape.as_list() if self._shape.rank is not None else None}), " \
               f"{self._dtype!r}, {self._ragged_rank}, tf.int64)"


RaggedTensor._type_spec_class = RaggedTensorSpec  # for code that reaches the class through composite loaders
