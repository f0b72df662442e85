"""The functional API's symbolic values: `Input` makes KerasTensors; calling a layer on them records a Node.

A layer's output shape and dtype are found by running its `call` once on placeholders in a scratch graph
(building the layer on the way), so every layer works symbolically without a compute_output_shape rule.
"""
import numbers

import rivulet as tf
from rivulet import nest

from .. import backend
from .base import Layer


class KerasTensor:
    """A symbolic input or layer output: a shape (batch dimension None), a dtype, and the node that made it."""

    def __init__(self, shape, dtype, node=None, name=None, sparse=False):
        self.shape = tf.TensorShape(shape)
        self.dtype = tf.as_dtype(dtype)
        self.node = node
        self.name = name
        self.sparse = sparse  # Input(sparse=True): layers are called on SparseTensors

    @property
    def _creator(self):
        return self.node.layer.name if self.node is not None else self.name

    @property
    def type_spec(self):
        if self.sparse:
            return tf.SparseTensorSpec(self.shape, self.dtype)
        return tf.TensorSpec(self.shape, self.dtype)

    def __repr__(self):
        what = f"type_spec={self.type_spec!r}" if self.sparse else \
            f"shape={_shape_tuple(self.shape)} dtype={self.dtype.name}"
        return f"<KerasTensor: {what} (created by layer '{self._creator}')>"

    def __hash__(self):
        return id(self)

    # Python operators (x * 2 + 1, x[:, 0]) make TFOpLambda layers: installed by tf_op_lambda.py, imported below.


class Node:
    """One layer call in a functional graph: inputs and outputs are (structures of) KerasTensors."""

    def __init__(self, layer, inputs, args, kwargs, outputs):
        self.layer, self.inputs, self.args, self.kwargs, self.outputs = layer, inputs, args, kwargs, outputs

    @property
    def parents(self):
        return [t.node for t in self.keras_inputs() if t.node is not None]

    def keras_inputs(self):
        """Every KerasTensor this call consumed: in its inputs, then in its other arguments (MultiHeadAttention's
        value and key, initial states ...)."""
        flat = nest.flatten([self.inputs, list(self.args), dict(self.kwargs)])
        return [t for t in flat if isinstance(t, KerasTensor)]


def _shape_tuple(shape):
    return tuple(shape.as_list()) if shape.rank is not None else None


def call_symbolic(layer, inputs, args, kwargs):
    """layer(KerasTensors): shape inference on placeholders, then a Node linking inputs to new KerasTensors."""
    g = tf.Graph()
    with g.as_default():
        def feed(structure):
            return nest.map_structure(lambda kt: g.placeholder(kt.dtype, kt.shape, name="input")
                                      if isinstance(kt, KerasTensor) else kt, structure)
        outs = layer._call_general((feed(inputs),) + tuple(feed(list(args))), feed(dict(kwargs)))
    node = Node(layer, inputs, tuple(args), dict(kwargs), None)
    node.outputs = nest.map_structure(lambda t: KerasTensor(t.shape, t.dtype, node), outs)
    layer._inbound.append(node)
    shapes = nest.map_structure(lambda kt: _shape_tuple(kt.shape), node.outputs)
    layer._out_shape = shapes
    return node.outputs


class InputLayer(Layer):
    """The layer behind `tf.keras.Input`: it has no weights and passes its input through."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=False,
                 name=None, ragged=False, batch_input_shape=None, **kwargs):
        if name is None:
            name = f"input_{backend.get_uid('input')}"  # Keras numbers inputs from 1: input_1, input_2
        if batch_input_shape is None:
            batch_input_shape = (batch_size,) + tuple(input_shape or ())
        # (an Input is floatx's, whatever the global mixed precision policy: tf_keras's InputLayer)
        super().__init__(name=name, dtype=dtype or backend.floatx(), batch_input_shape=tuple(batch_input_shape))
        self.built = True
        self.sparse = bool(sparse)
        kt = KerasTensor(batch_input_shape, self._dtype, None, name=self.name, sparse=self.sparse)
        node = Node(self, [], (), {}, kt)
        kt.node = node
        self._inbound.append(node)
        self._out_shape = [_shape_tuple(kt.shape)]  # Keras shows an InputLayer's shape as a list
        self._keras_input = kt

    def get_config(self):
        config = {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype, "name": self.name}
        if self.sparse:
            config["sparse"] = True
        return config


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None, ragged=False,
          batch_shape=None, **kwargs):
    """tf.keras.Input: a KerasTensor to start a functional model from."""
    if shape is None and batch_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` argument. Note that "
                         "`shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    for dims in (shape, batch_shape):
        for d in dims or ():
            if d is not None and (isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 0):
                raise ValueError(f"Cannot convert '{tuple(dims)}' to a shape: dimension {d!r} is not None or a "
                                 f"non-negative int.")
    layer = InputLayer(input_shape=shape, batch_size=batch_size, name=name, dtype=dtype,
                       batch_input_shape=batch_shape, sparse=sparse)
    return layer._keras_input


from . import tf_op_lambda  # noqa: E402,F401  (KerasTensor operators and tf.* dispatch)
