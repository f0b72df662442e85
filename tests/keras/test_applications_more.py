"""tf.keras.applications VGG16/VGG19, ResNet50/101/152 and InceptionV3: the architecture layer for layer (names,
classes, output shapes, parameter counts recorded from Keras's own builders, which keep tf_keras 2.21's
architectures, golden/applications_more.json; the totals below are tf_keras's published ones), weights read
from files in the h5 layout of tf_keras's `*_weights_tf_dim_ordering_tf_kernels*.h5` (the outputs recorded from
Keras with the same weights), the URLs weights='imagenet' fetches, preprocess_input and the argument errors."""
import json
import os
import re

import numpy as np
import pytest

import rivulet as tf

A = tf.keras.applications
GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "applications_more.json")))
AUTO = re.compile(r"^(conv2d|batch_normalization|activation|max_pooling2d|average_pooling2d|concatenate|"
                  r"global_\w+_pooling2d|flatten)(_\d+)?$")  # default names: numbered by the session's counters


def _kwargs(kwargs):
    return {k: tuple(v) if k == "input_shape" else v for k, v in kwargs.items()}


def _summary(model):
    return [[None if type(l).__name__ == "InputLayer" else AUTO.sub(r"\1", l.name), type(l).__name__,
             list(l.output.shape), int(sum(np.prod(w.shape) for w in l.weights))] for l in model.layers]


@pytest.mark.parametrize("case", range(len(GOLDEN["models"])))
def test_architecture_matches_keras(case):
    want = GOLDEN["models"][case]
    model = getattr(A, want["ctor"])(weights=None, **_kwargs(want["kwargs"]))
    assert (model.name, model.count_params()) == (want["name"], want["params"])
    if "layers" in want:
        assert _summary(model) == [[None if c == "InputLayer" else AUTO.sub(r"\1", n), c, s, p]
                                   for n, c, s, p in want["layers"]]


def test_full_models_have_tf_keras_parameter_counts():
    # tf_keras's applications table: VGG16 138.4M, VGG19 143.7M, ResNet50 25.6M, InceptionV3 23.9M
    counts = {name: getattr(A, name)(weights=None).count_params() for name in ("VGG16", "VGG19", "ResNet50",
                                                                                "InceptionV3")}
    assert counts == {"VGG16": 138357544, "VGG19": 143667240, "ResNet50": 25636712, "InceptionV3": 23851784}
    resnet152 = A.ResNet152(weights=None)
    assert (resnet152.name, len(resnet152.layers), resnet152.count_params()) == ("resnet152", 517, 60419944)
    assert A.resnet50.ResNet50 is A.resnet.ResNet50 is A.ResNet50


def _value(j, kind, shape):
    """The weights the Keras recording gave its model: a sine of the position, per kind of variable."""
    v = np.sin(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.7 + j)
    if kind == "kernel":
        v = v / np.sqrt(np.prod(shape[:-1]))
    elif kind == "gamma":
        v = 1 + 0.1 * v
    elif kind == "moving_variance":
        v = 1 + 0.5 * np.abs(v)
    else:
        v = 0.1 * v
    return v.reshape(shape).astype(np.float32)


def _write_weights(path, layout):
    """A weights file in the layout of tf_keras's legacy h5 files: layer_names (with a layer holding no weights
    first, as the real files list the input), each layer a group whose weight_names are `<layer>/<kind>:0`."""
    import h5py
    values = []
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = np.array([b"input_1"] + [name.encode() for name, _ in layout])
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.1.2"
        f.create_group("input_1").attrs["weight_names"] = np.array([], dtype="S1")
        for name, weights in layout:
            g = f.create_group(name)
            g.attrs["weight_names"] = np.array([f"{name}/{kind}:0".encode() for kind, _ in weights])
            for kind, shape in weights:
                values.append(_value(len(values), kind, tuple(shape)))
                g.create_dataset(f"{name}/{kind}:0", data=values[-1])
    return values


@pytest.mark.parametrize("case", range(len(GOLDEN["weights_files"])))
def test_weights_file_in_tf_keras_layout_loads_and_gives_keras_outputs(case, tmp_path):
    pytest.importorskip("h5py")
    want = GOLDEN["weights_files"][case]
    path = str(tmp_path / "weights_notop.h5")
    values = _write_weights(path, want["layout"])
    shape = tuple(want["input_shape"])
    model = getattr(A, want["ctor"])(weights=path, include_top=False, input_shape=shape)
    got = [w.numpy() for layer in model.layers for w in layer.weights]  # (model.weights: trainable ones first)
    assert len(got) == len(values)
    for w, v in zip(got, values):
        np.testing.assert_array_equal(w, v)
    x = (np.sin(np.arange(np.prod(shape)) * 0.1) * 2).reshape((1,) + shape).astype(np.float32)
    y = model(x).numpy()
    assert list(y.shape) == want["out_shape"]
    np.testing.assert_allclose(y.ravel()[:6], want["first"], rtol=1e-4, atol=1e-6)
    y64 = y.ravel().astype(np.float64)
    np.testing.assert_allclose([y64.sum(), np.abs(y64).sum(), (y64 * np.sin(np.arange(y.size) * 1.3)).sum()],
                               [want["sum"], want["abs_sum"], want["dot"]], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ctor,include_top,url,file_hash", [
    ("VGG16", True, "vgg16/vgg16_weights_tf_dim_ordering_tf_kernels.h5", "64373286793e3c8b2b4e3219cbf3544b"),
    ("VGG19", False, "vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5", "253f8cb515780f3b799900260a226db6"),
    ("ResNet50", False, "resnet/resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "4d473c1dd8becc155b73f8504c6f6626"),
    ("ResNet101", True, "resnet/resnet101_weights_tf_dim_ordering_tf_kernels.h5",
     "f1aeb4b969a6efcfb50fad2f0c20cfc5"),
    ("InceptionV3", False, "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
     "bcbd6486424b2319ff4ef7d526e38f63")])
def test_imagenet_weights_are_tf_keras_files(ctor, include_top, url, file_hash, monkeypatch):
    from rivulet.keras import data_utils
    from rivulet.keras.models import Model
    fetched, loaded = [], []
    monkeypatch.setattr(data_utils, "get_file", lambda *a, **k: fetched.append((a, k)) or "/cache/" + a[0])
    monkeypatch.setattr(Model, "load_weights", lambda self, path, **k: loaded.append(path))
    getattr(A, ctor)(include_top=include_top)
    name = url.rsplit("/", 1)[1]
    assert fetched == [((name, "https://storage.googleapis.com/tensorflow/keras-applications/" + url),
                        {"cache_subdir": "models", "file_hash": file_hash})]
    assert loaded == ["/cache/" + name]


def test_preprocess_input():
    x = np.array([[[[0., 127.5, 255.]]]], "float32")
    np.testing.assert_allclose(A.vgg16.preprocess_input(x.copy()), [[[[255 - 103.939, 127.5 - 116.779,
                                                                         -123.68]]]], rtol=1e-6)
    for module in (A.vgg19, A.resnet, A.resnet50):
        np.testing.assert_allclose(module.preprocess_input(x.copy()), A.vgg16.preprocess_input(x.copy()))
    t = A.inception_v3.preprocess_input(tf.constant(x))
    assert t.dtype == tf.float32
    np.testing.assert_allclose(t.numpy(), [[[[-1., 0., 1.]]]])
    for module in (A.vgg16, A.vgg19, A.resnet, A.resnet50, A.inception_v3):
        with pytest.raises(ValueError, match=r"expects a batch of predictions.*\(2, 10\)"):
            module.decode_predictions(np.zeros((2, 10)))


def test_input_tensor_makes_the_model_start_at_its_source_input():
    inputs = tf.keras.Input((40, 40, 3))
    scaled = tf.keras.layers.Rescaling(2.0)(inputs)
    model = A.VGG16(weights=None, include_top=False, input_tensor=scaled, pooling="avg")
    assert model.inputs[0] is inputs and model.outputs[0].shape.as_list() == [None, 512]
    x = np.random.default_rng(0).uniform(0, 1, (1, 40, 40, 3)).astype("float32")
    base = A.VGG16(weights=None, include_top=False, input_shape=(40, 40, 3), pooling="avg")
    base.set_weights(model.get_weights())
    np.testing.assert_allclose(model(x).numpy(), base(2 * x).numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="`input_tensor` should be a Keras tensor"):
        A.ResNet50(weights=None, input_tensor=np.zeros((1, 32, 32, 3)))


def test_argument_errors():
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        A.VGG16(classes=10)
    with pytest.raises(ValueError, match="The `weights` argument should be either"):
        A.ResNet50(weights="no-such-file.h5")
    with pytest.raises(ValueError, match=r"`input_shape` should be \(299, 299, 3\)"):
        A.InceptionV3(input_shape=(224, 224, 3))
    with pytest.raises(ValueError, match="Input size must be at least 75x75"):
        A.InceptionV3(weights=None, include_top=False, input_shape=(74, 100, 3))
    with pytest.raises(ValueError, match="Input size must be at least 32x32"):
        A.VGG19(weights=None, include_top=False, input_shape=(31, 64, 3))
    with pytest.raises(ValueError, match="Unknown argument"):
        A.ResNet152(weights=None, alpha=1.0)
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations are allowed"):
        A.ResNet50(weights="imagenet", classifier_activation="relu")
    model = A.ResNet50(weights=None, input_shape=(32, 32, 3), classes=4, classifier_activation=None)
    out = model(np.ones((2, 32, 32, 3), "float32")).numpy()
    assert out.shape == (2, 4) and not np.allclose(out.sum(axis=1), 1)
