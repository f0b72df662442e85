"""tf.keras.applications.EfficientNetB0..B7 (tf.keras.applications.efficientnet), built as tf_keras 2.21 builds
them: the input rescaled to [0, 1] and normalized in the model (`rescaling`, `normalization`, and for
weights='imagenet' a multiplication by 1/sqrt(ImageNet's std), as tf_keras's), a 3x3/2 stem, seven stages of
MBConv blocks (`block{stage}{a,b,...}_`: expansion, depthwise, squeeze-and-excitation, projection, and a
drop-connect Dropout before the residual add), a 1x1 `top_conv`; widths and depths scaled by each variant's
coefficients. weights='imagenet' loads keras-applications' efficientnetb{n}(_notop).h5."""
import math

from .. import layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/keras-applications/"
WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
    "b4": ("18c95ad55216b8f92d7e70b3a046e2fc", "ebc24e6d6c33eaebbd558eafbeedf1ba"),
    "b5": ("ace28f2a6363774853a83a0b21b9421a", "38879255a25d3c92d5e44e04ae6cec6f"),
    "b6": ("165f6e37dce68623721b423839de8be5", "9ecce42647a20130c1f39a5d4cb75743"),
    "b7": ("8c03f828fec3ef71311cd463b6759d99", "cbcfe4450ddf6f3ad90b1b398090fe4a"),
}
# (kernel, repeats, filters in, filters out, expansion, stride) of the seven stages; squeeze ratio 0.25
STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
          (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1))
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}
IMAGENET_STDDEV_RGB = [0.229, 0.224, 0.225]


def round_filters(filters, width_coefficient, divisor=8):
    """filters scaled by the width coefficient, to a multiple of divisor, never 10% below the scaled value."""
    filters *= width_coefficient
    new = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    return int(new + divisor if new < 0.9 * filters else new)


def _conv(filters, kernel, name, **kw):
    return layers.Conv2D(filters, kernel, padding=kw.pop("padding", "same"), use_bias=kw.pop("use_bias", False),
                         kernel_initializer=CONV_KERNEL_INITIALIZER, name=name, **kw)


def block(inputs, activation="swish", drop_rate=0.0, name="", filters_in=32, filters_out=16, kernel_size=3,
          strides=1, expand_ratio=1, se_ratio=0.0, id_skip=True):
    """One MBConv block (names as tf_keras's: expand_conv/_bn/_activation, dwconv(_pad), bn, activation,
    se_squeeze/_reshape/_reduce/_expand/_excite, project_conv/_bn, drop, add)."""
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = _conv(filters, 1, name + "expand_conv")(x)
        x = layers.BatchNormalization(axis=3, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size), name=name + "dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding="valid" if strides == 2 else "same",
                               use_bias=False, depthwise_initializer=CONV_KERNEL_INITIALIZER,
                               name=name + "dwconv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "bn")(x)
    x = layers.Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
        se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
        se = _conv(max(1, int(filters_in * se_ratio)), 1, name + "se_reduce", use_bias=True,
                   activation=activation)(se)
        se = _conv(filters, 1, name + "se_expand", use_bias=True, activation="sigmoid")(se)
        x = layers.multiply([x, se], name=name + "se_excite")
    x = _conv(filters_out, 1, name + "project_conv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.add([x, inputs], name=name + "add")
    return x


def imagenet_input_scale(x):
    """tf_keras's correction for the ImageNet weights: Normalization divides by sqrt(variance) once more
    (a tf.math.multiply TFOpLambda layer by 1/sqrt(std) per channel)."""
    import rivulet as tf
    return tf.math.multiply(x, tf.reshape([1.0 / math.sqrt(s) for s in IMAGENET_STDDEV_RGB], [1, 1, 1, 3]))


def EfficientNet(width_coefficient, depth_coefficient, default_size, dropout_rate=0.2, drop_connect_rate=0.2,
                 depth_divisor=8, activation="swish", blocks_args="default", model_name="efficientnet",
                 include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                 classes=1000, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    stages = STAGES if blocks_args == "default" else [
        (a["kernel_size"], a["repeats"], a["filters_in"], a["filters_out"], a["expand_ratio"], a["strides"])
        for a in blocks_args]

    def rf(f):
        return round_filters(f, width_coefficient, depth_divisor)

    def rr(n):
        return int(math.ceil(depth_coefficient * n))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=3)(x)
    if weights == "imagenet":
        x = imagenet_input_scale(x)
    x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = _conv(rf(32), 3, "stem_conv", strides=2, padding="valid")(x)
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    b, total = 0, float(sum(rr(s[1]) for s in stages))
    for i, (kernel, repeats, f_in, f_out, expand, stride) in enumerate(stages):
        f_in, f_out = rf(f_in), rf(f_out)
        for j in range(rr(repeats)):
            x = block(x, activation, drop_connect_rate * b / total, name=f"block{i + 1}{chr(j + 97)}_",
                      filters_in=f_in if j == 0 else f_out, filters_out=f_out, kernel_size=kernel,
                      strides=stride if j == 0 else 1, expand_ratio=expand, se_ratio=0.25)
            b += 1
    x = _conv(rf(1280), 1, "top_conv")(x)
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, kernel_initializer=DENSE_KERNEL_INITIALIZER,
                         name="predictions")(x)
    else:
        x = _common.pooled(x, pooling, "avg_pool", "max_pool")
    model = _common.model(input_tensor, img_input, x, model_name)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return _common.load_weights(model, weights, BASE_WEIGHTS_PATH + file_name,
                                WEIGHTS_HASHES[model_name[-2:]][0 if include_top else 1])


def _variant(n, width, depth, size, dropout):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
              classes=1000, classifier_activation="softmax", **kwargs):
        if kwargs:
            raise TypeError(f"EfficientNet() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return EfficientNet(width, depth, size, dropout, model_name=f"efficientnetb{n}", include_top=include_top,
                            weights=weights, input_tensor=input_tensor, input_shape=input_shape, pooling=pooling,
                            classes=classes, classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = f"EfficientNetB{n}"
    build.__doc__ = f"EfficientNetB{n}: width x{width}, depth x{depth}, {size}x{size} images by default."
    return build


EfficientNetB0 = _variant(0, 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _variant(1, 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _variant(2, 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _variant(3, 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _variant(4, 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _variant(5, 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _variant(6, 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _variant(7, 2.0, 3.1, 600, 0.5)


def preprocess_input(x, data_format=None):
    """A pass-through: EfficientNet's preprocessing is in the model (it takes pixels in [0, 255])."""
    return x


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
