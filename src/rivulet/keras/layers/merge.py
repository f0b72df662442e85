"""Merge layers: Concatenate, Add, Subtract, Multiply, Average, Maximum, Minimum (and their functional forms).

Each takes a list of tensors. The elementwise ones need shapes that broadcast against each other (checked
statically where the shapes are known); Concatenate needs equal shapes except along its axis.
"""
import functools

import numpy as np

import rivulet as tf

from .base import Layer


def _shape_list(shape):
    shape = tf.TensorShape(shape)
    return shape.as_list() if shape.rank is not None else None


class _Merge(Layer):
    """Base of the merge layers: `_merge(list of tensors)` combines the inputs."""
    _MIN_INPUTS = 1

    def _check_list(self, input_shape):
        if not isinstance(input_shape, (list, tuple)) or not input_shape or \
                not all(isinstance(s, (tf.TensorShape, list, tuple)) for s in input_shape):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape} (not a list of shapes)")
        if len(input_shape) < self._MIN_INPUTS:
            raise ValueError(f"A `{type(self).__name__}` layer should be called on a list of at least "
                             f"{self._MIN_INPUTS} inputs. Received: {len(input_shape)} inputs.")

    def build(self, input_shape):
        self._check_list(input_shape)
        shapes = [_shape_list(s) for s in input_shape]
        known = [s for s in shapes if s is not None]
        # Static broadcast check: aligned from the right, each dimension is 1, unknown, or one common size.
        if known:
            for i in range(1, max(len(s) for s in known) + 1):
                sizes = {s[-i] for s in known if len(s) >= i and s[-i] not in (None, 1)}
                if len(sizes) > 1:
                    raise ValueError(f"Inputs have incompatible shapes. Received shapes "
                                     f"{[tuple(s) if s is not None else None for s in shapes]}")
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs}")
        return self._merge(list(inputs))

    _combine = None  # the elementwise layers: a binary op folded over the inputs, left to right

    def _merge(self, inputs):
        return functools.reduce(self._combine, inputs)


class Add(_Merge):
    """Elementwise sum of the inputs."""
    _combine = staticmethod(tf.add)


class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""
    _MIN_INPUTS = 2

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                             f"{len(input_shape)} inputs.")

    def _merge(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                             f"{len(inputs)} inputs.")
        return tf.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """Elementwise product of the inputs."""
    _combine = staticmethod(tf.multiply)


class Average(_Merge):
    """Elementwise mean of the inputs."""
    _combine = staticmethod(tf.add)

    def _merge(self, inputs):
        return super()._merge(inputs) / len(inputs)


class Maximum(_Merge):
    """Elementwise maximum of the inputs."""
    _combine = staticmethod(tf.maximum)


class Minimum(_Merge):
    """Elementwise minimum of the inputs."""
    _combine = staticmethod(tf.minimum)


class Concatenate(_Merge):
    """Joins the inputs along `axis` (default: the last); the other dimensions must agree."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"`axis` must be an integer, got {axis!r}")
        self.axis = axis

    def build(self, input_shape):
        self._check_list(input_shape)
        shapes = [_shape_list(s) for s in input_shape]
        known = [s for s in shapes if s is not None]
        if known:
            ranks = {len(s) for s in known}
            bad = len(ranks) > 1
            if not bad:
                rank = ranks.pop()
                if not -rank <= self.axis < rank:
                    raise ValueError(f"Concatenate axis {self.axis} is out of range for inputs of rank {rank}.")
                axis = self.axis % rank
                for i in range(rank):
                    if i != axis and len({s[i] for s in known if s[i] is not None}) > 1:
                        bad = True
            if bad:
                raise ValueError(f"A `Concatenate` layer requires inputs with matching shapes except for the "
                                 f"concatenation axis. Received: input_shape="
                                 f"{[tuple(s) if s is not None else None for s in shapes]}")
        self.built = True

    def _merge(self, inputs):
        kinds = {x.dtype for x in inputs}
        if len(kinds) > 1:  # TF 2.21's Keras (3) promotes mixed inputs (pandas' int64 and float32 columns)
            target = _promoted(kinds)
            inputs = [x if x.dtype == target else tf.cast(x, target) for x in inputs]
        return tf.concat(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _promoted(kinds):
    """Keras 3's promotion: with a float among them the widest float (float16 with bfloat16: float32), integers
    and bools as NumPy promotes them."""
    floats = [k for k in kinds if k.is_floating]
    if floats:
        if {k.name for k in floats} == {"float16", "bfloat16"}:
            return tf.float32
        return max(floats, key=lambda k: k.size)
    return tf.as_dtype(np.result_type(*[k.as_numpy_dtype for k in kinds]))


def add(inputs, **kwargs):
    """Functional form of `Add`: `add([x1, x2])`."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """Functional form of `Concatenate`: `concatenate([x1, x2], axis=-1)`."""
    return Concatenate(axis=axis, **kwargs)(inputs)
