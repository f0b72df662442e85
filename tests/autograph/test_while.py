import pytest

import rivulet as tf
from .helpers import staged


def count_up(x):
    i = 0
    while i < x:
        i += 2
    return i


def test_tensor_condition_stages_a_while():
    assert tf.function(count_up)(tf.constant(7)).numpy() == 8
    assert staged(count_up, tf.constant(7)) == ["StatelessWhile"]


def test_python_condition_unrolls():
    assert tf.function(count_up)(7) == 8
    assert staged(lambda: count_up(3)) == []


def test_condition_with_and():
    def f(x):
        i = 0
        while i < x and i < 5:
            i += 1
        return i
    assert tf.function(f)(tf.constant(3)).numpy() == 3
    assert tf.function(f)(tf.constant(30)).numpy() == 5


def test_nested_while():
    def f(n):
        s = 0
        i = 0
        while i < n:
            j = 0
            while j < i:
                s += j
                j += 1
            i += 1
        return s
    assert tf.function(f)(tf.constant(5)).numpy() == 10


def test_loop_variable_dtype_change():
    def f(x):
        s = 0
        while x > 0:
            s = 1.5
            x -= 1
        return s
    with pytest.raises(TypeError, match="'s' has dtype int32 before the loop, but dtype float32 after one iteration"):
        tf.function(f)(tf.constant(3))


def test_maximum_iterations_option():
    def f(n):
        i = 0
        while i < n:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            i += 1
        return i
    assert tf.function(f)(tf.constant(10)).numpy() == 3


def test_while_else_runs_without_break():
    def f(n):
        i = 0
        while i < n:
            i += 1
        else:
            i = -i
        return i
    assert tf.function(f)(tf.constant(3)).numpy() == -3
