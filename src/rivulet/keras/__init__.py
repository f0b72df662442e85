"""tf.keras: layers, models, losses, optimizers, metrics and fit/evaluate/predict, in the TF 2 Keras style."""
from . import (activations, backend, callbacks, initializers, layers, losses, metrics, optimizers,  # noqa: F401
               regularizers, utils)
from . import models  # noqa: F401
from . import saving  # noqa: F401
from . import applications, datasets, mixed_precision, preprocessing  # noqa: F401
from .layers import Input  # noqa: F401
from .models import Model, Sequential  # noqa: F401
