"""tf.keras.utils: to_categorical, set_random_seed."""
import random

import numpy as np


def set_random_seed(seed):
    """Seeds Python's `random`, NumPy's global generator, tf.random and the Keras initializers' seeds."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    import rivulet as tf
    from .initializers import set_seed_generator
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
    set_seed_generator(seed)


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class indices -> one-hot rows (a NumPy array). A trailing axis of size 1 is dropped first; `num_classes`
    defaults to the largest index + 1."""
    y = np.array(getattr(y, "numpy", lambda: y)(), dtype="int64")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.reshape(-1)
    if num_classes is None:
        num_classes = int(y.max()) + 1 if y.size else 0
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise ValueError(f"to_categorical: class indices must lie in [0, {num_classes}), got values from "
                         f"{int(y.min())} to {int(y.max())}.")
    out = np.zeros((y.size, num_classes), dtype=dtype)
    out[np.arange(y.size), y] = 1
    return out.reshape(shape + (num_classes,))


from .saving.serialization import (CustomObjectScope, custom_object_scope, deserialize_keras_object,  # noqa: E402,F401
                                   get_custom_objects, get_registered_name, get_registered_object,
                                   register_keras_serializable, serialize_keras_object)
from .audio_dataset import audio_dataset_from_directory  # noqa: E402,F401
from .data_utils import get_file  # noqa: E402,F401
from .dataset_utils import split_dataset, text_dataset_from_directory  # noqa: E402,F401
from .image_dataset import image_dataset_from_directory  # noqa: E402,F401
from .image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: E402,F401
from .sequence_utils import pad_sequences  # noqa: E402,F401
from .timeseries import timeseries_dataset_from_array  # noqa: E402,F401
from .vis_utils import model_to_dot, plot_model  # noqa: E402,F401
