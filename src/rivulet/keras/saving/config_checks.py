"""Checks on Keras configs read from a file or a JSON string, made where the configs are decoded, so a bad
config is a ValueError naming what is wrong instead of an internal error (or a hang) deep inside a layer.

What is checked here is structure (JSON depth, __numpy__ values, shapes, the functional graph's node
references); what a single layer accepts is its constructor's business, and any internal error it raises on a
config is turned into a ValueError naming the layer by `deserialize_keras_object`.
"""
import json
import re

import numpy as np

MAX_JSON_BYTES = 64 << 20
# Keras configs nest a few levels per layer (model > layers > layer > config > initializer > config); a
# model nested 30 deep stays well under this, and deserializing it stays far from Python's recursion limit.
MAX_DEPTH = 200
MAX_RANK = 64  # NumPy's: no array, so no input or weight, can have more dimensions
MAX_DIM = (1 << 63) - 1  # TensorFlow's dimensions are int64

# Errors that Python, NumPy or rivulet's ops raise inside a layer's constructor or symbolic call when a config
# holds a value of the wrong type or range (or builds a Model that has no call); deserialize_keras_object
# reports them as a bad config (ValueError).
INTERNAL_ERRORS = (TypeError, KeyError, IndexError, AttributeError, OverflowError, ZeroDivisionError,
                   StopIteration, RecursionError, MemoryError, UnicodeError, NotImplementedError)


def parse_json(raw, where):
    """The JSON value in `raw` (str or bytes), refused when too large or nested too deep."""
    if len(raw) > MAX_JSON_BYTES:
        raise ValueError(f"{where} is too large to be a Keras config ({len(raw)} bytes; at most "
                         f"{MAX_JSON_BYTES})")
    try:
        config = json.loads(raw)
    except RecursionError:
        raise ValueError(f"{where} nests JSON arrays or objects too deeply to be a Keras config") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{where} is not valid JSON: {e}") from None
    check_depth(config, where)
    return config


def check_depth(config, where, limit=MAX_DEPTH):
    """ValueError if `config` (lists and dicts) nests deeper than `limit` (walked without recursion)."""
    stack = [(config, 1)] if isinstance(config, (dict, list, tuple)) else []
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            raise ValueError(f"{where} nests lists or dicts more than {limit} deep: not a Keras config")
        items = value.values() if isinstance(value, dict) else value
        stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list, tuple)))


# ---------------------------------------------------------------------------------------------- __numpy__
_NUMERIC = re.compile(r"(bool|u?int(8|16|32|64)|float(16|32|64)|complex(64|128))")
_TEXT = re.compile(r"(str|bytes)\d*")


def numpy_from_config(inner):
    """The array a {"class_name": "__numpy__", "config": {"value", "dtype"}} entry holds. Only numeric, bool and
    string dtypes: an object or void dtype (or an itemsize read from the file) could hold anything."""
    if not isinstance(inner, dict) or "value" not in inner or not isinstance(inner.get("dtype"), str):
        raise ValueError(f"Invalid __numpy__ config (expected {{'value': ..., 'dtype': str}}): {_short(inner)}")
    name, value = inner["dtype"], inner["value"]
    if _NUMERIC.fullmatch(name):
        dtype = np.dtype(name)
    elif _TEXT.fullmatch(name):
        dtype = np.str_ if name.startswith("str") else np.bytes_  # the itemsize follows the values
    else:
        raise ValueError(f"Invalid __numpy__ config: unsupported dtype {name!r}")
    try:
        return np.array(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"Invalid __numpy__ config: its value is not a rectangular array of {name}: {e}") from None


# ---------------------------------------------------------------------------------------------- shapes
SHAPE_KEYS = ("batch_input_shape", "batch_shape", "input_shape")


def check_shape(shape, what):
    """A shape from a config: None (unknown), or a list of None / non-negative ints, rank <= 64."""
    if shape is None:
        return
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"{what} must be a list of dimensions, got {_short(shape)}")
    if len(shape) > MAX_RANK:
        raise ValueError(f"{what} has rank {len(shape)}: rivulet (NumPy) supports at most {MAX_RANK} dimensions")
    for d in shape:
        if d is not None and (not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= MAX_DIM):
            raise ValueError(f"{what} must hold non-negative integer dimensions (or null), got {_short(shape)}")


def check_layer_shapes(config, what):
    """The input shapes a layer config may carry (batch_input_shape, batch_shape, input_shape); `what` names
    the layer in messages."""
    if isinstance(config, dict):
        for key in SHAPE_KEYS:
            if key in config:
                check_shape(config[key], f"The {key} of {what}")


_INPUT_DTYPES = frozenset(["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                           "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128"])


def check_build_config(build, what):
    """A build_config's input_shape: one shape, or a list of shapes (a multi-input model)."""
    if not isinstance(build, dict):
        raise ValueError(f"The build_config of {what} must be a dict, got {_short(build)}")
    shape = build.get("input_shape")
    if isinstance(shape, dict):  # a dict of inputs, by name, with their dtypes (models.py _build_config)
        dtypes = build.get("input_dtype", {})
        if not isinstance(dtypes, dict):
            raise ValueError(f"The input_dtype in the build_config of {what} must be a dict, got {_short(dtypes)}")
        for k, s in shape.items():
            check_shape(s, f"The input_shape {k!r} in the build_config of {what}")
        for k, d in dtypes.items():
            if k not in shape or d not in _INPUT_DTYPES:
                raise ValueError(f"The input_dtype in the build_config of {what} must name the inputs' dtypes "
                                 f"(one of {sorted(_INPUT_DTYPES)}), got {_short(dtypes)}")
    elif isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
        for s in shape:
            check_shape(s, f"An input_shape in the build_config of {what}")
    else:
        check_shape(shape, f"The input_shape in the build_config of {what}")


# ---------------------------------------------------------------------------------------------- functional
def check_functional(config, where="the functional model config"):
    """A functional model's {"layers", "input_layers", "output_layers"}: each layer a dict with a unique name,
    each inbound node a non-empty list of [layer name, node index, tensor index, (kwargs)] references."""
    layers = config.get("layers")
    if not isinstance(layers, list) or not layers:
        raise ValueError(f"{where}: 'layers' must be a non-empty list of layer configs")
    names = set()
    for entry in layers:
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise ValueError(f"{where}: every entry of 'layers' must be a layer config (a dict with a 'config' "
                             f"dict), got {_short(entry)}")
        name = entry.get("name") or entry["config"].get("name")
        if not isinstance(name, str):
            raise ValueError(f"{where}: a layer's name must be a string, got {_short(name)}")
        if name in names:
            raise ValueError(f"{where}: two layers are named {name!r}")
        names.add(name)
        nodes = entry.get("inbound_nodes") or []
        if not isinstance(nodes, list):
            raise ValueError(f"{where}: the inbound_nodes of layer {name!r} must be a list, got {_short(nodes)}")
        for node in nodes:
            if not isinstance(node, list) or not node:
                raise ValueError(f"{where}: an inbound node of layer {name!r} must be a non-empty list of "
                                 f"[layer name, node index, tensor index, kwargs] references, got {_short(node)}")
            for ref in _refs_in(node):
                _check_ref(ref, None, f"{where}: an inbound node of layer {name!r}")
    for key in ("input_layers", "output_layers"):
        refs = _refs_in(config.get(key))
        if not refs:
            raise ValueError(f"{where}: '{key}' must list [layer name, node index, tensor index] references, got "
                             f"{_short(config.get(key))}")
        for ref in refs:
            _check_ref(ref, names, f"{where}: {key}")


def _refs_in(structure):
    """The references in a (nested list or dict of) references; a reference is a list led by a layer name."""
    out, stack = [], [structure]
    while stack:
        value = stack.pop()
        if isinstance(value, list) and value and isinstance(value[0], str):
            out.append(value)
        elif isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        else:
            out.append(value)  # not a reference: _check_ref says so
    return out


def _check_ref(ref, names, what):
    ok = isinstance(ref, list) and len(ref) in (3, 4) and isinstance(ref[0], str) and \
        all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 1 << 31 for i in ref[1:3]) and \
        (len(ref) == 3 or isinstance(ref[3], dict))
    if not ok:
        raise ValueError(f"{what} must be [layer name, node index, tensor index, (kwargs)], got {_short(ref)}")
    if names is not None and ref[0] not in names:
        raise ValueError(f"{what} refers to layer {ref[0]!r}, which the config does not define")


def _short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
