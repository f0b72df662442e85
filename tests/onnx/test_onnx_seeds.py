"""The guides' (seeds') models, exported and run in onnxruntime."""
import numpy as np
import pytest

import rivulet as tf
from tests.seed_models import SequentialModel, Scale, conv_net, function_to_get_faster, my_relu, simple_relu

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def test_function_to_get_faster(rt):
    f = tf.function(function_to_get_faster)
    rt.check(f, tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]), tf.constant(4.0))
    sess, _ = rt.export(f.get_concrete_function(tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]),
                                                tf.constant(4.0)))
    x, y = np.array([[1.0, 2.0]], np.float32), np.array([[2.0], [3.0]], np.float32)
    np.testing.assert_array_equal(rt.run(sess, x, y, np.float32(4.0))[0], [[12.0]])


def test_my_relu_each_signature(rt):
    rt.check(my_relu, tf.constant(5.5))
    rt.check(my_relu, tf.constant([3., -3.]))
    sess, report = rt.export(my_relu.get_concrete_function([1, -1]))  # a Python list: traced as a constant
    assert report.input_names == [] and rt.run(sess)[0].tolist() == [1.0, 0.0]


def test_sequential_model_of_dense_layers(rt):
    model = SequentialModel()
    data = tf.random.uniform([20, 28, 28])
    model(data)
    call = tf.function(model.call)
    rt.check(call, data, rtol=1e-4, atol=1e-5)


def test_simple_relu_autograph_if(rt):
    f = tf.function(simple_relu)
    sess, report = rt.export(f.get_concrete_function(tf.constant(1)))
    assert [rt.run(sess, np.int32(v))[0].item() for v in (1, -1, 7)] == [1, 0, 7]
    assert "If" in [n.op_type for n in report.model.graph.node]


def test_conv_net(rt):
    net = conv_net()
    rt.check(net, tf.random.uniform([2, 9, 9, 3]), rtol=1e-4, atol=1e-5)


def test_model_with_variables(rt):
    m = Scale()
    sess, report = rt.export(m.__call__)
    x = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 2.0]], np.float32)
    before = m(x).numpy()
    np.testing.assert_allclose(rt.run(sess, x)[0], before, rtol=1e-5)
    names = {i.name for i in report.model.graph.initializer}
    assert {"w", "b"} <= names
    m.w.assign([[0.0, 0.0], [0.0, 0.0]])  # the export holds the values at export time
    np.testing.assert_allclose(rt.run(sess, x)[0], before, rtol=1e-5)
    assert not np.allclose(m(x).numpy(), before)


def test_a_tf_function_traced_once_exports_that_trace(rt):
    f = tf.function(function_to_get_faster)
    args = [tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]), tf.constant(4.0)]
    f(*args)
    sess, report = rt.export(f)
    assert report.input_names == ["x", "y", "b"]
    np.testing.assert_array_equal(rt.run(sess, *args)[0], f(*args).numpy())
