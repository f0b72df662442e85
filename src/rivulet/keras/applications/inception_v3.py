"""tf.keras.applications.InceptionV3 (and inception_v3.preprocess_input/decode_predictions), built as tf_keras
2.21 builds it: a stem of convolutions (each Conv2D without bias, BatchNormalization without scale, ReLU, the
layers taking Keras's default names) and the eleven concatenations mixed0..mixed10 (mixed9_0/mixed9_1 inside
the last two); weights='imagenet' loads inception_v3_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"
WEIGHTS_PATH = BASE + "inception_v3_weights_tf_dim_ordering_tf_kernels.h5"
WEIGHTS_PATH_NO_TOP = BASE + "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5"
HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Conv2D (no bias), BatchNormalization (no gamma), ReLU; named name_conv, name_bn, name when given."""
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding, use_bias=False,
                      name=None if name is None else name + "_conv")(x)
    x = layers.BatchNormalization(axis=3, scale=False, name=None if name is None else name + "_bn")(x)
    return layers.Activation("relu", name=name)(x)


def _avg_branch(x, filters):
    return conv2d_bn(layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), filters, 1, 1)


def _module_35(x, pool_filters, name):
    """mixed0..2 (35x35): 1x1; 1x1 then 5x5; 1x1 then two 3x3; average pooling then 1x1."""
    b1 = conv2d_bn(x, 64, 1, 1)
    b5 = conv2d_bn(conv2d_bn(x, 48, 1, 1), 64, 5, 5)
    b3 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    return layers.concatenate([b1, b5, b3, _avg_branch(x, pool_filters)], axis=3, name=name)


def _module_17(x, width, name):
    """mixed4..7 (17x17): 1x1; 1x1, 1x7, 7x1; 1x1, 7x1, 1x7, 7x1, 1x7; average pooling then 1x1."""
    b1 = conv2d_bn(x, 192, 1, 1)
    b7 = conv2d_bn(x, width, 1, 1)
    b7 = conv2d_bn(b7, width, 1, 7)
    b7 = conv2d_bn(b7, 192, 7, 1)
    bd = conv2d_bn(x, width, 1, 1)
    for filters, rows, cols in ((width, 7, 1), (width, 1, 7), (width, 7, 1), (192, 1, 7)):
        bd = conv2d_bn(bd, filters, rows, cols)
    return layers.concatenate([b1, b7, bd, _avg_branch(x, 192)], axis=3, name=name)


def _module_8(x, i):
    """mixed9, mixed10 (8x8): 1x1; 1x1 then 1x3 and 3x1 (mixed9_i); 1x1, 3x3 then 1x3 and 3x1; pooling, 1x1."""
    b1 = conv2d_bn(x, 320, 1, 1)
    b3 = conv2d_bn(x, 384, 1, 1)
    b3 = layers.concatenate([conv2d_bn(b3, 384, 1, 3), conv2d_bn(b3, 384, 3, 1)], axis=3, name=f"mixed9_{i}")
    bd = conv2d_bn(conv2d_bn(x, 448, 1, 1), 384, 3, 3)
    bd = layers.concatenate([conv2d_bn(bd, 384, 1, 3), conv2d_bn(bd, 384, 3, 1)], axis=3)
    return layers.concatenate([b1, b3, bd, _avg_branch(x, 192)], axis=3, name=f"mixed{9 + i}")


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=299, min_size=75,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _module_35(x, pool_filters, f"mixed{i}")
    # mixed3 (17x17): a 3x3/2 convolution, 1x1 then 3x3 then 3x3/2, a 3x3/2 max pooling
    b3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    bd = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2), padding="valid")
    x = layers.concatenate([b3, bd, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=3, name="mixed3")
    for i, width in enumerate((128, 160, 160, 192)):
        x = _module_17(x, width, f"mixed{4 + i}")
    # mixed8 (8x8): 1x1 then 3x3/2; 1x1, 1x7, 7x1 then 3x3/2; a 3x3/2 max pooling
    b3 = conv2d_bn(conv2d_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = conv2d_bn(conv2d_bn(conv2d_bn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
    b7 = conv2d_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    x = layers.concatenate([b3, b7, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=3, name="mixed8")
    for i in range(2):
        x = _module_8(x, i)
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling)
    model = _common.model(input_tensor, img_input, x, "inception_v3")
    top = 0 if include_top else 1
    return _common.load_weights(model, weights, (WEIGHTS_PATH, WEIGHTS_PATH_NO_TOP)[top], HASHES[top])


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
