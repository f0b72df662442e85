"""tf.complex, ensure_shape, reverse_sequence, unravel_index, dynamic_partition/stitch, histogram_fixed_width(_bins),
bitcast, fingerprint, timestamp, space_to_batch_nd/batch_to_space, identity_n, shape_n, is_tensor,
get_static_value, tuple, parallel_stack, as_string, scan/foldl/foldr: values and errors recorded from
TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors


def test_complex_and_gradient():
    z = tf.complex(tf.constant([1.0, 2.0]), tf.constant([3.0, -1.0]))
    assert z.dtype == tf.complex64 and z.numpy().tolist() == [1 + 3j, 2 - 1j]
    assert tf.complex(tf.constant([1.0], tf.float64), tf.constant([3.0], tf.float64)).dtype == tf.complex128
    assert tf.complex(tf.constant([[1.0], [2.0]]), tf.constant([3.0, 4.0])).numpy().tolist() == \
        [[1 + 3j, 1 + 4j], [2 + 3j, 2 + 4j]]
    assert tf.complex(1.0, 2.0).numpy() == 1 + 2j
    for re, im, names in ((tf.constant([1.0]), tf.constant([3.0], tf.float64), "float32 float64"),
                          (tf.constant([1]), tf.constant([3]), "int32 int32")):
        with pytest.raises(TypeError, match=f"The `real` and `imag` components have incorrect types: {names}"):
            tf.complex(re, im)
    x, y = tf.constant([1.0, 2.0], tf.float64), tf.constant([3.0, -1.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch([x, y])
        loss = tf.reduce_sum(tf.math.real(tf.complex(x, y) * tf.constant([1 + 2j, 3 - 1j])))
    gx, gy = t.gradient(loss, [x, y])
    assert gx.numpy().tolist() == [1.0, 3.0] and gy.numpy().tolist() == [-2.0, 1.0]


def test_ensure_shape():
    assert tf.ensure_shape(tf.ones([2, 3]), [None, 3]).shape == (2, 3)
    with pytest.raises(errors.InvalidArgumentError, match=r"Shape of tensor input \[2,3\] is not compatible with "
                                                          r"expected shape \[2,2\]."):
        tf.ensure_shape(tf.ones([2, 3]), [2, 2])
    f = tf.function(lambda v: tf.ensure_shape(v, [None, 3]), input_signature=[tf.TensorSpec(None)])
    assert f.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]
    with pytest.raises(errors.InvalidArgumentError, match="is not compatible with expected shape"):
        f(tf.ones([2, 2]))


def test_reverse_sequence_unravel_index():
    x = tf.reshape(tf.range(12), [3, 4])
    assert tf.reverse_sequence(x, [1, 3, 4], seq_axis=1, batch_axis=0).numpy().tolist() == \
        [[0, 1, 2, 3], [6, 5, 4, 7], [11, 10, 9, 8]]
    with pytest.raises(errors.InvalidArgumentError, match=r"seq_lens\(1\) > input.dims\(1\)"):
        tf.reverse_sequence(x, [1, 5, 4], seq_axis=1, batch_axis=0)
    assert tf.unravel_index([1, 5, 7], [3, 4]).numpy().tolist() == [[0, 1, 1], [1, 1, 3]]
    assert tf.unravel_index(7, [3, 4]).numpy().tolist() == [1, 3]
    with pytest.raises(errors.InvalidArgumentError, match="index is out of bound as with dims"):
        tf.unravel_index([12], [3, 4])


def test_dynamic_partition_and_stitch():
    parts = tf.dynamic_partition(tf.constant([10, 20, 30, 40]), [0, 1, 0, 2], 3)
    assert [p.numpy().tolist() for p in parts] == [[10, 30], [20], [40]]
    with pytest.raises(errors.InvalidArgumentError, match=r"partitions\[1\] = 5 is not in \[0, 3\)"):
        tf.dynamic_partition(tf.constant([10, 20]), [0, 5], 3)
    assert tf.dynamic_stitch([[0, 2], [1, 3]], [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]).numpy().tolist() \
        == [1.0, 3.0, 2.0, 4.0]
    assert tf.dynamic_stitch([[0, 1], [1]], [tf.constant([[1.0], [2.0]]), tf.constant([[9.0]])]).numpy().tolist() \
        == [[1.0], [9.0]]
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as t:
        t.watch(x)
        a, b = tf.dynamic_partition(x, [1, 0, 1, 0], 2)
        loss = tf.reduce_sum(a * 10.0) + tf.reduce_sum(b * tf.constant([1.0, 2.0]))
    assert t.gradient(loss, x).numpy().tolist() == [1.0, 10.0, 2.0, 10.0]


def test_histograms():
    v = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0])
    assert tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5).numpy().tolist() == [2, 1, 1, 0, 2]
    assert tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5).numpy().tolist() == [0, 0, 1, 2, 4, 4]
    h = tf.histogram_fixed_width(tf.constant([1, 2, 3]), [0, 4], nbins=2, dtype=tf.int64)
    assert h.dtype == tf.int64 and h.numpy().tolist() == [1, 2]


def test_bitcast_and_fingerprint():
    assert tf.bitcast(tf.constant([1.0], tf.float32), tf.int32).numpy().tolist() == [1065353216]
    assert tf.bitcast(tf.constant([1, 2], tf.int32), tf.uint8).numpy().tolist() == [[1, 0, 0, 0], [2, 0, 0, 0]]
    assert tf.bitcast(tf.constant([[1, 2, 3, 4]], tf.uint8), tf.int32).numpy().tolist() == [67305985]
    with pytest.raises(errors.InvalidArgumentError, match="Cannot bitcast from 4 to 3"):
        tf.bitcast(tf.constant([1, 2, 3], tf.uint8), tf.int32)
    fp = tf.fingerprint(tf.constant(["hello", "abc"]))
    assert fp.dtype == tf.uint8
    assert fp.numpy().tolist() == [[232, 12, 56, 49, 169, 229, 139, 180], [105, 243, 231, 116, 160, 179, 165, 36]]
    assert tf.fingerprint(tf.constant([[1, 2], [3, 4]], tf.int32)).numpy().tolist() == \
        [[76, 18, 253, 133, 168, 204, 240, 10], [254, 162, 60, 240, 103, 244, 53, 255]]
    assert tf.timestamp().dtype == tf.float64


def test_space_batch_moves():
    x = tf.reshape(tf.range(16), [1, 4, 4, 1])
    y = tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
    assert y.numpy()[..., 0].tolist() == [[[0, 2], [8, 10]], [[1, 3], [9, 11]], [[4, 6], [12, 14]],
                                          [[5, 7], [13, 15]]]
    assert tf.batch_to_space(tf.reshape(tf.range(16), [4, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]).numpy()[0, ..., 0] \
        .tolist() == [[0, 4, 1, 5], [8, 12, 9, 13], [2, 6, 3, 7], [10, 14, 11, 15]]
    y = tf.space_to_batch(tf.reshape(tf.range(18), [1, 3, 3, 2]), [2, 2], [[0, 1], [1, 0]])
    assert y.shape == (4, 2, 2, 2)
    assert y.numpy().tolist()[0] == [[[0, 0], [2, 3]], [[0, 0], [14, 15]]]
    assert tf.batch_to_space(y, [2, 2], [[0, 1], [1, 0]]).numpy().tolist() == \
        tf.reshape(tf.range(18), [1, 3, 3, 2]).numpy().tolist()


def test_small_composites():
    a, b = tf.identity_n([tf.constant(1), tf.constant([2.0])])
    assert a.numpy() == 1 and b.numpy().tolist() == [2.0]
    s = tf.shape_n([tf.ones([2, 3]), tf.ones([4])])
    assert [v.numpy().tolist() for v in s] == [[2, 3], [4]] and s[0].dtype == tf.int32
    assert tf.shape_n([tf.ones([2, 3])], out_type=tf.int64)[0].dtype == tf.int64
    assert [tf.is_tensor(v) for v in (tf.constant(1), np.ones(2), tf.SparseTensor([[0]], [1], [2]),
                                      tf.Variable(1.0))] == [True, False, True, True]
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2] and tf.get_static_value(5) == 5
    assert [v.numpy() for v in tf.tuple([tf.constant(1), tf.constant(2)])] == [1, 2]
    with pytest.raises(RuntimeError, match=r"tf.parallel_stack\(\) is not compatible with eager execution."):
        tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])])
    assert tf.function(lambda: tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])]))().numpy().tolist() \
        == [[1, 2], [3, 4]]
    assert tf.as_string(tf.constant([1.5, 2.0])).numpy().tolist() == [b"1.500000", b"2.000000"]


def test_scan_and_folds():
    assert tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4])).numpy().tolist() == [1, 3, 6, 10]
    assert tf.scan(lambda a, x: a * x, tf.constant([1.0, 2.0, 3.0]), initializer=tf.constant(2.0),
                   reverse=True).numpy().tolist() == [12.0, 12.0, 6.0]
    s, p = tf.scan(lambda a, x: (a[0] + x, a[1] * x), tf.constant([1, 2, 3]), initializer=(0, 1))
    assert s.numpy().tolist() == [1, 3, 6] and p.numpy().tolist() == [1, 2, 6]
    assert tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3])).numpy() == 6
    assert tf.foldr(lambda a, x: a - x, tf.constant([1, 2, 3]), initializer=10).numpy() == 4
    f = tf.function(lambda v: tf.scan(lambda a, x: a * 2.0 + x, v, initializer=tf.constant(1.0)))
    assert f(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [3.0, 8.0, 19.0]
    g = tf.function(lambda v: tf.scan(lambda a, x: a + x, v, reverse=True))
    assert g(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).numpy().tolist() == \
        [[9.0, 12.0], [8.0, 10.0], [5.0, 6.0]]
    assert tf.function(lambda v: tf.foldr(lambda a, x: a * x, v))(tf.constant([1.0, 2.0, 3.0, 4.0])).numpy() == 24.0


def test_scan_gradients_eager_and_traced():
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.scan(lambda a, v: a * v + 1.0, x, initializer=tf.constant(2.0, tf.float64)))
    assert t.gradient(y, x).numpy().tolist() == [18.0, 12.0, 7.0]

    @tf.function
    def traced(v):
        with tf.GradientTape() as t:
            t.watch(v)
            y = tf.reduce_sum(tf.scan(lambda a, e: a * e + 1.0, v, initializer=tf.constant(2.0, tf.float64)))
        return t.gradient(y, v)
    assert traced(x).numpy().tolist() == [18.0, 12.0, 7.0]
