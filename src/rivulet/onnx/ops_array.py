"""Converters: constants, variables, shapes, reshaping, joining/splitting, slicing, gathering, filling.

rivulet keeps static operands (shapes, axes, paddings) in attrs; a shape known only at run time travels as
the op's last input (`dyn`), which is what the kernels read then, so converters do the same.
"""
import numpy as np

from .. import dtypes as _dt
from ..ops.slicing import DYN
from .builder import INT64_MAX, INT64_MIN, Unsupported, converter


@converter("Const")
def _const(ctx, op):
    dt = op.attrs["dtype"]
    from ..ops.tensor_array_ops import TensorList
    if dt is _dt.variant or isinstance(op.attrs["value"], TensorList):  # a folded TensorArray's list
        raise Unsupported("a TensorArray / TensorList value has no ONNX conversion")
    return ctx.const(op.attrs["value"], object if dt is _dt.string else dt._np)


@converter("ReadVariableOp")
def _read(ctx, op, ref):
    return ctx.variable(ref)


@converter("IdentityN")
def _identity_n(ctx, op, *xs):
    # tf.custom_gradient's IdentityN: its inputs past the first n (arguments, variables) only carry the gradient
    return [ctx.node("Identity", [x]) for x in xs[:op.attrs.get("n", len(xs))]]


def _shape_input(ctx, op, dyn, static):
    """The int64 shape operand: the run-time input when there is one, else the static attr."""
    if dyn:
        return ctx.as_i64(dyn[-1], op.inputs[-1])
    if static is None or None in static:
        raise Unsupported("its shape operand is neither static nor an input")
    return ctx.i64(static)


@converter("Shape", "Size")
def _shape(ctx, op, x):
    y = ctx.node(op.type, [x])
    return y if op.attrs["out_type"] is _dt.int64 else ctx.cast(y, op.attrs["out_type"])


@converter("Rank")
def _rank(ctx, op, x):
    r = op.inputs[0].shape.rank
    if r is not None:
        return ctx.const(np.int32(r))
    return ctx.cast(ctx.node("Size", [ctx.node("Shape", [x])]), np.int32)


@converter("Reshape")
def _reshape(ctx, op, x, *dyn):
    # allowzero: a 0 in the shape means a zero-size dimension (as in TensorFlow), not "copy this dim".
    return ctx.node("Reshape", [x, _shape_input(ctx, op, dyn, op.attrs["shape"])],
                    allowzero=1 if ctx.opset >= 14 else None)


@converter("ReshapeLike")
def _reshape_like(ctx, op, x, ref):
    return ctx.node("Reshape", [x, ctx.node("Shape", [ref])])


@converter("Transpose")
def _transpose(ctx, op, x):
    perm = op.attrs.get("perm")
    return ctx.node("Transpose", [x], perm=None if perm is None else list(perm))  # None: reverse, as in ONNX


@converter("ExpandDims")
def _expand_dims(ctx, op, x):
    return ctx.unsqueeze(x, [op.attrs["axis"]])


@converter("Squeeze")
def _squeeze(ctx, op, x):
    axis = op.attrs.get("axis")
    if axis is not None and not len(axis):
        return ctx.node("Identity", [x])
    return ctx.squeeze(x, None if axis is None else list(axis))


@converter("ConcatV2")
def _concat(ctx, op, *xs):
    return ctx.node("Concat", xs, axis=op.attrs["axis"])


@converter("Pack")
def _pack(ctx, op, *xs):
    axis = op.attrs["axis"]
    return ctx.node("Concat", [ctx.unsqueeze(x, [axis]) for x in xs], axis=axis)


@converter("Unpack")
def _unpack(ctx, op, x):
    axis, num = op.attrs["axis"], len(op.outputs)
    return [ctx.squeeze(p, [axis]) for p in ctx.split(x, [1] * num, axis, num)]


@converter("Split")
def _split(ctx, op, x):
    n, axis = op.attrs["num_split"], op.attrs["axis"]
    s = op.inputs[0].shape
    d = None if s.rank is None else s[axis]
    return ctx.split(x, None if d is None else [d // n] * n, axis, n)


@converter("SplitV")
def _splitv(ctx, op, x):
    sizes, axis = list(op.attrs["size_splits"]), op.attrs["axis"]
    if -1 in sizes:
        sizes = [t.shape[axis] for t in op.outputs]
        if None in sizes:
            raise Unsupported("a -1 split size along a dimension of unknown size")
    return ctx.split(x, sizes, axis, len(sizes))


@converter("Tile")
def _tile(ctx, op, x, *dyn):
    return ctx.node("Tile", [x, _shape_input(ctx, op, dyn, op.attrs["multiples"])])


@converter("Fill")
def _fill(ctx, op, value, *dyn):
    return ctx.node("Expand", [value, _shape_input(ctx, op, dyn, op.attrs["shape"])])


@converter("BroadcastTo")
def _broadcast_to(ctx, op, x, *dyn):
    return ctx.node("Expand", [x, _shape_input(ctx, op, dyn, op.attrs["shape"])])


@converter("ZerosLike", "OnesLike")
def _like(ctx, op, x):
    t = op.inputs[0]
    v = ctx.const(np.asarray(0 if op.type == "ZerosLike" else 1, dtype=t.dtype._np))
    return ctx.node("Expand", [v, ctx.node("Shape", [x])])


@converter("Range")
def _range(ctx, op, start, limit, delta):
    return ctx.node("Range", [start, limit, delta])


@converter("SelectV2")
def _select(ctx, op, c, x, y):
    return ctx.node("Where", [c, x, y])


@converter("Where")
def _where_indices(ctx, op, c):
    return ctx.node("Transpose", [ctx.node("NonZero", [c])], perm=[1, 0])  # [n, rank], like np.argwhere


@converter("GatherV2")
def _gather(ctx, op, params, indices):
    if op.attrs.get("batch_dims"):
        raise Unsupported("gather with batch_dims has no ONNX form")
    return ctx.node("Gather", [params, indices], axis=op.attrs["axis"])


@converter("GatherNd")
def _gather_nd(ctx, op, params, indices):
    return ctx.node("GatherND", [params, ctx.as_i64(indices, op.inputs[1])], batch_dims=op.attrs["batch_dims"])


@converter("OneHot")
def _one_hot(ctx, op, indices, on, off):
    # Compare against arange(depth): indices out of range (negative ones too) give all off_value, as in
    # TensorFlow (ONNX OneHot counts negative indices from the end).
    it = op.inputs[0]
    depth, axis = op.attrs["depth"], op.attrs["axis"]
    eq = ctx.node("Equal", [ctx.unsqueeze(ctx.as_i64(indices, it), [-1]), ctx.i64(np.arange(depth))])
    out = ctx.node("Where", [eq, on, off])
    if axis == -1:
        return out
    r = ctx.rank(it, "to place the one-hot axis")
    perm = list(range(r))
    perm.insert(axis, r)
    return ctx.node("Transpose", [out], perm=perm)


@converter("PadV2")
def _pad(ctx, op, x, c):
    pads = op.attrs["paddings"]
    return ctx.node("Pad", [x, ctx.i64([a for a, _ in pads] + [b for _, b in pads]), c])


@converter("MirrorPad")
def _mirror_pad(ctx, op, x):
    if op.attrs["mode"] != "REFLECT":
        raise Unsupported(f"{op.attrs['mode']} padding has no ONNX form (only REFLECT)")
    pads = op.attrs["paddings"]
    return ctx.node("Pad", [x, ctx.i64([a for a, _ in pads] + [b for _, b in pads])], mode="reflect")


@converter("ReverseV2")
def _reverse(ctx, op, x):
    axes = list(op.attrs["axis"])
    n = len(axes)
    return ctx.node("Slice", [x, ctx.i64([-1] * n), ctx.i64([INT64_MIN] * n), ctx.i64(axes), ctx.i64([-1] * n)])


@converter("Slice")
def _slice(ctx, op, x, *dyn):
    if dyn:
        begin, size = (ctx.as_i64(v, t) for v, t in zip(dyn, op.inputs[1:]))
        # size -1 means "to the end": end = begin + size, or INT64_MAX where size is -1.
        neg = ctx.node("Less", [size, ctx.i64([0])])
        end = ctx.node("Where", [neg, ctx.i64([INT64_MAX]), ctx.node("Add", [begin, size])])
        return ctx.node("Slice", [x, begin, end])
    begin, size = op.attrs["begin"], op.attrs["size"]
    end = [INT64_MAX if s == -1 else b + s for b, s in zip(begin, size)]
    return ctx.node("Slice", [x, ctx.i64(begin), ctx.i64(end)])


@converter("StridedSlice")
def _strided_slice(ctx, op, x, *dyn):
    """x[spec] as Slice (all the ranges), Gather (each integer index, dropping its dim), Unsqueeze (newaxis).

    Entries before an Ellipsis address dims from the front; those after it from the back (negative axes), so
    the input's rank is never needed."""
    spec = op.attrs["spec"]
    it = iter(zip(dyn, op.inputs[1:]))
    entries = [(e[0],) + tuple(next(it) if v == DYN else v for v in e[1:]) for e in spec]
    tags = [e[0] for e in entries]
    cut = tags.index("e") if "e" in tags else len(tags)
    starts, ends, axes, steps, gathers, newaxes = [], [], [], [], [], []
    for j, e in enumerate(entries):
        if j < cut:
            axis = sum(t in "is" for t in tags[:j])
            out_pos = sum(t in "sn" for t in tags[:j])
        else:
            axis = -sum(t in "is" for t in tags[j:])
            out_pos = -1 - sum(t in "sn" for t in tags[j + 1:])
        if e[0] == "s":
            start, stop, step = e[1:]
            step = 1 if step is None else step
            if isinstance(step, tuple):
                raise Unsupported("a slice step known only at run time")
            if start is None and stop is None and step == 1:
                continue
            if start is None:
                start = 0 if step > 0 else INT64_MAX
            if stop is None:
                stop = INT64_MAX if step > 0 else INT64_MIN
            starts.append(start), ends.append(stop), axes.append(axis), steps.append(step)
        elif e[0] == "i":
            gathers.append((axis, e[1]))
        elif e[0] == "n":
            newaxes.append(out_pos)
    if axes:
        x = ctx.node("Slice", [x, ctx.vector(starts), ctx.vector(ends), ctx.i64(axes), ctx.i64(steps)])
    # Dropping a dim renumbers those after it (positive axes) or before it (negative ones): go outward-in.
    for axis, index in sorted(gathers, key=lambda g: (0, -g[0]) if g[0] >= 0 else (1, g[0])):
        ix = ctx.const(np.int64(index)) if not isinstance(index, tuple) else index[0]
        x = ctx.node("Gather", [x, ix], axis=axis)
    if newaxes:
        x = ctx.unsqueeze(x, newaxes)
    return x if (axes or gathers or newaxes) else ctx.node("Identity", [x])


@converter("CheckNumerics")
def _check_numerics(ctx, op, x):
    ctx.model.report.note(op, "exported as Identity: the check is dropped")
    return ctx.node("Identity", [x])



@converter("BroadcastLike")
def _broadcast_like(ctx, op, x, ref):
    return ctx.node("Expand", [x, ctx.node("Shape", [ref])])


@converter("Roll")
def _roll(ctx, op, x):
    """Each (axis, shift) in turn (rolls along one axis add up; along different axes they commute): the last
    `shift mod n` entries, then the others."""
    t = op.inputs[0]
    total = {}
    for a, s in zip(op.attrs["axis"], op.attrs["shift"]):
        total[a] = total.get(a, 0) + s
    y = x
    for axis, shift in total.items():
        n = None if t.shape.rank is None else t.shape[axis]
        if n is not None:
            if n == 0 or shift % n == 0:
                continue
            cut = ctx.i64([n - shift % n])
        else:
            n = ctx.node("Gather", [ctx.node("Shape", [x]), ctx.i64([axis])], axis=0)
            cut = ctx.node("Sub", [n, ctx.node("Mod", [ctx.i64([shift]), ctx.node("Max", [n, ctx.i64([1])])])])
        ax = ctx.i64([axis])
        y = ctx.node("Concat", [ctx.node("Slice", [y, cut, ctx.i64([INT64_MAX]), ax]),
                                ctx.node("Slice", [y, ctx.i64([0]), cut, ax])], axis=axis)
    return y if y != x else ctx.node("Identity", [x])


@converter("Repeat")
def _repeat(ctx, op, x, reps):
    """Gather along axis by the source index of each output slice: the number of running totals of the
    (non-negative) counts that are <= the output position."""
    axis = op.attrs["axis"]
    t = op.inputs[0]
    d = None if t.shape.rank is None else t.shape[axis]
    n = ctx.i64([d]) if d is not None else ctx.node("Gather", [ctx.node("Shape", [x]), ctx.i64([axis])], axis=0)
    counts = ctx.node("Expand", [ctx.node("Max", [ctx.as_i64(reps, op.inputs[1]), ctx.i64(0)]), n])
    cum = ctx.node("CumSum", [counts, ctx.i64(0)])
    pos = ctx.node("Range", [ctx.i64(0), ctx.reduce("ReduceSum", counts, None, False), ctx.i64(1)])
    before = ctx.node("LessOrEqual", [ctx.unsqueeze(cum, [0]), ctx.unsqueeze(pos, [1])])
    src = ctx.reduce("ReduceSum", ctx.cast(before, np.int64), [1], False)
    return ctx.node("Gather", [x, src], axis=axis)


@converter("LinSpace")
def _linspace(ctx, op, start, stop, *dyn):
    """NumPy's linspace, step for step: arange(num) * step + start (y / div * delta if any step is 0; arange
    * delta when num < 2), the last entry set to stop; then the new axis moved into place."""
    t, out = op.inputs[0], op.outputs[0]
    R = ctx.rank(out, "to place the new axis")
    c = lambda v: ctx.scalar(t, v)  # noqa: E731
    num = op.attrs["num"]
    n = ctx.as_i64(dyn[0], op.inputs[2]) if dyn else ctx.i64(num)
    idx = ctx.node("Range", [ctx.i64(0), n, ctx.i64(1)])
    y = ctx.cast(idx, t.dtype._np)
    if R > 1:
        y = ctx.unsqueeze(y, list(range(1, R)))
    delta = ctx.node("Sub", [stop, start])
    if dyn:
        div = ctx.cast(ctx.node("Sub", [n, ctx.i64(1)]), t.dtype._np)
    elif num > 1:
        div = c(num - 1)
    if dyn or num > 1:
        step = ctx.node("Div", [delta, div])
        any_zero = ctx.reduce("ReduceMax", ctx.cast(ctx.node("Equal", [step, c(0)]), np.int32), None, False)
        stepped = ctx.node("Where", [ctx.cast(any_zero, np.bool_), ctx.node("Mul", [ctx.node("Div", [y, div]), delta]),
                                     ctx.node("Mul", [y, step])])
    if dyn:
        y = ctx.node("Where", [ctx.node("Greater", [n, ctx.i64(1)]), stepped, ctx.node("Mul", [y, delta])])
    else:
        y = stepped if num > 1 else ctx.node("Mul", [y, delta])
    y = ctx.node("Add", [y, start])
    if dyn or num > 1:
        last = ctx.node("Equal", [idx, ctx.node("Sub", [n, ctx.i64(1)])])
        if dyn:
            last = ctx.node("And", [last, ctx.node("Greater", [n, ctx.i64(1)])])
        if R > 1:
            last = ctx.unsqueeze(last, list(range(1, R)))
        y = ctx.node("Where", [last, stop, y])
    axis = op.attrs["axis"] % R
    if axis:
        y = ctx.node("Transpose", [y], perm=list(range(1, axis + 1)) + [0] + list(range(axis + 1, R)))
    return y
