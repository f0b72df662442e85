"""tf.keras.preprocessing.sequence."""
from ..sequence_utils import pad_sequences  # noqa: F401
from ..timeseries import timeseries_dataset_from_array  # noqa: F401
