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

    def __init__(self, shape, dtype, node=None, name=None, sparse=False, spec=None):
        self.shape = tf.TensorShape(shape)
        self.dtype = tf.as_dtype(dtype)
        self.node = node
        self.name = name
        self.sparse = sparse  # Input(sparse=True): layers are called on SparseTensors
        self._spec = spec  # Input(type_spec=...) of a composite (tf.experimental.ExtensionType): its spec

    @property
    def _creator(self):
        return self.node.layer.name if self.node is not None else self.name

    @property
    def type_spec(self):
        if self._spec is not None:
            return self._spec
        if self.sparse:
            return tf.SparseTensorSpec(self.shape, self.dtype)
        return tf.TensorSpec(self.shape, self.dtype)

    def __repr__(self):
        what = f"type_spec={self.type_spec!r}" if self.sparse or self._spec is not None else \
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
            return nest.map_structure(lambda kt: _placeholder(g, kt) if isinstance(kt, KerasTensor) else kt,
                                      structure)
        outs = layer._call_general((feed(inputs),) + tuple(feed(list(args))), feed(dict(kwargs)))
    node = Node(layer, inputs, tuple(args), dict(kwargs), None)
    node.outputs = nest.map_structure(lambda t: _keras_tensor(t, node), outs)
    layer._inbound.append(node)
    shapes = nest.map_structure(lambda kt: _shape_tuple(kt.shape), node.outputs)
    layer._out_shape = shapes
    return node.outputs


def _placeholder(g, kt):
    value = getattr(kt, "_inferred_value", None)
    if value is not None:  # a shape-like int32 output: its known entries stay known (tf_keras's inferred_value)
        shape = tf.shape(g.placeholder(tf.int32, tf.TensorShape(value), name="input"))
        return shape[0] if kt.shape.rank == 0 else shape
    if kt._spec is not None:  # a composite input: placeholders for its components, rebuilt by its spec
        return kt._spec._from_components([g.placeholder(c.dtype, c.shape, name="input")
                                          for c in kt._spec._component_specs])
    return g.placeholder(kt.dtype, kt.shape, name="input")


def _composite_spec(t):
    """The spec of a composite layer output (a tf.experimental.ExtensionType), else None."""
    if isinstance(t, tf.Tensor) or not hasattr(t, "_to_components") or not hasattr(type(t), "__tf_tracing_type__"):
        return None
    return type(t).__tf_tracing_type__(t, None)


def _spec_shape_dtype(spec):
    shape = getattr(spec, "shape", None)
    dtype = getattr(spec, "dtype", None)
    try:
        shape = tf.TensorShape(shape)
    except (TypeError, ValueError):
        shape = tf.TensorShape(None)
    try:
        dtype = tf.as_dtype(dtype) if dtype is not None else tf.float32
    except (TypeError, ValueError):
        dtype = tf.float32
    return shape, dtype


def _keras_tensor(t, node):
    spec = _composite_spec(t)
    if spec is not None:
        shape, dtype = _spec_shape_dtype(spec)
        return KerasTensor(shape, dtype, node, spec=spec)
    kt = KerasTensor(t.shape, t.dtype, node)
    kt._inferred_value = _inferred_value(t)
    return kt


def _inferred_value(t):
    """As tf_keras: an int32 tensor of rank 0 or 1 may hold a shape; the entries the scratch graph's shape
    inference knows (`tf.ones(shape=t).shape`: [None, 10] for tf.shape of a (None, 10) input) are kept."""
    if t.dtype != tf.int32 or t.shape.rank is None or t.shape.rank > 1 or not hasattr(t, "graph"):
        return None
    if t.shape.rank == 1 and (t.shape[0] is None or t.shape[0] > 254):
        return None
    try:
        with t.graph.as_default():
            dims = tf.ones(shape=t).shape
    except (TypeError, ValueError, tf.errors.InvalidArgumentError):
        return None
    return dims.as_list() if dims.rank else None


class InputLayer(Layer):
    """The layer behind `tf.keras.Input`: it has no weights and passes its input through."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=False,
                 name=None, ragged=False, batch_input_shape=None, type_spec=None, **kwargs):
        if type_spec is not None and hasattr(type_spec, "_component_specs"):  # a composite's spec
            shape, dt = _spec_shape_dtype(type_spec)
            batch_input_shape = tuple(shape.as_list()) if shape.rank is not None else None
            dtype = dtype or dt
        if name is None:
            name = f"input_{backend.get_uid('input')}"  # Keras numbers inputs from 1: input_1, input_2
        if batch_input_shape is None:
            batch_input_shape = (batch_size,) + tuple(input_shape or ())
        # (an Input is floatx's, whatever the global mixed precision policy: tf_keras's InputLayer)
        super().__init__(name=name, dtype=dtype or backend.floatx(),
                         batch_input_shape=tuple(batch_input_shape) if batch_input_shape is not None else None)
        self.built = True
        self.sparse = bool(sparse)
        kt = KerasTensor(batch_input_shape, self._dtype, None, name=self.name, sparse=self.sparse,
                         spec=type_spec if type_spec is not None and hasattr(type_spec, "_component_specs") else None)
        node = Node(self, [], (), {}, kt)
        kt.node = node
        self._inbound.append(node)
        self._out_shape = [_shape_tuple(kt.shape)]  # Keras shows an InputLayer's shape as a list
        self._type_spec = kt._spec
        self._keras_input = kt

    def get_config(self):
        config = {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype, "name": self.name}
        if self.sparse:
            config["sparse"] = True
        return config


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None, ragged=False,
          batch_shape=None, type_spec=None, **kwargs):
    """tf.keras.Input: a KerasTensor to start a functional model from (type_spec: a composite's spec, such as a
    tf.experimental.ExtensionType's, whose values the model is called on)."""
    if type_spec is not None and hasattr(type_spec, "_component_specs"):
        return InputLayer(name=name, dtype=dtype, type_spec=type_spec)._keras_input
    if isinstance(type_spec, tf.TensorSpec) and shape is None and batch_shape is None:  # (tf_keras: its shape and
        batch_shape = tuple(type_spec.shape.as_list()) if type_spec.shape.rank is not None else None  # dtype)
        dtype = dtype or type_spec.dtype
        if batch_shape is None:
            raise ValueError("Input(type_spec=...) needs a TensorSpec of known rank.")
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
