"""More tf.nn convolutions and pools: conv1d, conv2d_transpose, depthwise/separable conv2d, 1-D and 3-D pools.

conv1d and the 1-D pools run as their 2-D forms on an inserted height-1 axis (as TensorFlow builds them).
conv2d_transpose is the input gradient of Conv2D taking the output size as a tensor (a dynamic batch works).
Depthwise convolution has its own op (filter [kh, kw, C, M] -> C*M outputs, channel c*M+m) with
gradient ops (on oneDNN's grouped convolution with the onednn extra, float32); separable conv is depthwise
then a 1x1 conv. 3-D pools are separable (max/mean over a box =
over depth of over height-width, SAME's divisors factor too), so they run as two 2-D pools.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..errors import InvalidArgumentError
from ..execute import onednn
from ..shape import TensorShape
from ._rules import binary_args, static_value, to_tensor
from . import array_ops as _a
from . import nn_ops as _nn


def _conv_attrs(strides, padding, dilations):
    pad, explicit = _nn._padding_attr(padding)
    attrs = {"strides": _nn._pair(strides, "strides"), "padding": pad,
             "dilations": _nn._pair(1 if dilations is None else dilations, "dilations")}
    if explicit is not None:
        attrs["explicit"] = explicit
    return attrs


def _nhwc(data_format, what):
    if data_format not in ("NHWC", None):
        raise _nn._arg_error(f"rivulet's {what} supports only the NHWC data format (as TensorFlow on CPU); got "
                             f"{data_format}")


# ============================================================================ conv1d
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """[batch, width, in] * [k, in, out] -> [batch, out_width, out]: Conv2D on a height-1 image."""
    if data_format not in ("NWC", None):
        raise _nn._arg_error(f"rivulet's conv1d supports only the NWC data format; got {data_format}")
    x, w = binary_args(input, filters)
    if x.shape.rank is not None and x.shape.rank != 3:
        raise ValueError(f"`input` must be 3-dimensional [batch, width, channels], got shape {x.shape}")
    if w.shape.rank is not None and w.shape.rank != 3:
        raise ValueError(f"`filters` must be 3-dimensional [width, in_channels, out_channels], got shape {w.shape}")
    s = _one(stride, "stride")
    d = 1 if dilations is None else _one(dilations, "dilations")
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding][1:2] + [[0, 0]]
    y = _nn.conv2d(_a.expand_dims(x, 1), _a.expand_dims(w, 0), strides=[1, s], padding=padding,
                   dilations=[1, d], name=name or "conv1d")
    return _a.squeeze(y, [1])


def _one(v, what):
    """conv1d's int-or-list stride: an int, [s] or [1, s, 1]."""
    a = np.asarray(static_value(v) if hasattr(v, "dtype") and not isinstance(v, np.ndarray) else v).reshape(-1)
    if a.dtype.kind not in "iu" or a.size not in (1, 3) or (a.size == 3 and (a[0] != 1 or a[2] != 1)):
        raise ValueError(f"`{what}` should be an int or a list of 1 or 3 ints ([1, {what}, 1]), got {v!r}")
    return int(a[0] if a.size == 1 else a[1])


# ============================================================================ conv2d_transpose
def _transpose_geometry_error(sizes, w, dy, strides, padding, dilations, explicit):
    """TensorFlow checks that convolving an output of `sizes` gives back dy's spatial size."""
    oh, ow, _, _ = _nn.conv_geometry(sizes, w[0], w[1], strides, padding, explicit, dilations)
    for dim, (got, want) in enumerate(((dy[1], oh), (dy[2], ow))):
        if got is not None and want is not None and got != want:
            return (f"Conv2DCustomBackpropInputOp: Size of out_backprop doesn't match computed: actual = {got}, "
                    f"computed = {want} spatial_dim: {dim + 1} input: {sizes[dim + 1]} filter: {w[dim]} "
                    f"output: {got} stride: {strides[dim]} dilation: {dilations[dim]}")
    if sizes[3] is not None and w[2] is not None and sizes[3] != w[2]:
        return (f"Conv2DCustomBackpropInputOp: input and filter must have the same depth: {sizes[3]} vs {w[2]}")
    if dy[3] is not None and w[3] is not None and dy[3] != w[3]:
        return (f"Conv2DCustomBackpropInputOp: filter and out_backprop must have the same out_depth: {w[3]} vs "
                f"{dy[3]}")
    return None


def _transpose_kernel(sizes, w, dy, strides, padding, dilations, explicit=None):
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) != 4:
        raise InvalidArgumentError(f"Conv2DBackpropInput: input_sizes must be 4-dimensional, got: {len(sizes)}")
    msg = _transpose_geometry_error(sizes, w.shape, dy.shape, strides, padding, dilations, explicit)
    if msg:
        raise InvalidArgumentError(msg)
    # The shared input-gradient kernel reads only the shape of its first argument: a zero-size stand-in.
    shape_only = np.broadcast_to(np.zeros((), dy.dtype), sizes)
    return _nn._conv_backprop_input_kernel(shape_only, w, dy, strides, padding, dilations, explicit)


def _transpose_infer(sizes, w, dy, strides, padding, dilations, explicit=None):
    v = static_value(sizes)
    if v is not None:
        shape = tuple(int(s) for s in np.asarray(v).reshape(-1))
        if len(shape) != 4:
            raise ValueError(f"output_shape must have 4 elements, got {len(shape)}")
        if w.shape.rank == 4 and dy.shape.rank == 4:
            msg = _transpose_geometry_error(shape, w.shape.as_list(), dy.shape.as_list(), strides, padding,
                                            dilations, explicit)
            if msg:
                raise ValueError(msg)
        return TensorShape(shape), dy.dtype
    known = sizes.shape.rank == 1 and sizes.shape[0] == 4
    if not known and sizes.shape.rank is not None and sizes.shape[0] is not None:
        raise ValueError(f"output_shape must have 4 elements, got shape {sizes.shape}")
    return TensorShape([dy.shape[0] if dy.shape.rank else None, None, None,
                        w.shape[2] if w.shape.rank else None]), dy.dtype


def _transpose_grad(op, g):
    _, w, dy = op.inputs
    return (None, bind(_nn.CONV_BACKPROP_FILTER, (g, w, dy), op.attrs), bind(_nn.CONV2D, (g, w), op.attrs))


# Not TensorFlow's op type name (its Conv2DBackpropInput takes sizes too; rivulet's takes a tensor of the
# input's shape): the same computation with the sizes as an int tensor.
CONV2D_TRANSPOSE = defop("Conv2DBackpropInputSizes", _transpose_kernel, _transpose_infer, grad=_transpose_grad)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (gradient) of conv2d: [batch, h, w, in] with filters [kh, kw, out, in] -> output_shape."""
    _nhwc(data_format, "conv2d_transpose")
    x, w = binary_args(input, filters)
    sizes = output_shape if hasattr(output_shape, "dtype") and not isinstance(output_shape, np.ndarray) else None
    if sizes is None:
        sizes = _a.stack(list(output_shape)) if any(hasattr(s, "dtype") for s in output_shape) else \
            to_tensor(np.asarray(output_shape, np.int32))
    if sizes.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"output_shape must be int32 or int64, got {sizes.dtype.name}")
    if x.shape.rank is not None and x.shape.rank != 4:
        raise ValueError(f"input must be 4-dimensional, got shape {x.shape}")
    if w.shape.rank is not None and w.shape.rank != 4:
        raise ValueError(f"filters must be 4-dimensional, got shape {w.shape}")
    attrs = _conv_attrs(strides, padding, dilations)
    if x.shape.rank == 4 and w.shape.rank == 4 and x.shape[3] is not None and w.shape[3] is not None \
            and x.shape[3] != w.shape[3]:
        raise ValueError(f"The number of input channels is not compatible with the filters: input has "
                         f"{x.shape[3]} channels, filters expect {w.shape[3]} (filters are [kh, kw, out, in])")
    try:
        _transpose_infer(sizes, w, x, **attrs)
    except ValueError as e:
        raise _nn._arg_error(str(e)) from None
    out = bind(CONV2D_TRANSPOSE, (sizes, w, x), attrs, name=name or "conv2d_transpose")
    if isinstance(output_shape, (list, tuple)):  # the Python ints of a partly dynamic output shape are known
        out.set_shape([d if isinstance(d, (int, np.integer)) else None for d in output_shape])
    return out


# ============================================================================ depthwise conv2d
def _dw_infer(x, w, strides, padding, dilations, explicit=None):
    xs, ws = x.shape, w.shape
    if xs.rank is not None and xs.rank != 4:
        raise ValueError(f"input must be 4-dimensional{_nn._fmt(xs)}")
    if ws.rank is not None and ws.rank != 4:
        raise ValueError(f"filter must be 4-dimensional: {_nn._fmt(ws)}")
    if xs.rank is None or ws.rank is None:
        return TensorShape([None] * 4), x.dtype
    c, fc = xs[3], ws[2]
    if c is not None and fc is not None and c != fc:
        raise ValueError(f"input and filter must have the same depth: {c} vs {fc}")
    out_c = None if fc is None or ws[3] is None else fc * ws[3]
    if ws[0] is None or ws[1] is None:
        return TensorShape([xs[0], None, None, out_c]), x.dtype
    oh, ow, _, _ = _nn.conv_geometry(xs, ws[0], ws[1], strides, padding, explicit, dilations)
    return TensorShape([xs[0], oh, ow, out_c]), x.dtype


def _dw_slices(x_shape, w_shape, strides, padding, dilations, explicit):
    """The output height and width and the (before, after) pads of rows and columns."""
    oh, ow, ph, pw = _nn.conv_geometry(x_shape, w_shape[0], w_shape[1], strides, padding, explicit, dilations)
    return oh, ow, (ph, pw)


def _dw_kernel(x, w, strides, padding, dilations, explicit=None):
    kh, kw, c, m = w.shape
    if x.shape[3] != c:
        raise InvalidArgumentError(f"input and filter must have the same depth: {x.shape[3]} vs {c}")
    oh, ow, (ph, pw) = _dw_slices(x.shape, w.shape, strides, padding, dilations, explicit)
    if _nn._dnnl(x, w):  # oneDNN's grouped convolution (the onednn extra)
        out = _nn._on_dnnl(onednn.conv2d, _nn._c(x), _nn._c(w), strides, dilations, (ph, pw), depthwise=True)
        if out is not None:
            return out
    return _dw_numpy(x, w, oh, ow, ph, pw, strides, dilations)


_DW_BLOCK = 4 << 20  # bytes of the one temporary of the NumPy depthwise convolution


def _tap_range(o, size, k, stride, dilation, pad):
    """The outputs [lo, hi) whose input under tap k lies inside the unpadded input, and the first one's
    input index: a tap over the zero padding adds nothing, so no padded copy is made."""
    off = k * dilation - pad
    lo = max(0, -(off // stride)) if off < 0 else 0
    hi = min(o, (size - 1 - off) // stride + 1) if size - 1 >= off else 0
    return lo, max(lo, hi), lo * stride + off


def _dw_numpy(x, w, oh, ow, ph, pw, strides, dilations):
    """The depthwise convolution tap by tap into its output, a few samples at a time: no padded copy of the
    input, and one temporary of at most _DW_BLOCK bytes (a tap's product over the whole batch was one more
    output-sized array)."""
    c, m = w.shape[2:]
    n = x.shape[0]
    dt = np.result_type(x, w)
    out = np.zeros((n, oh, ow, c, m), dt)
    per = max(1, oh * ow * c * m * dt.itemsize)
    step = max(1, min(n, _DW_BLOCK // per))
    tmp = np.empty(step * oh * ow * c * m, dt)
    for i, j, ro, co, ri, ci in _dw_taps(x.shape, w.shape, oh, ow, ph, pw, strides, dilations):
        src = x[:, ri, ci, :, None]
        for b in range(0, n, step):
            e = min(n, b + step)
            shape = (e - b, ro.stop - ro.start, co.stop - co.start, c, m)
            t = tmp[:int(np.prod(shape))].reshape(shape)  # contiguous: the faster loops
            np.multiply(src[b:e], w[i, j], out=t)
            dst = out[b:e, ro, co]
            np.add(dst, t, out=dst)
    return out.reshape(n, oh, ow, c * m)


def _dw_input_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d/d(input); `x` only supplies the input shape."""
    n, h, wd, _ = x.shape
    oh, ow, (ph, pw) = _dw_slices(x.shape, w.shape, strides, padding, dilations, explicit)
    if _nn._dnnl(w, dy) and n and h and wd:
        dx = _nn._on_dnnl(onednn.conv2d_backprop_input, x.shape, _nn._c(w), _nn._c(dy), strides, dilations,
                          (ph, pw), depthwise=True)
        if dx is not None:
            return dx
    return _dw_input_numpy(x.shape, w, dy, oh, ow, ph, pw, strides, dilations)


def _dw_taps(x_shape, w_shape, oh, ow, ph, pw, strides, dilations):
    """Each filter tap's (i, j, output rows, output columns, input rows, input columns) as slices, over the
    outputs whose input lies inside the unpadded input (a tap over the padding adds nothing)."""
    kh, kw = w_shape[:2]
    (sh, sw), (dh, dw) = strides, dilations
    for i in range(kh):
        r0, r1, y0 = _tap_range(oh, x_shape[1], i, sh, dh, ph[0])
        for j in range(kw):
            c0, c1, x0 = _tap_range(ow, x_shape[2], j, sw, dw, pw[0])
            if r1 > r0 and c1 > c0:
                yield (i, j, slice(r0, r1), slice(c0, c1), slice(y0, y0 + (r1 - r0 - 1) * sh + 1, sh),
                       slice(x0, x0 + (c1 - c0 - 1) * sw + 1, sw))


def _dw_input_numpy(x_shape, w, dy, oh, ow, ph, pw, strides, dilations):
    """d/d(input) tap by tap into the input's gradient, a few samples at a time: no padded gradient and no
    dy-sized product per tap."""
    kh, kw, c, m = w.shape
    n = x_shape[0]
    dt = dy.dtype
    dy5 = dy.reshape(n, oh, ow, c, m)
    dx = np.zeros(tuple(x_shape), dt)
    step = max(1, min(n, _DW_BLOCK // max(1, oh * ow * c * m * dt.itemsize)))
    tmp = np.empty(step * oh * ow * c * m, dt)
    for i, j, ro, co, ri, ci in _dw_taps(x_shape, w.shape, oh, ow, ph, pw, strides, dilations):
        for b in range(0, n, step):
            e = min(n, b + step)
            src = dy5[b:e, ro, co]
            t = tmp[:src.size].reshape(src.shape)
            np.multiply(src, w[i, j], out=t)
            dst = dx[b:e, ri, ci]
            np.add(dst, t[..., 0] if m == 1 else t.sum(-1), out=dst)
    return dx


def _dw_filter_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d/d(filter); `w` only supplies the filter shape."""
    oh, ow, (ph, pw) = _dw_slices(x.shape, w.shape, strides, padding, dilations, explicit)
    if _nn._dnnl(x, dy) and w.size:
        dw = _nn._on_dnnl(onednn.conv2d_backprop_filter, _nn._c(x), w.shape, _nn._c(dy), strides, dilations,
                          (ph, pw), depthwise=True)
        if dw is not None:
            return dw
    return _dw_filter_numpy(x, w.shape, dy, oh, ow, ph, pw, strides, dilations)


def _dw_filter_numpy(x, w_shape, dy, oh, ow, ph, pw, strides, dilations):
    """d/d(filter) tap by tap over the unpadded input: no padded input copy, no x-sized copy per tap."""
    kh, kw, c, m = w_shape
    n = x.shape[0]
    dt = np.result_type(x, dy)
    dy5 = dy.reshape(n, oh, ow, c, m)
    dw = np.zeros(w_shape, dt)
    for i, j, ro, co, ri, ci in _dw_taps(x.shape, w_shape, oh, ow, ph, pw, strides, dilations):
        # einsum's sum of products walks the strided views: no copy, no temporary
        dw[i, j] = np.einsum("nhwc,nhwcm->cm", x[:, ri, ci], dy5[:, ro, co])
    return dw


def _dw_grad(op, dy):
    x, w = op.inputs
    return bind(DW_INPUT, (x, w, dy), op.attrs), bind(DW_FILTER, (x, w, dy), op.attrs)


DEPTHWISE_CONV2D = defop("DepthwiseConv2dNative", _dw_kernel, _dw_infer, grad=_dw_grad, same=2, allowed=FLOATS)
DW_INPUT = defop("DepthwiseConv2dNativeBackpropInput", _dw_input_kernel, lambda x, w, dy, **a: (x.shape, dy.dtype),
                 grad=lambda op, g: (None, bind(DW_FILTER, (g, op.inputs[1], op.inputs[2]), op.attrs),
                                     bind(DEPTHWISE_CONV2D, (g, op.inputs[1]), op.attrs)))
DW_FILTER = defop("DepthwiseConv2dNativeBackpropFilter", _dw_filter_kernel,
                  lambda x, w, dy, **a: (w.shape, dy.dtype),
                  grad=lambda op, g: (bind(DW_INPUT, (op.inputs[0], g, op.inputs[2]), op.attrs), None,
                                      bind(DEPTHWISE_CONV2D, (op.inputs[0], g), op.attrs)))


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Each input channel convolved with its own `channel_multiplier` filters: [kh, kw, C, M] -> C*M channels."""
    _nhwc(data_format, "depthwise_conv2d")
    x, w = binary_args(input, filter)
    attrs = _conv_attrs(strides, padding, dilations)
    if attrs["strides"][0] != attrs["strides"][1]:
        raise _nn._arg_error("Current implementation only supports equal length strides in the row and column "
                             "dimensions.")
    if max(attrs["dilations"]) > 1 and max(attrs["strides"]) > 1:
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    try:
        _dw_infer(x, w, **attrs)
    except ValueError as e:
        raise _nn._arg_error(str(e)) from None
    return bind(DEPTHWISE_CONV2D, (x, w), attrs, name=name or "depthwise")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """depthwise_conv2d, then a 1x1 conv2d mixing its C*M channels with `pointwise_filter` [1, 1, C*M, out]."""
    pw = to_tensor(pointwise_filter)
    if pw.shape.rank == 4 and (pw.shape[0] != 1 or pw.shape[1] != 1):
        raise ValueError(f"pointwise_filter must be [1, 1, in, out], got shape {pw.shape}")
    depth = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return _nn.conv2d(depth, pw, strides=1, padding="VALID", name=name or "separable_conv2d")


# ============================================================================ 1-D and 3-D pooling
def _pool1d(pool2d, default):
    def f(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
        if data_format not in ("NWC", None):
            raise _nn._arg_error(f"rivulet's 1-D pooling supports only the NWC data format; got {data_format}")
        y = pool2d(_a.expand_dims(to_tensor(input), 1), ksize=[1, _one(ksize, "ksize")],
                   strides=[1, _one(strides, "strides")], padding=padding, name=name or default)
        return _a.squeeze(y, [1])
    f.__name__ = default
    return f


max_pool1d = _pool1d(_nn.max_pool2d, "MaxPool1d")
avg_pool1d = _pool1d(_nn.avg_pool2d, "AvgPool1D")


def _triple(v, what):
    a = np.asarray(v).reshape(-1)
    if a.dtype.kind not in "iu" or a.size not in (1, 3, 5) or (a.size == 5 and (a[0] != 1 or a[4] != 1)):
        raise ValueError(f"`{what}` should be an int or a list of 1, 3 or 5 ints, got {v!r}")
    return tuple(int(t) for t in (a.tolist() * 3 if a.size == 1 else a.tolist()[-4:-1] if a.size == 5 else a))


def _pool3d(pool2d, default):
    def f(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
        if data_format not in ("NDHWC", None):
            raise _nn._arg_error(f"rivulet's 3-D pooling supports only the NDHWC data format; got {data_format}")
        x = to_tensor(input)
        if x.shape.rank is not None and x.shape.rank != 5:
            raise ValueError(f"input must be 5-dimensional [batch, depth, height, width, channels], got shape "
                             f"{x.shape}")
        (kd, kh, kw), (sd, sh, sw) = _triple(ksize, "ksize"), _triple(strides, "strides")
        dyn = _a.shape(x)
        n, d, h, w, c = (s if s is not None else dyn[i] for i, s in enumerate(x.shape.as_list()))
        hw = pool2d(_a.reshape(x, _a.stack([-1, h, w, c]) if _dynamic(h, w, c) else [-1, h, w, c]),
                    ksize=[kh, kw], strides=[sh, sw], padding=padding)
        oh, ow = hw.shape[1], hw.shape[2]
        hws = _a.shape(hw)
        oh = oh if oh is not None else hws[1]
        ow = ow if ow is not None else hws[2]
        y = pool2d(_a.reshape(hw, _a.stack([n, d, -1, c]) if _dynamic(n, d, c) else [n, d, -1, c]),
                   ksize=[kd, 1], strides=[sd, 1], padding=padding)
        od = y.shape[1] if y.shape[1] is not None else _a.shape(y)[1]
        return _a.reshape(y, _a.stack([n, od, oh, ow, c]) if _dynamic(n, od, oh, ow, c) else [n, od, oh, ow, c],
                          name=name or default)
    f.__name__ = default
    return f


def _dynamic(*dims):
    return any(not isinstance(d, int) for d in dims)


max_pool3d = _pool3d(_nn.max_pool2d, "MaxPool3D")
avg_pool3d = _pool3d(_nn.avg_pool2d, "AvgPool3D")
