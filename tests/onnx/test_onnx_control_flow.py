"""tf.cond / tf.switch_case as ONNX If, tf.while_loop as ONNX Loop."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

F32 = tf.TensorSpec([], tf.float32)


def test_cond_reads_outer_values_in_both_branches(rt):
    @tf.function
    def f(x, y):
        return tf.cond(tf.reduce_sum(x) > y, lambda: x * y, lambda: x - y)
    for y in (1.0, 100.0):
        rt.check(f, tf.constant([1.0, 2.0, 3.0]), tf.constant(y))


def test_cond_with_several_outputs_and_a_constant_branch(rt):
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: (x, tf.constant(1)), lambda: (tf.constant(0.0), tf.constant(-1)))
    for x in (2.0, -2.0):
        rt.check(f, tf.constant(x))


def test_switch_case_with_default(rt):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), F32])
    def f(i, x):
        return tf.switch_case(i, [lambda: x + 1, lambda: x * 10, lambda: -x])
    sess, _ = rt.export(f)
    for i in (0, 1, 2, 7, -1):
        assert rt.run(sess, np.int32(i), np.float32(3))[0] == f(tf.constant(i), tf.constant(3.0)).numpy()


def test_while_loop_counts_and_accumulates(rt):
    @tf.function
    def f(n, x):
        return tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0 + x), (0, tf.zeros([2])))
    for n in (0, 1, 5):
        rt.check(f, tf.constant(n), tf.constant([1.0, -1.0]))


def test_while_loop_maximum_iterations(rt):
    @tf.function
    def f(x):
        return tf.while_loop(lambda v: v < 1000.0, lambda v: v * 2.0, [x], maximum_iterations=4)
    for x in (1.0, 300.0):
        rt.check(f, tf.constant(x))


def test_while_loop_reads_a_variable_and_nests_a_cond(rt):
    step = tf.Variable(3.0)

    @tf.function
    def f(x):
        def body(i, v):
            return i + 1, tf.cond(v > 10.0, lambda: v - step, lambda: v + step)
        return tf.while_loop(lambda i, v: i < 6, body, (tf.constant(0), x))[1]
    for x in (0.0, 20.0):
        rt.check(f, tf.constant(x))


def test_autograph_while_loop(rt):
    @tf.function
    def collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps
    sess, _ = rt.export(collatz.get_concrete_function(tf.constant(6)))
    for n in (1, 6, 27):
        assert rt.run(sess, np.int32(n))[0] == collatz(tf.constant(n)).numpy()


def test_branches_and_loop_variables_of_varying_shape(rt):
    @tf.function(input_signature=[F32])
    def f(x):
        a = tf.cond(x > 0, lambda: tf.ones([2]), lambda: tf.zeros([3]))
        grow = tf.while_loop(lambda v: tf.size(v) < 5, lambda v: tf.concat([v, tf.reshape(x, [1])], 0),
                             [tf.zeros([1])], shape_invariants=[tf.TensorShape([None])])
        return a, grow
    sess, _ = rt.export(f)
    for x in (1.0, -1.0):
        got, want = rt.run(sess, np.float32(x)), tf.nest.flatten(f(tf.constant(x)))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())
