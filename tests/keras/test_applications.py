"""tf.keras.applications.MobileNet/MobileNetV2: the architecture layer for layer (names, classes, output
shapes, parameter counts recorded from Keras's own builders, which keep tf_keras 2.21's architecture; the
totals are tf_keras's published 4,253,864 and 3,538,984), weights from the Keras cache, preprocess_input
and decode_predictions."""
import json
import os
import re

import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.applications import imagenet_utils

GOLDEN = json.load(open(os.path.join(os.path.dirname(__file__), "golden", "applications_mobilenet.json")))
CASES = [(tf.keras.applications.MobileNet, {}), (tf.keras.applications.MobileNetV2, {}),
         (tf.keras.applications.MobileNet, dict(alpha=0.5, input_shape=(128, 128, 3), include_top=False,
                                                pooling="avg")),
         (tf.keras.applications.MobileNetV2, dict(alpha=1.4, input_shape=(96, 96, 3), include_top=False))]


def _unnumbered(name):  # the pooling layers take the session's next default name (_1, _2 ...)
    return None if name is None else re.sub(r"^(global_\w+_pooling2d)(_\d+)?$", r"\1", name)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_architecture_matches_keras(case):
    ctor, kwargs = CASES[case]
    model = ctor(weights=None, **kwargs)
    want = GOLDEN["models"][case]
    assert (model.name, model.count_params()) == (want["name"], want["params"])
    got = [[None if type(l).__name__ == "InputLayer" else _unnumbered(l.name), type(l).__name__,
            list(l.output.shape), int(sum(np.prod(w.shape) for w in l.weights))] for l in model.layers]
    assert got == [[_unnumbered(n)] + rest for n, *rest in want["layers"]]


def test_mobilenet_runs_and_imagenet_weights_come_from_the_keras_cache(tmp_path, monkeypatch):
    pytest.importorskip("h5py")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    model = tf.keras.applications.MobileNet(weights=None, alpha=0.25, input_shape=(128, 128, 3))
    assert model.name == "mobilenet_0.25_128" and model.output_names == ["predictions"]
    (tmp_path / "models").mkdir()
    model.save_weights(str(tmp_path / "models" / "mobilenet_2_5_128_tf.h5"))  # what get_file would fetch
    x = tf.keras.applications.mobilenet.preprocess_input(
        np.random.default_rng(0).uniform(0, 255, (2, 128, 128, 3)).astype("float32"))
    want = model(x).numpy()
    assert want.shape == (2, 1000) and np.allclose(want.sum(axis=1), 1, atol=1e-5)
    pretrained = tf.keras.applications.MobileNet(alpha=0.25, input_shape=(128, 128, 3))  # weights="imagenet"
    np.testing.assert_allclose(pretrained(x).numpy(), want, rtol=1e-5, atol=1e-7)


def test_saved_mobilenet_serves_its_output_names(tmp_path):
    model = tf.keras.applications.MobileNetV2(weights=None, alpha=0.35, input_shape=(96, 96, 3), classes=10)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 96, 96, 3)).astype("float32")
    tf.saved_model.save(model, str(tmp_path / "mobilenet" / "1"))
    loaded = tf.saved_model.load(str(tmp_path / "mobilenet" / "1"))
    assert list(loaded.signatures.keys()) == ["serving_default"]
    infer = loaded.signatures["serving_default"]
    labeling = infer(tf.constant(x))[model.output_names[0]]
    np.testing.assert_allclose(labeling.numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_argument_errors():
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        tf.keras.applications.MobileNet(classes=10)
    with pytest.raises(ValueError, match="The `weights` argument should be either"):
        tf.keras.applications.MobileNetV2(weights="no-such-file.h5")
    with pytest.raises(ValueError, match="alpha can be one of"):
        tf.keras.applications.MobileNet(alpha=0.3)
    with pytest.raises(ValueError, match="`input_shape` should be \\(224, 224, 3\\)"):
        tf.keras.applications.MobileNetV2(input_shape=(100, 100, 3))


def test_preprocess_input_modes():
    x = np.array([[[0., 127.5, 255.]]], "float32")
    out = tf.keras.applications.mobilenet.preprocess_input(x)
    assert out is x  # NumPy float input is scaled in place, as tf_keras does
    np.testing.assert_array_equal(out, [[[-1., 0., 1.]]])
    t = tf.keras.applications.mobilenet_v2.preprocess_input(tf.constant([[[0, 255, 51]]], tf.uint8))
    assert t.dtype == tf.float32
    np.testing.assert_allclose(t.numpy(), [[[-1., 1., -0.6]]], rtol=1e-6)
    caffe = imagenet_utils.preprocess_input(np.array([[[10., 20., 30.]]]), mode="caffe")
    np.testing.assert_allclose(caffe, [[[30 - 103.939, 20 - 116.779, 10 - 123.68]]])
    with pytest.raises(ValueError, match="Expected mode"):
        imagenet_utils.preprocess_input(np.zeros(3), mode="keras")


def test_decode_predictions(tmp_path, monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(index))
    seen = []

    def fake_get_file(fname, origin, **kwargs):
        seen.append((fname, origin, kwargs))
        return str(path)
    monkeypatch.setattr("rivulet.keras.data_utils.get_file", fake_get_file)
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX", [None])
    preds = np.zeros((2, 1000), "float32")
    preds[0, [3, 7, 9]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1
    out = tf.keras.applications.mobilenet.decode_predictions(preds, top=3)
    assert [r[:2] for r in out[0]] == [("n00000007", "class_7"), ("n00000009", "class_9"), ("n00000003", "class_3")]
    assert out[0][0][2] == np.float32(0.5) and out[1][0][:2] == ("n00000999", "class_999")
    assert seen == [("imagenet_class_index.json", imagenet_utils.CLASS_INDEX_PATH,
                     {"cache_subdir": "models", "file_hash": "c2c37ea517e94d9795004a39431a14cb"})]
    with pytest.raises(ValueError, match="expects a batch of predictions"):
        tf.keras.applications.mobilenet.decode_predictions(np.zeros((2, 10)))
    path.write_text('{"0": "not a pair"}')
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX", [None])
    with pytest.raises(ValueError, match="is not ImageNet's class index"):
        tf.keras.applications.mobilenet.decode_predictions(preds)


def test_preprocess_input_on_a_functional_input_makes_op_layers():
    """images/transfer_learning: `preprocess_input(x)` inside a functional model (tf_keras's TFOpLambda layers
    tf.math.truediv and tf.math.subtract for 'tf'; values as on tensors)."""
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input(shape=(160, 160, 3))
    model = tf.keras.Model(inputs, tf.keras.applications.mobilenet_v2.preprocess_input(inputs))
    assert [(type(l).__name__, l.name) for l in model.layers[1:]] == [
        ("TFOpLambda", "tf.math.truediv"), ("TFOpLambda", "tf.math.subtract")]
    np.testing.assert_allclose(model(np.full((1, 160, 160, 3), 255.0, np.float32)).numpy()[0, 0, 0], [1.0, 1.0, 1.0])
    for mode in ("caffe", "torch"):
        for fmt, shape in (("channels_last", (4, 4, 3)), ("channels_first", (3, 4, 4))):
            inp = tf.keras.Input(shape=shape)
            m = tf.keras.Model(inp, imagenet_utils.preprocess_input(inp, mode=mode, data_format=fmt))
            a = np.arange(48, dtype=np.float32).reshape((1,) + shape)
            want = imagenet_utils.preprocess_input(tf.constant(a), mode=mode, data_format=fmt)
            np.testing.assert_allclose(m(a).numpy(), want.numpy(), rtol=1e-6)


def test_relu_capped_at_6_is_one_relu6_op_as_tf_keras():
    # tf_keras's backend.relu: max_value 6 with no threshold or slope is tf.nn.relu6 (MobileNetV2's
    # ReLU(6.)), one op whose gradient keeps its output alone; at 0 and 6 the gradient is 0 (TF 2.21:
    # relu6 of [-1, 0, 3, 6, 7] -> [0, 0, 3, 6, 6], gradient [0, 0, 1, 0, 0]).
    layer = tf.keras.layers.ReLU(6.0)
    x = tf.constant([-1.0, 0.0, 3.0, 6.0, 7.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    np.testing.assert_array_equal(y.numpy(), [0, 0, 3, 6, 6])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0, 0, 1, 0, 0])
    f = tf.function(lambda a: layer(a))
    types = [op.type for op in f.get_concrete_function(x).graph.get_operations()]
    assert "Relu6" in types and "Minimum" not in types and "SelectV2" not in types
