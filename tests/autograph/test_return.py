import pytest

import rivulet as tf
from .helpers import staged


def my_function(x):
    if tf.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


def test_seed_my_function():
    f = tf.function(my_function)
    assert f(tf.constant(1.0)).numpy() == 1.0
    assert f(tf.constant([5.0, 5.0])).numpy().tolist() == [4.0, 4.0]


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def test_seed_simple_relu():
    f = tf.function(simple_relu)
    assert f(tf.constant(1)).numpy() == 1
    assert f(tf.constant(-1)).numpy() == 0
    assert staged(simple_relu, tf.constant(1)) == ["StatelessIf"]


def test_code_after_a_returning_if_becomes_its_else():
    def f(x):
        if x > 0:
            return x
        y = -x
        return y * 10
    g = tf.function(f)
    assert g(tf.constant(3)).numpy() == 3
    assert g(tf.constant(-3)).numpy() == 30


def test_missing_return_in_one_branch():
    def f(x):
        if x > 0:
            return x
    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        tf.function(f)(tf.constant(1))


def test_no_return_gives_none():
    def f(x):
        x + 1
    assert tf.function(f)(tf.constant(1)) is None


def test_return_inside_python_loop():
    def f(x, n):
        for i in range(n):
            if i == 2:
                return x + i
        return x
    assert tf.function(f)(tf.constant(1), 5).numpy() == 3
    assert tf.function(f)(tf.constant(1), 2).numpy() == 1


def test_return_inside_tensor_loop_is_not_supported():
    def f(n):
        for i in tf.range(n):
            if i > 3:
                return i
        return -1
    with pytest.raises(NotImplementedError, match="return statement cannot be placed inside this TensorFlow loop"):
        tf.function(f)(tf.constant(10))


def test_called_functions_are_converted():
    def helper(x):
        if x > 0:
            return x
        return -x

    def f(x):
        return helper(x) + 1
    assert tf.function(f)(tf.constant(-4)).numpy() == 5
    assert staged(f, tf.constant(1)) == ["StatelessIf"]
