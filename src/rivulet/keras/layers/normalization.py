"""BatchNormalization: batch statistics in training (updating moving averages), moving statistics otherwise."""
import rivulet as tf

from .. import initializers, regularizers
from .base import Layer


class _Normalization(Layer):
    """Shared by the normalization layers: parameters of the normalised axes' shape, reshaped to broadcast
    against the input (`_bshape`, set in build; None when they already line up with its last axes)."""

    def _b(self, v):
        if v is None or self._bshape is None:
            return v
        return tf.reshape(v, self._bshape)

    def call(self, inputs, *args, **kwargs):
        """16-bit inputs (a mixed precision policy) are normalised in float32 and cast back, as tf_keras does:
        the layer's own weights stay float32 (created without autocasting)."""
        if inputs.dtype.name in ("float16", "bfloat16") and self._variable_dtype is tf.float32:
            return tf.cast(self._normalize(tf.cast(inputs, tf.float32), *args, **kwargs), inputs.dtype)
        return self._normalize(inputs, *args, **kwargs)


class BatchNormalization(_Normalization):
    def __init__(self, axis=-1, momentum=0.99, epsilon=0.001, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", moving_mean_initializer="zeros",
                 moving_variance_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, **kwargs):
        kwargs.pop("fused", None)
        kwargs.pop("renorm", None)
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = axis, momentum, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)

    def build(self, input_shape):
        input_shape = tf.TensorShape(input_shape)
        rank = input_shape.rank
        axis = self.axis if isinstance(self.axis, int) else self.axis[0]
        if rank is None or not -rank <= axis < rank:
            raise ValueError(f"Invalid axis: {axis}. BatchNormalization needs an input of known rank above it; got "
                             f"shape {input_shape}.")
        self._axis = axis % rank
        dim = input_shape[self._axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")
        self._reduce = [i for i in range(rank) if i != self._axis]
        # Parameters broadcast against the input: [dim] on the last axis, else reshaped to [1, dim, 1 ...].
        self._bshape = None if self._axis == rank - 1 else [dim if i == self._axis else 1 for i in range(rank)]
        self.gamma = self.add_weight("gamma", (dim,), initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, experimental_autocast=False) \
            if self.scale else None
        self.beta = self.add_weight("beta", (dim,), initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, experimental_autocast=False) \
            if self.center else None
        self.moving_mean = self.add_weight("moving_mean", (dim,), initializer=self.moving_mean_initializer,
                                           trainable=False, experimental_autocast=False)
        self.moving_variance = self.add_weight("moving_variance", (dim,), trainable=False,
                                               initializer=self.moving_variance_initializer,
                                               experimental_autocast=False)
        self.built = True


    def call(self, inputs, training=None):
        return _Normalization.call(self, inputs, training=training)

    def _normalize(self, inputs, training=None):
        if training and self.trainable:
            mean, variance = tf.nn.moments(inputs, axes=self._reduce)
            decay = 1.0 - self.momentum
            self.moving_mean.assign_sub((self.moving_mean - mean) * decay)
            self.moving_variance.assign_sub((self.moving_variance - variance) * decay)
        else:
            mean, variance = self.moving_mean, self.moving_variance
        return tf.nn.batch_normalization(inputs, self._b(mean), self._b(variance), self._b(self.beta),
                                         self._b(self.gamma), self.epsilon)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale}


class LayerNormalization(_Normalization):
    """Normalises each example over `axis` (default: the last), then scales by gamma and shifts by beta:
    (x - mean) / sqrt(variance + epsilon) * gamma + beta, mean and variance taken over `axis` per example."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis}")
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)

    def build(self, input_shape):
        input_shape = tf.TensorShape(input_shape)
        rank = input_shape.rank
        if rank is None:
            raise ValueError(f"LayerNormalization needs an input of known rank, got shape {input_shape}.")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"Invalid axis: {a}. Input has rank {rank}.")
        self._axes = sorted({a % rank for a in axes})
        if len(self._axes) != len(axes):
            raise ValueError(f"Duplicate axis: {self.axis}")
        dims = [input_shape[a] for a in self._axes]
        if any(d is None for d in dims):
            raise ValueError(f"LayerNormalization axis {self.axis} of input shape {input_shape} must have a "
                             f"defined size.")
        # Parameters of shape `dims`, reshaped for broadcasting unless they already line up with the last axes.
        trailing = self._axes == list(range(rank - len(self._axes), rank))
        self._bshape = None if trailing else [input_shape[i] if i in self._axes else 1 for i in range(rank)]
        self.gamma = self.add_weight("gamma", dims, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, experimental_autocast=False) \
            if self.scale else None
        self.beta = self.add_weight("beta", dims, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, experimental_autocast=False) \
            if self.center else None
        self.built = True


    def call(self, inputs):
        return _Normalization.call(self, inputs)

    def _normalize(self, inputs):
        mean, variance = tf.nn.moments(inputs, axes=self._axes, keepdims=True)
        return tf.nn.batch_normalization(inputs, mean, variance, self._b(self.beta), self._b(self.gamma),
                                         self.epsilon)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                "scale": self.scale}
