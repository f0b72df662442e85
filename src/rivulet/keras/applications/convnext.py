"""tf.keras.applications.ConvNeXtTiny/Small/Base/Large/XLarge (tf.keras.applications.convnext), built as
tf_keras 2.21 builds them: ImageNet's mean/std Normalization in the model (include_preprocessing,
`{name}_prestem_normalization`), the stem and three downsampling blocks as Sequential models
(`{name}_stem`: 4x4/4 conv and LayerNormalization; `{name}_downsampling_block_{i}`: LayerNormalization and a 2x2/2
conv), ConvNeXt blocks (`{name}_stage_{i}_block_{j}_`: 7x7 depthwise as a grouped Conv2D, LayerNormalization,
Dense x4, GELU, Dense, LayerScale, then the identity Activation added to the input as an operator layer), and the
head (`{name}_head_gap`, `_head_layernorm`, `_head_dense`). weights='imagenet' loads convnext_{size}(_notop).h5."""
import numpy as np

from .. import initializers, layers
from ..layers.base import Layer
from ..models import Sequential
from ..saving.serialization import register_keras_serializable
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/convnext/"
WEIGHTS_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768], "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024], "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536], "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048], "default_size": 224},
}


@register_keras_serializable()
class StochasticDepth(Layer):
    """Drops the whole residual path of a batch with probability drop_path_rate in training (scaled by
    1/keep), the identity otherwise."""

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if training:
            import rivulet as tf
            keep_prob = 1 - self.drop_path_rate
            shape = tf.concat([tf.shape(x)[:1], tf.ones([tf.rank(x) - 1], tf.int32)], 0)
            return (x / keep_prob) * tf.floor(keep_prob + tf.random.uniform(shape, 0, 1))
        return x

    def get_config(self):
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


@register_keras_serializable()
class LayerScale(Layer):
    """x times a learned per-channel `gamma` (projection_dim values, initialized to init_values)."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(name="gamma", shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values), trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "init_values": self.init_values, "projection_dim": self.projection_dim}


def ConvNeXtBlock(projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=None):
    def apply(inputs):
        x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same", groups=projection_dim,
                          name=name + "_depthwise_conv")(inputs)
        x = layers.LayerNormalization(epsilon=1e-6, name=name + "_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=name + "_gelu")(x)
        x = layers.Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim, name=name + "_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=name + "_stochastic_depth")
        else:
            layer = layers.Activation("linear", name=name + "_identity")
        return inputs + layer(x)
    return apply


def PreStem(name=None):
    def apply(x):
        return layers.Normalization(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                    variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
                                    name=name + "_prestem_normalization")(x)
    return apply


def Head(num_classes=1000, classifier_activation=None, name=None):
    def apply(x):
        x = layers.GlobalAveragePooling2D(name=name + "_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=name + "_head_layernorm")(x)
        return layers.Dense(num_classes, activation=classifier_activation, name=name + "_head_dense")(x)
    return apply


def ConvNeXt(depths, projection_dims, drop_path_rate=0.0, layer_scale_init_value=1e-6, default_size=224,
             model_name="convnext", include_preprocessing=True, include_top=True, weights=None, input_tensor=None,
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    inputs = img_input if input_tensor is None else _common.source_inputs(input_tensor)
    if isinstance(inputs, list):
        inputs = inputs[0]
    x = inputs
    if include_preprocessing and input_shape[2] == 3:
        x = PreStem(name=model_name)(x)
    downsample = [Sequential([layers.Conv2D(projection_dims[0], kernel_size=4, strides=4,
                                            name=model_name + "_stem_conv"),
                              layers.LayerNormalization(epsilon=1e-6, name=model_name + "_stem_layernorm")],
                             name=model_name + "_stem")]
    for i in range(3):
        downsample.append(Sequential(
            [layers.LayerNormalization(epsilon=1e-6, name=f"{model_name}_downsampling_layernorm_{i}"),
             layers.Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                           name=f"{model_name}_downsampling_conv_{i}")],
            name=f"{model_name}_downsampling_block_{i}"))
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        x = downsample[i](x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(projection_dims[i], drop_path_rate=rates[cur + j],
                              layer_scale_init_value=layer_scale_init_value,
                              name=f"{model_name}_stage_{i}_block_{j}")(x)
        cur += depths[i]
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = Head(num_classes=classes, classifier_activation=classifier_activation, name=model_name)(x)
    else:
        x = _common.pooled(x, pooling)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    from ..models import Model
    model = Model(inputs=inputs, outputs=x, name=model_name)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return _common.load_weights(model, weights, BASE_WEIGHTS_PATH + file_name,
                                WEIGHTS_HASHES.get(model_name, (None, None))[0 if include_top else 1])


def _variant(size):
    def build(model_name=f"convnext_{size}", include_top=True, include_preprocessing=True, weights="imagenet",
              input_tensor=None, input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
        cfg = MODEL_CONFIGS[size]
        return ConvNeXt(cfg["depths"], cfg["projection_dims"], drop_path_rate=0.0, layer_scale_init_value=1e-6,
                        default_size=cfg["default_size"], model_name=model_name, include_top=include_top,
                        include_preprocessing=include_preprocessing, weights=weights, input_tensor=input_tensor,
                        input_shape=input_shape, pooling=pooling, classes=classes,
                        classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = "ConvNeXt" + {"xlarge": "XLarge"}.get(size, size.capitalize())
    return build


ConvNeXtTiny = _variant("tiny")
ConvNeXtSmall = _variant("small")
ConvNeXtBase = _variant("base")
ConvNeXtLarge = _variant("large")
ConvNeXtXLarge = _variant("xlarge")


def preprocess_input(x, data_format=None):
    """A pass-through: ConvNeXt's preprocessing is in the model (include_preprocessing)."""
    return x


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
