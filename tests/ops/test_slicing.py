"""Tensor indexing (one StridedSlice op): values vs NumPy, shapes with unknown dims, TensorFlow's errors, gradients."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.graph.graph import Graph
from rivulet.ops import slicing as S

from .test_array_ops import DTYPES, check_grad, graph_shape, rand, same

KEYS = [0, -1, 2, slice(1, None), slice(None, None, -1), slice(None, None, 2), slice(-2, None, -2),
        slice(5, 1, -2), slice(10, 20), (Ellipsis, 0), (None, Ellipsis), (0, None, slice(1, 3)),
        (slice(None), None, 1), (Ellipsis, None), (1, -1, slice(None, None, -3)), (Ellipsis,), (),
        (np.int64(1), slice(np.int32(0), None)), [0, 1], (None, 1, Ellipsis, None, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_indexing_matches_numpy(dtype, key):
    x = rand((3, 4, 5), dtype)
    ref = x[tuple(key) if isinstance(key, list) else key]
    same(x_t := tf.constant(x)[key], ref, dtype)
    assert x_t.dtype is dtype


def test_scalar_results_and_strings():
    same(tf.constant([1.5, 2.5])[1], np.float32(2.5))
    same(tf.constant(["a", "b"])[1], np.array(b"b", dtype=object), tf.string)
    same(tf.constant(3)[...], np.int32(3))
    same(tf.constant(3)[None], np.array([3], np.int32))
    assert tf.newaxis is None


def test_tensor_indices():
    x = np.arange(12).reshape(3, 4).astype(np.float32)
    t = tf.constant(x)
    same(t[tf.constant(1)], x[1])
    same(t[tf.constant(1, tf.int64), 1:], x[1, 1:])
    same(t[:, tf.constant(1):tf.constant(3)], x[:, 1:3])
    same(t[::tf.constant(-1)], x[::-1])


def test_boolean_keys_are_boolean_mask():
    x = np.arange(6).reshape(2, 3).astype(np.int32)
    same(tf.constant(x)[tf.constant([True, False])], x[[True, False]])
    same(tf.constant(x)[np.array([[True, False, True], [False, True, False]])], x[x % 2 == 0])


@pytest.mark.parametrize("key,cls,match", [
    (5, tf.errors.InvalidArgumentError, "slice index 5 of dimension 0 out of bounds."),
    (-4, tf.errors.InvalidArgumentError, "slice index -1 of dimension 0 out of bounds."),
    ((0, 7), tf.errors.InvalidArgumentError, "slice index 7 of dimension 1 out of bounds."),
    ((0, 0, 0), tf.errors.InvalidArgumentError, "Index out of range using input dim 2; input has only 2 dims"),
    ((Ellipsis, Ellipsis), tf.errors.InvalidArgumentError, "Multiple ellipses in slice spec not allowed"),
    (slice(None, None, 0), tf.errors.InvalidArgumentError, r"strides\[0\] must be non-zero"),
    ((0, slice(0, 1, 0)), tf.errors.InvalidArgumentError, r"strides\[1\] must be non-zero"),
    (1.0, TypeError, r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar "
                     r"tf.int32/tf.int64 tensors are valid indices, got 1.0"),
    ("a", TypeError, "are valid indices, got 'a'"),
    ((0, [0, 1]), TypeError, r"valid indices, got \[0, 1\]"),
    (tf.constant([0, 1]), TypeError, "valid indices, got <tf.Tensor"),
    (tf.constant(1.0), TypeError, "valid indices"),
    (slice(tf.constant(1.0), None), TypeError, "valid indices"),
    (True, ValueError, "mask cannot be scalar."),
])
def test_eager_errors(key, cls, match):
    with pytest.raises(cls, match=match):
        tf.constant(np.ones((3, 4), np.float32))[key]


def test_slicing_a_scalar():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Attempting to slice scalar input."):
        tf.constant(3)[0]


A_SPEC = (tf.float32, [None, 3])


@pytest.mark.parametrize("build,expected", [
    (lambda a: a[0], [3]),
    (lambda a: a[:, 1], [None]),
    (lambda a: a[1:3], [None, 3]),
    (lambda a: a[..., None], [None, 3, 1]),
    (lambda a: a[::-1, 1:], [None, 2]),
    (lambda a: a[:, :2], [None, 2]),
    (lambda a: a[:, ::-2], [None, 2]),
    (lambda a: a[None, :, None], [1, None, 1, 3]),
    (lambda a: a[..., -1], [None]),
    (lambda a: a[:, 5:], [None, 0]),
    (lambda a: a[tf.shape(a)[0] - 1], [3]),
    (lambda a: a[:, tf.shape(a)[0]:], [None, None]),
    (lambda a: a[1:, :tf.rank(a)], [None, 2]),
])
def test_graph_shapes(build, expected):
    assert graph_shape(build, A_SPEC) == tf.TensorShape(expected)


def test_graph_shapes_unknown_rank_and_dynamic_index():
    assert graph_shape(lambda u: u[0], (tf.float32, None)) == tf.TensorShape(None)
    assert graph_shape(lambda u: u[..., 1:], (tf.float32, None)) == tf.TensorShape(None)
    g = Graph()
    with g.as_default():
        a = g.placeholder(tf.float32, [None, 3])
        i = g.placeholder(tf.int32, [])
        assert a[i].shape == tf.TensorShape([3])
        assert a[:, i].shape == tf.TensorShape([None])
        assert a[i:].shape == tf.TensorShape([None, 3])
        assert a[i:, ::i].shape == tf.TensorShape([None, None])
        out = a[i, 1:i]
        assert out.op.type == "StridedSlice" and len(out.op.inputs) == 3
        assert out.op.attrs["spec"] == (("i", S.DYN), ("s", 1, S.DYN, None))


@pytest.mark.parametrize("key,match", [
    ((0, 5), "slice index 5 of dimension 1 out of bounds."),
    ((0, -4), "slice index -1 of dimension 1 out of bounds."),
    ((0, 0, 0), "Index out of range using input dim 2; input has only 2 dims"),
    ((Ellipsis, Ellipsis), "Multiple ellipses in slice spec not allowed"),
    (slice(None, None, 0), r"strides\[0\] must be non-zero"),
])
def test_graph_errors_are_value_errors_at_trace_time(key, match):
    with pytest.raises(ValueError, match=match):
        graph_shape(lambda a: a[key], A_SPEC)


def test_unknown_dim_index_is_checked_at_run_time():
    assert graph_shape(lambda a: a[7], A_SPEC) == tf.TensorShape([3])

    @tf.function
    def f(x, i):
        return x[i]

    same(f(tf.constant([1.0, 2.0]), tf.constant(1)), np.float32(2.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 9 of dimension 0 out of bounds."):
        f(tf.constant([1.0, 2.0]), tf.constant(9))


def test_static_specs_are_hashable_and_reuse_numpy_keys():
    spec, dyn = S.parse_key((Ellipsis, None, slice(1, None, -1), 2))
    assert dyn == [] and hash(spec) is not None
    assert S.np_key(spec, ()) is S.np_key(spec, ())


@pytest.mark.parametrize("key", [1, (slice(None), 2), (slice(None, None, -1), None, slice(1, 3)), (Ellipsis, -1),
                                 (slice(3, 0, -2), Ellipsis, None), (0, 0)], ids=repr)
def test_gradient(key):
    spec, _ = S.parse_key(key)
    check_grad(S.STRIDED_SLICE, [rand((4, 3))], {"spec": spec})
    check_grad(S.STRIDED_SLICE_GRAD, [rand(np.shape(rand((4, 3))[key])), rand((4, 3))], {"spec": spec}, wrt=[0])


def test_gradient_with_run_time_indices():
    spec = (("s", S.DYN, None, None), ("i", S.DYN))
    grads = check_grad(S.STRIDED_SLICE, [rand((4, 3)), np.int32(1), np.int32(-1)], {"spec": spec}, wrt=[0])
    assert grads[1] is None and grads[2] is None
