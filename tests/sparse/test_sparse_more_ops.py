"""tf.sparse.segment_sum/mean/sqrt_n, eye, fill_empty_rows, softmax, maximum/minimum, split, reset_shape,
to_indicator and bincount: values, gradients and errors recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors

DATA = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
SP = ([[0, 0], [0, 2], [2, 1]], [1.0, -2.0, 3.0], [3, 3])


def _parts(s):
    return s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()


def test_segment_reductions():
    d = tf.constant(DATA)
    assert tf.sparse.segment_sum(d, [0, 2, 3, 1], [0, 0, 1, 3]).numpy().tolist() == \
        [[6.0, 8.0], [7.0, 8.0], [0.0, 0.0], [3.0, 4.0]]
    assert tf.sparse.segment_sum(d, [0, 2, 3, 1], [0, 0, 1, 3], num_segments=5).numpy().tolist() == \
        [[6.0, 8.0], [7.0, 8.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]
    assert tf.sparse.segment_mean(d, [0, 2, 3, 1], [0, 0, 1, 3]).numpy().tolist() == \
        [[3.0, 4.0], [7.0, 8.0], [0.0, 0.0], [3.0, 4.0]]
    np.testing.assert_allclose(tf.sparse.segment_sqrt_n(d, [0, 2, 3], [0, 0, 2], num_segments=4).numpy(),
                               [[4.242640495300293, 5.656854152679443], [0.0, 0.0], [7.0, 8.0], [0.0, 0.0]])
    y = tf.sparse.segment_sum(tf.constant([1, 2, 3]), [0, 2], [0, 0])
    assert y.dtype == tf.int32 and y.numpy().tolist() == [4]


@pytest.mark.parametrize("call, msg", [
    (lambda d: tf.sparse.segment_sum(d, [0, 1], [1, 0]), "segment ids are not increasing"),
    (lambda d: tf.sparse.segment_sum(d, [0, 9], [0, 1]), r"Bad: indices\[1\] == 9 out of range \[0, 4\)"),
    (lambda d: tf.sparse.segment_sum(d, [0, 1, 2], [0, 1]), "segment_ids and indices should have same size."),
    (lambda d: tf.sparse.segment_sum(d, [0, 1], [0, 3], num_segments=2), "segment ids must be < num_segments"),
    (lambda d: tf.sparse.segment_mean(tf.constant([1, 2, 3]), [0, 2], [0, 0]), "int32"),
])
def test_segment_errors(call, msg):
    with pytest.raises(errors.InvalidArgumentError, match=msg):
        call(tf.constant(DATA))


@pytest.mark.parametrize("fn, n, want", [
    (tf.sparse.segment_mean, 3, [[0.5, 1.0], [1.5, 2.0], [2.0, 3.0]]),
    (tf.sparse.segment_sqrt_n, None, [[0.7071067811865475, 1.414213562373095], [2.1213203435596424, 2.82842712474619],
                                      [2.82842712474619, 4.242640687119285]]),
])
def test_segment_gradients(fn, n, want):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x, [0, 2, 2, 1], [0, 0, 1, 1], num_segments=n)
        loss = tf.reduce_sum(y * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]][:3 if n else 2], tf.float64))
    np.testing.assert_allclose(tf.convert_to_tensor(t.gradient(loss, x)).numpy(), want, rtol=1e-12)


def test_segment_sum_in_tf_function():
    f = tf.function(lambda d, i, s: tf.sparse.segment_sum(d, i, s, num_segments=3))
    assert f(tf.constant(DATA), tf.constant([0, 1]), tf.constant([0, 2])).numpy().tolist() == \
        [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]


def test_eye_and_reset_shape():
    assert _parts(tf.sparse.eye(3)) == ([[0, 0], [1, 1], [2, 2]], [1.0, 1.0, 1.0], [3, 3])
    e = tf.sparse.eye(2, 4, dtype=tf.int32)
    assert _parts(e) == ([[0, 0], [1, 1]], [1, 1], [2, 4]) and e.dtype == tf.int32
    sp = tf.SparseTensor(*SP)
    assert _parts(tf.sparse.reset_shape(sp)) == (SP[0], SP[1], [3, 3])
    assert _parts(tf.sparse.reset_shape(sp, [4, 5]))[2] == [4, 5]
    with pytest.raises(ValueError, match="Requested new_shape should have dimension sizes >= sp_input.shape"):
        tf.sparse.reset_shape(sp, [2, 5])


def test_fill_empty_rows_and_gradient():
    out, empty = tf.sparse.fill_empty_rows(tf.SparseTensor(*SP), 9.0)
    assert _parts(out) == ([[0, 0], [0, 2], [1, 0], [2, 1]], [1.0, -2.0, 9.0, 3.0], [3, 3])
    assert empty.numpy().tolist() == [False, True, False]
    v = tf.constant([1.0, -2.0, 3.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(v)
        y, _ = tf.sparse.fill_empty_rows(tf.SparseTensor([[0, 0], [0, 2], [2, 1]], v, [4, 3]),
                                         tf.constant(7.0, tf.float64))
        loss = tf.reduce_sum(y.values * tf.constant([1.0, 2.0, -1.0, 3.0, 5.0], tf.float64))
    assert y.values.numpy().tolist() == [1.0, -2.0, 7.0, 3.0, 7.0]
    assert t.gradient(loss, v).numpy().tolist() == [1.0, 2.0, 3.0]


def test_softmax_and_gradient():
    y = tf.sparse.softmax(tf.SparseTensor(*SP))
    np.testing.assert_allclose(y.values.numpy(), [0.9525741338729858, 0.04742587357759476, 1.0], rtol=1e-6)
    y = tf.sparse.softmax(tf.SparseTensor([[0, 0, 0], [0, 0, 2], [1, 1, 1]], [1.0, 2.0, 3.0], [2, 2, 3]))
    np.testing.assert_allclose(y.values.numpy(), [0.2689414322376251, 0.7310585975646973, 1.0], rtol=1e-6)
    v = tf.constant([1.0, -2.0, 3.0, 0.5], tf.float64)
    with tf.GradientTape() as t:
        t.watch(v)
        y = tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 2], [1, 1], [1, 2]], v, [2, 3]))
        loss = tf.reduce_sum(y.values * tf.constant([1.0, 2.0, -1.0, 3.0], tf.float64))
    np.testing.assert_allclose(t.gradient(loss, v).numpy(),
                               [-0.04517665973091232, 0.04517665973091213, -0.2804148661804326, 0.28041486618043265],
                               rtol=1e-10)
    with pytest.raises(errors.InvalidArgumentError, match="int32 is not in the list of allowed values"):
        tf.sparse.softmax(tf.SparseTensor([[0, 0]], [1], [1, 1]))


def test_maximum_minimum():
    a, b = tf.SparseTensor(*SP), tf.SparseTensor([[0, 0], [1, 1], [2, 1]], [0.5, 4.0, 2.0], [3, 3])
    assert _parts(tf.sparse.maximum(a, b)) == ([[0, 0], [0, 2], [1, 1], [2, 1]], [1.0, 0.0, 4.0, 3.0], [3, 3])
    assert _parts(tf.sparse.minimum(a, b)) == ([[0, 0], [0, 2], [1, 1], [2, 1]], [0.5, -2.0, 0.0, 2.0], [3, 3])


def test_split():
    parts = tf.sparse.split(sp_input=tf.SparseTensor(*SP), num_split=2, axis=1)
    assert [_parts(p) for p in parts] == [([[0, 0], [2, 1]], [1.0, 3.0], [3, 2]), ([[0, 0]], [-2.0], [3, 1])]
    parts = tf.sparse.split(sp_input=tf.SparseTensor(*SP), num_split=3, axis=0)
    assert [_parts(p) for p in parts] == [([[0, 0], [0, 2]], [1.0, -2.0], [1, 3]), ([], [], [1, 3]),
                                          ([[0, 1]], [3.0], [1, 3])]


def test_to_indicator():
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]], tf.constant([0, 2, 1, 2], tf.int64), [3, 3])
    assert tf.sparse.to_indicator(ids, 4).numpy().tolist() == [[True, False, True, False], [False, True, True, False],
                                                               [False, False, False, False]]
    assert tf.sparse.to_indicator(tf.SparseTensor([[0, 0]], tf.constant([3]), [1, 2]), 4).numpy().tolist() == \
        [[False, False, False, True]]
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        tf.sparse.to_indicator(ids, 2)


@pytest.mark.parametrize("call, want", [
    (lambda: tf.sparse.bincount(tf.constant([[1, 2, 2], [0, 3, 3]])), ([[0], [1], [2], [3]], [1, 1, 2, 2], [4])),
    (lambda: tf.sparse.bincount(tf.constant([1, 2, 2, 5])), ([[1], [2], [5]], [1, 2, 1], [6])),
    (lambda: tf.sparse.bincount(tf.constant([[1, 2, 2]]), binary_output=True, minlength=4), ([[1], [2]], [1, 1], [4])),
    (lambda: tf.sparse.bincount(tf.constant([[1, 2, 2]]), weights=tf.constant([[0.5, 1.0, 2.0]])),
     ([[1], [2]], [0.5, 3.0], [3])),
    (lambda: tf.sparse.bincount(tf.SparseTensor([[0, 0], [1, 3]], tf.constant([4, 2], tf.int64), [2, 5])),
     ([[2], [4]], [1, 1], [5])),
    (lambda: tf.sparse.bincount(tf.constant([1, 2, 5]), maxlength=3), ([[1], [2]], [1, 1], [3])),
])
def test_bincount(call, want):
    assert _parts(call()) == want


def test_cross_and_cross_hashed():
    a = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    b = tf.SparseTensor([[0, 0], [1, 0]], ["d", "e"], [2, 1])
    dense = tf.constant([["f"], ["g"]])
    assert _parts(tf.sparse.cross([a, b])) == ([[0, 0], [1, 0], [1, 1]], [b"a_X_d", b"b_X_e", b"c_X_e"], [2, 2])
    assert _parts(tf.sparse.cross([a, b, dense], separator="|"))[1] == [b"a|d|f", b"b|e|g", b"c|e|g"]
    assert _parts(tf.sparse.cross([tf.SparseTensor([[0, 0]], tf.constant([3], tf.int64), [1, 1]),
                                   tf.constant([["x"]])]))[1] == [b"3_X_x"]
    assert _parts(tf.sparse.cross([tf.SparseTensor([[1, 0]], ["z"], [3, 1]), tf.constant([["p"], ["q"], ["r"]])])) \
        == ([[1, 0]], [b"z_X_q"], [3, 1])
    combos = tf.sparse.cross([tf.SparseTensor([[0, 0], [0, 1]], ["a1", "a2"], [1, 2]),
                              tf.SparseTensor([[0, 0], [0, 1]], ["b1", "b2"], [1, 2]), tf.constant([["c1", "c2"]])])
    assert combos.values.numpy().tolist()[:3] == [b"a1_X_b1_X_c1", b"a1_X_b1_X_c2", b"a1_X_b2_X_c1"]
    assert combos.dense_shape.numpy().tolist() == [1, 8]
    h = tf.sparse.cross_hashed([a, b])
    assert h.values.dtype == tf.int64
    assert h.values.numpy().tolist() == [1584069791037555375, 4171697120956746554, 1746051686049959641]
    assert tf.sparse.cross_hashed([a, b], num_buckets=10).values.numpy().tolist() == [2, 1, 1]
    assert tf.sparse.cross_hashed([a, b, dense], num_buckets=100, hash_key=7).values.numpy().tolist() == [92, 29, 14]
    ints = tf.SparseTensor([[0, 0], [0, 3]], tf.constant([5, -2], tf.int64), [1, 4])
    assert tf.sparse.cross_hashed([ints, tf.constant([["c1", "c2"]])]).values.numpy().tolist() == [
        2399806113575341727, 2055898762516316534, 6872847122214463480, 2847883015331862253]
    with pytest.raises(errors.InvalidArgumentError, match="Expected batch size 2 got 1 at dense tensor 0"):
        tf.sparse.cross([a, tf.constant([["x"]])])


def test_sampled_addmm():
    idx, vals, shp = tf.constant([[0, 0], [1, 1]]), tf.constant([0.5, 0.3]), tf.constant([2, 2])
    m1 = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    m2 = tf.constant([[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]])
    i, v, s = tf.sparse.sampled_addmm(idx, vals, shp, m1, m2)
    assert i.numpy().tolist() == [[0, 0], [1, 1]] and s.numpy().tolist() == [2, 2]
    np.testing.assert_allclose(v.numpy(), [58.5, 154.3000030517578])
    np.testing.assert_allclose(tf.sparse.sampled_addmm(idx, vals, shp, m1, m2, beta=0.5, alpha=2.0)[1].numpy(),
                               [116.25, 308.1499938964844])
    with pytest.raises(ValueError, match=r"Dense shape: \[3 2\] does not match output shape: \[2 2\]"):
        tf.sparse.sampled_addmm(idx, vals, tf.constant([3, 2]), m1, m2)
    # batched over a leading dimension (TensorFlow 2.21's own shape check fails there)
    _, v, _ = tf.sparse.sampled_addmm(tf.constant([[[0, 1]], [[1, 0]]]), tf.constant([[1.0], [2.0]]),
                                      tf.constant([2, 2, 2]), tf.stack([m1, m1]), tf.stack([m2, 2 * m2]))
    assert v.numpy().tolist() == [[65.0], [280.0]]


def test_mask_indexed_slices():
    a = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([12, 26, 37]),
                         tf.constant([40, 2]))
    m = tf.sparse.mask(a, [12, 45])
    assert m.indices.numpy().tolist() == [26, 37] and m.values.numpy().tolist() == [[3.0, 4.0], [5.0, 6.0]]
    assert m.dense_shape.numpy().tolist() == [40, 2]
    m = tf.sparse.mask(tf.IndexedSlices(tf.constant([1.0, 2.0]), tf.constant([3, 3])), [3])
    assert m.indices.numpy().tolist() == [] and m.values.numpy().tolist() == [] and m.dense_shape is None
