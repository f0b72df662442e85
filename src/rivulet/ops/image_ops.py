"""tf.image basics: resize (bilinear, nearest, bicubic, area, with TensorFlow 2's half-pixel centers), flips,
crops and pads, dtype conversion, grayscale, brightness and contrast.

Each resize method is separable: an [out, in] weight matrix per spatial axis, applied to height then width.
Its gradient applies the transposed matrices (one `...Grad` op per method). Everything else composes
existing ops, as TensorFlow's Python does.
"""
import functools

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..shape import TensorShape
from ._rules import to_tensor
from . import array_ops as _a
from . import math_ops as _m
from .linalg_ops import tensordot


# ============================================================================ resize weights
def _keys_cubic(t, a=-0.5):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


@functools.lru_cache(maxsize=256)
def _weights(method, n_in, n_out):
    """[n_out, n_in] float64 interpolation weights along one axis (bicubic or area; bilinear and nearest are
    resize_ops.py's)."""
    w = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    scale = n_in / n_out
    if method == "bicubic":
        # Keys' cubic (a = -0.5) on half-pixel centers, with the fractional offset rounded to 1/1024 (TensorFlow
        # reads its weights from a 1024-entry table); taps outside the image get no weight and the rest are
        # renormalised, as TensorFlow's half-pixel bicubic kernel does.
        src = (rows.astype(np.float32) + np.float32(0.5)) * np.float32(scale) - np.float32(0.5)
        base = np.floor(src).astype(np.int64)
        delta = np.rint((src - base) * 1024) / 1024
        for off in (-1, 0, 1, 2):
            idx = base + off
            k = _keys_cubic(delta - off)
            ok = (idx >= 0) & (idx < n_in)
            np.add.at(w, (rows[ok], idx[ok]), k[ok])
        w /= w.sum(1, keepdims=True)
    elif method == "area":
        # Each output pixel averages the input span [o * scale, (o + 1) * scale) by coverage.
        for o in range(n_out):
            start, end = o * scale, (o + 1) * scale
            for i in range(int(np.floor(start)), min(int(np.ceil(end)), n_in)):
                w[o, i] = (min(end, i + 1) - max(start, i)) / scale
    return w


def _apply(x, wh, ww):
    """[N, H, W, C] -> [N, OH, OW, C] with per-axis weights (float math in x's dtype)."""
    y = np.einsum("oh,nhwc->nowc", wh.astype(x.dtype), x, optimize=True)
    return np.einsum("pw,nowc->nopc", ww.astype(x.dtype), y, optimize=True)


def _resize_kernel(method):
    def k(x, size):
        return _apply(x, _weights(method, x.shape[1], size[0]), _weights(method, x.shape[2], size[1]))
    return k


def _resize_grad_kernel(method):
    def k(dy, x, size):
        if not np.issubdtype(dy.dtype, np.floating):
            dy = dy.astype(np.float32)
        return _apply(dy, _weights(method, x.shape[1], size[0]).T,
                      _weights(method, x.shape[2], size[1]).T).astype(x.dtype, copy=False)
    return k


def _resize_infer(x, size):
    s = x.shape
    if s.rank is not None and s.rank != 4:
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {s}")
    return TensorShape([s[0] if s.rank else None, size[0], size[1], s[3] if s.rank else None]), x.dtype


def _make_resize(method, name):
    grad = defop(name + "Grad", _resize_grad_kernel(method), lambda dy, x, size: (x.shape, x.dtype),
                 grad=lambda op, g: (bind(fwd, (g,), op.attrs), None))
    fwd = defop(name, _resize_kernel(method), _resize_infer, allowed=frozenset([_dt.float32, _dt.float64, _dt.float16]),
                grad=lambda op, dy: (bind(grad, (dy, op.inputs[0]), op.attrs),))
    return fwd


# bilinear and nearest are TensorFlow's ResizeBilinear/ResizeNearestNeighbor (resize_ops.py, shared with the
# SavedModel importer); tf.image.resize uses them with half-pixel centres, as TensorFlow 2 does.
RESIZE_OPS = {m: _make_resize(m, n) for m, n in (("bicubic", "ResizeBicubic"), ("area", "ResizeArea"))}
RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "area")


class ResizeMethod:
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _batched(images, fn):
    """Runs fn on a 4-D batch; a 3-D image gets a batch axis of 1 for the call."""
    x = to_tensor(images, name="images")
    if x.shape.rank not in (3, 4):
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {x.shape}")
    if x.shape.rank == 3:
        return _a.squeeze(fn(_a.expand_dims(x, 0)), [0])
    return fn(x)


def _static_size(size):
    v = np.asarray(getattr(size, "numpy", lambda: size)())
    if v.shape != (2,) or v.dtype.kind not in "iu":
        raise ValueError(f"'size' must be a 1-D int32 Tensor (or list) of 2 elements: new_height, new_width; got "
                         f"{size!r}")
    if (v <= 0).any():
        raise ValueError(f"'size' must be positive, got {v.tolist()}")
    return int(v[0]), int(v[1])


def _resize_op(method, x, nh, nw, name):
    if method in RESIZE_OPS:
        return bind(RESIZE_OPS[method], (x,), {"size": (nh, nw)}, name=name or "resize")
    from . import resize_ops
    return resize_ops.resize(x, [nh, nw], method, align_corners=False, half_pixel_centers=True, name=name or "resize")


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """tf.image.resize: float32 results, except nearest neighbour, which keeps the images' dtype."""
    method = getattr(method, "value", method)
    if method not in RESIZE_METHODS:
        raise ValueError(f"Resize method {method!r} is not supported by rivulet; use one of bilinear, nearest, "
                         f"bicubic, area")
    new_h, new_w = _static_size(size)

    def run(x):
        h, w = x.shape[1], x.shape[2]
        if (h is None or w is None) and preserve_aspect_ratio:
            raise ValueError("rivulet's tf.image.resize needs images of known height and width to preserve the "
                             "aspect ratio")
        nh, nw = new_h, new_w
        if preserve_aspect_ratio:
            scale = min(nh / h, nw / w)
            nh, nw = max(int(round(h * scale)), 1), max(int(round(w * scale)), 1)
        if antialias and method in ("bilinear", "bicubic") and (nh < h or nw < w):
            raise NotImplementedError("rivulet's tf.image.resize has no antialiased downscaling; pass "
                                      "antialias=False or method='area'")
        if method != "nearest" and x.dtype not in (_dt.float32, _dt.float64, _dt.float16):
            x = _m.cast(x, _dt.float32)
        if (nh, nw) == (h, w) and method != "area":
            out = _a.identity(x)
        else:
            out = _resize_op(method, x, nh, nw, name)
        return out if method == "nearest" or out.dtype is _dt.float32 else _m.cast(out, _dt.float32)
    return _batched(images, run)


# ============================================================================ geometry
def flip_left_right(image):
    return _batched(image, lambda x: _a.reverse(x, [2]))


def flip_up_down(image):
    return _batched(image, lambda x: _a.reverse(x, [1]))


def _hw(x):
    h, w = x.shape[1], x.shape[2]
    if h is None or w is None:
        raise ValueError("rivulet's tf.image crops and pads need images of known height and width")
    return h, w


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    def run(x):
        h, w = _hw(x)
        if offset_height < 0 or offset_width < 0:
            raise ValueError("offset_height and offset_width must be >= 0.")
        if target_height <= 0 or target_width <= 0:
            raise ValueError("target_width and target_height must be > 0.")
        if offset_width + target_width > w:
            raise ValueError("width must be >= target + offset.")
        if offset_height + target_height > h:
            raise ValueError("height must be >= target + offset.")
        return _a.slice(x, [0, offset_height, offset_width, 0], [-1, target_height, target_width, -1])
    return _batched(image, run)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    def run(x):
        h, w = _hw(x)
        after_h, after_w = target_height - offset_height - h, target_width - offset_width - w
        if offset_height < 0 or offset_width < 0:
            raise ValueError("offset_height and offset_width must be >= 0")
        if after_w < 0:
            raise ValueError("width must be <= target - offset")
        if after_h < 0:
            raise ValueError("height must be <= target - offset")
        return _a.pad(x, [[0, 0], [offset_height, after_h], [offset_width, after_w], [0, 0]])
    return _batched(image, run)


def central_crop(image, central_fraction):
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return to_tensor(image)

    def run(x):
        h, w = _hw(x)
        top = int((h - h * central_fraction) / 2)
        left = int((w - w * central_fraction) / 2)
        return _a.slice(x, [0, top, left, 0], [-1, h - 2 * top, w - 2 * left, -1])
    return _batched(image, run)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centre-crops and/or zero-pads to the target size (crop offsets round down, as TensorFlow's)."""
    if target_height <= 0 or target_width <= 0:
        raise ValueError("target_height and target_width must be > 0")

    def run(x):
        h, w = _hw(x)
        crop = crop_to_bounding_box(x, max((h - target_height) // 2, 0), max((w - target_width) // 2, 0),
                                    min(target_height, h), min(target_width, w))
        return pad_to_bounding_box(crop, max((target_height - h) // 2, 0), max((target_width - w) // 2, 0),
                                   target_height, target_width)
    return _batched(image, run)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """Resizes keeping the aspect ratio to fit the target, then zero-pads it there: as TensorFlow, the scale,
    the resized size (rounded down) and the top/left padding (half the float32 gap, rounded down) are
    computed in float32."""
    if target_height <= 0:
        raise ValueError("target_height must be > 0.")
    if target_width <= 0:
        raise ValueError("target_width must be > 0.")

    def run(x):
        h, w = _hw(x)
        f = np.float32
        ratio = max(f(w) / f(target_width), f(h) / f(target_height))
        rh, rw = f(h) / ratio, f(w) / ratio
        pad_h = max(0, int(np.floor((f(target_height) - rh) / f(2))))
        pad_w = max(0, int(np.floor((f(target_width) - rw) / f(2))))
        resized = resize(x, [int(np.floor(rh)), int(np.floor(rw))], method=method, antialias=antialias)
        return pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return _batched(image, run)


# ============================================================================ colour and dtype
def _max(dt):
    return np.iinfo(dt._np).max


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Integers span [0, MAX] of their dtype, floats [0, 1]; values are rescaled between the two."""
    x = to_tensor(image)
    dtype = _dt.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer) or not (x.dtype.is_floating or x.dtype.is_integer):
        raise AttributeError(f"dtype {x.dtype.name} or {dtype.name} is not an image dtype (integer or floating)")
    if x.dtype is dtype:
        return _a.identity(x, name=name)
    if x.dtype.is_integer and dtype.is_integer:
        in_max, out_max = _max(x.dtype), _max(dtype)
        if in_max > out_max:
            return _m.cast(_m.floordiv(x, _m.cast((in_max + 1) // (out_max + 1), x.dtype)), dtype)
        return _m.multiply(_m.cast(x, dtype), _m.cast((out_max + 1) // (in_max + 1), dtype))
    if x.dtype.is_floating and dtype.is_floating:
        return _m.cast(x, dtype, name=name)
    if x.dtype.is_integer:
        return _m.multiply(_m.cast(x, dtype), _m.cast(1.0 / _max(x.dtype), dtype), name=name)
    scaled = _m.multiply(x, _m.cast(_max(dtype) + 0.5, x.dtype))  # + 0.5: 1.0 maps to MAX, not MAX + 1
    if saturate:
        scaled = _m.minimum(_m.maximum(scaled, _m.cast(np.iinfo(dtype._np).min, x.dtype)),
                            _m.cast(_max(dtype), x.dtype))
    return _m.cast(scaled, dtype, name=name)


def _as_float(image):
    x = to_tensor(image)
    return x, (x if x.dtype in (_dt.float16, _dt.float32, _dt.float64) else convert_image_dtype(x, _dt.float32))


def rgb_to_grayscale(images, name=None):
    """Luma with ITU-R 601-2 weights; keeps the last axis (size 1) and the input dtype."""
    x, f = _as_float(images)
    if x.shape.rank is not None and x.shape[-1] not in (None, 3):
        raise ValueError(f"Dimensions must be equal, but are {x.shape[-1]} and 3 for the last axis of an RGB image")
    gray = _a.expand_dims(tensordot(f, _m.cast([0.2989, 0.587, 0.114], f.dtype), [[-1], [-1]]), -1)
    return convert_image_dtype(gray, x.dtype, name=name)


def grayscale_to_rgb(images, name=None):
    x = to_tensor(images)
    return _a.concat([x, x, x], -1, name=name or "grayscale_to_rgb")


def adjust_brightness(image, delta):
    x, f = _as_float(image)
    return convert_image_dtype(_m.add(f, _m.cast(delta, f.dtype)), x.dtype, saturate=True)


def _dims_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _adjust_contrast_infer(images, contrast_factor):
    if images.shape.rank is not None and images.shape.rank < 3:
        raise ValueError(f"input must be at least 3-D, got shape{_dims_text(images.shape.as_list())}")
    if contrast_factor.shape.rank not in (None, 0):
        raise ValueError(f"contrast_factor must be scalar: {_dims_text(contrast_factor.shape.as_list())}")
    return images.shape, images.dtype


def _adjust_contrast_kernel(images, contrast_factor):
    from ..errors import InvalidArgumentError
    x, f = np.asarray(images), np.asarray(contrast_factor)
    if x.ndim < 3:
        raise InvalidArgumentError(f"input must be at least 3-D, got shape{_dims_text(x.shape)}")
    if f.ndim:
        raise InvalidArgumentError(f"contrast_factor must be scalar: {_dims_text(f.shape)}")
    xf = x.astype(np.float32, copy=False)
    mean = xf.mean(axis=(-3, -2), keepdims=True, dtype=np.float32)
    return ((xf - mean) * np.float32(f) + mean).astype(x.dtype, copy=False)


# TensorFlow's op, which has no gradient: a tape asking for one raises LookupError, as TensorFlow's does.
ADJUST_CONTRAST = defop("AdjustContrastv2", _adjust_contrast_kernel, _adjust_contrast_infer,
                        allowed=frozenset([_dt.float32, _dt.float16]))


def adjust_contrast(images, contrast_factor):
    """(x - mean) * factor + mean, with the mean per image and channel over height and width: TensorFlow's
    AdjustContrastv2 on float32 (float16 kept), other dtypes converted to float32 and back."""
    x = to_tensor(images)
    f = x if x.dtype in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)
    out = bind(ADJUST_CONTRAST, (f, to_tensor(contrast_factor, dtype=_dt.float32)), name="AdjustContrastv2")
    return convert_image_dtype(out, x.dtype, saturate=True)


# ============================================================================ saturation and HSV
def _rgb_to_hsv_np(rgb):
    """TensorFlow's HSV (hue in [0, 1)): each of r, g, b whose channel holds the maximum, as its kernels."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0).astype(rgb.dtype)
        norm = 1 / (6 * rng)
        h = np.where(r == v, norm * (g - b), np.where(g == v, norm * (b - r) + 2 / 6, norm * (r - g) + 4 / 6))
    h = np.where(rng > 0, h, 0)
    h = np.where(h < 0, h + 1, h).astype(rgb.dtype)
    return h, s, v


def _hsv_to_rgb_np(h, s, v):
    c = s * v
    m = v - c
    dh = h * 6
    sector = np.floor(dh).astype(np.int64)  # TensorFlow truncates; hue is never negative here
    fm = np.mod(dh, 2)
    x = c * (1 - np.abs(fm - 1))
    z = np.zeros_like(c)
    table = [(c, x, z), (x, c, z), (z, c, x), (z, x, c), (x, z, c), (c, z, x)]
    out = []
    for ch in range(3):
        val = z
        for k, t in enumerate(table):
            val = np.where(sector == k, t[ch], val)
        out.append(val + m)
    return np.stack(out, -1).astype(v.dtype)


def _rgb_infer(images, *rest):
    if images.shape.rank is not None and (images.shape.rank < 1 or images.shape[-1] not in (None, 3)):
        raise ValueError(f"input must have 3 channels but input only has {images.shape[-1]} channels")
    return images.shape, images.dtype


def _check_rgb(x):
    from ..errors import InvalidArgumentError
    if x.ndim < 1 or x.shape[-1] != 3:
        raise InvalidArgumentError(f"input must have 3 channels but input only has "
                                   f"{x.shape[-1] if x.ndim else 0} channels")


def _in_hsv(images, amount, what, change):
    """AdjustSaturation's and AdjustHue's kernel: the images' checks, then change(h, s, v, amount) in HSV."""
    from ..errors import InvalidArgumentError
    x, a = np.asarray(images), np.asarray(amount)
    if x.ndim < 3:
        raise InvalidArgumentError(f"input must be at least 3-D, got shape{_dims_text(x.shape)}")
    if a.ndim:
        raise InvalidArgumentError(f"{what} must be scalar: {_dims_text(a.shape)}")
    _check_rgb(x)
    h, s, v = change(*_rgb_to_hsv_np(x.astype(np.float32, copy=False)), np.float32(a))
    return _hsv_to_rgb_np(h, s, v).astype(x.dtype, copy=False)


def _adjust_saturation_kernel(images, scale):
    return _in_hsv(images, scale, "scale", lambda h, s, v, f: (h, np.clip(s * f, 0, 1).astype(np.float32), v))


def _rgb_to_hsv_kernel(images):
    x = np.asarray(images)
    _check_rgb(x)
    return np.stack(_rgb_to_hsv_np(x), -1).astype(x.dtype, copy=False)


def _hsv_to_rgb_kernel(images):
    x = np.asarray(images)
    _check_rgb(x)
    return _hsv_to_rgb_np(x[..., 0], x[..., 1], x[..., 2]).astype(x.dtype, copy=False)


_FLOATS = frozenset([_dt.float16, _dt.float32, _dt.float64])
ADJUST_SATURATION = defop("AdjustSaturation", _adjust_saturation_kernel, _rgb_infer,
                          allowed=frozenset([_dt.float32, _dt.float16]))
RGB_TO_HSV = defop("RGBToHSV", _rgb_to_hsv_kernel, _rgb_infer, allowed=_FLOATS)
HSV_TO_RGB = defop("HSVToRGB", _hsv_to_rgb_kernel, _rgb_infer, allowed=_FLOATS)


def adjust_saturation(image, saturation_factor, name=None):
    """Scales the saturation (HSV) of RGB images by `saturation_factor`, clipped to [0, 1]: TensorFlow's
    AdjustSaturation on float32 (float16 kept), other dtypes converted to float32 and back."""
    x = to_tensor(image)
    f = x if x.dtype in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)
    out = bind(ADJUST_SATURATION, (f, to_tensor(saturation_factor, dtype=_dt.float32)), name=name or "AdjustSaturation")
    return convert_image_dtype(out, x.dtype)


def rgb_to_hsv(images, name=None):
    return bind(RGB_TO_HSV, (to_tensor(images),), name=name or "RGBToHSV")


def hsv_to_rgb(images, name=None):
    return bind(HSV_TO_RGB, (to_tensor(images),), name=name or "HSVToRGB")


# ============================================================================ rotations
def rot90(image, k=1, name=None):
    """Rotates images by 90 degrees counter-clockwise, `k` times (a Python or tensor integer)."""
    x = to_tensor(image, name="image")
    if x.shape.rank not in (3, 4):
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    k = int(np.asarray(getattr(k, "numpy", lambda: k)())) % 4
    ax = 0 if x.shape.rank == 3 else 1
    perm = list(range(x.shape.rank))
    perm[ax], perm[ax + 1] = perm[ax + 1], perm[ax]
    if k == 0:
        return _a.identity(x, name=name)
    if k == 1:
        return _a.transpose(_a.reverse(x, [ax + 1]), perm, name=name or "rot90")
    if k == 2:
        return _a.reverse(x, [ax, ax + 1], name=name)
    return _a.reverse(_a.transpose(x, perm), [ax + 1], name=name)


# ============================================================================ random and stateless random
def _seed_of(seed):
    from .random_ops import _seed_tensor
    return _seed_tensor(seed)


def _uniform_scalar(lo, hi, seed, stateless):
    from . import random_ops
    if stateless:
        return random_ops.stateless_uniform([], seed=seed, minval=lo, maxval=hi)
    return random_ops.uniform([], lo, hi, seed=seed)


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform_scalar(-max_delta, max_delta, seed, False))


def stateless_random_brightness(image, max_delta, seed):
    """adjust_brightness by a delta drawn from [-max_delta, max_delta) with tf.random.stateless_uniform."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform_scalar(-max_delta, max_delta, seed, True))


def _contrast_bounds(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_contrast(image, lower, upper, seed=None):
    _contrast_bounds(lower, upper)
    return adjust_contrast(image, _uniform_scalar(lower, upper, seed, False))


def stateless_random_contrast(image, lower, upper, seed):
    _contrast_bounds(lower, upper)
    return adjust_contrast(image, _uniform_scalar(lower, upper, seed, True))


def random_saturation(image, lower, upper, seed=None):
    _contrast_bounds(lower, upper)
    return adjust_saturation(image, _uniform_scalar(lower, upper, seed, False))


def stateless_random_saturation(image, lower, upper, seed=None):
    _contrast_bounds(lower, upper)
    return adjust_saturation(image, _uniform_scalar(lower, upper, seed, True))


def _crop(value, size, seed, stateless, name):
    from . import random_ops
    from ..errors import InvalidArgumentError
    x = to_tensor(value, name="value")
    size_t = to_tensor(size, dtype=_dt.int32, name="size")
    sizes = np.asarray(getattr(size_t, "numpy", lambda: None)()) if not hasattr(size_t, "op") else None
    shape = _a.shape(x)
    if x.shape.is_fully_defined() and sizes is not None:
        if sizes.shape != (x.shape.rank,):
            raise ValueError(f"Shapes must be equal rank, but are {x.shape.rank} and {sizes.size}")
        if (np.asarray(x.shape.as_list()) < sizes).any():
            raise InvalidArgumentError("Need value.shape >= size, got "
                                       f"[{' '.join(str(d) for d in x.shape.as_list())}] "
                                       f"[{' '.join(str(int(d)) for d in sizes)}]")
    limit = _m.add(_m.subtract(shape, size_t), 1)
    n = x.shape.rank
    if stateless:
        draw = random_ops.stateless_uniform([n], seed=seed, minval=0, maxval=np.iinfo(np.int32).max, dtype=_dt.int32)
    else:
        draw = random_ops.uniform([n], 0, np.iinfo(np.int32).max, dtype=_dt.int32, seed=seed)
    offset = _m.floormod(draw, limit)
    out = _a.slice(x, offset, size_t, name=name)
    return out


def random_crop(value, size, seed=None, name=None):
    """A `size` slice of `value` at a random offset (tf.random.uniform, stateful)."""
    return _crop(value, size, seed, False, name)


def stateless_random_crop(value, size, seed, name=None):
    """A `size` slice of `value` at an offset drawn by tf.random.stateless_uniform from `seed`."""
    return _crop(value, size, seed, True, name)


def _flip(image, axis, seed, stateless):
    from . import random_ops
    x = to_tensor(image, name="image")
    if x.shape.rank not in (3, 4):
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    if x.shape.rank == 3:
        u = (random_ops.stateless_uniform([], seed=seed, minval=0, maxval=1.0) if stateless
             else random_ops.uniform([], 0, 1.0, seed=seed))
        return _a.where(_m.less(u, 0.5), _a.reverse(x, [axis]), x)
    n = x.shape[0]
    if n is not None:
        u = (random_ops.stateless_uniform([n], seed=seed, minval=0, maxval=1.0) if stateless
             else random_ops.uniform([n], 0, 1.0, seed=seed))
    else:  # a batch of unknown size (in a graph): a coin per image, from a seed drawn as the stateful ops draw
        if not stateless:
            seed = random_ops.uniform([2], 0, np.iinfo(np.int32).max, dtype=_dt.int32, seed=seed)
        u = random_ops.stateless_uniform(_a.shape(x)[:1], seed=seed, minval=0, maxval=1.0)
    flips = _m.cast(_a.reshape(_m.round(u), [-1, 1, 1, 1]), x.dtype)
    flipped = _a.reverse(x, [axis + 1])
    return _m.add(_m.multiply(flips, flipped), _m.multiply(_m.subtract(_m.cast(1, x.dtype), flips), x))


def random_flip_left_right(image, seed=None):
    return _flip(image, 1, seed, False)


def random_flip_up_down(image, seed=None):
    return _flip(image, 0, seed, False)


def stateless_random_flip_left_right(image, seed):
    return _flip(image, 1, seed, True)


def stateless_random_flip_up_down(image, seed):
    return _flip(image, 0, seed, True)


def _adjust_hue_kernel(images, delta):
    return _in_hsv(images, delta, "delta", lambda h, s, v, d: (np.mod(h + d, np.float32(1)).astype(np.float32), s, v))


ADJUST_HUE = defop("AdjustHue", _adjust_hue_kernel, _rgb_infer, allowed=frozenset([_dt.float32, _dt.float16]))


def adjust_hue(image, delta, name=None):
    """Rotates the hue (HSV) of RGB images by `delta` (a fraction of the colour circle, in [-1, 1])."""
    if isinstance(delta, (int, float)) and not -1 <= delta <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    x = to_tensor(image)
    f = x if x.dtype in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)
    out = bind(ADJUST_HUE, (f, to_tensor(delta, dtype=_dt.float32)), name=name or "AdjustHue")
    return convert_image_dtype(out, x.dtype)


def random_hue(image, max_delta, seed=None):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform_scalar(-max_delta, max_delta, seed, False))


def stateless_random_hue(image, max_delta, seed):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform_scalar(-max_delta, max_delta, seed, True))


# ============================================================================ saturate_cast (tf.saturate_cast)
def saturate_cast(value, dtype, name=None):
    """`value` cast to `dtype`, clamped first to the range `dtype` can hold (float -> uint8 images:
    data_compression's `tf.saturate_cast(x * 255, tf.uint8)`); a bound the input's dtype rounds past the
    target's range is brought back inside it."""
    x = to_tensor(value, name="value")
    dtype = _dt.as_dtype(dtype)
    if x.dtype.is_complex and not dtype.is_complex:
        x = _m.real(x)
    if x.dtype.is_bool or dtype.is_bool or not (dtype.is_integer or dtype.is_floating):
        return _m.cast(x, dtype, name=name)
    src, dst = x.dtype._np, dtype._np
    info_in = np.iinfo(src) if np.issubdtype(src, np.integer) else np.finfo(src)
    info_out = np.iinfo(dst) if np.issubdtype(dst, np.integer) else np.finfo(dst)
    if info_in.min < info_out.min:
        lo = np.array(info_out.min).astype(src)
        if np.issubdtype(src, np.floating) and float(lo) < info_out.min:  # (compared exactly, not in src)
            lo = np.nextafter(lo, np.array(np.inf, src))
        x = _m.maximum(x, _m.cast(lo, x.dtype))
    if info_in.max > info_out.max:
        hi = np.array(info_out.max).astype(src)
        if np.issubdtype(src, np.floating) and float(hi) > info_out.max:
            hi = np.nextafter(hi, np.array(-np.inf, src))
        x = _m.minimum(x, _m.cast(hi, x.dtype))
    return _m.cast(x, dtype, name=name or "saturate_cast")
