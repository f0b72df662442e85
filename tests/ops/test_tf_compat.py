"""Behaviours found by running the same snippets under TensorFlow 2.21 and rivulet: dtype rules, error types
and messages, conversions and formatting, each checked against NumPy or the rule it follows."""
import warnings

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError, UnimplementedError
from rivulet.graph.graph import Graph


def test_bool_multiply_is_logical_and():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    r = tf.constant(a) * tf.constant(b)
    assert r.dtype == tf.bool
    np.testing.assert_array_equal(r.numpy(), np.logical_and(a, b))
    with pytest.raises(InvalidArgumentError, match=r"Op:AddV2"):
        tf.constant(a) + tf.constant(b)  # addition of bools stays an error


@pytest.mark.parametrize("dt", [tf.uint8, tf.uint16, tf.uint32, tf.uint64])
def test_negating_unsigned_ints_is_an_error(dt):
    with pytest.raises(InvalidArgumentError, match=rf"(?s)attr 'T' of {dt.name} .*\[Op:Neg\]"):
        -tf.constant([1], dt)
    np.testing.assert_array_equal((-tf.constant([1, -2], tf.int8)).numpy(), [-1, 2])


def test_cast_complex_to_real_keeps_the_real_part_silently():
    z = np.array([1.5 + 2j, -3 - 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dt in (tf.float32, tf.float64, tf.int32):
            r = tf.cast(tf.constant(z), dt)
            np.testing.assert_array_equal(r.numpy(), z.real.astype(dt.as_numpy_dtype))


def test_cast_string_is_unimplemented():
    with pytest.raises(UnimplementedError, match=r"Cast string to int32 is not supported \[Op:Cast\]"):
        tf.cast(tf.constant(["1"]), tf.int32)


def test_matmul_needs_rank_two():
    v = tf.constant([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match=r"In\[0\] and In\[1\] ndims must be == 2: 1 \[Op:MatMul\]"):
        tf.matmul(v, v)
    with pytest.raises(InvalidArgumentError, match="ndims must be == 2: 1"):
        tf.ones([2, 2]) @ v
    g = Graph()
    with g.as_default(), pytest.raises(ValueError, match="rank 1"):
        tf.matmul(g.placeholder(tf.float32, [2]), g.placeholder(tf.float32, [2, 2]))
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_allclose(tf.matmul(tf.constant(a), tf.constant(b)).numpy(), np.matmul(a, b))


def test_mean_of_empty_is_nan_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(tf.reduce_mean(tf.zeros([0])).numpy())
        r = tf.reduce_mean(tf.zeros([0, 3]), axis=0)
        assert r.shape == (3,) and np.isnan(r.numpy()).all()
        assert tf.reduce_mean(tf.zeros([0, 3]), axis=1).shape == (0,)
        assert tf.reduce_mean(tf.zeros([2, 0]), axis=1, keepdims=True).shape == (2, 1)


def test_where_does_not_promote():
    c = tf.constant([True, False])
    with pytest.raises(InvalidArgumentError, match=r"input #2\(zero-based\) was expected to be a int32 tensor but "
                                                   r"is a float tensor \[Op:SelectV2\]"):
        tf.where(c, tf.constant([1, 2]), tf.constant([1.0, 2.0]))
    g = Graph()
    with g.as_default(), pytest.raises(TypeError, match="float32 that does not match type int32"):
        tf.where(c, g.placeholder(tf.int32, [2]), g.placeholder(tf.float32, [2]))
    r = tf.where(c, 1.0, tf.constant([1.5, 2.5]))  # a Python scalar takes the other operand's dtype
    assert r.dtype == tf.float32
    np.testing.assert_array_equal(r.numpy(), np.where([True, False], 1.0, [1.5, 2.5]))


def test_equality_of_unbroadcastable_shapes_is_false():
    a, b = tf.constant([1, 2]), tf.constant([1, 2, 3])
    eq, ne = a == b, a != b
    assert isinstance(eq, tf.Tensor) and eq.dtype == tf.bool and eq.shape == () and not bool(eq)
    assert isinstance(ne, tf.Tensor) and bool(ne)
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        tf.equal(a, b)  # only the operators answer False
    with pytest.raises(InvalidArgumentError, match="Incompatible shapes"):
        a < b


def test_single_dtype_ops_name_the_dtype_they_expect():
    with pytest.raises(InvalidArgumentError, match=r"^cannot compute LogicalAnd as input #0\(zero-based\) was "
                                                   r"expected to be a bool tensor but is a int32 tensor"):
        tf.logical_and(tf.constant([1]), tf.constant([0]))
    g = Graph()
    with g.as_default(), pytest.raises(TypeError, match="does not match expected type of bool"):
        tf.logical_not(g.placeholder(tf.float32, [2]))


def test_conversion_errors():
    with pytest.raises(ValueError, match="^Can't convert non-rectangular Python sequence to Tensor.$"):
        tf.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
        tf.constant(None)
    with pytest.raises(TypeError, match="^Cannot convert 'abc' to EagerTensor of dtype float$"):
        tf.constant("abc", tf.float32)
    with pytest.raises(TypeError, match="of dtype double$"):
        tf.constant("abc", tf.float64)


def test_format_uses_the_numpy_value():
    assert f"{tf.constant(1.5)}" == format(np.float32(1.5))
    assert f"{tf.constant(7)}" == "7"
    assert "{:.2f}".format(tf.constant(1.5)) == "1.50"
    assert f"{tf.constant([1.0, 2.0])}" == str(np.array([1.0, 2.0], np.float32))
    assert str(tf.constant(1.5)) == "tf.Tensor(1.5, shape=(), dtype=float32)"  # str() is unchanged


def test_inverse_and_hyperbolic_functions_at_special_points():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = np.array([2.0, -1.0, 1.0, 0.0, np.inf, np.nan], np.float32)
        for fn, ref in ((tf.math.acos, np.arccos), (tf.math.asin, np.arcsin), (tf.math.atanh, np.arctanh),
                        (tf.math.acosh, np.arccosh), (tf.math.cosh, np.cosh), (tf.math.atan, np.arctan)):
            with np.errstate(all="ignore"):
                want = ref(x)
            np.testing.assert_array_equal(fn(tf.constant(x)).numpy(), want)
        y, z = np.array([1.0, -1.0, 0.0, -0.0], np.float32), np.array([0.0, -2.0, -1.0, -1.0], np.float32)
        np.testing.assert_array_equal(tf.math.atan2(tf.constant(y), tf.constant(z)).numpy(), np.arctan2(y, z))
    np.testing.assert_array_equal(tf.math.rint(tf.constant([0.5, 1.5, -2.5, 2.7])).numpy(), [0, 2, -2, 3])
    assert tf.acos is tf.math.acos and tf.atan2 is tf.math.atan2


def test_rint_of_half_has_no_kernel():
    from rivulet.errors import NotFoundError
    with pytest.raises(NotFoundError, match=r"Rint\[T=DT_HALF\]"):
        tf.math.rint(tf.constant([1.5], tf.float16))
    with pytest.raises(InvalidArgumentError, match=r"Op:Rint"):
        tf.math.rint(tf.constant([1]))
