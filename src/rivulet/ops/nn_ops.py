"""Neural-network ops (tf.nn): activations, softmax and cross-entropies, conv2d, pooling, bias_add, dropout.

Gradients follow TensorFlow's layout: each activation has its own `...Grad` op (one NumPy pass), the
cross-entropy ops emit the fused backprop as a second output, and conv/pool gradients are ops of their own.
A stride-1 float convolution sums one BLAS GEMM per filter tap into each block of output rows, with no
im2col copy (`_conv_taps`, through execute/openblas.py); other convolutions are im2col + one matmul per
block of output rows, the copy of block k+1 overlapping the matmul of block k on a helper thread (see
bench/bench_conv.py for the formulations measured). Their gradients are one GEMM per filter tap (the input
gradient of large stride-1 images: tap sums over the padded dy); the max-pool gradient of non-overlapping
windows is one comparison and one exact select (bench/bench_train.py times them in a Keras convnet).
"""
import inspect
import math
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import FLOATS, REAL, defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..execute import blas_threads, memory, onednn, openblas
from ..shape import TensorShape
from ._rules import UNKNOWN, binary_args, broadcast_shape, same_shape, static_value, to_tensor
from . import math_ops as _m

_CONV_TYPES = FLOATS | frozenset([_dt.int32])


def _arg_error(msg):
    """Bad static arguments: InvalidArgumentError when running eagerly (as TensorFlow's kernels say), else
    ValueError (as TensorFlow's graph-construction shape functions say)."""
    return InvalidArgumentError(msg) if context.executing_eagerly() else ValueError(msg)


def _fmt(s):
    return "[" + ",".join("?" if d is None else str(d) for d in s) + "]" if s.rank is not None else "<unknown>"


def _float_input(x, what="features"):
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`{what}.dtype` must be a floating point tensor.Received:{what}.dtype={x.dtype}")
    return x


# ============================================================================ elementwise activations
def _sig(x):
    # Logistic function, computed in float64 and rounded once: matches TensorFlow's float32 results best.
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-np.asarray(x, np.float64)))).astype(x.dtype)


def _erfc(x):
    # NumPy has no erfc; math.erfc is exact to the last bit, worth the per-element cost for a rare activation.
    return np.array(_ERFC(np.asarray(x, np.float64)), dtype=np.float64).astype(x.dtype)


_ERFC = np.frompyfunc(math.erfc, 1, 1)
_RSQRT2 = 0.7071067811865476


_SQRT_2_PI = 0.7978845608028654  # sqrt(2 / pi)
_SELU_SCALE, _SELU_ALPHA = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def _c32(x, c):
    # TensorFlow's tf.nn.gelu casts its Python constants to the input's dtype through a float32 tensor, so a
    # float64 gelu uses 1/sqrt(2) = 0.7071067690849304 (gelu(1.0) is 0.8413447419273903, not Phi(1)).
    return x.dtype.type(np.float32(c))


def _gelu_tanh_parts(x):
    c, a = x.dtype.type(_SQRT_2_PI), _c32(x, 0.044715)  # (only the cubic's coefficient goes through float32)
    u = c * (x + a * x ** 3)
    du = c * (1 + 3 * a * x * x)
    return np.tanh(u), du


def _gelu(x, approximate=False):
    if approximate:
        return x.dtype.type(0.5) * x * (1 + _gelu_tanh_parts(x)[0])
    # 0.5 * x * erfc(-x / sqrt(2)), TensorFlow's form: no cancellation for negative x.
    return x.dtype.type(0.5) * x * _erfc(-x * _c32(x, _RSQRT2))


def _gelu_d(x, approximate=False):
    if approximate:
        t, du = _gelu_tanh_parts(x)
        return x.dtype.type(0.5) * (1 + t) + x.dtype.type(0.5) * x * (1 - t * t) * du
    c = _c32(x, _RSQRT2)
    pdf = np.exp(-(x * c) ** 2) * (c * x.dtype.type(0.5641895835477563))  # c / sqrt(pi): 1/sqrt(2 pi) for float32
    return x.dtype.type(0.5) * _erfc(-x * c) + x * pdf


def _gelu_d2(x, approximate=False):
    if approximate:
        t, du = _gelu_tanh_parts(x)
        d2u = x.dtype.type(6 * _SQRT_2_PI * 0.044715) * x
        return (1 - t * t) * (du - x * t * du * du + x.dtype.type(0.5) * x * d2u)
    return np.exp(-x * x / 2) * x.dtype.type(0.3989422804014327) * (2 - x * x)


def _swish(x, beta=1.0):
    return x * _sig(x * x.dtype.type(beta) if beta != 1.0 else x)


def _swish_d(x, beta=1.0):
    b = x.dtype.type(beta)
    s = _sig(b * x)
    return s * (1 + b * x * (1 - s))


def _swish_d2(x, beta=1.0):
    b = x.dtype.type(beta)
    s = _sig(b * x)
    return b * s * (1 - s) * (2 + b * x * (1 - 2 * s))


def _softplus(x):
    # TensorFlow's thresholds: x itself when large, exp(x) when very negative, else log1p(exp(x)).
    t = x.dtype.type(np.log(np.finfo(x.dtype).eps) + 2)
    with np.errstate(over="ignore"):
        e = np.exp(x)
        return np.where(x > -t, x, np.where(x < t, e, np.log1p(e)))


def _exp_rounded(x):
    """exp in x's dtype, correctly rounded for float16/32 (through float64, as Eigen's exp mostly is; NumPy's
    float32 exp can be an ulp off, which exp(x) - 1 turns into a large relative error near 0)."""
    if x.dtype.itemsize < 8:
        return np.exp(x.astype(np.float64)).astype(x.dtype)
    return np.exp(x)


def _elu(x):
    # exp(x) - 1, not expm1: TensorFlow's kernel subtracts (elu(-1.5e-06) is -1.4901161e-06 in float32).
    with np.errstate(over="ignore"):
        return np.where(x < 0, _exp_rounded(np.minimum(x, 0)) - x.dtype.type(1), x)


_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123  # TensorFlow's one constant for scale * alpha


def _selu(x):
    with np.errstate(over="ignore"):
        return np.where(x < 0, x.dtype.type(_SELU_SCALE_ALPHA) * (_exp_rounded(np.minimum(x, 0)) - x.dtype.type(1)),
                        x.dtype.type(_SELU_SCALE) * x)


def _leaky(x, alpha):
    """TensorFlow's LeakyRelu, x > 0 ? x : x * alpha; for 0 < alpha <= 1 that is max(x, x * alpha) for every
    float (zeros' signs and NaN included), two vectorised passes instead of np.where's masked select (12.8 ->
    0.95 ms on 3.2M float32 values: a DCGAN's activations). alpha is a float32 attr, as TensorFlow's (float64
    features take float64(float32(alpha)): leaky_relu(-1.0) is -0.20000000298023224)."""
    a = x.dtype.type(np.float32(alpha))
    if 0 < alpha <= 1:  # (alpha 0: inf * 0 is NaN where TensorFlow keeps inf)
        t = x * a
        return np.maximum(x, t, out=t) if isinstance(t, np.ndarray) else np.maximum(x, t)
    with np.errstate(invalid="ignore"):  # inf * 0 (alpha 0): NaN, as TensorFlow, without a warning
        return np.where(x > 0, x, x * a)


def _leaky_slope(x, alpha):
    """LeakyReluGrad's factor, x > 0 ? 1 : alpha (NaN features take alpha, as TensorFlow's x > 0 test); for
    0 < alpha <= 1 that is fmax(sign(x), alpha) exactly (fmax drops sign's NaN), 5x np.where's speed."""
    a = x.dtype.type(np.float32(alpha))
    if 0 < alpha <= 1:
        s = np.sign(x)
        return np.fmax(s, a, out=s) if isinstance(s, np.ndarray) else np.fmax(s, a)
    return np.where(x > 0, x.dtype.type(1), a)


# name: (f, f', f'' (None: zero), allowed dtypes). Each kernel is as few NumPy passes as it can be:
# Relu and its gradient are on every Dense layer's hot path.
_ACTIVATIONS = {
    "Relu": (lambda x: np.maximum(x, 0), lambda x: x > 0, None, REAL),
    "Relu6": (lambda x: np.clip(x, 0, 6), lambda x: (x > 0) & (x < 6), None, REAL),
    "LeakyRelu": (lambda x, alpha=0.2: _leaky(x, alpha), lambda x, alpha=0.2: _leaky_slope(x, alpha), None, FLOATS),
    "Elu": (_elu, lambda x: np.where(x > 0, 1, np.exp(np.minimum(x, 0))).astype(x.dtype),
            lambda x: np.where(x > 0, 0, np.exp(np.minimum(x, 0))).astype(x.dtype), FLOATS),
    "Selu": (_selu,
             lambda x: np.where(x > 0, x.dtype.type(_SELU_SCALE),
                                x.dtype.type(_SELU_SCALE * _SELU_ALPHA) * np.exp(np.minimum(x, 0))),
             lambda x: np.where(x > 0, x.dtype.type(0),
                                x.dtype.type(_SELU_SCALE * _SELU_ALPHA) * np.exp(np.minimum(x, 0))), FLOATS),
    "Softplus": (_softplus, _sig, lambda x: _sig(x) * (1 - _sig(x)), FLOATS),
    "Softsign": (lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2,
                 lambda x: -2 * np.sign(x) / (1 + np.abs(x)) ** 3, FLOATS),
    "Gelu": (_gelu, _gelu_d, _gelu_d2, FLOATS),
    "Silu": (_swish, _swish_d, _swish_d2, FLOATS),
}


def _make_activation(name, f, df, d2f, allowed):
    def grad_kernel(dy, x, **attrs):
        d = df(x, **attrs)
        # dy * mask, as TensorFlow computes it (a NaN gradient stays NaN): one pass over the mask.
        return np.multiply(dy, d, dtype=dy.dtype) if d.dtype == bool else dy * d

    attrs = tuple(inspect.signature(f).parameters)[1:]  # the forward op's attrs (LeakyRelu's alpha)
    second = None
    if d2f is not None:
        second = defop(name + "GradGrad", lambda a, x, **attrs: a * d2f(x, **attrs), same_shape, same=2,
                       attrs=attrs)

    def grad_grad(op, g):
        dy, x = op.inputs
        gx = None if second is None else bind(second, (_m.multiply(g, dy), x), op.attrs)
        return bind(grad_op, (g, x), op.attrs), gx

    grad_op = defop(name + "Grad", context.quiet(grad_kernel), same_shape, grad=grad_grad, same=2, allowed=allowed,
                    attrs=attrs)
    # Relu's and Relu6's masks read the same off their output (as TensorFlow's gradients take it): the
    # pre-activation then has one consumer, and MatMul + bias + Relu fuse in training steps too.
    src = (lambda op: op.outputs[0]) if name in ("Relu", "Relu6") else (lambda op: op.inputs[0])
    fwd = defop(name, f, same_shape, grad=lambda op, dy: (bind(grad_op, (dy, src(op)), op.attrs),),
                allowed=allowed)
    return fwd


_ACT_OPS = {name: _make_activation(name, *spec) for name, spec in _ACTIVATIONS.items()}
RELU, RELU6, LEAKY_RELU, ELU, SELU, SOFTPLUS, SOFTSIGN, GELU, SILU = (
    _ACT_OPS[n] for n in ("Relu", "Relu6", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "Gelu", "Silu"))


def relu(features, name=None):
    return bind(RELU, (to_tensor(features),), name=name or "Relu")


def relu6(features, name=None):
    return bind(RELU6, (to_tensor(features),), name=name or "Relu6")


def leaky_relu(features, alpha=0.2, name=None):
    x = to_tensor(features)
    if x.dtype.is_integer:  # TensorFlow computes integer leaky_relu in float32
        x = _m.cast(x, _dt.float32)
    return bind(LEAKY_RELU, (x,), {"alpha": float(alpha)}, name=name or "LeakyRelu")


def elu(features, name=None):
    return bind(ELU, (to_tensor(features),), name=name or "Elu")


def selu(features, name=None):
    return bind(SELU, (to_tensor(features),), name=name or "Selu")


def softplus(features, name=None):
    return bind(SOFTPLUS, (to_tensor(features),), name=name or "Softplus")


def softsign(features, name=None):
    return bind(SOFTSIGN, (to_tensor(features),), name=name or "Softsign")


def gelu(features, approximate=False, name=None):
    x = _float_input(features)
    return bind(GELU, (x,), {"approximate": bool(approximate)}, name=name or "Gelu")


def silu(features, beta=1.0, name=None):
    """x * sigmoid(beta * x); beta is a static number here (no gradient reaches it)."""
    x = to_tensor(features)
    b = static_value(beta) if isinstance(beta, Tensor) else beta
    if b is None:
        raise NotImplementedError("tf.nn.silu needs a beta known when the graph is built")
    b = float(b)
    return bind(SILU, (x,), {} if b == 1.0 else {"beta": b}, name=name or "Silu")


swish = silu


# ============================================================================ bias_add
def _bias_problem(xs, bs, data_format):
    """TensorFlow's message for shapes (tuples, None for unknown) BiasAdd cannot take, or None."""
    f = "[" + ",".join("?" if d is None else str(d) for d in bs) + "]" if bs is not None else ""
    if bs is not None and len(bs) != 1:
        return f"Biases must be 1D: {f}"
    if xs is not None and len(xs) < 2:
        return f"Input tensor must be at least 2D: [{','.join('?' if d is None else str(d) for d in xs)}]"
    if xs is not None and bs is not None:
        c = xs[1] if data_format == "NCHW" else xs[-1]
        if c is not None and bs[0] is not None and c != bs[0]:
            xf = ",".join("?" if d is None else str(d) for d in xs)
            return f"Must provide as many biases as the last dimension of the input tensor: {f} vs. [{xf}]"
    return None


def _bias_infer(x, b, data_format="NHWC"):
    def dims(s):
        return None if s.rank is None else tuple(s)
    msg = _bias_problem(dims(x.shape), dims(b.shape), data_format)
    if msg:
        raise ValueError(msg)
    return x.shape, x.dtype


def _bias_kernel(x, b, data_format="NHWC"):
    if b.ndim != 1 or x.ndim < 2 or x.shape[1 if data_format == "NCHW" else -1] != b.shape[0]:
        raise InvalidArgumentError(_bias_problem(x.shape, b.shape, data_format))
    if data_format == "NCHW":
        b = b.reshape((-1,) + (1,) * (x.ndim - 2))
    return np.add(x, b)


def _wide_column_sums(g):
    """Column sums of a tall [N, C] matrix with few columns (a convolution's bias gradient), or None: viewed
    as [N / k, k * C] rows of about 1024 values, summed over axis 0 (NumPy adds whole rows, vectorised
    across them), then the k partial rows folded. OpenBLAS's GEMV with a ones vector handles such thin
    matrices badly (the MNIST convnet's [86528, 32] gradient, CPU ms on one thread: 1.5-6 against 0.19-0.22;
    [86528, 16] 1.7 against 0.08); rows of 64 or more channels and small matrices stay on the GEMV."""
    n, c = g.shape
    if not 2 <= c <= 32 or n * c < 1 << 18:
        return None
    k = 1 << (1024 // c).bit_length() - 1
    while k >= 8 and n % k:
        k >>= 1
    if k < 8:
        return None
    return np.add.reduce(g.reshape(n // k, k * c), axis=0).reshape(k, c).sum(axis=0, dtype=g.dtype)


def _bias_grad_kernel(dy, data_format="NHWC"):
    if data_format != "NCHW" and dy.dtype in _m._GEMV_SUM and dy.ndim >= 2 and dy.size and dy.flags.c_contiguous:
        g = dy.reshape(-1, dy.shape[-1])
        out = _wide_column_sums(g)
        return _m.column_sums(g) if out is None else out
    axes = tuple(i for i in range(dy.ndim) if i != (1 if data_format == "NCHW" else dy.ndim - 1))
    return np.sum(dy, axis=axes, dtype=dy.dtype)


def _bias_grad_infer(dy, data_format="NHWC"):
    s = dy.shape
    if s.rank is None:
        return TensorShape([None]), dy.dtype
    return TensorShape([s[1] if data_format == "NCHW" else s[-1]]), dy.dtype


BIAS_ADD_GRAD = defop("BiasAddGrad", _bias_grad_kernel, _bias_grad_infer,
                      grad=lambda op, g: (bias_add(_m.zeros_like_(op.inputs[0]), g, op.attrs.get("data_format")),))
BIAS_ADD = defop("BiasAdd", _bias_kernel, _bias_infer, same=2, allowed=_m.NUMERIC,
                 grad=lambda op, dy: (dy, bind(BIAS_ADD_GRAD, (dy,), op.attrs)))


def bias_add(value, bias, data_format=None, name=None):
    x = to_tensor(value)
    b = to_tensor(bias, dtype=None if isinstance(bias, Tensor) else x.dtype)
    if data_format is not None and not (isinstance(data_format, str) and data_format.startswith("N") and
                                        (data_format.endswith("C") or data_format.startswith("NC"))):
        raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`, got data_format={data_format!r}")
    attrs = {"data_format": "NCHW"} if data_format is not None and data_format.startswith("NC") else {}
    return bind(BIAS_ADD, (x, b), attrs, name=name or "BiasAdd")


# ============================================================================ softmax
def _f32(x):
    """Half-precision inputs are computed in float32 (as TensorFlow's kernels accumulate)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _softmax_kernel(x, axis=-1):
    if x.ndim == 0:
        raise InvalidArgumentError("logits must have >= 1 dimension, got shape []")
    xf = _f32(x)
    e = np.exp(xf - np.max(xf, axis=axis, keepdims=True))
    e /= np.sum(e, axis=axis, keepdims=True)
    return e.astype(x.dtype, copy=False)


def _log_softmax_kernel(x, axis=-1):
    if x.ndim == 0:
        raise InvalidArgumentError("logits must have >= 1 dimension, got shape []")
    xf = _f32(x)
    z = xf - np.max(xf, axis=axis, keepdims=True)
    z -= np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    return z.astype(x.dtype, copy=False)


def _softmax_grad(op, dy):
    y, axis = op.outputs[0], op.attrs.get("axis", -1)
    return (_m.multiply(_m.subtract(dy, _m.reduce_sum(_m.multiply(dy, y), axis, keepdims=True)), y),)


def _log_softmax_grad(op, dy):
    axis = op.attrs.get("axis", -1)
    sm = softmax(op.inputs[0], axis)
    return (_m.subtract(dy, _m.multiply(_m.reduce_sum(dy, axis, keepdims=True), sm)),)


SOFTMAX = defop("Softmax", _softmax_kernel, same_shape, grad=_softmax_grad, allowed=FLOATS)
LOG_SOFTMAX = defop("LogSoftmax", _log_softmax_kernel, same_shape, grad=_log_softmax_grad, allowed=FLOATS)


def _softmax_axis(x, axis):
    """A non-negative axis, or -1 for the last one (the attr-free common case)."""
    rank = x.shape.rank
    axis = -1 if axis is None else int(axis)
    if rank is None or axis == -1:
        return axis
    if not -rank <= axis < rank:
        raise _arg_error(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
                         f"dimensions in the input. Received: dim={axis}")
    return -1 if axis % rank == rank - 1 else axis % rank


def softmax(logits, axis=None, name=None):
    x = to_tensor(logits)
    axis = _softmax_axis(x, axis)
    return bind(SOFTMAX, (x,), {} if axis == -1 else {"axis": axis}, name=name or "Softmax")


def log_softmax(logits, axis=None, name=None):
    x = to_tensor(logits)
    axis = _softmax_axis(x, axis)
    return bind(LOG_SOFTMAX, (x,), {} if axis == -1 else {"axis": axis}, name=name or "LogSoftmax")


# ============================================================================ cross-entropies
def _expand_mul_kernel(d, b, axis=-1):
    if axis == -1 and d.__class__ is np.ndarray:
        return d[..., None] * b  # indexing: np.expand_dims's Python wrapper costs as much as the product
    return np.expand_dims(d, axis) * b


def _expand_mul_grad(op, g):
    d, b = op.inputs
    axis = op.attrs.get("axis", -1)
    return _m.reduce_sum(_m.multiply(g, b), axis), bind(EXPAND_MUL, (d, g), op.attrs)


# expand_dims(d, axis) * b: scales a fused backprop by the per-example upstream gradient.
EXPAND_MUL = defop("ExpandDimsMul", _expand_mul_kernel, lambda d, b, axis=-1: (b.shape, b.dtype),
                   grad=_expand_mul_grad)


def _xent_kernel(features, labels, axis=-1):
    f, lab = _f32(features), _f32(labels)
    z = f - np.max(f, axis=axis, keepdims=True)
    e = np.exp(z)
    s = np.sum(e, axis=axis, keepdims=True)
    log_sm = z - np.log(s)
    loss = -np.sum(lab * log_sm, axis=axis)
    backprop = e / s - lab
    return loss.astype(features.dtype, copy=False), backprop.astype(features.dtype, copy=False)


def _xent_infer(features, labels, axis=-1):
    fs, ls = features.shape, labels.shape
    try:
        s = broadcast_shape(fs, ls) if fs.rank == ls.rank else None
    except ValueError:
        s = None
    if s is None and fs.rank is not None and ls.rank is not None:
        raise ValueError(f"logits and labels must be broadcastable: logits_size={_fmt(fs)} labels_size={_fmt(ls)}")
    if s is None or s.rank is None:
        return [(UNKNOWN, features.dtype)] * 2
    dims = list(s)
    del dims[axis]
    return [(TensorShape(dims), features.dtype), (s, features.dtype)]


def _softmax_jvp_back(g, logits, axis):
    """Gradient through backprop = softmax(logits) - labels, for second derivatives."""
    sm = softmax(logits, axis)
    return _m.multiply(_m.subtract(g, _m.reduce_sum(_m.multiply(g, sm), axis, keepdims=True)), sm)


def _xent_grad(op, dloss, dbackprop=None):
    logits, labels = op.inputs
    axis = op.attrs.get("axis", -1)
    glogits = glabels = None
    if dloss is not None:
        glogits = bind(EXPAND_MUL, (dloss, op.outputs[1]), op.attrs)
        glabels = bind(EXPAND_MUL, (dloss, _m.negative(log_softmax(logits, axis))), op.attrs)
    if dbackprop is not None:
        extra = _softmax_jvp_back(dbackprop, logits, axis)
        glogits = extra if glogits is None else _m.add(glogits, extra)
        nb = _m.negative(dbackprop)
        glabels = nb if glabels is None else _m.add(glabels, nb)
    return _m.sum_to(glogits, logits), _m.sum_to(glabels, labels)


_xent_grad.takes_none = True  # an unused backprop output costs nothing (no zeros to push through)
SOFTMAX_XENT = defop("SoftmaxCrossEntropyWithLogits", _xent_kernel, _xent_infer, grad=_xent_grad,
                     num_outputs=2, same=2, allowed=FLOATS)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    logits, labels = binary_args(logits, labels)
    rank = logits.shape.rank
    axis = int(axis)
    if rank is not None:
        if not -rank <= axis < rank:
            raise _arg_error(f"`axis` must be in the range [{-rank}, {rank}). Received: axis={axis}")
        axis = -1 if axis % rank == rank - 1 else axis % rank
    attrs = {} if axis == -1 else {"axis": axis}
    return bind(SOFTMAX_XENT, (logits, labels), attrs, name=name or "SoftmaxCrossEntropyWithLogits")[0]


def _sparse_xent_kernel(features, labels):
    # One fused pass per step on a [rows, classes] view: ~8 NumPy calls instead of ~15 (this op sits on
    # every classifier's training step, where the arrays are small and call overhead dominates).
    n = features.shape[-1]
    flat = labels.reshape(-1)
    # Negative labels wrap to huge unsigned values: one reduction checks both ends of the range.
    if flat.size and flat.view(np.uint32 if flat.dtype == np.int32 else np.uint64).max() >= n:
        bad = flat[(flat < 0) | (flat >= n)][0]
        shown = " ".join(str(x) for x in flat[:10])
        raise InvalidArgumentError(f"Received a label value of {bad} which is outside the valid range of [0, {n}).  "
                                   f"Label values: {shown}")
    f = _f32(features).reshape(-1, n)
    # A row's max over a few classes: over the columns of a transposed copy (NumPy's max along a short
    # contiguous axis costs 3.6 us on 64x10, the copy and column max 1.5); the max is exact either way
    z = f - (np.maximum.reduce(np.ascontiguousarray(f.T), axis=0)[:, None] if n <= 16 and f.shape[0] > 8
             else f.max(axis=-1, keepdims=True))
    # the labels' entries as flat indices: 1-D take and fancy index (2-D indexing costs 3x)
    at = _rows(f.shape[0], n) + flat
    zf = z.reshape(-1)
    picked = zf.take(at)
    e = np.exp(z, out=z)
    s = np.add.reduce(e, axis=-1, keepdims=True)
    loss = np.log(s.reshape(-1)) - picked
    backprop = np.divide(e, s, out=e)
    zf[at] -= 1
    if features.dtype != backprop.dtype:
        loss, backprop = loss.astype(features.dtype), backprop.astype(features.dtype)
    return loss.reshape(labels.shape), backprop.reshape(features.shape)


_ROW_INDEX = {}


def _rows(n, step=1):
    """np.arange(n) * step, kept for the batch sizes seen (read-only; a training loop asks for the same few)."""
    r = _ROW_INDEX.get((n, step))
    if r is None:
        r = np.arange(n) * step
        r.flags.writeable = False
        if len(_ROW_INDEX) < 64:
            _ROW_INDEX[n, step] = r
    return r


def _sparse_xent_infer(features, labels):
    fs, ls = features.shape, labels.shape
    if labels.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"Value for attr 'Tlabels' of {labels.dtype.name} is not in the list of allowed values: "
                        f"int32, int64")
    if fs.rank is None:
        return [(ls, features.dtype), (UNKNOWN, features.dtype)]
    if ls.rank is not None:
        if ls.rank != fs.rank - 1:
            raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                             f"{ls} of rank {ls.rank} and logits.shape={fs} of rank {fs.rank}")
        if not ls.is_compatible_with(fs[:-1]):
            raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                             f"labels.shape={ls} and logits.shape={fs}")
    return [(fs[:-1].merge_with(ls) if ls.rank is not None else fs[:-1], features.dtype), (fs, features.dtype)]


def _sparse_xent_grad(op, dloss, dbackprop=None):
    logits = op.inputs[0]
    g = None if dloss is None else bind(EXPAND_MUL, (dloss, op.outputs[1]))
    if dbackprop is not None:
        extra = _softmax_jvp_back(dbackprop, logits, -1)
        g = extra if g is None else _m.add(g, extra)
    return g, None


_sparse_xent_grad.takes_none = True
SPARSE_XENT = defop("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_kernel, _sparse_xent_infer,
                    grad=_sparse_xent_grad, num_outputs=2, allowed=FLOATS)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    logits = to_tensor(logits)
    labels = to_tensor(labels)
    if labels.dtype not in (_dt.int32, _dt.int64):
        raise _arg_error(f"Value for attr 'Tlabels' of {labels.dtype.name} is not in the list of allowed values: "
                         f"int32, int64")
    _sparse_xent_infer(logits, labels)  # rank mismatches are ValueErrors even when running eagerly
    return bind(SPARSE_XENT, (logits, labels), name=name or "SparseSoftmaxCrossEntropyWithLogits")[0]


def _sigmoid_xent_kernel(logits, labels):
    # max(x, 0) - x * z + log(1 + exp(-|x|)): stable for large |x|.
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def _sigmoid_xent_infer(logits, labels):
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).")
    return logits.shape.merge_with(labels.shape), logits.dtype


def _sigmoid_xent_grad_grad(op, g):
    dy, x, z = op.inputs
    a = _m.multiply(g, dy)
    return (bind(SIGMOID_XENT_GRAD, (g, x, z)), bind(SIGMOID_XENT_GRAD2, (a, x)), _m.negative(a))


SIGMOID_XENT_GRAD2 = defop("SigmoidCrossEntropyGradGrad", lambda a, x: a * _sig(x) * (1 - _sig(x)), same_shape)
SIGMOID_XENT_GRAD = defop("SigmoidCrossEntropyGrad", lambda dy, x, z: dy * (_sig(x) - z), same_shape,
                          grad=_sigmoid_xent_grad_grad)
SIGMOID_XENT = defop("SigmoidCrossEntropyWithLogits", _sigmoid_xent_kernel, _sigmoid_xent_infer,
                     grad=lambda op, dy: (bind(SIGMOID_XENT_GRAD, (dy,) + tuple(op.inputs)),
                                          _m.negative(_m.multiply(dy, op.inputs[0]))),
                     same=2, allowed=FLOATS)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided.")
    logits = to_tensor(logits)
    labels = to_tensor(labels, dtype=None if isinstance(labels, Tensor) else logits.dtype)
    _sigmoid_xent_infer(logits, labels)
    return bind(SIGMOID_XENT, (logits, labels), name=name or "logistic_loss")


# ============================================================================ conv2d
def _pair(v, what, n_spatial=2):
    """TensorFlow's int-or-list spatial argument (`strides`, `dilations`, `ksize`) -> (h, w)."""
    if isinstance(v, Tensor):
        v = static_value(v)
    a = np.asarray(v) if v is not None else None
    if a is None or a.dtype.kind not in "iu":
        raise TypeError(f"`{what}` must be an int or a list of ints, got {v!r}")
    v = a.reshape(-1).tolist()
    if len(v) == 4:
        if v[0] != 1 or v[3] != 1:
            raise _arg_error(f"Current implementation does not yet support {what} in the batch and depth "
                             f"dimensions.")
        v = v[1:3]
    elif len(v) == 1:
        v = v * 2
    elif len(v) != 2:
        raise ValueError(f"{what} should be of length 1, {n_spatial} or {n_spatial + 2} but was {len(v)}")
    if min(v) < 1:
        raise _arg_error(f"`{what}` must be positive in every spatial dimension, got {v}")
    if max(v) >= 1 << 31:  # TensorFlow's kernels read these attrs as int32
        raise _arg_error(f"Attr {what} has value {max(v)} out of range for an int32")
    return tuple(v)


def _padding_attr(padding):
    """'SAME'/'VALID' or explicit [[0,0],[t,b],[l,r],[0,0]] -> (padding, ((t,b),(l,r)))."""
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise _arg_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                             f"\"SAME\", \"VALID\", \"EXPLICIT\"")
        return padding, None
    p = [[int(a) for a in pair] for pair in padding]
    if len(p) != 4 or any(len(pair) != 2 for pair in p) or p[0] != [0, 0] or p[3] != [0, 0]:
        raise ValueError(f"padding should be a string or a list of 4 [before, after] pairs with no padding in "
                         f"the batch and channel dimensions, got {padding!r}")
    return "EXPLICIT", ((p[1][0], p[1][1]), (p[2][0], p[2][1]))


def _out_size(n, k, s, d, padding, explicit):
    """(output size, pad before, pad after) along one spatial dim; n may be None."""
    eff = (k - 1) * d + 1
    if n is None:
        if padding == "SAME":
            return None, None, None
        return None, (explicit or (0, 0))[0], (explicit or (0, 0))[1]
    if padding == "SAME":
        out = -(-n // s)
        total = max((out - 1) * s + eff - n, 0)
        return out, total // 2, total - total // 2
    before, after = explicit or (0, 0)
    out = (n + before + after - eff) // s + 1
    if n + before + after - eff < 0:
        raise ValueError(f"Computed output size would be negative: {(n + before + after - eff + 1 + s - 1) // s} "
                         f"[input_size: {n}, effective_filter_size: {eff}, stride: {s}]")
    return out, before, after


def conv_geometry(xshape, kh, kw, strides, padding, explicit, dilations):
    oh, pt, pb = _out_size(xshape[1], kh, strides[0], dilations[0], padding, explicit and explicit[0])
    ow, pl, pr = _out_size(xshape[2], kw, strides[1], dilations[1], padding, explicit and explicit[1])
    return oh, ow, (pt, pb), (pl, pr)


def _conv_infer(x, w, strides, padding, dilations, explicit=None):
    xs, ws = x.shape, w.shape
    if xs.rank is not None and xs.rank != 4:
        raise ValueError(f"input must be 4-dimensional{_fmt(xs)}")
    if ws.rank is not None and ws.rank != 4:
        raise ValueError(f"filter must be 4-dimensional: {_fmt(ws)}")
    if xs.rank is None:
        return TensorShape([None, None, None, ws[3] if ws.rank else None]), x.dtype
    if ws.rank is None:
        return TensorShape([xs[0], None, None, None]), x.dtype
    c, fc = xs[3], ws[2]
    if c is not None and fc is not None and c != fc:
        if c % fc:
            raise ValueError(f"input depth must be evenly divisible by filter depth: {c} vs {fc}")
        raise ValueError(f"Grouped convolution is not supported: input depth {c} vs filter depth {fc}")
    if ws[0] is None or ws[1] is None:
        return TensorShape([xs[0], None, None, ws[3]]), x.dtype
    oh, ow, _, _ = conv_geometry(xs, ws[0], ws[1], strides, padding, explicit, dilations)
    return TensorShape([xs[0], oh, ow, ws[3]]), x.dtype


def _pad_input(x, ph, pw, value=0):
    if not (ph[0] or ph[1] or pw[0] or pw[1]):
        return x
    return np.pad(x, ((0, 0), ph, pw, (0, 0)), constant_values=value)


def _windows(xp, oh, ow, kh, kw, strides, dilations):
    """View [N, OH, OW, KH, KW, C] of every filter window of the padded input (no copy)."""
    sN, sH, sW, sC = xp.strides
    return as_strided(xp, (xp.shape[0], oh, ow, kh, kw, xp.shape[3]),
                      (sN, sH * strides[0], sW * strides[1], sH * dilations[0], sW * dilations[1], sC),
                      writeable=False)


_BLOCK_BYTES = 8 << 20  # im2col block size: big enough for an efficient matmul, small enough for the cache
_COPIER = []
_pool_lock = threading.Lock()


def _copier():
    if not _COPIER:
        with _pool_lock:
            if not _COPIER:
                _COPIER.append(ThreadPoolExecutor(1, thread_name_prefix="rivulet-im2col"))
    return _COPIER[0]


def _blocks(n, oh, row_bytes):
    """Blocks (n0, n1, r0, r1) of output rows whose im2col rows take about _BLOCK_BYTES."""
    rows = max(1, _BLOCK_BYTES // max(row_bytes, 1))
    if rows >= oh:
        per = max(1, rows // oh)
        return [(i, min(i + per, n), 0, oh) for i in range(0, n, per)]
    return [(i, i + 1, r, min(r + rows, oh)) for i in range(n) for r in range(0, oh, rows)]


def _im2col_blocks(cols, blocks, fn):
    """Calls fn(block, cols_2d) for each block; copying block k+1 overlaps fn on block k (BLAS and NumPy
    copies release the GIL)."""
    k = cols.shape[3] * cols.shape[4] * cols.shape[5]

    def copy(b):
        n0, n1, r0, r1 = b
        return np.ascontiguousarray(cols[n0:n1, r0:r1]).reshape(-1, k)

    if len(blocks) == 1:
        fn(blocks[0], copy(blocks[0]))
        return
    pool = _copier()
    fut = pool.submit(copy, blocks[0])
    for i, b in enumerate(blocks):
        c = fut.result()
        if i + 1 < len(blocks):
            fut = pool.submit(copy, blocks[i + 1])
        fn(b, c)


def _dnnl(*arrays):
    """Whether oneDNN (the `onednn` extra, execute/onednn.py) runs a kernel on these operands: the library
    loaded, every operand float32 and 4-D with no zero-sized dimension. Anything else runs on NumPy. (Every
    conv/pool kernel asks this first, so here glibc is also told once to keep freed memory for the next
    step, execute/memory.py: a convnet's megabyte activations are not faulted in anew each step.)"""
    memory.retain_heap()
    return onednn.api() is not None and all(a.dtype == np.float32 and a.ndim == 4 and a.size for a in arrays)


def _c(a):
    return np.ascontiguousarray(a)


def _on_dnnl(fn, *args, **kwargs):
    """fn's result, or None when oneDNN refuses the problem (then the NumPy kernel runs)."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, onednn.Error):
        return None


def _conv_kernel(x, w, strides, padding, dilations, explicit=None, epilogue=None):
    """`epilogue(block)` (the optimiser's fused bias/activation) runs in place on each output block while
    it is still in cache."""
    kh, kw, c, o = w.shape
    if x.shape[3] != c:
        raise ValueError(f"input depth must be evenly divisible by filter depth: {x.shape[3]} vs {c}")
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    n = x.shape[0]
    if _dnnl(x, w):
        out = _on_dnnl(onednn.conv2d, _c(x), _c(w), strides, dilations, (ph, pw))
        if out is not None:
            if epilogue is not None:
                epilogue(out)
            return out
    if kh == kw == 1 and strides == (1, 1) and padding != "EXPLICIT":
        out = np.matmul(x.reshape(-1, c), w.reshape(c, o)).reshape(n, oh, ow, o)
        if epilogue is not None:
            epilogue(out)
        return out
    if strides == (1, 1) and x.dtype == w.dtype and n and oh and ow and _taps_pay(x.shape, c, oh, ow, ph, pw):
        blas = openblas.api()
        if blas is not None and blas.has_gemm(x.dtype):
            return _conv_taps(blas, _pad_input(x, ph, pw), w, oh, ow, dilations, epilogue)
    cols = _windows(_pad_input(x, ph, pw), oh, ow, kh, kw, strides, dilations)
    w2 = w.reshape(-1, o)
    out = np.empty((n, oh, ow, o), dtype=np.result_type(x, w))

    def gemm(b, c2):
        n0, n1, r0, r1 = b
        block = out[n0:n1, r0:r1].reshape(-1, o)
        np.matmul(c2, w2, out=block)
        if epilogue is not None:
            epilogue(block)

    _im2col_blocks(cols, _blocks(n, oh, ow * kh * kw * c * x.itemsize), gemm)
    return out


def conv2d_kernel(x, w, strides, padding, dilations, explicit=None, epilogue=None):
    """Conv2D's kernel (and the optimiser's _FusedConv2D's). float16 as TensorFlow's CPU kernel computes it:
    summed in float32 and rounded once (TensorFlow's values on the cases checked; NumPy has no half GEMM, so
    this is also ~100x faster),
    a fused bias/ReLU then applied to the float16 result, as the unfused float16 ops would."""
    if x.dtype == np.float16 and w.dtype == np.float16:
        out = _conv_kernel(x.astype(np.float32), w.astype(np.float32), strides, padding, dilations,
                           explicit).astype(np.float16)
        if epilogue is not None:
            epilogue(out)
        return out
    return _conv_kernel(x, w, strides, padding, dilations, explicit, epilogue)


def fused_conv_on_onednn(x, w, bias, strides, padding, dilations, explicit=None, activation=None):
    """_FusedConv2D (optimize/fusion.py) on oneDNN, the bias and ReLU as the primitive's post-ops; None where
    oneDNN does not run it (then the NumPy kernel with its epilogue does)."""
    if activation not in (None, "relu") or not _dnnl(x, w) or getattr(bias, "dtype", None) != np.float32 \
            or bias.shape != (w.shape[3],) or x.shape[3] != w.shape[2]:
        return None
    _, _, ph, pw = conv_geometry(x.shape, w.shape[0], w.shape[1], strides, padding, explicit, dilations)
    return _on_dnnl(onednn.conv2d, _c(x), _c(w), strides, dilations, (ph, pw), bias=_c(bias),
                    relu=activation == "relu")


_TAP_BLOCK_BYTES = 1 << 20  # output rows summed in one scratch block: it stays in L2 across the taps


def _taps_pay(xshape, c, oh, ow, ph, pw):
    """Whether tap sums beat im2col (measured on 2-core AVX2 machines, bench/bench_conv.py): not for few
    input channels (a K of 1-4 starves each GEMM: 0.4-0.8x), and for many channels only when the dropped
    columns and rows past each output row and image stay under 8% (14x14 and 28x28 images at 128-256
    channels: 0.87-1.06x; 56x56 and up: 1.03-1.13x); 8-100 channels: 1.0-1.5x."""
    if c < 8:
        return False
    hp, wp = xshape[1] + ph[0] + ph[1], xshape[2] + pw[0] + pw[1]
    return c < 128 or oh * ow >= 0.92 * hp * wp


def _conv_taps(blas, xp, w, oh, ow, dilations, epilogue):
    """Stride-1 convolution with no im2col copy: for each block of output rows, one BLAS GEMM per filter
    tap accumulates (beta=1) into a scratch block. Flattening the padded batch's rows makes each tap's
    input a contiguous [rows, C] slice: output pixel p of virtual row width Wp reads input pixel
    p + i*dh*Wp + j*dw. The Wp - OW columns past each row's end, and the Hp - OH rows past each image's
    end (small images share one GEMM), are computed and dropped."""
    n, hp, wp, c = xp.shape
    kh, kw, _, o = w.shape
    dh, dw = dilations
    xf = np.ascontiguousarray(xp).reshape(n * hp * wp, c)
    offsets = [i * dh * wp + j * dw for i in range(kh) for j in range(kw)]
    taps = [np.ascontiguousarray(w[i, j]) for i in range(kh) for j in range(kw)]
    total = (n - 1) * hp + oh  # virtual output rows: image b's row r is virtual row b * hp + r
    rows = max(1, min(total, _TAP_BLOCK_BYTES // (wp * o * xp.itemsize)))
    out = np.empty((n, oh, ow, o), dtype=xp.dtype)
    scratch = np.empty((rows * wp, o), dtype=xp.dtype)
    for r0 in range(0, total, rows):
        r1 = min(total, r0 + rows)
        blas.shifted_gemm_sum(xf, [r0 * wp + off for off in offsets], taps, scratch[:(r1 - r0 - 1) * wp + ow])
        block = scratch[:(r1 - r0) * wp].reshape(r1 - r0, wp, o)
        # Images wholly in the block: one copy (and one epilogue call) for all of them.
        f0, f1 = -(-r0 // hp), (r1 - oh) // hp + 1 if r1 >= oh else 0
        if f1 - f0 > 1:
            sr, sc, se = block.strides
            whole = as_strided(block[f0 * hp - r0:], (f1 - f0, oh, ow, o), (hp * sr, sr, sc, se), writeable=False)
            dst = out[f0:f1]
            dst[...] = whole
            if epilogue is not None:
                epilogue(dst)
        else:
            f0 = f1 = -1
        for b in range(r0 // hp, (r1 - 1) // hp + 1):
            lo, hi = max(r0, b * hp), min(r1, b * hp + oh)  # this image's valid rows in the block
            if lo < hi and not f0 <= b < f1:
                dst = out[b, lo - b * hp:hi - b * hp]
                dst[...] = block[lo - r0:hi - r0, :ow]
                if epilogue is not None:
                    epilogue(dst)
    return out


def _conv_backprop_input_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d(conv)/d(input); `x` only supplies the input shape. A stride-1 gradient of a large image is the full
    correlation of dy with the flipped, transposed filter (tap sums over dy padded by the filter's extent).
    Otherwise (strides, small images, few input channels) one GEMM per filter tap, dy @ w[i, j].T, is
    added into the input's positions that tap reads: the tap sums compute the padding ring too, which
    on small images costs more than the adds (2-core AVX2 machines, one BLAS thread, CPU ms, per-tap
    against tap sums: MNIST convnet's 128x13x13x32 <- 64 6.4 vs 11.0; 16x14x14x128 8.3 vs 12.7;
    64x28x28x3 <- 32 3.6 vs 4.8; strided 32x28x28x32 2.8 vs 3.1 (the blocked col2im it replaced);
    but 32x28x28x64 24.3 vs 22.3 and 8x56x56x64 5x5 64.9 vs 59.6)."""
    kh, kw, c, o = w.shape
    n, h, wd, _ = x.shape
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    # (one input channel: oneDNN's kernel runs 0.4x NumPy's per-tap GEMMs, bench/bench_conv.py --onednn)
    if c > 1 and _dnnl(w, dy) and n and h and wd:
        dx = _on_dnnl(onednn.conv2d_backprop_input, x.shape, _c(w), _c(dy), strides, dilations, (ph, pw))
        if dx is not None:
            return dx
    dh, dw = dilations
    if strides == (1, 1) and c >= 8 and h * wd >= 576:
        eh, ew = (kh - 1) * dh, (kw - 1) * dw
        wf = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
        full = _conv_kernel(dy, wf, (1, 1), "EXPLICIT", dilations, ((eh, eh), (ew, ew)))
        return np.ascontiguousarray(full[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd])
    dxp = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dtype=dy.dtype)
    if not (n and oh and ow and c):
        return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd].copy()
    sh, sw = strides
    d2 = dy.reshape(-1, o)
    tmp = np.empty((n * oh * ow, c), dtype=dy.dtype)
    t4 = tmp.reshape(n, oh, ow, c)
    for i in range(kh):
        top = i * dh
        for j in range(kw):
            left = j * dw
            np.matmul(d2, w[i, j].T, out=tmp)
            dxp[:, top:top + (oh - 1) * sh + 1:sh, left:left + (ow - 1) * sw + 1:sw] += t4
    if ph == (0, 0) and pw == (0, 0):
        return dxp
    return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd].copy()


_DW_BLOCK_BYTES = 16 << 20  # one tap's input copy per block of images in the filter gradient


def _conv_backprop_filter_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d(conv)/d(filter); `w` only supplies the filter shape. One GEMM per filter tap, the inputs that tap
    reads (copied into one reused buffer, per block of images) transposed against dy: the same copy as an
    im2col matrix, but each piece a plain contiguous [P, C] one (2-core AVX2 machines, one BLAS thread, CPU
    ms, against blocked im2col + one GEMM: MNIST convnet's 128x13x13x32 -> 64 6.9 vs 10.0, 128x28x28x1 -> 32
    1.5 vs 2.2, 16x14x14x128 9.0 vs 9.8; 28x28 and 56x56 images with 64 channels within 3%)."""
    kh, kw, c, o = w.shape
    n = x.shape[0]
    oh, ow, ph, pw = conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    if _dnnl(x, dy) and w.size:
        dw = _on_dnnl(onednn.conv2d_backprop_filter, _c(x), w.shape, _c(dy), strides, dilations, (ph, pw))
        if dw is not None:
            return dw
    dt = np.result_type(x, dy)
    out = np.zeros((kh, kw, c, o), dtype=dt)
    if not (n and oh and ow and c and o):
        return out
    xp = _pad_input(x, ph, pw)
    sh, sw = strides
    dh, dw = dilations
    per = max(1, min(n, _DW_BLOCK_BYTES // max(1, oh * ow * c * x.itemsize)))
    buf = np.empty((per, oh, ow, c), dtype=x.dtype)
    part = np.empty((c, o), dtype=dt) if per < n else None
    for n0 in range(0, n, per):
        n1 = min(n, n0 + per)
        b = buf[:n1 - n0]
        d2 = dy[n0:n1].reshape(-1, o)
        for i in range(kh):
            for j in range(kw):
                b[...] = xp[n0:n1, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
                if n0 == 0:
                    np.matmul(b.reshape(-1, c).T, d2, out=out[i, j])
                else:
                    np.matmul(b.reshape(-1, c).T, d2, out=part)
                    out[i, j] += part
    return out


def _conv_grad(op, dy):
    x, w = op.inputs
    return (bind(CONV_BACKPROP_INPUT, (x, w, dy), op.attrs), bind(CONV_BACKPROP_FILTER, (x, w, dy), op.attrs))


def _backprop_input_grad(op, g):
    x, w, dy = op.inputs
    return None, bind(CONV_BACKPROP_FILTER, (g, w, dy), op.attrs), bind(CONV2D, (g, w), op.attrs)


def _backprop_filter_grad(op, g):
    x, w, dy = op.inputs
    return bind(CONV_BACKPROP_INPUT, (x, g, dy), op.attrs), None, bind(CONV2D, (x, g), op.attrs)


def _conv_size(x, w, strides=(1, 1), *_, **__):
    """A convolution's multiply-adds, about (SAME's output size): when small, it runs on one BLAS thread."""
    return x.size * w.shape[0] * w.shape[1] * w.shape[3] // max(1, strides[0] * strides[1])


CONV2D = defop("Conv2D", blas_threads.sized(conv2d_kernel, _conv_size), _conv_infer, grad=_conv_grad, same=2,
               allowed=_CONV_TYPES)
CONV_BACKPROP_INPUT = defop("Conv2DBackpropInput", _conv_backprop_input_kernel,
                            lambda x, w, dy, **a: (x.shape, dy.dtype), grad=_backprop_input_grad)
CONV_BACKPROP_FILTER = defop("Conv2DBackpropFilter", _conv_backprop_filter_kernel,
                             lambda x, w, dy, **a: (w.shape, dy.dtype), grad=_backprop_filter_grad)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    if data_format not in ("NHWC", None):
        raise _arg_error(f"rivulet's Conv2D supports only the NHWC data format (as TensorFlow on CPU); got "
                         f"{data_format}")
    x, w = binary_args(input, filters)
    pad, explicit = _padding_attr(padding)
    attrs = {"strides": _pair(strides, "strides"), "padding": pad,
             "dilations": _pair(1 if dilations is None else dilations, "dilations")}
    if explicit is not None:
        attrs["explicit"] = explicit
    try:
        _conv_infer(x, w, **attrs)
    except ValueError as e:
        raise _arg_error(str(e)) from None
    return bind(CONV2D, (x, w), attrs, name=name or "Conv2D")


# ============================================================================ pooling
def _pool_infer(x, ksize, strides, padding):
    xs = x.shape
    if xs.rank is None:
        return TensorShape([None] * 4), x.dtype
    if xs.rank != 4:
        raise ValueError(f"input must be 4-dimensional{_fmt(xs)}")
    oh, ow, _, _ = conv_geometry(xs, ksize[0], ksize[1], strides, padding, None, (1, 1))
    return TensorShape([xs[0], oh, ow, xs[3]]), x.dtype


def _pool_geom(h, w, ksize, strides, padding):
    """(oh, ow, pads, sl) where sl(a, i, j) views the inputs at window offset (i, j) of every output."""
    oh, ow, ph, pw = conv_geometry((None, h, w), ksize[0], ksize[1], strides, padding, None, (1, 1))
    sh, sw = strides

    def sl(a, i, j):
        return a[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]

    return oh, ow, (ph, pw), sl


def _offsets(ksize):
    return [(i, j) for i in range(ksize[0]) for j in range(ksize[1])]


def _lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _max_pool_kernel(x, ksize, strides, padding):
    _, _, (ph, pw), sl = _pool_geom(x.shape[1], x.shape[2], ksize, strides, padding)
    if _dnnl(x):  # (a NaN input: oneDNN skips it, a window of NaNs gives the lowest float, as TensorFlow's
        # kernel; NumPy's maximum below keeps the NaN)
        out = _on_dnnl(onednn.max_pool, _c(x), ksize, strides, (ph, pw))
        if out is not None:
            return out
    xp = _pad_input(x, ph, pw, _lowest(x.dtype))
    out = sl(xp, 0, 0).copy()
    for i, j in _offsets(ksize)[1:]:
        np.maximum(out, sl(xp, i, j), out=out)
    return out


def _avg_divisor(h, w, ksize, strides, padding):
    """Window sizes: SAME windows average only the real (unpadded) inputs they cover ([OH, OW, 1])."""
    if padding == "VALID":
        return ksize[0] * ksize[1]
    _, _, (ph, pw), sl = _pool_geom(h, w, ksize, strides, padding)
    ones = _pad_input(np.ones((1, h, w, 1), np.float32), ph, pw)
    return sum(sl(ones, i, j) for i, j in _offsets(ksize))[0]


def _avg_pool_kernel(x, ksize, strides, padding):
    _, _, (ph, pw), sl = _pool_geom(x.shape[1], x.shape[2], ksize, strides, padding)
    if _dnnl(x):
        out = _on_dnnl(onednn.avg_pool, _c(x), ksize, strides, (ph, pw))
        if out is not None:
            return out
    xp = _pad_input(x, ph, pw)
    acc = sl(xp, 0, 0).astype(np.result_type(x.dtype, np.float32))
    for i, j in _offsets(ksize)[1:]:
        acc += sl(xp, i, j)
    acc /= _avg_divisor(x.shape[1], x.shape[2], ksize, strides, padding)
    return acc.astype(x.dtype, copy=False)


def _split_windows(a, oh, kh, ow, kw):
    """View [N, OH, KH, OW*KW*C] of a[:, :oh*kh, :ow*kw] (non-overlapping windows, each image row of them
    one contiguous run; no copy)."""
    v = a[:, :oh * kh, :ow * kw].view()
    v.shape = (a.shape[0], oh, kh, ow * kw * a.shape[3])  # raises rather than copy
    return v


def _widen(t, kw):
    """[N, OH, OW, C] -> [N, OH, 1, OW*KW*C]: each value repeated across its window's KW columns, so that
    elementwise ops against _split_windows run over long contiguous rows (a [.., KW, C] broadcast runs
    NumPy's inner loop over C only: 3-5x slower)."""
    n, oh, ow, c = t.shape
    return np.repeat(t, kw, axis=2).reshape(n, oh, 1, ow * kw * c)


def _select(hit, g, out):
    """out = g where hit, +0 elsewhere, bit for bit (NaN, inf and -0 included): a multiply of the bits by the
    mask, as unsigned integers. (NumPy's masked `where`s run 10-20x slower than a multiply, and a float
    multiply would spread 0 * inf = NaN and write -0 for negative g.)"""
    if g.dtype.kind == "f":
        u = np.dtype(f"u{g.dtype.itemsize}")
        g, out = g.view(u), out.view(u)
    np.multiply(hit, g, out=out)


def _relu_mask_windows(dx, x, y, ksize, strides, oh, ow):
    """dx *= (x > 0) in place, for dx a max-pool gradient (+0 wherever no window routed a gradient). Where the
    windows tile the whole input (ksize == strides, no padding, no uncovered rows or columns), each window's
    mask is its pooled y > 0: dx is +0 off each window's chosen element, where any mask leaves it +0, and
    that element equals y. So the mask is built on the pooled tensor and widened over each window's rows:
    the pass reads dx alone instead of dx and x (the MNIST convnet's 128x26x26x32 gradient, CPU ms on one
    thread, median of 150: 0.93 -> 0.89; where rows or columns are left over, as its 11x11 one, the x > 0
    pass was the faster)."""
    kh, kw = ksize
    if (kh, kw) != tuple(strides) or oh * kh != x.shape[1] or ow * kw != x.shape[2] or not dx.size:
        np.multiply(dx, x > 0, out=dx)
        return
    rows = _split_windows(dx, oh, kh, ow, kw)
    np.multiply(rows, _widen(np.greater(y, 0).astype(dx.dtype), kw), out=rows)


def _max_pool_grad_kernel(x, y, dy, ksize, strides, padding, relu=False):
    """Each window's gradient goes to its first maximum in row-major order, as TensorFlow's CPU kernel (its
    `+=` into zeros: a -0 gradient lands as +0). Non-overlapping windows (ksize == strides: each input in at
    most one window) are one reshape: one comparison of the inputs with their window's maximum, the later
    hits of each window cleared tap by tap on the [N, OH, OW, C] boolean planes, then 0 + dy written once
    where the first hits are. Overlapping windows add it tap by tap, in the tap order, so sums round as
    they always did. `relu=True` is the fused gradient of a pool whose input is a Relu's output,
    ReluGrad(MaxPoolGrad(x, y, dy), x): a first hit holds its window's maximum, so for non-overlapping
    windows the ReLU mask is y > 0 and applies to dy on the pooled (4x smaller) tensor before the scatter."""
    n, h, w, c = x.shape
    kh, kw = ksize
    oh, ow, (ph, pw), sl = _pool_geom(h, w, ksize, strides, padding)
    low = y.min() if y.size and y.dtype.kind == "f" else None  # (NaN if any NaN: one pass for both tests)
    if kh <= strides[0] and kw <= strides[1] and _dnnl(x, y, dy) and not np.isnan(low):
        # Windows that do not overlap (overlapping ones sum into an input in another order than TensorFlow's)
        # and no NaN (oneDNN's windows skip it; TensorFlow's route nothing): oneDNN adds each window's
        # gradient into zeros at its first maximum, as TensorFlow's kernel.
        dx = _on_dnnl(onednn.max_pool_grad, _c(x), _c(dy), ksize, strides, (ph, pw), y=y)
        if dx is not None:
            if relu:  # ReluGrad's dy * (x > 0), as TensorFlow (a masked negative gradient is -0). (Masking dy
                # on the pooled tensor instead loses those -0s to oneDNN's scatter, and putting them back by
                # index costs more than this pass: 8-25% of the convnet's windows are such.) oneDNN's ReLU
                # backward in place, one pass (the MNIST convnet's 128x26x26x32, CPU ms on one thread:
                # 0.85 -> 0.51); it lets a NaN feature's gradient through where TensorFlow's mask makes it
                # dy * 0, but oneDNN's pool routes a gradient to a NaN input only from a window of NaNs (its
                # pooled value the lowest float): dx is +0 there either way.
                if low <= np.finfo(y.dtype).min or _on_dnnl(onednn.relu_grad, dx, _c(x), out=dx) is None:
                    _relu_mask_windows(dx, x, y, ksize, strides, oh, ow)
            return dx
    xp = _pad_input(x, ph, pw, _lowest(x.dtype))
    offsets = _offsets(ksize)
    if (kh, kw) == tuple(strides) and oh and ow:
        hit = _split_windows(np.ascontiguousarray(xp), oh, kh, ow, kw) == _widen(y, kw)
        if len(offsets) > 1:
            h6 = hit.reshape(n, oh, kh, ow, kw, c)
            taken = h6[:, :, 0, :, 0].copy()
            free = np.empty_like(taken)
            for k, (i, j) in enumerate(offsets[1:], 2):
                t = h6[:, :, i, :, j]
                np.logical_not(taken, out=free)
                np.logical_and(t, free, out=t)
                if k < len(offsets):
                    np.logical_or(taken, t, out=taken)
        g = np.add(dy, 0, dtype=dy.dtype)  # 0 + dy, as TensorFlow's += into zeros (-0 -> +0)
        if relu:
            np.multiply(g, y > 0, out=g)  # ReluGrad's dy * mask (a masked-off NaN stays NaN)
            relu = False
        whole = oh * kh == xp.shape[1] and ow * kw == xp.shape[2]
        dxp = (np.empty if whole else np.zeros)(xp.shape, dy.dtype)
        _select(hit, _widen(g, kw), _split_windows(dxp, oh, kh, ow, kw))
    else:
        dxp = np.zeros(xp.shape, dy.dtype)
        taken = np.zeros(y.shape, bool)
        hit = np.empty(y.shape, bool)
        tmp = np.empty(y.shape, dy.dtype)
        for i, j in offsets:
            np.equal(sl(xp, i, j), y, out=hit)
            hit &= ~taken
            taken |= hit
            _select(hit, dy, tmp)
            sl(dxp, i, j)[...] += tmp
    dx = dxp if ph == (0, 0) and pw == (0, 0) else dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w].copy()
    if relu:  # overlapping windows: the ReLU mask on the summed gradient
        np.multiply(dx, x > 0, out=dx)
    return dx


def _avg_pool_grad_kernel(x, dy, ksize, strides, padding):
    n, h, w, c = x.shape
    _, _, (ph, pw), sl = _pool_geom(h, w, ksize, strides, padding)
    if _dnnl(x, dy):
        dx = _on_dnnl(onednn.avg_pool_grad, x.shape, _c(dy), ksize, strides, (ph, pw))
        if dx is not None:
            return dx
    dxp = np.zeros((n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), dy.dtype)
    g = (dy / _avg_divisor(h, w, ksize, strides, padding)).astype(dy.dtype, copy=False)
    for i, j in _offsets(ksize):
        sl(dxp, i, j)[...] += g
    return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w].copy()


MAX_POOL_GRAD = defop("MaxPoolGrad", _max_pool_grad_kernel, lambda x, y, dy, **a: (x.shape, x.dtype))
AVG_POOL_GRAD = defop("AvgPoolGrad", _avg_pool_grad_kernel, lambda x, dy, **a: (x.shape, dy.dtype),
                      grad=lambda op, g: (None, bind(AVG_POOL, (g,), op.attrs)))
MAX_POOL = defop("MaxPool", _max_pool_kernel, _pool_infer, allowed=REAL,
                 grad=lambda op, dy: (bind(MAX_POOL_GRAD, (op.inputs[0], op.outputs[0], dy), op.attrs),))
AVG_POOL = defop("AvgPool", _avg_pool_kernel, _pool_infer, allowed=FLOATS,
                 grad=lambda op, dy: (bind(AVG_POOL_GRAD, (op.inputs[0], dy), op.attrs),))


def _pool(op, default):
    def f(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
        if data_format not in ("NHWC", None):
            raise _arg_error(f"rivulet's pooling supports only the NHWC data format; got {data_format}")
        x = to_tensor(input)
        if padding not in ("SAME", "VALID"):
            raise _arg_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                             f"\"SAME\", \"VALID\"")
        attrs = {"ksize": _pair(ksize, "ksize"), "strides": _pair(strides, "strides"), "padding": padding}
        try:
            _pool_infer(x, **attrs)
        except ValueError as e:
            raise _arg_error(str(e)) from None
        return bind(op, (x,), attrs, name=name or default)
    f.__name__ = default
    return f


max_pool2d = _pool(MAX_POOL, "MaxPool2d")
avg_pool2d = _pool(AVG_POOL, "AvgPool2D")


# ============================================================================ losses and normalisation
def _l2_loss_kernel(t):
    return (np.sum(np.square(_f32(t)), dtype=_f32(t).dtype) / 2).astype(t.dtype)


L2_LOSS = defop("L2Loss", _l2_loss_kernel, lambda t: (TensorShape(()), t.dtype), allowed=FLOATS,
                grad=lambda op, dy: (_m.multiply(op.inputs[0], dy),))


def l2_loss(t, name=None):
    return bind(L2_LOSS, (to_tensor(t),), name=name or "L2Loss")


def _l2n_kernel(x, axis, epsilon):
    sq = np.sum(x * x, axis=axis, keepdims=True, dtype=x.dtype)
    return x / np.sqrt(np.maximum(sq, x.dtype.type(epsilon)))


def _l2n_grad_kernel(x, dy, axis, epsilon):
    sq = np.sum(x * x, axis=axis, keepdims=True, dtype=x.dtype)
    norm = np.sqrt(np.maximum(sq, x.dtype.type(epsilon)))
    y = x / norm
    # Where the norm was clamped to sqrt(epsilon) it is a constant: only the direct term remains.
    proj = np.where(sq > epsilon, np.sum(dy * y, axis=axis, keepdims=True, dtype=x.dtype), 0)
    return (dy - y * proj) / norm


L2N_GRAD = defop("L2NormalizeGrad", _l2n_grad_kernel, lambda x, dy, **a: (x.shape, x.dtype))
L2N = defop("L2Normalize", _l2n_kernel, same_shape, allowed=FLOATS,
            grad=lambda op, dy: (bind(L2N_GRAD, (op.inputs[0], dy), op.attrs),))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"Cannot convert {epsilon!r} to EagerTensor of dtype {x.dtype.name}")
    axis = dim if axis is None else axis
    return bind(L2N, (x,), {"axis": _m.reduction_axes(x, axis), "epsilon": float(epsilon)},
                name=name or "l2_normalize")


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance over `axes` (variance about the mean, as tf.nn.moments)."""
    x = to_tensor(x)
    y = _m.cast(x, _dt.float32) if x.dtype is _dt.float16 else x
    mean = _m.reduce_mean(y, axes, keepdims=True)
    d = _m.subtract(y, mean)
    variance = _m.reduce_mean(_m.multiply(d, d), axes, keepdims=True)
    if not keepdims:
        mean = _squeeze_reduced(mean, y, axes)
        variance = _squeeze_reduced(variance, y, axes)
    if x.dtype is _dt.float16:
        mean, variance = _m.cast(mean, x.dtype), _m.cast(variance, x.dtype)
    return mean, variance


def _squeeze_reduced(t, x, axes):
    # Summing over axes already reduced to 1 only drops them: reuse the reduction's shape rule.
    return _m.reduce_sum(t, _m.reduction_axes(x, axes))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """x * scale / sqrt(variance + epsilon) + (offset - mean * scale / sqrt(variance + epsilon))."""
    x = to_tensor(x)
    inv = _m.pow(_m.add(variance, variance_epsilon), -0.5)
    if scale is not None:
        inv = _m.multiply(inv, scale)
    shift = _m.negative(_m.multiply(mean, inv))
    if offset is not None:
        shift = _m.add(shift, offset)
    return _m.add(_m.multiply(x, _m.cast(inv, x.dtype)), _m.cast(shift, x.dtype), name=name)


# ============================================================================ dropout
def _noise_shape(xshape, noise_shape):
    return xshape if noise_shape is None else tuple(xshape[i] if d is None else d for i, d in enumerate(noise_shape))


def _dropout_kernel(x, rate, seed, seed2, noise_shape=None, stream=None):
    from .random_ops import uniform_at_least
    # TensorFlow draws the mask with a RandomUniform kernel (eagerly the one tf.random.uniform uses): keep where
    # the uniform >= rate (decided from the random words' bits, no floats made).
    kernel = ("RandomUniform", x.dtype, seed, seed2) if stream is None else stream
    keep = uniform_at_least(kernel, seed, seed2, _noise_shape(x.shape, noise_shape), x.dtype, rate)
    scale = x.dtype.type(1 / (1 - rate))
    if np.isfinite(scale):  # keep * scale: scale where kept, +0 elsewhere (np.where on two scalars ran 30x
        mask = np.multiply(keep, scale, dtype=x.dtype)  # slower than this multiply)
    else:  # (a float16 scale past its range: inf * 0 would be NaN)
        mask = np.where(keep, scale, x.dtype.type(0))
    return x * mask, mask


def _dropout_infer(x, rate, seed, seed2, noise_shape=None, stream=None):
    ns = UNKNOWN if x.shape.rank is None and noise_shape is None else TensorShape(
        _noise_shape(tuple(x.shape) if x.shape.rank is not None else (None,) * len(noise_shape), noise_shape))
    return [(x.shape, x.dtype), (ns, x.dtype)]


# Outputs (x * mask, mask) with mask = keep / (1 - rate) in the noise shape: the gradient is dy * mask.
DROPOUT = defop("Dropout", _dropout_kernel, _dropout_infer, num_outputs=2, stateful=True, allowed=FLOATS,
                grad=lambda op, dy, dmask=None: (_m.multiply(dy, op.outputs[1]),))


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    from .random_ops import op_seeds, stream_attr
    x = to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype}")
    r = static_value(rate) if isinstance(rate, Tensor) else rate
    if r is None:
        raise NotImplementedError("tf.nn.dropout needs a rate known when the graph is built")
    r = float(r)
    if not 0 <= r < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    if r == 0:
        return x
    seed1, seed2 = op_seeds(seed)
    attrs = {"rate": r, "seed": seed1, "seed2": seed2, "stream": stream_attr()}
    if noise_shape is not None:
        ns = static_value(noise_shape) if isinstance(noise_shape, Tensor) else noise_shape
        attrs["noise_shape"] = tuple(None if d is None else int(d) for d in ns)
    return bind(DROPOUT, (x,), attrs, name=name or "dropout")[0]


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of `params` at `ids` (any rank): gather on axis 0, so the result is ids.shape + params.shape[1:].

    With `max_norm`, each looked-up row whose L2 norm exceeds it is scaled down to that norm. A list holding
    one tensor is accepted as that tensor; sharded (several-tensor) params are not supported."""
    from .array_ops import gather
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("tf.nn.embedding_lookup: params given as several shards is not supported.")
        params = params[0]
    out = gather(to_tensor(params), ids, name=name or "embedding_lookup")
    if max_norm is not None:
        rank = out.shape.rank
        if rank is None:
            raise NotImplementedError("tf.nn.embedding_lookup with max_norm needs a known rank.")
        ids_rank = to_tensor(ids).shape.rank
        axes = list(range(ids_rank, rank)) if ids_rank is not None and rank > ids_rank else None
        out = _m.clip_by_norm(out, max_norm, axes=axes)
    return out
