"""tf.keras.applications.EfficientNetV2B0..B3, S, M, L (tf.keras.applications.efficientnet_v2), built as
tf_keras 2.21 builds them: the preprocessing in the model (include_preprocessing: B0-B3 rescale to [0, 1] and
normalize by ImageNet's mean and std; S/M/L rescale to [-1, 1]), a 3x3/2 stem, stages of Fused-MBConv then
MBConv blocks (`block{stage}{a,b,...}_`, batch-norm momentum 0.9, drop-connect Dropout before each residual
add), a 1x1 `top_conv`. weights='imagenet' loads efficientnetv2-{b0..b3,s,m,l}(_notop).h5."""
import math

from .. import layers
from . import _common, imagenet_utils
from .efficientnet import CONV_KERNEL_INITIALIZER, DENSE_KERNEL_INITIALIZER

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/"
WEIGHTS_HASHES = {
    "b0": ("21ecbf6da12460d5c40bb2f29ceb2188", "893217f2bb855e2983157299931e43ff"),
    "b1": ("069f0534ff22adf035c89e2d9547a9dc", "0e80663031ca32d657f9caa404b6ec37"),
    "b2": ("424e49f28180edbde1e94797771950a7", "1dfe2e7a5d45b6632553a8961ea609eb"),
    "b3": ("1f1fc43bd98a6e4fd8fdfd551e02c7a0", "f6abf7b5849ac99a89b50dd3fd532856"),
    "-s": ("e1d88a8495beba45748fedd0cecbe016", "af0682fb74e8c54910f2d4393339c070"),
    "-m": ("a3bf6aa3276309f4fc6a34aa114c95cd", "1b8dc055df72dde80d614482840fe342"),
    "-l": ("27e6d408b53c7ebc868fefa357689935", "b0b66b5c863aef5b46e8608fe1711615"),
}
# (kernel, repeats, filters in, filters out, expansion, squeeze ratio, stride, fused) per stage
_B = ((3, 1, 32, 16, 1, 0, 1, True), (3, 2, 16, 32, 4, 0, 2, True), (3, 2, 32, 48, 4, 0, 2, True),
      (3, 3, 48, 96, 4, 0.25, 2, False), (3, 5, 96, 112, 6, 0.25, 1, False), (3, 8, 112, 192, 6, 0.25, 2, False))
STAGES = {
    "efficientnetv2-b0": _B, "efficientnetv2-b1": _B, "efficientnetv2-b2": _B, "efficientnetv2-b3": _B,
    "efficientnetv2-s": ((3, 2, 24, 24, 1, 0, 1, True), (3, 4, 24, 48, 4, 0, 2, True),
                         (3, 4, 48, 64, 4, 0, 2, True), (3, 6, 64, 128, 4, 0.25, 2, False),
                         (3, 9, 128, 160, 6, 0.25, 1, False), (3, 15, 160, 256, 6, 0.25, 2, False)),
    "efficientnetv2-m": ((3, 3, 24, 24, 1, 0, 1, True), (3, 5, 24, 48, 4, 0, 2, True),
                         (3, 5, 48, 80, 4, 0, 2, True), (3, 7, 80, 160, 4, 0.25, 2, False),
                         (3, 14, 160, 176, 6, 0.25, 1, False), (3, 18, 176, 304, 6, 0.25, 2, False),
                         (3, 5, 304, 512, 6, 0.25, 1, False)),
    "efficientnetv2-l": ((3, 4, 32, 32, 1, 0, 1, True), (3, 7, 32, 64, 4, 0, 2, True),
                         (3, 7, 64, 96, 4, 0, 2, True), (3, 10, 96, 192, 4, 0.25, 2, False),
                         (3, 19, 192, 224, 6, 0.25, 1, False), (3, 25, 224, 384, 6, 0.25, 2, False),
                         (3, 7, 384, 640, 6, 0.25, 1, False)),
}


def round_filters(filters, width_coefficient, min_depth, depth_divisor):
    filters *= width_coefficient
    return int(max(min_depth or depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))


def round_repeats(repeats, depth_coefficient):
    return int(math.ceil(depth_coefficient * repeats))


def _conv(filters, kernel, name, strides=1, **kw):
    return layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=kw.pop("use_bias", False),
                         kernel_initializer=CONV_KERNEL_INITIALIZER, name=name, **kw)


def _bn_act(x, momentum, activation, bn_name, act_name):
    x = layers.BatchNormalization(axis=3, momentum=momentum, name=bn_name)(x)
    return x if act_name is None else layers.Activation(activation, name=act_name)(x)


def _se(x, filters, input_filters, se_ratio, activation, name):
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = _conv(max(1, int(input_filters * se_ratio)), 1, name + "se_reduce", use_bias=True,
               activation=activation)(se)
    se = _conv(filters, 1, name + "se_expand", use_bias=True, activation="sigmoid")(se)
    return layers.multiply([x, se], name=name + "se_excite")


def _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name):
    if strides == 1 and input_filters == output_filters:
        if survival_probability:
            x = layers.Dropout(survival_probability, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def MBConvBlock(input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1, se_ratio=0.0,
                bn_momentum=0.9, activation="swish", survival_probability=0.8, name=None):
    """1x1 expansion, depthwise (dwconv2), squeeze-excite, 1x1 projection."""
    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = _conv(filters, 1, name + "expand_conv")(x)
            x = _bn_act(x, bn_momentum, activation, name + "expand_bn", name + "expand_activation")
        x = layers.DepthwiseConv2D(kernel_size=kernel_size, strides=strides,
                                   depthwise_initializer=CONV_KERNEL_INITIALIZER, padding="same",
                                   use_bias=False, name=name + "dwconv2")(x)
        x = _bn_act(x, bn_momentum, activation, name + "bn", name + "activation")
        if 0 < se_ratio <= 1:
            x = _se(x, filters, input_filters, se_ratio, activation, name)
        x = _conv(output_filters, 1, name + "project_conv")(x)
        x = _bn_act(x, bn_momentum, activation, name + "project_bn", None)
        return _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name)
    return apply


def FusedMBConvBlock(input_filters, output_filters, expand_ratio=1, kernel_size=3, strides=1, se_ratio=0.0,
                     bn_momentum=0.9, activation="swish", survival_probability=0.8, name=None):
    """A full kxk expansion convolution (or, without expansion, the kxk projection itself), then 1x1."""
    def apply(inputs):
        filters = input_filters * expand_ratio
        x = inputs
        if expand_ratio != 1:
            x = _conv(filters, kernel_size, name + "expand_conv", strides=strides)(x)
            x = _bn_act(x, bn_momentum, activation, name + "expand_bn", name + "expand_activation")
        if 0 < se_ratio <= 1:
            x = _se(x, filters, input_filters, se_ratio, activation, name)
        fused = expand_ratio == 1
        x = _conv(output_filters, kernel_size if fused else 1, name + "project_conv", strides=strides if fused else 1)(x)
        x = _bn_act(x, bn_momentum, activation, name + "project_bn", name + "project_activation" if fused else None)
        return _residual(x, inputs, strides, input_filters, output_filters, survival_probability, name)
    return apply


def EfficientNetV2(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2, drop_connect_rate=0.2,
                   depth_divisor=8, min_depth=8, bn_momentum=0.9, activation="swish", blocks_args="default",
                   model_name="efficientnetv2", include_top=True, weights="imagenet", input_tensor=None,
                   input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
                   include_preprocessing=True):
    stages = STAGES[model_name] if blocks_args == "default" else [
        (a["kernel_size"], a["num_repeat"], a["input_filters"], a["output_filters"], a["expand_ratio"],
         a["se_ratio"], a["strides"], a["conv_type"] == 1) for a in blocks_args]
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)

    def rf(f):
        return round_filters(f, width_coefficient, min_depth, depth_divisor)

    x = img_input
    if include_preprocessing:
        if model_name.split("-")[-1].startswith("b") and input_shape[2] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(mean=[0.485, 0.456, 0.406], variance=[0.229 ** 2, 0.224 ** 2, 0.225 ** 2],
                                     axis=3)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    x = _conv(rf(stages[0][2]), 3, "stem_conv", strides=2)(x)
    x = _bn_act(x, bn_momentum, activation, "stem_bn", "stem_activation")
    b, total = 0, float(sum(s[1] for s in stages))
    for i, (kernel, repeats, f_in, f_out, expand, se_ratio, stride, fused) in enumerate(stages):
        f_in, f_out = rf(f_in), rf(f_out)
        block = FusedMBConvBlock if fused else MBConvBlock
        for j in range(round_repeats(repeats, depth_coefficient)):
            x = block(f_in if j == 0 else f_out, f_out, expand_ratio=expand, kernel_size=kernel,
                      strides=stride if j == 0 else 1, se_ratio=se_ratio, bn_momentum=bn_momentum,
                      activation=activation, survival_probability=drop_connect_rate * b / total,
                      name=f"block{i + 1}{chr(j + 97)}_")(x)
            b += 1
    x = _conv(rf(1280), 1, "top_conv")(x)
    x = _bn_act(x, bn_momentum, activation, "top_bn", "top_activation")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, kernel_initializer=DENSE_KERNEL_INITIALIZER,
                         bias_initializer="zeros", name="predictions")(x)
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    model = _common.model(input_tensor, img_input, x, model_name)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return _common.load_weights(model, weights, BASE_WEIGHTS_PATH + file_name,
                                WEIGHTS_HASHES.get(model_name[-2:], (None, None))[0 if include_top else 1])


def _variant(suffix, width, depth, size):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, classifier_activation="softmax", include_preprocessing=True):
        return EfficientNetV2(width, depth, size, model_name=f"efficientnetv2-{suffix}", include_top=include_top,
                              weights=weights, input_tensor=input_tensor, input_shape=input_shape, pooling=pooling,
                              classes=classes, classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing)
    build.__name__ = build.__qualname__ = f"EfficientNetV2{suffix.upper()}"
    build.__doc__ = f"EfficientNetV2{suffix.upper()}: {size}x{size} images by default."
    return build


EfficientNetV2B0 = _variant("b0", 1.0, 1.0, 224)
EfficientNetV2B1 = _variant("b1", 1.0, 1.1, 240)
EfficientNetV2B2 = _variant("b2", 1.1, 1.2, 260)
EfficientNetV2B3 = _variant("b3", 1.2, 1.4, 300)
EfficientNetV2S = _variant("s", 1.0, 1.0, 384)
EfficientNetV2M = _variant("m", 1.0, 1.0, 480)
EfficientNetV2L = _variant("l", 1.0, 1.0, 480)


def preprocess_input(x, data_format=None):
    """A pass-through: EfficientNetV2's preprocessing is in the model (include_preprocessing)."""
    return x


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
