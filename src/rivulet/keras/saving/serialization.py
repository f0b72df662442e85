"""Keras objects <-> JSON-able configs ({"module", "class_name", "config", "registered_name"}), as Keras 2.13+
writes them.

Loading is safe by construction: a config names a class, and the class is looked up only in
custom_objects, in the `register_keras_serializable` registry, or among rivulet's own Keras classes.
Nothing is imported by name, eval'd or unpickled; functions (activations, losses) are found by name the
same way.
"""
import inspect
import threading

import numpy as np

from .config_checks import (INTERNAL_ERRORS, check_build_config, check_functional, check_layer_shapes,
                            numpy_from_config)

_GLOBAL = {}  # registered name ("package>Name") -> class or function
_scope = threading.local()


def register_keras_serializable(package="Custom", name=None):
    """Decorator: makes a class or function loadable by its registered name "package>name"."""
    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered = f"{package}>{class_name}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _GLOBAL[registered] = arg
        arg._keras_registered_name = registered
        return arg
    return decorator


def get_custom_objects():
    """The global registry: name -> class or function (what `register_keras_serializable` adds to)."""
    return _GLOBAL


def get_registered_name(obj):
    cls = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    registered = cls.__dict__.get("_keras_registered_name") if inspect.isclass(cls) else \
        getattr(cls, "_keras_registered_name", None)
    return registered if registered in _GLOBAL and _GLOBAL[registered] is cls else cls.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    for table in (_scopes(), custom_objects or {}, _GLOBAL, module_objects or {}):
        if name in table:
            return table[name]
    return None


def _scopes():
    out = {}
    for d in getattr(_scope, "stack", ()):
        out.update(d)
    return out


class CustomObjectScope:
    """`with custom_object_scope({"MyLayer": MyLayer}):` makes those names loadable inside the block."""

    def __init__(self, *custom_objects):
        self.custom_objects = {}
        for d in custom_objects:
            self.custom_objects.update(d or {})

    def __enter__(self):
        if not hasattr(_scope, "stack"):
            _scope.stack = []
        _scope.stack.append(self.custom_objects)
        return self

    def __exit__(self, *exc):
        _scope.stack.pop()


custom_object_scope = CustomObjectScope


# ------------------------------------------------------------------------------------------ built-in classes
def _builtin_tables():
    """{module name: {class name: class}} of rivulet's own Keras classes (built once)."""
    tables = getattr(_builtin_tables, "cache", None)
    if tables is not None:
        return tables
    from .. import initializers, layers, losses, metrics, mixed_precision, models, optimizers, regularizers
    from ..layers.base import Layer

    def classes(mod, base):
        return {n: c for n, c in vars(mod).items() if inspect.isclass(c) and issubclass(c, base)}
    tables = {
        "keras.layers": classes(layers, Layer),
        "keras.initializers": dict(initializers._BY_NAME),
        "keras.regularizers": classes(regularizers, regularizers.Regularizer),
        "keras.optimizers": classes(optimizers, optimizers.Optimizer),
        "keras.optimizers.schedules": classes(optimizers.schedules, optimizers.schedules.LearningRateSchedule),
        "keras.losses": classes(losses, losses.Loss),
        "keras.metrics": classes(metrics, metrics.Metric),
        "keras.mixed_precision": {"LossScaleOptimizer": mixed_precision.LossScaleOptimizer,
                                  "Policy": mixed_precision.Policy},
        "keras": {"Sequential": models.Sequential, "Model": models.Model, "Functional": models.Model},
    }
    tables["keras.models"] = tables["keras"]
    _builtin_tables.cache = tables
    return tables


def _module_of(cls):
    for module, table in _builtin_tables().items():
        if table.get(cls.__name__) is cls and module != "keras.models":
            return module
    return None


def _function_name(fn):
    """A function by name: registered ("package>name"), built-in, or its own name (which loading then finds
    only in custom_objects). Lambdas have no name to find them by and are refused."""
    from .. import activations, losses
    name = getattr(fn, "__name__", None)
    if get_registered_name(fn) in _GLOBAL:
        return get_registered_name(fn)
    if activations._BY_NAME.get(name) is fn or getattr(losses, name or "", None) is fn:
        return name
    if not name or name == "<lambda>" or not inspect.isfunction(fn):
        raise ValueError(f"Cannot serialize the function {fn!r}: Keras's built-in activations and losses, "
                         "named functions (given back through custom_objects when loading) and functions "
                         "registered with keras.saving.register_keras_serializable can be saved; lambdas "
                         "cannot.")
    return name


# ------------------------------------------------------------------------------------------ serialize
def serialize_keras_object(obj):
    """A JSON-able description of `obj` (None, plain values, lists/dicts, arrays, functions, Keras objects)."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray) or hasattr(obj, "numpy") and hasattr(obj, "dtype") and \
            not hasattr(obj, "get_config"):
        a = np.asarray(obj)
        return {"class_name": "__numpy__", "config": {"value": a.tolist(), "dtype": a.dtype.name}}
    if hasattr(obj, "as_list") and hasattr(obj, "rank"):  # TensorShape
        return obj.as_list() if obj.rank is not None else None
    if hasattr(obj, "as_datatype_enum"):  # DType
        return obj.name
    if not hasattr(obj, "get_config"):
        if callable(obj):
            return _function_name(obj)
        raise ValueError(f"Cannot serialize {obj!r} (of type {type(obj).__name__}): it has no get_config().")
    cls = type(obj)
    registered = get_registered_name(cls)
    module = _module_of(cls)
    out = {"module": module, "class_name": cls.__name__,
           "config": serialize_keras_object(obj.get_config()),
           "registered_name": registered if module is None else None}
    build = getattr(obj, "_build_config", None)
    if callable(build):
        bc = build()
        if bc is not None:
            out["build_config"] = bc
    return out


# ------------------------------------------------------------------------------------------ deserialize
def _lookup(class_name, module, registered, custom_objects):
    custom = {**_scopes(), **(custom_objects or {})}
    for key in (registered, class_name):
        if key and key in custom:
            return custom[key]
    for key in (registered, class_name):  # tf_keras' legacy configs name a registered class by 'package>Name'
        if key and key in _GLOBAL:
            return _GLOBAL[key]
    tables = _builtin_tables()
    if module in tables and class_name in tables[module]:
        return tables[module][class_name]
    for table in tables.values():
        if class_name in table:
            return table[class_name]
    # (as tf_keras, a class registered as 'package>Name' is found by that name only: a config naming a bare
    # 'Name' is another class, unknown here, not whichever registered class shares its last part)
    return None


def is_serialized_object(value):
    return isinstance(value, dict) and "class_name" in value and "config" in value


def deserialize_keras_object(config, custom_objects=None, module_objects=None, printable_module_name="object"):
    """The object a config describes. Unknown class names raise ValueError; nothing else is consulted."""
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects, module_objects)
        return found if found is not None else config
    if isinstance(config, list):
        return [deserialize_keras_object(x, custom_objects, module_objects) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not interpret serialized {printable_module_name}: {config!r}")
    if not is_serialized_object(config):
        return {k: deserialize_keras_object(v, custom_objects, module_objects) for k, v in config.items()}
    class_name = config["class_name"]
    inner = config["config"]
    if class_name == "__numpy__":
        return numpy_from_config(inner)
    if not isinstance(class_name, str) or not isinstance(inner, (dict, str)) or \
            not all(isinstance(config.get(k), (str, type(None))) for k in ("module", "registered_name")):
        raise ValueError(f"Invalid serialized {printable_module_name}: {config!r}"[:1000])
    cls = (module_objects or {}).get(class_name) or \
        _lookup(class_name, config.get("module"), config.get("registered_name"), custom_objects)
    if cls is None:
        raise ValueError(f"Unknown {printable_module_name}: '{class_name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
                         "https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object "
                         "for details.")
    if not inspect.isclass(cls):
        return cls  # a registered function
    name = inner.get("name") if isinstance(inner, dict) else None
    what = f"{printable_module_name} '{name}' ({class_name})" if isinstance(name, str) else \
        f"{printable_module_name} {class_name}"
    if not isinstance(inner, dict):
        raise ValueError(f"The config of {what} must be a dict, got {inner!r}"[:1000])
    build = config.get("build_config")
    _check_before_construction(cls, class_name, inner, build, what)
    try:
        with CustomObjectScope(custom_objects or {}):
            if hasattr(cls, "from_config"):
                params = inspect.signature(cls.from_config).parameters
                obj = cls.from_config(inner, custom_objects=custom_objects) if "custom_objects" in params else \
                    cls.from_config(inner)
            else:
                obj = cls(**inner)
        if build and hasattr(obj, "build_from_config") and not getattr(obj, "built", True):
            obj.build_from_config(build)
    except _internal_errors() as e:
        # A value of the wrong type or range reached the constructor (or its symbolic call): a bad config.
        raise ValueError(f"Could not deserialize {what} from its config: {type(e).__name__}: {e}"[:2000]) from e
    return obj


def _check_before_construction(cls, class_name, inner, build, what):
    from ..layers.base import Layer
    from ..models import Model
    if issubclass(cls, Layer):
        check_layer_shapes(inner, what)
    if issubclass(cls, Model) and ("layers" in inner and "input_layers" in inner or class_name == "Functional"):
        check_functional(inner, f"The config of {what}")  # (tf_keras cannot revive a Functional without them)
    if build is not None:
        check_build_config(build, what)


def _internal_errors():
    from ...errors import OpError
    return INTERNAL_ERRORS + (OpError,)


_OBJECT_KEYS = ("activation", "_activation", "_initializer", "_regularizer", "_constraint")


def _named_object(name, custom_objects):
    """A custom or registered object that a config names by its plain or registered name, or None."""
    custom = {**_scopes(), **(custom_objects or {})}
    if name in custom:
        return custom[name]
    if name in _GLOBAL:
        return _GLOBAL[name]
    found = [v for k, v in _GLOBAL.items() if k.split(">", 1)[-1] == name]
    return found[0] if len(found) == 1 else None


def deserialize_nested(config, custom_objects=None):
    """A layer config with its nested serialized objects (initializers, sublayers ...) made objects, and
    activations/initializers named by a custom or registered name resolved."""
    out = {}
    for k, v in config.items():
        if is_serialized_object(v) or isinstance(v, list) and any(is_serialized_object(x) for x in v):
            v = deserialize_keras_object(v, custom_objects)
        elif isinstance(v, str) and k.endswith(_OBJECT_KEYS):
            v = _named_object(v, custom_objects) or v
        out[k] = v
    return out
