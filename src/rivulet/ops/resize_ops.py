"""Image resizing: ResizeNearestNeighbor and ResizeBilinear (TensorFlow's ops, as Keras' UpSampling2D and
Resizing layers export them), with their gradients.

Both are separable and linear in the image: along each spatial axis the output is a fixed (out x in)
interpolation matrix applied to the input, so the gradient applies the transposed matrices. Sampling
follows TensorFlow's kernels: scale in/out ((in-1)/(out-1) with align_corners), half-pixel centres or the
legacy top-left mapping; nearest picks floor (round with align_corners) of the source coordinate.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import REAL, defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from ._rules import to_tensor
from .array_ops import partial_value


def _scale(n_in, n_out, align_corners):
    if align_corners and n_out > 1:
        return (n_in - 1) / (n_out - 1)
    return n_in / n_out


def _nearest_index(n_in, n_out, align_corners, half_pixel_centers):
    s = np.float32(_scale(n_in, n_out, align_corners))
    pos = (np.arange(n_out, dtype=np.float32) + np.float32(0.5 if half_pixel_centers else 0)) * s
    idx = np.floor(pos + np.float32(0.5)) if align_corners else np.floor(pos)  # roundf: halves away from 0
    return np.clip(idx.astype(np.int64), 0, n_in - 1)


def _bilinear_matrix(n_in, n_out, align_corners, half_pixel_centers, dtype):
    s = np.float32(_scale(n_in, n_out, align_corners))
    i = np.arange(n_out, dtype=np.float32)
    pos = (i + np.float32(0.5)) * s - np.float32(0.5) if half_pixel_centers else i * s
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), n_in - 1).astype(np.int64)
    lerp = (pos - floor).astype(dtype)
    a = np.zeros((n_out, n_in), dtype)
    np.add.at(a, (np.arange(n_out), lower), 1 - lerp)
    np.add.at(a, (np.arange(n_out), upper), lerp)
    return a


def _size(size):
    oh, ow = (int(v) for v in np.asarray(size).reshape(-1)[:2])
    if np.size(size) != 2 or oh <= 0 or ow <= 0:
        raise InvalidArgumentError(f"output dimensions must be positive, got {np.asarray(size).tolist()}")
    return oh, ow


def _check(images):
    if images.ndim != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional{list(images.shape)}")
    if images.shape[1] == 0 or images.shape[2] == 0:
        raise InvalidArgumentError("input image must be of non-zero size")


def _matrices(shape, out, align_corners, half_pixel_centers, dtype):
    return (_bilinear_matrix(shape[1], out[0], align_corners, half_pixel_centers, dtype),
            _bilinear_matrix(shape[2], out[1], align_corners, half_pixel_centers, dtype))


def _nearest_kernel(images, size, align_corners=False, half_pixel_centers=False):
    _check(images)
    oh, ow = _size(size)
    rows = _nearest_index(images.shape[1], oh, align_corners, half_pixel_centers)
    cols = _nearest_index(images.shape[2], ow, align_corners, half_pixel_centers)
    return images[:, rows][:, :, cols]


def _nearest_grad_kernel(dy, size, align_corners=False, half_pixel_centers=False):
    """TensorFlow's ResizeNearestNeighborGrad: `size` is the original image's [height, width]."""
    h, w = _size(size)
    rows = _nearest_index(h, dy.shape[1], align_corners, half_pixel_centers)
    cols = _nearest_index(w, dy.shape[2], align_corners, half_pixel_centers)
    out = np.zeros((dy.shape[0], h, w, dy.shape[3]), dy.dtype)
    np.add.at(out, (slice(None), rows[:, None], cols[None, :]), dy)
    return out


def _bilinear_kernel(images, size, align_corners=False, half_pixel_centers=False):
    _check(images)
    ah, aw = _matrices(images.shape, _size(size), align_corners, half_pixel_centers, np.float32)
    x = images.astype(np.float32, copy=False)
    return np.einsum("pw,nowc->nopc", aw, np.einsum("oh,nhwc->nowc", ah, x, optimize=True), optimize=True)


def _bilinear_grad_kernel(dy, image, align_corners=False, half_pixel_centers=False):
    """TensorFlow's ResizeBilinearGrad: `image` supplies the original shape and dtype."""
    ah, aw = _matrices(image.shape, dy.shape[1:3], align_corners, half_pixel_centers, np.float32)
    g = np.einsum("oh,nopc->nhpc", ah, dy.astype(np.float32, copy=False), optimize=True)
    return np.einsum("pw,nhpc->nhwc", aw, g, optimize=True).astype(image.dtype, copy=False)


def _resize_infer(dtype):
    def infer(images, size, **attrs):
        s = images.shape
        if s.rank is not None and s.rank != 4:
            raise ValueError(f"input must be 4-dimensional{s.as_list()}")
        p = partial_value(size)
        hw = p if isinstance(p, list) and len(p) == 2 else [None, None]
        return (TensorShape([s[0], *hw, s[3]]) if s.rank is not None else TensorShape([None, *hw, None]),
                dtype or images.dtype)
    return infer


def _nearest_grad(op, dy):
    x, _ = op.inputs
    size = x.shape[1:3]
    if not size.is_fully_defined():
        from .array_ops import shape as _shape
        from .slicing import strided_slice
        size = strided_slice(_shape(x), [1], [3])
    else:
        size = to_tensor(np.array(size.as_list(), np.int32))
    return bind(NEAREST_GRAD, (dy, size), op.attrs), None


def _bilinear_grad(op, dy):
    return bind(BILINEAR_GRAD, (dy, op.inputs[0]), op.attrs), None


NEAREST_GRAD = defop("ResizeNearestNeighborGrad", _nearest_grad_kernel,
                     lambda dy, size, **a: (_resize_infer(None)(dy, size)[0], dy.dtype))
BILINEAR_GRAD = defop("ResizeBilinearGrad", _bilinear_grad_kernel, lambda dy, image, **a: (image.shape, image.dtype))
NEAREST = defop("ResizeNearestNeighbor", _nearest_kernel, _resize_infer(None), grad=_nearest_grad, allowed=REAL)
BILINEAR = defop("ResizeBilinear", _bilinear_kernel, _resize_infer(_dt.float32), grad=_bilinear_grad,
                 allowed=REAL)


def resize(images, size, method, align_corners=False, half_pixel_centers=False, name=None):
    """images [N, H, W, C] resized to size [new_height, new_width] by "nearest" or "bilinear" sampling."""
    op = {"nearest": NEAREST, "bilinear": BILINEAR}[method]
    attrs = {"align_corners": bool(align_corners), "half_pixel_centers": bool(half_pixel_centers)}
    return bind(op, (to_tensor(images), to_tensor(size)), attrs, name=name)
