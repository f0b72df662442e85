"""A stand-in for `tensorflow_hub`, for the tutorial runner only (never shipped with rivulet).

The real package downloads a SavedModel for a handle (`https://tfhub.dev/google/...`) into its cache
(TFHUB_CACHE_DIR, else `<tmp>/tfhub_modules`, one folder per handle named by the handle's SHA-1) and loads
it with `tf.saved_model.load`. This one does the same, except that the download is replaced: the module is
built with rivulet (models.py: small random-weight models in the real modules' interface) and saved with
rivulet's `tf.saved_model.save` into that cache folder, in a process of its own as a download is made (the
notebook's Keras layer names, seeds and traces are left alone), then loaded back from it with
`tf.saved_model.load`, so the notebooks run on loaded SavedModels as with the real hub.

What it serves: `load(handle, tags=None, options=None)`, `resolve(handle)`, and `KerasLayer(handle,
trainable=False, arguments=None, tags=None, signature=None, signature_outputs_as_dict=None, output_key=None,
output_shape=None, load_options=None, **layer kwargs)` as tensorflow_hub 0.16 behaves: the loaded object's
trainable variables are the layer's trainable weights (when `trainable=True`), its other variables
non-trainable weights; a `training` argument of the loaded `__call__` gets the layer's training flag
(always False while the layer is frozen); `signature` calls `signatures[signature]` (outputs as a dict with
`signature_outputs_as_dict`, else its one output or `output_key`'s); `arguments` are extra keyword
arguments of every call; `get_config` holds the handle. A handle may also be a local SavedModel folder.
"""
import hashlib
import os
import tempfile

__version__ = "0.16.1"


def _cache_dir():
    return os.environ.get("TFHUB_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "tfhub_modules")


def resolve(handle):
    """The local folder holding the SavedModel for `handle` (built and saved there the first time)."""
    if not isinstance(handle, str):
        raise ValueError(f"Expected a string handle, got {type(handle)}")
    if os.path.isdir(handle):
        return handle
    if handle.startswith(("https://", "http://", "gs://")):
        key = handle.split("?")[0].rstrip("/")
    else:
        raise ValueError(f"'{handle}' is neither a local folder nor a URL the tensorflow_hub stand-in serves")
    folder = os.path.join(_cache_dir(), hashlib.sha1(key.encode("utf8")).hexdigest())
    if not os.path.exists(folder + ".descriptor.txt"):  # written once the module is whole, as hub's
        os.makedirs(folder, exist_ok=True)
        _build_elsewhere(key, folder)
        with open(folder + ".descriptor.txt", "w") as f:
            f.write(f"Module: {key}\nDownloader: tensorflow_hub stand-in (built with rivulet)\n")
    return folder


def _build_elsewhere(handle, folder):
    """Builds and saves the module in a process of its own, as a download would: the notebook's process keeps
    its Keras layer names (`dense`, not `dense_2` after the module's own layers), seeds and traces."""
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    code = "import sys; from tensorflow_hub import models; models.build(sys.argv[1], sys.argv[2])"
    done = subprocess.run([sys.executable, "-c", code, handle, folder], env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise ValueError(lines[-1] if lines else f"building the module for {handle} failed")


def load(handle, tags=None, options=None):
    import rivulet as tf
    if not isinstance(handle, str):
        raise ValueError(f"Expected a string, got {handle}")
    return tf.saved_model.load(resolve(handle), tags=tags, options=options)


def _has_training_argument(func):
    call = getattr(func, "__call__", None)
    spec = getattr(call, "function_spec", None)
    if spec is not None and hasattr(spec, "parameters"):
        return "training" in spec.parameters
    import inspect
    try:
        return "training" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


def _keras_layer_class():
    import rivulet as tf

    class KerasLayer(tf.keras.layers.Layer):
        """Wraps a SavedModel (or a callable) as a Keras layer, as tensorflow_hub.KerasLayer."""

        def __init__(self, handle, trainable=False, arguments=None, _sentinel=None, tags=None, signature=None,
                     signature_outputs_as_dict=None, output_key=None, output_shape=None, load_options=None,
                     **kwargs):
            if _sentinel is not None:
                raise ValueError("Only pass `handle` and `trainable` as positional arguments.")
            self._handle = handle
            self._arguments = dict(arguments or {})
            self._signature = signature
            self._signature_outputs_as_dict = signature_outputs_as_dict
            self._output_key = output_key
            if output_shape is not None:
                self._output_shape = tuple(output_shape)
            self._func = load(handle, tags, load_options) if isinstance(handle, str) else handle
            if not callable(self._func) and signature is None:
                raise ValueError("Non-callable result from hub.load")
            if signature_outputs_as_dict and not signature:
                raise ValueError("signature_outputs_as_dict is only valid if specifying a signature.")
            if signature:
                self._callable = self._func.signatures[signature]
                self._has_training_argument = False
            else:
                self._callable = self._func
                self._has_training_argument = _has_training_argument(self._func)
            super().__init__(trainable=trainable, **kwargs)
            # the loaded object's variables become the layer's weights
            trainable_vars = list(getattr(self._func, "trainable_variables", ()))
            ids = {id(v) for v in trainable_vars}
            self._trainable_weights.extend(trainable_vars)
            self._non_trainable_weights.extend(
                v for v in getattr(self._func, "variables", ()) if id(v) not in ids)

        @property
        def non_trainable_weights(self):
            if self.trainable:
                return list(self._non_trainable_weights)
            return list(self._trainable_weights) + list(self._non_trainable_weights)

        @property
        def trainable_weights(self):
            return list(self._trainable_weights) if self.trainable else []

        @property
        def weights(self):
            return self.trainable_weights + self.non_trainable_weights

        trainable_variables = trainable_weights
        non_trainable_variables = non_trainable_weights
        variables = weights

        def call(self, inputs, training=None):
            kwargs = dict(self._arguments)
            args = []
            if self._signature and isinstance(inputs, dict):
                kwargs.update(inputs)
            else:
                args.append(inputs)
            if self._signature and args:
                # a signature takes keyword arguments: its one input by name
                names = list(self._callable.structured_input_signature[1]) \
                    if hasattr(self._callable, "structured_input_signature") else []
                if len(names) != 1:
                    raise ValueError(f"Signature '{self._signature}' takes the inputs {names}: pass a dict")
                kwargs[names[0]] = args.pop()
            if not self._has_training_argument:
                result = self._callable(*args, **kwargs)
            else:
                if not self.trainable:
                    training = False
                elif training is None:
                    training = bool(tf.keras.backend.learning_phase())
                if isinstance(training, bool):
                    result = self._callable(*args, training=training, **kwargs)
                else:
                    result = tf.cond(tf.cast(training, tf.bool),
                                     lambda: self._callable(*args, training=True, **kwargs),
                                     lambda: self._callable(*args, training=False, **kwargs))
            if self._signature and not self._signature_outputs_as_dict and not self._output_key:
                if isinstance(result, dict) and len(result) == 1:
                    result = next(iter(result.values()))
                elif isinstance(result, dict):
                    raise ValueError(f"Specifying `signature` without `output_key` or "
                                     f"`signature_outputs_as_dict` requires a single output; got {sorted(result)}")
            if self._output_key:
                if not isinstance(result, dict):
                    raise ValueError(f"Specifying `output_key` is forbidden if output type {type(result)} "
                                     f"is not a dict.")
                if self._output_key not in result:
                    raise ValueError(f"KerasLayer output does not contain the output key {self._output_key} "
                                     f"(available: {list(result.keys())}).")
                result = result[self._output_key]
            return result

        def get_config(self):
            config = super().get_config()
            if not isinstance(self._handle, str):
                raise NotImplementedError(
                    "Can only generate a valid config for `hub.KerasLayer(handle, ...)`that uses a string "
                    f"`handle`.\n\n Got `type(handle)`: {type(self._handle)}")
            config["handle"] = self._handle
            if hasattr(self, "_output_shape"):
                config["output_shape"] = self._output_shape
            if self._arguments:
                config["arguments"] = self._arguments
            if self._signature:
                config["signature"] = self._signature
            if self._output_key:
                config["output_key"] = self._output_key
            if self._signature_outputs_as_dict:
                config["signature_outputs_as_dict"] = self._signature_outputs_as_dict
            return config

        @property
        def resolved_object(self):
            return self._func

    KerasLayer.__module__ = "tensorflow_hub.keras_layer"
    return KerasLayer


def __getattr__(name):
    # the class is made on first use, so importing the stand-in does not import rivulet's Keras
    if name == "KerasLayer":
        cls = _keras_layer_class()
        globals()["KerasLayer"] = cls
        return cls
    raise AttributeError(f"module 'tensorflow_hub' has no attribute '{name}'")
