"""ImageProjectiveTransformV2/V3: TensorFlow's projective image warp, which Keras' RandomRotation, RandomZoom and
RandomTranslation are built on.

Each output pixel (x, y) of image b reads the input at
    ((a0 x + a1 y + a2) / k, (a3 x + a4 y + a5) / k),  k = a6 x + a7 y + 1
for that image's 8 transform parameters (one row for all images, or one per image). Coordinates outside the
image are mapped by `fill_mode` as TensorFlow's kernel maps them (REFLECT about the edge pixels' outer
borders, WRAP with TensorFlow's period arithmetic, NEAREST clamps, CONSTANT reads `fill_value`), then read by
NEAREST (round half away from zero) or BILINEAR interpolation. As in TensorFlow's CPU kernel every coordinate
and weight is float32 and pixels are read as float32; the result is cast back to the image dtype (integers
truncate toward zero).
"""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from ._rules import to_tensor
from .array_ops import partial_value

F32 = np.float32
FILL_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")
INTERPOLATIONS = ("NEAREST", "BILINEAR")
_IMAGE_DTYPES = frozenset([_dt.uint8, _dt.int32, _dt.int64, _dt.float16, _dt.float32, _dt.float64])


def _trunc_int(v):
    """static_cast<int64> of a float32 array (toward zero)."""
    return np.trunc(v).astype(F32)


def map_coordinates(c, n, fill_mode):
    """TensorFlow's MapCoordinate<fill_mode>: float32 coordinates along an axis of length n."""
    c = np.asarray(c, F32)
    if fill_mode == "CONSTANT":
        return c
    hi = F32(n - 1)
    if fill_mode == "NEAREST":
        return np.clip(c, F32(0), hi)
    out = c.copy()
    low, high = c < 0, c > hi
    if n <= 1:
        out[low | high] = 0
        return np.clip(out, F32(0), hi)
    if fill_mode == "REFLECT":
        sz2 = F32(2 * n)
        v = c[low]
        v = np.where(v < sz2, sz2 * _trunc_int(-v / sz2) + v, v)
        out[low] = np.where(v < -n, v + sz2, -v - F32(1))
        v = c[high]
        v = v - sz2 * _trunc_int(v / sz2)
        out[high] = np.where(v >= n, sz2 - v - F32(1), v)
    else:  # WRAP, with TensorFlow's arithmetic (period n, quotient taken over n - 1)
        sz = F32(n - 1)
        v = c[low]
        out[low] = v + F32(n) * (_trunc_int(-v / sz) + F32(1))
        v = c[high]
        out[high] = v - F32(n) * _trunc_int(v / sz)
    return np.clip(out, F32(0), hi)


def _round_half_away(v):
    r = np.trunc(v)
    return r + np.where(np.abs(v - r) >= F32(0.5), np.sign(v), F32(0))


def _transform_kernel(images, transforms, output_shape, fill_value=None, interpolation="NEAREST",
                      fill_mode="CONSTANT"):
    images = np.asarray(images)
    if images.ndim != 4:
        raise InvalidArgumentError(f"Input images must have rank 4 [got shape {list(images.shape)}]")
    t = np.asarray(transforms, F32)
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, images.shape[0]):
        raise InvalidArgumentError("Input transform should be num_images x 8")
    oshape = np.asarray(output_shape).reshape(-1)
    if oshape.size != 2:
        raise InvalidArgumentError("output shape must be 1-dimensional with 2 elements (new_height, new_width)")
    oh, ow = int(oshape[0]), int(oshape[1])
    if oh <= 0 or ow <= 0:
        raise InvalidArgumentError(f"output dimensions must be positive, got [{oh}, {ow}]")
    b, h, w, ch = images.shape
    # The kernel holds fill_value in the image dtype (static_cast<T>) and reads it back as float.
    with np.errstate(invalid="ignore", over="ignore"):
        fill = F32(np.asarray(0 if fill_value is None else fill_value, F32).reshape(()).astype(images.dtype))
    src = images.astype(F32)
    ys, xs = np.meshgrid(np.arange(oh, dtype=F32), np.arange(ow, dtype=F32), indexing="ij")
    out = np.empty((b, oh, ow, ch), F32)
    for i in range(b):
        a = t[i if t.shape[0] > 1 else 0]
        k = a[6] * xs + a[7] * ys + F32(1)
        with np.errstate(divide="ignore", invalid="ignore"):
            in_x = (a[0] * xs + a[1] * ys + a[2]) / k
            in_y = (a[3] * xs + a[4] * ys + a[5]) / k
        x = map_coordinates(in_x, w, fill_mode)
        y = map_coordinates(in_y, h, fill_mode)
        # the image's pixels as rows, and one row of fill_value read wherever a coordinate is outside (NaN
        # included): one take() per tap instead of a 2-D fancy index and a masked select (3-4x faster)
        rows = np.concatenate([src[i].reshape(h * w, ch), np.full((1, ch), fill, F32)])

        def read(yi, xi):
            ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
            idx = yi.astype(np.int64) * w + xi.astype(np.int64)
            idx[~ok] = h * w
            return rows.take(idx, axis=0)

        with np.errstate(invalid="ignore"):
            if interpolation == "NEAREST":
                res = read(_round_half_away(y), _round_half_away(x))
            else:
                y0, x0 = np.floor(y), np.floor(x)
                y1, x1 = y0 + F32(1), x0 + F32(1)
                wx0, wx1 = (x1 - x)[..., None], (x - x0)[..., None]
                top = wx0 * read(y0, x0) + wx1 * read(y0, x1)
                bottom = wx0 * read(y1, x0) + wx1 * read(y1, x1)
                res = (y1 - y)[..., None] * top + (y - y0)[..., None] * bottom
        out[i] = np.where((k == 0)[..., None], fill, res)
    dt = images.dtype
    if np.issubdtype(dt, np.integer):
        with np.errstate(invalid="ignore"):
            return np.trunc(out).astype(dt)
    return out.astype(dt)


def _transform_infer(images, transforms, output_shape, fill_value=None, interpolation="NEAREST",
                     fill_mode="CONSTANT"):
    s = images.shape
    if s.rank is not None and s.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.rank} for 'images'")
    if transforms.shape.rank is not None and transforms.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {transforms.shape.rank} for 'transforms'")
    p = partial_value(output_shape)
    hw = p if isinstance(p, list) and len(p) == 2 else [None, None]
    return (TensorShape([s[0], *hw, s[3]]) if s.rank is not None else TensorShape([None, *hw, None]),
            images.dtype)


def flat_transforms_to_matrices(transforms):
    """[N, 8] transforms -> [N, 3, 3] matrices (the ninth entry 1)."""
    from . import array_ops as _a
    t = to_tensor(transforms)
    ones = _a.ones_like(t[:, :1])
    return _a.reshape(_a.concat([t, ones], axis=1), [-1, 3, 3])


def matrices_to_flat_transforms(matrices):
    """[N, 3, 3] projective matrices -> [N, 8] transforms, normalised so the ninth entry is 1."""
    from . import array_ops as _a
    m = to_tensor(matrices)
    flat = _a.reshape(m, [-1, 9])
    return (flat / flat[:, 8:9])[:, :8]


def _transform_grad(op, dy):
    """TensorFlow's gradient: the output gradient warped back by the inverse transforms (constant fill 0)."""
    from . import array_ops as _a
    from .linalg_ops import inv
    images, transforms = op.inputs[0], op.inputs[1]
    inverse = matrices_to_flat_transforms(inv(flat_transforms_to_matrices(transforms)))
    size = _a.shape(images)[1:3]
    grad = image_projective_transform_v3(dy, inverse, size, 0.0, interpolation=op.attrs["interpolation"],
                                         fill_mode=op.attrs.get("fill_mode", "CONSTANT"))
    return [grad] + [None] * (len(op.inputs) - 1)


IMAGE_PROJECTIVE_TRANSFORM_V3 = defop("ImageProjectiveTransformV3", _transform_kernel, _transform_infer,
                                      grad=_transform_grad, allowed=_IMAGE_DTYPES)
def _v2_kernel(images, transforms, output_shape, interpolation="NEAREST", fill_mode="CONSTANT"):
    return _transform_kernel(images, transforms, output_shape, None, interpolation, fill_mode)


def _v2_infer(images, transforms, output_shape, interpolation="NEAREST", fill_mode="CONSTANT"):
    return _transform_infer(images, transforms, output_shape, None, interpolation, fill_mode)


IMAGE_PROJECTIVE_TRANSFORM_V2 = defop("ImageProjectiveTransformV2", _v2_kernel, _v2_infer, grad=_transform_grad,
                                      allowed=_IMAGE_DTYPES)


def _as(x, dtype):
    """A tensor as given, or other values (lists, NumPy arrays) converted to `dtype`."""
    return x if isinstance(x, Tensor) else to_tensor(np.asarray(x, dtype.as_numpy_dtype), dtype)


def _check_attrs(interpolation, fill_mode):
    interpolation, fill_mode = str(interpolation).upper(), str(fill_mode).upper()
    if interpolation not in INTERPOLATIONS:
        raise InvalidArgumentError(f"Invalid interpolation {interpolation}; expected one of {list(INTERPOLATIONS)}")
    if fill_mode not in FILL_MODES:
        raise InvalidArgumentError(f"Invalid fill_mode {fill_mode}; expected one of {list(FILL_MODES)}")
    return interpolation, fill_mode


def image_projective_transform_v3(images, transforms, output_shape, fill_value, interpolation,
                                  fill_mode="CONSTANT", name=None):
    """tf.raw_ops.ImageProjectiveTransformV3: images [B, H, W, C], transforms [1 or B, 8] float32,
    output_shape [2] int32, fill_value float32 scalar (CONSTANT mode)."""
    interpolation, fill_mode = _check_attrs(interpolation, fill_mode)
    images = to_tensor(images)
    transforms, output_shape = _as(transforms, _dt.float32), _as(output_shape, _dt.int32)
    fill_value = _as(fill_value, _dt.float32)
    if transforms.dtype != _dt.float32:
        raise InvalidArgumentError(f"transforms must be float32, got {transforms.dtype.name}")
    return bind(IMAGE_PROJECTIVE_TRANSFORM_V3, (images, transforms, output_shape, fill_value),
                {"interpolation": interpolation, "fill_mode": fill_mode}, name=name or "ImageProjectiveTransformV3")


def image_projective_transform_v2(images, transforms, output_shape, interpolation, fill_mode="CONSTANT",
                                  name=None):
    interpolation, fill_mode = _check_attrs(interpolation, fill_mode)
    images = to_tensor(images)
    transforms, output_shape = _as(transforms, _dt.float32), _as(output_shape, _dt.int32)
    return bind(IMAGE_PROJECTIVE_TRANSFORM_V2, (images, transforms, output_shape),
                {"interpolation": interpolation, "fill_mode": fill_mode}, name=name or "ImageProjectiveTransformV2")
