"""model.save / keras.models.load_model: the `.keras` zip (Keras 2.13+: config.json, metadata.json,
model.weights.h5) and the saved-model directory with the Keras config beside it.

A directory gets `keras_metadata.json` (the same config as config.json) and the weights as a TensorFlow
checkpoint `keras_weights.index/.data-*` (no h5py needed), next to the saved model that
`tf.saved_model.load` reads.
"""
import datetime
import io
import json
import os
import zipfile

from .serialization import deserialize_keras_object, serialize_keras_object
from .weights_h5 import load_weights_h5, require_h5py, save_weights_h5

_CONFIG, _METADATA, _WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
_DIR_CONFIG, _DIR_WEIGHTS = "keras_metadata.json", "keras_weights"
_MAX_JSON = 64 << 20


def model_config(model):
    config = serialize_keras_object(model)
    compile_config = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    if compile_config is not None:
        config["compile_config"] = compile_config
    return config


def _metadata():
    from ..models import KERAS_VERSION
    return {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}


def save_model(model, filepath, overwrite=True):
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
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
    tf.saved_model.save(model, filepath)
    with open(os.path.join(filepath, _DIR_CONFIG), "w", encoding="utf-8") as f:
        json.dump({**model_config(model), "metadata": _metadata()}, f)
    save_object(model, os.path.join(filepath, _DIR_WEIGHTS))


def _read_json(raw, where):
    if len(raw) > _MAX_JSON:
        raise ValueError(f"{where} is too large to be a Keras config")
    try:
        config = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{where} is not valid JSON: {e}") from None
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"{where} does not describe a Keras model")
    return config


def _revive(config, custom_objects, compile):
    from ..models import Model
    model = deserialize_keras_object({k: v for k, v in config.items() if k not in ("compile_config", "metadata")},
                                     custom_objects, printable_module_name="model")
    if not isinstance(model, Model):
        raise ValueError(f"The saved config describes a {type(model).__name__}, not a Keras model")
    build = config.get("build_config")
    if build and not model.built:
        model.build_from_config(build)
    if compile and config.get("compile_config"):
        model.compile_from_config(config["compile_config"], custom_objects)
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
            config = _read_json(f.read(), meta)
        model = _revive(config, custom_objects, compile)
        from ...checkpoint.checkpoint import restore_object
        restore_object(model, os.path.join(filepath, _DIR_WEIGHTS)).expect_partial()
        return model
    if filepath.endswith((".h5", ".hdf5")):
        raise ValueError(f"Loading the legacy HDF5 model format ({filepath}) is not supported: save the model as "
                         ".keras or a directory.")
    if not zipfile.is_zipfile(filepath):
        if not os.path.exists(filepath):
            raise OSError(f"No file or directory found at {filepath}")
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 2 supports .keras files and "
                         "saved-model directories.")
    with zipfile.ZipFile(filepath) as z:
        names = set(z.namelist())
        if _CONFIG not in names:
            raise ValueError(f"{filepath} has no {_CONFIG}: not a .keras file")
        info = z.getinfo(_CONFIG)
        if info.file_size > _MAX_JSON:
            raise ValueError(f"{filepath}: {_CONFIG} is too large")
        config = _read_json(z.read(_CONFIG), f"{filepath}/{_CONFIG}")
        model = _revive(config, custom_objects, compile)
        if _WEIGHTS in names:
            load_weights_h5(model, io.BytesIO(z.read(_WEIGHTS)), skip_optimizer=not compile)
    return model


def model_from_json(json_string, custom_objects=None):
    """A model (without weights) from `model.to_json()`."""
    config = _read_json(json_string, "the JSON string")
    return deserialize_keras_object(config, custom_objects, printable_module_name="model")


def model_from_config(config, custom_objects=None):
    return deserialize_keras_object(config, custom_objects, printable_module_name="model")
