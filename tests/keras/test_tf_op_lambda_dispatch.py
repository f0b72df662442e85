"""Every tf.* function TensorFlow lets dispatch makes a TFOpLambda layer on KerasTensors (tf_keras 2.21's
KerasOpDispatcher): names, summary, configs, save/load, and the APIs that refuse them."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.layers.tf_op_lambda import TFOpLambda


def _op_names(model):
    return [l.name for l in model.layers if isinstance(l, TFOpLambda)]


def test_argmax_with_input_keyword_migrate_metrics_optimizers_guide(capsys):
    # guide/migrate/metrics_optimizers: `predictions = tf.math.argmax(input=logits, axis=1)` on a KerasTensor
    logits = tf.keras.Input(shape=(3,))
    predictions = tf.math.argmax(input=logits, axis=1)
    assert repr(predictions) == ("<KerasTensor: shape=(None,) dtype=int64 (created by layer "
                                 "'tf.math.argmax')>")
    model = tf.keras.Model(logits, predictions)
    np.testing.assert_array_equal(model(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 1.0]])).numpy(), [1, 0])
    layer = model.layers[1]
    assert type(layer).__name__ == "TFOpLambda" and layer.get_config()["function"] == "math.argmax"
    model.summary()
    assert " tf.math.argmax (TFOpLambda  (None,)                   0         \n )" in capsys.readouterr().out
    again = tf.keras.Model.from_config(model.get_config())
    assert _op_names(again) == ["tf.math.argmax"]
    np.testing.assert_array_equal(again(np.array([[0.0, 1.0, 9.0]])).numpy(), [2])
    # eager calls are the function's own: a tensor back, and an error with no KerasTensor in sight stands
    assert tf.argmax is tf.math.argmax
    t = tf.math.argmax(input=tf.constant([[1.0, 5.0, 2.0]]), axis=1)
    assert type(t).__name__ == "EagerTensor" and t.numpy().tolist() == [1]
    with pytest.raises(ValueError):
        tf.nn.softmax([[1.0, 2.0], [3.0]])


def test_aliases_canonical_names_and_numbering():
    a = tf.keras.Input(shape=(2, 2))
    b = tf.keras.Input(shape=(2, 2))
    outs = [tf.argmax(a, 1), tf.math.argmax(a, 2), tf.matmul(a, b), tf.nn.softmax(a), tf.einsum("bij,bjk->bik", a, b),
            tf.math.cumsum(a, axis=1), tf.clip_by_value(a, 0.0, 1.0)]
    model = tf.keras.Model([a, b], outs)
    assert _op_names(model) == ["tf.math.argmax", "tf.math.argmax_1", "tf.linalg.matmul", "tf.nn.softmax",
                                "tf.einsum", "tf.math.cumsum", "tf.clip_by_value"]
    x = np.array([[[1.0, 2.0], [3.0, 4.0]]], np.float32)
    y = np.array([[[0.0, 1.0], [1.0, 0.0]]], np.float32)
    got = [t.numpy() for t in model([x, y])]
    np.testing.assert_array_equal(got[0], [[1, 1]])
    np.testing.assert_array_equal(got[1], [[1, 1]])
    np.testing.assert_array_equal(got[2], [[[2.0, 1.0], [4.0, 3.0]]])
    np.testing.assert_allclose(got[3], [[[0.26894143, 0.7310586], [0.26894143, 0.7310586]]], rtol=1e-6)
    np.testing.assert_array_equal(got[4], got[2])
    np.testing.assert_array_equal(got[5], [[[1.0, 2.0], [4.0, 6.0]]])
    np.testing.assert_array_equal(got[6], [[[1.0, 1.0], [1.0, 1.0]]])


def test_keras_tensors_nested_in_lists_and_keywords():
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(3,))
    total = tf.math.add_n([a, b, a])  # a list holding KerasTensors
    xent = tf.nn.softmax_cross_entropy_with_logits(labels=a, logits=b)  # keywords only
    model = tf.keras.Model([a, b], [total, xent])
    assert _op_names(model) == ["tf.math.add_n", "tf.nn.softmax_cross_entropy_with_logits"]
    assert xent.shape.as_list() == [None]
    x = np.array([[0.0, 1.0, 0.0]], np.float32)
    y = np.array([[1.0, 2.0, 3.0]], np.float32)
    t, e = model([x, y])
    np.testing.assert_array_equal(t.numpy(), [[1.0, 4.0, 3.0]])
    np.testing.assert_allclose(e.numpy(), [1.4076059], rtol=1e-6)
    again = tf.keras.Model.from_config(model.get_config())
    t2, e2 = again([x, y])
    np.testing.assert_array_equal(t2.numpy(), t.numpy())
    np.testing.assert_allclose(e2.numpy(), e.numpy())


def _fit_and_reload(model):
    """tf_keras's AutoLambdaTest: fit, call, from_config, fit again, the same layer names."""
    model.compile("adam", "mse")
    x = np.ones((2,) + tuple(model.inputs[0].shape[1:]), "float32")
    y = np.ones((2,) + tuple(model.outputs[0].shape[1:]), "float32")
    model.fit(x, y, batch_size=2, verbose=0)
    model(x)
    again = tf.keras.Model.from_config(model.get_config())
    again.compile("adam", "mse")
    again.fit(x, y, batch_size=2, verbose=0)
    assert [l.name for l in again.layers] == [l.name for l in model.layers]
    np.testing.assert_array_equal(again(x).shape, model(x).shape)
    return again


def test_tf_keras_autolambda_models():
    # tf_keras/layers/tensorflow_op_layer_test.py: _multiple_ops_in_middle, _multiple_uses, _reuse_op,
    # _shape_op_slice_and_range
    inputs = tf.keras.Input(shape=(10,))
    x = tf.keras.layers.Dense(10)(inputs)
    x = tf.nn.relu(x)
    x = tf.nn.relu(x)
    model = _fit_and_reload(tf.keras.Model(inputs, tf.keras.layers.Dense(10)(x)))
    assert _op_names(model) == ["tf.nn.relu", "tf.nn.relu_1"]

    inputs = tf.keras.Input(shape=(10,))
    x = tf.reduce_mean(inputs, axis=1, keepdims=True)
    outputs = tf.keras.layers.Dense(10)(x) + tf.keras.layers.Dense(10)(x)  # the second addend: a keyword
    model = _fit_and_reload(tf.keras.Model(inputs, outputs))
    assert _op_names(model) == ["tf.math.reduce_mean", "tf.__operators__.add"]

    inputs = tf.keras.Input(shape=(10,))
    batch_size = tf.shape(inputs)[0]
    x = tf.range(batch_size * 2)
    assert x.shape.as_list() == [None]
    x = tf.reshape(x, (batch_size, 2))  # a KerasTensor inside a tuple argument
    x = tf.cast(x, dtype="float32")
    model = _fit_and_reload(tf.keras.Model(inputs, tf.keras.layers.Dense(10)(x)))
    assert _op_names(model) == ["tf.shape", "tf.__operators__.getitem", "tf.math.multiply", "tf.range",
                                "tf.reshape", "tf.cast"]
    layers = {l["name"]: l for l in model.get_config()["layers"]}
    assert layers["tf.reshape"]["inbound_nodes"] == [["tf.range", 0, 0, {"shape": [
        ["tf.__operators__.getitem", 0, 0], 2]}]]


def test_save_and_load_model(tmp_path):
    inp = tf.keras.Input(shape=(4,))
    probs = tf.nn.softmax(tf.keras.layers.Dense(4)(inp))
    top = tf.math.argmax(input=probs, axis=-1, output_type=tf.int32)
    model = tf.keras.Model(inp, [probs, top])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    p, t = model(x)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert _op_names(loaded) == ["tf.nn.softmax", "tf.math.argmax"]
    lp, lt = loaded(x)
    np.testing.assert_allclose(lp.numpy(), p.numpy(), rtol=1e-6)
    assert lt.dtype == tf.int32
    np.testing.assert_array_equal(lt.numpy(), t.numpy())


def test_config_names_only_public_dispatching_functions():
    layer = TFOpLambda.from_config({"name": "tf.math.top_k", "trainable": True, "dtype": "float32",
                                    "function": "math.top_k"})
    assert layer.function is tf.math.top_k
    for bad in ("os.system", "map_fn", "__import__", "math.argmax()"):
        with pytest.raises(ValueError, match="Unknown TFOpLambda function"):
            TFOpLambda.from_config({"name": "x", "function": bad})


def test_apis_that_do_not_dispatch_refuse_keras_tensors():
    x = tf.keras.Input(shape=(3,))
    with pytest.raises(TypeError, match=r"^You are passing <KerasTensor: shape=\(None, 3\) dtype=float32 "
                                        r"\(created by layer 'input_1'\)>, an intermediate TF-Keras symbolic "
                                        r"input/output, to a TF API that does not allow registering custom "
                                        r"dispatchers, such as `tf.cond`, `tf.function`, gradient tapes, or "
                                        r"`tf.map_fn`."):
        tf.map_fn(lambda t: t, x)
    with pytest.raises(TypeError, match="^Keras symbolic inputs/outputs do not implement `__len__`."):
        len(x)
    with pytest.raises(TypeError, match="^Cannot iterate over a Tensor with unknown first dimension.$"):
        list(x)
    rows = list(tf.keras.Input(shape=(3,), batch_size=2))
    assert [r.shape.as_list() for r in rows] == [[3], [3]]



def test_namespaces_loaded_on_first_use_dispatch_too():
    img = tf.keras.Input(shape=(2, 2, 1))
    small = tf.image.resize(img, (1, 1))
    flipped = tf.image.flip_left_right(img)
    model = tf.keras.Model(img, [small, flipped])
    assert _op_names(model) == ["tf.image.resize", "tf.image.flip_left_right"]
    x = np.array([[[[1.0], [2.0]], [[3.0], [4.0]]]], np.float32)  # TF 2.21: [2.5] and [2, 1, 4, 3]
    s, f = model(x)
    np.testing.assert_array_equal(s.numpy().ravel(), [2.5])
    np.testing.assert_array_equal(f.numpy().ravel(), [2.0, 1.0, 4.0, 3.0])


def test_op_layers_keep_their_input_structure_in_configs():
    # tf_keras's test_stack_preserves_correct_shape: tf.stack([inp]) reloads as a stack of a one-element list
    inp = tf.keras.Input(shape=(), dtype="float32")
    model = tf.keras.Model(inp, tf.stack([inp]))
    assert model.get_config()["layers"][1]["inbound_nodes"] == [[["input_1", 0, 0, {}]]]
    x = tf.ones(shape=(4, 4))
    again = tf.keras.Model.from_config(model.get_config())
    assert again(x).shape == (1, 4, 4)
    np.testing.assert_array_equal(again(x).numpy(), np.ones((1, 4, 4)))
    # a value in the list that is no KerasTensor: ['_CONSTANT_VALUE', -1, value, kwargs]
    a = tf.keras.Input(shape=(2,))
    model = tf.keras.Model(a, tf.concat([a, tf.constant([[5.0, 6.0]])], axis=0))
    assert model.get_config()["layers"][1]["inbound_nodes"] == [[
        ["input_2", 0, 0, {"axis": 0}], ["_CONSTANT_VALUE", -1, [[5.0, 6.0]], {"axis": 0}]]]
    again = tf.keras.Model.from_config(model.get_config())
    np.testing.assert_array_equal(again(np.zeros((1, 2), np.float32)).numpy(), [[0.0, 0.0], [5.0, 6.0]])


def test_slicing_op_lambda_as_tf_keras(capsys):
    # tf_keras's test_getitem_slice_with_step_only: a KerasTensor inside a slice; x[...] is a SlicingOpLambda
    # whose config writes slices as dicts and Ellipsis as {'class_name': '__ellipsis__'}
    inp = tf.keras.Input(shape=(8,))
    slice_step = tf.keras.Input(shape=(), dtype="int32")
    out = inp[..., ::slice_step[0]]
    model = tf.keras.Model(inputs=[inp, slice_step], outputs=out)
    assert [type(l).__name__ for l in model.layers[2:]] == ["SlicingOpLambda", "SlicingOpLambda"]
    assert "tf.__operators__.getitem" in [l.name for l in model.layers]
    layers = {l["name"]: l for l in model.get_config()["layers"]}
    assert layers["tf.__operators__.getitem_1"]["class_name"] == "SlicingOpLambda"
    assert layers["tf.__operators__.getitem_1"]["inbound_nodes"] == [["input_1", 0, 0, {"slice_spec": [
        {"class_name": "__ellipsis__"}, {"start": None, "stop": None, "step": ["tf.__operators__.getitem", 0, 0]}]}]]
    x = np.stack([np.arange(8, dtype=np.float32)] * 7)
    args = [x, np.full((7,), 3, np.int32)]
    expected = np.stack([np.arange(8, dtype=np.float32)[::3]] * 7)
    np.testing.assert_array_equal(model(args).numpy(), expected)
    again = tf.keras.Model.from_config(model.get_config())
    np.testing.assert_array_equal(again(args).numpy(), expected)
    tf.keras.Model(inp, inp[:, 1:]).summary()
    summary = capsys.readouterr().out
    assert " tf.__operators__.getitem_2  (None, 7)                 0         \n  (SlicingOpLambda)" in summary


def test_shape_values_are_inferred_as_tf_keras():
    # tf_keras's _shape_op_inference / _shape_op_known_batch_size: an int32 output of rank 0 or 1 keeps the
    # entries shape inference knows, so tf.ones(tf.shape(inputs)) has the input's shape
    inputs = tf.keras.Input(shape=(10,))
    x = tf.ones(tf.shape(inputs))
    assert x.shape.as_list() == [None, 10]
    model = _fit_and_reload(tf.keras.Model(inputs, tf.keras.layers.Dense(10)(x)))
    assert _op_names(model) == ["tf.shape", "tf.ones"]
    inputs = tf.keras.Input(batch_size=2, shape=(10,))
    assert tf.ones(tf.shape(inputs)).shape.as_list() == [2, 10]
    assert tf.zeros(tf.shape(inputs)[0]).shape.as_list() == [2]


def test_variables_in_an_op_layer_warn_once(capsys):
    # tf_keras's TFOpLambda._check_variables: a variable the layer does not track is warned about, once
    v = tf.Variable(2.0)
    x = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(x, x * v)
    np.testing.assert_array_equal(model(np.ones((1, 3), np.float32)).numpy(), [[2.0, 2.0, 2.0]])
    err = capsys.readouterr().err
    assert err.count("WARNING:tensorflow:The following Variables were used in a Lambda layer's call "
                     "(tf.math.multiply), but are not present in its tracked objects:   <tf.Variable 'Variable:0' "
                     "shape=() dtype=float32>. This is a strong indication that the Lambda layer should be "
                     "rewritten as a subclassed Layer.") == 1
