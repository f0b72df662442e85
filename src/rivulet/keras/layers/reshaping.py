"""UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D and Rescaling (channels_last)."""
import rivulet as tf

from .base import InputSpec, Layer


def _pairs(value, what, n_spatial=2):
    """An int, a tuple of n ints (symmetric), or a tuple of n (before, after) pairs -> ((b, a), ...)."""
    if isinstance(value, int):
        return ((value, value),) * n_spatial
    value = tuple(value)
    if len(value) != n_spatial:
        raise ValueError(f"`{what}` should have {n_spatial} elements. Received: {value}.")
    out = []
    for v in value:
        if isinstance(v, int):
            out.append((v, v))
        else:
            v = tuple(v)
            if len(v) != 2:
                raise ValueError(f"`{what}` should be an int, a tuple of {n_spatial} ints or a tuple of "
                                 f"{n_spatial} tuples of 2 ints. Received: {value}")
            out.append(v)
    if any(x < 0 for p in out for x in p):
        raise ValueError(f"The `{what}` argument must be a tuple of non-negative integers. Received: {value}")
    return tuple(out)


class UpSampling1D(Layer):
    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return tf.repeat(inputs, self.size, axis=1)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Repeats rows and columns (nearest) or interpolates them (bilinear, half-pixel centers)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"rivulet upsamples channels_last inputs only; got data_format={data_format!r}")
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        allowed = ("area", "bicubic", "bilinear", "gaussian", "lanczos3", "lanczos5", "mitchellcubic", "nearest")
        if interpolation not in allowed:
            raise ValueError(f"`interpolation` argument should be one of: {allowed}. Received: "
                             f"\"{interpolation}\".")
        self.interpolation = interpolation
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        self._check_input_spec(inputs)
        if self.interpolation == "nearest":
            return tf.repeat(tf.repeat(inputs, self.size[0], axis=1), self.size[1], axis=2)
        h, w = inputs.shape[1], inputs.shape[2]
        return tf.image.resize(inputs, (h * self.size[0], w * self.size[1]), method=self.interpolation)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}


class ZeroPadding1D(Layer):
    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding if isinstance(padding, int) else (tuple(padding),), "padding", 1)[0]
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        return tf.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding}


class ZeroPadding2D(Layer):
    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"rivulet pads channels_last inputs only; got data_format={data_format!r}")
        self.padding = _pairs(padding, "padding")
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        self._check_input_spec(inputs)
        return tf.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class Cropping1D(Layer):
    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs((tuple(cropping),) if not isinstance(cropping, int) else cropping, "cropping", 1)[0]
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs):
        a, b = self.cropping
        return inputs[:, a:(-b if b else None)]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(Layer):
    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"rivulet crops channels_last inputs only; got data_format={data_format!r}")
        self.cropping = _pairs(cropping, "cropping")
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        self._check_input_spec(inputs)
        (t, b), (l, r) = self.cropping
        h, w = inputs.shape[1], inputs.shape[2]
        if h is not None and w is not None and (t + b >= h or l + r >= w):
            raise ValueError(f"Argument `cropping` must be greater than the input shape. Received: inputs.shape="
                             f"{inputs.shape}, and cropping={self.cropping}")
        return inputs[:, t:(-b if b else None), l:(-r if r else None), :]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class Rescaling(Layer):
    """inputs * scale + offset, in the layer's dtype."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        dtype = tf.as_dtype(self.dtype)
        x = tf.cast(inputs, dtype)
        return x * tf.cast(self.scale, dtype) + tf.cast(self.offset, dtype)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}
