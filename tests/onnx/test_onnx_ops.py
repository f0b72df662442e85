"""Each supported op family: rivulet's result vs. onnxruntime's on the exported graph."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)
X = tf.constant(rng.normal(size=(3, 4)).astype(np.float32))
P = tf.constant(rng.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32))  # positive
I = tf.constant(rng.integers(-9, 9, size=(3, 4)).astype(np.int32))
J = tf.constant(np.array([[3, -2, 7, -7]] * 3, np.int32))  # nonzero divisors of both signs
B = tf.constant(rng.uniform(size=(3, 4)) > 0.5)
IMG = tf.constant(rng.normal(size=(2, 7, 6, 3)).astype(np.float32))
W = tf.constant(rng.normal(size=(3, 2, 3, 5)).astype(np.float32))

CASES = {
    "arithmetic": (lambda x, p: [x + p, x - p, x * p, x / p, -x, tf.maximum(x, p), tf.minimum(x, p),
                                 tf.pow(p, x), tf.math.squared_difference(x, p), tf.add_n([x, p, x])], X, P),
    "comparisons": (lambda x, p: [x < p, x <= p, x > p, x >= p, tf.equal(x, p), tf.not_equal(x, x)], X, P),
    "logic": (lambda b: [tf.logical_and(b, ~b), tf.logical_or(b, ~b), tf.logical_not(b)], B),
    "unary": (lambda x, p: [tf.abs(x), tf.exp(x), tf.math.log(p), tf.sqrt(p), tf.math.rsqrt(p), tf.square(x),
                            tf.floor(x), tf.math.ceil(x), tf.round(x * 3), tf.sign(x), tf.sin(x), tf.cos(x),
                            tf.math.reciprocal(p), tf.math.log1p(p), tf.math.expm1(x), tf.math.erf(x),
                            tf.math.is_finite(x / (x - x)), tf.math.is_nan(x / (x - x)),
                            tf.math.is_inf(x / (x - x))], X, P),
    "int_division": (lambda i, j: [i // j, i % j, i * j, tf.abs(i)], I, J),
    "float_division": (lambda x, p: [x // (p - 1.2), tf.math.floormod(x * 5, p - 1.2),
                                     tf.math.divide_no_nan(x, p * 0), tf.math.xlogy(x * 0, p), tf.math.xdivy(x, p)], X, P),
    "activations": (lambda x: [tf.nn.relu(x), tf.nn.relu6(x * 8), tf.nn.elu(x), tf.nn.selu(x), tf.nn.sigmoid(x),
                               tf.tanh(x), tf.nn.softplus(x), tf.nn.softsign(x), tf.nn.leaky_relu(x, 0.1),
                               tf.nn.silu(x), tf.nn.gelu(x), tf.nn.gelu(x, approximate=True),
                               tf.nn.softmax(x), tf.nn.log_softmax(x, axis=0)], X),
    "casts": (lambda x, i, b: [tf.cast(x * 3, tf.int32), tf.cast(i, tf.float32), tf.cast(b, tf.float32),
                               tf.cast(i, tf.bool), tf.cast(x, tf.float64)], X, I, B),
    "matmul": (lambda x, p: [tf.matmul(x, p, transpose_b=True), tf.matmul(x, p, transpose_a=True),
                             tf.matmul(tf.stack([x, p]), tf.stack([p, x]), transpose_b=True)], X, P),
    "int_matrix_power": (lambda i: tf.matmul(i[:3, :3], tf.matmul(i[:3, :3], tf.matmul(i[:3, :3], i[:3, :3]))), I),
    "reductions": (lambda x, b: [tf.reduce_sum(x), tf.reduce_sum(x, 1, keepdims=True), tf.reduce_mean(x, 0),
                                 tf.reduce_max(x, [0, 1]), tf.reduce_min(x, -1), tf.reduce_prod(x, 1),
                                 tf.reduce_logsumexp(x, 1), tf.reduce_all(b, 1), tf.reduce_any(b),
                                 tf.argmax(x, 1), tf.argmin(x, 0, output_type=tf.int32),
                                 tf.math.cumsum(x, 1), tf.math.cumsum(x, 0, exclusive=True, reverse=True)], X, B),
    "reshape": (lambda x: [tf.reshape(x, [-1]), tf.reshape(x, [2, 6]), tf.reshape(x, [tf.shape(x)[0], 2, -1]),
                           tf.transpose(x), tf.transpose(tf.reshape(x, [3, 2, 2]), [1, 2, 0]),
                           tf.expand_dims(x, 1), tf.squeeze(tf.reshape(x, [1, 3, 1, 4])),
                           tf.squeeze(tf.reshape(x, [1, 3, 1, 4]), [2])], X),
    "join_split": (lambda x, p: [tf.concat([x, p], 0), tf.concat([x, p, x], -1), tf.stack([x, p], 1),
                                 *tf.unstack(x), *tf.split(x, 2, 1), *tf.split(x, [1, -1, 2], 1)], X, P),
    "strided_slice": (lambda x, k: [x[1], x[-1], x[:, 1], x[1:, ::2], x[::-1], x[:, -2::-1], x[..., 2],
                                    x[tf.newaxis, 1:2, ..., tf.newaxis], x[k], x[:, k:], x[0, k],
                                    x[..., -1, tf.newaxis]],
                      X, tf.constant(1)),
    "slice_gather": (lambda x, idx: [tf.slice(x, [1, 0], [2, -1]), tf.gather(x, idx), tf.gather(x, idx, axis=1),
                                     tf.gather_nd(x, [[0, 1], [2, 3]]), tf.reverse(x, [0, 1])],
                     X, tf.constant([2, 0, 2])),
    "fill_like_range": (lambda x, n: [tf.zeros_like(x), tf.ones_like(x), tf.fill([2, 3], 7.0),
                                      tf.fill(tf.shape(x), 2.5), tf.range(n), tf.range(1.0, 3.0, 0.5),
                                      tf.ones([n, 2]), tf.broadcast_to(x[0], [2, 3, 4])], X, tf.constant(5)),
    "shape_size_rank": (lambda x: [tf.shape(x), tf.size(x), tf.rank(x), tf.shape(x, out_type=tf.int64)], X),
    "select_where_tile_pad": (lambda x, b: [tf.where(b, x, -x), tf.where(b), tf.tile(x, [2, 1]),
                                            tf.pad(x, [[1, 0], [2, 3]]), tf.pad(x, [[1, 1], [2, 2]], "REFLECT"),
                                            tf.pad(x, [[0, 1], [0, 0]], constant_values=9.0),
                                            tf.clip_by_value(x, -0.5, 0.5)], X, B),
    "one_hot": (lambda idx: [tf.one_hot(idx, 4), tf.one_hot(idx, 3, axis=0, on_value=5, off_value=-1)],
                tf.constant([0, 3, -1, 2, 9])),
    "bias_conv_pool": (lambda img, w: [tf.nn.bias_add(img, tf.constant([1.0, 2.0, 3.0])),
                                       tf.nn.conv2d(img, w, 1, "VALID"), tf.nn.conv2d(img, w, 2, "SAME"),
                                       tf.nn.conv2d(img, w, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]),
                                       tf.nn.conv2d(img, w, 1, "SAME", dilations=2),
                                       tf.nn.max_pool2d(img, 2, 2, "VALID"), tf.nn.max_pool2d(img, 3, 2, "SAME"),
                                       tf.nn.avg_pool2d(img, 2, 1, "VALID"), tf.nn.avg_pool2d(img, 3, 2, "SAME")],
                       IMG, W),
    "losses": (lambda x, p: [tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(p), x),
                             tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([0, 3, 1]), x),
                             tf.nn.sigmoid_cross_entropy_with_logits(tf.sigmoid(p), x), tf.nn.l2_loss(x),
                             tf.nn.l2_normalize(x, 1)], X, P),
    "einsum": (lambda x, p: tf.einsum("ij,kj->ik", x, p), X, P),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_family(rt, name):
    fn, *args = CASES[name]
    rt.check(tf.function(fn), *args, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [13, 15, 18, 21])
def test_opsets_that_changed_reductions_splits_and_gelu(rt, opset):
    f = tf.function(lambda x: [tf.reduce_mean(x, 1), tf.reduce_max(x), *tf.split(x, 2, 1), tf.nn.gelu(x)])
    rt.check(f, X, opset=opset, rtol=1e-5, atol=1e-5)
    assert rt.export(f.get_concrete_function(X), opset=opset)[1].model.opset_import[0].version == opset


def test_bitwise_ops_need_opset_18(rt):
    f = tf.function(lambda i, j: [tf.bitwise.bitwise_and(i, j), tf.bitwise.bitwise_or(i, j),
                                  tf.bitwise.bitwise_xor(i, j), tf.bitwise.invert(i)])
    rt.check(f, I, J, opset=18)
    report = tf.onnx.export(f.get_concrete_function(I, J), None, strict=False)
    assert len(report.problems) == 4 and "need opset 18 or later (exporting opset 17)" in str(report)


def test_unsupported_opset():
    with pytest.raises(ValueError, match="opset must be between 13 and 21"):
        tf.onnx.export(tf.function(lambda x: x).get_concrete_function(X), None, opset=12)


def test_string_tensors_pass_through(rt):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def f(s):
        return tf.concat([s, tf.constant(["x", "yy"])], 0)[::-1], tf.constant("z")
    sess, _ = rt.export(f)
    joined, z = rt.run(sess, np.array(["a", "b"], dtype=object))
    assert joined.tolist() == ["yy", "x", "b", "a"] and z.item() == "z"
