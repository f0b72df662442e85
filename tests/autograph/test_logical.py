import pytest

import rivulet as tf
from .helpers import op_types


@pytest.mark.parametrize("x,want", [(5, True), (50, False), (100, True), (-1, False)])
def test_and_or_on_tensors(x, want):
    def f(x):
        return x > 0 and x < 10 or x == 100
    assert tf.function(f)(tf.constant(x)).numpy() == want


@pytest.mark.parametrize("x,want", [(5, True), (50, False), (-1, False)])
def test_and_is_lazy_cond(x, want):
    def f(x):
        return x > 0 and x < 10
    assert tf.function(f)(tf.constant(x)).numpy() == want
    assert "StatelessIf" in op_types(f, tf.constant(1))


def test_python_operands_short_circuit():
    calls = []

    def side(v):
        calls.append(v)
        return v

    def f(x):
        return side(False) and side(True)
    out = tf.function(f)(tf.constant(1))  # a Python result comes back as a tensor, as in TensorFlow
    assert out.dtype == tf.bool and out.numpy().item() is False
    assert calls == [False]


def test_not_on_tensor_is_logical_not():
    def f(x):
        return not x > 0
    assert "LogicalNot" in op_types(f, tf.constant(1))
    assert tf.function(f)(tf.constant(-1)).numpy()


def test_conditional_expression():
    def f(x):
        return x * 2 if x > 0 else -x
    g = tf.function(f)
    assert g(tf.constant(3)).numpy() == 6
    assert g(tf.constant(-3)).numpy() == 3
    assert "StatelessIf" in op_types(f, tf.constant(1))
    assert tf.function(lambda x, c: x if c else -x)(tf.constant(2), False).numpy() == -2


def test_len_of_tensor():
    def f(x):
        return len(x)
    assert tf.function(f)(tf.constant([1, 2, 3])).numpy() == 3
    assert tf.function(f).get_concrete_function(tf.TensorSpec([None], tf.int32))(tf.constant([4, 5])).numpy() == 2
