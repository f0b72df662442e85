"""Sort/top_k, segment reductions, unique, searchsorted, scatter ops, and the roll/repeat/linspace/meshgrid and
tf.math additions (count_nonzero, reduce_euclidean_norm, clip_by_norm, *_no_nan, lgamma, digamma): NumPy
references over shapes and dtypes, TensorFlow's errors, graph-mode shapes, and finite-difference gradients."""
import math

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.ops import array_ops as A
from rivulet.ops import math_ops as M
from rivulet.ops import sort_segment_ops as S

from .gradcheck import check_fn_grad, check_op_grad

RNG = np.random.default_rng(7)
REAL_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8]


def sample(shape, dtype, lo=-4, hi=5):
    x = RNG.integers(lo, hi, shape) if np.dtype(dtype).kind in "iu" else RNG.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    return np.asarray(x).astype(dtype)


def stable_desc(x, axis=-1):
    """Reference descending order with ties by lower index, from dense ranks (no negation of the values)."""
    if x.size == 0:
        return np.zeros(x.shape, np.int64)

    def row(r):
        rank = np.unique(r, return_inverse=True)[1].reshape(-1)
        return np.array(sorted(range(len(r)), key=lambda i: (-rank[i], i)), dtype=np.int64)
    return np.apply_along_axis(row, axis, x)


# ---------------------------------------------------------------- sort / argsort / top_k
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((3, 5), 0), ((3, 5), 1), ((2, 3, 4), 1), ((2, 0, 3), -1)])
def test_sort_argsort_match_numpy(dtype, shape, axis):
    x = sample(shape, dtype)
    asc = tf.argsort(x, axis=axis)
    assert asc.dtype is tf.int32
    np.testing.assert_array_equal(asc.numpy(), np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_array_equal(tf.sort(x, axis=axis).numpy(), np.sort(x, axis=axis))
    desc = tf.argsort(x, axis=axis, direction="DESCENDING").numpy()
    np.testing.assert_array_equal(desc, stable_desc(x, axis))
    np.testing.assert_array_equal(tf.sort(x, axis=axis, direction="DESCENDING").numpy(),
                                  np.take_along_axis(x, desc, axis))
    assert tf.sort(x, axis=axis).dtype is tf.as_dtype(dtype)


def test_ties_keep_lower_index_first_both_directions():
    x = np.array([3, 1, 3, 1, 2])
    assert tf.argsort(x).numpy().tolist() == [1, 3, 4, 0, 2]
    assert tf.argsort(x, direction="DESCENDING").numpy().tolist() == [0, 2, 4, 1, 3]
    big = np.array([np.iinfo(np.int32).min, 5, np.iinfo(np.int32).max], np.int32)  # no overflow from negation
    assert tf.sort(big, direction="DESCENDING").numpy().tolist() == big[::-1].tolist()


def test_nan_is_last_when_ascending_and_smallest_for_top_k():
    x = np.array([3., np.nan, 1.], np.float32)
    np.testing.assert_array_equal(tf.sort(x).numpy(), [1., 3., np.nan])
    r = tf.math.top_k(x[::-1].copy(), k=3)  # [1, nan, 3]
    np.testing.assert_array_equal(r.values.numpy(), [3., 1., np.nan])
    assert r.indices.numpy().tolist() == [2, 0, 1]


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("shape,k", [((6,), 3), ((4, 5), 5), ((2, 3, 4), 1), ((3, 4), 0)])
def test_top_k_matches_reference(dtype, shape, k):
    x = sample(shape, dtype)
    r = tf.math.top_k(x, k=k)
    assert isinstance(r, tuple) and r._fields == ("values", "indices")
    order = stable_desc(x)[..., :k]
    np.testing.assert_array_equal(r.indices.numpy(), order)
    np.testing.assert_array_equal(r.values.numpy(), np.take_along_axis(x, order, -1))
    assert r.indices.dtype is tf.int32 and r.values.dtype is tf.as_dtype(dtype)
    values, indices = tf.nn.top_k(x, k)  # tf.nn has it too; unpacks as a pair
    np.testing.assert_array_equal(indices.numpy(), order)


def test_sort_top_k_errors():
    with pytest.raises(InvalidArgumentError, match="at least k columns. Had 2, needed 3"):
        tf.math.top_k([1., 3.], k=3)
    with pytest.raises(InvalidArgumentError, match="Need k >= 0, got -1"):
        tf.math.top_k([1., 3.], k=-1)
    with pytest.raises(InvalidArgumentError, match=">= 1-D"):
        tf.math.top_k(3., k=1)
    with pytest.raises(InvalidArgumentError, match="bool"):
        tf.math.top_k([True, False], k=1)
    with pytest.raises(ValueError, match="direction"):
        tf.sort([3., 1.], direction="UP")
    with pytest.raises(InvalidArgumentError, match="axis 1 is out of range"):
        tf.sort([3., 1.], axis=1)
    with pytest.raises(InvalidArgumentError, match="string"):
        tf.argsort(["b", "a"])
    with pytest.raises(InvalidArgumentError, match="complex"):
        tf.sort([1j, 2j])


def test_sort_top_k_in_graph_with_unknown_dims():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, k):
        s = tf.sort(x, axis=0, direction="DESCENDING")
        a = tf.argsort(x)
        t2 = tf.math.top_k(x, k=2)
        tk = tf.math.top_k(x, k=k)
        assert s.shape.as_list() == [None, None] and a.shape.as_list() == [None, None]
        assert t2.values.shape.as_list() == [None, 2] and tk.indices.shape.as_list() == [None, None]
        return s, a, t2.indices, tk.values

    x = sample((4, 5), np.float32)
    s, a, i2, vk = f(x, 3)
    np.testing.assert_array_equal(s.numpy(), -np.sort(-x, axis=0))
    np.testing.assert_array_equal(a.numpy(), np.argsort(x, axis=-1, kind="stable"))
    np.testing.assert_array_equal(i2.numpy(), stable_desc(x)[:, :2])
    np.testing.assert_array_equal(vk.numpy(), -np.sort(-x, axis=-1)[:, :3])
    with pytest.raises(InvalidArgumentError, match="needed 9"):
        f(x, 9)

    @tf.function(input_signature=[tf.TensorSpec([3, 2], tf.float32)])
    def bad(x):
        return tf.math.top_k(x, k=3)

    with pytest.raises(ValueError, match="Had 2, needed 3"):
        bad.get_concrete_function()


def test_sort_top_k_gradients():
    x = RNG.standard_normal((3, 5))
    check_op_grad(S.SORT, [x], {"axis": 0, "descending": False})
    check_op_grad(S.SORT, [x], {"axis": 1, "descending": True})
    check_op_grad(S.TOP_K, [x], {"k": 2, "sorted": True})
    check_fn_grad(lambda t: tf.sort(t, axis=-1) * tf.math.top_k(t, k=5).values, [x])


# ---------------------------------------------------------------- segment reductions
def seg_ref(data, ids, num, kind, sorted_):
    out_shape = (num,) + data.shape[ids.ndim:]
    flat_d = data.reshape((-1,) + data.shape[ids.ndim:])
    flat_i = ids.reshape(-1)
    out = np.zeros(out_shape, data.dtype)
    for s in range(num):
        rows = flat_d[flat_i == s]
        if rows.shape[0] == 0:
            if kind == "prod":
                out[s] = 1
            elif kind in ("max", "min") and not sorted_:
                info = np.finfo if data.dtype.kind == "f" else np.iinfo
                out[s] = info(data.dtype).min if kind == "max" else info(data.dtype).max  # TF: finite, not inf
            continue
        if kind == "sum":
            out[s] = rows.sum(0)
        elif kind == "prod":
            out[s] = rows.prod(0)
        elif kind == "max":
            out[s] = rows.max(0)
        elif kind == "min":
            out[s] = rows.min(0)
        else:
            t = rows.sum(0, dtype=np.int64 if data.dtype.kind in "iu" else data.dtype)
            out[s] = np.trunc(t / rows.shape[0]) if data.dtype.kind in "iu" else t / rows.shape[0]
    return out


SORTED = {"sum": tf.math.segment_sum, "mean": tf.math.segment_mean, "max": tf.math.segment_max,
          "min": tf.math.segment_min, "prod": tf.math.segment_prod}
UNSORTED = {"sum": tf.math.unsorted_segment_sum, "max": tf.math.unsorted_segment_max,
            "min": tf.math.unsorted_segment_min, "prod": tf.math.unsorted_segment_prod}


@pytest.mark.parametrize("kind", list(SORTED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(6,), (6, 3), (6, 2, 2)])
def test_sorted_segments_match_reference(kind, dtype, shape):
    data = sample(shape, dtype, -3, 4)
    ids = np.array([0, 0, 2, 2, 2, 5], np.int32)  # segments 1, 3 and 4 are empty
    got = SORTED[kind](data, ids)
    ref = seg_ref(data, ids, 6, kind, True)
    assert got.dtype is tf.as_dtype(dtype) and got.shape == ref.shape
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)


@pytest.mark.parametrize("kind", list(UNSORTED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("ids,num", [([3, 0, -1, 3, 1, 0], 5), ([[1, 1, 0], [-1, 2, 1]], 4)])
def test_unsorted_segments_match_reference(kind, dtype, ids, num):
    ids = np.array(ids, np.int64)
    data = sample(ids.shape + (2,), dtype, -3, 4)
    got = UNSORTED[kind](data, ids, num)
    np.testing.assert_allclose(got.numpy(), seg_ref(data, ids, num, kind, False), rtol=1e-6)
    assert got.dtype is tf.as_dtype(dtype)


def test_unsorted_segment_mean_and_int_promotion():
    data = np.array([1., 2., 3., 4.], np.float32)
    np.testing.assert_allclose(tf.math.unsorted_segment_mean(data, [0, 0, 2, 2], 4).numpy(), [1.5, 0, 3.5, 0])
    r = tf.math.unsorted_segment_mean(np.array([1, 2, 3, 4], np.int32), [0, 0, 2, 2], 4)
    assert r.dtype is tf.float64  # TensorFlow's true division of int sums
    np.testing.assert_allclose(r.numpy(), [1.5, 0, 3.5, 0])


def test_segment_errors():
    with pytest.raises(InvalidArgumentError, match="not increasing"):
        tf.math.segment_sum([1., 2., 3.], [0, 2, 1])
    with pytest.raises(InvalidArgumentError, match="Segment id -1 out of range"):
        tf.math.segment_sum([1., 2.], [-1, 0])
    with pytest.raises(InvalidArgumentError, match="same size as dimension 0"):
        tf.math.segment_sum([1., 2., 3.], [0, 0])
    with pytest.raises(InvalidArgumentError, match="Tindices"):
        tf.math.segment_sum([1., 2.], [0., 1.])
    with pytest.raises(InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range \[0, 3\)"):
        tf.math.unsorted_segment_sum([1., 2., 3.], [0, 5, 2], 3)
    with pytest.raises(InvalidArgumentError, match="does not start with segment_ids.shape"):
        tf.math.unsorted_segment_sum([[1., 2.], [3., 4.]], [0, 1, 1], 2)
    with pytest.raises(InvalidArgumentError, match="must not be negative"):
        tf.math.unsorted_segment_max([1., 2.], [0, 1], -1)


def test_segments_in_graph_with_unknown_dims():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.int32),
                                  tf.TensorSpec([], tf.int32)])
    def f(x, ids, n):
        a = tf.math.segment_max(x, ids)
        b = tf.math.unsorted_segment_sum(x, ids, 4)
        c = tf.math.unsorted_segment_min(x, ids, n)
        assert a.shape.as_list() == [None, 3] and b.shape.as_list() == [4, 3] and c.shape.as_list() == [None, 3]
        return a, b, c

    x = sample((5, 3), np.float32)
    ids = np.array([0, 1, 1, 3, 3], np.int32)
    a, b, c = f(x, ids, 4)
    np.testing.assert_allclose(a.numpy(), seg_ref(x, ids, 4, "max", True))
    np.testing.assert_allclose(b.numpy(), seg_ref(x, ids, 4, "sum", False), rtol=1e-6)
    np.testing.assert_allclose(c.numpy(), seg_ref(x, ids, 4, "min", False))
    with pytest.raises(InvalidArgumentError, match="out of range"):
        f(x, ids, 2)
    with pytest.raises(ValueError, match="does not start with"):
        tf.function(lambda d: tf.math.unsorted_segment_sum(d, [0, 1, 1], 2)).get_concrete_function(
            tf.TensorSpec([2, 2], tf.float32))


def test_segment_gradients():
    data = RNG.standard_normal((6, 2))
    ids = np.array([0, 0, 2, 2, 2, 5], np.int32)
    for op in (S.SEGMENT_SUM, S.SEGMENT_MEAN, S.SEGMENT_MAX, S.SEGMENT_MIN, S.SEGMENT_PROD):
        check_op_grad(op, [data, ids])
    uids = np.array([3, 0, -1, 2, 1, 0], np.int32)  # no empty segment: its +-inf would defeat finite differences
    for op in (S.UNSORTED_SUM, S.UNSORTED_MAX, S.UNSORTED_MIN, S.UNSORTED_PROD):
        check_op_grad(op, [data, uids], {"num_segments": 4})
    check_op_grad(S.UNSORTED_SUM, [data, np.array([3, 0, -1, 3, 1, 0], np.int32)], {"num_segments": 6})
    # prod with zeros: one zero in a segment gets the product of the others, two zeros give 0
    z = np.array([[0., 2.], [3., 0.], [0., 5.], [4., 0.], [1., 1.], [2., 2.]])
    check_op_grad(S.UNSORTED_PROD, [z, np.array([0, 0, 1, 1, 1, 2], np.int32)], {"num_segments": 3})
    check_fn_grad(lambda d: tf.math.unsorted_segment_mean(d, uids, 5), [data])  # segment 4 empty: 0
    # second order through the gather/scatter pair
    check_fn_grad(lambda d: _first_order(lambda e: tf.math.segment_mean(e * e, ids), d), [data])


def _first_order(fn, x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(fn(x))
    return t.gradient(y, x)


# ---------------------------------------------------------------- unique
@pytest.mark.parametrize("values", [[3, 1, 3, 2, 1], [2.5, -1., 2.5], [], ["b", "a", "b", "c"], [True, True]])
def test_unique_first_occurrence_order(values):
    r = tf.unique(values)
    vals = list(values)
    ys = list(dict.fromkeys(vals))
    got_y = [v.decode() if isinstance(v, bytes) else v for v in r.y.numpy().tolist()]
    assert got_y == ys
    assert r.idx.numpy().tolist() == [ys.index(v) for v in vals]
    assert r.idx.dtype is tf.int32 and r._fields == ("y", "idx")
    assert tf.unique(values, out_idx=tf.int64).idx.dtype is tf.int64


def test_unique_errors_nan_and_graph():
    with pytest.raises(InvalidArgumentError, match="unique expects a 1D vector"):
        tf.unique([[1, 2]])
    with pytest.raises(InvalidArgumentError, match="out_idx"):
        tf.unique([1., 2.], out_idx=tf.float32)
    r = tf.unique(np.array([np.nan, 1., np.nan], np.float32))  # NaN != NaN: each is its own value
    assert r.idx.numpy().tolist() == [0, 1, 2]

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
    def f(x):
        y, idx = tf.unique(x)
        assert y.shape.as_list() == [None] and idx.shape.as_list() == [None]
        return y, idx

    y, idx = f(np.array([5, 5, 7], np.int64))
    assert y.numpy().tolist() == [5, 7] and idx.numpy().tolist() == [0, 0, 1]


# ---------------------------------------------------------------- searchsorted
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_searchsorted_rows(side, dtype):
    seq = np.sort(sample((3, 6), dtype), axis=-1)
    vals = sample((3, 4), dtype)
    got = tf.searchsorted(seq, vals, side=side)
    ref = np.stack([np.searchsorted(seq[i], vals[i], side=side) for i in range(3)])
    np.testing.assert_array_equal(got.numpy(), ref)
    assert got.dtype is tf.int32
    one = tf.searchsorted(seq[0], vals[0], side=side, out_type=tf.int64)
    assert one.dtype is tf.int64
    np.testing.assert_array_equal(one.numpy(), np.searchsorted(seq[0], vals[0], side=side))


def test_searchsorted_errors_and_graph():
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted([1, 3], [3], side="mid")
    with pytest.raises(InvalidArgumentError, match="Leading dim_size"):
        tf.searchsorted([[1, 3], [2, 4]], [[3], [3], [4]])
    with pytest.raises(InvalidArgumentError, match="expected to be a float"):
        tf.searchsorted(tf.constant([1., 3.]), tf.constant([3]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32)])
    def f(s, v):
        r = tf.searchsorted(s, v, side="right")
        assert r.shape.as_list() == [None]
        return r

    assert f(np.array([1., 2., 2., 4.], np.float32), np.array([2., 5., 0.], np.float32)).numpy().tolist() == [3, 4, 0]


# ---------------------------------------------------------------- scatter_nd / tensor_scatter_nd_*
def scatter_ref(base, indices, updates, mode):
    out = base.copy()
    k = indices.shape[-1]
    for pos, u in zip(indices.reshape(-1, k), updates.reshape((-1,) + base.shape[k:])):
        key = tuple(pos)
        out[key] = u if mode == "update" else (out[key] + u if mode == "add" else out[key] - u)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape,indices", [((5,), [[1], [3], [1]]), ((4, 3), [[2], [0]]),
                                           ((4, 3), [[[2, 1], [0, 0]], [[2, 1], [3, 2]]]), ((2, 3, 2), [[1, 2]])])
def test_scatter_ops_match_reference(dtype, shape, indices):
    idx = np.array(indices, np.int32)
    k = idx.shape[-1]
    upd = sample(idx.shape[:-1] + shape[k:], dtype)
    base = sample(shape, dtype)
    np.testing.assert_array_equal(tf.scatter_nd(idx, upd, shape).numpy(),
                                  scatter_ref(np.zeros(shape, dtype), idx, upd, "add"))
    np.testing.assert_array_equal(tf.tensor_scatter_nd_add(base, idx, upd).numpy(), scatter_ref(base, idx, upd, "add"))
    np.testing.assert_array_equal(tf.tensor_scatter_nd_sub(base, idx, upd).numpy(), scatter_ref(base, idx, upd, "sub"))
    unique_idx = idx.reshape(-1, k)
    if len({tuple(r) for r in unique_idx}) == len(unique_idx):  # update's order among duplicates is unspecified
        np.testing.assert_array_equal(tf.tensor_scatter_nd_update(base, idx, upd).numpy(),
                                      scatter_ref(base, idx, upd, "update"))


def test_scatter_errors():
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = \[7\] does not index into shape \[5\]"):
        tf.scatter_nd([[1], [7]], [9., 10.], [5])
    with pytest.raises(InvalidArgumentError, match="does not index into shape"):
        tf.tensor_scatter_nd_update([1, 2, 3, 4], [[-1]], [9])
    with pytest.raises(InvalidArgumentError, match="must match dimensions"):
        tf.scatter_nd([[1], [2]], [9., 10., 3.], [5])
    with pytest.raises(InvalidArgumentError, match="inner 1 dimensions"):
        tf.tensor_scatter_nd_update([[1, 2], [3, 4]], [[1]], [[9, 10, 11]])
    with pytest.raises(InvalidArgumentError, match="Tindices"):
        tf.scatter_nd([[1.]], [9.], [5])
    with pytest.raises(InvalidArgumentError, match="input #2"):
        tf.tensor_scatter_nd_add(tf.constant([1, 2]), [[1]], tf.constant([1.]))
    with pytest.raises(InvalidArgumentError, match="bool"):
        tf.tensor_scatter_nd_add([True, False], [[1]], [True])


def test_scatter_in_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 1], tf.int32), tf.TensorSpec([None, 3], tf.float32),
                                  tf.TensorSpec([None, 3], tf.float32)])
    def f(i, u, t):
        a = tf.scatter_nd(i, u, [4, 3])
        b = tf.tensor_scatter_nd_update(t, i, u)
        c = tf.scatter_nd(i, u, tf.shape(t))
        assert a.shape.as_list() == [4, 3] and b.shape.as_list() == [None, 3]
        return a, b, c

    i = np.array([[3], [1]], np.int32)
    u = sample((2, 3), np.float32)
    t = sample((4, 3), np.float32)
    a, b, c = f(i, u, t)
    np.testing.assert_array_equal(a.numpy(), scatter_ref(np.zeros((4, 3), np.float32), i, u, "add"))
    np.testing.assert_array_equal(b.numpy(), scatter_ref(t, i, u, "update"))
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    with pytest.raises(InvalidArgumentError, match="does not index into shape"):
        f(np.array([[4], [1]], np.int32), u, t)
    with pytest.raises(ValueError, match="must match dimensions"):
        tf.function(lambda u: tf.scatter_nd([[1], [2]], u, [5])).get_concrete_function(tf.TensorSpec([3], tf.float32))


def test_scatter_gradients():
    idx = np.array([[2], [0], [2]], np.int32)
    u = RNG.standard_normal((3, 2))
    t = RNG.standard_normal((4, 2))
    check_op_grad(S.SCATTER_ND, [idx, u], {"shape": (4, 2)})
    check_op_grad(S.TENSOR_SCATTER_ADD, [t, idx, u])
    check_op_grad(S.TENSOR_SCATTER_SUB, [t, idx, u])
    check_op_grad(S.TENSOR_SCATTER_UPDATE, [t, idx[:2], u[:2]])


# ---------------------------------------------------------------- roll / repeat / linspace / meshgrid
@pytest.mark.parametrize("shape,shift,axis", [((5,), 2, 0), ((3, 4), [1, -2], [0, 1]), ((3, 4), [1, 1], [1, 1]),
                                              ((2, 3, 4), -7, -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_roll(shape, shift, axis, dtype):
    x = sample(shape, dtype) if dtype is not np.bool_ else RNG.random(shape) > 0.5
    np.testing.assert_array_equal(tf.roll(x, shift, axis).numpy(), np.roll(x, shift, axis))


@pytest.mark.parametrize("shape,repeats,axis", [((4,), 2, 0), ((2, 3), [1, 0, 3], 1), ((2, 3), 3, None),
                                                ((3, 2), [2, 1, 2], 0), ((2, 2, 2), [0, 4], -1)])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_repeat(shape, repeats, axis, dtype):
    x = sample(shape, dtype)
    np.testing.assert_array_equal(tf.repeat(x, repeats, axis).numpy(), np.repeat(x, repeats, axis))


def test_roll_repeat_errors():
    with pytest.raises(InvalidArgumentError, match="axis 1 is out of range"):
        tf.roll([1, 2, 3], shift=1, axis=1)
    with pytest.raises(InvalidArgumentError, match="same size"):
        tf.roll([1, 2, 3], shift=[1, 2], axis=0)
    with pytest.raises(InvalidArgumentError, match="1-D or higher"):
        tf.roll(3, shift=1, axis=0)
    with pytest.raises(InvalidArgumentError, match="Dimensions 2 and 3 are not compatible"):
        tf.repeat([[1, 2], [3, 4]], repeats=[1, 2, 3], axis=0)
    with pytest.raises(InvalidArgumentError, match="repeats >= 0"):
        tf.repeat([1, 2], repeats=-1)
    with pytest.raises(ValueError, match="out of bounds"):
        tf.repeat([1, 2], 2, axis=1)


@pytest.mark.parametrize("start,stop,num,axis", [(0., 1., 5, 0), (2., 5., 1, 0), (2., 5., 0, 0),
                                                 ([0., 1.], [1., 3.], 3, 1), ([0., 1.], [[1.], [3.]], 4, -1),
                                                 ([0., 1.], [1., 3.], 3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_linspace(start, stop, num, axis, dtype):
    s, e = np.asarray(start, dtype), np.asarray(stop, dtype)
    got = tf.linspace(s, e, num, axis=axis)
    ref = np.linspace(s, e, num, axis=axis)
    assert got.dtype is tf.as_dtype(dtype) and got.shape == ref.shape
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)


def test_linspace_int_and_errors():
    r = tf.linspace(0, 10, 5)
    assert r.dtype is tf.float64 and r.numpy().tolist() == [0., 2.5, 5., 7.5, 10.]
    with pytest.raises(InvalidArgumentError, match="num >= 0"):
        tf.linspace(2., 5., -1)
    with pytest.raises(ValueError, match="dtype"):
        tf.linspace(tf.constant(0., tf.float64), tf.constant(1.), 3)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(indexing):
    a, b, c = np.arange(3), np.array([4., 5.]), np.array([7, 8, 9, 10])
    for args in ((a,), (a, b), (a, b, c)):
        got = tf.meshgrid(*args, indexing=indexing)
        ref = np.meshgrid(*args, indexing=indexing)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g.numpy(), r)
    assert tf.meshgrid() == []
    with pytest.raises(ValueError, match="'xy' or 'ij'"):
        tf.meshgrid(a, indexing="xx")


def test_roll_repeat_linspace_meshgrid_in_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.float32)])
    def f(x, v):
        r = tf.roll(x, 1, 0)
        p = tf.repeat(x, 2, axis=1)
        q = tf.repeat(x, [1, 0, 2], axis=1)
        ls = tf.linspace(v, v + 1., 4, axis=-1)
        gx, gy = tf.meshgrid(v, tf.range(3.))
        assert r.shape.as_list() == [None, 3] and p.shape.as_list() == [None, 6] and q.shape.as_list() == [None, 3]
        assert ls.shape.as_list() == [None, 4] and gx.shape.as_list() == [3, None]
        return r, p, q, ls, gx

    x = sample((2, 3), np.float32)
    v = np.array([0., 2.], np.float32)
    r, p, q, ls, gx = f(x, v)
    np.testing.assert_array_equal(r.numpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(p.numpy(), np.repeat(x, 2, 1))
    np.testing.assert_array_equal(q.numpy(), np.repeat(x, [1, 0, 2], 1))
    np.testing.assert_allclose(ls.numpy(), np.linspace(v, v + 1, 4, axis=-1), rtol=1e-6)
    np.testing.assert_array_equal(gx.numpy(), np.meshgrid(v, np.arange(3.))[0])


def test_roll_repeat_linspace_meshgrid_gradients():
    x = RNG.standard_normal((3, 4))
    check_op_grad(A.ROLL, [x], {"shift": (1, -3), "axis": (0, 1)})
    check_op_grad(A.REPEAT, [x, np.array([2, 0, 1, 3], np.int32)], {"axis": 1})
    check_op_grad(A.REPEAT, [x, np.array(2, np.int32)], {"axis": 0})
    check_fn_grad(lambda a, b: tf.linspace(a, b, 5, axis=0), [RNG.standard_normal(2), RNG.standard_normal((3, 1))])
    check_fn_grad(lambda a, b: tf.linspace(a, b, 1), [np.array(1.5), np.array(3.0)])
    check_fn_grad(lambda a, b: tf.meshgrid(a, b)[0] * tf.meshgrid(a, b)[1], [RNG.standard_normal(3),
                                                                             RNG.standard_normal(2)])


# ---------------------------------------------------------------- tf.math additions
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.bool_, np.complex64])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, True), (1, None), ([0, 1], False)])
def test_count_nonzero(dtype, axis, keepdims):
    x = (sample((3, 4), np.int32, -1, 2) != 0) if dtype is np.bool_ else sample((3, 4), np.int32, -1, 2).astype(dtype)
    got = tf.math.count_nonzero(x, axis=axis, keepdims=keepdims)
    ref = np.count_nonzero(x, axis=None if axis is None else tuple(np.atleast_1d(axis)), keepdims=bool(keepdims))
    assert got.dtype is tf.int64
    np.testing.assert_array_equal(got.numpy(), ref)
    assert tf.math.count_nonzero(x, dtype=tf.int32).dtype is tf.int32
    assert int(tf.math.count_nonzero(["", "a", "b"])) == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), ([0, 2], False)])
def test_reduce_euclidean_norm(dtype, axis, keepdims):
    x = sample((2, 3, 4), np.float64)
    x = (x + 1j * sample((2, 3, 4), np.float64)).astype(dtype) if np.dtype(dtype).kind == "c" else x.astype(dtype)
    got = tf.math.reduce_euclidean_norm(x, axis=axis, keepdims=keepdims)
    ax = None if axis is None else tuple(np.atleast_1d(axis))
    ref = np.sqrt(np.sum(np.abs(x) ** 2, axis=ax, keepdims=keepdims))
    assert got.dtype is tf.as_dtype(dtype)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-5)


def test_euclidean_norm_int_errors_and_gradient():
    assert tf.math.reduce_euclidean_norm(np.array([[3, 4], [1, 1]], np.int32), axis=1).numpy().tolist() == [5, 1]
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        tf.math.reduce_euclidean_norm([3., 4.], axis=2)
    check_op_grad(M.EUCLIDEAN_NORM, [RNG.standard_normal((3, 4))], {"axis": (1,), "keepdims": False})
    check_op_grad(M.EUCLIDEAN_NORM, [RNG.standard_normal((3, 4))], {"axis": None, "keepdims": True})


def test_clip_by_norm():
    x = RNG.standard_normal((3, 4))
    for axes, c in ((None, 1.0), ([1], 0.5), ([0], 100.)):
        ax = None if axes is None else tuple(axes)
        norm = np.sqrt(np.sum(x * x, axis=ax, keepdims=True))
        np.testing.assert_allclose(tf.clip_by_norm(x, c, axes=axes).numpy(), x * c / np.maximum(norm, c))
        check_fn_grad(lambda t: tf.clip_by_norm(t, c, axes=axes), [x])
    np.testing.assert_array_equal(tf.clip_by_norm(np.zeros(3), 1.).numpy(), np.zeros(3))
    with pytest.raises(InvalidArgumentError):
        tf.clip_by_norm([3, 4], 1)


def test_no_nan_ops():
    x = np.array([np.inf, np.nan, 2., -3.], np.float32)
    y = np.array([0., 0., 3., 0.5], np.float32)
    with np.errstate(invalid="ignore"):
        ref = np.where(y == 0, 0, x * y)
    np.testing.assert_array_equal(tf.math.multiply_no_nan(x, y).numpy(), ref)
    np.testing.assert_array_equal(tf.math.reciprocal_no_nan(y).numpy(), np.where(y == 0, 0, 1 / np.where(y, y, 1)))
    with pytest.raises(InvalidArgumentError, match="MulNoNan"):
        tf.math.multiply_no_nan([1, 2], [0, 3])
    with pytest.raises(InvalidArgumentError, match="DivNoNan"):
        tf.math.reciprocal_no_nan([0, 2])
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((1, 3))
    check_op_grad(M.MUL_NO_NAN, [a, b])
    check_fn_grad(lambda t: tf.math.reciprocal_no_nan(t), [np.array([0.5, -2., 3.])])


GAMMA_POINTS = np.array([-7.3, -2.5, -0.4, 0.01, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 3.7, 6.2, 12.2, 150.5, 1e5])


def _digamma_ref(v):
    """psi(v) as the derivative of math.lgamma by a high-order central difference (an independent reference)."""
    h = 1e-4 * max(1.0, abs(v))
    f = math.lgamma
    return (f(v - 2 * h) - 8 * f(v - h) + 8 * f(v + h) - f(v + 2 * h)) / (12 * h)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lgamma_digamma_against_references(dtype):
    x = GAMMA_POINTS.astype(dtype)
    np.testing.assert_allclose(tf.math.lgamma(x).numpy(), [math.lgamma(float(v)) for v in x],
                               rtol=1e-5 if dtype is np.float32 else 1e-12, atol=1e-6 if dtype is np.float32 else 1e-12)
    np.testing.assert_allclose(tf.math.digamma(x).numpy(), [_digamma_ref(float(v)) for v in x], rtol=1e-5, atol=1e-6)
    assert tf.math.digamma(np.array(1.0)).numpy() == pytest.approx(-0.5772156649015329, abs=1e-14)  # -Euler gamma


def test_lgamma_digamma_special_values_and_gradients():
    x = np.array([0., -1., np.inf, -np.inf, np.nan], np.float64)
    np.testing.assert_array_equal(tf.math.lgamma(x).numpy(), [np.inf, np.inf, np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(tf.math.digamma(x).numpy(), [np.nan, np.nan, np.inf, np.nan, np.nan])
    with pytest.raises(InvalidArgumentError, match="Lgamma"):
        tf.math.lgamma([1, 2])
    pts = np.array([-2.5, -0.4, 0.3, 1.7, 4.2, 9.0])
    check_op_grad(M.LGAMMA, [pts], atol=1e-5, rtol=1e-6)
    check_op_grad(M.DIGAMMA, [pts], atol=1e-4, rtol=1e-5)


def test_math_aliases():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for name in ("softmax", "log_softmax", "softplus"):
        np.testing.assert_array_equal(getattr(tf.math, name)(x).numpy(), getattr(tf.nn, name)(x).numpy())
    for name in ("sort", "argsort", "unique", "searchsorted", "scatter_nd", "tensor_scatter_nd_update", "roll",
                 "repeat", "linspace", "meshgrid", "clip_by_norm"):
        assert callable(getattr(tf, name))
    assert not hasattr(tf, "segment_sum") and tf.math.top_k is tf.nn.top_k
