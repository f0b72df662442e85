"""tf.keras.applications.InceptionResNetV2 (tf.keras.applications.inception_resnet_v2), built as tf_keras 2.21
builds it: the stem (conv2d_bn units: Conv2D without bias, BatchNormalization without scale, ReLU; default
names), mixed_5b, ten block35 (scale 0.17), mixed_6a, twenty block17 (0.1), mixed_7a, ten block8 (0.2; the
last linear, scale 1), conv_7b; each residual block `{type}_{i}_mixed`, `_conv` (1x1 with bias) and a
CustomScaleLayer computing x + scale * r, then `_ac`. Default 299x299 images, at least 75x75.
weights='imagenet' loads inception_resnet_v2_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from ..layers.base import Layer
from ..saving.serialization import register_keras_serializable
from . import _common, imagenet_utils

BASE_WEIGHT_URL = "https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/"
WEIGHTS_HASHES = ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4")


@register_keras_serializable()
class CustomScaleLayer(Layer):
    """inputs[0] + inputs[1] * scale (the residual branch scaled, added to the shortcut)."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape[0]


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None):
    """Conv2D, then (without bias) BatchNormalization(scale=False) `{name}_bn`, then the activation `{name}_ac`."""
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=3, scale=False, name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


_BRANCHES = {"block35": (((32, 1),), ((32, 1), (32, 3)), ((32, 1), (48, 3), (64, 3))),
             "block17": (((192, 1),), ((128, 1), (160, [1, 7]), (192, [7, 1]))),
             "block8": (((192, 1),), ((192, 1), (224, [1, 3]), (256, [3, 1])))}


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    if block_type not in _BRANCHES:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" or "block8", but got: '
                         + str(block_type))
    branches = []
    for branch in _BRANCHES[block_type]:
        b = x
        for filters, kernel in branch:
            b = conv2d_bn(b, filters, kernel)
        branches.append(b)
    block_name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=3, name=block_name + "_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[3], 1, activation=None, use_bias=True, name=block_name + "_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=block_name + "_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                      classes=1000, classifier_activation="softmax", **kwargs):
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=299, min_size=75,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    branch_0 = conv2d_bn(x, 96, 1)
    branch_1 = conv2d_bn(conv2d_bn(x, 48, 1), 64, 5)
    branch_2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1), 96, 3), 96, 3)
    branch_pool = conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = layers.Concatenate(axis=3, name="mixed_5b")([branch_0, branch_1, branch_2, branch_pool])
    for i in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=i)
    branch_0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=3, name="mixed_6a")([branch_0, branch_1, branch_pool])
    for i in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=i)
    branch_0 = conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=3, name="mixed_7a")([branch_0, branch_1, branch_2, branch_pool])
    for i in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=i)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling)
    model = _common.model(input_tensor, img_input, x, "inception_resnet_v2")
    fname = f"inception_resnet_v2_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return _common.load_weights(model, weights, BASE_WEIGHT_URL + fname, WEIGHTS_HASHES[0 if include_top else 1])


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
