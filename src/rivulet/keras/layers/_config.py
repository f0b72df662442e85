"""get_config helpers for the layers of this package: Keras 2's serialised forms of initializers and friends."""
from .. import activations


def serialize(obj):
    """An initializer/regularizer/constraint as Keras 2 writes it in a layer config ({"class_name", "config"})."""
    if obj is None:
        return None
    config = obj.get_config() if hasattr(obj, "get_config") else {}
    return {"module": "keras.initializers", "class_name": type(obj).__name__, "config": config,
            "registered_name": None}


def activation(fn):
    return activations.serialize(fn)


def settings(layer, *prefixes):
    """{P_initializer, P_regularizer, P_constraint} of each weight prefix P (kernel, bias ...), serialised."""
    return {f"{p}_{kind}": serialize(getattr(layer, f"{p}_{kind}"))
            for p in prefixes for kind in ("initializer", "regularizer", "constraint")}


def init_settings(layer, prefix, initializer, regularizer, constraint):
    """Stores a weight prefix's initializer, regularizer and constraint on the layer (as Keras names them)."""
    from .. import initializers, regularizers
    setattr(layer, f"{prefix}_initializer", initializers.get(initializer))
    setattr(layer, f"{prefix}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{prefix}_constraint", constraint)


def add_weight(layer, prefix, name, shape, **kwargs):
    """layer.add_weight with the initializer, regularizer and constraint stored for `prefix`."""
    return layer.add_weight(name, shape, initializer=kwargs.pop("initializer", getattr(layer, f"{prefix}_initializer")),
                            regularizer=getattr(layer, f"{prefix}_regularizer"),
                            constraint=getattr(layer, f"{prefix}_constraint"), **kwargs)


def deserialize_layer(spec):
    """A {"class_name", "config"} layer spec (as wrappers store their inner layer) -> the layer."""
    from .. import layers
    cls = getattr(layers, spec["class_name"], None)
    if cls is None:
        raise ValueError(f"Unknown layer: '{spec['class_name']}'. Please ensure you are using a "
                         f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
    return cls.from_config(dict(spec["config"]))


def wrapper_from_config(cls, config, key):
    """from_config of a layer wrapping another (Bidirectional's `layer`, TimeDistributed's, RNN's `cell`)."""
    config = dict(config)
    config[key] = deserialize_layer(config[key])
    return cls(**config)
