import numpy as np
import pytest

import rivulet as tf
from .helpers import staged


def power(x, y):
    result = tf.eye(10, dtype=tf.dtypes.int32)
    for _ in range(y):
        result = tf.matmul(x, result)
    return result


def test_seed_power_python_range_unrolls():
    x = tf.constant(np.eye(10, dtype=np.int32) * 2)
    out = tf.function(power)(x, 3)
    np.testing.assert_array_equal(out.numpy(), np.eye(10) * 8)
    types = [op.type for op in tf.function(power).get_concrete_function(x, 3).graph.get_operations()]
    assert types.count("MatMul") == 3 and "StatelessWhile" not in types


def loop_sum(n):
    s = 0
    for i in tf.range(n):
        s += i
    return s


def test_tf_range_stages_a_while():
    assert tf.function(loop_sum)(tf.constant(5)).numpy() == 10
    assert staged(loop_sum, tf.constant(5)) == ["StatelessWhile"]


def test_range_of_a_tensor_is_tf_range():
    def f(n):
        s = 0
        for i in range(n):
            s += i
        return s
    assert tf.function(f)(tf.constant(5)).numpy() == 10
    assert staged(f, tf.constant(5)) == ["StatelessWhile"]


def test_iterating_a_tensor_iterates_rows():
    def f(x):
        s = tf.constant(0.0)
        for row in x:
            s += tf.reduce_sum(row)
        return s
    assert tf.function(f)(tf.constant([[1., 2.], [3., 4.]])).numpy() == 10.0
    assert staged(f, tf.TensorSpec([None, 2], tf.float32)) == ["StatelessWhile"]


def test_python_list_iteration():
    def f(x):
        for v in [1, 2, 3]:
            x = x + v
        return x
    assert tf.function(f)(tf.constant(0)).numpy() == 6
    assert staged(f, tf.constant(0)) == []


def test_nested_tensor_loops():
    def f(n):
        s = 0
        for i in tf.range(n):
            for j in tf.range(i):
                s += j
        return s
    assert tf.function(f)(tf.constant(5)).numpy() == 10


def test_tensor_if_inside_python_loop():
    def f(x):
        for i in range(3):
            if x > i:
                x = x - 1
        return x
    assert tf.function(f)(tf.constant(2)).numpy() == 1
    assert staged(f, tf.constant(2)).count("StatelessIf") == 3


def test_tensor_array_in_loop():
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, i * i)
        return ta.stack()
    np.testing.assert_array_equal(tf.function(f)(tf.constant(4)).numpy(), [0, 1, 4, 9])


def test_shape_change_needs_invariants():
    def f(n):
        s = tf.constant([1])
        for i in tf.range(n):
            s = tf.concat([s, tf.reshape(i, [1])], 0)
        return s
    with pytest.raises(ValueError, match=r"'s' has shape \(1,\) before the loop, but shape \(2,\) after one "
                                         r"iteration\. Use tf\.autograph\.experimental\.set_loop_options"):
        tf.function(f)(tf.constant(3))

    def g(n):
        s = tf.constant([1])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(s, tf.TensorShape([None]))])
            s = tf.concat([s, tf.reshape(i, [1])], 0)
        return s
    np.testing.assert_array_equal(tf.function(g)(tf.constant(3)).numpy(), [1, 0, 1, 2])


def test_variable_first_defined_in_loop():
    def f(n):
        for i in tf.range(n):
            s = i * 2
        return s
    assert tf.function(f)(tf.constant(3)).numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least once to initialize s"):
        tf.function(f)(tf.constant(0))


def test_loop_target_visible_after_python_loop():
    def f(x):
        for i in range(3):
            x = x + i
        return x + i
    assert tf.function(f)(tf.constant(0)).numpy() == 5
