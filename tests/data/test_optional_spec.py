"""tf.OptionalSpec, tf.data.experimental.Optional / get_next_as_optional, and Optional.from_value and closure
iterators inside tf.function (values and printed forms recorded from TensorFlow 2.21)."""
import rivulet as tf


def test_optional_spec_and_aliases():
    v = tf.experimental.Optional.from_value({"a": tf.constant(1.), "b": (tf.constant([1, 2]),)})
    assert repr(tf.OptionalSpec.from_value(v)) == (
        "OptionalSpec({'a': TensorSpec(shape=(), dtype=tf.float32, name=None), "
        "'b': (TensorSpec(shape=(2,), dtype=tf.int32, name=None),)},)")
    assert tf.OptionalSpec.from_value(v) == tf.OptionalSpec(v.element_spec)
    assert tf.OptionalSpec(tf.TensorSpec([], tf.int32)).value_type is tf.experimental.Optional
    assert tf.data.experimental.Optional is tf.experimental.Optional
    it = iter(tf.data.Dataset.range(1))
    assert bool(tf.data.experimental.get_next_as_optional(it).has_value())
    assert not bool(tf.data.experimental.get_next_as_optional(it).has_value())


def test_from_value_and_closure_iterator_in_tf_function():
    @tf.function
    def g():
        o = tf.experimental.Optional.from_value(tf.constant(3))
        return o.has_value(), o.get_value()
    has, value = g()
    assert bool(has) and int(value) == 3

    it = iter(tf.data.Dataset.range(2))

    @tf.function
    def h():
        return it.get_next_as_optional().has_value()
    assert [bool(h()) for _ in range(3)] == [True, True, False]


def test_get_next_as_optional_of_sparse_elements_in_tf_function():
    sp = tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (4, 3), (5, 0)], values=[1, 2, 3, 4], dense_shape=(6, 4))
    it = iter(tf.data.Dataset.from_tensor_slices((sp, tf.range(6))))

    @tf.function
    def f():
        o = it.get_next_as_optional()
        return tf.cond(o.has_value(), lambda: tf.sparse.reduce_sum(o.get_value()[0]) + o.get_value()[1], lambda: -1)
    assert [int(f()) for _ in range(7)] == [3, 1, 2, 3, 7, 9, -1]  # TensorFlow 2.21
