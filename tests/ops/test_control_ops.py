"""tf.no_op, tf.group, tf.control_dependencies: eagerly None / a null context, in tf.function a NoOp and control
dependencies ordering the ops (values as TensorFlow 2.21 gives them)."""
import pytest

import rivulet as tf
from rivulet import errors


def test_eager_forms():
    assert tf.group(tf.constant(1)) is None and tf.no_op() is None
    calls = []
    with tf.control_dependencies([tf.constant(1), lambda: calls.append(1)]):
        pass
    assert calls == [1]


def test_control_dependencies_order_reads_after_updates():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        a = v.assign_add(1.0)
        with tf.control_dependencies([a]):
            return tf.identity(v.read_value())
    assert f().numpy() == 2.0 and v.numpy() == 2.0

    @tf.function
    def g():
        op = tf.group(v.assign(10.0), v.assign_add(5.0))
        assert op.type == "NoOp"
        with tf.control_dependencies([op]):
            return v.read_value() * 2.0
    assert g().numpy() == 30.0


def test_no_op_and_cleared_dependencies_in_a_graph():
    @tf.function
    def k():
        n = tf.no_op()
        assert n.type == "NoOp"
        with tf.control_dependencies([n]):
            with tf.control_dependencies(None):
                x = tf.constant(1.0) + 1.0
        return x
    assert k().numpy() == 2.0


def test_assertion_through_control_dependencies():
    @tf.function
    def checked(x):
        with tf.control_dependencies([tf.debugging.assert_positive(x)]):
            return tf.identity(x)
    assert checked(tf.constant(2.0)).numpy() == 2.0
    with pytest.raises(errors.InvalidArgumentError):
        checked(tf.constant(-2.0))


def test_timestamp_in_a_graph():
    assert tf.function(lambda: tf.timestamp())().dtype == tf.float64
