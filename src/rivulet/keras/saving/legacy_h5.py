"""tf_keras's legacy HDF5 files: `model.save('m.h5')` / `load_model('m.h5')` and `save_weights('w.h5')` /
`load_weights('w.h5')`, through h5py (an optional extra: `pip install h5py`).

The layout, as tf_keras 2.21 writes it:
- root attrs `keras_version`, `backend` (bytes), `model_config` (the model's JSON config, bytes) and, once
  compiled, `training_config` (JSON: loss, metrics, weighted_metrics, loss_weights, optimizer_config);
- group `model_weights` (a weights-only file has the same layout at its root): attrs `layer_names` (an
  array of bytes, in `model.layers` order; split into `layer_names0`, `layer_names1`... when it outgrows an
  object header), one group per layer with attr `weight_names` and a dataset per weight, named by the
  weight's name (`dense/kernel:0` is the dataset `kernel:0` in the group `dense`), and a group
  `top_level_model_weights` for the model's own variables;
- group `optimizer_weights`: attr `weight_names` and a dataset per optimizer variable (iterations first).

A file is hostile input: every name read from it is checked before it is followed (within the file only:
external links, virtual datasets and external storage are refused), every dataset's shape and dtype are
checked against the variable it goes to before anything is read or assigned, and the configs go through the
same checks (and the same refusal of unknown classes) as a .keras file's.
"""
import json
import logging
import os

import numpy as np

from .config_checks import INTERNAL_ERRORS, MAX_JSON_BYTES, parse_json
from .weights_h5 import _check_dataset, _cast, _corrupt_as_oserror, _resolve, require_h5py

HDF5_OBJECT_HEADER_LIMIT = 64512
_MAX_NAMES = 1 << 20  # names in one list attribute (layer_names, weight_names)
_MAX_CHUNKS = 4096
_log = logging.getLogger("rivulet")


def _keras_version():
    from ..models import KERAS_VERSION
    return KERAS_VERSION


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _is_subclassed(model):
    from ..models import Sequential
    return not (isinstance(model, Sequential) or getattr(model, "_is_graph_network", False))


# ---------------------------------------------------------------------------------------------- writing
def _save_attributes(group, name, data):
    """A list of bytes as attribute `name`, split into name0, name1... when larger than an object header."""
    too_large = [x for x in data if len(x) > HDF5_OBJECT_HEADER_LIMIT]
    if too_large:
        raise RuntimeError(f"The following attributes cannot be saved to HDF5 file because they are larger than "
                           f"{HDF5_OBJECT_HEADER_LIMIT} bytes: {too_large}")
    array = np.asarray(data)
    chunks = 1
    parts = np.array_split(array, chunks)
    while any(p.nbytes > HDF5_OBJECT_HEADER_LIMIT for p in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks > 1:
        for i, part in enumerate(parts):
            group.attrs[f"{name}{i}"] = part
    else:
        group.attrs[name] = array


def _save_subset(group, weights):
    names = [w.name.encode("utf8") for w in weights]
    _save_attributes(group, "weight_names", names)
    for name, w in zip(names, weights):
        group.create_dataset(name.decode("utf8"), data=w.numpy())


def save_weights_to_group(group, model):
    """The `model_weights` layout (also the root of a `save_weights('w.h5')` file)."""
    _save_attributes(group, "layer_names", [layer.name.encode("utf8") for layer in model.layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = _keras_version().encode("utf8")
    for layer in sorted(model.layers, key=lambda x: x.name):
        _save_subset(group.create_group(layer.name), _legacy_weights(layer))
    _save_subset(group.create_group("top_level_model_weights"),
                 list(model._trainable_weights) + list(model._non_trainable_weights))


def training_config(model):
    """tf_keras's `training_config`: what compile was given, the optimizer as `optimizer_config`."""
    config = model.get_compile_config() if hasattr(model, "get_compile_config") else None
    if not config:
        return None
    opt = model.optimizer
    config = _legacy_config(config)
    return {"loss": config.get("loss"), "metrics": config.get("metrics"),
            "weighted_metrics": config.get("weighted_metrics"), "loss_weights": config.get("loss_weights"),
            "optimizer_config": {"class_name": type(opt).__name__, "config": opt.get_config()}}


def _legacy_config(value):
    """The config as tf_keras writes it to HDF5 (its `use_legacy_config`): objects as {class_name, config}
    without Keras 2.13's `module` and `registered_name` (kept where an object is registered under a name)."""
    if isinstance(value, list):
        return [_legacy_config(v) for v in value]
    if not isinstance(value, dict):
        return value
    drop = ("module", "registered_name") if "class_name" in value and value.get("registered_name") is None else ()
    return {k: _legacy_config(v) for k, v in value.items() if k not in drop}


def save_model_h5(model, filepath, include_optimizer=True):
    h5py = require_h5py("Saving a model in the legacy HDF5 format (.h5)")
    if _is_subclassed(model):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model or a Sequential model. "
            "It does not work for subclassed models, because such models are defined via the body of a Python "
            "method, which isn't safely serializable. Consider saving to the Tensorflow SavedModel format (by "
            "setting save_format=\"tf\") or using `save_weights`.")
    from .model_files import model_config
    config = _legacy_config({k: v for k, v in model_config(model).items()
                             if k not in ("compile_config", "build_config")})
    train = training_config(model) if include_optimizer else None
    directory = os.path.dirname(filepath)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with h5py.File(filepath, "w") as f:
        f.attrs["keras_version"] = _keras_version().encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode("utf8")
        if train is not None:
            f.attrs["training_config"] = json.dumps(train).encode("utf8")
        save_weights_to_group(f.create_group("model_weights"), model)
        opt = getattr(model, "optimizer", None)
        variables = list(opt.variables) if include_optimizer and opt is not None else []
        if variables:
            group = f.create_group("optimizer_weights")
            _save_subset(group, variables)


def save_weights_h5_legacy(model, filepath):
    h5py = require_h5py("Saving weights in the legacy HDF5 format (.h5)")
    directory = os.path.dirname(filepath)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with h5py.File(filepath, "w") as f:
        save_weights_to_group(f, model)


# ---------------------------------------------------------------------------------------------- reading
def _read_attr(h5py, group, name, where, limit):
    """Attribute `name` of `group` (None if absent), its size checked before it is read."""
    if name not in group.attrs:
        return None
    try:  # (attributes are never compressed: what is stored is what a read allocates, bounded by the file)
        aid = h5py.h5a.open(group.id, name.encode("utf8"))
        count = int(np.prod(aid.shape)) if aid.shape else 1
        size = aid.get_storage_size() if count else 0
    except (KeyError, RuntimeError, OSError) as e:
        raise OSError(f"{where}: attribute {name!r} cannot be read: {e}") from None
    if size > limit:
        raise ValueError(f"{where}: attribute {name!r} is too large ({size} bytes; at most {limit})")
    return group.attrs[name]


def _text(value, what):
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "SUO":
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        try:
            return bytes(value).decode("utf8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{what} is not UTF-8 text: {e}") from None
    if isinstance(value, str):
        return value
    raise ValueError(f"{what} must be a string (bytes or str), got {type(value).__name__}")


def _names(h5py, group, name, where):
    """A list attribute (layer_names, weight_names), joined from name0, name1... when split."""
    limit = 64 * _MAX_NAMES
    if name in group.attrs:
        parts = [_read_attr(h5py, group, name, where, limit)]
    else:
        parts, i = [], 0
        while f"{name}{i}" in group.attrs:
            if i >= _MAX_CHUNKS:
                raise ValueError(f"{where}: attribute {name!r} is split into too many chunks")
            parts.append(_read_attr(h5py, group, f"{name}{i}", where, limit))
            i += 1
    out = []
    for part in parts:
        array = np.asarray(part)
        if array.ndim > 1 or array.size and array.dtype.kind not in "SUO":
            raise ValueError(f"{where}: attribute {name!r} must be a list of strings, got dtype {array.dtype} "
                             f"shape {array.shape}")
        for item in array.reshape(-1) if array.size else []:
            text = _text(item, f"{where}: an entry of attribute {name!r}")
            parts_ = text.split("/")
            if not text or any(p in ("", ".", "..") for p in parts_):
                raise ValueError(f"{where}: attribute {name!r} holds an invalid name {text!r}")
            out.append(text)
        if len(out) > _MAX_NAMES:
            raise ValueError(f"{where}: attribute {name!r} holds too many names")
    return out


def _group(h5py, f, path, where):
    node = _resolve(h5py, f, path, where)
    if not isinstance(node, h5py.Group):
        raise ValueError(f"{where}: {path} is missing (or is not a group)")
    return node


def _plan(h5py, group, path, variables, where, what):
    """[(variable, dataset, description)] for the weights listed in `group`'s weight_names, checked."""
    names = _names(h5py, group, "weight_names", f"{where}: {path}")
    if len(names) != len(variables):
        raise ValueError(f"{what}. Layer expects {len(variables)} weight(s). Received {len(names)} saved weight(s)")
    out = []
    for name, v in zip(names, variables):
        ds = _resolve(h5py, group, name, where)
        desc = f"{where}: dataset {path}/{name} (variable {v.name})"
        _check_dataset(h5py, ds, v, desc)
        out.append((v, ds, desc))
    return out


def load_weights_from_group(h5py, f, model, where, by_name=False, skip_mismatch=False):
    """Assigns the weights of the `model_weights` layout in `f`; everything is checked before anything is
    assigned (a mismatch raises ValueError and changes nothing)."""
    layer_names = _names(h5py, f, "layer_names", where)
    plan = []
    if by_name:
        index = {}
        for layer in model.layers:
            index.setdefault(layer.name, []).append(layer)
        for k, name in enumerate(layer_names):
            group = _group(h5py, f, name, where)
            for layer in index.get(name, []):
                variables = _legacy_weights(layer)
                try:
                    plan += _plan(h5py, group, name, variables, where,
                                  f"Weight count mismatch for layer #{k} (named {layer.name})")
                except ValueError as e:
                    if not skip_mismatch:
                        raise
                    _log.warning("Skipping loading of weights for layer #%d (named %s): %s", k, layer.name, e)
    else:
        layers = [layer for layer in model.layers if _legacy_weights(layer)]
        saved = []
        for name in layer_names:
            if _names(h5py, _group(h5py, f, name, where), "weight_names", f"{where}: {name}"):
                saved.append(name)
        if len(saved) != len(layers):
            raise ValueError(f"Layer count mismatch when loading weights from file. Model expected {len(layers)} "
                             f"layers, found {len(saved)} saved layers.")
        for k, (name, layer) in enumerate(zip(saved, layers)):
            plan += _plan(h5py, _group(h5py, f, name, where), name, _legacy_weights(layer), where,
                          f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, {name} "
                          f"in the save file)")
    top = _resolve(h5py, f, "top_level_model_weights", where)
    if top is not None:
        if not isinstance(top, h5py.Group):
            raise ValueError(f"{where}: top_level_model_weights is not a group")
        variables = list(model._trainable_weights) + list(model._non_trainable_weights)
        plan += _plan(h5py, top, "top_level_model_weights", variables, where,
                      "Weight count mismatch for top-level weights when loading weights from file")
    values = [(v, _cast(np.asarray(ds[()]), v, desc)) for v, ds, desc in plan]
    for v, value in values:
        v.assign(value)


def check_global_heaps(filepath):
    """Refuses (OSError) a file whose HDF5 global heap collections (where variable-length strings such as
    `model_config` live) HDF5 cannot walk in bounded time: a heap object of size 0 makes the library's
    collection reader loop forever in C, beyond any signal, and objects that run past their collection or
    collections past the end of the file are damage too. Each collection ("GCOL" with version 1) is walked
    here first, as HDF5 walks it, a bounded pass over the file's bytes."""
    import mmap
    with open(filepath, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            lengths = _size_of_lengths(m, size)
            pos = m.find(b"GCOL")
            while pos != -1:
                _check_collection(m, pos, size, lengths, filepath)
                pos = m.find(b"GCOL", pos + 4)


def _size_of_lengths(m, size):
    """The superblock's "size of lengths" (8 in the files h5py writes); the superblock sits at 0, 512, 1024 ..."""
    base = 0
    while base + 16 <= size:
        if m[base:base + 8] == b"\x89HDF\r\n\x1a\n":
            version = m[base + 8]
            n = m[base + 14] if version in (0, 1) else m[base + 10]
            return n if n in (2, 4, 8) else 8
        base = 512 if base == 0 else base * 2
    return 8


def _check_collection(m, pos, size, lengths, filepath):
    header = 8 + lengths  # "GCOL", version, 3 reserved bytes, the collection's size
    if pos + header > size or m[pos + 4] != 1 or m[pos + 5:pos + 8] != b"\0\0\0":
        return  # the four letters inside other data, not a collection's header
    csize = int.from_bytes(m[pos + 8:pos + header], "little")
    where = f"{filepath}: HDF5 global heap collection at byte {pos}"
    if csize < header or pos + csize > size:
        raise OSError(f"{where} claims {csize} bytes, beyond the end of the file ({size} bytes)")
    objhdr = 8 + lengths  # index (2), reference count (2), reserved (4), size
    p, end = pos + header, pos + csize
    while p < end:
        if p + objhdr > end:
            return  # HDF5 takes a tail too small for an object header as free space
        index = int.from_bytes(m[p:p + 2], "little")
        osize = int.from_bytes(m[p + 8:p + objhdr], "little")
        need = objhdr + (osize + 7) // 8 * 8 if index else osize  # free space (index 0) counts its header
        if need < objhdr:
            raise OSError(f"{where}: object {index} at byte {p} has size {osize}: the collection cannot be walked "
                          f"(HDF5's reader would never get past it)")
        if p + need > end:
            raise OSError(f"{where}: object {index} at byte {p} ({osize} bytes) runs past the collection's end")
        p += need


def _open(h5py, filepath):
    if os.path.exists(filepath) and not os.path.isfile(filepath):
        raise OSError(f"Unable to open {filepath}: not a regular file")
    if os.path.isfile(filepath):
        check_global_heaps(filepath)
    try:
        return h5py.File(filepath, "r")
    except (OSError, ValueError) as e:
        raise OSError(f"Unable to open {filepath} as an HDF5 file: {e}") from None


def load_weights_h5_legacy(model, filepath, by_name=False, skip_mismatch=False):
    """`model.load_weights('w.h5')`: a tf_keras weights file, or the `model_weights` of a whole-model file."""
    if skip_mismatch and not by_name:
        raise ValueError("When calling model.load_weights, skip_mismatch can only be set to True when by_name is "
                         "True.")
    h5py = require_h5py("Loading weights from the legacy HDF5 format (.h5)")
    with _corrupt_as_oserror(filepath), _open(h5py, filepath) as f:
        root = f
        if "layer_names" not in f.attrs and "layer_names0" not in f.attrs and "model_weights" in f:
            root = _group(h5py, f, "model_weights", filepath)
        load_weights_from_group(h5py, root, model, filepath, by_name, skip_mismatch)


def _compile_args(config, where):
    if not isinstance(config, dict):
        raise ValueError(f"{where}: training_config must be a JSON object, got {type(config).__name__}")
    out = {}
    opt = config.get("optimizer_config")
    if opt is not None:
        if not isinstance(opt, dict) or not isinstance(opt.get("class_name"), str):
            raise ValueError(f"{where}: training_config's optimizer_config must be {{'class_name', 'config'}}")
        out["optimizer"] = opt
    for key in ("loss", "metrics", "weighted_metrics", "loss_weights"):
        if config.get(key) is not None:
            out[key] = config[key]
    for key in ("metrics", "weighted_metrics"):
        if key in out:
            out[key] = _metrics(out[key])
    return out


def _metrics(value):
    """tf_keras writes compiled metrics nested per output ([[...]]) and as MeanMetricWrapper configs; the
    single-output list of names or plain configs is what compile takes."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    if isinstance(value, list):
        return [_metric(m) for m in value]
    return value


def _metric(m):
    if isinstance(m, dict) and m.get("class_name") == "MeanMetricWrapper" and isinstance(m.get("config"), dict):
        inner = m["config"]
        name, fn = inner.get("name"), inner.get("fn")
        if name in ("accuracy", "acc", "crossentropy", "ce"):
            return name
        if isinstance(fn, str):
            return fn
    return m


def _optimizer_weights(h5py, f, model, where):
    opt = model.optimizer
    group = _group(h5py, f, "optimizer_weights", where)
    names = _names(h5py, group, "weight_names", f"{where}: optimizer_weights")
    if len(names) > 1:
        opt._create_slots(model.trainable_variables)
    variables = list(opt.variables)
    if len(names) != len(variables):
        _log.warning("Error in loading the saved optimizer state. As a result, your model is starting with a "
                     "freshly initialized optimizer.")
        return
    plan = []
    for name, v in zip(names, variables):
        ds = _resolve(h5py, group, name, where)
        desc = f"{where}: dataset optimizer_weights/{name} (variable {v.name})"
        if isinstance(ds, h5py.Dataset) and ds.shape is not None and tuple(ds.shape) != tuple(v.shape):
            _log.warning("Error in loading the saved optimizer state. As a result, your model is starting with a "
                         "freshly initialized optimizer.")
            return
        _check_dataset(h5py, ds, v, desc)
        plan.append((v, ds, desc))
    values = [(v, _cast(np.asarray(ds[()]), v, desc)) for v, ds, desc in plan]
    for v, value in values:
        v.assign(value)


def load_model_h5(filepath, custom_objects=None, compile=True):
    h5py = require_h5py("Loading a model from the legacy HDF5 format (.h5)")
    from .model_files import _read_json, _revive
    if not os.path.exists(filepath):
        raise OSError(f"No file or directory found at {filepath}")
    with _corrupt_as_oserror(filepath), _open(h5py, filepath) as f:
        raw = _read_attr(h5py, f, "model_config", filepath, MAX_JSON_BYTES)
        if raw is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        config = _read_json(_text(raw, f"{filepath}: model_config"), f"{filepath}: model_config")
        model = _revive({k: v for k, v in config.items() if k != "compile_config"}, custom_objects, compile=False)
        load_weights_from_group(h5py, _group(h5py, f, "model_weights", filepath), model, filepath)
        if not compile:
            return model
        raw = _read_attr(h5py, f, "training_config", filepath, MAX_JSON_BYTES)
        if raw is None:
            _log.warning("No training configuration found in the save file, so the model was *not* compiled. "
                         "Compile it manually.")
            return model
        where = f"{filepath}: training_config"
        args = _compile_args(parse_json(_text(raw, where), where), where)
        try:
            model.compile_from_config(args, custom_objects)
        except INTERNAL_ERRORS as e:
            raise ValueError(f"{where} cannot be used: {type(e).__name__}: {e}") from e
        if "optimizer_weights" in f and getattr(model, "optimizer", None) is not None:
            _optimizer_weights(h5py, f, model, filepath)
    return model
