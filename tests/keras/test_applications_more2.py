"""tf.keras.applications EfficientNetB0-B7, EfficientNetV2, ResNetV2, DenseNet, Xception, MobileNetV3,
InceptionResNetV2, ConvNeXt and RegNet: the architecture layer for layer (names, classes, output shapes, parameter counts recorded
from Keras's own builders, golden/applications_more2.json, with tf_keras 2.21's names where Keras 3 renamed a
layer: DenseNet's conv1/conv, conv1/bn, conv1/relu; MobileNetV3, whose hard-swish tf_keras writes as operator
layers, compared by its layers holding weights), the full models' parameter counts (tf_keras's applications
table: EfficientNetB0 5.3M, ResNet50V2 25.6M, DenseNet121 8.1M, Xception 22.9M, InceptionResNetV2 55.9M,
MobileNetV3Large 5.5M ...), weights read from h5 files in tf_keras's layout and the outputs they give (recorded
from Keras with the same weights), the files weights='imagenet' fetches, preprocess_input and argument errors;
RegNet (which Keras 3 dropped) against the paper's models' parameter counts and tf_keras's layer names; grouped
Conv2D (ConvNeXt's depthwise 7x7, RegNet's grouped 3x3)."""
import json
import os
import re

import numpy as np
import pytest

import rivulet as tf

A = tf.keras.applications
GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "applications_more2.json")))
AUTO = re.compile(r"^(rescaling|normalization|conv2d|batch_normalization|activation|max_pooling2d|add|"
                  r"average_pooling2d|concatenate|zero_padding2d|global_\w+_pooling2d|flatten|"
                  r"custom_scale_layer|layer_normalization|cropping2d)(_\d+)?$")  # default names: numbered by the session's counters


def _kwargs(kwargs):
    return {k: tuple(v) if k == "input_shape" else v for k, v in kwargs.items()}


def _row(name, cls, shape, params):
    return [None if cls == "InputLayer" else AUTO.sub(r"\1", name), cls, list(shape), params]


def _summary(model):
    return [_row(l.name, type(l).__name__, l.output.shape, int(sum(np.prod(w.shape) for w in l.weights)))
            for l in model.layers]


@pytest.mark.parametrize("case", range(len(GOLDEN["models"])),
                         ids=[m["ctor"] for m in GOLDEN["models"]])
def test_architecture_matches_keras(case):
    want = GOLDEN["models"][case]
    model = getattr(A, want["ctor"])(weights=None, **_kwargs(want["kwargs"]))
    assert (model.name, model.count_params()) == (want["name"], want["params"])
    got = _summary(model)
    if want.get("no_ops"):  # (Keras 3 lists no layer for an operator on Keras tensors; tf_keras a TFOpLambda)
        got = [r for r in got if r[1] != "TFOpLambda"]
    if "layers" in want:
        assert got == [_row(*r) for r in want["layers"]]
    if "tail" in want:
        assert got[-len(want["tail"]):] == [_row(*r) for r in want["tail"]]
    if "weighted" in want:
        assert [r[1:] for r in got if r[3]] == want["weighted"]


def test_mobilenet_v3_layers_are_named_as_tf_keras_names_them():
    model = A.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=4)
    names = [l.name for l in model.layers]
    for name in ("Conv", "Conv/BatchNorm", "expanded_conv/depthwise/pad", "expanded_conv/depthwise",
                 "expanded_conv/squeeze_excite/AvgPool", "expanded_conv/squeeze_excite/Conv_1",
                 "expanded_conv/squeeze_excite/Mul", "expanded_conv_1/expand/BatchNorm", "expanded_conv_10/Add",
                 "Conv_1", "Conv_2", "Logits", "Predictions"):
        assert name in names
    classes = [type(l).__name__ for l in model.layers]
    # hard-swish after Conv/BatchNorm: ReLU6(x + 3) * (1/6) as operator layers, times x
    i = names.index("Conv/BatchNorm")
    assert classes[i + 1:i + 5] == ["TFOpLambda", "ReLU", "TFOpLambda", "Multiply"]
    assert model.layers[i + 2].max_value == 6.0


def _build(ctor, **kwargs):
    return getattr(A, ctor)(weights=None, **kwargs)


# (ctor, name, total, layers, total without the top, its layers); Keras records the rest of the table
FULL = ["EfficientNetB0", "ResNet50V2", "DenseNet121", "Xception", "EfficientNetV2B0", "InceptionResNetV2"]


@pytest.mark.parametrize("ctor", FULL)
def test_full_models_have_tf_keras_parameter_counts(ctor):
    want = GOLDEN["params"].get(ctor)
    if want is None:
        pytest.skip("not recorded")
    top, notop = _build(ctor), _build(ctor, include_top=False)
    assert [top.name, top.count_params(), len(top.layers), notop.count_params(), len(notop.layers)] == want


def test_mobilenet_v3_parameter_counts():
    # tf_keras's table: MobileNetV3Small 2.55M (2,554,968), MobileNetV3Large 5.51M (5,507,432)
    assert [m.count_params() for m in (_build("MobileNetV3Small"), _build("MobileNetV3Large"))] == [2554968, 5507432]
    assert _build("MobileNetV3Large", include_top=False, minimalistic=True).count_params() == 1437608


def _kind(weight):
    return weight.name.rsplit("/", 1)[-1].split(":")[0]


def _value(j, kind, shape):
    """The weights the Keras recording gave its model: a sine of the position, per kind of variable."""
    v = np.sin(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.7 + j)
    if kind in ("kernel", "depthwise_kernel", "pointwise_kernel"):
        v = v / np.sqrt(np.prod(shape[:-1]))
    elif kind == "gamma":
        v = 1 + 0.1 * v
    elif kind in ("variance", "moving_variance"):
        v = 1 + 0.5 * np.abs(v)
    elif kind == "count":
        v = np.zeros(shape)
    else:
        v = 0.1 * v
    return v.reshape(shape).astype(np.float32)


def _write_weights(path, model):
    """A weights file in tf_keras's legacy h5 layout holding the recording's values: layer_names, each layer a
    group whose weight_names are the model's `<layer>/<kind>:0`."""
    import h5py
    values = []
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = np.array([l.name.encode() for l in model.layers])
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.21.0"
        for layer in model.layers:
            g = f.require_group(layer.name)  # (a name like "a/b" after "a/b/pad": its group exists)
            names = [w.name.encode() for w in layer.weights]
            g.attrs["weight_names"] = np.array(names) if names else np.array([], dtype="S1")
            for w in layer.weights:
                values.append(_value(len(values), _kind(w), tuple(w.shape)).astype(w.dtype.as_numpy_dtype))
                g.create_dataset(w.name, data=values[-1])
    return values


@pytest.mark.parametrize("case", range(len(GOLDEN["outputs"])), ids=[o["ctor"] for o in GOLDEN["outputs"]])
def test_weights_file_in_tf_keras_layout_loads_and_gives_keras_outputs(case, tmp_path):
    pytest.importorskip("h5py")
    want = GOLDEN["outputs"][case]
    kwargs = _kwargs(want["kwargs"])
    path = str(tmp_path / "weights_notop.h5")
    values = _write_weights(path, _build(want["ctor"], **kwargs))
    assert len(values) == want["n_weights"]
    model = getattr(A, want["ctor"])(weights=path, **kwargs)
    got = [w.numpy() for layer in model.layers for w in layer.weights]
    assert len(got) == len(values)
    for w, v in zip(got, values):
        np.testing.assert_array_equal(w, v)
    shape = kwargs["input_shape"]
    x = (np.sin(np.arange(np.prod(shape)) * 0.1) * 100 + 120).reshape((1,) + shape).astype(np.float32)
    y = model(x, training=False).numpy().astype(np.float64).ravel()
    assert y.size == want["size"]
    np.testing.assert_allclose(y[:6], want["first"], rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose([y.sum(), np.abs(y).sum(), (y * np.sin(np.arange(y.size) * 1.3)).sum()],
                               [want["sum"], want["abs_sum"], want["dot"]], rtol=2e-4, atol=1e-4)


def test_weights_file_of_another_shape_is_refused(tmp_path):
    pytest.importorskip("h5py")
    path = str(tmp_path / "w.h5")
    _write_weights(path, _build("ResNet50V2", include_top=False, input_shape=(32, 32, 3)))
    with pytest.raises(ValueError):
        A.ResNet101V2(weights=path, include_top=False, input_shape=(32, 32, 3))


KA = "https://storage.googleapis.com/tensorflow/keras-applications/"


@pytest.mark.parametrize("ctor,kwargs,url,file_hash", [
    ("EfficientNetB0", {"include_top": False}, "https://storage.googleapis.com/keras-applications/"
     "efficientnetb0_notop.h5", "50bc09e76180e00e4465e1a485ddc09d"),
    ("EfficientNetB1", {}, "https://storage.googleapis.com/keras-applications/efficientnetb1.h5",
     "1d254153d4ab51201f1646940f018540"),
    ("ResNet50V2", {}, KA + "resnet/resnet50v2_weights_tf_dim_ordering_tf_kernels.h5",
     "3ef43a0b657b3be2300d5770ece849e0"),
    ("DenseNet121", {"include_top": False}, KA + "densenet/densenet121_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "30ee3e1110167f948a6b9946edeeb738"),
    ("Xception", {"include_top": False}, KA + "xception/xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "b0042744bf5b25fce3cb969f33bebb97"),
    ("MobileNetV3Small", {}, KA + "mobilenet_v3/weights_mobilenet_v3_small_224_1.0_float.h5",
     "8768d4c2e7dee89b9d02b2d03d65d862"),
    ("MobileNetV3Large", {"include_top": False, "minimalistic": True},
     KA + "mobilenet_v3/weights_mobilenet_v3_large_minimalistic_224_1.0_float_no_top_v2.h5",
     "ec5221f64a2f6d1ef965a614bdae7973"),
    ("EfficientNetV2B0", {"include_top": False}, KA + "efficientnet_v2/efficientnetv2-b0_notop.h5",
     "893217f2bb855e2983157299931e43ff"),
    ("InceptionResNetV2", {"include_top": False},
     KA + "inception_resnet_v2/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "d19885ff4a710c122648d3b5c3b684e4"),
    ("ConvNeXtTiny", {"include_top": False}, KA + "convnext/convnext_tiny_notop.h5",
     "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    ("RegNetX002", {}, KA + "regnet/regnetx002.h5", "49fb46e56cde07fdaf57bffd851461a86548f6a3a4baef234dd37290b826c0b8")])
def test_imagenet_weights_are_tf_keras_files(ctor, kwargs, url, file_hash, monkeypatch):
    from rivulet.keras import data_utils
    from rivulet.keras.models import Model
    fetched, loaded = [], []
    monkeypatch.setattr(data_utils, "get_file", lambda *a, **k: fetched.append((a, k)) or "/cache/" + a[0])
    monkeypatch.setattr(Model, "load_weights", lambda self, path, **k: loaded.append(path))
    model = getattr(A, ctor)(**kwargs)
    name = url.rsplit("/", 1)[1]
    assert fetched == [((name, url), {"cache_subdir": "models", "file_hash": file_hash})]
    assert loaded == ["/cache/" + name]
    if ctor.startswith("EfficientNetB"):  # tf_keras's extra 1/sqrt(std) for the ImageNet weights
        assert [type(l).__name__ for l in model.layers[1:4]] == ["Rescaling", "Normalization", "TFOpLambda"]
        assert model.layers[3].name.startswith("tf.math.multiply")


def test_nasnet_imagenet_weights_and_counts(monkeypatch):
    from rivulet.keras import data_utils
    from rivulet.keras.models import Model
    fetched = []
    monkeypatch.setattr(data_utils, "get_file", lambda *a, **k: fetched.append((a, k)) or "/cache/" + a[0])
    monkeypatch.setattr(Model, "load_weights", lambda self, path, **k: None)
    model = A.NASNetMobile(include_top=False, input_shape=(224, 224, 3))
    assert fetched == [(("nasnet_mobile_no_top.h5", KA + "nasnet/NASNet-mobile-no-top.h5"),
                        {"cache_subdir": "models", "file_hash": "1ed92395b5b598bdda52abe5c0dbfd63"})]
    # tf_keras's table: NASNetMobile 5.3M (5,326,716 with the top), NASNetLarge 88.9M (84,916,818 without it)
    assert model.count_params() == 5326716 - (1056 * 1000 + 1000)
    full = A.NASNetMobile(weights=None)
    assert [full.name, full.count_params(), len(full.layers)] == GOLDEN["params"]["NASNetMobile"][:3]
    with pytest.raises(ValueError, match="input_shape argument must be static"):
        A.NASNetLarge(include_top=False, input_shape=(None, None, 3))
    np.testing.assert_allclose(A.nasnet.preprocess_input(np.array([0., 127.5, 255.], "float32")), [-1., 0., 1.])


def test_efficientnet_imagenet_input_scaling(monkeypatch):
    from rivulet.keras import data_utils
    from rivulet.keras.models import Model
    monkeypatch.setattr(data_utils, "get_file", lambda *a, **k: "/cache/" + a[0])
    monkeypatch.setattr(Model, "load_weights", lambda self, path, **k: None)
    model = A.EfficientNetB0(include_top=False, input_shape=(32, 32, 3))
    layers = model.layers
    assert [type(l).__name__ for l in layers[1:4]] == ["Rescaling", "Normalization", "TFOpLambda"]
    sub = tf.keras.Model(model.input, layers[3].output)
    layers[2].set_weights([np.zeros(3, "float32"), np.ones(3, "float32"), np.zeros((), "int64")])
    y = sub(np.full((1, 32, 32, 3), 255.0, "float32")).numpy()
    np.testing.assert_allclose(y[0, 0, 0], [1 / np.sqrt(s) for s in (0.229, 0.224, 0.225)], rtol=1e-6)


def test_preprocess_input_per_family():
    x = np.array([[[[0., 127.5, 255.]]]], "float32")
    for module in (A.resnet_v2, A.xception, A.inception_resnet_v2):
        np.testing.assert_allclose(module.preprocess_input(x.copy()), [[[[-1., 0., 1.]]]])
    np.testing.assert_allclose(A.densenet.preprocess_input(x.copy()),
                               [[[[-0.485 / 0.229, (0.5 - 0.456) / 0.224, (1 - 0.406) / 0.225]]]], rtol=1e-6)
    for module in (A.efficientnet, A.efficientnet_v2, A.mobilenet_v3):
        assert module.preprocess_input(x) is x
    for module in (A.efficientnet, A.efficientnet_v2, A.resnet_v2, A.densenet, A.xception, A.mobilenet_v3,
                   A.inception_resnet_v2):
        with pytest.raises(ValueError, match=r"expects a batch of predictions.*\(2, 10\)"):
            module.decode_predictions(np.zeros((2, 10)))


def test_argument_errors():
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        A.EfficientNetB0(classes=10)
    with pytest.raises(ValueError, match="The `weights` argument should be either"):
        A.DenseNet121(weights="/no/such/file.h5")
    with pytest.raises(ValueError, match="at least 71x71"):
        A.Xception(weights=None, include_top=False, input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match="at least 75x75"):
        A.InceptionResNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match="alpha can be one of `0.75`, `1.0`"):
        A.MobileNetV3Small(alpha=0.5)
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        A.MobileNetV3Large(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="classifier_activation"):
        A.ResNet50V2(classifier_activation="relu")


def test_transfer_learning_head_and_input_tensor():
    inputs = tf.keras.Input((32, 32, 3))
    base = A.EfficientNetV2B0(weights=None, include_top=False, input_tensor=inputs, pooling="avg")
    assert base.inputs[0] is inputs and base.output.shape.as_list() == [None, 1280]
    out = tf.keras.layers.Dense(2)(base.output)
    model = tf.keras.Model(inputs, out)
    assert model(np.zeros((2, 32, 32, 3), "float32")).shape == (2, 2)


def test_regnet_architecture():
    # trainable parameters of the RegNet paper's X-200MF / Y-200MF ImageNet models (2,684,792 and 3,162,996, as
    # pycls/timm count them); BatchNormalization's moving statistics on top, as Keras counts
    counts = []
    for ctor in ("RegNetX002", "RegNetY002"):
        model = _build(ctor)
        counts.append((model.name, model.count_params(), sum(int(np.prod(w.shape)) for w in model.trainable_weights)))
    assert counts == [("regnetx002", 2705640, 2684792), ("regnety002", 3183844, 3162996)]
    model = _build("RegNetY002", input_shape=(32, 32, 3), classes=5)
    names = [l.name for l in model.layers]
    for name in ("regnety002_prestem_rescaling", "regnety002_stem_conv", "regnety002_stem_bn", "regnety002_stem_relu",
                 "regnety002_Stage_0_YBlock_0_skip_1x1", "regnety002_Stage_0_YBlock_0_conv_3x3",
                 "regnety002_Stage_0_YBlock_0_squeeze_and_excite_gap",
                 "regnety002_Stage_3_YBlock_6_exit_relu"):
        assert name in names
    conv = model.get_layer("regnety002_Stage_3_YBlock_6_conv_3x3")
    assert (conv.groups, tuple(conv.kernel.shape)) == (368 // 8, (3, 3, 8, 368))
    # tf_keras's head: `{uid}_head_gap`, `{uid}head_dense`, and the logits (no classifier activation)
    assert re.fullmatch(r"\d+_head_gap", names[-2]) and re.fullmatch(r"\d+head_dense", names[-1])
    assert model.layers[-1].activation is tf.keras.activations.linear
    assert model(np.zeros((1, 32, 32, 3), "float32")).shape == (1, 5)
    assert A.regnet.preprocess_input is not None and A.regnet.preprocess_input(names) is names


def test_grouped_conv2d():
    x = np.sin(np.arange(2 * 5 * 5 * 4)).reshape(2, 5, 5, 4).astype("float32")
    layer = tf.keras.layers.Conv2D(6, 3, groups=2, padding="same")
    y = layer(x).numpy()
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    assert k.shape == (3, 3, 2, 6) and layer.count_params() == 3 * 3 * 2 * 6 + 6
    want = np.concatenate([tf.nn.conv2d(x[..., :2], k[..., :3], 1, "SAME").numpy(),
                           tf.nn.conv2d(x[..., 2:], k[..., 3:], 1, "SAME").numpy()], -1) + b
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="number of filters must be evenly divisible by the number of groups"):
        tf.keras.layers.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="number of input channels must be evenly divisible"):
        tf.keras.layers.Conv2D(6, 3, groups=3)(x)


def test_efficientnet_summary_totals(capsys):
    # tf_keras 2.21's EfficientNetB0(weights=None).summary() footer (the load_data/video tutorial's base model)
    A.EfficientNetB0(weights=None).summary()
    out = capsys.readouterr().out.splitlines()
    assert out[-5:-1] == ["=" * 98, "Total params: 5330571 (20.33 MB)", "Trainable params: 5288548 (20.17 MB)",
                          "Non-trainable params: 42023 (164.16 KB)"]
    assert out[0] == 'Model: "efficientnetb0"'
