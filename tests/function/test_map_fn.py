"""tf.map_fn, eagerly and in tf.function, on tensors, nested elems and RaggedTensors: values recorded from
TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf


def test_map_fn_on_a_tensor_eager_and_traced():
    x = tf.constant([[1., 2.], [3., 4.]])
    fn = lambda v: tf.cumsum(v) / tf.reduce_sum(v)  # noqa: E731 (the matrix_core guide's)
    want = [[1 / 3, 1.], [3 / 7, 1.]]
    np.testing.assert_allclose(tf.map_fn(fn, x).numpy(), want, rtol=1e-6)
    traced = tf.function(lambda x: tf.map_fn(fn, x))(x)
    assert traced.shape.as_list() == [2, 2] and traced.dtype == tf.float32
    np.testing.assert_allclose(traced.numpy(), want, rtol=1e-6)


def test_nested_elems_and_outputs():
    out = tf.map_fn(lambda t: (t[0] * 2, t[1] + 1), (tf.constant([1, 2]), tf.constant([1., 2.])))
    assert out[0].numpy().tolist() == [2, 4] and out[1].numpy().tolist() == [2., 3.]
    assert out[1].dtype == tf.float32
    d = tf.map_fn(lambda x: {'a': x, 'b': x * 2}, tf.constant([1, 2]), fn_output_signature={'a': tf.int32, 'b': tf.int32})
    assert d['a'].numpy().tolist() == [1, 2] and d['b'].numpy().tolist() == [2, 4]
    g = tf.function(lambda a, b: tf.map_fn(lambda t: t[0] * t[1], (a, b), fn_output_signature=tf.int32))
    assert g(tf.constant([1, 2, 3]), tf.constant([4, 5, 6])).numpy().tolist() == [4, 10, 18]


def test_ragged_elems_and_ragged_results():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert str(tf.map_fn(tf.math.square, digits)) == "<tf.RaggedTensor [[9, 1, 16, 1], [], [25, 81, 4], [36], []]>"
    sums = tf.map_fn(lambda x: tf.reduce_sum(x), tf.ragged.constant([[1, 2], [3]]), fn_output_signature=tf.int32)
    assert repr(sums) == "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 3], dtype=int32)>"
    ranges = tf.map_fn(lambda x: tf.range(x), tf.constant([1, 3, 0]),
                       fn_output_signature=tf.RaggedTensorSpec(shape=[None], dtype=tf.int32))
    assert str(ranges) == "<tf.RaggedTensor [[0], [0, 1, 2], []]>"
    sig = tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32, ragged_rank=1)
    rows = lambda r: tf.ragged.constant([[1], [2, 3]]) * r[0]  # noqa: E731
    assert tf.map_fn(rows, tf.ragged.constant([[1, 2], [3]]), fn_output_signature=sig).to_list() == \
        [[[1], [2, 3]], [[3], [6, 9]]]

    @tf.function
    def traced(r):
        return tf.map_fn(tf.math.square, r), tf.map_fn(rows, r, fn_output_signature=sig)
    sq, nested = traced(tf.ragged.constant([[1, 2], [3]]))
    assert str(sq) == "<tf.RaggedTensor [[1, 4], [9]]>" and nested.to_list() == [[[1], [2, 3]], [[3], [6, 9]]]


def test_errors():
    with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional Tensors, not scalars"):
        tf.map_fn(tf.square, tf.constant(3.))
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.map_fn(lambda t: t[0] + t[1], (tf.constant([1, 2]), tf.constant([1, 2, 3])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to write "
                                                             "dtype int32"):
        tf.map_fn(lambda x: x, tf.constant([1, 2]), fn_output_signature=tf.float32)
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(1,\)\), expected \(\(2,\)\)"):
        tf.map_fn(lambda x: x, tf.ragged.constant([[1, 2], [3]]), fn_output_signature=tf.int32)
    with pytest.raises(TypeError, match="fn must be callable"):
        tf.map_fn(5, tf.constant([3.]))


def test_eager_gradient():
    x = tf.Variable([[1., 2.], [3., 4.]])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.map_fn(lambda v: v * v, x))
    assert t.gradient(y, x).numpy().tolist() == [[2., 4.], [6., 8.]]
