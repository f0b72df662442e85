"""More of tf.sparse: the sparse segment reductions (SparseSegmentSum/Mean/SqrtN, WithNumSegments, and their
gradient ops), eye, fill_empty_rows (SparseFillEmptyRows), softmax (SparseSoftmax), maximum/minimum
(SparseSparseMaximum/Minimum), split, reset_shape, to_indicator and bincount, with TensorFlow's op names,
row-major outputs and error messages."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import FLOATS, REAL, defop
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..ops import array_ops as _a, math_ops as _m
from ..ops._rules import static_value
from ..shape import TensorShape
from .ops import _row_major_order, _sp, to_dense
from .tensor import SparseTensor

_IDX = frozenset([_dt.int32, _dt.int64])


# ---------------------------------------------------------------- segment_sum / segment_mean / segment_sqrt_n
def _segment_rows(data, indices, segment_ids, num_segments):
    if indices.shape != segment_ids.shape or indices.ndim != 1:
        raise InvalidArgumentError("segment_ids and indices should have same size.")
    n = data.shape[0]
    bad = (indices < 0) | (indices >= n)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidArgumentError(f"Bad: indices[{i}] == {indices[i]} out of range [0, {n})")
    if len(segment_ids) and (np.diff(segment_ids) < 0).any():
        raise InvalidArgumentError("segment ids are not increasing")
    if len(segment_ids) and segment_ids[0] < 0:
        raise InvalidArgumentError("segment ids must be >= 0")
    if num_segments is None:
        rows = int(segment_ids[-1]) + 1 if len(segment_ids) else 0
    else:
        rows = int(num_segments)
        if len(segment_ids) and segment_ids[-1] >= rows:
            raise InvalidArgumentError("segment ids must be < num_segments")
    return rows


def _scale(how, counts):
    return 1.0 / counts if how == "mean" else 1.0 / np.sqrt(counts)


def _segment_kernel(how):
    def k(data, indices, segment_ids, num_segments=None):
        rows = _segment_rows(data, indices, segment_ids, num_segments)
        out = np.zeros((rows,) + data.shape[1:], data.dtype)
        np.add.at(out, segment_ids, data[indices])
        if how != "sum":
            counts = np.bincount(segment_ids, minlength=rows)[:rows].astype(data.dtype)
            scale = np.where(counts > 0, _scale(how, np.maximum(counts, 1)), 0).astype(data.dtype)
            out *= scale.reshape((rows,) + (1,) * (data.ndim - 1))
        return out
    return k


def _segment_infer(data, indices, segment_ids, num_segments=None):
    rows = None
    if num_segments is not None:
        v = static_value(num_segments)
        rows = None if v is None else int(v)
    return TensorShape([rows]).concatenate(data.shape[1:]) if data.shape.rank is not None \
        else TensorShape(None), data.dtype


def _grad_kernel(how):
    def k(grad, indices, segment_ids, output_dim0):
        out = np.zeros((int(output_dim0),) + grad.shape[1:], grad.dtype)
        g = grad[segment_ids] if len(segment_ids) else grad[:0]
        if how != "sum" and len(segment_ids):
            counts = np.bincount(segment_ids).astype(grad.dtype)
            g = g * _scale(how, counts)[segment_ids].reshape((-1,) + (1,) * (grad.ndim - 1)).astype(grad.dtype)
        np.add.at(out, indices, g)
        return out
    return k


def _grad_infer(grad, indices, segment_ids, output_dim0):
    v = static_value(output_dim0)
    rows = None if v is None else int(v)
    return (TensorShape([rows]).concatenate(grad.shape[1:]) if grad.shape.rank is not None else TensorShape(None),
            grad.dtype)


_OPS = {}
for _how, _name, _allowed in (("sum", "Sum", REAL), ("mean", "Mean", FLOATS), ("sqrt_n", "SqrtN", FLOATS)):
    _g = defop(f"SparseSegment{_name}Grad", _grad_kernel(_how), _grad_infer, grad=None, allowed=_allowed)

    def _grad(op, dy, _g=_g):
        data, indices, segment_ids = op.inputs[:3]
        rows = _a.shape(data, out_type=indices.dtype)[0] if data.shape[0] is None else data.shape[0]
        gd = bind(_g, (dy, indices, segment_ids, convert_to_tensor(rows, dtype=_dt.int32)))
        return (gd, None, None) + ((None,) if len(op.inputs) == 4 else ())

    _OPS[_how] = (defop(f"SparseSegment{_name}", _segment_kernel(_how), _segment_infer, grad=_grad, allowed=_allowed),
                  defop(f"SparseSegment{_name}WithNumSegments", _segment_kernel(_how), _segment_infer, grad=_grad,
                        allowed=_allowed))


def _segment(how, data, indices, segment_ids, num_segments, name):
    data = data if isinstance(data, Tensor) else convert_to_tensor(data)
    indices = indices if isinstance(indices, Tensor) else convert_to_tensor(indices)
    segment_ids = segment_ids if isinstance(segment_ids, Tensor) else convert_to_tensor(segment_ids)
    for t, what in ((indices, "Tidx"), (segment_ids, "Tsegmentids")):
        if t.dtype not in _IDX:
            raise TypeError(f"Value for attr '{what}' of {t.dtype.name} is not in the list of allowed values: "
                            f"int32, int64")
    plain, with_n = _OPS[how]
    if num_segments is None:
        return bind(plain, (data, indices, segment_ids), name=name or plain.name)
    n = num_segments if isinstance(num_segments, Tensor) else convert_to_tensor(num_segments, dtype=_dt.int32)
    return bind(with_n, (data, indices, segment_ids, n), name=name or with_n.name)


def segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums of data[indices] by sorted segment_ids: output[s] = sum of data[indices[j]] with segment_ids[j] == s
    (rows of no segment are 0; num_segments sets the row count)."""
    return _segment("sum", data, indices, segment_ids, num_segments, name)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Means of data[indices] by sorted segment_ids (float dtypes; empty segments 0)."""
    return _segment("mean", data, indices, segment_ids, num_segments, name)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sums of data[indices] by sorted segment_ids divided by sqrt(segment size) (float dtypes; empty 0)."""
    return _segment("sqrt_n", data, indices, segment_ids, num_segments, name)


# ---------------------------------------------------------------- eye, reset_shape, to_indicator
def eye(num_rows, num_columns=None, dtype=_dt.float32, name=None):
    """A sparse [num_rows, num_columns] identity matrix."""
    n = convert_to_tensor(num_rows, dtype=_dt.int64)
    m = n if num_columns is None else convert_to_tensor(num_columns, dtype=_dt.int64)
    diag = _m.minimum(n, m)
    i = _a.range(diag, dtype=_dt.int64)
    return SparseTensor(_a.stack([i, i], axis=1), _a.ones([diag], dtype=dtype), _a.stack([n, m]))


def reset_shape(sp_input, new_shape=None):
    """The same entries with dense_shape new_shape (each dimension >= the old one), or the tightest shape holding
    the indices when new_shape is None."""
    sp = _sp(sp_input)
    if new_shape is None:
        shape = _m.add(_m.reduce_max(sp.indices, axis=0), 1)
        return SparseTensor(sp.indices, sp.values, shape)
    new = convert_to_tensor(new_shape, dtype=_dt.int64)
    nv, ov = static_value(new), static_value(sp.dense_shape)
    if nv is not None and ov is not None:
        nv, ov = np.asarray(nv), np.asarray(ov)
        if nv.shape != ov.shape:
            raise ValueError(f"Shapes {list(ov.shape)} and {list(nv.shape)} must have the same rank")
        if (nv < ov).any():  # TensorFlow's message names the two the other way round
            raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape "
                             f"({ov}), sp_input.shape ({nv}).")
    return SparseTensor(sp.indices, sp.values, new)


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor of the sparse ids' shape with the last dimension replaced by vocab_size: True where
    the id is present in the row."""
    sp = _sp(sp_input)
    if sp.dtype not in _IDX:
        raise TypeError(f"sp_input.values must be int32 or int64, got {sp.dtype.name}")
    ids = _m.cast(sp.values, _dt.int64)
    indices = _a.concat([sp.indices[:, :-1], _a.expand_dims(ids, 1)], axis=1)
    shape = _a.concat([sp.dense_shape[:-1], _a.reshape(convert_to_tensor(vocab_size, dtype=_dt.int64), [1])], 0)
    ones = _a.ones_like(ids, dtype=_dt.bool)
    from .ops import reorder
    return to_dense(reorder(SparseTensor(indices, ones, shape)), default_value=False, validate_indices=False,
                    name=name)


# ---------------------------------------------------------------- fill_empty_rows
def _fill_kernel(indices, values, dense_shape, default_value):
    rows = int(dense_shape[0]) if len(dense_shape) else 0
    present = np.zeros(rows, bool)
    if len(indices):
        if (indices[:, 0] < 0).any() or (indices[:, 0] >= rows).any():
            i = int(np.argmax((indices[:, 0] < 0) | (indices[:, 0] >= rows)))
            raise InvalidArgumentError(f"indices({i}, 0) is invalid: {indices[i, 0]} >= {rows}")
        present[indices[:, 0]] = True
    empty = np.nonzero(~present)[0]
    add_idx = np.zeros((len(empty), indices.shape[1]), np.int64)
    add_idx[:, 0] = empty
    all_idx = np.concatenate([indices.astype(np.int64), add_idx])
    all_val = np.concatenate([values, np.full(len(empty), default_value, values.dtype)])
    order = np.argsort(all_idx[:, 0], kind="stable")  # rows in order, each row's entries as they came
    reverse = np.argsort(order)[:len(indices)].astype(np.int64)
    return all_idx[order], all_val[order], ~present, reverse


def _fill_infer(indices, values, dense_shape, default_value):
    return [(TensorShape([None, indices.shape[1]]), _dt.int64), (TensorShape([None]), values.dtype),
            (TensorShape([None]), _dt.bool), (TensorShape([indices.shape[0]]), _dt.int64)]


def _fill_grad(op, d_idx, d_values, d_empty, d_map):
    reverse = op.outputs[3]
    gv = _a.gather(d_values, reverse)
    gd = _m.subtract(_m.reduce_sum(d_values), _m.reduce_sum(gv))
    return None, gv, None, gd


SPARSE_FILL_EMPTY_ROWS = defop("SparseFillEmptyRows", _fill_kernel, _fill_infer, grad=_fill_grad, num_outputs=4)


def fill_empty_rows(sp_input, default_value, name=None):
    """Adds an entry [row, 0, ...] = default_value for each row with no entries; returns (the filled
    SparseTensor, a bool vector: True for the rows that were empty)."""
    sp = _sp(sp_input)
    dv = convert_to_tensor(default_value, dtype=sp.dtype)
    idx, vals, empty, _ = bind(SPARSE_FILL_EMPTY_ROWS, (sp.indices, sp.values, sp.dense_shape, dv),
                               name=name or "SparseFillEmptyRows")
    out = SparseTensor(idx, vals, sp.dense_shape)
    out._shape = sp.shape
    return out, empty


# ---------------------------------------------------------------- softmax
def _softmax_kernel(indices, values, shape):
    out = np.empty_like(values)
    if not len(values):
        return out
    order = _row_major_order(indices)
    keys = indices[order, :-1]
    v = values[order]
    start = np.ones(len(v), bool)
    if keys.shape[1]:
        start[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    else:
        start[1:] = False
    group = np.cumsum(start) - 1
    mx = np.full(group[-1] + 1, -np.inf, v.dtype)
    np.maximum.at(mx, group, v)
    e = np.exp(v - mx[group])
    tot = np.zeros(group[-1] + 1, v.dtype)
    np.add.at(tot, group, e)
    out[order] = e / tot[group]
    return out


def _softmax_grad(op, dy):
    indices, values, shape = op.inputs
    y = op.outputs[0]
    # d/dv: y * (dy - sum over the row of dy * y)
    prod = SparseTensor(indices, _m.multiply(dy, y), shape)
    from .ops import reduce_sum
    row = reduce_sum(prod, axis=-1, keepdims=True)
    row_vals = _a.gather_nd(row, _a.concat([indices[:, :-1], _a.zeros_like(indices[:, -1:])], axis=1))
    return None, _m.multiply(y, _m.subtract(dy, row_vals)), None


SPARSE_SOFTMAX = defop("SparseSoftmax", _softmax_kernel, lambda indices, values, shape: (values.shape, values.dtype),
                       grad=_softmax_grad)


def softmax(sp_input, name=None):
    """Softmax over the stored entries of each innermost row (rank >= 2); missing entries stay missing."""
    sp = _sp(sp_input)
    if sp.dtype not in FLOATS:
        from ..ops.math_ops import static_error
        raise static_error(f"Value for attr 'T' of {sp.dtype.name} is not in the list of allowed values: half, float, "
                           f"double", "SparseSoftmax")
    vals = bind(SPARSE_SOFTMAX, (sp.indices, sp.values, sp.dense_shape), name=name or "SparseSoftmax")
    return sp.with_values(vals)


# ---------------------------------------------------------------- maximum / minimum
def _extreme_kernel(fn):
    def k(a_idx, a_val, a_shape, b_idx, b_val, b_shape):
        if not np.array_equal(a_shape, b_shape):
            raise InvalidArgumentError(f"Operands do not have the same ranks; got shapes: "
                                       f"[{','.join(map(str, a_shape))}] and [{','.join(map(str, b_shape))}]")
        shape = tuple(int(d) for d in a_shape)
        fa = np.ravel_multi_index(a_idx.T, shape) if len(a_idx) else np.zeros(0, np.int64)
        fb = np.ravel_multi_index(b_idx.T, shape) if len(b_idx) else np.zeros(0, np.int64)
        keys = np.union1d(fa, fb)
        av = np.zeros(len(keys), a_val.dtype)
        bv = np.zeros(len(keys), a_val.dtype)
        av[np.searchsorted(keys, fa)] = a_val
        bv[np.searchsorted(keys, fb)] = b_val
        idx = np.stack(np.unravel_index(keys, shape), axis=1).astype(np.int64).reshape(-1, len(shape))
        return idx, fn(av, bv)
    return k


def _extreme_infer(a_idx, a_val, a_shape, b_idx, b_val, b_shape):
    return [(TensorShape([None, a_idx.shape[1]]), _dt.int64), (TensorShape([None]), a_val.dtype)]


SPARSE_MAXIMUM = defop("SparseSparseMaximum", _extreme_kernel(np.maximum), _extreme_infer, num_outputs=2)
SPARSE_MINIMUM = defop("SparseSparseMinimum", _extreme_kernel(np.minimum), _extreme_infer, num_outputs=2)


def _extreme(op, sp_a, sp_b, name):
    a, b = _sp(sp_a, "sp_a"), _sp(sp_b, "sp_b")
    if a.dtype != b.dtype:
        raise TypeError(f"SparseTensors must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
    idx, vals = bind(op, (a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape),
                     name=name or op.name)
    out = SparseTensor(idx, vals, a.dense_shape)
    out._shape = a.shape
    return out


def maximum(sp_a, sp_b, name=None):
    """Elementwise max of two SparseTensors of one shape (a missing entry counts as 0); the union of entries."""
    return _extreme(SPARSE_MAXIMUM, sp_a, sp_b, name)


def minimum(sp_a, sp_b, name=None):
    """Elementwise min of two SparseTensors of one shape (a missing entry counts as 0); the union of entries."""
    return _extreme(SPARSE_MINIMUM, sp_a, sp_b, name)


# ---------------------------------------------------------------- split
def split(sp_input=None, num_split=None, axis=None, name=None):
    """num_split SparseTensors along `axis`: the first size % num_split pieces one longer, as TensorFlow's
    SparseSplit."""
    sp = _sp(sp_input)
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")
    shape = static_value(sp.dense_shape)
    if shape is None:
        raise ValueError("rivulet's tf.sparse.split needs the dense shape known when traced")
    shape = [int(d) for d in np.asarray(shape)]
    axis = int(axis) % len(shape)
    size, n = shape[axis], int(num_split)
    if n < 1 or n > size:
        raise InvalidArgumentError(f"Split requested {n} parts of a dimension of size {size}")
    base, extra = divmod(size, n)
    from .ops import slice as _slice
    out, start = [], 0
    for i in range(n):
        length = base + (1 if i < extra else 0)
        begin = [0] * len(shape)
        begin[axis] = start
        sizes = list(shape)
        sizes[axis] = length
        out.append(_slice(sp, begin, sizes))
        start += length
    return out


# ---------------------------------------------------------------- bincount
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Counts of each value as a SparseTensor: over all values (axis=0) or per row of a rank-2 input
    (axis=-1); weights sum instead of counting, binary_output gives 1 for present values."""
    if isinstance(values, SparseTensor):
        vals, rows = values.values, (values.indices[:, 0] if axis == -1 else None)
        w = weights.values if isinstance(weights, SparseTensor) else weights
    else:
        v = values if isinstance(values, Tensor) else convert_to_tensor(values)
        if axis == -1 and v.shape.rank == 2:
            rows = _a.reshape(_a.tile(_a.expand_dims(_a.range(_a.shape(v, out_type=_dt.int64)[0]), 1),
                                      [1, _a.shape(v)[1]]), [-1])
        else:
            rows = None
        vals = _a.reshape(v, [-1])
        w = None if weights is None else _a.reshape(
            weights if isinstance(weights, Tensor) else convert_to_tensor(weights), [-1])
    if axis not in (0, -1):
        raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
    if w is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    keep = _m.greater_equal(vals, _m.cast(0, vals.dtype))
    if maxlength is not None:
        keep = _m.logical_and(keep, _m.less(vals, _m.cast(maxlength, vals.dtype)))
    sel = _a.reshape(_a.where(keep), [-1])
    v64 = _m.cast(_a.gather(vals, sel), _dt.int64)
    size = _m.add(_m.reduce_max(_a.concat([v64, convert_to_tensor([-1], dtype=_dt.int64)], 0)), 1)
    if minlength is not None:
        size = _m.maximum(size, convert_to_tensor(minlength, dtype=_dt.int64))
    if maxlength is not None:
        size = _m.minimum(size, convert_to_tensor(maxlength, dtype=_dt.int64))
    if rows is None:
        keys = _a.expand_dims(v64, 1)
        shape = _a.reshape(size, [1])
    else:
        r = _m.cast(_a.gather(rows, sel), _dt.int64)
        keys = _a.stack([r, v64], axis=1)
        nrows = (_m.cast(values.dense_shape[0], _dt.int64) if isinstance(values, SparseTensor)
                 else _a.shape(values, out_type=_dt.int64)[0])
        shape = _a.stack([nrows, size])
    out_dtype = vals.dtype if w is None else w.dtype
    counts = _m.cast(_a.ones_like(v64), out_dtype) if w is None else _a.gather(w, sel)
    idx, vals_out, shp = bind(_BINCOUNT, (keys, counts, shape), {"binary": bool(binary_output)},
                              name=name or "SparseBincount")
    return SparseTensor(idx, vals_out, shp)


def _bincount_kernel(keys, counts, shape, binary):
    shape = tuple(int(d) for d in shape)
    if not len(keys):
        return np.zeros((0, len(shape)), np.int64), counts[:0], np.asarray(shape, np.int64)
    flat = np.ravel_multi_index(keys.T, shape)
    uniq, inv = np.unique(flat, return_inverse=True)
    sums = np.zeros(len(uniq), counts.dtype)
    np.add.at(sums, inv, counts)
    if binary:
        sums = np.ones_like(sums)
    idx = np.stack(np.unravel_index(uniq, shape), axis=1).astype(np.int64)
    return idx, sums, np.asarray(shape, np.int64)


_BINCOUNT = defop("_SparseBincountCounts", _bincount_kernel,
                  lambda keys, counts, shape, binary: [(TensorShape([None, keys.shape[1]]), _dt.int64),
                                                       (TensorShape([None]), counts.dtype),
                                                       (TensorShape([keys.shape[1]]), _dt.int64)],
                  num_outputs=3)


# ---------------------------------------------------------------- cross / cross_hashed
def _cross_kernel(*parts, layout, hashed, num_buckets, hash_key, separator):
    """Per batch row, every combination of one feature from each input (the last input varying fastest):
    joined strings, or FingerprintCat64 mixes of the features' fingerprints (strings: Fingerprint64, integers:
    their bits) as TensorFlow's SparseCrossV2 / SparseCrossHashed."""
    from ..ops.fingerprint import fingerprint64, fingerprint_cat64
    _M = (1 << 64) - 1
    rows_of, batch, pos, dense_i, sparse_i = [], None, 0, 0, 0
    for kind in layout:
        if kind == "s":
            idx, vals, shape = parts[pos:pos + 3]
            pos += 3
            b = int(shape[0])
            feats = [[] for _ in range(b)]
            for r, v in zip(idx[:, 0].tolist(), vals.tolist()):
                feats[r].append(v)
            what, i = "sparse", sparse_i
            sparse_i += 1
        else:
            d = parts[pos]
            pos += 1
            b = d.shape[0]
            feats = [list(row) for row in d.reshape(b, -1).tolist()]
            what, i = "dense", dense_i
            dense_i += 1
        if batch is None:
            batch = b
        elif b != batch:
            raise InvalidArgumentError(f"Expected batch size {batch} got {b} at {what} tensor {i}")
        rows_of.append(feats)
    batch = batch or 0

    def text(v):
        return v if isinstance(v, bytes) else str(int(v)).encode()

    def fp(v):
        return fingerprint64(v) if isinstance(v, bytes) else int(v) & _M

    import itertools
    out_idx, out_vals, width = [], [], 0
    modulus = num_buckets if num_buckets > 0 else (1 << 63) - 1
    for r in range(batch):
        combos = list(itertools.product(*(f[r] for f in rows_of)))
        width = max(width, len(combos))
        for k, combo in enumerate(combos):
            out_idx.append((r, k))
            if hashed:
                h = hash_key & _M
                for v in combo:
                    h = fingerprint_cat64(h, fp(v))
                out_vals.append(h % modulus)
            else:
                out_vals.append(separator.join(text(v) for v in combo))
    idx = np.asarray(out_idx, np.int64).reshape(-1, 2)
    if hashed:
        vals = np.asarray(out_vals, np.int64).reshape(-1)
    else:
        vals = np.empty(len(out_vals), dtype=object)
        vals[:] = out_vals
    return idx, vals, np.asarray([batch, width], np.int64)


def _cross_infer(*parts, layout, hashed, **_):
    return [(TensorShape([None, 2]), _dt.int64), (TensorShape([None]), _dt.int64 if hashed else _dt.string),
            (TensorShape([2]), _dt.int64)]


SPARSE_CROSS = defop("SparseCrossV2", _cross_kernel, _cross_infer, num_outputs=3,
                     attrs=("layout", "hashed", "num_buckets", "hash_key", "separator"))


def _cross(inputs, hashed, num_buckets, hash_key, separator, name):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    parts, layout = [], []
    for t in inputs:
        if isinstance(t, SparseTensor):
            parts += [t.indices, t.values, t.dense_shape]
            layout.append("s")
            dtype = t.dtype
        else:
            t = t if isinstance(t, Tensor) else convert_to_tensor(t)
            parts.append(t)
            layout.append("d")
            dtype = t.dtype
        if dtype not in (_dt.string, _dt.int64, _dt.int32):
            raise TypeError(f"tf.sparse.cross takes string, int64 or int32 features, got {dtype.name}")
    from ..ops.fingerprint import DEFAULT_CROSS_HASH_KEY
    idx, vals, shape = bind(SPARSE_CROSS, tuple(parts), {
        "layout": tuple(layout), "hashed": bool(hashed), "num_buckets": int(num_buckets),
        "hash_key": DEFAULT_CROSS_HASH_KEY if hash_key is None else int(hash_key),
        "separator": (separator if isinstance(separator, bytes) else str(separator).encode())},
        name=name or "SparseCrossV2")
    return SparseTensor(idx, vals, shape)


def cross(inputs, name=None, separator=None):
    """The cross of sparse or dense [batch, k] string/integer features: each row's feature combinations joined
    by `separator` ('_X_' by default)."""
    return _cross(inputs, False, 0, None, "_X_" if separator is None else separator, name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed cross: each combination's fingerprint (modulo num_buckets when > 0), int64."""
    return _cross(inputs, True, num_buckets, hash_key, "", name)


# ---------------------------------------------------------------- sampled_addmm
def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0, output_type=_dt.float32):
    """alpha * (mat1 @ mat2) sampled at `indices` plus beta * values: returns (indices, values, dense_shape) of
    the result, batched over leading dimensions as TensorFlow's."""
    indices = convert_to_tensor(indices, dtype=_dt.int32) if not isinstance(indices, Tensor) else indices
    values = convert_to_tensor(values, dtype=output_type) if not isinstance(values, Tensor) else values
    dense_shape = convert_to_tensor(dense_shape, dtype=_dt.int32) if not isinstance(dense_shape, Tensor) \
        else dense_shape
    mat1 = convert_to_tensor(mat1, dtype=output_type) if not isinstance(mat1, Tensor) else mat1
    mat2 = convert_to_tensor(mat2, dtype=output_type) if not isinstance(mat2, Tensor) else mat2
    want = _a.concat([_a.shape(mat1)[:-1], _a.shape(mat2)[-1:]], 0)
    got, exp = static_value(dense_shape), static_value(want)
    if got is not None and exp is not None and (np.shape(got) != np.shape(exp) or (np.asarray(got) != exp).any()):
        raise ValueError(f"Dense shape: {np.asarray(got)} does not match output shape: {np.asarray(exp)}")
    batch = (mat1.shape.rank or 2) - 2
    rows = _a.gather(mat1, indices[..., 0], axis=batch, batch_dims=batch)
    cols = _a.gather(_a.transpose(mat2, list(range(batch)) + [batch + 1, batch]), indices[..., 1], axis=batch,
                     batch_dims=batch)
    dots = _m.reduce_sum(_m.multiply(rows, cols), axis=-1)
    out = _m.add(_m.multiply(_m.cast(alpha, dots.dtype), dots), _m.multiply(_m.cast(beta, dots.dtype), values))
    return indices, out, dense_shape


# ---------------------------------------------------------------- edit_distance
def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _edit_kernel(h_idx, h_val, h_shape, t_idx, t_val, t_shape, normalize):
    if len(h_shape) != len(t_shape):
        raise InvalidArgumentError(f"Inconsistent rank in hypothesis and truth: {len(h_shape)} vs. {len(t_shape)}")
    out_shape = tuple(int(max(a, b)) for a, b in zip(h_shape[:-1], t_shape[:-1]))

    def groups(idx, vals):
        g = {}
        for row, v in zip(idx.tolist(), vals.tolist()):
            g.setdefault(tuple(row[:-1]), []).append((row[-1], v))
        return {k: [v for _, v in sorted(items)] for k, items in g.items()}

    hg, tg = groups(h_idx, h_val), groups(t_idx, t_val)
    out = np.zeros(out_shape, np.float32)
    for key in np.ndindex(*out_shape) if out_shape else [()]:
        h, t = hg.get(key, []), tg.get(key, [])
        d = np.float32(_levenshtein(h, t))
        if normalize:
            with np.errstate(divide="ignore", invalid="ignore"):
                d = d / np.float32(len(t))
        out[key] = d
    return out


EDIT_DISTANCE = defop("EditDistance", _edit_kernel,
                      lambda h_idx, h_val, h_shape, t_idx, t_val, t_shape, normalize:
                      (TensorShape(None if h_shape.shape[0] is None else [None] * (h_shape.shape[0] - 1)),
                       _dt.float32))


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distances between the sequences (the last dimension) of two SparseTensors, per position of
    the other dimensions, float32; divided by the truth's length when normalize (inf for an empty truth)."""
    h, t = _sp(hypothesis, "hypothesis"), _sp(truth, "truth")
    if h.dtype != t.dtype:
        raise TypeError(f"hypothesis and truth must have the same dtype, got {h.dtype.name} and {t.dtype.name}")
    return bind(EDIT_DISTANCE, (h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape),
                {"normalize": bool(normalize)}, name=name)


# ---------------------------------------------------------------- safe_embedding_lookup_sparse (tf.nn)
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """embedding_lookup_sparse over every row of sparse_ids (dense_shape[0] rows): negative ids (and weights <= 0)
    dropped, empty rows given default_id's embedding or zeros."""
    from ..ops.nn_more_ops import embedding_lookup_sparse
    from .ops import retain
    keep = _m.greater_equal(sparse_ids.values, _m.cast(0, sparse_ids.dtype))
    if sparse_weights is not None:
        keep = _m.logical_and(keep, _m.greater(sparse_weights.values, _m.cast(0, sparse_weights.dtype)))
        sparse_weights = retain(sparse_weights, keep)
    sparse_ids = retain(sparse_ids, keep)
    sparse_ids, empty = fill_empty_rows(sparse_ids, 0 if default_id is None else default_id)
    if sparse_weights is not None:
        sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
    out = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                  max_norm=max_norm)
    if default_id is None:
        out = _a.where(_a.expand_dims(empty, 1), _a.zeros_like(out), out)
    return _a.identity(out, name=name) if name else out


# ---------------------------------------------------------------- mask (IndexedSlices)
def mask(a, mask_indices, name=None):
    """The rows of the IndexedSlices `a` whose index is not in mask_indices (TensorFlow's setdiff1d order)."""
    from ..ops.indexed_slices import IndexedSlices
    keep = _m.logical_not(_m.reduce_any(_m.equal(_a.expand_dims(a.indices, 1),
                                                 _a.expand_dims(convert_to_tensor(mask_indices,
                                                                                  a.indices.dtype), 0)), axis=1))
    pos = _a.reshape(_a.where(keep), [-1])
    return IndexedSlices(_a.gather(a.values, pos), _a.gather(a.indices, pos), a.dense_shape)
