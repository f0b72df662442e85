"""tf.SparseTensor and tf.sparse against TensorFlow 2.21 (printed forms and values recorded from it)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


def _a():
    return tf.sparse.SparseTensor([[0, 1], [1, 0]], [1., 2.], [2, 3])


def _b():
    return tf.sparse.SparseTensor([[0, 1], [1, 2]], [10., 20.], [2, 3])


def _parts(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_construction_and_printing():
    st = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    want = ("SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), "
            "values=tf.Tensor([1 2], shape=(2,), dtype=int32), dense_shape=tf.Tensor([3 4], shape=(2,), "
            "dtype=int64))")
    assert str(st) == repr(st) == want
    assert st.shape == tf.TensorShape([3, 4]) and st.dtype == tf.int32
    assert tf.SparseTensor is tf.sparse.SparseTensor and isinstance(st, tf.SparseTensor)
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        tf.sparse.SparseTensor([[0, 1]], [1., 2.], [2, 3])


def test_dense_conversions():
    d = tf.constant([[0., 2., 0.], [3., 0., 0.]])
    s = tf.sparse.from_dense(d)
    assert _parts(s) == ([[0, 1], [1, 0]], [2., 3.], [2, 3])
    np.testing.assert_array_equal(tf.sparse.to_dense(s).numpy(), d.numpy())
    st = tf.sparse.SparseTensor([[0, 0], [1, 2]], [1, 2], [3, 4])
    assert tf.sparse.to_dense(st, default_value=-1).numpy().tolist() == [[1, -1, -1, -1], [-1, -1, 2, -1],
                                                                         [-1, -1, -1, -1]]
    with pytest.raises(InvalidArgumentError, match=r"indices\[0\] = \[0,5\] is out of bounds: need 0 <= index < "
                                                   r"\[2,3\] \[Op:SparseToDense\]"):
        tf.sparse.to_dense(tf.sparse.SparseTensor([[0, 5]], [1.], [2, 3]))
    unordered = tf.sparse.SparseTensor([[1, 0], [0, 1]], [5, 6], [2, 2])
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = \[0,1\] is out of order. Many sparse ops "
                                                   r"require sorted indices"):
        tf.sparse.to_dense(unordered)
    assert _parts(tf.sparse.reorder(unordered)) == ([[0, 1], [1, 0]], [6, 5], [2, 2])


def test_add_matmul_reduce():
    a, b = _a(), _b()
    assert _parts(tf.sparse.add(a, b)) == ([[0, 1], [1, 0], [1, 2]], [11., 2., 20.], [2, 3])
    d = tf.constant([[0., 2., 0.], [3., 0., 0.]])
    assert tf.sparse.add(a, d).numpy().tolist() == [[0., 3., 0.], [5., 0., 0.]]
    assert tf.sparse.sparse_dense_matmul(a, tf.ones([3, 2])).numpy().tolist() == [[1., 1.], [2., 2.]]
    assert tf.sparse.sparse_dense_matmul(a, tf.ones([2, 2]), adjoint_a=True).numpy().tolist() == \
        [[2., 2.], [1., 1.], [0., 0.]]
    assert tf.sparse.reduce_sum(a).numpy() == 3.0
    assert tf.sparse.reduce_sum(a, axis=1).numpy().tolist() == [1., 2.]
    assert tf.sparse.reduce_sum(a, 0, keepdims=True).numpy().tolist() == [[2., 1., 0.]]
    assert _parts(tf.sparse.reduce_sum(a, axis=1, output_is_sparse=True)) == ([[0], [1]], [1., 2.], [2])


def test_concat_retain_transpose_elementwise():
    a, b = _a(), _b()
    assert _parts(tf.sparse.concat(1, [a, b])) == ([[0, 1], [0, 4], [1, 0], [1, 5]], [1., 10., 2., 20.], [2, 6])
    assert _parts(tf.sparse.concat(0, [a, b])) == ([[0, 1], [1, 0], [2, 1], [3, 2]], [1., 2., 10., 20.], [4, 3])
    assert _parts(tf.sparse.retain(a, [False, True])) == ([[1, 0]], [2.], [2, 3])
    assert _parts(tf.sparse.transpose(a)) == ([[0, 1], [1, 0]], [2., 1.], [3, 2])
    assert _parts(a * 2) == ([[0, 1], [1, 0]], [2., 4.], [2, 3])
    assert _parts(a * tf.constant([[1., 2., 3.], [4., 5., 6.]])) == ([[0, 1], [1, 0]], [2., 8.], [2, 3])
    with pytest.raises(TypeError):
        a + a


def test_sparse_tensor_as_tf_function_argument():
    seen = []

    @tf.function
    def f(sp):
        seen.append(str(sp))
        return tf.sparse.reduce_sum(sp)

    assert f(_a()).numpy() == 3.0 and f(_b()).numpy() == 30.0
    assert f.experimental_get_tracing_count() == 1  # traced for SparseTensorSpec([2, 3], float32), any N
    assert seen == ['SparseTensor(indices=Tensor("sp:0", shape=(None, 2), dtype=int64), values=Tensor("sp_1:0", '
                    'shape=(None,), dtype=float32), dense_shape=Tensor("sp_2:0", shape=(2,), dtype=int64))']
    assert "sp (POSITIONAL_OR_KEYWORD): SparseTensorSpec(TensorShape([2, 3]), tf.float32)" in \
        str(f.get_concrete_function(_a()))
    assert f(tf.sparse.SparseTensor([[0, 0]], [5.], [2, 3])).numpy() == 5.0
    assert f.experimental_get_tracing_count() == 1
    assert repr(tf.SparseTensorSpec([None, 3], tf.float32)) == "SparseTensorSpec(TensorShape([None, 3]), tf.float32)"


def test_gradients_through_sparse_ops():
    a = _a()
    x = tf.Variable([[1., 2., 3.], [4., 5., 6.]])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(a, tf.transpose(x)))
    assert t.gradient(y, x).numpy().tolist() == [[2., 1., 0.], [2., 1., 0.]]
    v = tf.Variable([1., 2.])
    with tf.GradientTape() as t:
        sp = tf.sparse.SparseTensor(a.indices, v * 1.0, a.dense_shape)
        y = tf.reduce_sum(tf.sparse.to_dense(sp) * tf.constant([[1., 2., 3.], [4., 5., 6.]]))
    assert t.gradient(y, v).numpy().tolist() == [2., 4.]


def test_map_values_slice_reduce_max_expand_dims_reshape():
    a = tf.sparse.SparseTensor([[0, 1], [1, 0], [2, 3]], [1., -2., 5.], [4, 4])
    assert _parts(tf.sparse.map_values(tf.add, a, 1)) == ([[0, 1], [1, 0], [2, 3]], [2., -1., 6.], [4, 4])
    assert _parts(tf.sparse.map_values(tf.multiply, a, a))[1] == [1., 4., 25.]
    assert _parts(tf.sparse.slice(a, start=[1, 0], size=[2, 4])) == ([[0, 0], [1, 3]], [-2., 5.], [2, 4])
    assert _parts(tf.sparse.slice(a, start=[1, 0], size=[10, 2])) == ([[0, 0]], [-2.], [3, 2])
    assert tf.sparse.reduce_max(a, axis=1).numpy().tolist() == [1., -2., 5., 0.]  # stored values only
    assert tf.sparse.reduce_max(a).numpy() == 5.0
    assert _parts(tf.sparse.reduce_max(a, axis=1, output_is_sparse=True)) == ([[0], [1], [2]], [1., -2., 5.], [4])
    e = tf.sparse.expand_dims(a, 0)
    assert e.dense_shape.numpy().tolist() == [1, 4, 4] and e.indices.numpy()[:1].tolist() == [[0, 0, 1]]
    assert tf.sparse.expand_dims(a, -1).indices.numpy()[:1].tolist() == [[0, 1, 0]]
    assert _parts(tf.sparse.reshape(a, [2, 8])) == ([[0, 1], [0, 4], [1, 3]], [1., -2., 5.], [2, 8])
    assert _parts(tf.sparse.reshape(a, [-1, 8]))[2] == [2, 8]
