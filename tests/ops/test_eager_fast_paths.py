"""Eager fast paths of hot ops (tf.matmul ...): with no graph being built, no tape recording and no device
placement they skip bind()'s bookkeeping, and must give exactly what the op path gives. Values recorded with
TensorFlow 2.21."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.core import dispatch
from rivulet.ops import math_ops


@pytest.fixture
def no_bind(monkeypatch):
    """Fails any op that reaches bind(): proves the fast path was taken."""
    def refuse(op, *a, **k):
        raise AssertionError(f"{op.name} went through bind()")
    monkeypatch.setattr(math_ops, "bind", refuse)
    monkeypatch.setattr(dispatch, "execute", refuse)


def _power(x, n):
    r = tf.eye(3, dtype=tf.int32)
    for _ in range(n):
        r = tf.matmul(x, r)
    return r


X3 = [[1, 2, 0], [-1, 1, 3], [2, 0, 1]]
# TensorFlow 2.21: x**40 of X3 in int32, wrapping on overflow as TensorFlow's CPU kernel does
POW40 = [[-1457988783, 859178272, 1288767408], [859178272, -1457988783, 1288767408],
         [859178272, 859178272, -1028399647]]


def test_matmul_fast_path_int32_wraps_as_tensorflow(no_bind):
    x = tf.constant(X3)
    eye = tf.constant(np.eye(3, dtype=np.int32))
    r = eye
    for _ in range(40):
        r = tf.matmul(x, r)
    assert r.dtype == tf.int32 and r.shape == (3, 3)
    np.testing.assert_array_equal(r.numpy(), POW40)
    assert r.device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_matmul_fast_path_float_and_complex(no_bind):
    f = tf.constant([[1., 2.], [3., 4.]])
    r = tf.matmul(f, tf.constant([[0.5], [0.25]]))
    assert r.dtype == tf.float32 and r.shape == (2, 1)
    np.testing.assert_array_equal(r.numpy(), [[1.0], [2.5]])
    c = tf.constant([[1 + 2j, 0], [1j, 3]], tf.complex64)
    rc = c @ c
    assert rc.dtype == tf.complex64
    np.testing.assert_array_equal(rc.numpy(), [[-3 + 4j, 0], [-2 + 4j, 9]])
    assert repr(tf.matmul(tf.constant([[2]]), tf.constant([[3]]))) == \
        "<tf.Tensor: shape=(1, 1), dtype=int32, numpy=array([[6]], dtype=int32)>"


def test_matmul_off_the_fast_path_is_unchanged():
    x = tf.constant(X3)
    np.testing.assert_array_equal(tf.function(_power)(x, 40).numpy(), POW40)  # graph mode
    with tf.GradientTape() as tape:  # recorded on a tape
        f = tf.constant([[1., 2.], [3., 4.]])
        tape.watch(f)
        y = tf.reduce_sum(tf.matmul(f, f))
    np.testing.assert_array_equal(tape.gradient(y, f).numpy(), [[7., 11.], [9., 13.]])  # TensorFlow 2.21
    with tf.device("/CPU:0"):
        assert tf.matmul(x, x).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Matrix size-incompatible.*\[Op:MatMul\]"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"expected to be a float tensor but is a double"):
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.float64))
    with pytest.raises(TypeError, match="Expected bool for argument 'transpose_a' not 1"):
        tf.matmul(x, x, transpose_a=1)
    np.testing.assert_array_equal(tf.matmul(x, x, transpose_b=True).numpy(),
                                  np.array(X3) @ np.array(X3).T)


def test_matmul_fast_path_big_and_int64(no_bind):
    rs = np.random.default_rng(0)
    a = rs.standard_normal((64, 64)).astype(np.float32)  # 64**3: the size OpenBLAS splits, the thread policy's
    b = rs.standard_normal((64, 80)).astype(np.float32)
    r = tf.matmul(tf.constant(a), tf.constant(b))
    assert r.shape == (64, 80) and r.dtype == tf.float32
    np.testing.assert_array_equal(r.numpy(), np.matmul(a, b))
    big = tf.constant([[2 ** 40, 1], [3, -(2 ** 62)]], tf.int64)
    # TensorFlow 2.21's int64 product, wrapped
    assert tf.matmul(big, big).numpy().tolist() == [[3, -4611684918915760128], [4611689316962271232, 3]]
    e = tf.matmul(tf.zeros([0, 3], tf.int32), tf.zeros([3, 2], tf.int32))
    assert repr(e) == "<tf.Tensor: shape=(0, 2), dtype=int32, numpy=array([], shape=(0, 2), dtype=int32)>"


def test_matmul_fast_path_reads_variables(no_bind):
    v = tf.Variable([[1., 2.], [3., 4.]])
    r = tf.matmul(tf.constant([[1., 1.]]), v)  # Dense's call: inputs @ kernel
    assert r.dtype == tf.float32
    np.testing.assert_array_equal(r.numpy(), [[4., 6.]])
    np.testing.assert_array_equal(tf.matmul(v, v).numpy(), [[7., 10.], [15., 22.]])


def test_matmul_of_a_variable_under_a_tape():
    v = tf.Variable([[1., 2.], [3., 4.]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.matmul(tf.constant([[1., 1.]]), v))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[1., 1.], [1., 1.]])


def test_matmul_dtypes_as_tensorflow():
    """TensorFlow 2.21: MatMul refuses int8 and int16 (BatchMatMulV2 takes int16); unsigned types have no CPU
    kernel (NotFoundError)."""
    m = [[100, 100], [3, 25]]
    for dt in (tf.int8, tf.int16):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=rf"(?s)Value for attr 'T' of {dt.name} is not in the list of allowed values.*"
                                 r"\[Op:MatMul\]"):
            tf.matmul(tf.constant(m, dt), tf.constant(m, dt))
        with pytest.raises(TypeError, match=rf"Value for attr 'T' of {dt.name} is not in the list"):
            tf.function(lambda a: tf.matmul(a, a))(tf.constant(m, dt))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)of int8 is not in the list.*\[Op:BatchMatMulV2\]"):
        tf.matmul(tf.constant([m], tf.int8), tf.constant([m], tf.int8))
    r = tf.matmul(tf.constant([m], tf.int16), tf.constant([m], tf.int16))
    assert r.dtype == tf.int16 and r.numpy().tolist() == [[[10300, 12500], [375, 925]]]
    for dt in (tf.uint8, tf.uint16, tf.uint32, tf.uint64):
        u = tf.constant(m, dt)
        with pytest.raises(tf.errors.NotFoundError, match=rf"Could not find device for node: {{{{node MatMul}}}} "
                                                           rf"= MatMul\[T=DT_{dt.name.upper()}"):
            tf.matmul(u, u)
        with pytest.raises(tf.errors.NotFoundError, match=r"node BatchMatMulV2"):
            tf.matmul(u[None], u[None])


def test_python_lists_convert_as_tensorflow():
    """TensorFlow 2.21's dtypes for Python int lists at int32's bounds, long lists and lists of tensors."""
    cases = [([2 ** 31 - 1, -2 ** 31], "int32", (2,)), ([[1], [2 ** 31]], "int64", (2, 1)),
             ([[-2 ** 31 - 1, 0]], "int64", (1, 2)), (list(range(100)) + [2 ** 31], "int64", (101,)),
             (list(range(100)), "int32", (100,)), ([[1, 2.5]], "float32", (1, 2))]
    for value, dtype, shape in cases:
        t = tf.convert_to_tensor(value)
        assert (t.dtype.name, t.shape) == (dtype, shape), value
        np.testing.assert_array_equal(t.numpy(), np.array(value))
    x = tf.constant([1., 2.])
    packed = tf.convert_to_tensor([x, [5., 6.]])
    assert packed.dtype == tf.float32 and packed.numpy().tolist() == [[1., 2.], [5., 6.]]
    v = tf.Variable(3.)
    assert tf.convert_to_tensor([[v, 1.]]).numpy().tolist() == [[3., 1.]]


def test_tensor_and_python_number():
    x = tf.constant([1., 2.])
    for r in (x * 2, 2 * x, tf.multiply(x, 2), tf.add(1, x)):
        assert r.dtype == tf.float32
    assert (x * 2).numpy().tolist() == [2., 4.]
    i = tf.constant([1, 2])
    assert (i + 3).dtype == tf.int32
    for bad in (lambda: tf.add(i, 2.5), lambda: i + 2.5):  # TensorFlow 2.21's error
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 "
                                 r"tensor but is a float tensor \[Op:AddV2\]"):
            bad()

    @tf.function
    def f(t):
        return t * 2.0 + 1
    assert f(x).numpy().tolist() == [3., 5.]
    assert [op.type for op in f.get_concrete_function(x).graph.get_operations()] == \
        ["Placeholder", "Const", "Mul", "Const", "AddV2", "Identity"]


def test_matmul_fast_path_transposes(no_bind):
    a = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    b = tf.constant([[1., 0.], [0., 1.], [1., 1.]])
    assert tf.matmul(a, a, transpose_b=True).numpy().tolist() == [[14., 32.], [32., 77.]]  # TensorFlow 2.21
    assert tf.matmul(a, a, transpose_a=True).numpy().tolist() == [[17., 22., 27.], [22., 29., 36.],
                                                                  [27., 36., 45.]]
    assert tf.matmul(b, a, transpose_a=True, transpose_b=True).numpy().tolist() == [[4., 10.], [5., 11.]]
    i = tf.constant([[1, 2], [3, 4]])
    assert tf.matmul(i, i, transpose_a=True).numpy().tolist() == [[10, 14], [14, 20]]
