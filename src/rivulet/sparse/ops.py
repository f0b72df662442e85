"""tf.sparse ops: NumPy kernels on the (indices, values, dense_shape) triple, with TensorFlow's op names,
canonical (row-major) output order and error messages."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..ops import array_ops as _a, math_ops as _m
from ..shape import TensorShape
from .tensor import SparseTensor

_REORDER_HINT = "Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"


def _sp(x, what="sp_input"):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(x).__name__} for `{what}`")
    return x


def _row_major_order(indices):
    """The permutation sorting index rows lexicographically (first column most significant)."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _unknown_rows(rank_dim, dtype):
    return TensorShape([None, rank_dim]), dtype


# ---------------------------------------------------------------- to_dense
def _to_dense_kernel(indices, output_shape, values, default_value, validate_indices):
    shape = tuple(int(d) for d in output_shape)
    out = np.full(shape, default_value, dtype=values.dtype if values.dtype != object else object)
    if len(indices):
        bad = (indices < 0) | (indices >= np.asarray(shape))
        if bad.any():
            i = int(np.nonzero(bad.any(axis=1))[0][0])
            raise InvalidArgumentError(f"indices[{i}] = [{','.join(map(str, indices[i]))}] is out of bounds: need 0 "
                                       f"<= index < [{','.join(map(str, shape))}]")
        if validate_indices and len(indices) > 1:
            flat = np.ravel_multi_index(indices.T, shape)
            step = np.diff(flat)
            if (step <= 0).any():
                i = int(np.nonzero(step <= 0)[0][0]) + 1
                what = "is repeated" if step[i - 1] == 0 else "is out of order. " + _REORDER_HINT
                raise InvalidArgumentError(f"indices[{i}] = [{','.join(map(str, indices[i]))}] {what}")
        if out.ndim == 0:  # a scalar: one index row of width 0
            out[()] = values[-1]
        else:
            out[tuple(indices.T)] = values
    return out


def _to_dense_infer(indices, output_shape, values, default_value, validate_indices):
    from ..ops.random_ops import static_shape_of
    return static_shape_of(output_shape), values.dtype


def _to_dense_grad(op, dy):
    indices = op.inputs[0]
    g_values = _a.gather_nd(dy, indices)
    return None, None, g_values, _m.subtract(_m.reduce_sum(dy), _m.reduce_sum(g_values))


SPARSE_TO_DENSE = defop("SparseToDense", _to_dense_kernel, _to_dense_infer, grad=_to_dense_grad)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    sp = _sp(sp_input)
    dv = convert_to_tensor(0 if default_value is None and sp.dtype != _dt.string else
                           (b"" if default_value is None else default_value), dtype=sp.dtype)
    return bind(SPARSE_TO_DENSE, (sp.indices, sp.dense_shape, sp.values, dv),
                {"validate_indices": bool(validate_indices)}, name=name or "SparseToDense")


def from_dense(tensor, name=None):
    t = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    zero = convert_to_tensor(b"" if t.dtype == _dt.string else 0, dtype=t.dtype)
    indices = _a.where(_m.not_equal(t, zero))
    return SparseTensor(indices, _a.gather_nd(t, indices), _a.shape(t, out_type=_dt.int64))


# ---------------------------------------------------------------- reorder, retain, transpose
def _reorder_kernel(indices, values, shape):
    order = _row_major_order(indices)
    return indices[order], values[order]


SPARSE_REORDER = defop("SparseReorder", _reorder_kernel,
                       lambda indices, values, shape: [(indices.shape, indices.dtype), (values.shape, values.dtype)],
                       num_outputs=2)


def reorder(sp_input, name=None):
    sp = _sp(sp_input)
    idx, vals = bind(SPARSE_REORDER, (sp.indices, sp.values, sp.dense_shape), name=name or "SparseReorder")
    out = SparseTensor(idx, vals, sp.dense_shape)
    out._shape = sp.shape
    return out


def retain(sp_input, to_retain):
    sp = _sp(sp_input)
    keep = _a.reshape(_a.where(convert_to_tensor(to_retain, dtype=_dt.bool)), [-1])
    out = SparseTensor(_a.gather(sp.indices, keep), _a.gather(sp.values, keep), sp.dense_shape)
    out._shape = sp.shape
    return out


def transpose(sp_input, perm=None, name=None):
    sp = _sp(sp_input)
    rank = sp.shape.rank
    if perm is None:
        if rank is None:
            raise ValueError("tf.sparse.transpose needs a known rank or `perm`")
        perm = list(range(rank - 1, -1, -1))
    perm = [int(p) for p in (perm.numpy() if isinstance(perm, Tensor) else perm)]
    t = reorder(SparseTensor(_a.gather(sp.indices, perm, axis=1), sp.values, _a.gather(sp.dense_shape, perm)))
    if sp.shape.rank is not None:
        t._shape = TensorShape([sp.shape[p] for p in perm])
    return t


# ---------------------------------------------------------------- add
def _add_kernel(a_idx, a_val, a_shape, b_idx, b_val, b_shape, thresh):
    if not np.array_equal(a_shape, b_shape):
        raise InvalidArgumentError(f"Operands' shapes do not match: A.shape = [{','.join(map(str, a_shape))}], "
                                   f"B.shape = [{','.join(map(str, b_shape))}]")
    idx = np.concatenate([a_idx, b_idx]).reshape(-1, len(a_shape))
    val = np.concatenate([a_val, b_val])
    if not len(idx):
        return idx.astype(np.int64), val
    flat = np.ravel_multi_index(idx.T, tuple(int(d) for d in a_shape))
    uniq, inv = np.unique(flat, return_inverse=True)
    sums = np.zeros(len(uniq), val.dtype)
    np.add.at(sums, inv, val)
    keep = np.abs(sums) >= thresh
    out_idx = np.stack(np.unravel_index(uniq[keep], tuple(int(d) for d in a_shape)), axis=1).astype(np.int64)
    return out_idx, sums[keep]


SPARSE_ADD = defop("SparseAdd", _add_kernel,
                   lambda a_idx, a_val, a_shape, b_idx, b_val, b_shape, thresh:
                   [(TensorShape([None, a_idx.shape[1]]), _dt.int64), (TensorShape([None]), a_val.dtype)],
                   num_outputs=2, same=0)


def _dense_add_kernel(indices, values, shape, dense):
    out = np.array(dense, copy=True)
    if indices.size:
        np.add.at(out, tuple(indices.T), values)
    return out


SPARSE_DENSE_ADD = defop("SparseTensorDenseAdd", _dense_add_kernel,
                         lambda indices, values, shape, dense: (dense.shape, dense.dtype),
                         grad=lambda op, dy: (None, _a.gather_nd(dy, op.inputs[0]), None, dy))


def add(a, b, threshold=0, name=None):
    """sparse + sparse -> sparse (sums, kept where |sum| >= threshold); sparse + dense -> dense."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        if a.dtype != b.dtype:
            raise TypeError(f"SparseTensors must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
        thresh = convert_to_tensor(threshold, dtype=a.dtype.real_dtype if a.dtype.is_complex else a.dtype)
        idx, vals = bind(SPARSE_ADD, (a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                                      thresh), name=name or "SparseAdd")
        out = SparseTensor(idx, vals, a.dense_shape)
        out._shape = a.shape.merge_with(b.shape) if a.shape.rank is not None and b.shape.rank is not None \
            else a.shape
        return out
    sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
    if not isinstance(sp, SparseTensor):
        raise TypeError("tf.sparse.add needs at least one SparseTensor")
    dense = dense if isinstance(dense, Tensor) else convert_to_tensor(dense, dtype=sp.dtype)
    return bind(SPARSE_DENSE_ADD, (sp.indices, sp.values, sp.dense_shape, dense), name=name or "SparseTensorDenseAdd")


# ---------------------------------------------------------------- sparse_dense_matmul
def _matmul_kernel(indices, values, shape, b, adjoint_a, adjoint_b):
    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    vals = np.conj(values) if adjoint_a and np.iscomplexobj(values) else values
    bm = (np.conj(b.T) if np.iscomplexobj(b) else b.T) if adjoint_b else b
    n_rows = int(shape[1] if adjoint_a else shape[0])
    inner = int(shape[0] if adjoint_a else shape[1])
    if bm.shape[0] != inner:
        raise InvalidArgumentError(f"Cannot multiply A and B because inner dimension does not match: {inner} vs. "
                                   f"{bm.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
                                   f"[{shape[0]}, {shape[1]}).  Dimensions of B: {list(b.shape)}")
    out = np.zeros((n_rows, bm.shape[1]), np.result_type(values, b))
    if len(rows):
        np.add.at(out, rows, vals[:, None] * bm[cols])
    return out


def _matmul_infer(indices, values, shape, b, adjoint_a, adjoint_b):
    cols = b.shape[0] if adjoint_b else b.shape[1] if b.shape.rank == 2 else None
    return TensorShape([None, cols]), values.dtype


def _matmul_grad(op, dy):
    indices, values, shape, b = op.inputs
    aa, ab = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    sp = SparseTensor(indices, values, shape)
    # d/db: A^T dy (or its adjoint when b was used adjointed)
    gb = sparse_dense_matmul(sp, dy, adjoint_a=not aa)
    if ab:
        gb = _a.transpose(gb)
    # d/dvalues: for each stored a[r, c] (as used: r = output row, c = inner index), dy[r] . B'[c]
    rows = indices[:, 1] if aa else indices[:, 0]
    cols = indices[:, 0] if aa else indices[:, 1]
    bm = _a.transpose(b) if ab else b
    gv = _m.reduce_sum(_m.multiply(_a.gather(dy, rows), _a.gather(bm, cols)), axis=1)
    return None, gv, None, gb


SPARSE_MATMUL = defop("SparseTensorDenseMatMul", _matmul_kernel, _matmul_infer, grad=_matmul_grad)


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """A (sparse, rank 2) times B (dense): a dense matrix."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):  # dense x sparse = (sp^T x dense^T)^T
        return _a.transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
    sp = _sp(sp_a, "sp_a")
    b = b if isinstance(b, Tensor) else convert_to_tensor(b, dtype=sp.dtype)
    out = bind(SPARSE_MATMUL, (sp.indices, sp.values, sp.dense_shape, b),
               {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}, name=name or "SparseTensorDenseMatMul")
    if sp.shape.rank == 2 and out.shape.rank == 2 and out.shape[0] is None:
        rows = sp.shape[1] if adjoint_a else sp.shape[0]
        if rows is not None and hasattr(out, "set_shape") and not hasattr(out, "_v"):
            out.set_shape([rows, out.shape[1]])
    return out


# ---------------------------------------------------------------- reduce_sum
def _norm_axes(axis, rank):
    if axis is None:
        return tuple(range(rank))
    axes = [int(a) for a in np.asarray(axis.numpy() if isinstance(axis, Tensor) else axis).reshape(-1)]
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
    return tuple(sorted({a % rank for a in axes}))


def _reduce_sparse_kernel(indices, values, shape, axes, keepdims, how="sum"):
    rank = len(shape)
    keep = [d for d in range(rank) if d not in axes]
    kept = indices[:, keep]
    out_shape = [int(shape[d]) if d not in axes else 1 for d in range(rank)] if keepdims else \
        [int(shape[d]) for d in keep]
    if not len(values):
        return np.zeros((0, len(out_shape)), np.int64), values[:0], np.asarray(out_shape, np.int64)
    if keep:
        uniq, inv = np.unique(kept, axis=0, return_inverse=True)
    else:  # every axis reduced: one group
        uniq, inv = np.zeros((1, 0), np.int64), np.zeros(len(values), np.int64)
    if how == "sum":
        sums = np.zeros(len(uniq), values.dtype)
        np.add.at(sums, inv.reshape(-1), values)
    else:  # the largest stored value (implicit zeros do not count)
        sums = np.full(len(uniq), -np.inf if values.dtype.kind in "fc" else np.iinfo(values.dtype).min,
                       values.dtype)
        np.maximum.at(sums, inv.reshape(-1), values)
    if keepdims:
        full = np.zeros((len(uniq), rank), np.int64)
        full[:, keep] = uniq
        uniq = full
    return uniq.astype(np.int64), sums, np.asarray(out_shape, np.int64)


SPARSE_REDUCE_SUM_SPARSE = defop(
    "SparseReduceSumSparse", _reduce_sparse_kernel,
    lambda indices, values, shape, axes, keepdims, how="sum": [(TensorShape([None, None]), _dt.int64),
                                                    (TensorShape([None]), values.dtype),
                                                    (TensorShape([None]), _dt.int64)], num_outputs=3)


def _reduce_sparse(sp_input, axis, keepdims, how, name):
    """(SparseTensor of the reduction over `axis`, the axes) for reduce_sum/reduce_max."""
    sp = _sp(sp_input)
    if sp.shape.rank is None:
        raise ValueError(f"tf.sparse.reduce_{how} needs a SparseTensor of known rank")
    axes = _norm_axes(axis, sp.shape.rank)
    idx, vals, shape = bind(SPARSE_REDUCE_SUM_SPARSE, (sp.indices, sp.values, sp.dense_shape),
                            {"axes": axes, "keepdims": bool(keepdims), "how": how}, name=name)
    return SparseTensor(idx, vals, shape), axes


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    if output_is_sparse:
        return _reduce_sparse(sp_input, axis, keepdims, "sum", name or "SparseReduceSumSparse")[0]
    sp = _sp(sp_input)
    if sp.shape.rank is None:
        raise ValueError("tf.sparse.reduce_sum needs a SparseTensor of known rank")
    # through the dense tensor, which carries gradients to the values
    return _m.reduce_sum(to_dense(sp, validate_indices=False), axis=list(_norm_axes(axis, sp.shape.rank)),
                         keepdims=bool(keepdims))


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The largest stored value along `axis` (implicit zeros do not count; a slice with none gives 0)."""
    out, _ = _reduce_sparse(sp_input, axis, keepdims, "max", name or "SparseReduceMax")
    return out if output_is_sparse else to_dense(out, validate_indices=False)


def map_values(op, *args, **kwargs):
    """op applied to the values of the SparseTensor arguments (which must share their indices)."""
    first = next((a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)), None)
    if first is None:
        raise ValueError("No SparseTensor in argument list of map_values")
    unwrap = lambda a: a.values if isinstance(a, SparseTensor) else a  # noqa: E731
    return first.with_values(op(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()}))


def _slice_kernel(indices, values, shape, start, size):
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    stop = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < stop), axis=1)
    return (indices[keep] - start).astype(np.int64), values[keep], np.maximum(stop - start, 0).astype(np.int64)


SPARSE_SLICE = defop("SparseSlice", _slice_kernel,
                     lambda indices, values, shape, start, size: [(indices.shape[:0].concatenate([None, indices.shape[1]]),
                                                                   _dt.int64), (TensorShape([None]), values.dtype),
                                                                  (shape.shape, _dt.int64)], num_outputs=3)


def slice(sp_input, start, size, name=None):  # noqa: A001
    """The entries within [start, start + size), re-indexed from `start`."""
    sp = _sp(sp_input)
    idx, vals, shape = bind(SPARSE_SLICE, (sp.indices, sp.values, sp.dense_shape, convert_to_tensor(
        np.asarray(start, np.int64)), convert_to_tensor(np.asarray(size, np.int64))), name=name or "SparseSlice")
    return SparseTensor(idx, vals, shape)


def expand_dims(sp_input, axis=None, name=None):
    sp = _sp(sp_input)
    rank = sp.shape.rank
    ax = int(axis if axis is not None else -1)
    ax = ax + rank + 1 if ax < 0 else ax
    n = _a.shape(sp.indices, out_type=_dt.int64)[0]
    zeros = _a.zeros(_a.stack([n, np.int64(1)]), dtype=_dt.int64)
    idx = _a.concat([sp.indices[:, :ax], zeros, sp.indices[:, ax:]], 1)
    shape = _a.concat([sp.dense_shape[:ax], convert_to_tensor(np.ones(1, np.int64)), sp.dense_shape[ax:]], 0)
    return SparseTensor(idx, sp.values, shape)


def _reshape_kernel(indices, shape, new_shape):
    new = [int(d) for d in new_shape]
    total = int(np.prod(shape))
    if new.count(-1) == 1:
        known = int(np.prod([d for d in new if d != -1]))
        new[new.index(-1)] = total // known if known else 0
    if int(np.prod(new)) != total:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {total} dense values, but the requested "
                                   f"shape has {int(np.prod(new))}")
    flat = np.ravel_multi_index(indices.T, tuple(int(d) for d in shape)) if len(indices) else np.zeros(0, np.int64)
    out = np.stack(np.unravel_index(flat, new), axis=1) if len(indices) else np.zeros((0, len(new)), np.int64)
    return out.astype(np.int64), np.asarray(new, np.int64)


SPARSE_RESHAPE = defop("SparseReshape", _reshape_kernel,
                       lambda indices, shape, new_shape: [(TensorShape([None, new_shape.shape[0]]), _dt.int64),
                                                          (new_shape.shape, _dt.int64)], num_outputs=2)


def reshape(sp_input, shape, name=None):
    sp = _sp(sp_input)
    idx, new = bind(SPARSE_RESHAPE, (sp.indices, sp.dense_shape, convert_to_tensor(np.asarray(shape, np.int64))),
                    name=name or "SparseReshape")
    return SparseTensor(idx, sp.values, new)


# ---------------------------------------------------------------- concat
def _concat_kernel(*parts, n, axis):
    idxs, vals, shapes = parts[:n], parts[n:2 * n], parts[2 * n:]
    rank = len(shapes[0])
    for s in shapes[1:]:
        if len(s) != rank or any(int(s[d]) != int(shapes[0][d]) for d in range(rank) if d != axis):
            raise InvalidArgumentError(f"Input shapes must match: expected {list(shapes[0])} for all dimensions "
                                       f"but the concat dimension {axis}, got {list(s)}")
    offset, out_idx = 0, []
    for i, s in zip(idxs, shapes):
        j = np.array(i, np.int64, copy=True).reshape(-1, rank)
        j[:, axis] += offset
        offset += int(s[axis])
        out_idx.append(j)
    idx = np.concatenate(out_idx)
    val = np.concatenate(vals)
    order = _row_major_order(idx)
    shape = np.array(shapes[0], np.int64, copy=True)
    shape[axis] = offset
    return idx[order], val[order], shape


SPARSE_CONCAT = defop("SparseConcat", _concat_kernel,
                      lambda *parts, n, axis: [(TensorShape([None, parts[0].shape[1]]), _dt.int64),
                                               (TensorShape([None]), parts[n].dtype),
                                               (parts[2 * n].shape, _dt.int64)], num_outputs=3)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    if expand_nonconcat_dims:
        raise NotImplementedError("tf.sparse.concat(expand_nonconcat_dims=True) is not implemented in rivulet")
    sps = [_sp(s, "sp_inputs") for s in sp_inputs]
    rank = sps[0].shape.rank
    if rank is None:
        raise ValueError("tf.sparse.concat needs SparseTensors of known rank")
    ax = int(axis) % rank
    if any(s.dtype != sps[0].dtype for s in sps):
        raise TypeError("tf.sparse.concat: all inputs must have the same dtype")
    idx, vals, shape = bind(SPARSE_CONCAT, tuple(s.indices for s in sps) + tuple(s.values for s in sps) +
                            tuple(s.dense_shape for s in sps), {"n": len(sps), "axis": ax},
                            name=name or "SparseConcat")
    return SparseTensor(idx, vals, shape)


# ---------------------------------------------------------------- elementwise with dense
def cwise(sp, other, how):
    other = other if isinstance(other, Tensor) else convert_to_tensor(other, dtype=sp.dtype)
    if other.shape.rank == 0:
        picked = other
    else:
        picked = _a.gather_nd(_a.broadcast_to(other, sp.dense_shape), sp.indices)
    vals = _m.multiply(sp.values, picked) if how == "mul" else _m.divide(sp.values, picked)
    return sp.with_values(vals)
