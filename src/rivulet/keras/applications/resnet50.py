"""tf.keras.applications.resnet50: ResNet50 with resnet's preprocess_input and decode_predictions."""
from .resnet import ResNet50, decode_predictions, preprocess_input  # noqa: F401
