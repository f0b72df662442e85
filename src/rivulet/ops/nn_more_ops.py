"""More of tf.nn: max_pool / avg_pool / pool (by the input's rank), space_to_depth / depth_to_space
(SpaceToDepth, DepthToSpace), local_response_normalization (LRN and its LRNGrad), and TensorFlow's composites
crelu, weighted_cross_entropy_with_logits, log_poisson_loss, normalize_moments, sufficient_statistics and
weighted_moments."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a, math_ops as _m
from ._rules import to_tensor


# ---------------------------------------------------------------- max_pool / avg_pool / pool
def _by_rank(kind, input, ksize, strides, padding, data_format, name):  # noqa: A002
    from . import conv_ops, nn_ops
    x = to_tensor(input)
    rank = x.shape.rank
    if rank not in (3, 4, 5):
        shown = tuple(x.shape.as_list()) if rank is not None else None
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={shown} of rank {rank}.")
    fn = {3: (conv_ops.max_pool1d, conv_ops.avg_pool1d), 4: (nn_ops.max_pool2d, nn_ops.avg_pool2d),
          5: (conv_ops.max_pool3d, conv_ops.avg_pool3d)}[rank][kind == "avg"]
    kwargs = {} if data_format is None else {"data_format": data_format}
    return fn(x, ksize, strides, padding, name=name, **kwargs)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling over 1, 2 or 3 spatial dimensions, by the input's rank (3, 4 or 5)."""
    return _by_rank("max", input, ksize, strides, padding, data_format, name)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling over 1, 2 or 3 spatial dimensions, by the input's rank (3, 4 or 5)."""
    return _by_rank("avg", input, ksize, strides, padding, data_format, name)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """tf.nn.pool: "MAX" or "AVG" pooling with window_shape over the spatial dimensions (dilations of 1)."""
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    if dilations is not None and any(int(d) != 1 for d in np.ravel(dilations)):
        raise NotImplementedError("rivulet's tf.nn.pool supports dilations of 1 only")
    strides = [1] * len(window_shape) if strides is None else strides
    return _by_rank("max" if pooling_type == "MAX" else "avg", input, list(window_shape), list(strides), padding,
                    data_format, name)


# ---------------------------------------------------------------- space_to_depth / depth_to_space
def _check_block(block_size):
    b = int(block_size)
    if b < 2:
        raise InvalidArgumentError(f"Value for attr 'block_size' of {b} must be at least minimum 2")
    return b


def _s2d_kernel(x, block_size):
    n, h, w, c = x.shape
    b = block_size
    if h % b or w % b:
        raise InvalidArgumentError(f"Image width {w} and height {h} should be divisible by block_size: {b}")
    return np.ascontiguousarray(
        x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c))


def _d2s_kernel(x, block_size):
    n, h, w, c = x.shape
    b = block_size
    if c % (b * b):
        raise InvalidArgumentError(f"Input depth dimension {c} should be divisible by: {b * b}")
    return np.ascontiguousarray(
        x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b)))


def _s2d_infer(x, block_size):
    if x.shape.rank is None:
        return TensorShape([None] * 4), x.dtype
    if x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    n, h, w, c = x.shape.as_list()
    b = block_size
    return TensorShape([n, None if h is None else h // b, None if w is None else w // b,
                        None if c is None else c * b * b]), x.dtype


def _d2s_infer(x, block_size):
    if x.shape.rank is None:
        return TensorShape([None] * 4), x.dtype
    if x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    n, h, w, c = x.shape.as_list()
    b = block_size
    return TensorShape([n, None if h is None else h * b, None if w is None else w * b,
                        None if c is None else c // (b * b)]), x.dtype


SPACE_TO_DEPTH = defop("SpaceToDepth", _s2d_kernel, _s2d_infer,
                       grad=lambda op, dy: (bind(DEPTH_TO_SPACE, (dy,), op.attrs),))
DEPTH_TO_SPACE = defop("DepthToSpace", _d2s_kernel, _d2s_infer,
                       grad=lambda op, dy: (bind(SPACE_TO_DEPTH, (dy,), op.attrs),))


def _block_op(op, input, block_size, data_format, name):  # noqa: A002
    if data_format != "NHWC":
        raise NotImplementedError(f"rivulet's {op.name} supports the NHWC data format only; got {data_format}")
    return bind(op, (to_tensor(input),), {"block_size": _check_block(block_size)}, name=name or op.name)


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Moves each block_size x block_size spatial block into the depth dimension."""
    return _block_op(SPACE_TO_DEPTH, input, block_size, data_format, name)


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Spreads depth into block_size x block_size spatial blocks (space_to_depth's inverse)."""
    return _block_op(DEPTH_TO_SPACE, input, block_size, data_format, name)


# ---------------------------------------------------------------- local response normalization
def _window_sum(v, r):
    """Sums over the depth window [d - r, d + r] (clipped) of the last axis."""
    c = v.shape[-1]
    cs = np.concatenate([np.zeros(v.shape[:-1] + (1,), v.dtype), np.cumsum(v, axis=-1)], axis=-1)
    hi = np.minimum(np.arange(c) + r + 1, c)
    lo = np.maximum(np.arange(c) - r, 0)
    return cs[..., hi] - cs[..., lo]


def _lrn_norm(x, depth_radius, bias, alpha):
    x32 = x.astype(np.float32) if x.dtype == np.float16 else x
    return x32, bias + alpha * _window_sum(x32 * x32, depth_radius)


@_m._quiet
def _lrn_kernel(x, depth_radius, bias, alpha, beta):
    x32, n = _lrn_norm(x, depth_radius, bias, alpha)
    return (x32 * n ** -beta).astype(x.dtype)


@_m._quiet
def _lrn_grad_kernel(dy, x, y, depth_radius, bias, alpha, beta):
    x32, n = _lrn_norm(x, depth_radius, bias, alpha)
    g = dy.astype(x32.dtype)
    inner = _window_sum(g * x32 * n ** (-beta - 1), depth_radius)
    return (g * n ** -beta - 2 * alpha * beta * x32 * inner).astype(x.dtype)


def _lrn_infer(x, **_):
    if x.shape.rank is not None and x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    return x.shape, x.dtype


_LRN_TYPES = frozenset([_dt.float16, _dt.float32])
LRN_GRAD = defop("LRNGrad", _lrn_grad_kernel, lambda dy, x, y, **a: (x.shape, x.dtype), allowed=_LRN_TYPES)
LRN = defop("LRN", _lrn_kernel, _lrn_infer, allowed=_LRN_TYPES,
            grad=lambda op, dy: (bind(LRN_GRAD, (dy, op.inputs[0], op.outputs[0]), op.attrs),))


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """input / (bias + alpha * sum of squares over the depth window [d - r, d + r]) ** beta (4-D input)."""
    return bind(LRN, (to_tensor(input),), {"depth_radius": int(depth_radius), "bias": float(bias),
                                            "alpha": float(alpha), "beta": float(beta)}, name=name or "LRN")


lrn = local_response_normalization


# ---------------------------------------------------------------- composites
def crelu(features, name=None, axis=-1):
    """Concatenates relu(x) and relu(-x) along axis."""
    from .nn_ops import relu
    x = to_tensor(features)
    return _a.concat([relu(x), relu(_m.negative(x))], axis, name=name)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by pos_weight, in TensorFlow's stable form
    (1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))."""
    from .nn_ops import relu
    logits = to_tensor(logits)
    labels = to_tensor(labels, logits.dtype)
    log_weight = _m.add(_m.multiply(_m.subtract(pos_weight, 1.0), labels), 1.0)
    soft = _m.add(_m.log1p(_m.exp(_m.negative(_m.abs(logits)))), relu(_m.negative(logits)))
    return _m.add(_m.multiply(_m.subtract(1.0, labels), logits), _m.multiply(log_weight, soft), name=name)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - targets * log_input, plus Stirling's approximation of log(targets!) for targets > 1 when
    compute_full_loss."""
    log_input = to_tensor(log_input)
    targets = to_tensor(targets, log_input.dtype)
    result = _m.subtract(_m.exp(log_input), _m.multiply(log_input, targets))
    if compute_full_loss:
        ones = _a.ones_like(targets)
        safe = _a.where(_m.greater(targets, ones), targets, ones)
        stirling = _m.add(_m.subtract(_m.multiply(safe, _m.log(safe)), safe),
                          _m.multiply(0.5, _m.log(_m.multiply(2 * np.pi, safe))))
        result = _m.add(result, _a.where(_m.greater(targets, ones), stirling, _a.zeros_like(targets)))
    return _a.identity(result, name=name) if name else result


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: mean_ss / counts (+ shift), variance_ss / counts - mean^2
    of the shifted data."""
    divisor = _m.reciprocal(to_tensor(counts))
    shifted_mean = _m.multiply(to_tensor(mean_ss), divisor)
    mean = shifted_mean if shift is None else _m.add(shifted_mean, to_tensor(shift))
    variance = _m.subtract(_m.multiply(to_tensor(variance_ss), divisor), _m.square(shifted_mean))
    return mean, variance


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over axes."""
    x = to_tensor(x)
    axes = [int(a) for a in np.ravel(axes)]
    if x.shape.is_fully_defined():
        count = 1
        for a in axes:
            count *= x.shape[a]
        counts = to_tensor(float(count), x.dtype)
    else:
        shape = _a.shape(x)
        counts = _m.cast(_m.reduce_prod(_a.gather(shape, axes)), x.dtype)
    if shift is not None:
        shift = to_tensor(shift, x.dtype)
        m_ss = _m.subtract(x, shift)
    else:
        m_ss = x
    v_ss = _m.square(m_ss)
    return (counts, _m.reduce_sum(m_ss, axes, keepdims=keepdims), _m.reduce_sum(v_ss, axes, keepdims=keepdims),
            shift)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of x over axes with frequency weights broadcast against x (float16 computed in
    float32)."""
    x = to_tensor(x)
    w = to_tensor(frequency_weights)
    half = x.dtype == _dt.float16
    if half:
        x, w = _m.cast(x, _dt.float32), _m.cast(w, _dt.float32)
    w = _m.cast(w, x.dtype)
    weighted_sum = _m.reduce_sum(_m.multiply(w, x), axes, keepdims=True)
    sum_w = _m.reduce_sum(_a.broadcast_to(w, _a.shape(x)) if w.shape != x.shape else w, axes, keepdims=True)
    divisor = _m.reciprocal(sum_w)
    mean = _m.multiply(weighted_sum, divisor)
    variance = _m.multiply(_m.reduce_sum(_m.multiply(w, _m.square(_m.subtract(x, mean))), axes, keepdims=True),
                           divisor)
    if not keepdims:
        mean = _a.squeeze(mean, axes)
        variance = _a.squeeze(variance, axes)
    if half:
        mean, variance = _m.cast(mean, _dt.float16), _m.cast(variance, _dt.float16)
    return mean, variance



# ---------------------------------------------------------------- conv3d (N-D convolution, one GEMM per tap)
import itertools  # noqa: E402


def _conv_geometry(in_sizes, k_sizes, strides, dilations, padding):
    outs, pads = [], []
    for n, k, s, d in zip(in_sizes, k_sizes, strides, dilations):
        eff = (k - 1) * d + 1
        if padding == "VALID":
            o = (n - eff + s) // s if n >= eff else 0
            pads.append((0, 0))
        else:
            o = -(-n // s)
            total = max((o - 1) * s + eff - n, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(o)
    return outs, pads


def _tap_slices(tap, outs, strides, dilations):
    return tuple(slice(t * d, t * d + (o - 1) * s + 1, s) for t, o, s, d in zip(tap, outs, strides, dilations))


def _convnd_kernel(x, f, strides, dilations, padding):
    m = x.ndim - 2
    ks = f.shape[:m]
    outs, pads = _conv_geometry(x.shape[1:1 + m], ks, strides, dilations, padding)
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    out = np.zeros((x.shape[0], *outs, f.shape[-1]), np.result_type(x, f))
    if min(outs, default=1) <= 0:
        return out
    for tap in itertools.product(*(range(k) for k in ks)):
        sl = (slice(None),) + _tap_slices(tap, outs, strides, dilations)
        out += np.tensordot(xp[sl], f[tap], axes=([m + 1], [0]))
    return out


def _convnd_input_grad(dy, in_shape, f, strides, dilations, padding):
    m = dy.ndim - 2
    ks = f.shape[:m]
    outs = dy.shape[1:1 + m]
    _, pads = _conv_geometry(in_shape[1:1 + m], ks, strides, dilations, padding)
    padded = [n + a + b for n, (a, b) in zip(in_shape[1:1 + m], pads)]
    g = np.zeros((in_shape[0], *padded, in_shape[-1]), dy.dtype)
    for tap in itertools.product(*(range(k) for k in ks)):
        sl = (slice(None),) + _tap_slices(tap, outs, strides, dilations)
        g[sl] += np.tensordot(dy, f[tap], axes=([m + 1], [1]))
    crop = (slice(None),) + tuple(slice(a, a + n) for (a, _), n in zip(pads, in_shape[1:1 + m]))
    return np.ascontiguousarray(g[crop])


def _convnd_filter_grad(x, f_shape, dy, strides, dilations, padding):
    m = x.ndim - 2
    ks = f_shape[:m]
    outs = dy.shape[1:1 + m]
    _, pads = _conv_geometry(x.shape[1:1 + m], ks, strides, dilations, padding)
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    g = np.zeros(tuple(f_shape), dy.dtype)
    axes = list(range(m + 1))
    for tap in itertools.product(*(range(k) for k in ks)):
        sl = (slice(None),) + _tap_slices(tap, outs, strides, dilations)
        g[tap] = np.tensordot(xp[sl], dy, axes=(axes, axes))
    return g


def _conv3d_infer(x, f, strides, dilations, padding):
    if x.shape.rank is not None and x.shape.rank != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.shape.rank}")
    if x.shape.rank is None or f.shape.rank is None:
        return TensorShape([None] * 5), x.dtype
    dims = x.shape.as_list()
    ks = f.shape.as_list()[:3]
    if x.shape[-1] is not None and f.shape[3] is not None and x.shape[-1] != f.shape[3]:
        raise ValueError(f"Depth of input ({x.shape[-1]}) must match the filter's input depth ({f.shape[3]})")
    outs = [None] * 3
    if None not in dims[1:4] and None not in ks:
        outs, _ = _conv_geometry(dims[1:4], ks, strides, dilations, padding)
    return TensorShape([dims[0], *outs, f.shape[-1]]), x.dtype


def _conv3d_grad(op, dy):
    x, f = op.inputs
    a = op.attrs
    gx = bind(CONV3D_INPUT_GRAD, (_a.shape(x), f, dy), a)
    gf = bind(CONV3D_FILTER_GRAD, (x, _a.shape(f), dy), a)
    return gx, gf


_CONV_FLOATS = frozenset([_dt.float16, _dt.float32, _dt.float64])
CONV3D_INPUT_GRAD = defop(
    "Conv3DBackpropInputV2",
    lambda in_shape, f, dy, strides, dilations, padding: _convnd_input_grad(dy, tuple(int(v) for v in in_shape), f,
                                                                            strides, dilations, padding),
    lambda in_shape, f, dy, **a: (TensorShape([None] * 5), dy.dtype))
CONV3D_FILTER_GRAD = defop(
    "Conv3DBackpropFilterV2",
    lambda x, f_shape, dy, strides, dilations, padding: _convnd_filter_grad(x, tuple(int(v) for v in f_shape), dy,
                                                                            strides, dilations, padding),
    lambda x, f_shape, dy, **a: (TensorShape([None] * 5), dy.dtype))
CONV3D = defop("Conv3D", _convnd_kernel, _conv3d_infer, grad=_conv3d_grad, same=2, allowed=_CONV_FLOATS)


def _five(v, what, default=1):
    if v is None:
        return (default,) * 3
    v = [int(t) for t in np.ravel(v)]
    if len(v) == 1:
        return (v[0],) * 3
    if len(v) == 3:
        return tuple(v)
    if len(v) != 5 or v[0] != 1 or v[4] != 1:
        raise ValueError(f"{what} must be [1, d, h, w, 1], got {v}")
    return tuple(v[1:4])


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution of [batch, depth, height, width, in] by filters [d, h, w, in, out] (NDHWC)."""
    from ._rules import binary_args
    if data_format != "NDHWC":
        raise NotImplementedError(f"rivulet's conv3d supports the NDHWC data format only; got {data_format}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    x, f = binary_args(input, filters)
    return bind(CONV3D, (x, f), {"strides": _five(strides, "strides"), "dilations": _five(dilations, "dilations"),
                                 "padding": padding}, name=name or "Conv3D")


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose (gradient) of conv3d: [batch, d, h, w, in] with filters [kd, kh, kw, out, in] ->
    output_shape."""
    from ._rules import binary_args
    if data_format != "NDHWC":
        raise NotImplementedError(f"rivulet's conv3d_transpose supports the NDHWC data format only; got {data_format}")
    x, f = binary_args(input, filters)
    shape = to_tensor(output_shape, _dt.int32)
    return bind(CONV3D_INPUT_GRAD, (shape, f, x), {"strides": _five(strides, "strides"),
                                                    "dilations": _five(dilations, "dilations"), "padding": padding},
                name=name or "conv3d_transpose")


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d: [batch, width, in] with filters [w, out, in] -> output_shape [batch, width, out]."""
    from .conv_ops import conv2d_transpose
    if data_format != "NWC":
        raise NotImplementedError(f"rivulet's conv1d_transpose supports the NWC data format only; got {data_format}")
    x = _a.expand_dims(to_tensor(input), 1)
    f = _a.expand_dims(to_tensor(filters), 0)
    shape = to_tensor(output_shape, _dt.int32)
    shape4 = _a.concat([shape[:1], [1], shape[1:]], 0)
    s = [int(v) for v in np.ravel(strides)]
    s = s[0] if len(s) == 1 else s[1]
    d = 1 if dilations is None else [int(v) for v in np.ravel(dilations)]
    d = d if isinstance(d, int) else (d[0] if len(d) == 1 else d[1])
    y = conv2d_transpose(x, f, shape4, [1, 1, s, 1], padding, dilations=[1, 1, d, 1] if d != 1 else None)
    return _a.squeeze(y, [1], name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """conv1d/2d/3d_transpose by the input's rank (3, 4 or 5)."""
    from .conv_ops import conv2d_transpose
    rank = to_tensor(input).shape.rank
    if rank == 3:
        return conv1d_transpose(input, filters, output_shape, strides, padding, "NWC", dilations, name)
    if rank == 4:
        return conv2d_transpose(input, filters, output_shape, strides, padding, "NHWC", dilations, name)
    if rank == 5:
        return conv3d_transpose(input, filters, output_shape, strides, padding, "NDHWC", dilations, name)
    raise ValueError(f"input must be of rank 3, 4 or 5, got rank {rank}")


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter dilated by rate (stride 1)."""
    from .nn_ops import conv2d
    return conv2d(value, filters, strides=1, padding=padding, dilations=int(rate), name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with the filter dilated by rate."""
    from .conv_ops import conv2d_transpose
    return conv2d_transpose(value, filters, output_shape, 1, padding, dilations=int(rate), name=name)


# ---------------------------------------------------------------- max_pool_with_argmax
def _mpwa_kernel(x, ksize, strides, padding, include_batch_in_index):
    n, h, w, c = x.shape
    (oh, ow), (ph, pw) = _pool_geometry(h, w, ksize, strides, padding)
    vals = np.full((n, oh, ow, c), -np.inf, x.dtype)
    arg = np.zeros((n, oh, ow, c), np.int64)
    bi = np.arange(n)[:, None, None, None]
    ci = np.arange(c)[None, None, None, :]
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            rows = np.arange(oh) * strides[0] - ph + i
            cols = np.arange(ow) * strides[1] - pw + j
            ok = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None, :]
            r = np.clip(rows, 0, h - 1)[:, None]
            cc = np.clip(cols, 0, w - 1)[None, :]
            v = x[:, r, cc, :]
            better = ok[None, :, :, None] & (v > vals)
            vals = np.where(better, v, vals)
            flat = (r * w + cc)[None, :, :, None] * c + ci
            if include_batch_in_index:
                flat = flat + bi * (h * w * c)
            arg = np.where(better, flat, arg)
    return vals, arg


def _pool_geometry(h, w, ksize, strides, padding):
    outs, pads = [], []
    for n, k, s in zip((h, w), ksize, strides):
        if padding == "VALID":
            o = (n - k + s) // s
            pads.append(0)
        else:
            o = -(-n // s)
            pads.append(max((o - 1) * s + k - n, 0) // 2)
        outs.append(o)
    return outs, pads


def _mpwa_grad_kernel(x, dy, argmax, include_batch_in_index):
    g = np.zeros(x.size, dy.dtype)
    idx = argmax.reshape(argmax.shape[0], -1)
    if not include_batch_in_index:
        idx = idx + (np.arange(x.shape[0]) * (x.size // x.shape[0]))[:, None]
    np.add.at(g, idx.reshape(-1), dy.reshape(-1))
    return g.reshape(x.shape)


MAX_POOL_GRAD_WITH_ARGMAX = defop("MaxPoolGradWithArgmax", _mpwa_grad_kernel,
                                  lambda x, dy, argmax, **a: (x.shape, x.dtype))


def _mpwa_infer(x, ksize, strides, padding, include_batch_in_index):
    if x.shape.rank is None:
        shape = TensorShape([None] * 4)
    else:
        n, h, w, c = x.shape.as_list()
        oh = ow = None
        if h is not None and w is not None:
            (oh, ow), _ = _pool_geometry(h, w, ksize, strides, padding)
        shape = TensorShape([n, oh, ow, c])
    return [(shape, x.dtype), (shape, _dt.int64)]


MAX_POOL_WITH_ARGMAX = defop(
    "MaxPoolWithArgmax", _mpwa_kernel, _mpwa_infer, num_outputs=2,
    grad=lambda op, dy, _: (bind(MAX_POOL_GRAD_WITH_ARGMAX, (op.inputs[0], dy, op.outputs[1]),
                                 {"include_batch_in_index": op.attrs["include_batch_in_index"]}),))


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype=_dt.int64,  # noqa: A002
                         include_batch_in_index=False, name=None):
    """(max pool, argmax): each maximum's flat index ((y * width + x) * channels + c, plus
    batch * height * width * channels with include_batch_in_index), int64."""
    from .nn_ops import _pair
    if data_format != "NHWC":
        raise NotImplementedError(f"max_pool_with_argmax supports NHWC only; got {data_format}")
    vals, arg = bind(MAX_POOL_WITH_ARGMAX, (to_tensor(input),), {
        "ksize": tuple(_pair(ksize, "ksize")), "strides": tuple(_pair(strides, "strides")), "padding": padding,
        "include_batch_in_index": bool(include_batch_in_index)}, name=name or "MaxPoolWithArgmax")
    return vals, arg if _dt.as_dtype(output_dtype) == _dt.int64 else _m.cast(arg, output_dtype)


# ---------------------------------------------------------------- embedding lookups over sparse ids
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner="mean", max_norm=None, name=None,
                            allow_fast_lookup=False):
    """Per row of the SparseTensor sp_ids, the combined ("sum", "mean" or "sqrtn") embeddings of its ids,
    weighted by sp_weights' values when given; rows without ids are 0 (their number: the last row with one)."""
    from .nn_ops import embedding_lookup
    from .sort_segment_ops import unsorted_segment_sum
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    segment_ids = _m.cast(sp_ids.indices[:, 0], _dt.int32)
    ids = sp_ids.values
    rows = embedding_lookup(params, ids, max_norm=max_norm)
    num = _m.add(_m.reduce_max(_a.concat([segment_ids, [-1]], 0)), 1)
    if sp_weights is None:
        w = _a.ones_like(_m.cast(ids, rows.dtype))
    else:
        w = _m.cast(sp_weights.values, rows.dtype)
    rows = _m.multiply(rows, _a.expand_dims(w, 1))
    total = unsorted_segment_sum(rows, segment_ids, num)
    if combiner == "sum":
        return total
    wsum = unsorted_segment_sum(w if combiner == "mean" else _m.square(w), segment_ids, num)
    if combiner == "sqrtn":
        wsum = _m.sqrt(wsum)
    return _m.divide_no_nan(total, _a.expand_dims(wsum, 1), name=name)


# ---------------------------------------------------------------- small composites
def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None,  # noqa: A002
                                         mean=None, variance=None):
    """(t - m) * rsqrt(v + epsilon) (* gamma when scale_after_normalization) + beta."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    from .nn_ops import batch_normalization
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon,
                               name=name)


def collapse_repeated(labels, seq_length, name=None):
    """(labels with runs of a repeated label merged, new lengths): padded to the longest new sequence."""
    x = to_tensor(labels)
    lengths = to_tensor(seq_length)
    out = bind(COLLAPSE_REPEATED, (x, lengths), name=name or "collapse_repeated")
    return out[0], out[1]


def _collapse_kernel(labels, lengths):
    rows = []
    for row, n in zip(labels.tolist(), lengths.tolist()):
        kept = [v for i, v in enumerate(row[:n]) if i == 0 or v != row[i - 1]]
        rows.append(kept)
    width = max([len(r) for r in rows] + [0])
    out = np.zeros((len(rows), width), labels.dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out, np.asarray([len(r) for r in rows], lengths.dtype)


COLLAPSE_REPEATED = defop("_CollapseRepeated", _collapse_kernel,
                          lambda labels, lengths: [(TensorShape([labels.shape[0], None]), labels.dtype),
                                                   (lengths.shape, lengths.dtype)], num_outputs=2)


def _isotonic_kernel(x, decreasing):
    """Pool-adjacent-violators per row: the closest non-increasing (decreasing) sequence and the segment ids."""
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    out = np.empty(rows.shape, x.dtype)
    seg = np.empty(rows.shape, np.int32)
    for r in range(rows.shape[0]):
        v = rows[r].astype(np.float64)
        if not decreasing:
            v = -v
        blocks = []  # (sum, count)
        for val in v:
            blocks.append([val, 1])
            while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
                s, c = blocks.pop()
                blocks[-1][0] += s
                blocks[-1][1] += c
        k = 0
        for b, (s, c) in enumerate(blocks):
            mean = s / c
            out[r, k:k + c] = mean if decreasing else -mean
            seg[r, k:k + c] = b
            k += c
    return out.reshape(x.shape), seg.reshape(x.shape)


ISOTONIC = defop("IsotonicRegression", _isotonic_kernel,
                 lambda x, decreasing: [(x.shape, x.dtype), (x.shape, _dt.int32)], num_outputs=2)


def isotonic_regression(inputs, decreasing=True, axis=-1, name=None):
    """(the closest non-increasing (or non-decreasing) sequence along axis in squared error, the segment index
    of each element), by pool-adjacent-violators."""
    x = to_tensor(inputs)
    if x.dtype.is_integer:
        x = _m.cast(x, _dt.float32)
    rank = x.shape.rank
    ax = axis % rank
    if ax != rank - 1:
        perm = [i for i in range(rank) if i != ax] + [ax]
        x = _a.transpose(x, perm)
    out, seg = bind(ISOTONIC, (x,), {"decreasing": bool(decreasing)}, name=name or "IsotonicRegression")
    if ax != rank - 1:
        inv = list(np.argsort(perm))
        out, seg = _a.transpose(out, inv), _a.transpose(seg, inv)
    return out, seg


# ---------------------------------------------------------------- dilation2d / erosion2d (grayscale morphology)
def _dilation_taps(x, f, strides, rates, padding):
    """(values [taps, n, oh, ow, c], tap index of each) of input + filter at every tap (-inf outside)."""
    n, h, w, c = x.shape
    kh, kw = f.shape[:2]
    (oh, ow), pads = _conv_geometry((h, w), (kh, kw), strides, rates, padding)
    (pt, _), (pl, _) = pads
    vals = np.full((kh * kw, n, oh, ow, c), -np.inf, np.result_type(x, f))
    for i in range(kh):
        for j in range(kw):
            rows = np.arange(oh) * strides[0] - pt + i * rates[0]
            cols = np.arange(ow) * strides[1] - pl + j * rates[1]
            ok = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None, :]
            v = x[:, np.clip(rows, 0, h - 1)][:, :, np.clip(cols, 0, w - 1)] + f[i, j]
            vals[i * kw + j] = np.where(ok[None, :, :, None], v, -np.inf)
    return vals, (oh, ow), (pt, pl)


def _dilation_kernel(x, f, strides, rates, padding):
    vals, _, _ = _dilation_taps(x, f, strides, rates, padding)
    return vals.max(axis=0).astype(x.dtype)


def _dilation_grads(x, f, dy, strides, rates, padding):
    vals, (oh, ow), (pt, pl) = _dilation_taps(x, f, strides, rates, padding)
    best = np.argmax(vals, axis=0)  # the first maximal tap, as TensorFlow's kernel
    kh, kw = f.shape[:2]
    i, j = best // kw, best % kw
    n, h, w, c = x.shape
    rows = np.arange(oh)[None, :, None, None] * strides[0] - pt + i * rates[0]
    cols = np.arange(ow)[None, None, :, None] * strides[1] - pl + j * rates[1]
    bi = np.broadcast_to(np.arange(n)[:, None, None, None], best.shape)
    ci = np.broadcast_to(np.arange(c)[None, None, None, :], best.shape)
    gx = np.zeros(x.shape, dy.dtype)
    np.add.at(gx, (bi, rows, cols, ci), dy)
    gf = np.zeros(f.shape, dy.dtype)
    np.add.at(gf, (i, j, ci), dy)
    return gx, gf


DILATION_GRADS = defop("_Dilation2DGrads", _dilation_grads,
                       lambda x, f, dy, **a: [(x.shape, x.dtype), (f.shape, f.dtype)], num_outputs=2)


def _dilation_infer(x, f, strides, rates, padding):
    if x.shape.rank is None or f.shape.rank is None:
        return TensorShape([None] * 4), x.dtype
    n, h, w, c = x.shape.as_list()
    kh, kw = f.shape.as_list()[:2]
    oh = ow = None
    if None not in (h, w, kh, kw):
        (oh, ow), _ = _conv_geometry((h, w), (kh, kw), strides, rates, padding)
    return TensorShape([n, oh, ow, c]), x.dtype


DILATION2D = defop("Dilation2D", _dilation_kernel, _dilation_infer, same=2, allowed=frozenset(
    [_dt.float16, _dt.float32, _dt.float64]),
    grad=lambda op, dy: tuple(bind(DILATION_GRADS, (op.inputs[0], op.inputs[1], dy), op.attrs)))


def _hw(v, what):
    v = [int(t) for t in np.ravel(v)]
    if len(v) == 4:
        return (v[1], v[2])
    if len(v) == 2:
        return tuple(v)
    if len(v) == 1:
        return (v[0], v[0])
    raise ValueError(f"{what} must have 1, 2 or 4 entries, got {v}")


def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """Grayscale dilation: the max over the window of input + filters ([kh, kw, channels]), per channel."""
    from ._rules import binary_args
    if data_format != "NHWC":
        raise ValueError(f"dilation2d supports NHWC only; got {data_format}")
    x, f = binary_args(input, filters)
    return bind(DILATION2D, (x, f), {"strides": _hw(strides, "strides"),
                                     "rates": _hw([1] if dilations is None else dilations, "dilations"),
                                     "padding": padding}, name=name or "Dilation2D")


def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """Grayscale erosion: -dilation2d(-value, filters reversed in both spatial dimensions)."""
    f = _a.reverse(to_tensor(filters), [0, 1])
    return _m.negative(dilation2d(_m.negative(to_tensor(value)), f, strides, padding, data_format, dilations),
                       name=name)
