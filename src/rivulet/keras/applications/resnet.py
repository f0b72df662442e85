"""tf.keras.applications.ResNet50/101/152 (tf.keras.applications.resnet and .resnet50), built as tf_keras 2.21
builds them: conv1 (7x7/2 after 3-pixel padding), a 3x3/2 max pooling, then stacks conv2..conv5 of bottleneck
blocks ({stack}_block{i}_{0..3}_conv/_bn, _add, _out; the first block of a stack has a projection shortcut
`_0_`); weights='imagenet' loads resnet{depth}_weights_tf_dim_ordering_tf_kernels(_notop).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {"resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
                  "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
                  "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c")}
_EPS = 1.001e-5


def _bn(name):
    return layers.BatchNormalization(axis=3, epsilon=_EPS, name=name)


def _block(x, filters, stride=1, conv_shortcut=True, name=None):
    """A bottleneck block: 1x1 (stride), 3x3 'same', 1x1 to 4*filters, each batch-normalized, added to the
    shortcut (a 1x1 projection when conv_shortcut), then ReLU."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(name + "_1_bn")(x))
    x = layers.Conv2D(filters, 3, padding="SAME", name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(name + "_2_bn")(x))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _stack(x, filters, blocks, stride1=2, name=None):
    x = _block(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = _block(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def ResNet(blocks, model_name, include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
           pooling=None, classes=1000, classifier_activation="softmax", **kwargs):
    """ResNet v1 with `blocks` bottleneck blocks in stacks conv2..conv5 (ResNet50: 3, 4, 6, 3)."""
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=224, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    x = layers.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for i, (filters, n) in enumerate(zip((64, 128, 256, 512), blocks)):
        x = _stack(x, filters, n, stride1=1 if i == 0 else 2, name=f"conv{i + 2}")
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights, pool_name="avg_pool")
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    model = _common.model(input_tensor, img_input, x, model_name)
    suffix = "" if include_top else "_notop"
    url = f"{BASE_WEIGHTS_PATH}{model_name}_weights_tf_dim_ordering_tf_kernels{suffix}.h5"
    return _common.load_weights(model, weights, url, WEIGHTS_HASHES[model_name][0 if include_top else 1])


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             **kwargs):
    return ResNet((3, 4, 6, 3), "resnet50", include_top, weights, input_tensor, input_shape, pooling, classes,
                  **kwargs)


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, **kwargs):
    return ResNet((3, 4, 23, 3), "resnet101", include_top, weights, input_tensor, input_shape, pooling, classes,
                  **kwargs)


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, **kwargs):
    return ResNet((3, 8, 36, 3), "resnet152", include_top, weights, input_tensor, input_shape, pooling, classes,
                  **kwargs)


def preprocess_input(x, data_format=None):
    """RGB to BGR, then each channel less ImageNet's mean (mode 'caffe'), no scaling."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
