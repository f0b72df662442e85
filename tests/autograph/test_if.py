import numpy as np
import pytest

import rivulet as tf
from .helpers import staged


def sign(x):
    if x > 0:
        y = 1
    elif x < 0:
        y = -1
    else:
        y = 0
    return y


@pytest.mark.parametrize("x,want", [(5, 1), (-2, -1), (0, 0)])
def test_tensor_condition_stages_nested_ifs(x, want):
    assert tf.function(sign)(tf.constant(x)).numpy() == want
    assert staged(sign, tf.constant(1)) == ["StatelessIf"]  # the elif is an If inside the else branch


def test_python_condition_stays_python():
    def f(x, flag):
        if flag:
            x = x * 2
        else:
            x = x + 100
        return x
    assert tf.function(f)(tf.constant(3), True).numpy() == 6
    assert tf.function(f)(tf.constant(3), False).numpy() == 103
    assert staged(f, tf.constant(3), True) == []


def test_eager_tensor_condition_runs_python():
    assert tf.autograph.to_graph(sign)(tf.constant(-3)) == -1


def test_variable_only_used_inside_a_branch_needs_no_else():
    def f(x):
        if x > 0:
            tmp = x * 2
            x = tmp + 1
        return x
    assert tf.function(f)(tf.constant(3)).numpy() == 7
    assert tf.function(f)(tf.constant(-3)).numpy() == -3


def test_branch_outputs_keep_the_most_specific_shape():
    def f(x):
        if tf.reduce_sum(x) > 0:
            y = x
        else:
            y = x[:1]
        return y
    cf = tf.function(f).get_concrete_function(tf.TensorSpec([2], tf.int32))
    assert cf.structured_outputs.shape.as_list() == [None]
    np.testing.assert_array_equal(tf.function(f)(tf.constant([1, 2])).numpy(), [1, 2])
    np.testing.assert_array_equal(tf.function(f)(tf.constant([-1, -2])).numpy(), [-1])


def test_stateful_branch_is_not_pruned():
    v = tf.Variable(0)

    @tf.function
    def f(x):
        if x > 0:
            v.assign_add(1)
        return x
    f(tf.constant(1))
    f(tf.constant(-1))
    f(tf.constant(2))
    assert v.numpy() == 2
    assert "If" in [op.type for op in f.get_concrete_function(tf.constant(1)).graph.get_operations()]


def test_composite_attribute_is_a_branch_variable():
    class Box:
        pass
    box = Box()

    def f(x):
        box.value = x
        if x > 0:
            box.value = x * 10
        return box.value
    assert tf.function(f)(tf.constant(2)).numpy() == 20
    assert tf.function(f)(tf.constant(-2)).numpy() == -2


_created = None


def test_global_and_nonlocal_names_assigned_in_converted_statements():
    # Declared names are state like any other: the generated functions declare them global / nonlocal.
    def make():
        total = tf.constant(0.0)

        @tf.function
        def step(x):
            nonlocal total
            global _created
            if _created is None:  # a Python condition: runs as written, once
                # (not a tf.Variable: creating one makes the first call trace twice, as in TensorFlow, and
                # the second trace would find the graph tensor the first left in `total`)
                _created = 1.0
            if x > 0:  # a tensor condition: staged, both branches set both names
                total = total + x
                scale = 2.0
            else:
                total = total - x
                scale = 3.0
            for i in tf.range(3):
                total += tf.cast(i, tf.float32) * _created
            return total * scale
        return step
    step = make()
    assert float(step(tf.constant(2.0))) == 10.0 and float(step(tf.constant(-1.0))) == 12.0
    assert _created == 1.0
