"""float16 MatMul, BatchMatMul and Conv2D (and their fused forms in compiled graphs, the paths a
mixed_float16 Keras model runs) as TensorFlow 2.21's CPU kernels compute them: products summed in float32 and
rounded once to float16. Values recorded with TensorFlow 2.21 on these inputs."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import blas_threads

f16 = np.float16
A = (np.arange(24).reshape(4, 6) / 7 - 1.3).astype(f16)
B = (np.arange(18).reshape(6, 3) / 9 + 0.1).astype(f16)
X = (np.arange(1 * 5 * 5 * 3).reshape(1, 5, 5, 3) / 13 - 2.2).astype(f16)
W = (np.arange(3 * 3 * 3 * 2).reshape(3, 3, 3, 2) / 17 - 0.7).astype(f16)
BIAS = np.array([0.3, -2.5], f16)

MM = [[-4.4453125, -5.078125, -5.703125], [0.353515625, 0.29638671875, 0.2391357421875],
      [5.15234375, 5.66796875, 6.18359375], [9.953125, 11.0390625, 12.125]]
BMM = [[[[-3.94140625, -4.59765625], [-2.109375, -2.47265625], [-0.2763671875, -0.34912109375]],
        [[-9.1796875, -9.8359375], [-5.015625, -5.3828125], [-0.8583984375, -0.9306640625]],
        [[-14.421875, -15.0703125], [-7.9296875, -8.2890625], [-1.4404296875, -1.5126953125]]],
       [[[1.556640625, 1.7744140625], [3.388671875, 3.8984375], [5.22265625, 6.0234375]],
        [[3.30078125, 3.51953125], [7.4609375, 7.96875], [11.6171875, 12.421875]],
        [[5.05078125, 5.265625], [11.5390625, 12.0390625], [18.03125, 18.828125]]]]
CONV_SAME = [[[[-22.375, -23.390625], [-25.59375, -26.984375], [-19.9375, -21.09375], [-14.3046875, -15.203125],
               [-6.49609375, -7.015625]],
              [[-0.3251953125, -1.2275390625], [7.08203125, 5.91015625], [12.25, 11.4453125],
               [17.421875, 16.984375], [13.234375, 13.0625]],
              [[20.5625, 20.890625], [32.90625, 33.59375], [38.09375, 39.125], [43.25, 44.65625],
               [26.796875, 27.84375]],
              [[41.46875, 43.0], [58.75, 61.25], [63.9375, 66.8125], [69.125, 72.3125], [40.375, 42.625]],
              [[15.59375, 17.03125], [18.171875, 20.4375], [19.421875, 21.9375], [20.671875, 23.421875],
               [8.0234375, 9.9375]]]]
CONV_VALID2 = [[[[7.08203125, 5.91015625], [17.421875, 16.984375]], [[58.75, 61.25], [69.125, 72.3125]]]]
FUSED_CONV = [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
               [[0.0, 0.0], [7.3828125, 3.41015625], [12.546875, 8.9453125], [17.71875, 14.484375],
                [13.53125, 10.5625]],
               [[20.859375, 18.390625], [33.21875, 31.09375], [38.40625, 36.625], [43.5625, 42.15625],
                [27.09375, 25.34375]],
               [[41.78125, 40.5], [59.0625, 58.75], [64.25, 64.3125], [69.4375, 69.8125], [40.6875, 40.125]],
               [[15.890625, 14.53125], [18.46875, 17.9375], [19.71875, 19.4375], [20.96875, 20.921875],
                [8.3203125, 7.4375]]]]
FUSED_DENSE = [[0.0, 0.0], [0.6533203125, 0.0], [5.453125, 3.16796875], [10.25, 8.5390625]]


def _eq(t, want):
    assert t.dtype == tf.float16
    np.testing.assert_array_equal(t.numpy(), np.array(want, f16))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf_function"])
def test_values_as_tensorflow(traced):
    def run(fn, *args):
        return tf.function(fn)(*args) if traced else fn(*args)
    _eq(run(tf.matmul, A, B), MM)
    _eq(run(lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), B, A), np.array(MM).T)
    ba = (np.arange(2 * 3 * 4).reshape(2, 1, 3, 4) / 5 - 2.1).astype(f16)
    bb = (np.arange(3 * 4 * 2).reshape(3, 4, 2) / 11 + 0.3).astype(f16)
    _eq(run(tf.matmul, ba, bb), BMM)
    _eq(run(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), X, W), CONV_SAME)
    _eq(run(lambda x, w: tf.nn.conv2d(x, w, 2, "VALID"), X, W), CONV_VALID2)


def test_fused_bias_relu_round_the_product_first():
    """Conv2D/MatMul + bias + ReLU fused in a compiled graph: the product rounded to float16, then the bias
    added in float16, as TensorFlow's separate float16 ops do."""
    @tf.function
    def fused(x, w, bias):
        return (tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), bias)),
                tf.nn.relu(tf.matmul(A, B[:, :2]) + bias))
    c, d = fused(X, W, BIAS)
    _eq(c, FUSED_CONV)
    _eq(d, FUSED_DENSE)


def test_half_products_run_as_float32_gemms(monkeypatch):
    """No float16 GEMM reaches NumPy (it has no half BLAS: its loops ran ~200x slower than float32's)."""
    seen = []
    real = blas_threads.matmul

    def spy(a, b):
        seen.append((a.dtype, b.dtype))
        return real(a, b)
    monkeypatch.setattr(blas_threads, "matmul", spy)
    tf.matmul(A, B)
    tf.matmul(A[None], B[None])
    assert seen == [(np.float32, np.float32)] * 2
