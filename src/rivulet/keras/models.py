"""tf.keras.Model (subclassed or functional) and tf.keras.Sequential."""
import os
import zipfile

import numpy as np

import rivulet as tf
from rivulet import nest
from rivulet.core.tensor import Tensor

from .layers.base import Layer
from .layers.input_layer import Input, InputLayer, KerasTensor
from .summary import print_summary
from .training import Trainer

_WEIGHTS_FORMAT = "rivulet-weights-v1"


def _current_strategy():
    import rivulet as tf
    return tf.distribute.get_strategy() if tf.distribute.has_strategy() else None


class Model(Trainer, Layer):
    """Subclass and define `call`, or connect KerasTensors: `Model(inputs, outputs)`.

    `model(x)` runs `self.call` looked up on the instance, so `model.call = tf.function(model.call)` makes
    every later call use the traced function.
    """

    def _checkpoint_children(self):  # checkpoints' children protocol (checkpoint/trackable.py)
        from .saving.checkpoint_names import model_children
        return model_children(self)

    def __init__(self, *args, **kwargs):
        # tf_keras takes positional arguments as (inputs, outputs) only when both are given; a subclass's
        # super().__init__(self) (effective_tf2's DynamicRNN) passes one, which it ignores
        if len(args) == 1 and "outputs" not in kwargs:
            args = ()
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(**kwargs)
        self._is_compiled = False
        self._run_eagerly = None
        self._train_fn = self._eval_fn = self._predict_fn = None
        self.stop_training = False
        self._is_graph_network = False
        # tf.distribute: a model made inside `strategy.scope()` trains with that strategy
        self._distribution_strategy = _current_strategy()
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
        self._autocast = False  # as tf_keras: inputs take their Input's dtype (_conform_to_input), not autocast
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
        self._graph_layers = _layers_by_depth(flat_in, nest.flatten(outputs))
        self._is_graph_network = True
        self.built = True

    @property
    def inputs(self):
        return nest.flatten(self._input_tensors) if self._is_graph_network else None

    @property
    def outputs(self):
        return nest.flatten(self._output_tensors) if self._is_graph_network else None

    @property
    def input(self):
        """A functional model's inputs as it was built on them (one tensor when it has one), tf_keras's
        `model.input`, called or not; other models: their first call's, as a layer's."""
        return self._input_tensors if self._is_graph_network else super().input

    @property
    def output(self):
        """A functional model's outputs as it was built on them (one tensor when it has one)."""
        return self._output_tensors if self._is_graph_network else super().output

    @property
    def input_names(self):
        """The input layers' names (functional models; tf_keras's `input_names`)."""
        return [t.node.layer.name for t in self.inputs] if self._is_graph_network else None

    @property
    def output_names(self):
        """The output layers' names, made unique as tf_keras makes them (`dense`, `dense_1` for two outputs
        of one layer); the keys of a saved model's serving signature."""
        if not self._is_graph_network:
            return None  # a subclassed model (saved models key its outputs output_1, output_2 ...)
        names, counts = [], {}
        for t in self.outputs:
            base = t.node.layer.name
            proposal = base
            while proposal in names:
                n = counts.get(base, 1)
                proposal = f"{base}_{n}"
                counts[base] = n + 1
            names.append(proposal)
        return names

    def _run_graph(self, inputs):
        values = {}
        refs = nest.flatten(self._input_tensors)
        given = self._flat_inputs(inputs, refs)
        if len(given) != len(refs):
            raise ValueError(f"Layer \"{self.name}\" expects {len(refs)} input(s), but it received {len(given)} "
                             f"input tensors. Inputs received: {given!r}")
        for kt, v in zip(refs, given):
            values[id(kt)] = _conform_to_input(v, kt)
        # As tf_keras, a value is let go once the last node taking it has run (an eager MobileNetV2 batch
        # held every layer's activations until the end: 1.3 GiB at 160x160x3, batch 32).
        left = dict(self._value_uses())
        for node in self._nodes:
            def value(structure):
                return nest.map_structure(lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, structure)
            out = node.layer(value(node.inputs), *value(list(node.args)), **value(dict(node.kwargs)))
            for kt, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(kt)] = v
            for kt in node.keras_inputs():
                n = left[id(kt)] - 1
                left[id(kt)] = n
                if not n:
                    values.pop(id(kt), None)
        return nest.map_structure(lambda kt: values[id(kt)], self._output_tensors)

    def _value_uses(self):
        """id(KerasTensor) -> how many times the nodes take it; the model's outputs are never let go."""
        key = (len(self._nodes), id(self._output_tensors))
        got = self.__dict__.get("_uses_cache")
        if got is None or got[0] != key:
            uses = {}
            for node in self._nodes:
                for kt in node.keras_inputs():
                    uses[id(kt)] = uses.get(id(kt), 0) + 1
            for kt in nest.flatten(self._output_tensors):
                uses[id(kt)] = uses.get(id(kt), 0) + (1 << 30)
            got = self.__dict__["_uses_cache"] = (key, uses)
        return got[1]

    def _flat_inputs(self, inputs, refs):
        """The call's input values in the order of `self.inputs` (tf_keras' mapping): a dict is matched by key
        (the model's own input dict keys, else its Input layers' names), so neither its key order nor keys
        the model does not take can shift a value onto another input."""
        if not isinstance(inputs, dict):
            return nest.flatten(inputs)
        ref = self._input_tensors
        if isinstance(ref, dict):
            missing = [k for k in nest._sorted_keys(ref) if k not in inputs]
            if missing:
                raise ValueError(f"Missing data for input {missing[0]!r} of model \"{self.name}\". You passed a data "
                                 f"dictionary with keys {list(inputs)}. Expected the following keys: "
                                 f"{nest._sorted_keys(ref)}")
            return nest.flatten({k: inputs[k] for k in ref})
        names = [kt._creator for kt in refs]
        if all(n in inputs for n in names):
            return [inputs[n] for n in names]
        return nest.flatten(inputs)

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
            self._first_call_spec = _spec_of(inputs, keep_batch=True)
        # Keras calls build() from __call__ only when a subclass defines its own build; the default
        # Model.build would run `call` once more on placeholders (and repeat its side effects).
        if type(self).build is not Model.build and not self.built:
            Layer._maybe_build(self, inputs)
        self.built = True
        self._set_plain()  # a subclassed model whose call takes only inputs: the layers' fast call path

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

    @property
    def input_shape(self):
        """A functional model's input shape(s), from its Input KerasTensors."""
        if self._is_graph_network:
            return nest.map_structure(_int_shape, self._input_tensors)
        raise AttributeError(f"The layer \"{self.name}\" has never been called and thus has no defined input "
                             "shape. Note that the `input_shape` property is only available for Functional and "
                             "Sequential models.")

    @property
    def output_shape(self):
        """A functional (or built Sequential) model's output shape(s), from its output KerasTensors."""
        if self._is_graph_network or self.outputs:
            structure = self._output_tensors if self._is_graph_network else self.outputs[0]
            return nest.map_structure(_int_shape, structure)
        return Layer.output_shape.fget(self)

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
                             "by calling the model on a batch of data.")
        print_summary(self, line_length, positions, print_fn, show_trainable=show_trainable,
                      expand_nested=expand_nested)

    def save_spec(self, dynamic_batch=True):
        """tf_keras' `Model.save_spec`: the TensorSpecs of the call's arguments as `([inputs], {})`, those of
        the model's Inputs or of its first call (`fit`, `evaluate`, `predict` and `model(x)` set them), the
        batch dimension None when `dynamic_batch`; None while the model has neither."""
        if self._input_spec_for_saving() is None:
            return None
        spec = self.__dict__.get("_first_call_spec")
        if spec is None:  # the model's Inputs: specs named after them
            inputs = self._input_tensors if self._is_graph_network else self._graph_input
            spec = nest.map_structure(lambda t: tf.TensorSpec(t.shape, tf.as_dtype(t.dtype), name=t.name), inputs)
        if dynamic_batch:
            spec = nest.map_structure(
                lambda s: tf.TensorSpec([None] + s.shape.as_list()[1:], s.dtype, name=s.name), spec)
        return [spec], {}

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

    def _default_serving_signature(self):
        """The serving signature tf_keras saves: the call's outputs as a dict keyed by `output_names`
        (`output_1`, `output_2` ... for a subclassed model), or None when the model has no known inputs."""
        spec = self._input_spec_for_saving()
        if spec is None:
            return None
        model = self

        def serving_default(inputs):
            out = model(inputs, training=False)
            if isinstance(out, dict):  # dict outputs keep their keys
                return dict(out)
            flat = nest.flatten(out)
            names = model.output_names
            if not names or len(names) != len(flat):
                names = [f"output_{i + 1}" for i in range(len(flat))]
            return dict(zip(names, flat))
        return tf.function(serving_default, input_signature=[spec])

    def export(self, filepath):
        """tf_keras's `Model.export`: a SavedModel for inference (`tf.saved_model.load(filepath).serve(x)`): the
        model's call on its inputs' specs as the endpoint `serve`, also the signature `serving_default`;
        prints the endpoints as tf_keras does."""
        spec = self._input_spec_for_saving()
        if spec is None:
            raise ValueError("The model provided has never called. It must be called at least once before export.")
        spec = nest.map_structure(lambda s: tf.TensorSpec(s.shape, dtype=s.dtype), spec)
        model = self

        def serve(*args):
            return model(*args)
        serve = tf.function(serve, input_signature=[spec])
        archive = tf.Module()
        archive.model = self
        archive.serve = serve
        tf.saved_model.save(archive, os.fspath(filepath), signatures={"serve": serve, "serving_default": serve})
        lines = serve.get_concrete_function().pretty_printed_signature(verbose=True).split("\n")
        print(f"Saved artifact at '{os.fspath(filepath)}'. The following endpoints are available:\n\n"
              + "\n".join(["* Endpoint 'serve'"] + lines[1:]))

    def save(self, filepath, overwrite=True, save_format=None, **kwargs):
        """`m.keras` (or save_format="keras"): the Keras 2.13+ zip (config.json, metadata.json,
        model.weights.h5; needs h5py). `m.h5`/`m.hdf5` (or save_format="h5"): tf_keras's legacy HDF5 file
        (model_config, training_config, model_weights, optimizer_weights). Otherwise a saved-model directory,
        which `tf.saved_model.load` loads as a callable and `tf.keras.models.load_model` as a Keras model."""
        from .saving.model_files import save_model
        filepath = os.fspath(filepath)
        if save_format == "keras" and not filepath.endswith(".keras"):
            raise ValueError(f"The filepath of a model saved in the .keras format must end in .keras; got {filepath}")
        save_model(self, filepath, overwrite=overwrite, save_format=save_format,
                   include_optimizer=kwargs.get("include_optimizer", True))

    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Writes the weights (and the optimizer's state), by the path's ending as tf_keras does:
        - `*.weights.h5`: Keras 2.13+'s HDF5 layout (needs h5py);
        - other `*.h5`/`*.hdf5` (or save_format="h5"): tf_keras's legacy layout (layer_names, weight_names);
        - `*.npz`: rivulet's own archive (`w0000`... in `model.weights` order, `names`, `format`);
        - anything else: a TensorFlow checkpoint (`PATH.index`, `PATH.data-00000-of-00001` and the
          directory's `checkpoint` file), which TensorFlow restores and `load_weights` reads back."""
        filepath = os.fspath(filepath)
        if not overwrite and (os.path.exists(filepath) or os.path.exists(filepath + ".index")):
            raise FileExistsError(f"{filepath} exists and overwrite=False.")
        if filepath.endswith(".weights.h5"):
            from .saving.weights_h5 import save_weights_h5
            directory = os.path.dirname(filepath)
            if directory:
                os.makedirs(directory, exist_ok=True)
            save_weights_h5(self, filepath)
            return
        if filepath.endswith((".h5", ".hdf5")) or save_format in ("h5", "hdf5"):
            from .saving.legacy_h5 import save_weights_h5_legacy  # tf_keras's legacy layout (layer_names...)
            save_weights_h5_legacy(self, filepath)
            return
        if filepath.endswith(".npz") or save_format == "npz":
            self._save_npz(filepath)
            return
        from ..checkpoint.checkpoint import save_object
        from ..checkpoint.management import update_checkpoint_state
        save_object(self, filepath)
        update_checkpoint_state(os.path.dirname(filepath), filepath, [filepath])

    def _save_npz(self, filepath):
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
        """Reads what `save_weights` wrote (the format is found from the path, as there). A checkpoint is
        restored by object and returns the restore status; .npz and .weights.h5 files raise ValueError,
        changing nothing, when the number of weights or any weight's shape differs from the model's."""
        filepath = os.fspath(filepath)
        if filepath.endswith((".h5", ".hdf5")) and not filepath.endswith(".weights.h5"):
            from .saving.legacy_h5 import load_weights_h5_legacy  # tf_keras's legacy layout, by order or name
            load_weights_h5_legacy(self, filepath, by_name=by_name, skip_mismatch=skip_mismatch)
            return None
        if by_name or skip_mismatch:
            raise NotImplementedError("rivulet's load_weights matches weights by name only in legacy .h5 files "
                                      "(by_name and skip_mismatch are not supported for other formats).")
        if filepath.endswith(".weights.h5"):
            from .saving.weights_h5 import load_weights_h5
            load_weights_h5(self, filepath)
            return None
        if filepath.endswith(".keras") and os.path.isfile(filepath) and zipfile.is_zipfile(filepath):
            from .saving.model_files import load_weights_from_keras
            load_weights_from_keras(self, filepath)
            return None
        if not os.path.isfile(filepath) or not zipfile.is_zipfile(filepath):
            # A TensorFlow checkpoint (or a directory holding some): restored by object, deferred for
            # layers that are built later.
            from ..checkpoint.checkpoint import restore_object
            from ..checkpoint.management import latest_checkpoint
            if os.path.isdir(filepath):
                filepath = latest_checkpoint(filepath) or filepath
            if not os.path.exists(filepath + ".index") and os.path.isfile(filepath):
                raise ValueError(f"Could not read weights from {filepath}: neither a TensorFlow checkpoint, a "
                                 ".weights.h5 file nor a rivulet .npz archive.")
            return restore_object(self, filepath)
        self._load_npz(filepath)

    def _load_npz(self, filepath):
        from .saving.weights_npz import read_weights_npz
        values = read_weights_npz(self, filepath, _WEIGHTS_FORMAT)  # checked whole before anything is assigned
        for w, value in zip(self.weights, values):
            w.assign(value)


    # -- config (functional and subclassed; Sequential has its own) ------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, weighted_metrics=None,
                run_eagerly=None, steps_per_execution=None, jit_compile=None, **kwargs):
        super().compile(optimizer, loss, metrics, loss_weights, weighted_metrics, run_eagerly, steps_per_execution,
                        jit_compile, **kwargs)
        self._compile_args = {"loss": loss, "metrics": metrics, "loss_weights": loss_weights,
                              "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly,
                              "steps_per_execution": steps_per_execution, "jit_compile": jit_compile}

    def get_compile_config(self):
        """What `compile` was given (the optimizer as its config), or None before compile."""
        args = self.__dict__.get("_compile_args")
        if args is None or not self._is_compiled:
            return None
        from .saving.serialization import serialize_keras_object
        return {"optimizer": serialize_keras_object(self.optimizer),
                **{k: serialize_keras_object(v) for k, v in args.items()}}

    def compile_from_config(self, config, custom_objects=None):
        from .saving.serialization import deserialize_keras_object
        config = dict(config)
        opt = config.pop("optimizer", "rmsprop")
        if isinstance(opt, dict) and isinstance(opt.get("config"), dict):
            from . import optimizers
            inner = {k: v for k, v in opt["config"].items() if k not in _TF_ONLY_OPTIMIZER_KEYS}
            opt = {**opt, "config": inner}
            opt = deserialize_keras_object(opt, custom_objects, printable_module_name="optimizer")
            if not isinstance(opt, optimizers.Optimizer):
                raise ValueError(f"Could not interpret optimizer config: {config!r}")
        loss = deserialize_keras_object(config.pop("loss", None), custom_objects)
        metrics = deserialize_keras_object(config.pop("metrics", None), custom_objects)
        self.compile(optimizer=opt, loss=loss, metrics=metrics,
                     **{k: v for k, v in config.items() if k in ("loss_weights", "weighted_metrics", "run_eagerly",
                                                                  "steps_per_execution", "jit_compile")})

    def _build_config(self):
        spec = self._input_spec_for_saving()
        if spec is None:
            return None
        if isinstance(spec, dict):  # a dict of inputs (DenseFeatures): shapes by name, as tf_keras writes them,
            # and their dtypes (rivulet's addition: a string or integer feature cannot be rebuilt from zeros.)
            return {"input_shape": {k: tf.TensorShape(v.shape).as_list() for k, v in spec.items()},
                    "input_dtype": {k: tf.as_dtype(v.dtype).name for k, v in spec.items()}}
        shapes = [tf.TensorShape(s.shape).as_list() for s in nest.flatten(spec)]
        return {"input_shape": shapes[0] if len(shapes) == 1 and not nest.is_nested(spec) else shapes}

    def build_from_config(self, config):
        shape = config.get("input_shape") if isinstance(config, dict) else None
        if shape is None or self.built:
            return
        if isinstance(shape, dict):
            dtypes = config.get("input_dtype") or {}
            self({k: tf.zeros([1 if d is None else d for d in s], dtype=dtypes.get(k, "float32"))
                  for k, s in shape.items()})
        elif shape and isinstance(shape[0], list):
            self([tf.zeros([1 if d is None else d for d in s]) for s in shape])
        else:
            self.build(tuple(shape))

    def get_config(self):
        """A functional model's layers and connections (as Keras 2 writes them); for a subclassed model, the
        arguments its constructor was called with (override get_config when they are not plain values)."""
        if not self._is_graph_network:
            return Layer.get_config(self)
        from .saving.serialization import serialize_keras_object
        node_index = {}  # id(node) -> its index among its layer's nodes in this model

        def index_of(node):
            if id(node) not in node_index:
                mine = [n for n in node.layer._inbound if id(n) in model_nodes]
                first = _own_graph_nodes(node.layer)  # Keras counts a nested model's own node first
                for i, n in enumerate(mine):
                    node_index[id(n)] = i + first
            return node_index[id(node)]
        model_nodes = {id(n) for n in self._nodes}
        model_nodes.update(id(l._inbound[0]) for l in self._graph_layers if isinstance(l, InputLayer))

        def ref(kt):
            flat = nest.flatten(kt.node.outputs)
            return [kt.node.layer.name, index_of(kt.node), next(i for i, t in enumerate(flat) if t is kt)]
        layers = []
        for layer in self._graph_layers:
            entry = serialize_keras_object(layer)
            entry["name"] = layer.name
            inbound = []
            for node in self._nodes:
                if node.layer is layer:
                    hook = getattr(layer, "_node_config", None)  # TFOpLambda: its call's structure and arguments
                    if hook is not None:
                        inbound.append(hook(node, ref))
                        continue
                    kwargs = {k: v for k, v in node.kwargs.items() if isinstance(v, (bool, int, float, str))}
                    inbound.append([ref(t) + [kwargs] for t in nest.flatten(node.inputs)
                                    if isinstance(t, KerasTensor)])
            entry["inbound_nodes"] = inbound
            layers.append(entry)
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": [ref(t) for t in nest.flatten(self._input_tensors)],
                "output_layers": [ref(t) for t in nest.flatten(self._output_tensors)]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "layers" in config and "input_layers" in config:
            return _functional_from_config(cls, config, custom_objects)
        try:
            return cls(**config)
        except TypeError as e:
            base = {k: v for k, v in config.items() if k not in ("name", "trainable", "dtype")}
            try:
                return cls(**base)
            except TypeError:
                raise TypeError(f"Unable to revive model from config. When overriding the `get_config()` method, "
                                f"make sure that the returned config contains all items used as arguments in the "
                                f"constructor to {cls}, which is the default behavior. Error: {e}") from None

    def to_json(self, **kwargs):
        """The model's architecture as JSON (no weights): `keras.models.model_from_json` rebuilds it."""
        import json
        from .saving.serialization import serialize_keras_object
        entry = serialize_keras_object(self)
        entry.pop("build_config", None)
        entry = {"class_name": "Functional" if self._is_graph_network and type(self) is Model else
                 entry["class_name"], "config": entry["config"], "keras_version": KERAS_VERSION,
                 "backend": "tensorflow", "module": entry["module"], "registered_name": entry["registered_name"]}
        return json.dumps(entry, **kwargs)


KERAS_VERSION = "2.21.0"  # the tf_keras whose formats these are
_TF_ONLY_OPTIMIZER_KEYS = frozenset(["is_legacy_optimizer", "ema_overwrite_frequency", "weight_decay",
                                     "use_ema", "ema_momentum", "jit_compile"])


def _layers_by_depth(inputs, outputs):
    """A functional model's layers in Keras's order: deepest (farthest from the outputs) first, ties in the
    order a depth-first walk from the outputs first reaches them. Checkpoint names (`layer-3`) and the
    .keras weights layout depend on this order."""
    order, index, done = [], {}, set()

    def walk(node):  # post-order, recording each layer's first visit (pre-order) index
        if id(node) in done:
            return
        index.setdefault(id(node.layer), (len(index), node.layer))
        for parent in node.parents:
            walk(parent)
        done.add(id(node))
        order.append(node)
    for t in outputs:
        walk(t.node)
    node_depth, layer_depth = {}, {}
    for node in reversed(order):
        depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        for parent in node.parents:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for t in inputs:  # inputs that no output depends on
        if id(t.node.layer) not in layer_depth:
            layer_depth[id(t.node.layer)] = 0
            index[id(t.node.layer)] = (-1, t.node.layer)
    layers = [layer for _, layer in index.values()]
    return sorted(layers, key=lambda l: (-layer_depth[id(l)], index[id(l)][0]))


def _own_graph_nodes(layer):
    """1 for a nested functional model, or a Sequential built on an input: Keras numbers the node its own
    construction made first, so calls from an outer model count from 1 in configs."""
    if isinstance(layer, Sequential):
        return int(layer._graph_input is not None)
    return int(isinstance(layer, Model) and layer._is_graph_network)


def _functional_from_config(cls, config, custom_objects, clone_layer=None):
    """(`clone_layer(name)`: clone_model's layer for a layer that is no InputLayer, instead of its config's.)"""
    from .saving.serialization import deserialize_keras_object
    created, pending = {}, []
    for entry in config["layers"]:
        name = entry.get("name") or entry["config"].get("name")
        spec = {k: v for k, v in entry.items() if k not in ("name", "inbound_nodes")}
        if clone_layer is not None and entry.get("class_name") != "InputLayer":
            layer = clone_layer(name)
        else:
            layer = deserialize_keras_object(spec, custom_objects, printable_module_name="layer")
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer config {name!r} does not describe a layer")
        created[name] = layer
        pending.append((layer, list(entry.get("inbound_nodes") or [])))
    tensors = {}  # (layer name, node index, tensor index) -> KerasTensor
    for layer in created.values():
        if isinstance(layer, InputLayer):
            tensors[(layer.name, 0, 0)] = layer._keras_input
    done = {id(l): 0 for l in created.values()}
    first = {id(l): _own_graph_nodes(l) for l in created.values()}
    progress = True
    while progress:
        progress = False
        for layer, nodes in pending:
            while done[id(layer)] < len(nodes):
                node = nodes[done[id(layer)]]
                hook = getattr(layer, "_node_from_config", None)  # TFOpLambda: its call's structure and arguments
                if hook is not None:
                    try:
                        inputs, kwargs = hook(node, tensors)
                    except KeyError:  # a tensor it names is not computed yet
                        break
                else:
                    refs = node if node and isinstance(node[0], list) else [node]
                    keys = [(r[0], r[1], r[2]) for r in refs]
                    if not all(k in tensors for k in keys):
                        break
                    kwargs = refs[0][3] if len(refs[0]) > 3 and isinstance(refs[0][3], dict) else {}
                    args = [tensors[k] for k in keys]
                    inputs = args[0] if len(args) == 1 else args
                out = layer(inputs, **kwargs)
                for i, t in enumerate(nest.flatten(out)):
                    tensors[(layer.name, done[id(layer)] + first[id(layer)], i)] = t
                done[id(layer)] += 1
                progress = True
    try:
        inputs = [tensors[tuple(r[:3])] for r in config["input_layers"]]
        outputs = [tensors[tuple(r[:3])] for r in config["output_layers"]]
    except (KeyError, TypeError):
        raise ValueError("The functional model config is inconsistent: an input or output tensor cannot be "
                         "computed from its layers' inbound nodes.") from None
    model = cls(inputs=inputs[0] if len(inputs) == 1 else inputs,
                outputs=outputs[0] if len(outputs) == 1 else outputs, name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model


def _int_shape(kt):
    return tuple(kt.shape.as_list()) if kt.shape.rank is not None else None


def _conform_to_input(value, ref):
    """tf_keras's fitting of a value to its `Input`: a trailing dimension of 1 is dropped or added when the
    ranks differ by one (data (batch,) for an Input of shape (1,)), then the value is cast to the Input's dtype
    (float arrays fed to an int32 Input, uint8 or float64 images to a float32 one)."""
    if not isinstance(value, Tensor):
        if not (isinstance(value, np.ndarray) or (hasattr(value, "__array__") and hasattr(value, "dtype"))):
            return value
        value = tf.convert_to_tensor(value)
    rank, ref_rank = value.shape.rank, ref.shape.rank
    if rank is not None and ref_rank is not None:
        if rank == ref_rank + 1 and value.shape[-1] == 1:
            value = tf.squeeze(value, axis=-1)
        elif rank == ref_rank - 1 and ref.shape[-1] == 1:
            value = tf.expand_dims(value, axis=-1)
    if value.dtype != ref.dtype:
        value = tf.cast(value, ref.dtype)
    return value


def _spec_of(inputs, keep_batch=False):
    """TensorSpecs (batch dimension None) for a structure of tensors / KerasTensors; None if any is not one.
    (`keep_batch`: the tensors' own shapes, unnamed, as tf_keras's save_spec of a first call keeps them.)"""
    leaves = nest.flatten(inputs)
    if not leaves or not all(hasattr(t, "shape") and hasattr(t, "dtype") for t in leaves):
        return None
    if any(tf.TensorShape(t.shape).rank in (None, 0) for t in leaves):
        return None
    single = not nest.is_nested(inputs)

    def spec(t):
        composite = getattr(t, "_spec", None)  # an Input(type_spec=...) of a composite: its own spec
        if composite is not None:
            return composite
        shape = tf.TensorShape(t.shape).as_list()
        if keep_batch:
            return tf.TensorSpec(shape, tf.as_dtype(t.dtype))
        name = "inputs" if single else (getattr(t, "name", None) or getattr(t, "_creator", None))
        return tf.TensorSpec([None] + shape[1:], tf.as_dtype(t.dtype), name=name if isinstance(name, str) else None)
    return nest.map_structure(spec, inputs)


class Sequential(Model):
    """A plain stack of layers. With an input shape (an Input, or `input_shape=` on the first layer) it is
    built at once and `summary()` shows every output shape; otherwise it is built on its first call."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._autocast = False  # as tf_keras: the Input's dtype (or the first layer's own autocast) decides
        self._stack = []
        self._graph_input = None
        for layer in layers or ():
            self.add(layer)

    @property
    def output_names(self):
        """[the last layer's name] once built, as tf_keras's Sequential (a graph network) has it."""
        if self._stack and (self._graph_input is not None or self.built):
            return [self._stack[-1].name]
        return None

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
        # as tf_keras: the input shape declared on the first layer, through nested Sequential / functional models
        # (a functional model's first layer is its InputLayer; a Sequential built by its first call declares none)
        first = layer
        while isinstance(first, Model) and (first._is_graph_network or isinstance(first, Sequential)):
            if not first.layers:
                raise ValueError("An empty Model cannot be used as a Layer.")
            first = first.layers[0]
        shape, dtype = getattr(first, "_batch_input_shape", None), first.dtype
        if isinstance(first, InputLayer):
            shape, dtype = tuple(first._keras_input.shape.as_list()), first._keras_input.dtype
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
            if self._graph_input is None:  # (with Inputs, those are its save_spec, as tf_keras)
                self._first_call_spec = _spec_of(inputs, keep_batch=True)
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
        if self._graph_input is not None and not nest.is_nested(inputs):
            x = _conform_to_input(x, self._graph_input)
        for layer in self._stack:
            x = layer(x)
        return x

    def get_config(self):
        from .saving.serialization import serialize_keras_object
        layers = [serialize_keras_object(l) for l in self._stack]
        if self._graph_input is not None:
            layers.insert(0, serialize_keras_object(self._graph_input.node.layer))
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from .saving.serialization import deserialize_keras_object
        model = cls(name=config.get("name"))
        for entry in config.get("layers", []):
            layer = deserialize_keras_object(entry, custom_objects, printable_module_name="layer")
            if not isinstance(layer, Layer):
                raise ValueError(f"Sequential layer config does not describe a layer: {entry!r}")
            model.add(layer)
        return model


def clone_model(model, input_tensors=None, clone_function=None):
    """tf.keras.models.clone_model: a Sequential or functional model of the same architecture made of new
    layers, `clone_function(layer)` for each (by default `layer.__class__.from_config(layer.get_config())`,
    so new weights: none are copied); its Inputs are new Inputs of the same shapes and names."""
    if clone_function is None:
        def clone_function(layer):
            return layer.__class__.from_config(layer.get_config())
    if not isinstance(model, Model):
        raise ValueError(f"Expected `model` argument to be a `Model` instance. Received: model={model}")
    if input_tensors is not None:
        raise NotImplementedError("rivulet's clone_model does not take input_tensors: the clone gets new Inputs "
                                  "of the model's shapes")

    def cloned(layer):
        new = clone_function(layer)
        if not isinstance(new, Layer):
            raise ValueError(f"Expected `clone_function` to return a Layer instance. Received: {new!r}")
        return new
    if isinstance(model, Sequential):
        clone = Sequential(name=model.name)
        if model._graph_input is not None:
            t = model._graph_input
            clone.add(Input(batch_shape=tuple(t.shape.as_list()), dtype=t.dtype, name=t.node.layer.name))
        for layer in model.layers:
            clone.add(cloned(layer))
        return clone
    if not model._is_graph_network:
        raise ValueError(f"Expected `model` argument to be a functional `Model` instance, but got a subclassed "
                         f"model instead: {model}")
    by_name = {layer.name: layer for layer in model.layers}
    return _functional_from_config(Model, model.get_config(), None, clone_layer=lambda name: cloned(by_name[name]))


def load_model(filepath, custom_objects=None, compile=True, options=None, safe_mode=True):
    """tf.keras.models.load_model: a .keras file or a directory written by `model.save`, as a Keras model."""
    from .saving.model_files import load_model as _load
    return _load(filepath, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)


def save_model(model, filepath, overwrite=True, save_format=None, **kwargs):
    model.save(filepath, overwrite=overwrite, save_format=save_format, **kwargs)


def model_from_json(json_string, custom_objects=None):
    from .saving.model_files import model_from_json as _from_json
    return _from_json(json_string, custom_objects)


def model_from_config(config, custom_objects=None):
    from .saving.model_files import model_from_config as _from_config
    return _from_config(config, custom_objects)
