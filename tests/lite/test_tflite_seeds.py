"""The seed guides' models (intro_01..08's functions, the Keras SequentialModel of Dense layers, simple_relu
through AutoGraph, a conv net, a module with variables) converted to .tflite and run in LiteRT: equal to
rivulet's outputs (rtol 1e-5) and to the values the guides print."""
import numpy as np
import pytest

import rivulet as tf
from tests.lite.read_back import all_ops
from tests.seed_models import SequentialModel, Scale, conv_net, function_to_get_faster, my_relu, simple_relu

pytest.importorskip("ai_edge_litert.interpreter")
pytest.importorskip("tflite.Model")
pytest.importorskip("flatbuffers")


def convert(*cfs):
    return tf.lite.TFLiteConverter.from_concrete_functions(list(cfs)).convert()


def runner(content, key=None):
    return tf.lite.Interpreter(model_content=content).get_signature_runner(key)


def test_function_to_get_faster():
    f = tf.function(function_to_get_faster)
    x, y, b = tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]), tf.constant(4.0)
    content = convert(f.get_concrete_function(x, y, b))
    got = runner(content)(x=x, y=y, b=b)["output_0"]
    np.testing.assert_array_equal(got, [[12.0]])  # the guide prints tf.Tensor([[12.]], ...)
    np.testing.assert_array_equal(got, f(x, y, b).numpy())


def test_my_relu_signatures():
    scalar = my_relu.get_concrete_function(tf.TensorSpec([], tf.float32))
    vector = my_relu.get_concrete_function(tf.TensorSpec([2], tf.float32))
    # the guide prints 5.5 and [3. 0.]
    assert runner(convert(scalar))(x=np.float32(5.5))["output_0"].tolist() == 5.5
    assert runner(convert(vector))(x=np.array([3., -3.], np.float32))["output_0"].tolist() == [3.0, 0.0]
    # two traces of one tf.function would share a signature name (TensorFlow refuses them too)
    with pytest.raises(ValueError, match="Several of the ConcreteFunctions are named 'my_relu'"):
        convert(scalar, vector)


def test_sequential_model_of_dense_layers():
    tf.keras.utils.set_random_seed(0)
    model = SequentialModel()
    data = tf.random.uniform([20, 28, 28])
    model(data)
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    ops = all_ops(content)
    assert ops.count("FULLY_CONNECTED") == 11 and "RELU" not in ops  # relu fused into the layers
    got = runner(content)(input_1=data)["output_1"]
    want = model(data, training=False).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_simple_relu_through_autograph_is_an_if():
    f = tf.function(simple_relu)
    content = convert(f.get_concrete_function(tf.TensorSpec([], tf.int32)))
    assert "IF" in all_ops(content)
    r = runner(content)
    assert [r(x=np.int32(v))["output_0"].item() for v in (1, -1, 7)] == [1, 0, 7]  # the guide's 1, 0


def test_conv_net():
    tf.keras.utils.set_random_seed(1)
    net = conv_net()
    image = tf.random.uniform([2, 9, 9, 3])
    content = convert(net.get_concrete_function(tf.TensorSpec([None, 9, 9, 3], tf.float32)))
    assert all_ops(content) == ["CONV_2D", "MAX_POOL_2D", "RESHAPE", "FULLY_CONNECTED"]
    r = runner(content)
    np.testing.assert_allclose(r(image=image)["output_0"], net(image).numpy(), rtol=1e-5, atol=1e-6)


def test_module_with_variables_is_frozen_at_conversion():
    m = Scale()
    content = tf.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m).convert()
    x = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 2.0]], np.float32)
    before = m(x).numpy()
    np.testing.assert_allclose(runner(content)(x=x)["output_0"], before, rtol=1e-5)
    m.w.assign([[0.0, 0.0], [0.0, 0.0]])  # the file holds the values at conversion time
    np.testing.assert_allclose(runner(content)(x=x)["output_0"], before, rtol=1e-5)
