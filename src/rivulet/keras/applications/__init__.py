"""tf.keras.applications: MobileNet and MobileNetV2 as tf_keras 2.21 builds them, with their
preprocess_input/decode_predictions (pretrained weights fetched with get_file from tf_keras's URLs)."""
from . import imagenet_utils, mobilenet, mobilenet_v2  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
