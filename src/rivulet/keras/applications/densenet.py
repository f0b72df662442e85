"""tf.keras.applications.DenseNet121/169/201 (tf.keras.applications.densenet), built as tf_keras 2.21 builds
them: conv1/conv (7x7/2), conv1/bn, conv1/relu, pool1, then dense blocks conv2..conv5 of conv blocks
({block}_block{i}_0_bn/_0_relu/_1_conv/_1_bn/_1_relu/_2_conv/_concat, growth 32) with transitions pool2..pool4
(BN, ReLU, a 1x1 conv halving the channels, 2x2 average pooling), then bn and relu;
weights='imagenet' loads densenet{n}_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
WEIGHTS_HASHES = {"densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
                  "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
                  "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1")}
_NAMES = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169", (6, 12, 48, 32): "densenet201"}
_EPS = 1.001e-5


def _bn_relu(x, name):
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_bn")(x)
    return layers.Activation("relu", name=name + "_relu")(x)


def conv_block(x, growth_rate, name):
    """BN-ReLU-1x1 (4*growth) then BN-ReLU-3x3 (growth), concatenated to the input."""
    x1 = _bn_relu(x, name + "_0")
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = _bn_relu(x1, name + "_1")
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return layers.Concatenate(axis=3, name=name + "_concat")([x, x1])


def dense_block(x, blocks, name):
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
             classes=1000, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        x = dense_block(x, n, name=f"conv{i + 2}")
        if i < 3:
            x = transition_block(x, 0.5, name=f"pool{i + 2}")
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    name = _NAMES.get(tuple(blocks), "densenet")
    model = _common.model(input_tensor, img_input, x, name)
    if weights == "imagenet" and name not in WEIGHTS_HASHES:
        return model  # (tf_keras has no ImageNet file for other depths)
    url = f"{BASE_WEIGHTS_PATH}{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return _common.load_weights(model, weights, url, WEIGHTS_HASHES.get(name, (None, None))[0 if include_top else 1])


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling, classes,
                    classifier_activation)


def preprocess_input(x, data_format=None):
    """Scales pixels to [0, 1], then each channel less ImageNet's mean over its std (mode 'torch')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
