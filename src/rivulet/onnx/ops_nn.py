"""Converters: activations, softmax and losses, bias, convolution and pooling.

rivulet's convolutions and pools are NHWC (filters HWIO) while ONNX's are NCHW (filters OIHW): each becomes
Transpose -> Conv/Pool -> Transpose; ONNX runtimes cancel the transposes between consecutive layers.
"""
import numpy as np

from .builder import INT64_MAX, Unsupported, converter

_SIMPLE = {"Relu": "Relu", "Elu": "Elu", "Selu": "Selu", "Softplus": "Softplus", "Softsign": "Softsign"}


def _simple(onnx_type):
    return lambda ctx, op, x: ctx.node(onnx_type, [x])


for _t, _o in _SIMPLE.items():
    converter(_t)(_simple(_o))


@converter("Relu6")
def _relu6(ctx, op, x):
    t = op.inputs[0]
    return ctx.node("Clip", [x, ctx.scalar(t, 0), ctx.scalar(t, 6)])


@converter("LeakyRelu")
def _leaky_relu(ctx, op, x):
    return ctx.node("LeakyRelu", [x], alpha=float(op.attrs.get("alpha", 0.2)))


@converter("Silu")
def _silu(ctx, op, x):
    beta = op.attrs.get("beta", 1.0)
    z = x if beta == 1.0 else ctx.node("Mul", [x, ctx.scalar(op.inputs[0], beta)])
    return ctx.node("Mul", [x, ctx.node("Sigmoid", [z])])


@converter("Gelu")
def _gelu(ctx, op, x):
    t, approx = op.inputs[0], bool(op.attrs.get("approximate"))
    if ctx.opset >= 20:
        return ctx.node("Gelu", [x], approximate="tanh" if approx else "none")
    c = lambda v: ctx.scalar(t, v)  # noqa: E731
    if approx:  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = ctx.node("Mul", [ctx.node("Mul", [x, x]), x])
        inner = ctx.node("Mul", [ctx.node("Add", [x, ctx.node("Mul", [cube, c(0.044715)])]), c(np.sqrt(2 / np.pi))])
        s = ctx.node("Tanh", [inner])
    else:  # 0.5 x (1 + erf(x / sqrt(2)))
        s = ctx.node("Erf", [ctx.node("Mul", [x, c(1 / np.sqrt(2))])])
    return ctx.node("Mul", [ctx.node("Mul", [x, c(0.5)]), ctx.node("Add", [s, c(1)])])


@converter("Softmax", "LogSoftmax")
def _softmax(ctx, op, x):
    return ctx.node(op.type, [x], axis=op.attrs.get("axis", -1))


@converter("BiasAdd")
def _bias_add(ctx, op, x, b):
    if op.attrs.get("data_format", "NHWC") == "NCHW":
        r = ctx.rank(op.inputs[0], "to broadcast an NCHW bias")
        b = ctx.node("Reshape", [b, ctx.i64([-1] + [1] * (r - 2))])
    return ctx.node("Add", [x, b])


@converter("L2Normalize")
def _l2_normalize(ctx, op, x):
    t = op.inputs[0]
    ss = ctx.reduce("ReduceSum", ctx.node("Mul", [x, x]), op.attrs["axis"], True)
    norm = ctx.node("Sqrt", [ctx.node("Max", [ss, ctx.scalar(t, op.attrs["epsilon"])])])
    return ctx.node("Div", [x, norm])


@converter("L2Loss")
def _l2_loss(ctx, op, x):
    return ctx.node("Div", [ctx.reduce("ReduceSum", ctx.node("Mul", [x, x]), None, False),
                            ctx.scalar(op.inputs[0], 2)])


@converter("SoftmaxCrossEntropyWithLogits")
def _softmax_xent(ctx, op, logits, labels):
    axis = op.attrs.get("axis", -1)
    loss = ctx.node("Neg", [ctx.reduce("ReduceSum", ctx.node("Mul", [labels, ctx.node(
        "LogSoftmax", [logits], axis=axis)]), [axis], False)])
    return [loss, ctx.node("Sub", [ctx.node("Softmax", [logits], axis=axis), labels])]


@converter("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(ctx, op, logits, labels):
    column = ctx.unsqueeze(ctx.as_i64(labels, op.inputs[1]), [-1])
    picked = ctx.node("GatherElements", [ctx.node("LogSoftmax", [logits], axis=-1), column], axis=-1)
    loss = ctx.node("Neg", [ctx.squeeze(picked, [-1])])
    # backprop = softmax - one_hot(labels, depth = the logits' last dim)
    depth = ctx.squeeze(ctx.node("Slice", [ctx.node("Shape", [logits]), ctx.i64([-1]), ctx.i64([INT64_MAX])]), [0])
    classes = ctx.node("Range", [ctx.const(np.int64(0)), depth, ctx.const(np.int64(1))])
    onehot = ctx.cast(ctx.node("Equal", [column, classes]), op.inputs[0].dtype)
    return [loss, ctx.node("Sub", [ctx.node("Softmax", [logits], axis=-1), onehot])]


@converter("SigmoidCrossEntropyWithLogits")
def _sigmoid_xent(ctx, op, x, z):
    # max(x, 0) - x z + log(1 + exp(-|x|)): TensorFlow's overflow-free form.
    t = op.inputs[0]
    pos = ctx.node("Max", [x, ctx.scalar(t, 0)])
    soft = ctx.node("Log", [ctx.node("Add", [ctx.scalar(t, 1), ctx.node("Exp", [ctx.node("Neg", [
        ctx.node("Abs", [x])])])])])
    return ctx.node("Add", [ctx.node("Sub", [pos, ctx.node("Mul", [x, z])]), soft])


# -------------------------------------------------------------------------------- conv and pool
_TO_NCHW, _TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


def _pads(ctx, op, x, kernel, strides, dilations):
    """ONNX pads [top, left, bottom, right] (or auto_pad) for TensorFlow's padding attr on NHWC input x."""
    padding = op.attrs["padding"]
    if padding == "VALID":
        return {"pads": [0, 0, 0, 0]}
    if padding == "EXPLICIT":
        (t, b), (le, r) = op.attrs["explicit"]
        return {"pads": [t, le, b, r]}
    # SAME: TensorFlow puts the odd extra pixel at the end, as ONNX's SAME_UPPER does.
    hw = x.shape[1:3] if x.shape.rank == 4 else [None, None]
    if None in hw:
        return {"auto_pad": "SAME_UPPER"}
    before, after = [], []
    for n, k, s, d in zip(hw, kernel, strides, dilations):
        out = -(-n // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
        before.append(total // 2)
        after.append(total - total // 2)
    return {"pads": before + after}


@converter("Conv2D", "_FusedConv2D")
def _conv2d(ctx, op, x, w, *bias):
    # _FusedConv2D is the optimiser's Conv2D + bias [+ Relu]: ONNX's Conv takes the bias itself.
    ws = op.inputs[1].shape
    if ws.rank != 4 or None in ws.as_list()[:2]:
        raise Unsupported("needs a filter of static spatial size")
    at = op.attrs
    strides, dilations = list(at["strides"]), list(at["dilations"])
    kernel = ws.as_list()[:2]
    y = ctx.node("Conv", [ctx.node("Transpose", [x], perm=_TO_NCHW), ctx.node("Transpose", [w], perm=[3, 2, 0, 1]),
                          *bias],
                 kernel_shape=kernel, strides=strides, dilations=dilations,
                 **_pads(ctx, op, op.inputs[0], kernel, strides, dilations))
    if at.get("activation") == "relu":
        y = ctx.node("Relu", [y])
    return ctx.node("Transpose", [y], perm=_TO_NHWC)


@converter("DepthwiseConv2dNative")
def _depthwise(ctx, op, x, w):
    """A grouped Conv (one group per input channel); filter [KH, KW, C, M] -> [C * M, 1, KH, KW]."""
    ws = op.inputs[1].shape
    if ws.rank != 4 or not ws.is_fully_defined():
        raise Unsupported("needs a filter of static shape")
    kh, kw, c, m = ws.as_list()
    at = op.attrs
    strides, dilations = list(at["strides"]), list(at["dilations"])
    wt = ctx.node("Reshape", [ctx.node("Transpose", [w], perm=[2, 3, 0, 1]), ctx.i64([c * m, 1, kh, kw])])
    y = ctx.node("Conv", [ctx.node("Transpose", [x], perm=_TO_NCHW), wt], group=c, kernel_shape=[kh, kw],
                 strides=strides, dilations=dilations, **_pads(ctx, op, op.inputs[0], [kh, kw], strides, dilations))
    return ctx.node("Transpose", [y], perm=_TO_NHWC)


@converter("Conv2DBackpropInput")
def _conv_transpose(ctx, op, x, w, dy):
    """conv2d_transpose: ONNX ConvTranspose, cropped (pads) or extended (output_padding) to x's height and
    width, which must be static; x itself is not read."""
    xs, ws = op.inputs[0].shape, op.inputs[1].shape
    if xs.rank != 4 or None in xs.as_list()[1:] or not ws.is_fully_defined():
        raise Unsupported("needs static input height, width and depth and a static filter")
    kh, kw, _, _ = ws.as_list()
    at = op.attrs
    strides, dilations = list(at["strides"]), list(at["dilations"])
    from ..ops.nn_ops import conv_geometry
    oh, ow, ph, pw = conv_geometry(xs.as_list(), kh, kw, strides, at["padding"], at.get("explicit"), dilations)
    begin, extra = [ph[0], pw[0]], []
    for i, (n, o, k, s, d) in enumerate(zip(xs.as_list()[1:3], (oh, ow), [kh, kw], strides, dilations)):
        full = (o - 1) * s + (k - 1) * d + 1
        extra.append(n + begin[i] - full)  # > 0: rows the strided windows never reach (output_padding)
    end = [max(-e, 0) for e in extra]
    y = ctx.node("ConvTranspose", [ctx.node("Transpose", [dy], perm=_TO_NCHW),
                                   ctx.node("Transpose", [w], perm=[3, 2, 0, 1])],
                 kernel_shape=[kh, kw], strides=strides, dilations=dilations, pads=begin + end,
                 output_padding=[max(e, 0) for e in extra] if any(e > 0 for e in extra) else None)
    return ctx.node("Transpose", [y], perm=_TO_NHWC)


_RESIZE_MODES = {  # (op, align_corners, half_pixel_centers) -> ONNX Resize attributes
    ("ResizeNearestNeighbor", False, False): {"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
                                              "nearest_mode": "floor"},
    # floor((i + 1/2) * in/out) is round-half-up of ONNX's half_pixel coordinate (i + 1/2) * in/out - 1/2
    ("ResizeNearestNeighbor", False, True): {"mode": "nearest", "coordinate_transformation_mode": "half_pixel",
                                             "nearest_mode": "round_prefer_ceil"},
    ("ResizeNearestNeighbor", True, False): {"mode": "nearest", "coordinate_transformation_mode": "align_corners",
                                             "nearest_mode": "round_prefer_ceil"},
    ("ResizeBilinear", False, False): {"mode": "linear", "coordinate_transformation_mode": "asymmetric"},
    ("ResizeBilinear", False, True): {"mode": "linear", "coordinate_transformation_mode": "half_pixel"},
    ("ResizeBilinear", True, False): {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
}


@converter("ResizeNearestNeighbor", "ResizeBilinear")
def _resize(ctx, op, x, size):
    attrs = _RESIZE_MODES.get((op.type, bool(op.attrs.get("align_corners")),
                               bool(op.attrs.get("half_pixel_centers"))))
    if attrs is None:
        raise Unsupported("align_corners with half_pixel_centers has no ONNX equivalent")
    xn = ctx.node("Transpose", [x], perm=_TO_NCHW)
    nc = ctx.node("Slice", [ctx.node("Shape", [xn]), ctx.i64([0]), ctx.i64([2])])
    sizes = ctx.node("Concat", [nc, ctx.as_i64(size, op.inputs[1])], axis=0)
    if op.type == "ResizeBilinear" and op.inputs[0].dtype.name != "float32":
        xn = ctx.node("Cast", [xn], to=1)  # TensorFlow's bilinear resize computes and returns float32
    y = ctx.node("Resize", [xn, "", "", sizes], **attrs)
    return ctx.node("Transpose", [y], perm=_TO_NHWC)


@converter("MaxPool", "AvgPool")
def _pool(ctx, op, x):
    at = op.attrs
    kernel, strides = list(at["ksize"]), list(at["strides"])
    pads = _pads(ctx, op, op.inputs[0], kernel, strides, [1, 1])
    # AvgPool: TensorFlow averages over the real pixels of a padded window (count_include_pad=0, the default).
    y = ctx.node("MaxPool" if op.type == "MaxPool" else "AveragePool", [ctx.node("Transpose", [x], perm=_TO_NCHW)],
                 kernel_shape=kernel, strides=strides, **pads)
    return ctx.node("Transpose", [y], perm=_TO_NHWC)


# -------------------------------------------------------------------------------- gradient helpers
# A few ops gradients of inference models use (saliency maps, input gradients) are cheap to express.
@converter("ExpandDimsMul")
def _expand_mul(ctx, op, d, b):
    return ctx.node("Mul", [ctx.unsqueeze(d, [op.attrs.get("axis", -1)]), b])


@converter("ReluGrad")
def _relu_grad(ctx, op, dy, x):
    # dy * (x > 0), as the kernel (and TensorFlow) compute it: a NaN gradient stays NaN.
    return ctx.node("Mul", [dy, ctx.cast(ctx.node("Greater", [x, ctx.scalar(op.inputs[1], 0)]), op.inputs[0].dtype)])


@converter("BiasAddGrad")
def _bias_add_grad(ctx, op, dy):
    # Sums over every axis but the channels' (the last for NHWC, 1 for NCHW).
    r = ctx.rank(op.inputs[0], "to sum a bias gradient")
    keep = 1 if op.attrs.get("data_format") == "NCHW" else r - 1
    return ctx.reduce("ReduceSum", dy, [a for a in range(r) if a != keep], False)
