"""tf.bitwise and the integer `~ & | ^` operators."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
BINARY = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def _ints(shape, dt, seed):
    info = np.iinfo(dt)
    return np.random.default_rng(seed).integers(info.min, info.max, shape, dtype=dt, endpoint=True)


@pytest.mark.parametrize("dt", INTS, ids=lambda d: np.dtype(d).name)
def test_bitwise_binary_and_invert(dt):
    for sx, sy in (((), ()), ((5,), (5,)), ((2, 3), (3,)), ((2, 1), (1, 4))):
        x, y = _ints(sx, dt, 1), _ints(sy, dt, 2)
        for name, ref in BINARY.items():
            z = getattr(tf.bitwise, name)(tf.constant(x), tf.constant(y))
            assert z.dtype == tf.as_dtype(dt) and z.shape == np.broadcast_shapes(sx, sy)
            np.testing.assert_array_equal(z.numpy(), ref(x, y))
        inv = tf.bitwise.invert(tf.constant(x))
        assert inv.dtype == tf.as_dtype(dt)
        np.testing.assert_array_equal(inv.numpy(), np.invert(x))


def test_shifts_clamp_like_tensorflow():
    # TensorFlow clamps the shift amount to [0, bits - 1].
    y = tf.bitwise.left_shift(tf.constant([1, 1, 1, -1], tf.int8), tf.constant([3, 7, 9, 2], tf.int8))
    np.testing.assert_array_equal(y.numpy(), [8, -128, -128, -4])
    y = tf.bitwise.right_shift(tf.constant([-8, 8, 8, -8], tf.int8), tf.constant([1, 9, -1, 10], tf.int8))
    np.testing.assert_array_equal(y.numpy(), [-4, 0, 8, -1])
    assert tf.bitwise.left_shift(tf.constant([1]), tf.constant([33])).numpy()[0] == -2 ** 31
    assert tf.bitwise.left_shift(tf.constant([1], tf.uint8), tf.constant([200], tf.uint8)).numpy()[0] == 128
    assert tf.bitwise.right_shift(tf.constant([255], tf.uint8), tf.constant([200], tf.uint8)).numpy()[0] == 1
    for dt in INTS:
        x = _ints((6,), dt, 3)
        s = np.arange(6).astype(dt)
        np.testing.assert_array_equal(tf.bitwise.left_shift(x, s).numpy(), np.left_shift(x, s))
        np.testing.assert_array_equal(tf.bitwise.right_shift(x, s).numpy(), np.right_shift(x, s))


def test_operators_on_integer_tensors():
    x = tf.constant([1, 2, 6])
    np.testing.assert_array_equal((~x).numpy(), [-2, -3, -7])
    np.testing.assert_array_equal((x & 3).numpy(), [1, 2, 2])
    np.testing.assert_array_equal((3 | x).numpy(), [3, 3, 7])
    np.testing.assert_array_equal((x ^ tf.constant([1, 1, 1])).numpy(), [0, 3, 7])
    assert (x & 3).dtype == tf.int32


def test_bitwise_errors():
    with pytest.raises(InvalidArgumentError, match="Invert"):
        tf.bitwise.invert(tf.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match="BitwiseAnd"):
        tf.bitwise.bitwise_and(tf.constant([True]), tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.bitwise.bitwise_or(tf.constant([1, 3]), tf.constant([3, 4, 5]))
    with pytest.raises(InvalidArgumentError, match="input #1\\(zero-based\\) was expected to be a int32 tensor but is a "
                                                   "int64 tensor"):
        tf.bitwise.bitwise_xor(tf.constant([1, 3]), tf.constant([3, 4], tf.int64))


def test_bitwise_graph_shapes():
    g = Graph()
    with g.as_default():
        a = g.placeholder(tf.int32, [None, 3])
        ys = [tf.bitwise.invert(a), tf.bitwise.bitwise_and(a, 1), tf.bitwise.left_shift(a, g.placeholder(tf.int32, [3])),
              a | a]
        with pytest.raises(TypeError):
            tf.bitwise.invert(g.placeholder(tf.float32, [2]))
    for y in ys:
        assert y.shape.as_list() == [None, 3] and y.dtype == tf.int32
