"""Converters: sorting and top-k, segment reductions, scatters, unique.

Orders: ONNX TopK breaks ties by the lower index, as rivulet does; NaN's place is not specified by ONNX, so
float inputs sort in two stable passes: by value with NaN replaced by the end value (+inf ascending, -inf
descending), then by "is NaN", which moves the NaNs after everything else (ascending: NaN is the largest;
descending: the smallest, as rivulet's sort and top_k order them).
"""
import numpy as np

from .. import dtypes as _dt
from .builder import INT64_MAX, Unsupported, converter

# TopK keys onnxruntime has kernels for; uint16/uint32 are compared as int64 (exactly).
_WIDEN = {_dt.uint16, _dt.uint32}


def _axis_len(ctx, x, t, axis):
    """The size of dimension `axis` of x as an int64 [1] tensor."""
    s = t.shape
    if s.rank is not None and s[axis] is not None:
        return ctx.i64([s[axis]])
    return ctx.node("Gather", [ctx.node("Shape", [x]), ctx.i64([axis])], axis=0)


def _topk(ctx, key, k, axis, largest):
    return ctx.node("TopK", [key, k], n_out=2, axis=axis, largest=int(largest), sorted=1)[1]


def _order(ctx, x, t, axis, descending, k=None):
    """int64 indices sorting x along axis (stable; NaN last), the first k ([1] int64 tensor) when given."""
    dt = t.dtype
    if dt is _dt.bool or dt.is_complex or dt is _dt.string:
        raise Unsupported(f"sorting {dt.name} has no ONNX form")
    key = ctx.cast(x, np.int64) if dt in _WIDEN else x
    if not dt.is_floating:
        return _topk(ctx, key, k if k is not None else _axis_len(ctx, x, t, axis), axis, descending)
    n = _axis_len(ctx, x, t, axis)
    nan = ctx.node("IsNaN", [x])
    key = ctx.node("Where", [nan, ctx.scalar(t, -np.inf if descending else np.inf), x])
    i1 = _topk(ctx, key, n, axis, descending)
    flag = ctx.node("GatherElements", [ctx.cast(nan, np.int32), i1], axis=axis)
    idx = ctx.node("GatherElements", [i1, _topk(ctx, flag, n, axis, False)], axis=axis)
    if k is not None:
        idx = ctx.node("Slice", [idx, ctx.i64([0]), k, ctx.i64([axis])])
    return idx


@converter("Sort")
def _sort(ctx, op, x):
    axis = op.attrs["axis"]
    idx = _order(ctx, x, op.inputs[0], axis, op.attrs["descending"])
    return ctx.node("GatherElements", [x, idx], axis=axis)


@converter("ArgSort")
def _argsort(ctx, op, x):
    return ctx.cast(_order(ctx, x, op.inputs[0], op.attrs["axis"], op.attrs["descending"]), np.int32)


@converter("TopKV2")
def _top_k(ctx, op, x, *dyn):
    k = ctx.unsqueeze(ctx.as_i64(dyn[0], op.inputs[1]), [0]) if dyn else ctx.i64([op.attrs["k"]])
    idx = _order(ctx, x, op.inputs[0], -1, True, k)
    return [ctx.node("GatherElements", [x, idx], axis=-1), ctx.cast(idx, np.int32)]


# -------------------------------------------------------------------------------- scatter_nd
def _need_reduction(ctx, what, opset=16):
    if ctx.opset < opset:
        raise Unsupported(f"{what} needs ScatterND's reduction, which needs opset {opset} or later (exporting "
                          f"opset {ctx.opset})")


@converter("ScatterNd")
def _scatter_nd(ctx, op, indices, updates, *dyn):
    # Zeros with updates added at indices: repeated indices add up (reduction="add").
    _need_reduction(ctx, "adding up repeated indices")
    t = op.inputs[1]
    if t.dtype is _dt.bool:
        raise Unsupported("ScatterND cannot add booleans")
    shape = ctx.as_i64(dyn[0], op.inputs[2]) if dyn else ctx.i64(list(op.attrs["shape"]))
    zeros = ctx.node("Expand", [ctx.scalar(t, 0), shape])
    return ctx.node("ScatterND", [zeros, ctx.as_i64(indices, op.inputs[0]), updates], reduction="add")


@converter("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub")
def _tensor_scatter(ctx, op, tensor, indices, updates):
    t = op.inputs[0]
    idx = ctx.as_i64(indices, op.inputs[1])
    if op.type == "TensorScatterUpdate":
        return ctx.node("ScatterND", [tensor, idx, updates])
    _need_reduction(ctx, "adding at repeated indices")
    if op.type == "TensorScatterSub":
        # -u (a wrapped 0 - u for unsigned integers, as NumPy's negation of them).
        signed = t.dtype.is_floating or t.dtype in (_dt.int8, _dt.int16, _dt.int32, _dt.int64)
        updates = ctx.node("Neg", [updates]) if signed else ctx.node("Sub", [ctx.scalar(t, 0), updates])
    return ctx.node("ScatterND", [tensor, idx, updates], reduction="add")


# -------------------------------------------------------------------------------- segment reductions
_REDUCTION = {"sum": ("add", 16), "mean": ("add", 16), "prod": ("mul", 16), "max": ("max", 18),
              "min": ("min", 18)}


def _identity(dt, kind):
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    np_dt = np.dtype(dt._np)
    # TensorFlow's kernels start from the dtype's lowest/highest finite value (an empty segment's max is
    # -3.4028235e+38 in float32, not -inf)
    info = np.finfo(np_dt) if np_dt.kind == "f" else np.iinfo(np_dt)
    return info.min if kind == "max" else info.max


def _segments(ctx, op, data, ids, num, kind, sorted_ids):
    """data's rows (over ids' dims) reduced into `num` segments (num: an int64 [1] tensor); negative ids are
    dropped (sent to an extra last segment that is cut off). Sorted segment ops give 0 for an empty segment."""
    reduction, opset = _REDUCTION[kind]
    _need_reduction(ctx, f"segment {kind}", opset)
    t, it = op.inputs[0], op.inputs[1]
    dt = t.dtype
    if dt is _dt.bool or dt.is_complex:
        raise Unsupported(f"segment reductions of {dt.name} have no ONNX form")
    ids_rank = ctx.rank(it, "to find the segment rows' shape")
    ids = ctx.as_i64(ids, it)
    ids = ctx.node("Where", [ctx.node("Less", [ids, ctx.i64(0)]), ctx.squeeze(num, [0]), ids])
    idx = ctx.unsqueeze(ids, [-1])
    rest = ctx.node("Slice", [ctx.node("Shape", [data]), ctx.i64([ids_rank]), ctx.i64([INT64_MAX])])
    full = ctx.node("Concat", [ctx.node("Add", [num, ctx.i64([1])]), rest], axis=0)

    def scatter(values, fill, red, dtype_of=t):
        init = ctx.node("Expand", [ctx.scalar(dtype_of, fill), full])
        out = ctx.node("ScatterND", [init, idx, values], reduction=red)
        return ctx.node("Slice", [out, ctx.i64([0]), num, ctx.i64([0])])

    floating = dt.is_floating
    if kind in ("max", "min") and floating:
        # ScatterND's max/min need not propagate NaN as NumPy's do: reduce without the NaNs, then put NaN in
        # each segment that had one.
        nan = ctx.node("IsNaN", [data])
        out = scatter(ctx.node("Where", [nan, ctx.scalar(t, _identity(dt, kind)), data]), _identity(dt, kind),
                      reduction)
        had_nan = scatter(ctx.cast(nan, dt._np), 0, "max")
        out = ctx.node("Where", [ctx.node("Greater", [had_nan, ctx.scalar(t, 0)]), ctx.scalar(t, np.nan), out])
    else:
        out = scatter(data, _identity(dt, kind), reduction)
    if kind == "mean" or (sorted_ids and kind in ("max", "min")):
        count = _counts(ctx, idx, ids, num)
        data_rank = ctx.rank(t, "to line the segment sizes up with the rows")
        extra = list(range(1, data_rank - ids_rank + 1))
        if extra:
            count = ctx.unsqueeze(count, extra)
        if kind == "mean":
            # integer Div truncates toward zero, as rivulet's integer mean; a float one rounds once
            out = ctx.node("Div", [out, ctx.cast(ctx.node("Max", [count, ctx.i64(1)]), dt._np)])
        else:
            out = ctx.node("Where", [ctx.node("Equal", [count, ctx.i64(0)]), ctx.scalar(t, 0), out])
    return out


def _counts(ctx, idx, ids, num):
    """The int64 [num] sizes of the segments (idx: ids with a last dim of 1; negative ids point at num)."""
    ones = ctx.node("Expand", [ctx.i64(1), ctx.node("Shape", [ids])])
    init = ctx.node("Expand", [ctx.i64(0), ctx.node("Add", [num, ctx.i64([1])])])
    return ctx.node("Slice", [ctx.node("ScatterND", [init, idx, ones], reduction="add"), ctx.i64([0]), num])


def _row_count(ctx, x):
    return ctx.node("Slice", [ctx.node("Shape", [x]), ctx.i64([0]), ctx.i64([1])])


# Gradient helpers: the sum of g's rows into ref's rows by segment id (divided by the segment sizes when
# `mean`), and its transpose, dy's rows gathered by id (0 for a negative id).
@converter("SegmentScatter")
def _segment_scatter(ctx, op, g, ids, ref):
    return _segments(ctx, op, g, ids, _row_count(ctx, ref), "mean" if op.attrs["mean"] else "sum", False)


@converter("SegmentGather")
def _segment_gather(ctx, op, dy, ids):
    t, it = op.inputs
    if t.dtype is _dt.bool or t.dtype.is_complex:
        raise Unsupported(f"segment gradients of {t.dtype.name} have no ONNX form")
    ids = ctx.as_i64(ids, it)
    neg = ctx.node("Less", [ids, ctx.i64(0)])
    safe = ctx.node("Where", [neg, ctx.i64(0), ids])
    out = ctx.node("Gather", [dy, safe], axis=0)
    extra = list(range(ctx.rank(it, "to gather rows"), ctx.rank(op.outputs[0], "to gather rows")))
    if op.attrs["mean"]:
        _need_reduction(ctx, "counting segment sizes")
        num = _row_count(ctx, dy)
        ids_n = ctx.node("Where", [neg, ctx.squeeze(num, [0]), ids])
        count = ctx.node("Max", [_counts(ctx, ctx.unsqueeze(ids_n, [-1]), ids_n, num), ctx.i64(1)])
        count = ctx.node("Gather", [count, safe], axis=0)
        if extra:
            count = ctx.unsqueeze(count, extra)
        out = ctx.node("Div", [out, ctx.cast(count, t.dtype._np)])
    if extra:
        neg = ctx.unsqueeze(neg, extra)
    return ctx.node("Where", [neg, ctx.scalar(t, 0), out])


def _segment_op(kind, sorted_ids):
    def conv(ctx, op, data, ids, *dyn):
        if sorted_ids:
            # ids are sorted and non-negative (checked when rivulet runs): there are max(ids) + 1 segments.
            ids64 = ctx.as_i64(ids, op.inputs[1])
            num = ctx.node("Add", [ctx.reduce("ReduceMax", ctx.node("Concat", [ctx.i64([-1]), ids64], axis=0),
                                              [0], True), ctx.i64([1])])
        elif dyn:
            num = ctx.unsqueeze(ctx.as_i64(dyn[0], op.inputs[2]), [0])
        else:
            num = ctx.i64([op.attrs["num_segments"]])
        return _segments(ctx, op, data, ids, num, kind, sorted_ids)
    return conv


for _kind in ("sum", "mean", "max", "min", "prod"):
    converter("Segment" + _kind.capitalize())(_segment_op(_kind, True))
    if _kind != "mean":
        converter("UnsortedSegment" + _kind.capitalize())(_segment_op(_kind, False))


# -------------------------------------------------------------------------------- unique
# ONNX Unique with sorted=0 keeps the order of first occurrence, as TensorFlow's unique. Keys are compared as
# types onnxruntime has kernels for (int8, int64, strings), widened exactly; floats are not exported: how ONNX
# Unique treats NaN (each NaN is distinct in rivulet) is not specified.
_UNIQUE_KEY = {_dt.int8: None, _dt.int64: None, _dt.string: None, _dt.bool: np.int8, _dt.uint8: np.int64,
               _dt.int16: np.int64, _dt.uint16: np.int64, _dt.int32: np.int64, _dt.uint32: np.int64}


@converter("Unique")
def _unique(ctx, op, x):
    dt = op.inputs[0].dtype
    if dt not in _UNIQUE_KEY:
        raise Unsupported(f"unique of {dt.name} has no exact ONNX form (ONNX leaves NaN's handling open)"
                          if dt.is_floating else f"unique of {dt.name} has no ONNX form")
    key = x if _UNIQUE_KEY[dt] is None else ctx.cast(x, _UNIQUE_KEY[dt])
    y, first, inverse, _ = ctx.node("Unique", [key], n_out=4, sorted=0)
    if key != x:
        y = ctx.node("Gather", [x, first], axis=0)
    out_idx = op.attrs["out_idx"]
    return [y, inverse if out_idx is _dt.int64 else ctx.cast(inverse, out_idx)]


# Gradient helpers of sort and top_k: x taken along an axis by per-row indices, and dy put back there.
@converter("TakeAlongAxis")
def _take_along(ctx, op, x, idx):
    return ctx.node("GatherElements", [x, ctx.as_i64(idx, op.inputs[1])], axis=op.attrs["axis"])


@converter("ScatterAlongAxis")
def _scatter_along(ctx, op, dy, idx, ref):
    # The indices are distinct within each row (a permutation, or its first k), so no reduction is needed.
    zeros = ctx.node("Expand", [ctx.scalar(op.inputs[0], 0), ctx.node("Shape", [ref])])
    return ctx.node("ScatterElements", [zeros, ctx.as_i64(idx, op.inputs[1]), dy], axis=op.attrs["axis"])
