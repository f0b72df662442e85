"""Activation layers with parameters: LeakyReLU, PReLU (a learned slope), ELU, ThresholdedReLU."""
import rivulet as tf

from .. import initializers, regularizers
from . import _config
from .base import InputSpec, Layer


class LeakyReLU(Layer):
    """x if x > 0 else alpha * x (Keras 2's default alpha is 0.3)."""

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError(f"The alpha value of a Leaky ReLU layer cannot be None. Expecting a float. Received: "
                             f"{alpha}")
        self.alpha = float(alpha)
        self.supports_masking = True

    def call(self, inputs):
        return tf.nn.leaky_relu(inputs, alpha=self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class ELU(Layer):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError(f"Alpha of an ELU layer cannot be None, expecting a float. Received: {alpha}")
        self.alpha = float(alpha)
        self.supports_masking = True

    def call(self, inputs):
        y = tf.nn.elu(inputs)
        if self.alpha == 1.0:
            return y
        return tf.where(inputs > 0, y, y * tf.cast(self.alpha, y.dtype))

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class ThresholdedReLU(Layer):
    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}")
        self.theta = float(theta)

    def call(self, inputs):
        return inputs * tf.cast(inputs > self.theta, inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "theta": self.theta}


class PReLU(Layer):
    """max(0, x) + alpha * min(0, x) with a learned alpha per position (shared over `shared_axes`)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = alpha_constraint
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]
        self.supports_masking = True

    def build(self, input_shape):
        shape = list(tf.TensorShape(input_shape).as_list()[1:])
        axes = {}
        if self.shared_axes is not None:
            for i in self.shared_axes:
                shape[i - 1] = 1
        for i, d in enumerate(shape):
            if d is None:
                raise ValueError(f"PReLU needs every non-batch input dimension known (or shared); got input shape "
                                 f"{tf.TensorShape(input_shape)}")
            if d != 1:
                axes[i + 1] = d
        self.alpha = self.add_weight("alpha", shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        self.input_spec = InputSpec(ndim=len(shape) + 1, axes=axes)
        self.built = True

    def call(self, inputs):
        pos = tf.nn.relu(inputs)
        neg = -self.alpha * tf.nn.relu(-inputs)
        return pos + neg

    def get_config(self):
        return {**super().get_config(), "alpha_initializer": _config.serialize(self.alpha_initializer),
                "alpha_regularizer": _config.serialize(self.alpha_regularizer),
                "alpha_constraint": _config.serialize(self.alpha_constraint), "shared_axes": self.shared_axes}
