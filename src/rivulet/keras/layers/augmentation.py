"""Image preprocessing and augmentation layers as tf_keras 2.21 has them: Resizing, CenterCrop, RandomCrop,
RandomFlip, RandomTranslation, RandomRotation, RandomZoom, RandomContrast, RandomBrightness, RandomHeight,
RandomWidth (channels_last images, batched [B, H, W, C] or single [H, W, C]).

The random layers augment only in training (`training=True`, their default when called directly, and inside
`fit`); at inference (`predict`, `training=False`) they return their input (cast to the layer's dtype). Their
numbers come as tf_keras draws them: a `tf.random.Generator.from_seed(seed)` per layer (seed given, or drawn
from Python's `random` / `tf.keras.utils.set_random_seed` on first use), `uniform` draws in tf_keras' order,
and `make_seeds()` for the stateless flips and contrast. The affine layers build TensorFlow's 8-parameter
transforms and run ImageProjectiveTransformV3 (`ops/image_transform_ops.py`).
"""
import numpy as np

import rivulet as tf
from rivulet.ops import image_transform_ops, resize_ops

from .. import initializers
from .base import Layer

H_AXIS, W_AXIS = -3, -2
_INTERPOLATIONS = {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"}


def _check_fill_and_interpolation(fill_mode, interpolation):
    if fill_mode not in {"reflect", "wrap", "constant", "nearest"}:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, `constant` and "
                                  f"`nearest` are supported.")
    if interpolation not in {"nearest", "bilinear"}:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Only `nearest` and `bilinear` are "
                                  f"supported.")


def _interpolation(name):
    if name not in _INTERPOLATIONS:
        raise NotImplementedError(f"Value not recognized for `interpolation`: {name}. Supported values are: "
                                  f"{sorted(_INTERPOLATIONS)}")
    return name


def _convert(inputs, dtype=None):
    if isinstance(inputs, dict):
        raise ValueError(f"This layer can only process a tensor representing an image or a batch of images. "
                         f"Received: type(inputs)={type(inputs)}.If you need to pass a dict containing images, "
                         f"labels, and bounding boxes, you should instead use the preprocessing and augmentation "
                         f"layers from `keras_cv.layers`. See docs at https://keras.io/api/keras_cv/layers/")
    x = inputs if isinstance(inputs, tf.Tensor) else tf.convert_to_tensor(inputs)
    if dtype is not None and x.dtype != tf.as_dtype(dtype):
        x = tf.cast(x, dtype)
    return x


def _dims(x):
    """(batch, height, width) of a [B, H, W, C] or [H, W, C] tensor: static ints where known, else tensors."""
    shape = x.shape.as_list()
    dyn = None

    def dim(i):
        nonlocal dyn
        if shape[i] is not None:
            return shape[i]
        if dyn is None:
            dyn = tf.shape(x)
        return dyn[i]
    return (dim(0) if len(shape) == 4 else None), dim(H_AXIS), dim(W_AXIS)


def _shape(*dims):
    """A shape argument: a list when every dim is a Python int, else an int32 tensor."""
    if all(isinstance(d, int) for d in dims):
        return list(dims)
    return tf.stack([tf.cast(d, tf.int32) for d in dims])


def smart_resize(x, size, interpolation="bilinear"):
    """keras.utils.smart_resize: the centred crop with the target's aspect ratio, resized to `size`."""
    th, tw = size
    _, h, w = _dims(x)
    if isinstance(h, int) and isinstance(w, int):
        crop_h = min(h, int(np.float32(w * th) / np.float32(tw)))
        crop_w = min(w, int(np.float32(h * tw) / np.float32(th)))
        top, left = int(np.float32(h - crop_h) / np.float32(2)), int(np.float32(w - crop_w) / np.float32(2))
    else:
        crop_h = tf.minimum(h, tf.cast(tf.cast(w * th, tf.float32) / tw, tf.int32))
        crop_w = tf.minimum(w, tf.cast(tf.cast(h * tw, tf.float32) / th, tf.int32))
        top = tf.cast(tf.cast(h - crop_h, tf.float32) / 2, tf.int32)
        left = tf.cast(tf.cast(w - crop_w, tf.float32) / 2, tf.int32)
    x = x[..., top:top + crop_h, left:left + crop_w, :]
    return tf.image.resize(x, size, method=interpolation)


# ============================================================================ random numbers, as tf_keras draws them
class _RandomLayer(Layer):
    """A layer with tf_keras' stateful RandomGenerator: `tf.random.Generator.from_seed(seed)` made on first use."""

    def __init__(self, seed=None, **kwargs):
        kwargs.pop("force_generator", None)
        rng_type = kwargs.pop("rng_type", None)  # tf_keras' configs say "stateful"; these layers always are
        if rng_type not in (None, "stateful", "stateless", "legacy_stateful"):
            raise ValueError(f'Invalid `rng_type` received. Valid `rng_type` are ["stateless", "stateful", '
                             f'"legacy_stateful"]. Got: {rng_type}')
        super().__init__(**kwargs)
        self.seed = seed
        self._generator = None

    def build(self, input_shape):
        super().build(input_shape)
        self._rng  # tf_keras makes the generator (and draws an unseeded layer's seed) when the layer is built

    @property
    def _rng(self):
        if self._generator is None:
            with tf.init_scope():
                seed = self.seed if self.seed is not None else initializers._new_seed()
                self._generator = tf.random.Generator.from_seed(seed)
        return self._generator

    def get_config(self):
        base = super().get_config()  # the base layer's keys, then (rivulet's base adds them) the arguments
        head = {k: base.pop(k) for k in ("name", "trainable", "dtype", "batch_input_shape") if k in base}
        return {**head, "rng_type": "stateful", **base}

    def _uniform(self, shape, minval=0.0, maxval=None, dtype=tf.float32):
        return self._rng.uniform(shape, minval=minval, maxval=maxval, dtype=dtype)

    def _stateless_seed(self):
        return self._rng.make_seeds()[:, 0]


# ============================================================================ Resizing, CenterCrop, RandomCrop
class Resizing(Layer):
    """Resizes images to (height, width) with `tf.image.resize` (float32 out, except "nearest", which keeps the
    layer's dtype); `crop_to_aspect_ratio` first crops the centre to the target's aspect ratio."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, **kwargs):
        self.height, self.width = height, width
        self.interpolation = interpolation
        self._method = _interpolation(interpolation)
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        super().__init__(**kwargs)

    def call(self, inputs):
        x = _convert(inputs, self.dtype if self.interpolation == "nearest" else tf.float32)
        size = [self.height, self.width]
        if self.crop_to_aspect_ratio:
            out = smart_resize(x, size, self._method)
        else:
            out = tf.image.resize(x, size, method=self._method)
        return tf.cast(out, self.dtype)

    def compute_output_shape(self, input_shape):
        shape = tf.TensorShape(input_shape).as_list()
        shape[H_AXIS], shape[W_AXIS] = self.height, self.width
        return tf.TensorShape(shape)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio}


def _crop_or_resize(x, height, width, start_fn):
    """Crop (height, width) at start_fn(h_diff, w_diff) when the image is at least that large, else
    smart-resize up to it (float32, cast back by the caller)."""
    _, h, w = _dims(x)
    h_diff, w_diff = h - height, w - width
    if isinstance(h, int) and isinstance(w, int):
        if h_diff >= 0 and w_diff >= 0:
            top, left = start_fn(h_diff, w_diff)
            return x[..., top:top + height, left:left + width, :], True
        return smart_resize(x, [height, width]), False

    def crop():
        top, left = start_fn(h_diff, w_diff)
        return x[..., top:top + height, left:left + width, :]
    out = tf.cond(tf.reduce_all(tf.stack([h_diff >= 0, w_diff >= 0])), crop,
                  lambda: tf.cast(smart_resize(x, [height, width]), x.dtype))
    return out, True


class CenterCrop(Layer):
    """Crops the centre (height, width) of images; smaller images are smart-resized up to that size."""

    def __init__(self, height, width, **kwargs):
        self.height, self.width = height, width
        super().__init__(**kwargs)
        self._autocast = False

    def call(self, inputs):
        x = _convert(inputs, self.dtype)

        def start(h_diff, w_diff):
            if isinstance(h_diff, int):
                return int(np.float32(h_diff) / np.float32(2)), int(np.float32(w_diff) / np.float32(2))
            return tf.cast(h_diff / 2, tf.int32), tf.cast(w_diff / 2, tf.int32)
        out, _ = _crop_or_resize(x, self.height, self.width, start)
        return tf.cast(out, self.dtype)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


class RandomCrop(_RandomLayer):
    """Crops a random (height, width) window in training; at inference (or for smaller images) smart-resizes
    to (height, width) instead, as tf_keras does."""

    def __init__(self, height, width, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.height, self.width = height, width
        self._autocast = False

    def call(self, inputs, training=True):
        x = _convert(inputs, self.dtype)
        if not training:
            return tf.cast(smart_resize(x, [self.height, self.width]), self.dtype)

        def start(h_diff, w_diff):
            rands = self._uniform([2], 0, np.iinfo(np.int32).max, tf.int32)
            return rands[0] % (h_diff + 1), rands[1] % (w_diff + 1)
        out, _ = _crop_or_resize(x, self.height, self.width, start)
        return tf.cast(out, self.dtype)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "seed": self.seed}


# ============================================================================ RandomFlip
HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL = "horizontal", "vertical", "horizontal_and_vertical"


class RandomFlip(_RandomLayer):
    """Flips each image left-right and/or up-down with probability 1/2 (tf.image.stateless_random_flip_*)."""

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode
        self.horizontal = mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL)
        self.vertical = mode in (VERTICAL, HORIZONTAL_AND_VERTICAL)

    def _flip(self, x, axis):
        """tf.image's _random_flip with a stateless uniform draw: one coin per image."""
        seed = self._stateless_seed()
        if x.shape.rank == 3:
            coin = tf.random.stateless_uniform([], seed=seed, minval=0, maxval=1.0)
            return tf.cond(coin < 0.5, lambda: tf.reverse(x, [axis]), lambda: x)
        batch = _dims(x)[0]
        coin = tf.random.stateless_uniform(_shape(batch), seed=seed, minval=0, maxval=1.0)
        flips = tf.cast(tf.round(tf.reshape(coin, _shape(batch, 1, 1, 1))), x.dtype)
        return flips * tf.reverse(x, [axis + 1]) + (1 - flips) * x

    def call(self, inputs, training=True):
        x = _convert(inputs, self.dtype)
        if not training:
            return x
        if x.shape.rank is not None and x.shape.rank < 3:
            raise ValueError(f"'image' (shape {x.shape}) must be at least three-dimensional.")
        out = x
        if self.horizontal:
            out = self._flip(out, 1)
        if self.vertical:
            out = self._flip(out, 0)
        return out

    def compute_output_shape(self, input_shape):
        return tf.TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "mode": self.mode, "seed": self.seed}


# ============================================================================ affine layers
def _bounds(factor):
    """(lower, upper) of a factor given as a pair, or as x meaning (-x, x)."""
    return (factor[0], factor[1]) if isinstance(factor, (tuple, list)) else (-factor, factor)


def get_translation_matrix(translations):
    """[N, 2] (dx, dy) in pixels -> [N, 8] transforms reading the input at (x - dx, y - dy)."""
    n = tf.shape(translations)[0]
    ones, zeros = tf.ones((n, 1), tf.float32), tf.zeros((n, 1), tf.float32)
    return tf.concat([ones, zeros, -translations[:, 0:1], zeros, ones, -translations[:, 1:2],
                      tf.zeros((n, 2), tf.float32)], axis=1)


def get_rotation_matrix(angles, image_height, image_width):
    """[N] angles (radians, counter-clockwise) -> [N, 8] transforms rotating about the image centre."""
    cos, sin = tf.cos(angles), tf.sin(angles)
    x_offset = ((image_width - 1) - (cos * (image_width - 1) - sin * (image_height - 1))) / 2.0
    y_offset = ((image_height - 1) - (sin * (image_width - 1) + cos * (image_height - 1))) / 2.0
    n = tf.shape(angles)[0]
    return tf.concat([cos[:, None], -sin[:, None], x_offset[:, None], sin[:, None], cos[:, None],
                      y_offset[:, None], tf.zeros((n, 2), tf.float32)], axis=1)


def get_zoom_matrix(zooms, image_height, image_width):
    """[N, 2] (zoom_x, zoom_y) -> [N, 8] transforms scaling about the image centre."""
    n = tf.shape(zooms)[0]
    x_offset = ((image_width - 1.0) / 2.0) * (1.0 - zooms[:, 0:1])
    y_offset = ((image_height - 1.0) / 2.0) * (1.0 - zooms[:, 1:2])
    zeros = tf.zeros((n, 1), tf.float32)
    return tf.concat([zooms[:, 0:1], zeros, x_offset, zeros, zooms[:, 1:2], y_offset, tf.zeros((n, 2), tf.float32)],
                     axis=1)


def transform(images, transforms, fill_mode="reflect", fill_value=0.0, interpolation="bilinear", output_shape=None):
    """Keras' transform(): ImageProjectiveTransformV3 with the images' own size unless output_shape is given."""
    if output_shape is None:
        s = images.shape.as_list()
        output_shape = s[1:3] if None not in s[1:3] else tf.shape(images)[1:3]
    return image_transform_ops.image_projective_transform_v3(
        images, transforms, output_shape, tf.cast(fill_value, tf.float32), interpolation=interpolation.upper(),
        fill_mode=fill_mode.upper())


class _AffineLayer(_RandomLayer):
    def __init__(self, fill_mode, interpolation, seed, fill_value, **kwargs):
        super().__init__(seed=seed, **kwargs)
        _check_fill_and_interpolation(fill_mode, interpolation)
        self.fill_mode, self.fill_value, self.interpolation = fill_mode, fill_value, interpolation

    def call(self, inputs, training=True):
        x = _convert(inputs, self.dtype)
        if not training:
            return x
        unbatched = x.shape.rank == 3
        if unbatched:
            x = tf.expand_dims(x, 0)
        batch, h, w = _dims(x)
        hf = tf.cast(h, tf.float32)
        wf = tf.cast(w, tf.float32)
        out = transform(x, self._transforms(batch, hf, wf), fill_mode=self.fill_mode, fill_value=self.fill_value,
                        interpolation=self.interpolation)
        return tf.squeeze(out, 0) if unbatched else out

    def compute_output_shape(self, input_shape):
        return tf.TensorShape(input_shape)

    _factor_keys = ()

    def get_config(self):
        """tf_keras' order: the factors, fill_mode, fill_value, interpolation, seed."""
        base = super().get_config()
        for k in self._factor_keys + ("fill_mode", "fill_value", "interpolation", "seed"):
            base.pop(k, None)
        return {**base, **{k: getattr(self, k) for k in self._factor_keys}, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "interpolation": self.interpolation, "seed": self.seed}


class RandomTranslation(_AffineLayer):
    """Shifts each image by a random fraction of its height and width (factor ranges in [-1, 1])."""
    _factor_keys = ("height_factor", "width_factor")

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _bounds(height_factor)
        if self.height_upper < self.height_lower:
            raise ValueError(f"`height_factor` cannot have upper bound less than lower bound, got {height_factor}")
        if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
            raise ValueError(f"`height_factor` argument must have values between [-1, 1]. Received: "
                             f"height_factor={height_factor}")
        self.width_lower, self.width_upper = _bounds(width_factor)
        if self.width_upper < self.width_lower:
            raise ValueError(f"`width_factor` cannot have upper bound less than lower bound, got {width_factor}")
        if abs(self.width_lower) > 1.0 or abs(self.width_upper) > 1.0:
            raise ValueError(f"`width_factor` must have values between [-1, 1], got {width_factor}")
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)

    def _transforms(self, batch, h, w):
        dy = self._uniform(_shape(batch, 1), self.height_lower, self.height_upper) * h
        dx = self._uniform(_shape(batch, 1), self.width_lower, self.width_upper) * w
        return get_translation_matrix(tf.concat([dx, dy], axis=1))


class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle in [lower, upper] * 2 pi (counter-clockwise for positive values)."""
    _factor_keys = ("factor",)

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        self.factor = factor
        self.lower, self.upper = _bounds(factor)
        if self.upper < self.lower:
            raise ValueError(f"`factor` argument cannot have a negative value. Received: factor={factor}")
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)

    def _transforms(self, batch, h, w):
        angles = self._uniform(_shape(batch), self.lower * 2.0 * np.pi, self.upper * 2.0 * np.pi)
        return get_rotation_matrix(angles, h, w)


class RandomZoom(_AffineLayer):
    """Zooms each image by 1 + a random factor per axis (negative: zoom in; width follows height when
    width_factor is None, keeping the aspect ratio)."""
    _factor_keys = ("height_factor", "width_factor")

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):
        self.height_factor, self.width_factor = height_factor, width_factor
        self.height_lower, self.height_upper = _bounds(height_factor)
        if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
            raise ValueError(f"`height_factor` argument must have values between [-1, 1]. Received: "
                             f"height_factor={height_factor}")
        if width_factor is not None:
            self.width_lower, self.width_upper = _bounds(width_factor)
            if self.width_lower < -1.0 or self.width_upper < -1.0:
                raise ValueError(f"`width_factor` argument must have values larger than -1. Received: "
                                 f"width_factor={width_factor}")
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)

    def _transforms(self, batch, h, w):
        zy = self._uniform(_shape(batch, 1), 1.0 + self.height_lower, 1.0 + self.height_upper)
        zx = self._uniform(_shape(batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper) \
            if self.width_factor is not None else zy
        return get_zoom_matrix(tf.concat([zx, zy], axis=1), h, w)


# ============================================================================ RandomContrast, RandomBrightness
class RandomContrast(_RandomLayer):
    """(x - mean) * f + mean per image and channel, one random f in [1 - lower, 1 + upper] per call, clipped to
    [0, 255] (tf.image.stateless_random_contrast, as tf_keras)."""

    def __init__(self, factor, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        self.lower, self.upper = (factor[0], factor[1]) if isinstance(factor, (tuple, list)) else (factor, factor)
        if self.lower < 0.0 or self.upper < 0.0 or self.lower > 1.0:
            raise ValueError(f"`factor` argument cannot have negative values or values greater than 1.Received: "
                             f"factor={factor}")

    def call(self, inputs, training=True):
        x = _convert(inputs, self.dtype)
        if not training:
            return x
        if 1.0 + self.upper <= 1.0 - self.lower:  # tf.image.stateless_random_contrast's own check
            raise ValueError("upper must be > lower.")
        f = tf.random.stateless_uniform([], seed=self._stateless_seed(), minval=1.0 - self.lower,
                                        maxval=1.0 + self.upper)
        return tf.clip_by_value(tf.image.adjust_contrast(x, f), 0, 255)

    def compute_output_shape(self, input_shape):
        return tf.TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}


class RandomBrightness(_RandomLayer):
    """Adds a random delta (factor * the value range's width) per image, clipped to `value_range`."""
    _FACTOR_ERROR = "The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
    _RANGE_ERROR = "The `value_range` argument should be a list of two numbers. "

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2:
                raise ValueError(self._FACTOR_ERROR + f"Got {factor}")
            for f in factor:
                self._check(f)
            self._factor = sorted(factor)
        elif isinstance(factor, (int, float)):
            self._check(factor)
            self._factor = [-abs(factor), abs(factor)]
        else:
            raise ValueError(self._FACTOR_ERROR + f"Got {factor}")
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(self._RANGE_ERROR + f"Got {value_range}")
        self._value_range = sorted(value_range)

    def _check(self, f):
        if f > 1.0 or f < -1.0:
            raise ValueError(self._FACTOR_ERROR + f"Got {f}")

    def call(self, inputs, training=True):
        x = _convert(inputs, self.dtype)
        if not training:
            return x
        rank = x.shape.rank
        if rank == 3:
            shape = (1, 1, 1)
        elif rank == 4:
            shape = _shape(_dims(x)[0], 1, 1, 1)
        else:
            raise ValueError(f"Expected the input image to be rank 3 or 4. Got inputs.shape = {x.shape}")
        delta = self._uniform(shape, self._factor[0], self._factor[1])
        delta = tf.cast(delta * (self._value_range[1] - self._value_range[0]), x.dtype)
        return tf.clip_by_value(x + delta, self._value_range[0], self._value_range[1])

    def compute_output_shape(self, input_shape):
        return tf.TensorShape(input_shape)

    def get_config(self):
        return {**super().get_config(), "factor": self._factor, "value_range": self._value_range,
                "seed": self.seed}


# ============================================================================ RandomHeight, RandomWidth
def _resize_to_tensor_size(x, size, method):
    """tf.image.resize by "bilinear" (float32 out) or "nearest" to a size tensor: TensorFlow 2's half-pixel
    ResizeBilinear / ResizeNearestNeighbor ops."""
    unbatched = x.shape.rank == 3
    if unbatched:
        x = tf.expand_dims(x, 0)
    if method == "bilinear" and x.dtype != tf.float32:
        x = tf.cast(x, tf.float32)
    out = resize_ops.resize(x, size, method, half_pixel_centers=True)
    return tf.squeeze(out, 0) if unbatched else out


class _RandomSide(_RandomLayer):
    _axis = H_AXIS

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        self._lower, self._upper = _bounds(factor)
        if self._upper < self._lower:
            raise ValueError(f"`factor` argument cannot have an upper bound {self._bound_word} the lower bound. "
                             f"Received: factor={factor}")
        if self._lower < -1.0 or self._upper < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. Received: factor={factor}")
        self.interpolation = interpolation
        self._method = _interpolation(interpolation)

    def call(self, inputs, training=True):
        x = _convert(inputs)
        if not training:
            return tf.cast(x, self.dtype)
        _, h, w = _dims(x)
        f = self._uniform([], 1.0 + self._lower, 1.0 + self._upper)
        if self._axis == H_AXIS:
            size = tf.stack([tf.cast(f * tf.cast(h, tf.float32), tf.int32), tf.cast(w, tf.int32)])
        else:
            size = tf.stack([tf.cast(h, tf.int32), tf.cast(f * tf.cast(w, tf.float32), tf.int32)])
        if self._method in ("bilinear", "nearest") and not tf.executing_eagerly():
            out = _resize_to_tensor_size(x, size, self._method)  # the size is drawn: a tensor in graphs
        else:
            out = tf.image.resize(x, size, method=self._method)
        return tf.cast(out, self.dtype)

    def compute_output_shape(self, input_shape):
        shape = tf.TensorShape(input_shape).as_list()
        shape[self._axis] = None
        return tf.TensorShape(shape)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "interpolation": self.interpolation,
                "seed": self.seed}


class RandomHeight(_RandomSide):
    """Resizes the height by a random factor 1 + [lower, upper] (one per call) in training."""
    _axis, _bound_word = H_AXIS, "lesser than"


class RandomWidth(_RandomSide):
    """Resizes the width by a random factor 1 + [lower, upper] (one per call) in training."""
    _axis, _bound_word = W_AXIS, "less than"
