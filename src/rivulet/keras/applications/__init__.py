"""tf.keras.applications: MobileNet, MobileNetV2, VGG16, VGG19, ResNet50/101/152 and InceptionV3 as tf_keras
2.21 builds them, with their preprocess_input/decode_predictions (pretrained weights fetched with get_file from
tf_keras's URLs)."""
from . import imagenet_utils, mobilenet, mobilenet_v2  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
from . import inception_v3, resnet, resnet50, vgg16, vgg19  # noqa: F401,E402
from .inception_v3 import InceptionV3  # noqa: F401,E402
from .resnet import ResNet50, ResNet101, ResNet152  # noqa: F401,E402
from .vgg16 import VGG16  # noqa: F401,E402
from .vgg19 import VGG19  # noqa: F401,E402
