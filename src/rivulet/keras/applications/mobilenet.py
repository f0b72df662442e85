"""tf.keras.applications.MobileNet (v1), built layer for layer as tf_keras 2.21 builds it (same names,
shapes and parameter counts); weights='imagenet' fetches tf_keras's h5 file with get_file and loads it."""
from .. import layers
from ..models import Model
from . import _common, imagenet_utils

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True, weights="imagenet",
              input_tensor=None, pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    imagenet_utils.check_weights(weights, include_top, classes)
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    sizes = (128, 160, 192, 224)
    input_shape = imagenet_utils.sized_input_shape(input_shape, sizes, include_top, weights)
    rows = input_shape[0]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError(f"If imagenet weights are being loaded, depth multiplier must be 1.  Received "
                             f"depth_multiplier={depth_multiplier}")
        if alpha not in (0.25, 0.50, 0.75, 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or "
                             f"`1.0` only.  Received alpha={alpha}")
        rows = imagenet_utils.weights_rows(rows, sizes)
    img_input = layers.Input(shape=input_shape) if input_tensor is None else input_tensor
    x = _conv_block(img_input, 32, alpha, strides=(2, 2))
    for filters, strides, block_id in ((64, 1, 1), (128, 2, 2), (128, 1, 3), (256, 2, 4), (256, 1, 5),
                                       (512, 2, 6), (512, 1, 7), (512, 1, 8), (512, 1, 9), (512, 1, 10),
                                       (512, 1, 11), (1024, 2, 12), (1024, 1, 13)):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, strides=(strides, strides),
                                  block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pooled(x, pooling)
    model = Model(img_input, x, name=f"mobilenet_{alpha:0.2f}_{rows}")
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0"}.get(alpha, "2_5")
    return _common.load_weights(model, weights, f"{BASE_WEIGHT_PATH}mobilenet_{alpha_text}_{rows}_tf"
                                f"{'' if include_top else '_no_top'}.h5", None)


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1)):
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False, strides=strides,
                      name="conv1")(inputs)
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1, strides=(1, 1), block_id=1):
    filters = int(pointwise_conv_filters * alpha)
    x = inputs if strides == (1, 1) else \
        layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides, use_bias=False,
                               name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(filters, (1, 1), padding="same", use_bias=False, strides=(1, 1),
                      name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
