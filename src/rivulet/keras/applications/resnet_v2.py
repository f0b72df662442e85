"""tf.keras.applications.ResNet50V2/101V2/152V2 (tf.keras.applications.resnet_v2), built as tf_keras 2.21 builds
them: conv1 (7x7/2 with bias, no batch norm: the blocks are pre-activated), a 3x3/2 max pooling, stacks
conv2..conv5 of pre-activation bottleneck blocks ({stack}_block{i}_preact_bn/_preact_relu, _1_conv.._3_conv,
_2_pad, _out; the stride is in the last block of a stack, its shortcut a 1x1 max pooling), then post_bn and
post_relu; weights='imagenet' loads resnet{depth}v2_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {"resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
                  "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
                  "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33")}
_EPS = 1.001e-5


def _bn(name):
    return layers.BatchNormalization(axis=3, epsilon=_EPS, name=name)


def _block(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A pre-activation bottleneck block: BN-ReLU, then 1x1, 3x3 (stride; padded by one), 1x1 to 4*filters,
    added to the shortcut (a 1x1 projection of the pre-activation, or the input max-pooled by the stride)."""
    preact = layers.Activation("relu", name=name + "_preact_relu")(_bn(name + "_preact_bn")(x))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(name + "_1_bn")(x))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(name + "_2_bn")(x))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stack(x, filters, blocks, stride1=2, name=None):
    x = _block(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = _block(x, filters, name=f"{name}_block{i}")
    return _block(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def ResNetV2(blocks, model_name, include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """ResNet v2 with `blocks` pre-activation blocks in stacks conv2..conv5 (ResNet50V2: 3, 4, 6, 3)."""
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for i, (filters, n) in enumerate(zip((64, 128, 256, 512), blocks)):
        x = _stack(x, filters, n, stride1=1 if i == 3 else 2, name=f"conv{i + 2}")
    x = layers.Activation("relu", name="post_relu")(_bn("post_bn")(x))
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    model = _common.model(input_tensor, img_input, x, model_name)
    suffix = "" if include_top else "_notop"
    url = f"{BASE_WEIGHTS_PATH}{model_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return _common.load_weights(model, weights, url, WEIGHTS_HASHES[model_name][0 if include_top else 1])


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
               classes=1000, classifier_activation="softmax"):
    return ResNetV2((3, 4, 6, 3), "resnet50v2", include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return ResNetV2((3, 4, 23, 3), "resnet101v2", include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation)


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return ResNetV2((3, 8, 36, 3), "resnet152v2", include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation)


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
