"""TimeDistributed: applies a layer to every timestep (the time axis folded into the batch)."""
import rivulet as tf

from . import _config
from .base import Layer


class TimeDistributed(Layer):
    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def build(self, input_shape):
        shape = tf.TensorShape(input_shape)
        if shape.rank is None or shape.rank < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with at least 3 "
                             f"dimensions, received: {shape}")
        self.built = True  # the wrapped layer builds on its first (folded) call

    def call(self, inputs, training=None, mask=None):
        shape = inputs.shape
        batch = shape[0] if shape[0] is not None else tf.shape(inputs)[0]
        steps = shape[1] if shape[1] is not None else tf.shape(inputs)[1]
        inner = shape[2:].as_list()
        folded = tf.reshape(inputs, [-1] + [d if d is not None else tf.shape(inputs)[i + 2]
                                            for i, d in enumerate(inner)])
        kwargs = {"training": training} if training is not None else {}
        y = self.layer(folded, **kwargs)
        out_inner = y.shape[1:].as_list()
        out = tf.reshape(y, [batch, steps] + [d if d is not None else tf.shape(y)[i + 1]
                                              for i, d in enumerate(out_inner)])
        return out

    @classmethod
    def from_config(cls, config):
        return _config.wrapper_from_config(cls, config, "layer")

    def get_config(self):
        return {**super().get_config(), "layer": {"class_name": type(self.layer).__name__,
                                                  "config": self.layer.get_config()}}
