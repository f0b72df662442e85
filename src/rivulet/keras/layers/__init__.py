"""tf.keras.layers."""
from .base import InputSpec, Layer  # noqa: F401
from .input_layer import Input, InputLayer  # noqa: F401
from .tf_op_lambda import SlicingOpLambda, TFOpLambda  # noqa: F401
from .core import Activation, Dense, Dropout, Embedding, Flatten, Lambda, ReLU, Reshape, Softmax  # noqa: F401
from .conv import (AveragePooling2D, AvgPool2D, Conv2D, GlobalAveragePooling2D, GlobalMaxPooling2D,  # noqa: F401
                   MaxPool2D, MaxPooling2D)
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .merge import (Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract, add, average,  # noqa: F401
                    concatenate, maximum, minimum, multiply, subtract)
from .activation import ELU, LeakyReLU, PReLU, ThresholdedReLU  # noqa: F401
from .convolutional import (Conv1D, Conv2DTranspose, Convolution1D, Convolution2DTranspose,  # noqa: F401
                            DepthwiseConv2D, SeparableConv2D, SeparableConvolution2D)
from .pooling import (AveragePooling1D, AveragePooling3D, AvgPool1D, AvgPool3D, GlobalAveragePooling1D,  # noqa: F401
                      GlobalAveragePooling3D, GlobalAvgPool1D, GlobalAvgPool3D, GlobalMaxPool1D, GlobalMaxPool3D,
                      GlobalMaxPooling1D, GlobalMaxPooling3D, MaxPool1D, MaxPool3D, MaxPooling1D, MaxPooling3D)
from .reshaping import (Cropping1D, Cropping2D, Rescaling, UpSampling1D, UpSampling2D, ZeroPadding1D,  # noqa: F401
                        ZeroPadding2D)
from .masking import Masking  # noqa: F401
from .recurrent import GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN, SimpleRNNCell  # noqa: F401
from .attention import Attention, MultiHeadAttention  # noqa: F401
from .wrappers import TimeDistributed  # noqa: F401
from .preprocessing import (CategoryEncoding, Discretization, Hashing, HashedCrossing, IntegerLookup,  # noqa: F401
                            Normalization, StringLookup, TextVectorization)
from .augmentation import (CenterCrop, RandomBrightness, RandomContrast, RandomCrop, RandomFlip,  # noqa: F401
                           RandomHeight, RandomRotation, RandomTranslation, RandomWidth, RandomZoom, Resizing)
from .dense_features import DenseFeatures  # noqa: F401


def _experimental():
    """tf.keras.layers.experimental.preprocessing: the preprocessing layers' older home, still used by tutorials."""
    import types
    preprocessing = types.ModuleType("rivulet.keras.layers.experimental.preprocessing")
    for name in ("CategoryEncoding", "CenterCrop", "Discretization", "Hashing", "IntegerLookup", "Normalization",
                 "RandomContrast", "RandomCrop", "RandomFlip", "RandomHeight", "RandomRotation", "RandomTranslation",
                 "RandomWidth", "RandomZoom", "Rescaling", "Resizing", "StringLookup", "TextVectorization"):
        setattr(preprocessing, name, globals()[name])
    module = types.ModuleType("rivulet.keras.layers.experimental")
    module.preprocessing = preprocessing
    return module


experimental = _experimental()


def serialize(layer, use_legacy_format=False):
    """tf.keras.layers.serialize: the layer's config with its class (and registered) name."""
    from ..saving.serialization import serialize_keras_object
    return serialize_keras_object(layer)


def deserialize(config, custom_objects=None, use_legacy_format=False):
    """tf.keras.layers.deserialize: the layer a config describes (an unknown class name: ValueError)."""
    from ..saving.serialization import deserialize_keras_object
    return deserialize_keras_object(config, custom_objects=custom_objects, printable_module_name="layer")
