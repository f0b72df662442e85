"""tf.keras.applications.VGG19 (and vgg19.preprocess_input/decode_predictions): VGG16's layout with four
convolutions in blocks 3 to 5 (block{b}_conv4), as tf_keras 2.21 builds it; weights='imagenet' loads
vgg19_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from . import imagenet_utils
from .vgg16 import BASE, build_vgg

WEIGHTS_PATH = BASE + "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels.h5"
WEIGHTS_PATH_NO_TOP = BASE + "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5"
HASHES = ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          classifier_activation="softmax"):
    return build_vgg("vgg19", (2, 2, 4, 4, 4), (WEIGHTS_PATH, WEIGHTS_PATH_NO_TOP), HASHES, include_top, weights,
                     input_tensor, input_shape, pooling, classes, classifier_activation)


def preprocess_input(x, data_format=None):
    """RGB to BGR, then each channel less ImageNet's mean (mode 'caffe'), no scaling."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
