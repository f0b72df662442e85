"""tf.nn.depthwise_conv2d: each input channel convolved with its own `channel_multiplier` filters.

DepthwiseConv2dNative and its two backprop ops (TensorFlow's names), on the same filter-window view and
padding geometry as Conv2D (nn_ops). input [N, H, W, C], filter [KH, KW, C, M] -> [N, OH, OW, C * M].
"""
import numpy as np

from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..shape import TensorShape
from ._rules import binary_args
from . import nn_ops as _nn


def _infer(x, w, strides, padding, dilations, explicit=None):
    xs, ws = x.shape, w.shape
    if xs.rank is not None and xs.rank != 4:
        raise ValueError(f"input must be 4-dimensional{_nn._fmt(xs)}")
    if ws.rank is not None and ws.rank != 4:
        raise ValueError(f"filter must be 4-dimensional: {_nn._fmt(ws)}")
    if xs.rank is None or ws.rank is None:
        return TensorShape([None, None, None, None] if xs.rank is None else [xs[0], None, None, None]), x.dtype
    c, fc, m = xs[3], ws[2], ws[3]
    if c is not None and fc is not None and c != fc:
        raise ValueError(f"input and filter must have the same depth: {c} vs {fc}")
    depth = None if c is None and fc is None or m is None else (c or fc) * m
    if ws[0] is None or ws[1] is None:
        return TensorShape([xs[0], None, None, depth]), x.dtype
    oh, ow, _, _ = _nn._conv_geometry(xs, ws[0], ws[1], strides, padding, explicit, dilations)
    return TensorShape([xs[0], oh, ow, depth]), x.dtype


def _windows(x, w, strides, padding, dilations, explicit):
    kh, kw, c, _ = w.shape
    if x.shape[3] != c:
        raise ValueError(f"input and filter must have the same depth: {x.shape[3]} vs {c}")
    oh, ow, ph, pw = _nn._conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    return _nn._windows(_nn._pad_input(x, ph, pw), oh, ow, kh, kw, strides, dilations), ph, pw


def _kernel(x, w, strides, padding, dilations, explicit=None):
    cols, _, _ = _windows(x, w, strides, padding, dilations, explicit)  # [N, OH, OW, KH, KW, C]
    n, oh, ow = cols.shape[:3]
    out = np.einsum("nhwijc,ijcm->nhwcm", cols, w, optimize=True)
    return out.reshape(n, oh, ow, -1).astype(np.result_type(x, w), copy=False)


def _backprop_filter_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d/d(filter); `w` only supplies the filter's shape."""
    cols, _, _ = _windows(x, w, strides, padding, dilations, explicit)
    kh, kw, c, m = w.shape
    dy5 = dy.reshape(dy.shape[0], dy.shape[1], dy.shape[2], c, m)
    return np.einsum("nhwijc,nhwcm->ijcm", cols, dy5, optimize=True).astype(dy.dtype, copy=False)


def _backprop_input_kernel(x, w, dy, strides, padding, dilations, explicit=None):
    """d/d(input); `x` only supplies the input's shape."""
    kh, kw, c, m = w.shape
    n, h, wd, _ = x.shape
    oh, ow, ph, pw = _nn._conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    dcols = np.einsum("nhwcm,ijcm->nhwijc", dy.reshape(n, oh, ow, c, m), w, optimize=True)
    dxp = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dtype=dy.dtype)
    (sh, sw), (dh, dw) = strides, dilations
    for i in range(kh):
        for j in range(kw):
            dxp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] += dcols[:, :, :, i, j]
    return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd].copy()


def _grad(op, dy):
    x, w = op.inputs
    return bind(BACKPROP_INPUT, (x, w, dy), op.attrs), bind(BACKPROP_FILTER, (x, w, dy), op.attrs)


def _backprop_input_grad(op, g):  # linear in the filter and in dy
    x, w, dy = op.inputs
    return None, bind(BACKPROP_FILTER, (g, w, dy), op.attrs), bind(DEPTHWISE, (g, w), op.attrs)


def _backprop_filter_grad(op, g):  # linear in the input and in dy
    x, w, dy = op.inputs
    return bind(BACKPROP_INPUT, (x, g, dy), op.attrs), None, bind(DEPTHWISE, (x, g), op.attrs)


DEPTHWISE = defop("DepthwiseConv2dNative", _kernel, _infer, grad=_grad, same=2, allowed=FLOATS)
BACKPROP_INPUT = defop("DepthwiseConv2dNativeBackpropInput", _backprop_input_kernel,
                       lambda x, w, dy, **a: (x.shape, dy.dtype), grad=_backprop_input_grad)
BACKPROP_FILTER = defop("DepthwiseConv2dNativeBackpropFilter", _backprop_filter_kernel,
                        lambda x, w, dy, **a: (w.shape, dy.dtype), grad=_backprop_filter_grad)


def attrs(strides, padding, dilations):
    """The op's attrs from TensorFlow's arguments (4-element or 2-element strides and dilations)."""
    pad, explicit = _nn._padding_attr(padding)
    out = {"strides": _nn._pair(strides, "strides"), "padding": pad,
           "dilations": _nn._pair(1 if dilations is None else dilations, "dilations")}
    if explicit is not None:
        out["explicit"] = explicit
    return out


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """tf.nn.depthwise_conv2d (NHWC): output[..., c * M + m] = conv(input[..., c], filter[:, :, c, m])."""
    if data_format not in ("NHWC", None):
        raise _nn._arg_error(f"rivulet's depthwise_conv2d supports only the NHWC data format; got {data_format}")
    x, w = binary_args(input, filter)
    return bind(DEPTHWISE, (x, w), attrs(strides, padding, dilations), name=name or "depthwise")
