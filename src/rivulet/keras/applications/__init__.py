"""tf.keras.applications: MobileNet, MobileNetV2, MobileNetV3Small/Large, VGG16, VGG19, ResNet50/101/152,
ResNet50V2/101V2/152V2, InceptionV3, InceptionResNetV2, Xception, DenseNet121/169/201, EfficientNetB0-B7 and
EfficientNetV2B0-B3/S/M/L, ConvNeXtTiny..XLarge, RegNetX/Y002..320 and NASNetMobile/Large as tf_keras 2.21 builds them, with their preprocess_input/decode_predictions (pretrained weights fetched with get_file from
tf_keras's URLs)."""
from . import imagenet_utils, mobilenet, mobilenet_v2  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
from . import inception_v3, resnet, resnet50, vgg16, vgg19  # noqa: F401,E402
from .inception_v3 import InceptionV3  # noqa: F401,E402
from .resnet import ResNet50, ResNet101, ResNet152  # noqa: F401,E402
from .vgg16 import VGG16  # noqa: F401,E402
from .vgg19 import VGG19  # noqa: F401,E402
from . import densenet, efficientnet, resnet_v2  # noqa: F401,E402
from .densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401,E402
from .efficientnet import (EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3,  # noqa: F401,E402
                           EfficientNetB4, EfficientNetB5, EfficientNetB6, EfficientNetB7)
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401,E402
from . import xception  # noqa: F401,E402
from .xception import Xception  # noqa: F401,E402
from . import mobilenet_v3  # noqa: F401,E402
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small  # noqa: F401,E402
from . import efficientnet_v2  # noqa: F401,E402
from .efficientnet_v2 import (EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2, EfficientNetV2B3,  # noqa: F401,E402
                              EfficientNetV2L, EfficientNetV2M, EfficientNetV2S)
from . import inception_resnet_v2  # noqa: F401,E402
from .inception_resnet_v2 import InceptionResNetV2  # noqa: F401,E402
from . import convnext  # noqa: F401,E402
from .convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge  # noqa: F401,E402
from . import regnet  # noqa: F401,E402
from .regnet import (RegNetX002, RegNetX004, RegNetX006, RegNetX008, RegNetX016, RegNetX032,  # noqa: F401,E402
                     RegNetX040, RegNetX064, RegNetX080, RegNetX120, RegNetX160, RegNetX320, RegNetY002,
                     RegNetY004, RegNetY006, RegNetY008, RegNetY016, RegNetY032, RegNetY040, RegNetY064,
                     RegNetY080, RegNetY120, RegNetY160, RegNetY320)
from . import nasnet  # noqa: F401,E402
from .nasnet import NASNetLarge, NASNetMobile  # noqa: F401,E402
