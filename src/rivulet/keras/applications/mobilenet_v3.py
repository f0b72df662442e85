"""tf.keras.applications.MobileNetV3Small/MobileNetV3Large (tf.keras.applications.mobilenet_v3), built as
tf_keras 2.21 builds them: the [-1, 1] Rescaling in the model (include_preprocessing), `Conv`, the inverted
residual blocks (expanded_conv{_i}/expand, /depthwise, /squeeze_excite/..., /project, /Add; hard-swish as
tf_keras writes it, ReLU6(x + 3) / 6 as operator layers times x), `Conv_1`, and the top as 1x1 convolutions
(`Conv_2`, `Logits`, Flatten, `Predictions`); `minimalistic` (3x3 kernels, ReLU, no squeeze-excite) and
`alpha`. weights='imagenet' loads weights_mobilenet_v3_{small,large}[_minimalistic]_224_{alpha}_float(_no_top_v2).h5."""
import logging

from .. import layers
from ..models import Model
from . import _common, imagenet_utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/"
WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb", "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7", "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c", "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7", "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862", "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37", "cde8136e733e811080d9fcd8a252f7e4"),
}
# (expansion, filters, kernel ('k': 3 when minimalistic else 5), stride, squeeze-excite, activation ('h':
# hard-swish unless minimalistic)) per block
_SMALL = ((1, 16, 3, 2, True, "r"), (72.0 / 16, 24, 3, 2, False, "r"), (88.0 / 24, 24, 3, 1, False, "r"),
          (4, 40, "k", 2, True, "h"), (6, 40, "k", 1, True, "h"), (6, 40, "k", 1, True, "h"),
          (3, 48, "k", 1, True, "h"), (3, 48, "k", 1, True, "h"), (6, 96, "k", 2, True, "h"),
          (6, 96, "k", 1, True, "h"), (6, 96, "k", 1, True, "h"))
_LARGE = ((1, 16, 3, 1, False, "r"), (4, 24, 3, 2, False, "r"), (3, 24, 3, 1, False, "r"),
          (3, 40, "k", 2, True, "r"), (3, 40, "k", 1, True, "r"), (3, 40, "k", 1, True, "r"),
          (6, 80, 3, 2, False, "h"), (2.5, 80, 3, 1, False, "h"), (2.3, 80, 3, 1, False, "h"),
          (2.3, 80, 3, 1, False, "h"), (6, 112, 3, 1, True, "h"), (6, 112, 3, 1, True, "h"),
          (6, 160, "k", 2, True, "h"), (6, 160, "k", 1, True, "h"), (6, 160, "k", 1, True, "h"))


def relu(x):
    return layers.ReLU()(x)


def hard_sigmoid(x):
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def hard_swish(x):
    return layers.Multiply()([x, hard_sigmoid(x)])


def _depth(v, divisor=8, min_value=None):
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite/AvgPool")(inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=prefix + "squeeze_excite/Conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", name=prefix + "squeeze_excite/Conv_1")(x)
    return layers.Multiply(name=prefix + "squeeze_excite/Mul")([inputs, hard_sigmoid(x)])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut = x
    infilters = x.shape[-1]
    prefix = f"expanded_conv_{block_id}/" if block_id else "expanded_conv/"
    if block_id:
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = activation(_bn(prefix + "expand/BatchNorm")(x))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=prefix + "depthwise/pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride, padding="same" if stride == 1 else "valid",
                               use_bias=False, name=prefix + "depthwise")(x)
    x = activation(_bn(prefix + "depthwise/BatchNorm")(x))
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(prefix + "project/BatchNorm")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "Add")([shortcut, x])
    return x


def MobileNetV3(blocks, last_point_ch, input_shape=None, alpha=1.0, model_type="large", minimalistic=False,
                include_top=True, weights="imagenet", input_tensor=None, classes=1000, pooling=None,
                dropout_rate=0.2, classifier_activation="softmax", include_preprocessing=True):
    imagenet_utils.check_weights(weights, include_top, classes)
    if input_tensor is not None:
        _common.image_input(input_tensor, None)  # (a Keras tensor, or ValueError)
        if input_shape is not None and input_tensor.shape[2] != input_shape[1]:
            raise ValueError("input_shape[1] must equal backend.int_shape(input_tensor)[2].  Received "
                             f"input_shape={input_shape}, backend.int_shape(input_tensor)="
                             f"{tuple(input_tensor.shape)}")
        if input_shape is None:
            input_shape = (input_tensor.shape[2], input_tensor.shape[1], 3)
    if input_shape is None:
        input_shape = (None, None, 3)
    rows, cols = input_shape[0], input_shape[1]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    if weights == "imagenet":
        if (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non "
                             "minimalistic or `1.0` for minimalistic only.")
        if rows != cols or rows != 224:
            logging.warning("`input_shape` is undefined or non-square, or `rows` is not 224. Weights for input "
                            "shape (224, 224) will be loaded as the default.")
    img_input = layers.Input(shape=input_shape) if input_tensor is None else input_tensor
    kernel, activation, se_ratio = (3, relu, None) if minimalistic else (5, hard_swish, 0.25)
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False, name="Conv")(x)
    x = activation(_bn("Conv/BatchNorm")(x))
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha), kernel if k == "k" else k, stride,
                                se_ratio if se else None, activation if act == "h" else relu, block_id)
    last_conv_ch = _depth(x.shape[-1] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False, name="Conv_1")(x)
    x = activation(_bn("Conv_1/BatchNorm")(x))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True, name="Conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="Logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="Predictions")(x)
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    inputs = img_input if input_tensor is None else _common.source_inputs(input_tensor)
    model = Model(inputs, x, name="MobilenetV3" + model_type)
    if weights == "imagenet":
        key = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
        file_name = f"weights_mobilenet_v3_{key}{'.h5' if include_top else '_no_top_v2.h5'}"
        return _common.load_weights(model, weights, BASE_WEIGHT_PATH + file_name,
                                    WEIGHTS_HASHES[key][0 if include_top else 1])
    return _common.load_weights(model, weights, None, None)


def MobileNetV3Small(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2,
                     classifier_activation="softmax", include_preprocessing=True):
    return MobileNetV3(_SMALL, 1024, input_shape, alpha, "small", minimalistic, include_top, weights,
                       input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing)


def MobileNetV3Large(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                     input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2,
                     classifier_activation="softmax", include_preprocessing=True):
    return MobileNetV3(_LARGE, 1280, input_shape, alpha, "large", minimalistic, include_top, weights,
                       input_tensor, classes, pooling, dropout_rate, classifier_activation, include_preprocessing)


def preprocess_input(x, data_format=None):
    """A pass-through: MobileNetV3's preprocessing is in the model (include_preprocessing)."""
    return x


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
