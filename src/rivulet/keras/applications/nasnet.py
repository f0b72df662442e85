"""tf.keras.applications.NASNetMobile/NASNetLarge (tf.keras.applications.nasnet), built as tf_keras 2.21 builds
them: stem_conv1/stem_bn1, two stem reduction cells, then three runs of `num_blocks` normal cells with a
reduction cell between runs (NASNet-A cells: `normal_conv_1_{id}`, separable blocks
`separable_conv_{1,2}[_bn]_{normal,reduction}_{left,right}{k}_{id}`, the average/max pooling branches, the
`adjust_*` blocks matching the previous cell's output, `normal_concat_{id}` / `reduction_concat_{id}`), a final
ReLU. NASNetMobile: 224x224 (penultimate 1056 filters, 4 blocks); NASNetLarge: 331x331 (4032, 6, skip
reduction). weights='imagenet' loads NASNet-mobile(-no-top).h5 / NASNet-large(-no-top).h5."""
from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/nasnet/"
# default size: (file name with the top, its hash, file name without, its hash)
WEIGHTS = {224: ("NASNet-mobile.h5", "nasnet_mobile.h5", "020fb642bf7360b370c678b08e0adf61",
                 "NASNet-mobile-no-top.h5", "nasnet_mobile_no_top.h5", "1ed92395b5b598bdda52abe5c0dbfd63"),
           331: ("NASNet-large.h5", "nasnet_large.h5", "11577c9a518f0070763c2b964a382f17",
                 "NASNet-large-no-top.h5", "nasnet_large_no_top.h5", "d81d89dc07e6e56530c4e77faddd61b5")}


def _bn(name):
    return layers.BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)


def _conv1x1(filters, name):
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False, name=name,
                         kernel_initializer="he_normal")


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """ReLU, separable conv (strided after correct padding when strides=2), BN, ReLU, separable conv, BN."""
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides, name=f"separable_conv_1_{block_id}",
                               padding="valid" if strides == (2, 2) else "same", use_bias=False,
                               kernel_initializer="he_normal")(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}", padding="same",
                               use_bias=False, kernel_initializer="he_normal")(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p, ip, filters, block_id=None):
    """The previous cell's output matched to this cell's: halved spatially (two offset 1x1/2 paths) when its
    size differs, projected to `filters` channels when only those differ."""
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False, name=f"adjust_conv_1_{block_id}",
                           kernel_initializer="he_normal")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False, name=f"adjust_conv_2_{block_id}",
                           kernel_initializer="he_normal")(p2)
        p = layers.concatenate([p1, p2], axis=-1)
        return _bn(f"adjust_bn_{block_id}")(p)
    if p.shape[-1] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(filters, f"adjust_conv_projection_{block_id}")(p)
        return _bn(f"adjust_bn_{block_id}")(p)
    return p


def _normal_a_cell(ip, p, filters, block_id=None):
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _bn(f"normal_bn_1_{block_id}")(_conv1x1(filters, f"normal_conv_1_{block_id}")(h))
    x1 = layers.add([_separable_conv_block(h, filters, kernel_size=(5, 5), block_id=f"normal_left1_{block_id}"),
                     _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")],
                    name=f"normal_add_1_{block_id}")
    x2 = layers.add([_separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}"),
                     _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")],
                    name=f"normal_add_2_{block_id}")
    x3 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_left3_{block_id}")(h)
    x3 = layers.add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_left4_{block_id}")(p)
    x4_2 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"normal_right4_{block_id}")(p)
    x4 = layers.add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.add([x5, h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    p = _adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _bn(f"reduction_bn_1_{block_id}")(_conv1x1(filters, f"reduction_conv_1_{block_id}")(h))
    h3 = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
    x1 = layers.add([
        _separable_conv_block(h, filters, (5, 5), strides=(2, 2), block_id=f"reduction_left1_{block_id}"),
        _separable_conv_block(p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right1_{block_id}")],
        name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2), block_id=f"reduction_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = layers.AveragePooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2), block_id=f"reduction_right3_{block_id}")
    x3 = layers.add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same", name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{block_id}")
    return x, ip


def NASNet(input_shape=None, penultimate_filters=4032, num_blocks=6, stem_block_filters=96, skip_reduction=True,
           filter_multiplier=2, include_top=True, weights="imagenet", input_tensor=None, pooling=None, classes=1000,
           default_size=None, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
                         f"input_shape argument must be static (no None entries). Got: `input_shape={input_shape}`.")
    default_size = 331 if default_size is None else default_size
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    if penultimate_filters % (24 * (filter_multiplier ** 2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
                         f"(`filter_multiplier` ** 2). Current value: {penultimate_filters}")
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False,
                      name="stem_conv1", kernel_initializer="he_normal")(img_input)
    x = _bn("stem_bn1")(x)
    x, p = _reduction_a_cell(x, None, filters // (filter_multiplier ** 2), block_id="stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for run in range(3):
        width = filters * filter_multiplier ** run
        if run:
            x, p0 = _reduction_a_cell(x, p, width, block_id=f"reduce_{run * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, width, block_id=str(run * num_blocks + (run > 0) + i))
    x = layers.Activation("relu")(x)
    if include_top:
        x = _common.top(x, classes, classifier_activation, weights)
    else:
        x = _common.pooled(x, pooling)
    model = _common.model(input_tensor, img_input, x, "NASNet")
    if weights == "imagenet":
        if default_size not in WEIGHTS:
            raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
        url_name, _, top_hash, url_name_notop, _, notop_hash = WEIGHTS[default_size]
        from ..data_utils import get_file
        cache, url, file_hash = ((WEIGHTS[default_size][1], url_name, top_hash) if include_top else
                                 (WEIGHTS[default_size][4], url_name_notop, notop_hash))
        model.load_weights(get_file(cache, BASE_WEIGHTS_PATH + url, cache_subdir="models", file_hash=file_hash))
        return model
    return _common.load_weights(model, weights, None, None)


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                 classes=1000, classifier_activation="softmax"):
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32, skip_reduction=False,
                  filter_multiplier=2, include_top=include_top, weights=weights, input_tensor=input_tensor,
                  pooling=pooling, classes=classes, default_size=224, classifier_activation=classifier_activation)


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, classifier_activation="softmax"):
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96, skip_reduction=True,
                  filter_multiplier=2, include_top=include_top, weights=weights, input_tensor=input_tensor,
                  pooling=pooling, classes=classes, default_size=331, classifier_activation=classifier_activation)


def preprocess_input(x, data_format=None):
    """Scales pixels from [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
