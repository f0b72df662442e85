"""tf.keras.Model (subclassed or functional) and tf.keras.Sequential."""
import os
import zipfile

import numpy as np

import rivulet as tf
from rivulet import nest

from .layers.base import Layer
from .layers.input_layer import Input, InputLayer, KerasTensor
from .summary import print_summary
from .training import Trainer

_WEIGHTS_FORMAT = "rivulet-weights-v1"


class Model(Trainer, Layer):
    """Subclass and define `call`, or connect KerasTensors: `Model(inputs, outputs)`.

    `model(x)` runs `self.call` looked up on the instance, so `model.call = tf.function(model.call)` makes
    every later call use the traced function.
    """

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(**kwargs)
        self._is_compiled = False
        self._run_eagerly = None
        self._train_fn = self._eval_fn = self._predict_fn = None
        self.stop_training = False
        self._is_graph_network = False
        if inputs is not None or outputs is not None:
            self._init_graph(inputs, outputs)

    # -- functional models ---------------------------------------------------------------------------------
    def _init_graph(self, inputs, outputs):
        if outputs is None or inputs is None:
            raise ValueError("A functional Model needs both `inputs` and `outputs`.")
        # A one-element list acts as its element (as in Keras 2): such a model returns a tensor, not a list.
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
            inputs = inputs[0]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        flat_in = nest.flatten(inputs)
        if not all(isinstance(t, KerasTensor) for t in flat_in + nest.flatten(outputs)):
            raise ValueError("Functional models take KerasTensors (from tf.keras.Input and layer calls) as "
                             f"`inputs` and `outputs`; got inputs={inputs!r}, outputs={outputs!r}")
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)
        for t in nest.flatten(outputs):
            visit(t.node)
        input_ids = {id(t) for t in flat_in}
        for node in order:
            if isinstance(node.layer, InputLayer) and id(node.outputs) not in input_ids:
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor {node.outputs!r} at layer "
                                 f"\"{node.layer.name}\". The following previous layers were accessed without "
                                 f"issue: {[n.layer.name for n in order if n is not node][:5]}")
        self._input_tensors, self._output_tensors = inputs, outputs
        self._nodes = [n for n in order if not isinstance(n.layer, InputLayer)]
        # Keras lists layers by depth (farthest from the outputs first), ties in the order they were found.
        depth = {}
        for n in reversed(order):
            d = depth.setdefault(id(n), 0)
            for parent in n.parents:
                depth[id(parent)] = max(depth.get(id(parent), 0), d + 1)
        found, layer_depth = [], {}
        for n in order:
            if id(n.layer) not in layer_depth:
                found.append(n.layer)
            layer_depth[id(n.layer)] = max(layer_depth.get(id(n.layer), 0), depth[id(n)])
        self._graph_layers = sorted(found, key=lambda l: -layer_depth[id(l)])  # stable: ties keep found order
        self._is_graph_network = True
        self.built = True

    @property
    def inputs(self):
        return nest.flatten(self._input_tensors) if self._is_graph_network else None

    @property
    def outputs(self):
        return nest.flatten(self._output_tensors) if self._is_graph_network else None

    def _run_graph(self, inputs):
        values = {}
        for kt, v in zip(nest.flatten(self._input_tensors), nest.flatten(inputs)):
            values[id(kt)] = v
        for node in self._nodes:
            def value(structure):
                return nest.map_structure(lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, structure)
            out = node.layer(value(node.inputs), *value(list(node.args)), **value(dict(node.kwargs)))
            for kt, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(kt)] = v
        return nest.map_structure(lambda kt: values[id(kt)], self._output_tensors)

    def call(self, inputs, training=None, mask=None):
        if self._is_graph_network:
            return self._run_graph(inputs)
        raise NotImplementedError(f"Model {self.name} has no `call`: subclasses of tf.keras.Model must define "
                                  f"`call(self, inputs)`, or build it functionally with Model(inputs, outputs).")

    # -- building -----------------------------------------------------------------------------------------
    def _maybe_build(self, inputs):
        # What the first call took, batch dimension left open: saving traces the call for it.
        if "_call_input_spec" not in self.__dict__:
            self._call_input_spec = _spec_of(inputs)
        # Keras calls build() from __call__ only when a subclass defines its own build; the default
        # Model.build would run `call` once more on placeholders (and repeat its side effects).
        if type(self).build is not Model.build and not self.built:
            Layer._maybe_build(self, inputs)
        self.built = True

    def build(self, input_shape):
        """Creates the weights by running `call` on placeholders of `input_shape`."""
        if self._is_graph_network or self.built:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a `Model` subclass.")
        shape = tuple(input_shape)
        self(Input(batch_shape=shape))
        self.built = True

    # -- layers and weights ---------------------------------------------------------------------------------
    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._graph_layers)
        return self._flatten_layers(include_self=False, recursive=False)

    def get_layer(self, name=None, index=None):
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[l.name for l in self.layers]}.")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False):
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by calling `build()` or "
                             "calling `fit()` with some data, or specify an `input_shape` argument in the first "
                             "layer(s) for automatic build.")
        print_summary(self, line_length, positions, print_fn, show_trainable=show_trainable,
                      expand_nested=expand_nested)

    def _input_spec_for_saving(self):
        if self._is_graph_network:
            return _spec_of(self._input_tensors)
        return self.__dict__.get("_call_input_spec")

    def _default_save_signature(self):
        """`self(inputs, training=False)` as a tf.function over the model's known inputs, or None when the
        model has neither an input shape nor been called."""
        spec = self._input_spec_for_saving()
        if spec is None:
            return None
        model = self

        def serve(inputs):
            return model(inputs, training=False)
        serve.__name__ = "__call__"
        return tf.function(serve, input_signature=[spec])

    def save(self, filepath, overwrite=True, save_format=None, **kwargs):
        """Saves in the saved-model format (a directory), as `tf.saved_model.save(model, filepath)` does:
        loading it back gives an object callable on the model's inputs."""
        filepath = os.fspath(filepath)
        if save_format in ("h5", "keras") or filepath.endswith((".h5", ".hdf5", ".keras")):
            raise NotImplementedError(f"rivulet saves models in the saved-model format only (a directory); "
                                      f"got filepath={filepath!r}, save_format={save_format!r}.")
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"{filepath} exists and overwrite=False.")
        tf.saved_model.save(self, filepath)

    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Writes `self.weights` to `filepath` (exactly that path) as an uncompressed NumPy .npz archive:
        arrays `w0000`, `w0001` ... in `model.weights` order, `names` (the variables' names, a unicode array)
        and `format` ("rivulet-weights-v1"). No pickled objects, so `np.load(path)` reads it safely."""
        filepath = os.fspath(filepath)
        if save_format in ("h5", "hdf5") or filepath.endswith((".h5", ".hdf5", ".keras")):
            raise NotImplementedError(f"rivulet saves weights as a NumPy .npz archive only; got "
                                      f"filepath={filepath!r}, save_format={save_format!r}.")
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"{filepath} exists and overwrite=False.")
        weights = self.weights
        arrays = {f"w{i:04d}": w.numpy() for i, w in enumerate(weights)}
        arrays["names"] = np.array([w.name for w in weights], dtype=np.str_)
        arrays["format"] = np.array(_WEIGHTS_FORMAT)
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(filepath, "wb") as f:
            np.savez(f, **arrays)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False, options=None):
        """Reads a file written by `save_weights` into `self.weights`, in order. Raises ValueError, changing
        nothing, when the number of weights or any weight's shape differs from the model's."""
        if by_name or skip_mismatch:
            raise NotImplementedError("rivulet's load_weights matches weights by order only (by_name and "
                                      "skip_mismatch are not supported).")
        filepath = os.fspath(filepath)
        try:
            with open(filepath, "rb") as f, np.load(f, allow_pickle=False) as data:
                files = set(data.files)
                if "format" not in files or str(data["format"]) != _WEIGHTS_FORMAT:
                    raise ValueError(f"{filepath} is not a rivulet weights file (written by Model.save_weights).")
                names = [str(n) for n in data["names"]]
                values = [data[f"w{i:04d}"] for i in range(len(names))]
        except (OSError, KeyError, EOFError, zipfile.BadZipFile) as e:
            if isinstance(e, FileNotFoundError):
                raise
            raise ValueError(f"Could not read weights from {filepath}: {e}") from None
        weights = self.weights
        if not weights and values:
            raise ValueError(f"Model \"{self.name}\" has no weights yet (it is not built): call it on data or "
                             f"build() it before load_weights, which expects {len(values)} weights.")
        if len(weights) != len(values):
            raise ValueError(f"Weight count mismatch: the file {filepath} holds {len(values)} weights but model "
                             f"\"{self.name}\" has {len(weights)}.")
        for w, name, value in zip(weights, names, values):
            if tuple(w.shape) != value.shape:
                raise ValueError(f"Weight shape mismatch for {w.name}: the model's is {tuple(w.shape)}, the file's "
                                 f"(saved as {name}) is {value.shape}.")
        for w, value in zip(weights, values):
            w.assign(value.astype(w.dtype.as_numpy_dtype, copy=False))

    def get_config(self):
        return {"name": self.name}


def _spec_of(inputs):
    """TensorSpecs (batch dimension None) for a structure of tensors / KerasTensors; None if any is not one."""
    leaves = nest.flatten(inputs)
    if not leaves or not all(hasattr(t, "shape") and hasattr(t, "dtype") for t in leaves):
        return None
    if any(tf.TensorShape(t.shape).rank in (None, 0) for t in leaves):
        return None
    single = not nest.is_nested(inputs)

    def spec(t):
        shape = tf.TensorShape(t.shape).as_list()
        name = "inputs" if single else (getattr(t, "name", None) or getattr(t, "_creator", None))
        return tf.TensorSpec([None] + shape[1:], tf.as_dtype(t.dtype), name=name if isinstance(name, str) else None)
    return nest.map_structure(spec, inputs)


class Sequential(Model):
    """A plain stack of layers. With an input shape (an Input, or `input_shape=` on the first layer) it is
    built at once and `summary()` shows every output shape; otherwise it is built on its first call."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack = []
        self._graph_input = None
        for layer in layers or ():
            self.add(layer)

    def add(self, layer):
        if isinstance(layer, KerasTensor):
            layer = layer.node.layer
        if not isinstance(layer, Layer):
            raise TypeError(f"The added layer must be an instance of class Layer. Received: layer={layer} of type "
                            f"{type(layer)}.")
        if isinstance(layer, InputLayer):
            if self._stack or self._graph_input is not None:
                raise ValueError("An InputLayer can only be added first to a Sequential model.")
            self._graph_input = layer._keras_input
            self._input_layer = layer
            self._rebuild_graph()
            return
        if any(layer is l for l in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique names. Name "
                             f"\"{layer.name}\" is already the name of a layer in this model.")
        self._stack.append(layer)
        shape, dtype = layer._batch_input_shape, layer.dtype
        if shape is None and isinstance(layer, Model) and len(layer.inputs or ()) == 1:
            shape, dtype = tuple(layer.inputs[0].shape.as_list()), layer.inputs[0].dtype  # a nested model's input
        if self._graph_input is None and len(self._stack) == 1 and shape is not None:
            self._graph_input = Input(batch_shape=shape, dtype=dtype, name=f"{layer.name}_input")
            self._rebuild_graph()
        elif self._graph_input is not None:
            self._outputs_kt.append(layer(self._outputs_kt[-1]))
        self._train_fn = self._eval_fn = self._predict_fn = None

    def pop(self):
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        if self._graph_input is not None:
            self._outputs_kt.pop()
            layer._inbound.pop()
            layer._out_shape = tuple(layer._inbound[-1].outputs.shape.as_list()) if layer._inbound else None

    def _rebuild_graph(self):
        """Connects every layer once, from the input: KerasTensors after each layer (the input first)."""
        self._outputs_kt = [self._graph_input]
        for layer in self._stack:
            self._outputs_kt.append(layer(self._outputs_kt[-1]))
        self.built = True

    @property
    def layers(self):
        return list(self._stack)

    def _input_name(self):
        # Keras names a Sequential's implicit input after its first layer (no input_N number is used up).
        return f"{self._stack[0].name}_input" if self._stack else None

    @property
    def inputs(self):
        return [self._graph_input] if self._graph_input is not None else None

    @property
    def outputs(self):
        return [self._outputs_kt[-1]] if self._graph_input is not None else None

    def _direct_children(self):
        return list(self._stack)

    @property
    def input_shape(self):
        return tuple(self._graph_input.shape.as_list()) if self._graph_input is not None else None

    def _input_spec_for_saving(self):
        if self._graph_input is not None:
            return _spec_of(self._graph_input)
        return self.__dict__.get("_call_input_spec")

    def build(self, input_shape=None):
        if input_shape is None:
            if self._graph_input is None:
                raise ValueError("You must provide an `input_shape` argument.")
        elif self._graph_input is None:
            self._graph_input = Input(batch_shape=tuple(input_shape), name=self._input_name())
            self._rebuild_graph()
        self.built = True

    def _maybe_build(self, inputs):
        if "_call_input_spec" not in self.__dict__:
            self._call_input_spec = _spec_of(inputs)
        if self._graph_input is None and not nest.is_nested(inputs) and inputs.shape.rank is not None:
            # Build with the batch dimension left open, so summary() can show output shapes. Layers that
            # cannot run symbolically leave the model as a plain stack, built by this eager call.
            seen = [len(layer._inbound) for layer in self._stack]
            self._graph_input = Input(batch_shape=(None,) + tuple(inputs.shape.as_list()[1:]), dtype=inputs.dtype,
                                      name=self._input_name())
            try:
                self._rebuild_graph()
            except Exception:  # noqa: BLE001  (any failure of user code on placeholders)
                self._graph_input = None
                for layer, n in zip(self._stack, seen):
                    del layer._inbound[n:]
                    layer._out_shape = None
        self.built = True

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self._stack:
            x = layer(x)
        return x

    def get_config(self):
        return {"name": self.name, "layers": [{"class_name": type(l).__name__, "config": l.get_config()}
                                              for l in self._stack]}


