"""Eager op errors end as TensorFlow 2.21's do: "[Op:NAME] name: " plus the name its Python wrapper passed
(empty for most ops, the default name for some, no suffix where the wrapper passes none). Recorded from TF."""
import pytest

import rivulet as tf

A23, A32 = tf.ones([2, 3]), tf.ones([3, 2])


@pytest.mark.parametrize("fn,tail", [
    (lambda: A23 + A32, "[Op:AddV2] name: "),
    (lambda: tf.matmul(A23, A23), "[Op:MatMul] name: "),
    (lambda: tf.reduce_sum(A23, 4), "[Op:Sum] name: "),
    (lambda: tf.concat([A23, tf.ones([2])], 0), "[Op:ConcatV2] name: concat"),
    (lambda: tf.stack([A23, A32]), "[Op:Pack] name: stack"),
    (lambda: A23[5], "[Op:StridedSlice] name: strided_slice/"),
    (lambda: tf.constant([1]) + tf.constant([1.]), "[Op:AddV2] name: "),
    (lambda: tf.reshape(A23, [5]), "[Op:Reshape]"),
    (lambda: tf.transpose(A23, [0, 0]), "[Op:Transpose]"),
    (lambda: tf.gather(tf.constant([0.0]), [1]), "[Op:GatherV2]"),
])
def test_eager_error_suffix(fn, tail):
    with pytest.raises(tf.errors.OpError) as info:
        fn()
    assert str(info.value).endswith(tail)
    assert not str(info.value).endswith(tail + " name: ")
