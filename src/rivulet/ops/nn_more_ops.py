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

