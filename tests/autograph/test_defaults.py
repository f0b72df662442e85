"""Defaults and annotations of converted functions (issue 25): they were evaluated where the user's `def`
ran, so `def step(w=w)` naming the enclosing function's locals works, and the converted function keeps the
original's default values (TensorFlow's transpiler erases them from the generated code the same way)."""
import numpy as np
import pytest

import rivulet as tf
from .helpers import staged


def make_step():
    w = tf.Variable(2.0)
    scale = 10.0

    def step(x, w=w, *, scale=scale, offset=None):
        if x > 0:  # a tensor condition: the function is converted, not run as written
            x = x * w
        else:
            x = x - scale
        if offset is not None:
            x = x + offset
        return x
    return step, w


def test_defaults_naming_enclosing_locals():
    step, w = make_step()
    f = tf.function(step)
    assert f(tf.constant(3.0)).numpy() == 6.0
    assert f(tf.constant(-3.0)).numpy() == -13.0
    w.assign(5.0)  # the default is the variable itself, read when the graph runs
    assert f(tf.constant(3.0)).numpy() == 15.0
    assert f(tf.constant(3.0), w=tf.constant(1.0), offset=0.5).numpy() == 3.5
    assert len(staged(step, tf.constant(1.0))) == 1  # one staged If (it reads the variable)


def test_decorated_inside_a_function_with_a_loop_and_tensor_default():
    def train(xs):
        total = tf.Variable(0.0)
        lr = tf.constant(0.5)

        @tf.function
        def accumulate(batch, total=total, lr=lr):
            for x in batch:  # a tensor loop: staged as a While
                total.assign_add(x * lr)
            return total.read_value()
        return accumulate(xs)

    assert train(tf.constant([1.0, 2.0, 3.0])).numpy() == 3.0


def test_annotations_naming_enclosing_classes_and_the_converted_signature():
    class Config:
        factor = 3

    def f(x: tf.Tensor, cfg: Config = Config()) -> tf.Tensor:
        if tf.reduce_sum(x) > 0:
            x = x * cfg.factor
        return x

    g = tf.function(f)
    np.testing.assert_array_equal(g(tf.constant([1, 2])).numpy(), [3, 6])
    converted = tf.autograph.to_graph(f)
    assert converted.__defaults__ == f.__defaults__ and converted.__annotations__ == f.__annotations__
    assert "cfg" in tf.autograph.to_code(f)


@pytest.mark.parametrize("default", [[1.0, 2.0], {"a": 1.0}])
def test_mutable_defaults_are_the_same_objects(default):
    def make():
        d = default

        def f(x, d=d):
            if x > 0:
                x = x + 1.0
            return x, d
        return f

    f = make()
    assert tf.autograph.to_graph(f)(1.0)[1] is default  # not a copy made by the conversion
