"""Lambda layers' configs as tf_keras 2.21 writes them: a lambda is saved (its marshalled bytecode, as
tf_keras's func_dump) and refused when loading, with tf_keras's safe-mode error; never executed. A named
function is saved by name and found again through custom_objects. (The basics guide saves such a model.)"""
import base64
import json
import marshal
import zipfile

import numpy as np
import pytest

import rivulet as tf
from rivulet.keras import layers


def _model():
    return tf.keras.Sequential([layers.Lambda(lambda x: tf.stack([x, x ** 2], axis=1)),
                                layers.Dense(units=1, kernel_initializer="ones")])


def test_a_model_with_a_lambda_saves_and_loading_refuses_it(tmp_path):
    pytest.importorskip("h5py")
    model = _model()
    model.compile(loss=tf.keras.losses.MSE, optimizer=tf.keras.optimizers.SGD(learning_rate=0.01))
    x = np.linspace(-2, 2, 8).astype("float32")
    model.fit(x, x ** 2, epochs=1, batch_size=4, verbose=0)
    model.save(tmp_path / "my_new_model.keras")
    config = json.loads(zipfile.ZipFile(tmp_path / "my_new_model.keras").read("config.json"))
    inner = config["config"]["layers"][1]["config"]
    assert inner["function_type"] == "lambda" and inner["output_shape_type"] == "raw"
    assert inner["function"][1:] == [None, None] and inner["arguments"] == {}
    code = marshal.loads(base64.decodebytes(inner["function"][0].encode("ascii")))  # the test reads it; rivulet never does
    assert code.co_name == "<lambda>"
    for safe_mode in (True, False):
        with pytest.raises(ValueError, match="Lambda layer with a Python `lambda` inside it"):
            tf.keras.models.load_model(tmp_path / "my_new_model.keras", safe_mode=safe_mode)


def test_a_named_function_round_trips_through_custom_objects():
    def square(t):
        return t * t
    model = tf.keras.Sequential([layers.Lambda(square, input_shape=(2,))])
    config = model.layers[0].get_config()
    assert (config["function"], config["function_type"]) == ("square", "function")
    again = tf.keras.models.model_from_json(model.to_json(), custom_objects={"square": square})
    np.testing.assert_array_equal(again(tf.constant([[2., 3.]])).numpy(), [[4., 9.]])
    with pytest.raises(ValueError, match="Unknown function"):
        tf.keras.models.model_from_json(model.to_json())


@pytest.mark.parametrize("function", ["eval", "exec", "print", {"class_name": "function", "config": "system",
                                                                  "module": "os"}])
def test_a_config_naming_a_python_builtin_is_refused(function):
    config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 2], "dtype": "float32", "name": "i"}},
        {"class_name": "Lambda", "config": {"name": "l", "function": function, "function_type": "function",
                                            "module": "builtins", "arguments": {}}}]}}
    with pytest.raises(ValueError, match="Unknown"):
        tf.keras.models.model_from_json(json.dumps(config))
