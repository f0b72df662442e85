"""Conv1D, Conv2DTranspose, DepthwiseConv2D and SeparableConv2D (channels_last), with Keras 2's weights and
output sizes: a model's weights load into tf_keras's layers unchanged."""
import rivulet as tf

from .. import activations
from . import _config
from .base import InputSpec, Layer
from .conv import _check_format


def _tuple(value, n, what):
    t = (value,) * n if isinstance(value, int) else tuple(value) if isinstance(value, (list, tuple)) else None
    if t is None or len(t) != n or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in t):
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {what}={value!r}")
    return t


def _pad_mode(padding, allowed=("valid", "same")):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in allowed:
        raise ValueError(f"The `padding` argument must be one of {', '.join(repr(a) for a in allowed)}. Received: "
                         f"{padding}")
    return p


class _Conv(Layer):
    """What every convolution shares: activation, bias, initializers, regularizers, config."""
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, pad_modes=("valid", "same"), groups=1, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if groups != 1:
            raise ValueError(f"rivulet's {type(self).__name__} does not support grouped convolutions (groups != 1)")
        _check_format(data_format)
        if filters is not None and (isinstance(filters, bool) or not isinstance(filters, int) or filters <= 0):
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive integer. Received "
                             f"filters={filters!r}.")
        self.filters = filters
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.padding = _pad_mode(padding, pad_modes)
        self.data_format = "channels_last"
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        _config.init_settings(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        _config.init_settings(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)

    def _channels(self, input_shape):
        shape = tf.TensorShape(input_shape)
        if shape.rank != self.rank + 2:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected "
                             f"ndim={self.rank + 2}, found ndim={shape.rank}. Full shape received: {shape}")
        if shape[-1] is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={-1: shape[-1]})
        return shape[-1]

    def _bias(self, n):
        self.bias = _config.add_weight(self, "bias", "bias", (n,)) if self.use_bias else None

    def _depthwise(self, channels):
        self.depthwise_kernel = _config.add_weight(self, "depthwise", "depthwise_kernel",
                                                   self.kernel_size + (channels, self.depth_multiplier))

    def _finish_output(self, out):
        if self.bias is not None:
            out = tf.nn.bias_add(out, self.bias)
        if self.activation is not activations.linear:
            out = self.activation(out)
        return out

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "groups": 1,
                "activation": _config.activation(self.activation), "use_bias": self.use_bias,
                "activity_regularizer": _config.serialize(self.activity_regularizer),
                **_config.settings(self, "kernel", "bias")}


class Conv1D(_Conv):
    """1-D convolution over [batch, steps, channels]; padding "causal" pads only the past."""
    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, groups=1, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         pad_modes=("valid", "same", "causal"), groups=groups, **kwargs)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = _config.add_weight(self, "kernel", "kernel", self.kernel_size + (channels, self.filters))
        self._bias(self.filters)
        self.built = True

    def call(self, inputs):
        pad = self.padding
        if pad == "causal":
            inputs = tf.pad(inputs, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
            pad = "valid"
        out = tf.nn.conv1d(inputs, self.kernel, stride=self.strides[0], padding=pad.upper(),
                           dilations=self.dilation_rate[0])
        return self._finish_output(out)


def deconv_length(n, k, padding, output_padding, stride, dilation):
    """Keras 2's transposed-convolution output length (conv_utils.deconv_output_length)."""
    if n is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return n * stride + max(k - stride, 0)
        return n * stride
    pad = k // 2 if padding == "same" else 0
    return (n - 1) * stride + k - 2 * pad + output_padding


class Conv2DTranspose(_Conv):
    """The transpose of Conv2D (kernel [kh, kw, filters, in]): upsamples by `strides`."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else _tuple_nonneg(output_padding, "output_padding")
        if self.output_padding is not None:
            for s, p in zip(self.strides, self.output_padding):
                if p >= s:
                    raise ValueError(f"Strides {self.strides} must be greater than output padding "
                                     f"{self.output_padding}. Received strides={self.strides}, "
                                     f"output_padding={self.output_padding}.")

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = _config.add_weight(self, "kernel", "kernel", self.kernel_size + (self.filters, channels))
        self._bias(self.filters)
        self.built = True

    def call(self, inputs):
        h, w = inputs.shape[1], inputs.shape[2]
        if h is None or w is None:  # a height or width known only when run (Input(shape=[None, None, 3])):
            dims = tf.shape(inputs)  # the output's from the input's dynamic shape, as tf_keras computes it
            h, w = (dims[1] if h is None else h), (dims[2] if w is None else w)
        op = self.output_padding or (None, None)
        oh = deconv_length(h, self.kernel_size[0], self.padding, op[0], self.strides[0], self.dilation_rate[0])
        ow = deconv_length(w, self.kernel_size[1], self.padding, op[1], self.strides[1], self.dilation_rate[1])
        batch = inputs.shape[0] if inputs.shape[0] is not None else tf.shape(inputs)[0]
        out = tf.nn.conv2d_transpose(inputs, self.kernel, [batch, oh, ow, self.filters], strides=self.strides,
                                     padding=self.padding.upper(), dilations=self.dilation_rate)
        return self._finish_output(out)

    def get_config(self):
        return {**super().get_config(), "output_padding": self.output_padding}


def _tuple_nonneg(value, what):
    t = (value, value) if isinstance(value, int) else tuple(value)
    if len(t) != 2 or any(not isinstance(v, int) or v < 0 for v in t):
        raise ValueError(f"The `{what}` argument must be a tuple of 2 non-negative integers. Received: "
                         f"{what}={value!r}")
    return t


class DepthwiseConv2D(_Conv):
    """Each input channel convolved with `depth_multiplier` filters of its own."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate, activation=activation,
                         use_bias=use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        _config.init_settings(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._depthwise(channels)
        self._bias(channels * self.depth_multiplier)
        self.built = True

    def call(self, inputs):
        out = tf.nn.depthwise_conv2d(inputs, self.depthwise_kernel, (1,) + self.strides + (1,),
                                     self.padding.upper(), dilations=self.dilation_rate)
        return self._finish_output(out)

    def get_config(self):
        config = super().get_config()
        for k in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(k)
        return {**config, "depth_multiplier": self.depth_multiplier, **_config.settings(self, "depthwise")}


class SeparableConv2D(_Conv):
    """A depthwise convolution followed by a 1x1 convolution to `filters` channels."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, activation=activation,
                         use_bias=use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        _config.init_settings(self, "depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        _config.init_settings(self, "pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._depthwise(channels)
        self.pointwise_kernel = _config.add_weight(self, "pointwise", "pointwise_kernel",
                                                   (1, 1, channels * self.depth_multiplier, self.filters))
        self._bias(self.filters)
        self.built = True

    def call(self, inputs):
        out = tf.nn.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel,
                                     (1,) + self.strides + (1,), self.padding.upper(), dilations=self.dilation_rate)
        return self._finish_output(out)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                **_config.settings(self, "depthwise", "pointwise")}


Convolution1D, Convolution2DTranspose, Conv2DTranspose = Conv1D, Conv2DTranspose, Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
