import rivulet as tf
from .helpers import staged


def test_break_in_tensor_for():
    def f(n):
        s = 0
        for i in tf.range(n):
            if i > 3:
                break
            s += i
        return s
    assert tf.function(f)(tf.constant(10)).numpy() == 6
    assert tf.function(f)(tf.constant(2)).numpy() == 1
    assert "StatelessWhile" in staged(f, tf.constant(10))


def test_continue_in_tensor_for():
    def f(n):
        s = 0
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            s += i
        return s
    assert tf.function(f)(tf.constant(10)).numpy() == 25


def test_continue_in_tensor_while():
    def f(n):
        i = 0
        s = 0
        while i < n:
            i += 1
            if i % 3 == 0:
                continue
            s += i
        return s
    assert tf.function(f)(tf.constant(10)).numpy() == 37


def test_break_and_continue_in_python_loop():
    def f(x):
        for i in range(10):
            if i == 1:
                continue
            if i == 4:
                break
            x = x + i
        return x
    assert tf.function(f)(tf.constant(0)).numpy() == 5
    assert staged(f, tf.constant(0)) == []


def test_break_in_inner_loop_only_ends_inner_loop():
    def f(n):
        s = 0
        for i in tf.range(n):
            for j in tf.range(n):
                if j >= i:
                    break
                s += 1
        return s
    assert tf.function(f)(tf.constant(4)).numpy() == 6


def test_break_skips_else():
    def f(n):
        i = 0
        found = 0
        while i < n:
            i += 1
            if i == 3:
                found = 1
                break
        else:
            found = -1
        return found
    assert tf.function(f)(tf.constant(10)).numpy() == 1
    assert tf.function(f)(tf.constant(2)).numpy() == -1
