"""tf.keras.layers."""
from .base import InputSpec, Layer  # noqa: F401
from .input_layer import Input, InputLayer  # noqa: F401
from .core import Activation, Dense, Dropout, Embedding, Flatten, Lambda, ReLU, Reshape, Softmax  # noqa: F401
from .conv import (AveragePooling2D, AvgPool2D, Conv2D, GlobalAveragePooling2D, GlobalMaxPooling2D,  # noqa: F401
                   MaxPool2D, MaxPooling2D)
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .merge import (Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract, add, average,  # noqa: F401
                    concatenate, maximum, minimum, multiply, subtract)
