"""tf.keras.applications.RegNetX002..X320 and RegNetY002..Y320 (tf.keras.applications.regnet), built as tf_keras
2.21 builds them: the [0, 1] Rescaling in the model (include_preprocessing, `{name}_prestem_rescaling`), the
stem (3x3/2 conv, BN, ReLU), four stages of X blocks (1x1, grouped 3x3 of group_width channels per group, 1x1;
a strided 1x1 projection in each stage's first block; the residual add an operator layer) or Y blocks (X with
squeeze-and-excitation, its product a tf.math.multiply layer), and tf_keras's head (`{uid}_head_gap`,
`{uid}head_dense`, logits: tf_keras validates classifier_activation but does not apply it).
weights='imagenet' loads regnet{x,y}{nnn}(_notop).h5."""
import rivulet as tf

from .. import backend, layers
from . import _common, imagenet_utils

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/regnet/"
WEIGHTS_HASHES = {  # variant: (sha256 with the top, without)
    "x002": ("49fb46e56cde07fdaf57bffd851461a86548f6a3a4baef234dd37290b826c0b8",
             "5445b66cd50445eb7ecab094c1e78d4d3d29375439d1a7798861c4af15ffff21"),
    "x004": ("3523c7f5ac0dbbcc2fd6d83b3570e7540f7449d3301cc22c29547302114e4088",
             "de139bf07a66c9256f2277bf5c1b6dd2d5a3a891a5f8a925a10c8a0a113fd6f3"),
    "x006": ("340216ef334a7bae30daac9f414e693c136fac9ab868704bbfcc9ce6a5ec74bb",
             "a43ec97ad62f86b2a96a783bfdc63a5a54de02eef54f26379ea05e1bf90a9505"),
    "x008": ("8f145d6a5fae6da62677bb8d26eb92d0b9dfe143ec1ebf68b24a57ae50a2763d",
             "3c7e4b0917359304dc18e644475c5c1f5e88d795542b676439c4a3acd63b7207"),
    "x016": ("31c386f4c7bfef4c021a583099aa79c1b3928057ba1b7d182f174674c5ef3510",
             "1b8e3d545d190271204a7b2165936a227d26b79bb7922bac5ee4d303091bf17a"),
    "x032": ("6c025df1409e5ea846375bc9dfa240956cca87ef57384d93fef7d6fa90ca8c7f",
             "9cd4522806c0fcca01b37874188b2bd394d7c419956d77472a4e072b01d99041"),
    "x040": ("ba128046c588a26dbd3b3a011b26cb7fa3cf8f269c184c132372cb20b6eb54c1",
             "b4ed0ca0b9a98e789e05000e830403a7ade4d8afa01c73491c44610195198afe"),
    "x064": ("0f4489c3cd3ad979bd6b0324213998bcb36dc861d178f977997ebfe53c3ba564",
             "3e706fa416a18dfda14c713423eba8041ae2509db3e0a611d5f599b5268a46c4"),
    "x080": ("76320e43272719df648db37271a247c22eb6e810fe469c37a5db7e2cb696d162",
             "7b1ce8e29ceefec10a6569640ee329dba7fbc98b5d0f6346aabade058b66cf29"),
    "x120": ("5cafc461b78897d5e4f24e68cb406d18e75f31105ef620e7682b611bb355eb3a",
             "36174ddd0299db04a42631d028abcb1cc7afec2b705e42bd28fcd325e5d596bf"),
    "x160": ("8093f57a5824b181fb734ea21ae34b1f7ee42c5298e63cf6d587c290973195d2",
             "9d1485050bdf19531ffa1ed7827c75850e0f2972118a996b91aa9264b088fd43"),
    "x320": ("91fb3e6f4e9e44b3687e80977f7f4412ee9937c0c704232664fc83e4322ea01e",
             "9db7eacc37b85c98184070e1a172e6104c00846f44bcd4e727da9e50d9692398"),
    "y002": ("1e8091c674532b1a61c04f6393a9c570113e0197f22bd1b98cc4c4fe800c6465",
             "f63221f63d625b8e201221499682587bfe29d33f50a4c4f4d53be00f66c0f12c"),
    "y004": ("752fdbad21c78911bf1dcb8c513e5a0e14697b068e5d9e73525dbaa416d18d8e",
             "45e6ba8309a17a77e67afc05228454b2e0ee6be0dae65edc0f31f1da10cc066b"),
    "y006": ("98942e07b273da500ff9699a1f88aca78dfad4375faabb0bab784bb0dace80a9",
             "b70261cba4e60013c99d130cc098d2fce629ff978a445663b6fa4f8fc099a2be"),
    "y008": ("1b099377cc9a4fb183159a6f9b24bc998e5659d25a449f40c90cbffcbcfdcae4",
             "b11f5432a216ee640fe9be6e32939defa8d08b8d136349bf3690715a98752ca1"),
    "y016": ("b7ce1f5e223f0941c960602de922bcf846288ce7a4c33b2a4f2e4ac4b480045b",
             "d7404f50205e82d793e219afb9eb2bfeb781b6b2d316a6128c6d7d7dacab7f57"),
    "y032": ("6a6a545cf3549973554c9b94f0cd40e25f229fffb1e7f7ac779a59dcbee612bd",
             "eb3ac1c45ec60f4f031c3f5180573422b1cf7bebc26c004637517372f68f8937"),
    "y040": ("98d00118b335162bbffe8f1329e54e5c8e75ee09b2a5414f97b0ddfc56e796f6",
             "b5be2a5e5f072ecdd9c0b8a437cd896df0efa1f6a1f77e41caa8719b7dfcb05d"),
    "y064": ("65c948c7a18aaecaad2d1bd4fd978987425604ba6669ef55a1faa0069a2804b7",
             "885c4b7ed7ea339daca7dafa1a62cb7d41b1068897ef90a5a3d71b4a2e2db31a"),
    "y080": ("7a2c62da2982e369a4984d3c7c3b32d6f8d3748a71cb37a31156c436c37f3e95",
             "3d119577e1e3bf8d153b895e8ea9e4ec150ff2d92abdca711b6e949c3fd7115d"),
    "y120": ("a96ab0d27d3ae35a422ee7df0d789069b3e3217a99334e0ce861a96595bc5986",
             "4a6fa387108380b730b71feea2ad80b5224b5ea9dc21dc156c93fe3c6186485c"),
    "y160": ("45067240ffbc7ca2591313fee2f80dbdda6d66ec1a7451446f9a6d00d8f7ac6e",
             "ead1e6b568be8f34447ec8941299a9df4368736ba9a8205de5427fa20a1fb316"),
    "y320": ("b05e173e4ae635cfa22d06392ee3741284d17dadfee68f2aa6fd8cb2b7561112",
             "cad78f74a586e24c61d38be17f3ae53bb9674380174d2585da1a526b8c20e1fd"),
}
# (depths, widths, group width, block type) per variant; 224x224 images by default
MODEL_CONFIGS = {
    "x002": ((1, 1, 4, 7), (24, 56, 152, 368), 8, "X"),
    "x004": ((1, 2, 7, 12), (32, 64, 160, 384), 16, "X"),
    "x006": ((1, 3, 5, 7), (48, 96, 240, 528), 24, "X"),
    "x008": ((1, 3, 7, 5), (64, 128, 288, 672), 16, "X"),
    "x016": ((2, 4, 10, 2), (72, 168, 408, 912), 24, "X"),
    "x032": ((2, 6, 15, 2), (96, 192, 432, 1008), 48, "X"),
    "x040": ((2, 5, 14, 2), (80, 240, 560, 1360), 40, "X"),
    "x064": ((2, 4, 10, 1), (168, 392, 784, 1624), 56, "X"),
    "x080": ((2, 5, 15, 1), (80, 240, 720, 1920), 120, "X"),
    "x120": ((2, 5, 11, 1), (224, 448, 896, 2240), 112, "X"),
    "x160": ((2, 6, 13, 1), (256, 512, 896, 2048), 128, "X"),
    "x320": ((2, 7, 13, 1), (336, 672, 1344, 2520), 168, "X"),
    "y002": ((1, 1, 4, 7), (24, 56, 152, 368), 8, "Y"),
    "y004": ((1, 3, 6, 6), (48, 104, 208, 440), 8, "Y"),
    "y006": ((1, 3, 7, 4), (48, 112, 256, 608), 16, "Y"),
    "y008": ((1, 3, 8, 2), (64, 128, 320, 768), 16, "Y"),
    "y016": ((2, 6, 17, 2), (48, 120, 336, 888), 24, "Y"),
    "y032": ((2, 5, 13, 1), (72, 216, 576, 1512), 24, "Y"),
    "y040": ((2, 6, 12, 2), (128, 192, 512, 1088), 64, "Y"),
    "y064": ((2, 7, 14, 2), (144, 288, 576, 1296), 72, "Y"),
    "y080": ((2, 4, 10, 1), (168, 448, 896, 2016), 56, "Y"),
    "y120": ((2, 5, 11, 1), (224, 448, 896, 2240), 112, "Y"),
    "y160": ((2, 4, 11, 1), (224, 448, 1232, 3024), 112, "Y"),
    "y320": ((2, 5, 12, 1), (232, 696, 1392, 3712), 232, "Y"),
}


def _bn(name):
    return layers.BatchNormalization(momentum=0.9, epsilon=1e-5, name=name)


def _conv(filters, kernel, name, **kw):
    return layers.Conv2D(filters, kernel, use_bias=False, kernel_initializer="he_normal", name=name, **kw)


def PreStem(name=None):
    def apply(x):
        return layers.Rescaling(scale=1.0 / 255.0, name=name + "_prestem_rescaling")(x)
    return apply


def Stem(name=None):
    def apply(x):
        x = _conv(32, (3, 3), name + "_stem_conv", strides=2, padding="same")(x)
        return layers.ReLU(name=name + "_stem_relu")(_bn(name + "_stem_bn")(x))
    return apply


def SqueezeAndExciteBlock(filters_in, se_filters, name=None):
    def apply(inputs):
        x = layers.GlobalAveragePooling2D(name=name + "_squeeze_and_excite_gap", keepdims=True)(inputs)
        x = layers.Conv2D(se_filters, (1, 1), activation="relu", kernel_initializer="he_normal",
                          name=name + "_squeeze_and_excite_squeeze")(x)
        x = layers.Conv2D(filters_in, (1, 1), activation="sigmoid", kernel_initializer="he_normal",
                          name=name + "_squeeze_and_excite_excite")(x)
        return tf.math.multiply(x, inputs)
    return apply


def _block(filters_in, filters_out, group_width, stride, squeeze_excite_ratio, name):
    def apply(inputs):
        if filters_in != filters_out and stride == 1:
            raise ValueError(f"Input filters({filters_in}) and output filters({filters_out}) are not equal for "
                             f"stride {stride}. Input and output filters must be equal for stride={stride}.")
        if stride != 1:
            skip = _bn(name + "_skip_bn")(_conv(filters_out, (1, 1), name + "_skip_1x1", strides=stride)(inputs))
        else:
            skip = inputs
        x = _conv(filters_out, (1, 1), name + "_conv_1x1_1")(inputs)
        x = layers.ReLU(name=name + "_conv_1x1_1_relu")(_bn(name + "_conv_1x1_1_bn")(x))
        x = _conv(filters_out, (3, 3), name + "_conv_3x3", strides=stride, groups=filters_out // group_width,
                  padding="same")(x)
        x = layers.ReLU(name=name + "_conv_3x3_relu")(_bn(name + "_conv_3x3_bn")(x))
        if squeeze_excite_ratio:
            x = SqueezeAndExciteBlock(filters_out, int(filters_in * squeeze_excite_ratio), name=name)(x)
        x = _bn(name + "_conv_1x1_2_bn")(_conv(filters_out, (1, 1), name + "_conv_1x1_2")(x))
        return layers.ReLU(name=name + "_exit_relu")(x + skip)
    return apply


def XBlock(filters_in, filters_out, group_width, stride=1, name=None):
    return _block(filters_in, filters_out, group_width, stride, None, name)


def YBlock(filters_in, filters_out, group_width, stride=1, squeeze_excite_ratio=0.25, name=None):
    return _block(filters_in, filters_out, group_width, stride, squeeze_excite_ratio, name)


def Stage(block_type, depth, group_width, filters_in, filters_out, name=None):
    if block_type not in ("X", "Y"):
        raise NotImplementedError(f"Block type `{block_type}` not recognized. block_type must be one of (`X`, `Y`)")
    block = XBlock if block_type == "X" else YBlock

    def apply(x):
        x = block(filters_in, filters_out, group_width, stride=2, name=f"{name}_{block_type}Block_0")(x)
        for i in range(1, depth):
            x = block(filters_out, filters_out, group_width, name=f"{name}_{block_type}Block_{i}")(x)
        return x
    return apply


def Head(num_classes=1000, name=None):
    name = str(backend.get_uid("head")) if name is None else name

    def apply(x):
        x = layers.GlobalAveragePooling2D(name=name + "_head_gap")(x)
        return layers.Dense(num_classes, name=name + "head_dense")(x)
    return apply


def RegNet(depths, widths, group_width, block_type, default_size, model_name="regnet", include_preprocessing=True,
           include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
           classifier_activation="softmax"):
    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                                    require_flatten=include_top, weights=weights)
    img_input = _common.image_input(input_tensor, input_shape)
    inputs = img_input if input_tensor is None else _common.source_inputs(input_tensor)
    if isinstance(inputs, list):
        inputs = inputs[0]
    x = inputs
    if include_preprocessing:
        x = PreStem(name=model_name)(x)
    x = Stem(name=model_name)(x)
    in_channels = 32
    for stage in range(4):
        x = Stage(block_type, depths[stage], group_width, in_channels, widths[stage],
                  name=f"{model_name}_Stage_{stage}")(x)
        in_channels = widths[stage]
    if include_top:
        x = Head(num_classes=classes)(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
    else:
        x = _common.pooled(x, pooling)
    from ..models import Model
    model = Model(inputs=inputs, outputs=x, name=model_name)
    file_name = model_name + (".h5" if include_top else "_notop.h5")
    return _common.load_weights(model, weights, BASE_WEIGHTS_PATH + file_name,
                                WEIGHTS_HASHES.get(model_name[-4:], (None, None))[0 if include_top else 1])


def _variant(key):
    depths, widths, group_width, block_type = MODEL_CONFIGS[key]

    def build(model_name=f"regnet{key}", include_top=True, include_preprocessing=True, weights="imagenet",
              input_tensor=None, input_shape=None, pooling=None, classes=1000, classifier_activation="softmax"):
        return RegNet(depths, widths, group_width, block_type, 224, model_name=model_name,
                      include_preprocessing=include_preprocessing, include_top=include_top, weights=weights,
                      input_tensor=input_tensor, input_shape=input_shape, pooling=pooling, classes=classes,
                      classifier_activation=classifier_activation)
    build.__name__ = build.__qualname__ = "RegNet" + key.upper()
    return build


RegNetX002, RegNetX004, RegNetX006, RegNetX008, RegNetX016, RegNetX032 = (_variant(f"x{n}") for n in (
    "002", "004", "006", "008", "016", "032"))
RegNetX040, RegNetX064, RegNetX080, RegNetX120, RegNetX160, RegNetX320 = (_variant(f"x{n}") for n in (
    "040", "064", "080", "120", "160", "320"))
RegNetY002, RegNetY004, RegNetY006, RegNetY008, RegNetY016, RegNetY032 = (_variant(f"y{n}") for n in (
    "002", "004", "006", "008", "016", "032"))
RegNetY040, RegNetY064, RegNetY080, RegNetY120, RegNetY160, RegNetY320 = (_variant(f"y{n}") for n in (
    "040", "064", "080", "120", "160", "320"))


def preprocess_input(x, data_format=None):
    """A pass-through: RegNet's preprocessing is in the model (include_preprocessing)."""
    return x


def decode_predictions(preds, top=5):
    return imagenet_utils.decode_predictions(preds, top=top)
