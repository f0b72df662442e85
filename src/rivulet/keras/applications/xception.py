"""tf.keras.applications.Xception (tf.keras.applications.xception), built as tf_keras 2.21 builds it: the entry
flow (block1 convolutions; blocks 2-4 of separable convolutions, each max-pooled and added to a strided 1x1
projection), eight middle-flow residual blocks (block5..block12, three ReLU-separable-BN each) and the exit
flow (block13, block14); default 299x299 images, at least 71x71. weights='imagenet' loads
xception_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"
WEIGHTS_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _sep(x, filters, name, act_before=True, act_after=False):
    """[ReLU] separable 3x3 'same' without bias, batch-normalized [then ReLU]; names {name}, _bn, _act."""
    if act_before:
        x = layers.Activation("relu", name=name + "_act")(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    x = layers.BatchNormalization(axis=-1, name=name + "_bn")(x)
    if act_after:
        x = layers.Activation("relu", name=name + "_act")(x)
    return x


def _projection(x, filters):
    residual = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    return layers.BatchNormalization(axis=-1)(residual)


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
             classes=1000, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=299, min_size=71,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=-1, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    for block, (f1, f2) in enumerate(((128, 128), (256, 256), (728, 728)), start=2):
        residual = _projection(x, f2)
        x = _sep(x, f1, f"block{block}_sepconv1", act_before=block > 2)
        x = _sep(x, f2, f"block{block}_sepconv2")
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
        x = layers.add([x, residual])
    for block in range(5, 13):
        residual = x
        for k in (1, 2, 3):
            x = _sep(x, 728, f"block{block}_sepconv{k}")
        x = layers.add([x, residual])
    residual = _projection(x, 1024)
    x = _sep(x, 728, "block13_sepconv1")
    x = _sep(x, 1024, "block13_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])
    x = _sep(x, 1536, "block14_sepconv1", act_before=False, act_after=True)
    x = _sep(x, 2048, "block14_sepconv2", act_before=False, act_after=True)
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling)
    model = _common.model(input_tensor, img_input, x, "xception")
    url = f"{BASE_WEIGHTS_PATH}xception_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return _common.load_weights(model, weights, url, WEIGHTS_HASHES[0 if include_top else 1])


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
