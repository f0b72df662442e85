"""Sorting, top-k, segment reductions, unique, searchsorted and scatter ops (tf.sort, tf.math.top_k,
tf.math.segment_sum, tf.math.unsorted_segment_max, tf.unique, tf.searchsorted, tf.scatter_nd ...).

Orders are stable everywhere: ties keep the lower index first, as TensorFlow's top_k does; NaN counts as the
smallest value when sorting descending (top_k) and the largest when ascending (tf.sort puts it last).
Segment ids and scatter indices are checked when the op runs (InvalidArgumentError naming the bad entry).
"""
from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import NUMERIC, REAL, cpp_dtype_name, defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a
from . import math_ops as _m
from ._rules import UNKNOWN, _convert_like, _fmt, to_tensor

TopKV2 = namedtuple("TopKV2", ["values", "indices"])
Unique = namedtuple("Unique", ["y", "idx"])
_INDEX = (_dt.int32, _dt.int64)


def _dims(shape):
    return "[" + ",".join(map(str, shape)) + "]"


def _int_arg(v, what):
    """(static int or None, extra inputs): a scalar int operand known at build time becomes an attr."""
    if isinstance(v, Tensor):
        if v.dtype not in _INDEX:
            raise TypeError(f"`{what}` must be an int32 or int64 tensor, got {v.dtype.name}")
        pv = _a.partial_value(v)
        if isinstance(pv, int):
            return pv, ()
        return None, (v,)
    return int(v), ()


def _one_axis(axis, rank, op_name):
    """A static int axis normalised against a known rank (a negative axis stays negative when the rank is not
    known: the kernels take it as NumPy does)."""
    axis = _a._static_int(axis, "axis")
    if rank is not None:
        if rank == 0 or not -rank <= axis < rank:
            raise _m.static_error(f"axis {axis} is out of range for a tensor of rank {rank}", op_name)
        axis %= rank
    return axis


# ---------------------------------------------------------------- stable orders
def _order(x, axis, descending):
    """Indices that sort x along axis; ties keep the lower index first."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    if x.dtype.kind == "f":
        return np.argsort(-x, axis=axis, kind="stable")  # -NaN is NaN: last, as the smallest value
    n = x.shape[axis]  # integers: no negation (overflow, unsigned); reverse a stable ascending sort instead
    r = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - r, axis)


def _sort_values(x, axis, descending):
    if not descending:
        return np.sort(x, axis=axis, kind="stable")
    if x.dtype.kind == "f":
        return -np.sort(-x, axis=axis, kind="stable")
    return np.flip(np.sort(x, axis=axis, kind="stable"), axis)


# Internal gradient helpers: x taken (and dy put back) along an axis by per-row index permutations.
def _take_along_infer(x, idx, axis):
    return idx.shape, x.dtype


def _scatter_along_kernel(dy, idx, ref, axis):
    out = np.zeros(np.shape(ref), dy.dtype)
    np.put_along_axis(out, idx, dy, axis)
    return out


TAKE_ALONG = defop("TakeAlongAxis", lambda x, idx, axis: np.take_along_axis(x, idx, axis), _take_along_infer,
                   grad=lambda op, dy: (bind(SCATTER_ALONG, (dy, op.inputs[1], op.inputs[0]), op.attrs), None))
# dy put at idx (distinct per row) along axis into zeros shaped like ref (ref is used for its shape).
SCATTER_ALONG = defop("ScatterAlongAxis", _scatter_along_kernel, lambda dy, idx, ref, axis: (ref.shape, dy.dtype),
                      grad=lambda op, ddy: (bind(TAKE_ALONG, (ddy, op.inputs[1]), op.attrs), None, None))


# ---------------------------------------------------------------- sort / argsort
def _sort_infer(x, axis, descending, **_):
    r = x.shape.rank
    if r is not None and (r == 0 or not -r <= axis < r):
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {r}")
    return x.shape, x.dtype


def _sort_grad(op, dy):
    x = op.inputs[0]
    a = op.attrs
    idx = bind(ARGSORT, (x,), {"axis": a["axis"], "descending": a["descending"]})
    return (bind(SCATTER_ALONG, (dy, idx, x), {"axis": a["axis"]}),)


# Not TensorFlow op types (TensorFlow composes transposes, negation and TopKV2): one stable NumPy sort.
SORT = defop("Sort", lambda x, axis, descending: _sort_values(x, axis, descending), _sort_infer, grad=_sort_grad,
             allowed=REAL)
ARGSORT = defop("ArgSort", lambda x, axis, descending: _order(x, axis, descending).astype(np.int32),
                lambda x, axis, descending: (_sort_infer(x, axis, descending)[0], _dt.int32),
                grad=lambda op, dy: (None,), allowed=REAL)


def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: "
                         f"direction={direction}")
    return direction == "DESCENDING"


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """Sorted along `axis` (stable; NaN last)."""
    desc = _direction(direction)
    x = to_tensor(values)
    axis = _one_axis(axis, x.shape.rank, "Sort")
    return bind(SORT, (x,), {"axis": axis, "descending": desc}, name=name or "sort")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """int32 indices that sort `values` along `axis`; always stable (ties: lower index first)."""
    desc = _direction(direction)
    x = to_tensor(values)
    axis = _one_axis(axis, x.shape.rank, "ArgSort")
    return bind(ARGSORT, (x,), {"axis": axis, "descending": desc}, name=name or "argsort")


# ---------------------------------------------------------------- top_k
def _top_k_kernel(x, *dyn, k, sorted):  # noqa: A002
    k = int(dyn[0]) if dyn else k
    if x.ndim < 1:
        raise InvalidArgumentError(f"input must be >= 1-D, got shape {_dims(x.shape)}")
    if k < 0:
        raise InvalidArgumentError(f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise InvalidArgumentError(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    if not sorted and 1 < k < x.shape[-1]:
        idx = np.array([_heap_top_k(row, k) for row in x.reshape(-1, x.shape[-1]).tolist()],
                       np.int64).reshape(x.shape[:-1] + (k,))
    else:
        idx = _order(x, -1, True)[..., :k]
    return np.take_along_axis(x, idx, -1), idx.astype(np.int32)


def _heap_top_k(row, k):
    """sorted=False: the k largest in the order TensorFlow's CPU kernel leaves them, a bounded min-heap of
    indices (ties: lower index ranks higher) kept with the C++ standard library's heap steps."""
    def better(i, j):
        return row[i] > row[j] or (row[i] == row[j] and i < j)

    heap = list(range(k + 1))
    for top in range((k - 1) // 2, -1, -1):  # make_heap over the first k + 1 indices
        _sift(heap, top, k + 1, heap[top], better)
    _sift(heap, 0, k, _swap_last(heap), better)  # pop_heap drops the worst of them
    heap.pop()
    for c in range(k + 1, len(row)):
        if better(c, heap[0]):  # replace the worst: pop_heap, then push_heap of c
            _sift(heap, 0, k - 1, _swap_last(heap), better)
            heap[-1] = c
            hole = k - 1
            parent = (hole - 1) // 2
            while hole > 0 and better(heap[parent], c):
                heap[hole] = heap[parent]
                hole, parent = parent, (parent - 1) // 2
            heap[hole] = c
    return heap


def _swap_last(heap):
    v = heap[-1]
    heap[-1] = heap[0]
    return v


def _sift(a, hole, n, value, better):
    """libstdc++'s __adjust_heap: move the hole down to a leaf along the larger children, then sift up."""
    top, child = hole, hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if better(a[child], a[child - 1]):
            child -= 1
        a[hole] = a[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[hole] = a[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and better(a[parent], value):
        a[hole] = a[parent]
        hole, parent = parent, (parent - 1) // 2
    a[hole] = value


def _top_k_infer(x, *dyn, k, sorted):  # noqa: A002
    s = x.shape
    if k is not None and k < 0:
        raise ValueError(f"Need k >= 0, got {k}")
    if s.rank is None:
        return [(UNKNOWN, x.dtype), (UNKNOWN, _dt.int32)]
    if s.rank == 0:
        raise ValueError(f"input must be >= 1-D, got shape {_fmt(s)}")
    n = s[-1]
    if k is not None and n is not None and n < k:
        raise ValueError(f"input must have at least k columns. Had {n}, needed {k}")
    out = TensorShape(list(s[:-1]) + [k])
    return [(out, x.dtype), (out, _dt.int32)]


def _top_k_grad(op, dvalues, dindices):
    x = op.inputs[0]
    g = None if dvalues is None else bind(SCATTER_ALONG, (dvalues, op.outputs[1], x), {"axis": -1})
    return (g,) + (None,) * (len(op.inputs) - 1)


TOP_K = defop("TopKV2", _top_k_kernel, _top_k_infer, grad=_top_k_grad, num_outputs=2, allowed=REAL)


def top_k(input, k=1, sorted=True, index_type=_dt.int32, name=None):  # noqa: A002
    """The k largest entries of the last axis and their int32 indices, largest first (ties: lower index)."""
    x = to_tensor(input)
    if _dt.as_dtype(index_type) is not _dt.int32:
        raise NotImplementedError("top_k: only index_type=tf.int32 is supported")
    kv, dyn = _int_arg(k, "k")
    attrs = {"k": kv, "sorted": bool(sorted)}
    if not dyn:
        _a._check(TOP_K, (x,), **attrs)
    values, indices = bind(TOP_K, (x, *dyn), attrs, name=name or "TopKV2")
    return TopKV2(values, indices)


# ---------------------------------------------------------------- segment reductions
def _lowest(dt):
    # An empty unsorted segment's max is the dtype's lowest finite value (-3.4028235e+38 in float32), not
    # -inf, as TensorFlow's kernel initialises it (and ragged reduce_max of an empty row with it).
    return np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min


def _highest(dt):
    return np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max


def _reduce_into(data, ids, num, kind):
    """Reduces rows of data (dim 0) into `num` segments by ids (1-D; negative ids are dropped)."""
    out_shape = (num,) + data.shape[1:]
    keep = ids >= 0
    if not keep.all():
        data, ids = data[keep], ids[keep]
    if kind in ("sum", "mean"):
        out = np.zeros(out_shape, data.dtype)
        np.add.at(out, ids, data)
        if kind == "mean":
            count = np.bincount(ids, minlength=num).reshape((num,) + (1,) * (data.ndim - 1))
            count = np.maximum(count, 1)
            if data.dtype.kind in "iu":  # integer mean truncates toward zero, as TensorFlow's does
                out = (np.sign(out) * (np.abs(out) // count)).astype(data.dtype)
            else:
                out = (out / count).astype(data.dtype)
        return out
    if kind == "prod":
        out = np.ones(out_shape, data.dtype)
        np.multiply.at(out, ids, data)
        return out
    ufunc, init = (np.maximum, _lowest(data.dtype)) if kind == "max" else (np.minimum, _highest(data.dtype))
    out = np.full(out_shape, init, data.dtype)
    ufunc.at(out, ids, data)
    return out


def _sorted_segment_kernel(kind, name):
    @context.quiet
    def k(data, ids):
        if ids.ndim != 1:
            raise InvalidArgumentError("segment_ids should be a vector.")
        if data.ndim < 1 or data.shape[0] != ids.shape[0]:
            raise InvalidArgumentError("segment_ids should be the same size as dimension 0 of input.")
        num = int(ids[-1]) + 1 if ids.size else 0
        if ids.size:
            if (np.diff(ids) < 0).any():
                raise InvalidArgumentError("segment ids are not increasing")
            if ids[0] < 0:
                raise InvalidArgumentError(f"Segment id {ids[0]} out of range [0, {num}), possibly because "
                                           f"'segment_ids' input is not sorted.")
        out = _reduce_into(data, ids, num, kind)
        if kind in ("max", "min") and ids.size:  # an empty sorted segment is 0, not the reduction's identity
            empty = np.bincount(ids, minlength=num) == 0
            out[empty] = 0
        return out
    return k


def _sorted_segment_infer(data, ids):
    if ids.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {ids.shape.rank} for segment_ids")
    s = data.shape
    if s.rank is None:
        return UNKNOWN, data.dtype
    if s.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for data")
    if ids.shape.rank == 1 and None not in (s[0], ids.shape[0]) and s[0] != ids.shape[0]:
        raise ValueError(f"segment_ids should be the same size as dimension 0 of input: {_fmt(ids.shape)} vs. "
                         f"{_fmt(s)}")
    return TensorShape([None] + list(s[1:])), data.dtype


def _unsorted_segment_kernel(kind, name):
    @context.quiet
    def k(data, ids, *dyn, num_segments):
        num = int(dyn[0]) if dyn else num_segments
        if num < 0:
            raise InvalidArgumentError(f"Input num_segments == {num} must not be negative.")
        if data.shape[:ids.ndim] != ids.shape:
            raise InvalidArgumentError(f"data.shape = {_dims(data.shape)} does not start with segment_ids.shape = "
                                       f"{_dims(ids.shape)}")
        flat = ids.reshape(-1)
        bad = np.nonzero(flat >= num)[0]
        if bad.size:
            j = int(bad[0])
            raise InvalidArgumentError(f"segment_ids[{j}] = {flat[j]} is out of range [0, {num})")
        return _reduce_into(data.reshape((flat.size,) + data.shape[ids.ndim:]), flat, num, kind)
    return k


def _unsorted_segment_infer(data, ids, *dyn, num_segments):
    if num_segments is not None and num_segments < 0:
        raise ValueError(f"Input num_segments == {num_segments} must not be negative.")
    s, i = data.shape, ids.shape
    if s.rank is None or i.rank is None:
        return UNKNOWN, data.dtype
    if i.rank > s.rank or not s[:i.rank].is_compatible_with(i):
        raise ValueError(f"data.shape = {_fmt(s)} does not start with segment_ids.shape = {_fmt(i)}")
    return TensorShape([num_segments] + list(s[i.rank:])), data.dtype


# segment_ids gathers (0 for a negative id) and their transpose, the segment sum into ref's rows; `mean`
# divides by the segment sizes. Linear and each other's adjoint, so gradients of any order follow.
def _seg_counts(ids, num, ndim):
    c = np.bincount(ids[ids >= 0], minlength=num)[:num]
    return np.maximum(c, 1).reshape((num,) + (1,) * (ndim - 1))


def _seg_gather_kernel(dy, ids, mean):
    flat = ids.reshape(-1)
    out = dy[np.maximum(flat, 0)]
    if mean:
        out = out / _seg_counts(flat, dy.shape[0], dy.ndim)[np.maximum(flat, 0)]
    out[flat < 0] = 0
    return out.astype(dy.dtype, copy=False).reshape(ids.shape + dy.shape[1:])


def _seg_scatter_kernel(g, ids, ref, mean):
    num = np.shape(ref)[0]
    flat = ids.reshape(-1)
    out = _reduce_into(g.reshape((flat.size,) + g.shape[ids.ndim:]), flat, num, "sum")
    if mean:
        out = (out / _seg_counts(flat, num, out.ndim)).astype(g.dtype)
    return out


def _seg_gather_infer(dy, ids, mean):
    if dy.shape.rank is None or ids.shape.rank is None:
        return UNKNOWN, dy.dtype
    return TensorShape(list(ids.shape) + list(dy.shape[1:])), dy.dtype


SEG_GATHER = defop("SegmentGather", _seg_gather_kernel, _seg_gather_infer,
                   grad=lambda op, dd: (bind(SEG_SCATTER, (dd, op.inputs[1], op.inputs[0]), op.attrs), None))
SEG_SCATTER = defop("SegmentScatter", _seg_scatter_kernel, lambda g, ids, ref, mean: (ref.shape, g.dtype),
                    grad=lambda op, dd: (bind(SEG_GATHER, (dd, op.inputs[1]), op.attrs), None, None))


def _seg_gather(dy, ids, mean=False):
    return bind(SEG_GATHER, (dy, ids), {"mean": mean})


def _seg_scatter(g, ids, ref):
    return bind(SEG_SCATTER, (g, ids, ref), {"mean": False})


def _grad_sum(op, dy):
    return (_seg_gather(dy, op.inputs[1]),) + (None,) * (len(op.inputs) - 1)


def _grad_mean(op, dy):
    return (_seg_gather(dy, op.inputs[1], mean=True),) + (None,) * (len(op.inputs) - 1)


def _grad_minmax(op, dy):
    """Split evenly between the entries equal to their segment's result (as TensorFlow does)."""
    data, ids, out = op.inputs[0], op.inputs[1], op.outputs[0]
    sel = _m.cast(_m.equal(data, _seg_gather(out, ids)), dy.dtype)
    count = _seg_scatter(sel, ids, out)
    return (_m.multiply(_seg_gather(_m.divide_no_nan(dy, count), ids), sel),) + (None,) * (len(op.inputs) - 1)


def _grad_prod(prod_op):
    def grad(op, dy):
        """d prod / d x = prod / x, or the product of the others where x is the segment's only zero (TF)."""
        data, ids, out = op.inputs[0], op.inputs[1], op.outputs[0]
        is_zero = _m.equal(data, _m.zeros_like_(data))
        n_zero = _seg_scatter(_m.cast(is_zero, dy.dtype), ids, out)
        dy = _a.where(_m.greater(n_zero, _m._one_like(n_zero)), _m.zeros_like_(dy), dy)
        safe = _a.where(is_zero, _m._one_like(data), data)
        safe_prod = bind(prod_op, (safe, *op.inputs[1:]), op.attrs)
        partial = _a.where(is_zero, _seg_gather(safe_prod, ids), _m.divide_(_seg_gather(out, ids), safe))
        return (_m.multiply(_seg_gather(dy, ids), partial),) + (None,) * (len(op.inputs) - 1)
    return grad


SEGMENT_SUM = defop("SegmentSum", _sorted_segment_kernel("sum", "SegmentSum"), _sorted_segment_infer,
                    grad=_grad_sum, allowed=NUMERIC)
SEGMENT_MEAN = defop("SegmentMean", _sorted_segment_kernel("mean", "SegmentMean"), _sorted_segment_infer,
                     grad=_grad_mean, allowed=NUMERIC)
SEGMENT_MAX = defop("SegmentMax", _sorted_segment_kernel("max", "SegmentMax"), _sorted_segment_infer,
                    grad=_grad_minmax, allowed=REAL)
SEGMENT_MIN = defop("SegmentMin", _sorted_segment_kernel("min", "SegmentMin"), _sorted_segment_infer,
                    grad=_grad_minmax, allowed=REAL)
SEGMENT_PROD = defop("SegmentProd", _sorted_segment_kernel("prod", "SegmentProd"), _sorted_segment_infer,
                     allowed=NUMERIC)
SEGMENT_PROD.grad = _grad_prod(SEGMENT_PROD)
UNSORTED_SUM = defop("UnsortedSegmentSum", _unsorted_segment_kernel("sum", "UnsortedSegmentSum"),
                     _unsorted_segment_infer, grad=_grad_sum, allowed=NUMERIC)
UNSORTED_MAX = defop("UnsortedSegmentMax", _unsorted_segment_kernel("max", "UnsortedSegmentMax"),
                     _unsorted_segment_infer, grad=_grad_minmax, allowed=REAL)
UNSORTED_MIN = defop("UnsortedSegmentMin", _unsorted_segment_kernel("min", "UnsortedSegmentMin"),
                     _unsorted_segment_infer, grad=_grad_minmax, allowed=REAL)
UNSORTED_PROD = defop("UnsortedSegmentProd", _unsorted_segment_kernel("prod", "UnsortedSegmentProd"),
                      _unsorted_segment_infer, allowed=NUMERIC)
UNSORTED_PROD.grad = _grad_prod(UNSORTED_PROD)


def _segment_ids(ids, op_name):
    i = _a._indices(ids)
    _a._check_index_dtype(i, op_name, attr="Tindices")
    return i


def _sorted_fn(op, doc):
    def f(data, segment_ids, name=None):
        x = to_tensor(data)
        i = _segment_ids(segment_ids, op.name)
        _a._check(op, (x, i))
        return bind(op, (x, i), name=name or op.name)
    f.__name__ = f.__qualname__ = doc
    return f


def _unsorted_fn(op, doc):
    def f(data, segment_ids, num_segments, name=None):
        x = to_tensor(data)
        i = _segment_ids(segment_ids, op.name)
        n, dyn = _int_arg(num_segments, "num_segments")
        _a._check(op, (x, i), num_segments=n)
        return bind(op, (x, i, *dyn), {"num_segments": n}, name=name or op.name)
    f.__name__ = f.__qualname__ = doc
    return f


segment_sum = _sorted_fn(SEGMENT_SUM, "segment_sum")
segment_mean = _sorted_fn(SEGMENT_MEAN, "segment_mean")
segment_max = _sorted_fn(SEGMENT_MAX, "segment_max")
segment_min = _sorted_fn(SEGMENT_MIN, "segment_min")
segment_prod = _sorted_fn(SEGMENT_PROD, "segment_prod")
unsorted_segment_sum = _unsorted_fn(UNSORTED_SUM, "unsorted_segment_sum")
unsorted_segment_max = _unsorted_fn(UNSORTED_MAX, "unsorted_segment_max")
unsorted_segment_min = _unsorted_fn(UNSORTED_MIN, "unsorted_segment_min")
unsorted_segment_prod = _unsorted_fn(UNSORTED_PROD, "unsorted_segment_prod")


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Segment sums divided by the segment sizes (0 for an empty segment); integer data gives float64, as
    TensorFlow's true division of the sums does."""
    x = to_tensor(data)
    summed = unsorted_segment_sum(x, segment_ids, num_segments, name=name)
    count = _seg_scatter(_m._one_like(x), _segment_ids(segment_ids, "UnsortedSegmentSum"), summed)
    return _m.truediv(summed, _m.maximum(count, _m._one_like(count)))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Segment sums divided by the square root of the segment sizes (0 for an empty segment); floating and
    complex data only, as TensorFlow's."""
    x = to_tensor(data)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        msg = (f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: bfloat16, half, float, "
               f"double, complex64, complex128")
        raise InvalidArgumentError(msg + " [Op:Sqrt]") if context.executing_eagerly() else TypeError(msg)
    summed = unsorted_segment_sum(x, segment_ids, num_segments, name=name)
    count = _seg_scatter(_m._one_like(x), _segment_ids(segment_ids, "UnsortedSegmentSum"), summed)
    return _m.truediv(summed, _m.sqrt(_m.maximum(count, _m._one_like(count))))


# ---------------------------------------------------------------- unique
def _unique_kernel(x, out_idx):
    if x.ndim != 1:
        raise InvalidArgumentError("unique expects a 1D vector.")
    if x.dtype == object:
        seen = {}
        idx = np.array([seen.setdefault(v, len(seen)) for v in x.tolist()], dtype=out_idx._np)
        return np.array(list(seen), dtype=object).reshape(-1), idx
    _, first, inv = np.unique(x, return_index=True, return_inverse=True, equal_nan=False)
    order = np.argsort(first, kind="stable")  # first-occurrence order, as TensorFlow gives
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return x[first[order]], rank[inv.reshape(-1)].astype(out_idx._np)


def _unique_infer(x, out_idx):
    if x.shape.rank not in (None, 1):
        raise ValueError(f"unique expects a 1D vector, got shape {_fmt(x.shape)}")
    return [(TensorShape([None]), x.dtype), (x.shape if x.shape.rank is not None else TensorShape([None]),
                                             out_idx)]


UNIQUE = defop("Unique", _unique_kernel, _unique_infer, num_outputs=2)


def unique(x, out_idx=_dt.int32, name=None):
    """(y, idx): the distinct values of a 1-D x in order of first occurrence, and each entry's index in y."""
    t = to_tensor(x)
    out_idx = _dt.as_dtype(out_idx)
    if out_idx not in _INDEX:
        msg = (f"Value for attr 'out_idx' of {cpp_dtype_name(out_idx)} is not in the list of allowed values: int32, int64"
               f"\n\t; NodeDef: {{{{node Unique}}}}; Op<name=Unique>")
        raise InvalidArgumentError(f"{msg} [Op:Unique]") if context.executing_eagerly() else TypeError(msg)
    _a._check(UNIQUE, (t,), out_idx=out_idx)
    y, idx = bind(UNIQUE, (t,), {"out_idx": out_idx}, name=name or "Unique")
    return Unique(y, idx)


# ---------------------------------------------------------------- searchsorted
def _bound_kernel(side):
    def k(s, v, out_type):
        if s.ndim < 1 or v.ndim < 1:
            raise InvalidArgumentError("sorted_sequence and values must be at least 1-D")
        s2 = s.reshape(-1, s.shape[-1]) if s.size or s.shape[-1] else s.reshape(int(np.prod(s.shape[:-1])), 0)
        v2 = v.reshape(int(np.prod(v.shape[:-1])), v.shape[-1])
        if s2.shape[0] != v2.shape[0]:
            raise InvalidArgumentError("Leading dim_size of both tensors must match.")
        out = np.empty(v2.shape, out_type._np)
        for r in range(s2.shape[0]):
            out[r] = np.searchsorted(s2[r], v2[r], side=side)
        return out.reshape(v.shape)
    return k


def _bound_infer(s, v, out_type):
    for t, what in ((s, "sorted_sequence"), (v, "values")):
        if t.shape.rank == 0:
            raise ValueError(f"{what} must be at least 1-D, got shape []")
    return v.shape, out_type


LOWER_BOUND = defop("LowerBound", _bound_kernel("left"), _bound_infer, same=2)
UPPER_BOUND = defop("UpperBound", _bound_kernel("right"), _bound_infer, same=2)


def searchsorted(sorted_sequence, values, side="left", out_type=_dt.int32, name=None):
    """Per row of the innermost axis: where each value would be inserted to keep the row sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    op = LOWER_BOUND if side == "left" else UPPER_BOUND
    out_type = _dt.as_dtype(out_type)
    if out_type not in _INDEX:
        msg = (f"Value for attr 'out_type' of {cpp_dtype_name(out_type)} is not in the list of allowed values: int32, int64"
               f"\n\t; NodeDef: {{{{node {op.name}}}}}; Op<name={op.name}>")
        raise InvalidArgumentError(f"{msg} [Op:{op.name}]") if context.executing_eagerly() else TypeError(msg)
    s = to_tensor(sorted_sequence)
    v = values if isinstance(values, Tensor) else _convert_like(values, s.dtype)
    _a._check(op, (s, v), out_type=out_type)
    return bind(op, (s, v), {"out_type": out_type}, name=name or "searchsorted")


# ---------------------------------------------------------------- scatter_nd / tensor_scatter_nd_*
def _scatter_shapes(out, ind, upd):
    """TensorFlow's ScatterNd shape contract, or a message naming what does not fit (None dims match)."""
    if out is None or ind is None or upd is None:
        return None
    k = ind[-1] if ind else None
    if len(ind) < 1:
        return f"Indices shape must have rank at least one. Found:{_fmt(TensorShape(ind))}"
    if k is not None and k > len(out):
        return (f"Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
                f"{_fmt(TensorShape(out))} updates: {_fmt(TensorShape(upd))}")
    lead = len(ind) - 1
    if len(upd) < lead or not TensorShape(upd[:lead]).is_compatible_with(TensorShape(ind[:lead])):
        return (f"Dimensions [0,{lead}) of indices[shape={_fmt(TensorShape(ind))}] must match dimensions "
                f"[0,{lead}) of updates[shape={_fmt(TensorShape(upd))}]")
    if k is not None and not TensorShape(upd[lead:]).is_compatible_with(TensorShape(out[k:])):
        n = len(out) - k
        return (f"The inner {n} dimensions of output.shape={_fmt(TensorShape(out))} must match the inner {n} "
                f"dimensions of updates.shape={_fmt(TensorShape(upd))}")
    return None


def _nd_positions(indices, shape, op_name):
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    bad = np.nonzero(((flat < 0) | (flat >= np.array(shape[:k], dtype=np.int64))).any(axis=1))[0]
    if bad.size:
        j = int(bad[0])
        raise InvalidArgumentError(f"indices[{j}] = [{', '.join(map(str, flat[j]))}] does not index into shape "
                                   f"{_dims(shape)}")
    return tuple(flat.T)


def _as_dims(s):
    return None if s.rank is None else list(s)


def _scatter_nd_kernel(indices, updates, *dyn, shape):
    shape = tuple(dyn[0].tolist()) if dyn else shape
    msg = _scatter_shapes(list(shape), list(indices.shape), list(updates.shape))
    if msg:
        raise InvalidArgumentError(msg)
    out = np.zeros(shape, updates.dtype)
    k = indices.shape[-1]
    key = _nd_positions(indices, shape, "ScatterNd")
    np.add.at(out, key, updates.reshape((-1,) + tuple(shape[k:])))
    return out


def _scatter_nd_infer(indices, updates, *dyn, shape):
    msg = _scatter_shapes(None if shape is None else list(shape), _as_dims(indices.shape), _as_dims(updates.shape))
    if msg:
        raise ValueError(msg)
    return (UNKNOWN if shape is None else TensorShape(shape)), updates.dtype


SCATTER_ND = defop("ScatterNd", _scatter_nd_kernel, _scatter_nd_infer,
                   grad=lambda op, dy: (None, _a.gather_nd(dy, op.inputs[0])) + (None,) * (len(op.inputs) - 2))


def _scatter_indices(indices, op_name):
    i = _a._indices(indices)
    _a._check_index_dtype(i, op_name, allowed=(_dt.int16, _dt.int32, _dt.int64))
    return i


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    i = _scatter_indices(indices, "ScatterNd")
    u = to_tensor(updates)
    attr, dyn = _a.shape_arg(shape)
    if not dyn:
        _a._check(SCATTER_ND, (i, u), shape=attr)
    return bind(SCATTER_ND, (i, u, *dyn), {"shape": attr}, name=name or "ScatterNd")


def _tensor_scatter_kernel(mode, in_place=False):
    def k(tensor, indices, updates):
        msg = _scatter_shapes(list(tensor.shape), list(indices.shape), list(updates.shape))
        if msg:
            raise InvalidArgumentError(msg)
        out = tensor if in_place else np.array(tensor, copy=True)
        kk = indices.shape[-1]
        key = _nd_positions(indices, tensor.shape, "")
        upd = updates.reshape((-1,) + tensor.shape[kk:])
        if mode == "update":
            out[key] = upd
        else:
            np.add.at(out, key, upd if mode == "add" else -upd)
        return out
    return k


def _tensor_scatter_infer(tensor, indices, updates):
    msg = _scatter_shapes(_as_dims(tensor.shape), _as_dims(indices.shape), _as_dims(updates.shape))
    if msg:
        raise ValueError(msg)
    return tensor.shape, tensor.dtype


def _update_grad(op, dy):
    t, i, u = op.inputs
    return (bind(TENSOR_SCATTER_UPDATE, (dy, i, _m.zeros_like_(u))), None, _a.gather_nd(dy, i))


TENSOR_SCATTER_UPDATE = defop("TensorScatterUpdate", _tensor_scatter_kernel("update"), _tensor_scatter_infer,
                              grad=_update_grad)
# TensorScatterUpdate writing into its `tensor` operand: for a loop that owns that buffer and reads it nowhere
# else (function/control_flow.py: a Keras RNN's [time, batch, units] outputs, one row a step; a copy per step
# made such a loop quadratic in its length)
tensor_scatter_update_in_place = _tensor_scatter_kernel("update", in_place=True)
TENSOR_SCATTER_ADD = defop("TensorScatterAdd", _tensor_scatter_kernel("add"), _tensor_scatter_infer,
                           grad=lambda op, dy: (dy, None, _a.gather_nd(dy, op.inputs[1])), allowed=NUMERIC)
TENSOR_SCATTER_SUB = defop("TensorScatterSub", _tensor_scatter_kernel("sub"), _tensor_scatter_infer,
                           grad=lambda op, dy: (dy, None, _m.negative(_a.gather_nd(dy, op.inputs[1]))),
                           allowed=NUMERIC)


def _tensor_scatter_fn(op, doc):
    def f(tensor, indices, updates, name=None):
        t = to_tensor(tensor)
        i = _scatter_indices(indices, op.name)
        u = updates if isinstance(updates, Tensor) else _convert_like(updates, t.dtype)
        if u.dtype is not t.dtype:
            if context.executing_eagerly():
                raise InvalidArgumentError(f"cannot compute {op.name} as input #2(zero-based) was expected to be a "
                                           f"{cpp_dtype_name(t.dtype)} tensor but is a {cpp_dtype_name(u.dtype)} tensor "
                                           f"[Op:{op.name}]")
            raise TypeError(f"Input 'updates' of '{op.name}' Op has type {u.dtype.name} that does not match type "
                            f"{t.dtype.name} of argument 'tensor'.")
        _a._check(op, (t, i, u))
        return bind(op, (t, i, u), name=name or op.name)
    f.__name__ = f.__qualname__ = doc
    return f


tensor_scatter_nd_update = _tensor_scatter_fn(TENSOR_SCATTER_UPDATE, "tensor_scatter_nd_update")
tensor_scatter_nd_add = _tensor_scatter_fn(TENSOR_SCATTER_ADD, "tensor_scatter_nd_add")
tensor_scatter_nd_sub = _tensor_scatter_fn(TENSOR_SCATTER_SUB, "tensor_scatter_nd_sub")
