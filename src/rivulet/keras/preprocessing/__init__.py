"""tf.keras.preprocessing: the older names of the tf.keras.utils data loaders."""
from . import image, sequence  # noqa: F401
from ..dataset_utils import text_dataset_from_directory  # noqa: F401
from ..image_dataset import image_dataset_from_directory  # noqa: F401
from ..timeseries import timeseries_dataset_from_array  # noqa: F401
