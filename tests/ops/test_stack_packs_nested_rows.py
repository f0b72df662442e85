"""tf.stack along axis 0 converts the whole list first, as TensorFlow 2.21 does: Python rows beside rows
holding a tensor take that tensor's dtype (values recorded from TF 2.21); tf.concat does not, in TF either."""
import pytest

import rivulet as tf


def test_rows_mixing_python_ints_and_an_int64_tensor():
    @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
    def f(n):
        return tf.stack([[0, 0], [n, n - 1]]), tf.stack([[0.5, 1], [tf.cast(n, tf.float64), 2]])
    a, c = f(tf.constant(3, tf.int64))
    assert a.dtype == tf.int64 and a.numpy().tolist() == [[0, 0], [3, 2]]
    assert c.dtype == tf.float64 and c.numpy().tolist() == [[0.5, 1.0], [3.0, 2.0]]
    eager = tf.stack([[0, 0], [tf.constant(3, tf.int64), 1]])
    assert eager.dtype == tf.int64 and eager.numpy().tolist() == [[0, 0], [3, 1]]


def test_concat_of_such_rows_is_still_typeerror():
    @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
    def g(n):
        return tf.concat([[1, 2], [n]], 0)
    with pytest.raises(TypeError):
        g(tf.constant(3, tf.int64))
