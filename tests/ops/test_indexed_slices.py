"""tf.IndexedSlices: properties, printed form and dense conversion as TensorFlow 2.21's."""
import pytest

import rivulet as tf


def test_indexed_slices():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 0]), tf.constant([3, 2]))
    assert str(s) == ("IndexedSlices(indices=tf.Tensor([2 0], shape=(2,), dtype=int32), values=tf.Tensor(\n"
                      "[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32), dense_shape=tf.Tensor([3 2], shape=(2,), "
                      "dtype=int32))")
    assert tf.convert_to_tensor(s).numpy().tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]
    assert s.dtype == tf.float32 and s.shape == (3, 2) and s.dense_shape.numpy().tolist() == [3, 2]
    assert tf.is_tensor(s) and not isinstance(s, tf.Tensor)
    assert (-s).values.numpy().tolist() == [[-1.0, -2.0], [-3.0, -4.0]]
    s2 = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([0, 0]))
    assert s2.shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices for argument `value` "
                                         "without dense_shape"):
        tf.convert_to_tensor(s2)
