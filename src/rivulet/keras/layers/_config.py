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
