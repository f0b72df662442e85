"""tf.experimental.Optional and iterator.get_next_as_optional(), eagerly and inside tf.function (values as
TF 2.21 gives them)."""
import pytest

import rivulet as tf


def test_eager_get_next_as_optional():
    it = iter(tf.data.Dataset.range(5).batch(2))
    o = it.get_next_as_optional()
    assert bool(o.has_value()) and o.get_value().numpy().tolist() == [0, 1]
    assert repr(o.element_spec) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    next(it), next(it)
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^The given optional does not have a value. \[Op:OptionalGetValue\]"):
        empty.get_value()


def test_optional_from_value_and_empty():
    o = tf.experimental.Optional.from_value((tf.constant(1), "a"))
    assert bool(o.has_value()) and [v.numpy() for v in o.get_value()] == [1, b"a"]
    assert repr(o.element_spec) == ("(TensorSpec(shape=(), dtype=tf.int32, name=None), "
                                    "TensorSpec(shape=(), dtype=tf.string, name=None))")
    e = tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32))
    assert not bool(e.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
        e.get_value()


def test_get_next_as_optional_inside_tf_function_reads_when_the_function_runs():
    it = iter(tf.data.Dataset.range(5).batch(2))

    @tf.function
    def f(it):
        o = it.get_next_as_optional()
        return o.has_value(), tf.cond(o.has_value(), lambda: o.get_value(), lambda: tf.constant([-1], tf.int64))
    # TF 2.21: (True, [0 1]), (True, [2 3]), (True, [4]), then (False, [-1])
    got = [f(it) for _ in range(4)]
    assert [(bool(h), v.numpy().tolist()) for h, v in got] == [(True, [0, 1]), (True, [2, 3]), (True, [4]),
                                                               (False, [-1])]


def test_loop_breaks_when_the_optional_is_empty():
    it = iter(tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": ["x", "y"]}))

    @tf.function
    def g(it):
        total = tf.constant(0)
        for _ in tf.range(5):
            o = it.get_next_as_optional()
            if not o.has_value():
                break
            total += o.get_value()["a"]
        return total
    assert int(g(it)) == 3  # TF 2.21: 3

    @tf.function
    def h(it):
        return it.get_next_as_optional().get_value()["a"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value"):
        h(it)


def test_string_elements_inside_tf_function():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": ["x", "y"]})

    @tf.function
    def loop():
        s = tf.constant("")
        for x in ds:
            s += x["b"]
        return s
    assert loop().numpy() == b"xy"

    @tf.function
    def g(it):
        total, s = tf.constant(0), tf.constant("")
        for _ in tf.range(5):
            o = it.get_next_as_optional()
            if not o.has_value():
                break
            v = o.get_value()
            total += v["a"]
            s += v["b"]
        return total, s
    total, s = g(iter(ds))
    assert int(total) == 3 and s.numpy() == b"xy" and s.dtype == tf.string  # TF 2.21: 3, b'xy'
