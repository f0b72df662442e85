"""Operators and tf.* functions on KerasTensors make TFOpLambda layers, as in tf_keras 2.21."""
import json
import zipfile

import numpy as np
import pytest

import rivulet as tf


def test_arithmetic_on_an_input_load_data_csv_tutorial(capsys):
    tf.keras.backend.clear_session()
    inp = tf.keras.Input(shape=(), dtype=tf.float32)
    result = 2 * inp + 1
    assert repr(result) == "<KerasTensor: shape=(None,) dtype=float32 (created by layer 'tf.__operators__.add')>"
    calc = tf.keras.Model(inputs=inp, outputs=result)
    np.testing.assert_array_equal(calc(np.array([1])).numpy(), [3.0])
    np.testing.assert_array_equal(calc(np.array([2])).numpy(), [5.0])
    assert [type(l).__name__ for l in calc.layers] == ["InputLayer", "TFOpLambda", "TFOpLambda"]
    assert [l.name for l in calc.layers[1:]] == ["tf.math.multiply", "tf.__operators__.add"]
    calc.summary()
    out = capsys.readouterr().out
    assert " tf.math.multiply (TFOpLamb  (None,)                   0         \n da)" in out
    assert " tf.__operators__.add (TFOp  (None,)                   0         \n Lambda)" in out


def test_tf_functions_on_keras_tensors_are_layers_and_train():
    tf.keras.backend.clear_session()
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(2,))
    c = tf.concat([a, b], -1)
    d = tf.expand_dims(c, -1)
    e = tf.reduce_sum(d * d, axis=1)
    f = -e[:, 0] / 2.0
    assert c.shape.as_list() == [None, 5] and d.shape.as_list() == [None, 5, 1] and f.shape.as_list() == [None]
    model = tf.keras.Model([a, b], f)
    names = [l.name for l in model.layers if type(l).__name__ in ("TFOpLambda", "SlicingOpLambda")]
    assert names == ["tf.concat", "tf.expand_dims", "tf.math.multiply", "tf.math.reduce_sum",
                     "tf.__operators__.getitem", "tf.math.negative", "tf.math.truediv"]
    np.testing.assert_allclose(model([np.ones((2, 3)), np.full((2, 2), 2.0)]).numpy(), [-5.5, -5.5])
    assert tf.concat([tf.ones([1, 2]), tf.zeros([1, 1])], -1).numpy().tolist() == [[1.0, 1.0, 0.0]]  # unchanged

    x = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(3, kernel_initializer="ones")(x)
    y = tf.keras.layers.Dense(1, kernel_initializer="ones")(h * 0.5 + tf.reduce_mean(x, axis=-1, keepdims=True))
    m = tf.keras.Model(x, y)
    m.compile(optimizer="sgd", loss="mse")
    data, target = np.ones((8, 4), "float32"), np.zeros((8, 1), "float32")
    np.testing.assert_allclose(m.predict(data, verbose=0), np.full((2 * 4, 1), 9.0))  # 3 * (2 + 1)
    hist = m.fit(data, target, epochs=2, verbose=0)
    assert hist.history["loss"][1] < hist.history["loss"][0]


def test_save_and_load_a_model_with_op_layers(tmp_path):
    tf.keras.backend.clear_session()
    x = tf.keras.Input(shape=(4,))
    h = tf.keras.layers.Dense(3)(x)
    z = tf.concat([h * 0.5, tf.reduce_sum(x, axis=-1, keepdims=True)], axis=-1)
    y = tf.keras.layers.Dense(1)(tf.reduce_max(tf.expand_dims(z, -1), axis=-1) - 1.0)
    model = tf.keras.Model(x, y)
    path = str(tmp_path / "op.keras")
    model.save(path)
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    entry = config["config"]["layers"][2]
    assert entry["class_name"] == "TFOpLambda" and entry["config"]["function"] == "math.multiply"
    assert entry["config"]["name"] == "tf.math.multiply"
    # an op layer keeps its input's structure (tf_keras's _preserve_input_structure_in_config): a lone
    # tensor is written unwrapped
    assert entry["inbound_nodes"] == [["dense", 0, 0, {"y": 0.5}]]
    reloaded = tf.keras.models.load_model(path)
    data = np.random.default_rng(0).random((3, 4)).astype("float32")
    np.testing.assert_allclose(reloaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)

    entry["config"]["function"] = "io.write_file"  # a config names only the registered op functions
    with pytest.raises(ValueError, match="Unknown TFOpLambda function: 'io.write_file'"):
        tf.keras.models.model_from_json(json.dumps(config))


def test_reflected_operators_keep_their_constant_and_reload(tmp_path):
    tf.keras.backend.clear_session()
    inp = tf.keras.Input(shape=(), dtype=tf.float32)
    calc = tf.keras.Model(inp, 1.0 - 2 * inp)  # subtract(1.0, multiply(2, inp))
    layers = calc.get_config()["layers"]
    assert layers[1]["inbound_nodes"] == [["input_1", 0, 0, {"x": 2}]]
    assert layers[2]["inbound_nodes"] == [["tf.math.multiply", 0, 0, {"x": 1.0}]]
    path = str(tmp_path / "calc.keras")
    calc.save(path)
    reloaded = tf.keras.models.load_model(path)
    np.testing.assert_array_equal(reloaded(np.array([1.0, 2.0])).numpy(), [-1.0, -3.0])
    np.testing.assert_array_equal(calc(np.array([1.0, 2.0])).numpy(), [-1.0, -3.0])
