"""Inverse trig, sort/top_k, scatter, segment, roll/repeat/linspace and linalg ops: rivulet vs. onnxruntime."""
import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

rng = np.random.default_rng(1)
X = tf.constant(rng.normal(size=(3, 5)).astype(np.float32))
U = tf.constant(rng.uniform(-0.9, 0.9, size=(3, 5)).astype(np.float32))  # in (-1, 1)
G = tf.constant(rng.uniform(1.1, 3.0, size=(3, 5)).astype(np.float32))  # > 1
# Ties, NaN, infinities and signed zeros, to check orders and special values.
T = tf.constant(np.array([[1.0, np.nan, -np.inf, 1.0, 0.0, -0.0, np.inf, np.nan, -2.0, 1.0],
                          [3.0, 3.0, 3.0, -1.0, np.nan, -np.inf, -np.inf, 2.0, 0.5, 3.0]], np.float32))
TI = tf.constant(np.array([[4, 1, 4, -3, 1, 0, 4, 7], [2, 2, 2, 2, -9, 5, 5, 1]], np.int32))
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5], np.float32)
AY = tf.constant(np.repeat(SPECIAL, 8))
AX = tf.constant(np.tile(SPECIAL, 8))
SQ = tf.constant(rng.normal(size=(2, 3, 3)).astype(np.float32))
IDS = tf.constant(np.array([0, 2, 0, -1, 3, 2], np.int32))
SORTED_IDS = tf.constant(np.array([0, 0, 1, 3, 3, 3], np.int64))
D6 = tf.constant(np.array([[1.0, -2.0], [np.nan, 4.0], [5.0, 6.0], [7.0, 8.0], [-1.0, 0.5], [2.0, np.inf]],
                          np.float32))
I6 = tf.constant(rng.integers(-9, 9, size=(6, 2)).astype(np.int32))

CASES = {
    "inverse_trig_hyperbolic": (lambda u, g, x: [tf.math.asin(u), tf.math.acos(u), tf.math.atan(x),
                                                 tf.math.sinh(x), tf.math.cosh(x), tf.math.asinh(x),
                                                 tf.math.acosh(g), tf.math.atanh(u)], U, G, X),
    "euclidean_norm": (lambda x, i: [tf.math.reduce_euclidean_norm(x), tf.math.reduce_euclidean_norm(x, 1),
                                     tf.math.reduce_euclidean_norm(x, [0], keepdims=True),
                                     tf.math.reduce_euclidean_norm(i, 0)], X, TI),
    "rint_mul_no_nan": (lambda x, t: [tf.math.rint(x * 2.5), tf.math.rint(tf.constant([0.5, 1.5, 2.5, -0.5])),
                                      tf.math.multiply_no_nan(t, tf.constant(0.0)),
                                      tf.math.multiply_no_nan(x, x), tf.math.reciprocal_no_nan(x * 0)], X, T),
    "atan2": (lambda y, x: [tf.math.atan2(y, x)], AY, AX),
    "truncate": (lambda i, j, x: [tf.truncatediv(i, j), tf.truncatemod(i, j), tf.truncatediv(x * 5, x + 3),
                                  tf.truncatemod(x * 5, x + 3)],
                 tf.constant([7, -7, 7, -7, 0]), tf.constant([2, 2, -2, -2, 3]), X[0]),
    "sort_argsort_float": (lambda t: [tf.sort(t), tf.sort(t, direction="DESCENDING"), tf.argsort(t),
                                      tf.argsort(t, direction="DESCENDING"), tf.sort(t, axis=0),
                                      tf.argsort(t, axis=0, direction="DESCENDING")], T),
    "sort_argsort_int": (lambda i: [tf.sort(i), tf.argsort(i, direction="DESCENDING"), tf.argsort(i, axis=0),
                                    tf.sort(tf.cast(i, tf.uint16), direction="DESCENDING"),
                                    tf.argsort(tf.cast(i, tf.int64))], TI),
    "top_k": (lambda t, i: [*tf.math.top_k(t, 4), *tf.math.top_k(i, 3), *tf.math.top_k(t, 10),
                            *tf.math.top_k(t[:, :5], 1)], T, TI),
    "scatter_nd": (lambda u: [tf.scatter_nd(tf.constant([[1], [3], [1]]), u, [5]),
                              tf.scatter_nd(tf.constant([[0, 1], [2, 0]]), tf.constant([[1, 2], [3, 4]]), [3, 3, 2]),
                              tf.tensor_scatter_nd_update(tf.zeros([4, 2]), tf.constant([[2], [0]]),
                                                          tf.stack([u[:2], u[1:]])),
                              tf.tensor_scatter_nd_add(tf.ones([5]), tf.constant([[1], [1], [4]]), u),
                              tf.tensor_scatter_nd_sub(tf.constant([5, 6, 7], tf.uint8), tf.constant([[0], [2]]),
                                                       tf.constant([6, 1], tf.uint8))],
                   tf.constant([1.5, -2.0, 4.0])),
    "unsorted_segments": (lambda d, i, ids: [tf.math.unsorted_segment_sum(d, ids, 5),
                                             tf.math.unsorted_segment_prod(i, ids, 4),
                                             tf.math.unsorted_segment_max(d, ids, 5),
                                             tf.math.unsorted_segment_min(i, ids, 5),
                                             tf.math.unsorted_segment_mean(d, ids, 5),
                                             tf.math.unsorted_segment_sum(
                                                 tf.reshape(i, [2, 3, 2]), tf.reshape(ids, [2, 3]), 4)],
                          D6, I6, IDS),
    "sorted_segments": (lambda d, i, ids: [tf.math.segment_sum(d, ids), tf.math.segment_mean(i, ids),
                                           tf.math.segment_mean(d, ids), tf.math.segment_max(d, ids),
                                           tf.math.segment_min(i, ids), tf.math.segment_prod(d, ids)],
                        D6, I6, SORTED_IDS),
    "unique": (lambda i: [*tf.unique(i), *tf.unique(tf.cast(i, tf.int64), out_idx=tf.int64),
                          *tf.unique(tf.cast(i, tf.uint8)), *tf.unique(i > 0)], tf.constant([3, 1, 3, -2, 1, 0, 0, 7])),
    "roll_repeat": (lambda x, r: [tf.roll(x, 2, 1), tf.roll(x, [-1, 7, 1], [0, 1, 1]), tf.roll(x, 0, 0),
                                  tf.repeat(x, 2, axis=0), tf.repeat(x, tf.constant([1, 0, 3, -1, 2]), axis=1),
                                  tf.repeat(x, r, axis=0), tf.repeat(x[0], 3)], X, tf.constant([2, 0, 1])),
    "linspace": (lambda a, b: [tf.linspace(0.0, 1.0, 7), tf.linspace(a, b, 4), tf.linspace(a, b, 3, axis=1),
                               tf.linspace(a[0], b[0], 1), tf.linspace(a, b, 0), tf.linspace(2, 9, 5),
                               tf.linspace(tf.constant(1e-45), tf.constant(2e-45), 3)],
                 tf.constant([1.0, -2.0, 3.0]), tf.constant([[2.0, 5.0, 3.0], [0.0, 1.0, -4.0]])),
    "linalg": (lambda m: [tf.linalg.det(m), tf.linalg.band_part(m, -1, 0), tf.linalg.band_part(m, 0, -1),
                          tf.linalg.band_part(m, 0, 0), tf.linalg.band_part(m, 1, 0), tf.linalg.band_part(m, -1, -1),
                          tf.einsum("bij,bjk->bik", m, m)], SQ),
}


OPSET = {"sorted_segments": 18, "unsorted_segments": 18}  # ScatterND's max/min reductions


@pytest.mark.parametrize("name", sorted(CASES))
def test_new_op_family(rt, name):
    fn, *args = CASES[name]
    rt.check(tf.function(fn), *args, rtol=1e-5, atol=1e-6, opset=OPSET.get(name, 17))


@pytest.mark.parametrize("opset", [13, 14])
def test_band_part_mask_before_trilu_and_with_run_time_bounds(rt, opset):
    f = tf.function(lambda m, lo, up: [tf.linalg.band_part(m, lo, up), tf.linalg.band_part(m, 1, 0)])
    for lo, up in [(-1, 0), (0, 2), (1, -1)]:
        rt.check(f, SQ, tf.constant(lo), tf.constant(up), opset=opset)


def test_run_time_sizes(rt):
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, k):
        return [*tf.math.top_k(x, k), tf.roll(x, 3, 1), tf.repeat(x, 2, axis=1), tf.linspace(0.0, 1.0, k),
                tf.sort(x), tf.math.unsorted_segment_sum(x, tf.constant([1, 0]), k + 2)]
    sess, _ = rt.export(f)
    for shape, k in [((2, 5), 3), ((2, 1), 1), ((2, 4), 0)]:
        x = rng.normal(size=shape).astype(np.float32)
        got = rt.run(sess, x, np.int32(k))
        want = [np.asarray(t) for t in f(tf.constant(x), tf.constant(k))]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_scatter_reductions_need_opset_16_and_18():
    f = tf.function(lambda d, i, ids: [tf.scatter_nd(tf.constant([[1]]), d[:1, 0], [3]),
                                       tf.math.unsorted_segment_sum(d, ids, 5),
                                       tf.math.unsorted_segment_max(i, ids, 5),
                                       tf.tensor_scatter_nd_update(d, tf.constant([[0]]), d[1:2])])
    cf = f.get_concrete_function(D6, I6, IDS)
    report = tf.onnx.export(cf, None, opset=15, strict=False)
    assert [p.op_type for p in report.problems] == ["ScatterNd", "UnsortedSegmentSum", "UnsortedSegmentMax"]
    assert "needs opset 16 or later (exporting opset 15)" in report.problems[0].reason
    assert "needs opset 18 or later" in tf.onnx.export(cf, None, opset=17, strict=False).problems[0].reason
    assert not tf.onnx.export(cf, None, opset=18, strict=False).problems


def test_what_stays_unsupported():
    f = tf.function(lambda x, m: [tf.math.cumprod(x), tf.unique(x[0])[0], tf.linalg.inv(m),
                                  tf.searchsorted(tf.sort(x), x)])
    report = tf.onnx.export(f.get_concrete_function(X, SQ), None, strict=False)
    assert sorted(p.op_type for p in report.problems) == ["Cumprod", "LowerBound", "MatrixInverse", "Unique"]
    assert "NaN" in next(p.reason for p in report.problems if p.op_type == "Unique")


def test_float64_exports_to_the_onnx_types(rt):
    # onnxruntime's CPU provider has no double kernels for these; the model is still valid ONNX.
    import onnx
    f = tf.function(lambda x: [tf.math.asinh(x), tf.linalg.det(tf.reshape(x[:4], [2, 2]))])
    report = tf.onnx.export(f.get_concrete_function(tf.constant(np.arange(5.0))), None)
    onnx.checker.check_model(report.model, full_check=True)


def test_unique_strings(rt):
    f = tf.function(lambda s: list(tf.unique(s)))
    sess, _ = rt.export(f.get_concrete_function(tf.constant(["b", "a", "b", "c", "a"])))
    y, idx = rt.run(sess, np.array(["b", "a", "b", "c", "a"], dtype=object))
    assert y.tolist() == ["b", "a", "c"] and idx.tolist() == [0, 1, 0, 2, 1]


def test_atan2_signs_of_zero(rt):
    f = tf.function(lambda y, x: tf.math.atan2(y, x))
    sess, _ = rt.export(f.get_concrete_function(AY, AX))
    (got,) = rt.run(sess, AY, AX)
    want = np.arctan2(np.asarray(AY), np.asarray(AX))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gradients_through_sort_top_k_and_segments(rt):
    @tf.function
    def f(x, ids):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = (tf.reduce_sum(tf.sort(x) * tf.range(5.0)) + tf.reduce_sum(tf.math.top_k(x, 2).values ** 2)
                 + tf.reduce_sum(tf.math.unsorted_segment_mean(x, ids, 4) ** 2)
                 + tf.reduce_sum(tf.math.segment_sum(x, tf.constant([0, 0, 2])) ** 2))
        return y, tape.gradient(y, x)
    rt.check(f, X[:3], tf.constant([1, -1, 1]), rtol=1e-5, atol=1e-5)
