"""tf.math.cumulative_logsumexp, invert_permutation, nextafter, polyval, lbeta, is_non_decreasing,
is_strictly_increasing, zero_fraction (tf.nn's too), accumulate_n: values and errors recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet import errors


def test_polyval():
    np.testing.assert_allclose(tf.math.polyval([1.0, 2.0, 3.0], tf.constant([0.5, 2.0])).numpy(), [4.25, 11.0])
    y = tf.math.polyval([1, 2, 3], tf.constant([1, 2]))
    assert y.dtype == tf.int32 and y.numpy().tolist() == [6, 11]
    y = tf.math.polyval([], tf.constant([1.5, 2.0]))
    assert y.dtype == tf.float32 and y.numpy().tolist() == [0.0, 0.0]
    y = tf.math.polyval([tf.constant([1.0, 2.0]), 3.0], tf.constant([[2.0], [3.0]]))
    assert y.numpy().tolist() == [[5.0, 7.0], [6.0, 9.0]]
    with pytest.raises(ValueError, match="Argument coeffs must be list type. Received type <class 'tuple'>."):
        tf.math.polyval((1.0, 2.0), 1.0)


def test_lbeta():
    np.testing.assert_allclose(tf.math.lbeta(tf.constant([[1.0, 2.0, 3.0], [0.5, 0.5, 1.0]])).numpy(),
                               [-4.0943446, 1.1447299], rtol=1e-6)
    assert tf.math.lbeta(tf.zeros([2, 0])).numpy().tolist() == [-np.inf, -np.inf]
    np.testing.assert_allclose(tf.math.lbeta([3.0, 4.0]).numpy(), -4.0943446, rtol=1e-6)
    with pytest.raises(errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.math.lbeta(3.0)
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.math.lbeta([3, 4])


def test_cumulative_logsumexp_values():
    y = tf.math.cumulative_logsumexp(tf.constant([0.0, 1.0, 2.0, -np.inf, 700.0]))
    np.testing.assert_allclose(y.numpy(), [0.0, 1.3132617, 2.4076061, 2.4076061, 700.0], rtol=1e-6)
    y = tf.math.cumulative_logsumexp(tf.constant([0.0, 1.0, 2.0]), exclusive=True)
    np.testing.assert_allclose(y.numpy(), [-np.inf, 0.0, 1.3132617], rtol=1e-6)
    y = tf.math.cumulative_logsumexp(tf.constant([[0.0, 1.0, 2.0]]), axis=1, reverse=True)
    np.testing.assert_allclose(y.numpy(), [[2.4076061, 2.3132617, 2.0]], rtol=1e-6)
    y = tf.math.cumulative_logsumexp(tf.constant([[0.0, 1.0, 2.0]], tf.float64), axis=-1, reverse=True,
                                     exclusive=True)
    np.testing.assert_allclose(y.numpy(), [[2.31326169, 2.0, -np.inf]], rtol=1e-8)
    y = tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0], tf.float16))
    assert y.dtype == tf.float16 and y.numpy().tolist() == [1.0, np.float16(2.312)]
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.math.cumulative_logsumexp(tf.constant([1, 2]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"ScanOp: Expected scan axis in the range \[-1, 1\), but got 1"):
        tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0]), axis=1)


@pytest.mark.parametrize("reverse, exclusive, want", [
    (False, True, [-1.06534159, 0.20855048, 2.3567911, 0.0]),
    (True, False, [0.15844471, -0.04866634, -0.53709101, 2.92731264]),
])
def test_cumulative_logsumexp_gradient(reverse, exclusive, want):
    x = tf.constant([0.5, -1.0, 2.0, 0.0], tf.float64)
    w = tf.constant([1.0, -2.0, 0.5, 3.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        loss = tf.reduce_sum(tf.math.cumulative_logsumexp(x, exclusive=exclusive, reverse=reverse) * w)
    np.testing.assert_allclose(t.gradient(loss, x).numpy(), want, rtol=1e-7)


def test_cumulative_logsumexp_in_tf_function():
    f = tf.function(lambda v: tf.math.cumulative_logsumexp(v, axis=1))
    x = tf.constant([[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_allclose(f(x).numpy(), np.logaddexp.accumulate(x.numpy(), axis=1), rtol=1e-6)


def test_monotonic():
    assert tf.math.is_non_decreasing([1, 1, 2]).numpy()
    assert not tf.math.is_non_decreasing([[1, 3], [2, 4]]).numpy()
    assert not tf.math.is_strictly_increasing([1, 1, 2]).numpy()
    assert tf.math.is_strictly_increasing([]).numpy()
    with pytest.raises(TypeError, match="Expected x to be numeric, instead found: tf.Tensor"):
        tf.math.is_strictly_increasing(["a", "b"])


def test_invert_permutation():
    y = tf.math.invert_permutation([3, 4, 0, 2, 1])
    assert y.dtype == tf.int32 and y.numpy().tolist() == [2, 4, 3, 0, 1]
    y = tf.math.invert_permutation(tf.constant([1, 0], tf.int64))
    assert y.dtype == tf.int64 and y.numpy().tolist() == [1, 0]
    for bad, msg in [([0, 0], "0 is duplicated in the input."), ([0, 5], "5 is not between 0 and 2"),
                     ([0, -1], "-1 is not between 0 and 2"), ([[0, 1]], "invert_permutation expects a 1D vector.")]:
        with pytest.raises(errors.InvalidArgumentError, match=msg):
            tf.math.invert_permutation(bad)
    with pytest.raises(errors.InvalidArgumentError, match="float"):
        tf.math.invert_permutation([0.0, 1.0])
    f = tf.function(tf.math.invert_permutation, input_signature=[tf.TensorSpec([None], tf.int32)])
    assert f(tf.constant([2, 0, 1])).numpy().tolist() == [1, 2, 0]


def test_nextafter():
    y = tf.math.nextafter(tf.constant([1.0, 0.0, 0.0, np.nan, 1.0]), tf.constant([2.0, 1.0, -1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(y.numpy(), np.array([1.0000001, 1.4e-45, -1.4e-45, np.nan, 1.0], np.float32))
    y = tf.math.nextafter(tf.constant([1.0, 0.0], tf.float64), tf.constant(2.0, tf.float64))
    assert y.numpy().tolist() == [1.0000000000000002, 5e-324]
    assert tf.math.nextafter(1.0, 2.0).numpy() == np.float32(1.0000001)
    with pytest.raises(errors.InvalidArgumentError, match="float16"):
        tf.math.nextafter(tf.constant([1.0], tf.float16), tf.constant(2.0, tf.float16))


def test_zero_fraction():
    y = tf.math.zero_fraction(tf.constant([[0, 1], [2, 0], [0, 0]]))
    assert y.dtype == tf.float32 and y.numpy() == np.float32(0.6666667)
    assert np.isnan(tf.math.zero_fraction(tf.zeros([0])).numpy())
    assert tf.math.zero_fraction(tf.constant([True, False])).numpy() == 0.5
    assert tf.nn.zero_fraction([0.0, 1.0, -0.0]).numpy() == np.float32(0.6666667)


def test_accumulate_n():
    y = tf.math.accumulate_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])
    assert y.numpy().tolist() == [4.0, 6.0]
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are not compatible"):
        tf.math.accumulate_n([tf.constant([1.0, 2.0])], shape=[3])
    with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor"):
        tf.math.accumulate_n([])
    with pytest.raises(TypeError, match="The `tensor_dtype` argument is <dtype: 'float64'>, but `input` is of type "
                                        "<dtype: 'float32'>"):
        tf.math.accumulate_n([tf.constant([1.0])], tensor_dtype=tf.float64)


def test_approx_max_k_is_the_exact_top_k_of_the_last_axis():
    x = tf.constant([[1.0, 5.0, 3.0, 5.0], [4.0, 2.0, 6.0, -1.0]])
    r = tf.math.approx_max_k(x, 2)
    assert type(r).__name__ == "ApproxTopK"
    assert r.values.numpy().tolist() == [[5.0, 5.0], [6.0, 4.0]] and r.indices.numpy().tolist() == [[1, 3], [2, 0]]
    assert r.indices.dtype == tf.int32
    r = tf.math.approx_max_k(tf.reshape(tf.range(24.0), [2, 3, 4]), 2)
    assert r.indices.numpy().tolist() == [[[3, 2]] * 3] * 2
    r = tf.math.approx_max_k(tf.constant([[1, 5, 3]], tf.float16), 2)
    assert r.values.dtype == tf.float16 and r.values.numpy().tolist() == [[5.0, 3.0]]
    r = tf.nn.approx_max_k(tf.constant([[1.0, np.nan, 3.0, np.inf, -np.inf]]), 4)
    np.testing.assert_array_equal(r.values.numpy(), [[np.nan, np.inf, 3.0, 1.0]])
    assert r.indices.numpy().tolist() == [[1, 3, 2, 0]]
    with pytest.raises(errors.InvalidArgumentError, match="input must have at least k columns. Had 4, needed 5"):
        tf.math.approx_max_k(x, 5)
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        tf.math.approx_max_k(tf.constant([[1, 5, 3]]), 2)


def test_approx_top_k_without_a_cpu_kernel():
    x = tf.constant([[1.0, 5.0], [4.0, 2.0]])
    with pytest.raises(errors.NotFoundError, match="is_max_k=false, k=1, recall_target=0.95, reduction_dimension=-1"):
        tf.math.approx_min_k(x, 1)
    with pytest.raises(errors.NotFoundError, match="is_max_k=true, k=1, recall_target=0.95, reduction_dimension=0"):
        tf.math.approx_max_k(x, 1, reduction_dimension=0)
