"""tf.keras.applications.MobileNetV2, built layer for layer as tf_keras 2.21 builds it (inverted residual
blocks, same names, shapes and parameter counts); weights='imagenet' fetches tf_keras's h5 file."""
from .. import layers
from ..models import Model
from . import _common, imagenet_utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"

_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
           (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
           (320, 1, 6))  # (filters, stride, expansion) of blocks 0..16


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax", **kwargs):
    imagenet_utils.check_weights(weights, include_top, classes)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    sizes = (96, 128, 160, 192, 224)
    input_shape = imagenet_utils.sized_input_shape(input_shape, sizes, include_top, weights)
    rows = input_shape[0]
    if weights == "imagenet":
        if alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
            raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, "
                             f"`1.0`, `1.3` or `1.4` only. Received `alpha={alpha}`")
        rows = imagenet_utils.weights_rows(rows, sizes)
    img_input = layers.Input(shape=input_shape) if input_tensor is None else input_tensor
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same",
                      use_bias=False, name="Conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride, expansion=expansion,
                                block_id=block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights)
    else:
        x = _common.pooled(x, pooling)
    model = Model(img_input, x, name=f"mobilenetv2_{alpha:0.2f}_{rows}")
    return _common.load_weights(model, weights, f"{BASE_WEIGHT_PATH}mobilenet_v2_weights_tf_dim_ordering_tf_kernels_"
                                f"{float(alpha)}_{rows}{'' if include_top else '_no_top'}.h5", None)


def _make_divisible(v, divisor, min_value=None):
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:  # never round down by more than 10%
        new_v += divisor
    return new_v


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    in_channels = inputs.shape[-1]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False, activation=None,
                          name=prefix + "expand")(x)
        x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid", name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None,
                      name=prefix + "project")(x)
    x = layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
