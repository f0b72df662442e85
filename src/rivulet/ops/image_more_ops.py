"""More of tf.image, as TensorFlow's composites: per_image_standardization, psnr, ssim, adjust_gamma, the YUV/YIQ
colour conversions, image_gradients and transpose."""
import numpy as np

from .. import dtypes as _dt
from . import array_ops as _a, math_ops as _m
from ._rules import to_tensor


def per_image_standardization(image, name=None):
    """(image - mean) / max(stddev, 1 / sqrt(pixels)) over each image's last three dimensions, in float32 (any
    input dtype, as TensorFlow casts it)."""
    x = to_tensor(image)
    if x.shape.rank is not None and x.shape.rank < 3:
        raise ValueError(f"'image' (shape {x.shape}) must be at least three-dimensional.")
    x = _m.cast(x, _dt.float32)
    pixels = _m.reduce_prod(_a.shape(x)[-3:])
    mean = _m.reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
    stddev = _m.reduce_std(x, axis=[-1, -2, -3], keepdims=True)
    floor = _m.rsqrt(_m.cast(pixels, x.dtype))
    return _m.divide(_m.subtract(x, mean), _m.maximum(stddev, floor), name=name)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio in dB per image (float32): 20 log10(max_val) - 10 log10(MSE); integer images
    and max_val are scaled to [0, 1] first."""
    from .image_ops import convert_image_dtype
    a, b = to_tensor(a), to_tensor(b)
    mv = convert_image_dtype(_m.cast(max_val, a.dtype), _dt.float32)
    a, b = convert_image_dtype(a, _dt.float32), convert_image_dtype(b, _dt.float32)
    mse = _m.reduce_mean(_m.squared_difference(a, b), [-3, -2, -1])
    ln10 = np.log(10.0)
    return _m.subtract(_m.multiply(20.0 / ln10, _m.log(mv)), _m.multiply(10.0 / ln10, _m.log(mse)), name=name)


def _gaussian_kernel(size, sigma, dtype):
    coords = _m.subtract(_m.cast(_a.range(size), dtype), (size - 1) / 2.0)
    g = _m.multiply(_m.square(coords), _m.divide(-0.5, _m.square(sigma)))
    g = _m.add(_a.reshape(g, [1, -1]), _a.reshape(g, [-1, 1]))
    from .nn_ops import softmax
    return _a.reshape(softmax(_a.reshape(g, [1, -1])), [size, size, 1, 1])


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2, return_index_map):
    from .conv_ops import depthwise_conv2d
    sigma = to_tensor(float(filter_sigma), x.dtype)
    channels = x.shape[-1]
    kernel = _a.tile(_gaussian_kernel(int(filter_size), sigma, x.dtype), [1, 1, channels, 1])

    def reducer(v):
        shape = _a.shape(v)
        flat = _a.reshape(v, _a.concat([[-1], shape[-3:]], 0))
        out = depthwise_conv2d(flat, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return _a.reshape(out, _a.concat([shape[:-3], _a.shape(out)[1:]], 0))

    c1 = _m.square(_m.multiply(k1, max_val))
    c2 = _m.square(_m.multiply(k2, max_val))
    mean0, mean1 = reducer(x), reducer(y)
    num0 = _m.multiply(_m.multiply(mean0, mean1), 2.0)
    den0 = _m.add(_m.square(mean0), _m.square(mean1))
    luminance = _m.divide(_m.add(num0, c1), _m.add(den0, c1))
    num1 = _m.multiply(reducer(_m.multiply(x, y)), 2.0)
    den1 = reducer(_m.add(_m.square(x), _m.square(y)))
    cs = _m.divide(_m.add(_m.subtract(num1, num0), c2), _m.add(_m.subtract(den1, den0), c2))
    value = _m.multiply(luminance, cs)
    if not return_index_map:
        value = _m.reduce_mean(value, [-3, -2])
    return value, _m.reduce_mean(cs, [-3, -2])


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity per image (or the per-pixel map): an 11x11 Gaussian (sigma 1.5) window, VALID, the
    channels' mean; images as float32 in [0, 1] when integer."""
    from .image_ops import convert_image_dtype
    x, y = to_tensor(img1), to_tensor(img2)
    if x.shape.rank is not None and y.shape.rank is not None and x.shape.rank >= 3 and y.shape.rank >= 3:
        for d1, d2 in zip(x.shape.as_list()[-3:], y.shape.as_list()[-3:]):
            if d1 is not None and d2 is not None and d1 != d2:
                raise ValueError(f"Shapes {x.shape} and {y.shape} are incompatible")
        for d in x.shape.as_list()[-3:-1]:
            if d is not None and d < filter_size:
                from ..errors import InvalidArgumentError
                raise InvalidArgumentError("img1 has dimension less than filter_size.")
    mv = convert_image_dtype(_m.cast(max_val, x.dtype), _dt.float32)
    x, y = convert_image_dtype(x, _dt.float32), convert_image_dtype(y, _dt.float32)
    per_channel, _ = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2, return_index_map)
    return _m.reduce_mean(per_channel, [-1])


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma on floats in [0, 1] (integer images scaled there and back, saturating)."""
    from .image_ops import convert_image_dtype
    x = to_tensor(image)
    orig = x.dtype
    flt = x if orig in (_dt.float16, _dt.float32) else convert_image_dtype(x, _dt.float32)
    g = _a.identity(gamma) if hasattr(gamma, "dtype") else gamma
    if not hasattr(g, "dtype") and g < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = _m.multiply(gain, _m.pow(flt, _m.cast(g, flt.dtype) if hasattr(g, "dtype") else g))
    return convert_image_dtype(adjusted, orig, saturate=True)


# ---------------------------------------------------------------- colour spaces
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]


def _colour(images, matrix, name):
    x = to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"{name} needs a floating point image, got {x.dtype.name}")
    k = to_tensor(np.asarray(matrix, x.dtype.as_numpy_dtype))
    shape = _a.shape(x)
    flat = _m.matmul(_a.reshape(x, [-1, 3]), k)
    return _a.reshape(flat, shape)


def rgb_to_yuv(images):
    """RGB (floats in [0, 1]) to YUV: Y in [0, 1], U and V in [-0.5, 0.5]."""
    return _colour(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    return _colour(images, _YUV_TO_RGB, "yuv_to_rgb")


def rgb_to_yiq(images):
    """RGB (floats in [0, 1]) to YIQ."""
    return _colour(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    return _colour(images, _YIQ_TO_RGB, "yiq_to_rgb")


# ---------------------------------------------------------------- image_gradients, transpose
def image_gradients(image):
    """(dy, dx): forward differences along height and width of a 4-D batch, 0 in the last row / column."""
    x = to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {x.shape}.")
    shape = _a.shape(x)
    dy = _m.subtract(x[:, 1:, :, :], x[:, :-1, :, :])
    dx = _m.subtract(x[:, :, 1:, :], x[:, :, :-1, :])
    dy = _a.concat([dy, _a.zeros(_a.stack([shape[0], 1, shape[2], shape[3]]), x.dtype)], 1)
    dx = _a.concat([dx, _a.zeros(_a.stack([shape[0], shape[1], 1, shape[3]]), x.dtype)], 2)
    return dy, dx


def transpose(image, name=None):
    """Swaps height and width of a 3-D image or a 4-D batch."""
    x = to_tensor(image)
    rank = x.shape.rank
    if rank == 3:
        return _a.transpose(x, [1, 0, 2], name=name)
    if rank == 4:
        return _a.transpose(x, [0, 2, 1, 3], name=name)
    raise ValueError("'image' must have either 3 or 4 dimensions.")
