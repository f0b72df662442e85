"""1-D and 3-D pooling and the Global* pools for 1-D and 3-D inputs (channels_last). Global average pooling
over steps honours a mask (the mean of the unmasked steps), as Keras 2's does."""
import rivulet as tf

from .base import InputSpec, Layer
from .conv import GlobalAveragePooling2D
from .convolutional import _pad_mode, _tuple


class _Pooling(Layer):
    rank = 1
    _fn = None

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError("rivulet pools in the channels_last data format only; got "
                             f"data_format={data_format!r}")
        self.pool_size = _tuple(pool_size, self.rank, "pool_size")
        self.strides = _tuple(strides, self.rank, "strides") if strides is not None else self.pool_size
        self.padding = _pad_mode(padding)
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        self._check_input_spec(inputs)
        ksize = self.pool_size[0] if self.rank == 1 else self.pool_size
        strides = self.strides[0] if self.rank == 1 else self.strides
        return type(self)._fn(inputs, ksize, strides, self.padding.upper())

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}


class MaxPooling1D(_Pooling):
    _fn = staticmethod(lambda x, k, s, p: tf.nn.max_pool1d(x, k, s, p))

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(MaxPooling1D):
    _fn = staticmethod(lambda x, k, s, p: tf.nn.avg_pool1d(x, k, s, p))


class MaxPooling3D(_Pooling):
    rank = 3
    _fn = staticmethod(lambda x, k, s, p: tf.nn.max_pool3d(x, k, s, p))

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(MaxPooling3D):
    _fn = staticmethod(lambda x, k, s, p: tf.nn.avg_pool3d(x, k, s, p))


class _GlobalPooling(GlobalAveragePooling2D):
    rank = 1
    _reduce = None

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(data_format=None if data_format == "channels_last" else data_format, keepdims=keepdims,
                         **kwargs)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self.supports_masking = True

    def call(self, inputs):
        self._check_input_spec(inputs)
        return type(self)._reduce(inputs, axis=list(range(1, self.rank + 1)), keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "data_format": "channels_last", "keepdims": self.keepdims}


class GlobalMaxPooling1D(_GlobalPooling):
    _reduce = staticmethod(tf.reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    _reduce = staticmethod(tf.reduce_mean)

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        self._check_input_spec(inputs)
        m = tf.expand_dims(tf.cast(mask, inputs.dtype), 2)
        total = tf.reduce_sum(inputs * m, axis=1, keepdims=self.keepdims)
        return total / tf.reduce_sum(m, axis=1, keepdims=self.keepdims)


class GlobalMaxPooling3D(_GlobalPooling):
    rank = 3
    _reduce = staticmethod(tf.reduce_max)


class GlobalAveragePooling3D(_GlobalPooling):
    rank = 3
    _reduce = staticmethod(tf.reduce_mean)


MaxPool1D, AvgPool1D, MaxPool3D, AvgPool3D = MaxPooling1D, AveragePooling1D, MaxPooling3D, AveragePooling3D
GlobalMaxPool1D, GlobalAvgPool1D = GlobalMaxPooling1D, GlobalAveragePooling1D
GlobalMaxPool3D, GlobalAvgPool3D = GlobalMaxPooling3D, GlobalAveragePooling3D
