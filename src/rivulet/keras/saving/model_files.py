"""model.save / keras.models.load_model: the `.keras` zip (Keras 2.13+: config.json, metadata.json,
model.weights.h5), the saved-model directory with the Keras config beside it, and tf_keras's legacy HDF5
file (`.h5`/`.hdf5` or save_format="h5": legacy_h5.py).

A directory gets `keras_metadata.json` (the same config as config.json) and the weights as a TensorFlow
checkpoint `keras_weights.index/.data-*` (no h5py needed), next to the saved model that
`tf.saved_model.load` reads.
"""
import datetime
import io
import json
import os
import struct
import zipfile
import zlib

from .config_checks import INTERNAL_ERRORS, MAX_JSON_BYTES, check_depth, parse_json
from .serialization import deserialize_keras_object, serialize_keras_object
from .weights_h5 import load_weights_h5, require_h5py, save_weights_h5, size_limit
from .zip_member import open_member

_CONFIG, _METADATA, _WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
_DIR_CONFIG, _DIR_WEIGHTS = "keras_metadata.json", "keras_weights"
_MAX_JSON = MAX_JSON_BYTES


def model_config(model):
    config = serialize_keras_object(model)
    compile_config = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    if compile_config is not None:
        config["compile_config"] = compile_config
    return config


def _metadata():
    from ..models import KERAS_VERSION
    return {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}


def save_model(model, filepath, overwrite=True, save_format=None, include_optimizer=True):
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    if save_format in ("h5", "hdf5") or save_format is None and filepath.endswith((".h5", ".hdf5")):
        from .legacy_h5 import save_model_h5
        save_model_h5(model, filepath, include_optimizer=include_optimizer)
        return
    if filepath.endswith(".keras"):
        require_h5py("Saving a model in the .keras format")
        config = json.dumps(model_config(model))
        weights = io.BytesIO()
        save_weights_h5(model, weights)
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        tmp = f"{filepath}.tmp{os.getpid()}"
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
            z.writestr(_METADATA, json.dumps(_metadata()))
            z.writestr(_CONFIG, config)
            z.writestr(_WEIGHTS, weights.getvalue())
        os.replace(tmp, filepath)
        return
    import rivulet as tf
    from ...checkpoint.checkpoint import save_object
    if not model.built and model._input_spec_for_saving() is None:  # tf_keras's check, in its words
        raise ValueError(
            f"Model {model} cannot be saved either because the input shape is not available or because the "
            "forward pass of the model is not defined.To define a forward pass, please override `Model.call()`. "
            "To specify an input shape, either call `build(input_shape)` directly, or call the model on actual "
            "data using `Model()`, `Model.fit()`, or `Model.predict()`. If you have a custom training step, "
            "please make sure to invoke the forward pass in train step through `Model.__call__`, i.e. "
            "`model(inputs)`, as opposed to `model.call()`.")
    tf.saved_model.save(model, filepath)
    with open(os.path.join(filepath, _DIR_CONFIG), "w", encoding="utf-8") as f:
        json.dump({**model_config(model), "metadata": _metadata()}, f)
    save_object(model, os.path.join(filepath, _DIR_WEIGHTS))


def _read_json(raw, where):
    config = parse_json(raw, where)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"{where} does not describe a Keras model")
    return config


def _revive(config, custom_objects, compile):
    from ..models import Model
    model = deserialize_keras_object({k: v for k, v in config.items() if k not in ("compile_config", "metadata")},
                                     custom_objects, printable_module_name="model")
    if not isinstance(model, Model):
        raise ValueError(f"The saved config describes a {type(model).__name__}, not a Keras model")
    compile_config = config.get("compile_config")
    if compile and compile_config:
        if not isinstance(compile_config, dict):
            raise ValueError(f"The saved compile_config must be a dict, got {type(compile_config).__name__}")
        try:
            model.compile_from_config(compile_config, custom_objects)
        except INTERNAL_ERRORS as e:
            raise ValueError(f"The saved compile_config cannot be used: {type(e).__name__}: {e}") from e
    return model


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A Keras model from a .keras file or a directory written by `model.save`."""
    filepath = os.fspath(filepath)
    if os.path.isdir(filepath):
        meta = os.path.join(filepath, _DIR_CONFIG)
        if not os.path.exists(meta):
            raise ValueError(f"{filepath} is a saved model without a Keras config ({_DIR_CONFIG}); load it with "
                             "tf.saved_model.load instead.")
        with open(meta, "rb") as f:
            config = _read_json(f.read(_MAX_JSON + 1), meta)
        try:
            model = _revive(config, custom_objects, compile)
        except ValueError as e:
            if not str(e).startswith("Unknown layer:"):
                raise
            # a layer class this process does not have (tensorflow_hub's KerasLayer): as tf_keras, the model
            # is revived from the saved model's own traced call, its variables restored with it
            return _revive_traced(filepath, config, e)
        from ...checkpoint.checkpoint import restore_object
        status = restore_object(model, os.path.join(filepath, _DIR_WEIGHTS))
        missing = status.unrestored(model.weights)
        if missing:  # (a config naming more than the weights hold would load with fresh initial values)
            raise ValueError(f"{filepath}: the saved weights ({_DIR_WEIGHTS}) hold no value for "
                             f"{len(missing)} of the model's {len(model.weights)} weights "
                             f"({', '.join(w.name for w in missing[:5])}): the config and the weights do not match")
        return model
    if filepath.endswith((".h5", ".hdf5")) or os.path.isfile(filepath) and _is_hdf5(filepath):
        from .legacy_h5 import load_model_h5
        return load_model_h5(filepath, custom_objects, compile)
    if not os.path.isfile(filepath):
        raise OSError(f"No file or directory found at {filepath}")
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 2 supports .keras files and "
                         "saved-model directories.")
    with _open_zip(filepath) as z:
        config = _read_json(_read_member(z, _CONFIG, _MAX_JSON, filepath), f"{filepath}/{_CONFIG}")
        model = _revive(config, custom_objects, compile)
        if _WEIGHTS not in z.namelist():  # (loading on with freshly initialised weights would be silently wrong)
            raise ValueError(f"{filepath}: expected a {_WEIGHTS} file in the archive")
        _load_zip_weights(model, z, filepath, skip_optimizer=not compile)
    return model


def _revive_traced(filepath, config, error):
    """A Keras model whose call is the saved model's traced `__call__` (tf_keras revives a model whose layer
    classes are unknown from its SavedModel functions so); `error` when the saved model has none."""
    import rivulet as tf
    from ..models import Model
    loaded = tf.saved_model.load(filepath)
    fn = vars(loaded).get("__call__")
    if fn is None:
        raise error
    name = config.get("config", {}).get("name") if isinstance(config.get("config"), dict) else None

    class RevivedModel(Model):
        def __init__(self):
            super().__init__(name=name)
            self._saved_call = fn
            self._saved_variables = list(loaded.variables)
            self.built = True

        def call(self, inputs, training=None):
            return self._saved_call(inputs)

    return RevivedModel()


def _is_hdf5(filepath):
    """Whether the file starts with HDF5's signature (a legacy .h5 file saved under another name)."""
    with open(filepath, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


def load_weights_from_keras(model, filepath):
    """`model.load_weights("x.keras")`: the weights (and optimizer state) of a .keras file into `model`."""
    with _open_zip(filepath) as z:
        if _WEIGHTS not in z.namelist():
            raise ValueError(f"{filepath} has no {_WEIGHTS}: not a .keras file with weights")
        _load_zip_weights(model, z, filepath, skip_optimizer=False)


def _load_zip_weights(model, z, filepath, skip_optimizer):
    where = f"{filepath}/{_WEIGHTS}"
    limit = size_limit(model)
    with open_member(z, z.getinfo(_WEIGHTS), limit, where) as member:
        load_weights_h5(model, member, skip_optimizer=skip_optimizer, where=where)


def _open_zip(filepath):
    try:
        return zipfile.ZipFile(filepath)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, ValueError, NotImplementedError) as e:
        raise ValueError(f"{filepath} is not a valid .keras archive: {e}") from None


def _read_member(z, name, limit, filepath):
    """A small member read whole (at most `limit` bytes, whatever its header says)."""
    if name not in z.namelist():
        raise ValueError(f"{filepath} has no {name}: not a .keras file")
    info = z.getinfo(name)
    if info.file_size > limit:
        raise ValueError(f"{filepath}: {name} is too large ({info.file_size} bytes; at most {limit})")
    if info.flag_bits & 0x1:
        raise ValueError(f"{filepath}: {name} is encrypted")
    try:
        with z.open(info) as f:
            return f.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, struct.error) as e:
        raise ValueError(f"{filepath}: {name} cannot be read, the archive is corrupted: {e}") from None


def model_from_json(json_string, custom_objects=None):
    """A model (without weights) from `model.to_json()`."""
    return _layer_from_config(_read_json(json_string, "the JSON string"), custom_objects)


def model_from_config(config, custom_objects=None):
    check_depth(config, "the model config")
    return _layer_from_config(config, custom_objects)


def _layer_from_config(config, custom_objects):
    from ..layers.base import Layer
    if not isinstance(config, dict) or "class_name" not in config or "config" not in config:
        raise ValueError(f"Improper config format for a model: it needs 'class_name' and 'config', got "
                         f"{list(config) if isinstance(config, dict) else type(config).__name__}")
    layer = deserialize_keras_object(config, custom_objects, printable_module_name="model")
    if not isinstance(layer, Layer):  # (a registered function, say)
        raise ValueError(f"The config describes a {type(layer).__name__}, not a Keras model or layer")
    return layer
