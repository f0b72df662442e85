"""Keras masks: which timesteps of a sequence are real. A layer's output mask travels with its output tensor
(Keras 2 stores it as `tensor._keras_mask`; rivulet's tensors have fixed slots, so a registry keyed by tensor
identity holds it, dropping entries as tensors die). Layers whose `call` takes `mask` receive it."""
import threading
import weakref

import rivulet as tf

from .base import Layer

_MASKS = {}
_LOCK = threading.Lock()


def set_mask(tensor, mask):
    key = id(tensor)
    try:
        ref = weakref.ref(tensor, lambda _, k=key: _MASKS.pop(k, None))
    except TypeError:  # not weak-referenceable (a Python value): no mask to carry
        return
    with _LOCK:
        _MASKS[key] = (ref, mask)


def get_mask(tensor):
    entry = _MASKS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    return None


class Masking(Layer):
    """Masks the timesteps whose features all equal `mask_value` (and zeroes them)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * tf.cast(keep, inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
