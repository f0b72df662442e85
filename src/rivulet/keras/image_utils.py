"""tf.keras.utils.load_img, img_to_array, array_to_img and save_img: PIL images <-> NumPy arrays, as tf_keras does
them (Pillow is the optional `images` extra)."""
import io
import os
import pathlib
import warnings

import numpy as np

from .image_dataset import require_pillow

_CHANNEL_FORMATS = ("channels_first", "channels_last")


def _resample(Image, interpolation):
    methods = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC,
               "hamming": Image.HAMMING, "box": Image.BOX, "lanczos": Image.LANCZOS}
    if interpolation not in methods:
        raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported methods are "
                         f"{', '.join(methods)}")
    return methods[interpolation]


def load_img(path, grayscale=False, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """A PIL image from a file path (or io.BytesIO), converted to `color_mode` and resized to `target_size`
    ((height, width)); `keep_aspect_ratio` crops the centre to the target's aspect ratio first."""
    Image = require_pillow()
    if grayscale:
        warnings.warn("grayscale is deprecated. Please use color_mode = 'grayscale'")
        color_mode = "grayscale"
    if color_mode not in ("grayscale", "rgb", "rgba"):
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if isinstance(path, io.BytesIO):
        img = Image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str, os.PathLike)):
        with open(path, "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif img.mode != color_mode.upper():
        img = img.convert(color_mode.upper())
    if target_size is not None:
        size = (int(target_size[1]), int(target_size[0]))
        if img.size != size:
            resample = _resample(Image, interpolation)
            box = None
            if keep_aspect_ratio:
                width, height = img.size
                crop_h = min(height, (width * size[1]) // size[0])
                crop_w = min(width, (height * size[0]) // size[1])
                top, left = (height - crop_h) // 2, (width - crop_w) // 2
                box = (left, top, left + crop_w, top + crop_h)
            img = img.resize(size, resample, box=box)
    return img


def _data_format(data_format):
    data_format = data_format or "channels_last"
    if data_format not in _CHANNEL_FORMATS:
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image -> a (height, width, channels) array (float32 unless `dtype`)."""
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x.reshape((1,) + x.shape) if data_format == "channels_first" else x.reshape(x.shape + (1,))
    raise ValueError(f"Unsupported image shape: {x.shape}")


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A (height, width, 1|3|4) array -> a PIL image; `scale` stretches the values to [0, 255] first."""
    Image = require_pillow()
    data_format = _data_format(data_format)
    x = np.array(getattr(x, "numpy", lambda: x)(), dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:  # a 32-bit grayscale image (PIL mode "I")
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes an image array to `path` (the format from `file_format` or the file's extension)."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.")
        img = img.convert("RGB")
    img.save(path, format="jpeg" if file_format == "jpg" else file_format, **kwargs)
