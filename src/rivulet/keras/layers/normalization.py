"""BatchNormalization: batch statistics in training (updating moving averages), moving statistics otherwise."""
import rivulet as tf

from .. import initializers, regularizers
from .base import Layer


class BatchNormalization(Layer):
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
        self._axis = axis % rank
        dim = input_shape[self._axis]
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")
        self._reduce = [i for i in range(rank) if i != self._axis]
        # Parameters broadcast against the input: [dim] on the last axis, else reshaped to [1, dim, 1 ...].
        self._bshape = None if self._axis == rank - 1 else [dim if i == self._axis else 1 for i in range(rank)]
        self.gamma = self.add_weight("gamma", (dim,), initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer) if self.scale else None
        self.beta = self.add_weight("beta", (dim,), initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", (dim,), initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", (dim,),
                                               initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _b(self, v):
        if v is None or self._bshape is None:
            return v
        return tf.reshape(v, self._bshape)

    def call(self, inputs, training=None):
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
