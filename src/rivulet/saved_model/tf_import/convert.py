"""TensorFlow op (name, attrs) -> rivulet op: one converter per TensorFlow op type.

A converter is `fn(ctx, inputs, attrs) -> value or [values]` (flat, in the op's output order). It builds
rivulet ops with the public op functions, so each imported op has its shape rule, kernel and gradient from
the one place rivulet defines it. Attrs arrive decoded (functions.attr_value); integer-valued attrs are
checked here before they reach an op. Control flow, calls, variables and TensorLists are in control.py.
"""
import numpy as np

from ... import dtypes as _dt
from ...core.dispatch import bind
from ...core.op import REGISTRY
from ..format import Invalid
from . import proto
from . import ops_api as tf  # the ops TF's graph is rebuilt with

CONVERTERS = {}


def converter(*names):
    def register(fn):
        for n in names:
            CONVERTERS[n] = fn
        return fn
    return register


def _s(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _int(attrs, key, default=0):
    v = attrs.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise Invalid(f"attr '{key}' should be an int, got {v!r}")
    return v


def _ints(attrs, key):
    v = attrs.get(key)
    if not isinstance(v, tuple) or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise Invalid(f"attr '{key}' should be a list of ints, got {v!r}")
    return list(v)


def _dtype(attrs, key):
    v = attrs.get(key)
    if not isinstance(v, _dt.DType):
        raise Invalid(f"attr '{key}' should be a dtype, got {v!r}")
    return v


# ---------------------------------------------------------------------- ops whose inputs are rivulet's
# Element-wise ops take the same inputs in TensorFlow and rivulet and have no attrs but their dtype:
# they are bound straight to the registry entry of the same name.
_SAME = ("Abs Acos Acosh AddV2 Asin Asinh Atan Atan2 Atanh Ceil Cos Cosh DivNoNan Elu Equal Erf Erfc Exp Expm1 "
         "Floor FloorDiv FloorMod Greater GreaterEqual Invert IsFinite IsInf IsNan Less LessEqual Lgamma Log "
         "Log1p LogicalAnd LogicalNot LogicalOr Maximum Minimum Mul MulNoNan Neg NotEqual Pow RealDiv "
         "Reciprocal Relu Relu6 Rint Round Rsqrt Selu Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Square "
         "SquaredDifference Sub Tan Tanh TruncateDiv TruncateMod Xdivy Xlogy Digamma ZerosLike OnesLike "
         "BitwiseAnd BitwiseOr BitwiseXor LeftShift RightShift Real Imag ComplexAbs Conj").split()


def _same(name):
    op = REGISTRY[name]
    return lambda ctx, inputs, attrs: bind(op, list(inputs))


for _name in _SAME:
    if _name in REGISTRY:
        CONVERTERS[_name] = _same(_name)
CONVERTERS["Add"] = _same("AddV2")


# Ops whose inputs are the positional arguments of a public rivulet function, and whose attrs are only dtypes.
_PUBLIC = {"StopGradient": tf.stop_gradient, "ClipByValue": tf.clip_by_value, "Softmax": tf.nn.softmax,
           "LogSoftmax": tf.nn.log_softmax, "Reshape": tf.reshape, "Rank": tf.rank, "Slice": tf.slice,
           "Transpose": tf.transpose, "ExpandDims": tf.expand_dims, "Tile": tf.tile, "Fill": tf.fill,
           "BroadcastTo": tf.broadcast_to, "Gather": tf.gather, "GatherNd": tf.gather_nd, "Range": tf.range,
           "SelectV2": tf.where, "StringUpper": tf.strings.upper, "StringLower": tf.strings.lower}


def _public(fn):
    return lambda ctx, inputs, attrs: fn(*inputs)


for _name, _fn in _PUBLIC.items():
    CONVERTERS[_name] = _public(_fn)


@converter("Const")
def _const(ctx, inputs, attrs):
    value = attrs.get("value")
    if not isinstance(value, np.ndarray):
        raise Invalid("a Const without a tensor value")
    return tf.constant(proto.const_value(value, _dtype(attrs, "dtype"), ctx.where))


@converter("Identity", "Snapshot", "EnsureShape", "CheckNumerics", "PreventGradient", "PlaceholderWithDefault")
def _identity(ctx, inputs, attrs):
    x = inputs[0]
    return x if not isinstance(x, tf.Tensor) else tf.identity(x)


@converter("IdentityN")
def _identity_n(ctx, inputs, attrs):
    return [x if not isinstance(x, tf.Tensor) else tf.identity(x) for x in inputs]


@converter("NoOp", "DisableCopyOnRead")
def _no_op(ctx, inputs, attrs):
    return []


@converter("Cast")
def _cast(ctx, inputs, attrs):
    return tf.cast(inputs[0], _dtype(attrs, "DstT"))


@converter("AddN")
def _add_n(ctx, inputs, attrs):
    return tf.add_n(list(inputs))


# ---------------------------------------------------------------------- linear algebra and nn
@converter("MatMul")
def _matmul(ctx, inputs, attrs):
    return tf.linalg.matmul(inputs[0], inputs[1], transpose_a=bool(attrs.get("transpose_a")),
                            transpose_b=bool(attrs.get("transpose_b")))


@converter("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_matmul(ctx, inputs, attrs):
    return tf.linalg.matmul(inputs[0], inputs[1], adjoint_a=bool(attrs.get("adj_x")),
                            adjoint_b=bool(attrs.get("adj_y")))


@converter("Einsum")
def _einsum(ctx, inputs, attrs):
    return tf.einsum(_s(attrs.get("equation", b"")), *inputs)


@converter("BiasAdd", "BiasAddV1")
def _bias_add(ctx, inputs, attrs):
    return tf.nn.bias_add(inputs[0], inputs[1], data_format=_s(attrs.get("data_format", b"NHWC")))


def _padding(attrs):
    padding = _s(attrs.get("padding", b"VALID"))
    if padding == "EXPLICIT":
        p = _ints(attrs, "explicit_paddings")
        return [p[i:i + 2] for i in range(0, len(p), 2)]
    return padding


@converter("Conv2D")
def _conv2d(ctx, inputs, attrs):
    return tf.nn.conv2d(inputs[0], inputs[1], strides=_ints(attrs, "strides"), padding=_padding(attrs),
                        data_format=_s(attrs.get("data_format", b"NHWC")),
                        dilations=list(attrs.get("dilations") or (1, 1, 1, 1)))


@converter("Conv2DBackpropInput")
def _conv2d_transpose(ctx, inputs, attrs):
    """TensorFlow's op takes the input's shape; rivulet's takes a tensor of that shape (only its shape is read)."""
    from ...ops import nn_ops
    sizes, w, dy = inputs
    if _s(attrs.get("data_format", b"NHWC")) != "NHWC":
        raise Invalid("Conv2DBackpropInput supports only the NHWC data format")
    pad, explicit = nn_ops._padding_attr(_padding(attrs))
    op_attrs = {"strides": nn_ops._pair(_ints(attrs, "strides"), "strides"), "padding": pad,
                "dilations": nn_ops._pair(list(attrs.get("dilations") or (1, 1, 1, 1)), "dilations")}
    if explicit is not None:
        op_attrs["explicit"] = explicit
    return bind(nn_ops.CONV_BACKPROP_INPUT, (tf.zeros(sizes, dy.dtype), w, dy), op_attrs)


@converter("DepthwiseConv2dNative")
def _depthwise(ctx, inputs, attrs):
    from ...ops import conv_ops
    if _s(attrs.get("data_format", b"NHWC")) != "NHWC":
        raise Invalid("DepthwiseConv2dNative supports only the NHWC data format")
    return bind(conv_ops.DEPTHWISE_CONV2D, tuple(inputs), conv_ops._conv_attrs(
        _ints(attrs, "strides"), _padding(attrs), list(attrs.get("dilations") or (1, 1, 1, 1))))


def _resize(method):
    def convert(ctx, inputs, attrs):
        from ...ops import resize_ops
        return resize_ops.resize(inputs[0], inputs[1], method, bool(attrs.get("align_corners")),
                                bool(attrs.get("half_pixel_centers")))
    return convert


CONVERTERS["ResizeNearestNeighbor"] = _resize("nearest")
CONVERTERS["ResizeBilinear"] = _resize("bilinear")


def _pool(fn):
    def convert(ctx, inputs, attrs):
        return fn(inputs[0], ksize=_ints(attrs, "ksize"), strides=_ints(attrs, "strides"),
                  padding=_s(attrs.get("padding", b"VALID")), data_format=_s(attrs.get("data_format", b"NHWC")))
    return convert


CONVERTERS["MaxPool"] = _pool(tf.nn.max_pool2d)
CONVERTERS["AvgPool"] = _pool(tf.nn.avg_pool2d)


@converter("LeakyRelu")
def _leaky_relu(ctx, inputs, attrs):
    return tf.nn.leaky_relu(inputs[0], alpha=float(attrs.get("alpha", 0.2)))


@converter("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(ctx, inputs, attrs):
    """y, batch_mean, batch_variance, reserve_1, reserve_2[, reserve_3] as TensorFlow's fused kernel."""
    x, scale, offset, mean, var = inputs[:5]
    eps = float(attrs.get("epsilon", 1e-4))
    fmt = _s(attrs.get("data_format", b"NHWC"))
    if x.shape.rank is None:
        raise Invalid("FusedBatchNorm needs an input of known rank")
    rank = x.shape.rank
    channel = 1 if fmt.startswith("NC") else rank - 1
    axes = [a for a in range(rank) if a != channel]
    bshape = [1] * rank
    bshape[channel] = -1

    def b(v):
        return tf.reshape(v, bshape) if channel != rank - 1 else v
    xf = tf.cast(x, scale.dtype) if x.dtype != scale.dtype else x
    if attrs.get("is_training", True):
        batch_mean, batch_var = tf.nn.moments(xf, axes)
        n = tf.cast(tf.size(xf) // tf.size(batch_mean), scale.dtype)
        unbiased = batch_var * n / tf.maximum(n - 1.0, 1.0)
        factor = float(attrs.get("exponential_avg_factor", 1.0))
        if factor != 1.0:
            out_mean = (1.0 - factor) * mean + factor * batch_mean
            out_var = (1.0 - factor) * var + factor * unbiased
        else:
            out_mean, out_var = batch_mean, unbiased
        use_mean, use_var = batch_mean, batch_var
    else:
        use_mean, use_var, out_mean, out_var = mean, var, mean, var
    y = tf.nn.batch_normalization(xf, b(use_mean), b(use_var), b(offset), b(scale), eps)
    if y.dtype != x.dtype:
        y = tf.cast(y, x.dtype)
    extra = [tf.identity(use_mean), tf.identity(use_var)]
    return [y, out_mean, out_var] + extra + [tf.zeros([0], scale.dtype)]  # V3's reserve_space_3 is unused


# ---------------------------------------------------------------------- shapes and indexing
@converter("Shape")
def _shape(ctx, inputs, attrs):
    return tf.shape(inputs[0], out_type=attrs.get("out_type", _dt.int32))


@converter("Size")
def _size(ctx, inputs, attrs):
    return tf.size(inputs[0], out_type=attrs.get("out_type", _dt.int32))


@converter("StridedSlice")
def _strided_slice(ctx, inputs, attrs):
    masks = {k: _int(attrs, k) for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                          "shrink_axis_mask")}
    return tf.strided_slice(inputs[0], inputs[1], inputs[2], inputs[3], **masks)


@converter("Pack")
def _pack(ctx, inputs, attrs):
    return tf.stack(list(inputs), axis=_int(attrs, "axis"))


@converter("Unpack")
def _unpack(ctx, inputs, attrs):
    return list(tf.unstack(inputs[0], num=_int(attrs, "num"), axis=_int(attrs, "axis")))


@converter("ConcatV2")
def _concat(ctx, inputs, attrs):
    return tf.concat(list(inputs[:-1]), axis=inputs[-1])


@converter("Split")
def _split(ctx, inputs, attrs):
    return list(tf.split(inputs[1], _int(attrs, "num_split"), axis=inputs[0]))


@converter("SplitV")
def _split_v(ctx, inputs, attrs):
    return list(tf.split(inputs[0], inputs[1], axis=inputs[2]))


@converter("Squeeze")
def _squeeze(ctx, inputs, attrs):
    axis = list(attrs.get("squeeze_dims") or ()) or None
    return tf.squeeze(inputs[0], axis=axis)


@converter("Pad", "PadV2", "MirrorPad")
def _pad(ctx, inputs, attrs):
    mode = _s(attrs.get("mode", b"CONSTANT"))
    value = inputs[2] if len(inputs) > 2 else 0
    return tf.pad(inputs[0], inputs[1], mode=mode, constant_values=value)


@converter("GatherV2")
def _gather(ctx, inputs, attrs):
    return tf.gather(inputs[0], inputs[1], axis=inputs[2], batch_dims=_int(attrs, "batch_dims"))


@converter("OneHot")
def _one_hot(ctx, inputs, attrs):
    return tf.one_hot(inputs[0], inputs[1], on_value=inputs[2], off_value=inputs[3], axis=_int(attrs, "axis", -1))


@converter("Select")
def _select(ctx, inputs, attrs):
    c, x, y = inputs
    if c.shape.rank == 1 and x.shape.rank is not None and x.shape.rank > 1:  # a row selector
        c = tf.reshape(c, [-1] + [1] * (x.shape.rank - 1))
    return tf.where(c, x, y)


# ---------------------------------------------------------------------- reductions and scans
def _reduce(fn):
    def convert(ctx, inputs, attrs):
        return fn(inputs[0], axis=inputs[1], keepdims=bool(attrs.get("keep_dims", False)))
    return convert


for _name, _fn in (("Sum", tf.reduce_sum), ("Mean", tf.reduce_mean), ("Max", tf.reduce_max),
                   ("Min", tf.reduce_min), ("Prod", tf.reduce_prod), ("All", tf.reduce_all),
                   ("Any", tf.reduce_any)):
    CONVERTERS[_name] = _reduce(_fn)


@converter("ArgMax")
def _argmax(ctx, inputs, attrs):
    return tf.math.argmax(inputs[0], axis=inputs[1], output_type=attrs.get("output_type", _dt.int64))


@converter("ArgMin")
def _argmin(ctx, inputs, attrs):
    return tf.math.argmin(inputs[0], axis=inputs[1], output_type=attrs.get("output_type", _dt.int64))


@converter("Cumsum")
def _cumsum(ctx, inputs, attrs):
    return tf.math.cumsum(inputs[0], axis=inputs[1], exclusive=bool(attrs.get("exclusive")),
                          reverse=bool(attrs.get("reverse")))


# ---------------------------------------------------------------------- random numbers (Dropout)
@converter("RandomUniform")
def _random_uniform(ctx, inputs, attrs):
    return tf.random.uniform(inputs[0], dtype=_dtype(attrs, "dtype"))


@converter("RandomStandardNormal")
def _random_normal(ctx, inputs, attrs):
    return tf.random.normal(inputs[0], dtype=_dtype(attrs, "dtype"))


# ---------------------------------------------------------------------- strings
@converter("StringToNumber")
def _to_number(ctx, inputs, attrs):
    return tf.strings.to_number(inputs[0], out_type=attrs.get("out_type", _dt.float32))


@converter("StringLength")
def _length(ctx, inputs, attrs):
    return tf.strings.length(inputs[0], unit=_s(attrs.get("unit", b"BYTE")))


@converter("StringJoin")
def _join(ctx, inputs, attrs):
    return tf.strings.join(list(inputs), separator=_s(attrs.get("separator", b"")))


from . import control  # noqa: E402,F401  (registers the control-flow, call, variable and TensorList converters)
