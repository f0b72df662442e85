"""tf.keras.applications.VGG16 (and vgg16.preprocess_input/decode_predictions), built as tf_keras 2.21 builds
it: five blocks of 3x3 'same' ReLU convolutions (block{b}_conv{i}) each ending in a 2x2 max pooling
(block{b}_pool), then Flatten and fc1/fc2 (4096, ReLU) and `predictions`; weights='imagenet' loads tf_keras's
vgg16_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE = "https://storage.googleapis.com/tensorflow/keras-applications/"
WEIGHTS_PATH = BASE + "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels.h5"
WEIGHTS_PATH_NO_TOP = BASE + "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5"
HASHES = ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc")


def build_vgg(name, convs, urls, hashes, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation):
    """VGG with `convs` convolutions in each of its five blocks (VGG16: 2, 2, 3, 3, 3; VGG19: 2, 2, 4, 4, 4)."""
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = img_input
    for block, (n, filters) in enumerate(zip(convs, (64, 128, 256, 512, 512)), start=1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pooled(x, pooling)
    model = _common.model(input_tensor, img_input, x, name)
    top = 0 if include_top else 1
    return _common.load_weights(model, weights, urls[top], hashes[top])


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          classifier_activation="softmax"):
    return build_vgg("vgg16", (2, 2, 3, 3, 3), (WEIGHTS_PATH, WEIGHTS_PATH_NO_TOP), HASHES, include_top, weights,
                     input_tensor, input_shape, pooling, classes, classifier_activation)


def preprocess_input(x, data_format=None):
    """RGB to BGR, then each channel less ImageNet's mean (mode 'caffe'), no scaling."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
