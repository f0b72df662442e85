"""tf.keras.saving: configs (serialization.py), the .keras zip and saved-model directories (model_files.py),
and the .weights.h5 layout (weights_h5.py, needs h5py)."""
from .model_files import load_model, model_from_config, model_from_json, save_model  # noqa: F401
from .serialization import (CustomObjectScope, custom_object_scope, deserialize_keras_object,  # noqa: F401
                            get_custom_objects, get_registered_name, get_registered_object, register_keras_serializable,
                            serialize_keras_object)
