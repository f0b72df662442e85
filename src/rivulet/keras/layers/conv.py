"""Convolution and pooling layers (NHWC, "channels_last", as TensorFlow runs them on CPU)."""
import rivulet as tf

from .. import activations, initializers, regularizers
from .base import InputSpec, Layer


def _pair(value, what):
    pair = (value, value) if isinstance(value, int) else tuple(value) if isinstance(value, (list, tuple)) else None
    if pair is None or len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                 for v in pair):
        raise ValueError(f"The `{what}` argument must be a tuple of 2 positive integers. Received: {what}={value!r}")
    return pair


def _padding(padding):
    p = padding.upper()
    if p not in ("VALID", "SAME"):
        raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", \"same\". Received: "
                         f"{padding}")
    return p


def _check_format(data_format):
    if data_format not in (None, "channels_last"):
        raise ValueError("rivulet runs convolutions in the channels_last (NHWC) data format only; got "
                         f"data_format={data_format!r}")


class Conv2D(Layer):
    """2-D convolution over [batch, height, width, channels] inputs with `filters` output channels."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        _check_format(data_format)
        if isinstance(filters, bool) or not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive integer. Received "
                             f"filters={filters!r}.")
        self.filters = filters
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = padding
        self._pad = _padding(padding)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.activation = activations.get(activation)
        self._act = None if self.activation is activations.linear else self.activation
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.groups = groups or 1
        if filters % self.groups != 0:
            raise ValueError("The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={self.groups}, filters={filters}")

    def build(self, input_shape):
        input_shape = tf.TensorShape(input_shape)
        if input_shape.rank != 4:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=4, "
                             f"found ndim={input_shape.rank}. Full shape received: {input_shape}")
        channels = input_shape[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        if channels % self.groups != 0:
            raise ValueError("The number of input channels must be evenly divisible by the number of groups. "
                             f"Received groups={self.groups}, but the input has {channels} channels (full input "
                             f"shape is {input_shape}).")
        self.kernel = self.add_weight("kernel", self.kernel_size + (channels // self.groups, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", (self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.input_spec = InputSpec(ndim=4, axes={-1: channels})
        self.built = True

    def call(self, inputs):
        if self.groups == 1:
            out = tf.nn.conv2d(inputs, self.kernel, strides=self.strides, padding=self._pad,
                               dilations=self.dilation_rate)
        else:  # each group of input channels convolved with its filters / groups filters, concatenated
            out = tf.concat([tf.nn.conv2d(x, k, strides=self.strides, padding=self._pad, dilations=self.dilation_rate)
                             for x, k in zip(tf.split(inputs, self.groups, axis=-1),
                                             tf.split(self.kernel, self.groups, axis=-1))], axis=-1)
        if self.bias is not None:
            out = tf.nn.bias_add(out, self.bias)
        if self._act is not None:
            out = self._act(out)
        return out

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias, **({"groups": self.groups} if self.groups != 1 else {})}


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        _check_format(data_format)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides, "strides") if strides is not None else self.pool_size
        self.padding = padding
        self._pad = _padding(padding)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return type(self)._pool(inputs, ksize=self.pool_size, strides=self.strides, padding=self._pad)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding}


class MaxPooling2D(_Pooling2D):
    _pool = staticmethod(lambda x, **kw: tf.nn.max_pool2d(x, **kw))


class AveragePooling2D(_Pooling2D):
    _pool = staticmethod(lambda x, **kw: tf.nn.avg_pool2d(x, **kw))


class GlobalAveragePooling2D(Layer):
    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        _check_format(data_format)
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        self._check_input_spec(inputs)  # a reduction over axes 1 and 2 would run on any rank >= 3
        return tf.reduce_mean(inputs, axis=[1, 2], keepdims=self.keepdims)


class GlobalMaxPooling2D(GlobalAveragePooling2D):
    def call(self, inputs):
        self._check_input_spec(inputs)
        return tf.reduce_max(inputs, axis=[1, 2], keepdims=self.keepdims)


MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
