"""Array ops against NumPy references (values, dtypes, shapes), TensorFlow's errors, graph-mode shape inference
with partially known shapes, and gradients against central differences."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.core.dispatch import execute
from rivulet.core.tensor import EagerTensor
from rivulet.graph.graph import Graph
from rivulet.ops import array_ops as A

RNG = np.random.default_rng(0)
DTYPES = [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.string, tf.complex64]


def rand(shape, dtype=tf.float64):
    shape = tuple(shape)
    if dtype is tf.string:
        return np.array([str(i).encode() for i in range(int(np.prod(shape)))], dtype=object).reshape(shape)
    if dtype is tf.bool:
        return RNG.random(shape) > 0.5
    if dtype.is_complex:
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype.as_numpy_dtype)
    if dtype.is_integer:
        return RNG.integers(-5, 5, shape).astype(dtype.as_numpy_dtype)
    return RNG.standard_normal(shape).astype(dtype.as_numpy_dtype)


def same(t, ref, dtype=None):
    """t is an eager tensor equal to the NumPy reference, with its dtype and shape."""
    ref = np.asarray(ref)
    assert isinstance(t, EagerTensor)
    assert t.shape == ref.shape
    assert t.dtype is (dtype or tf.as_dtype(ref.dtype))
    np.testing.assert_array_equal(np.asarray(t.numpy()), ref)


# ---------------------------------------------------------------- gradient check (private helper)
class _Record:
    def __init__(self, inputs, outputs, attrs):
        self.inputs, self.outputs, self.attrs = inputs, outputs, attrs


def check_grad(op, inputs, attrs=None, out_index=0, wrt=None, eps=1e-6, tol=1e-6):
    """op.grad on a record of one eager run against central differences of sum(out[out_index] * dy)."""
    attrs = attrs or {}
    ts = [EagerTensor(np.asarray(v)) for v in inputs]
    outs = execute(op, ts, attrs)
    dys = [None] * len(outs)
    dys[out_index] = EagerTensor(rand(outs[out_index].shape, outs[out_index].dtype))
    grads = op.grad(_Record(ts, outs, attrs), *dys)
    wrt = [i for i, v in enumerate(inputs) if np.asarray(v).dtype.kind == "f"] if wrt is None else wrt
    dy = dys[out_index].numpy()

    def f(vals):
        return np.sum(np.asarray(execute(op, [EagerTensor(v) for v in vals], attrs)[out_index].numpy()) * dy)

    for i in wrt:
        x = np.array(inputs[i], dtype=np.float64)
        num = np.zeros_like(x)
        for j in np.ndindex(x.shape):
            hi, lo = x.copy(), x.copy()
            hi[j] += eps
            lo[j] -= eps
            args = list(inputs)
            args[i] = hi
            fp = f(args)
            args[i] = lo
            num[j] = (fp - f(args)) / (2 * eps)
        assert grads[i] is not None, f"no gradient for input {i}"
        g = grads[i].numpy()
        assert np.shape(g) == x.shape
        np.testing.assert_allclose(g, num, rtol=tol, atol=tol)
    return grads


def graph_shape(build, *placeholders):
    """The static shape of build(*placeholders) in a graph; placeholders are (dtype, shape) pairs."""
    g = Graph()
    with g.as_default():
        args = [g.placeholder(d, s) for d, s in placeholders]
        out = build(*args)
    return [o.shape for o in out] if isinstance(out, list) else out.shape


def eager_error(cls, match, fn):
    with pytest.raises(cls, match=match):
        fn()


# ---------------------------------------------------------------- values vs NumPy over shapes and dtypes
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,perm", [((2, 3), None), ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((4,), None),
                                        ((), None)])
def test_transpose(dtype, shape, perm):
    x = rand(shape, dtype)
    same(tf.transpose(x, perm), np.transpose(x, perm), dtype)


def test_transpose_conjugate():
    x = rand((2, 3), tf.complex128)
    same(tf.transpose(x, conjugate=True), np.conj(x.T))
    r = rand((2, 3))
    same(tf.transpose(r, conjugate=True), r.T)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes,axis", [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3)] * 2, -1),
                                         ([(1, 2, 3), (1, 2, 3)], 2)])
def test_concat(dtype, shapes, axis):
    xs = [rand(s, dtype) for s in shapes]
    same(tf.concat([tf.constant(x) for x in xs], axis), np.concatenate(xs, axis), dtype)


def test_concat_python_values_take_tensor_dtype_and_single_input_is_identity():
    same(tf.concat([tf.constant([1.5]), [2, 3]], 0), np.array([1.5, 2, 3], np.float32))
    x = tf.constant([[1, 2]])
    same(tf.concat([x], 1), [[1, 2]], tf.int32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,arg,axis", [((6,), 3, 0), ((6, 2), 2, 0), ((2, 6), [1, 2, 3], 1), ((2, 6), [1, -1], 1),
                                            ((4, 2), 1, 1), ((3,), [3], 0)])
def test_split(dtype, shape, arg, axis):
    x = rand(shape, dtype)
    ref = np.split(x, arg if isinstance(arg, int) else np.cumsum([a if a >= 0 else shape[axis] - sum(arg) - 1
                                                                   for a in arg])[:-1], axis)
    got = tf.split(x, arg, axis)
    assert isinstance(got, list) and len(got) == len(ref)
    for t, r in zip(got, ref):
        same(t, r, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((1, 2, 1), None), ((1, 2, 1), [0]), ((1, 2, 1), [-1, 0]), ((1,), None),
                                        ((3,), None)])
def test_squeeze(dtype, shape, axis):
    x = rand(shape, dtype)
    same(tf.squeeze(x, axis), np.squeeze(x, None if axis is None else tuple(axis)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((2, 3), 0), ((2, 3), 2), ((2, 3), -1), ((2, 3), -3), ((), 0)])
def test_expand_dims(dtype, shape, axis):
    x = rand(shape, dtype)
    same(tf.expand_dims(x, axis), np.expand_dims(x, axis), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,multiples", [((2, 3), [1, 2]), ((2,), [3]), ((2, 1, 3), [2, 3, 0]), ((), [])])
def test_tile(dtype, shape, multiples):
    x = rand(shape, dtype)
    same(tf.tile(x, multiples), np.tile(x, multiples), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,target", [((3,), [2, 3]), ((1, 3), [4, 3]), ((), [2, 2]), ((2, 1), [3, 2, 4])])
def test_broadcast_to(dtype, shape, target):
    x = rand(shape, dtype)
    same(tf.broadcast_to(x, target), np.broadcast_to(x, target), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pshape,ishape,axis", [((5,), (3,), 0), ((4, 3), (2, 2), 0), ((4, 3), (5,), 1),
                                                ((2, 3, 4), (), 2), ((4, 3), (0,), 0)])
def test_gather(dtype, pshape, ishape, axis):
    p = rand(pshape, dtype)
    i = RNG.integers(0, pshape[axis], ishape).astype(np.int32)
    same(tf.gather(p, i, axis=axis), np.take(p, i, axis=axis), dtype)
    same(tf.gather(p, tf.constant(i, tf.int64), axis=axis), np.take(p, i, axis=axis), dtype)


def test_gather_batch_dims():
    p = rand((2, 3, 4))
    i = np.array([[0, 2], [1, 1]], np.int32)
    ref = np.stack([np.take(p[b], i[b], axis=1) for b in range(2)])
    same(tf.gather(p, i, axis=2, batch_dims=1), ref)
    same(tf.gather(p, i, axis=-1, batch_dims=-1), ref)
    ref0 = np.stack([np.take(p[b], i[b], axis=0) for b in range(2)])
    same(tf.gather(p, i, batch_dims=1), ref0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pshape,indices", [((3, 4), [[0, 1], [2, 3]]), ((3, 4), [[2], [0]]), ((3, 4, 2), [[[1, 1]]]),
                                            ((3,), [[0], [2], [2]])])
def test_gather_nd(dtype, pshape, indices):
    p = rand(pshape, dtype)
    idx = np.array(indices)
    same(tf.gather_nd(p, indices), p[tuple(np.moveaxis(idx, -1, 0))], dtype)


def test_gather_nd_batch_dims():
    p = rand((2, 3, 4))
    idx = np.array([[[1], [0]], [[2], [2]]])
    same(tf.gather_nd(p, idx, batch_dims=1), np.stack([p[b][idx[b][:, 0]] for b in range(2)]))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.complex64])
@pytest.mark.parametrize("shape", [[2, 3], [0], [], (4,), tf.TensorShape([1, 2])])
def test_zeros_ones(dtype, shape):
    s = tuple(tf.TensorShape(shape).as_list())
    same(tf.zeros(shape, dtype), np.zeros(s, dtype.as_numpy_dtype), dtype)
    same(tf.ones(shape, dtype), np.ones(s, dtype.as_numpy_dtype), dtype)
    same(tf.zeros(tf.constant(np.array(s, np.int64)), dtype), np.zeros(s, dtype.as_numpy_dtype), dtype)


def test_zeros_default_float32_and_strings():
    same(tf.zeros([2]), np.zeros(2, np.float32))
    same(tf.zeros([2], tf.string), np.array([b"", b""], dtype=object), tf.string)
    eager_error(TypeError, "Cannot convert 1 to EagerTensor of dtype string", lambda: tf.ones([2], tf.string))


@pytest.mark.parametrize("value,dtype", [(3, tf.int32), (2.5, tf.float32), ("a", tf.string), (True, tf.bool),
                                         (np.float64(1), tf.float64)])
def test_fill(value, dtype):
    ref = np.full((2, 3), value.encode() if isinstance(value, str) else value,
                  dtype=object if dtype is tf.string else dtype.as_numpy_dtype)
    same(tf.fill([2, 3], value), ref, dtype)


@pytest.mark.parametrize("rows,cols,batch,dtype", [(2, None, None, tf.float32), (2, 3, None, tf.int32),
                                                   (3, 2, [2], tf.float64), (2, 2, [2, 1], tf.bool), (0, None, None, tf.float32)])
def test_eye(rows, cols, batch, dtype):
    ref = np.broadcast_to(np.eye(rows, cols, dtype=dtype.as_numpy_dtype), tuple(batch or ()) + (rows, cols or rows))
    same(tf.eye(rows, cols, batch_shape=batch, dtype=dtype), ref, dtype)


@pytest.mark.parametrize("args,kw,ref", [
    ((5,), {}, np.arange(5, dtype=np.int32)),
    ((1, 5, 2), {}, np.arange(1, 5, 2, dtype=np.int32)),
    ((5, 0, -2), {}, np.arange(5, 0, -2, dtype=np.int32)),
    ((1, 5.5), {}, np.arange(1, 5.5, dtype=np.float32)),
    ((0, 10, 0.1), {}, np.arange(0, 10, 0.1, dtype=np.float32)),
    ((5,), {"dtype": tf.float64}, np.arange(5, dtype=np.float64)),
    ((1, 5), {"dtype": tf.int64}, np.arange(1, 5, dtype=np.int64)),
    ((3, 3), {}, np.arange(3, 3, dtype=np.int32)),
])
def test_range(args, kw, ref):
    same(tf.range(*args, **kw), ref)


def test_range_dtype_inference_from_tensors():
    same(tf.range(tf.constant(3, tf.int64)), np.arange(3, dtype=np.int64))
    same(tf.range(tf.constant(1, tf.int64), 5.5), np.arange(1, 5.5, dtype=np.float32))
    same(tf.range(tf.constant(1.0, tf.float64), 5), np.arange(1, 5, dtype=np.float64))
    same(tf.range(tf.constant(1.5), 5, dtype=tf.int32), np.arange(1, 5, dtype=np.int32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 4), (1, 2, 3, 1)])
def test_shape_size_rank(dtype, shape):
    x = rand(shape, dtype)
    same(tf.shape(x), np.array(shape, np.int32))
    same(tf.shape(x, out_type=tf.int64), np.array(shape, np.int64))
    same(tf.size(x), np.int32(np.size(x)))
    same(tf.size(x, out_type=tf.int64), np.int64(np.size(x)))
    same(tf.rank(x), np.int32(len(shape)))


@pytest.mark.parametrize("indices,depth,kw", [([0, 2, -1], 3, {}), ([[1, 0], [3, 2]], 4, {"axis": 0}),
                                              ([[1, 0], [3, 2]], 4, {"axis": 1}), (2, 3, {}),
                                              ([0, 2], 3, {"on_value": 5, "off_value": 1}),
                                              ([0, 1], 2, {"dtype": tf.float64}),
                                              ([1], 3, {"on_value": "a", "off_value": "b"})])
def test_one_hot(indices, depth, kw):
    idx = np.array(indices)
    on, off = kw.get("on_value", 1), kw.get("off_value", 0)
    dtype = kw.get("dtype") or (tf.constant(on).dtype if "on_value" in kw else tf.float32)
    ref = np.where(idx[..., None] == np.arange(depth), on, off)
    if dtype is tf.string:
        ref = ref.astype(bytes).astype(object)
    else:
        ref = ref.astype(dtype.as_numpy_dtype)
    axis = kw.get("axis", -1)
    same(tf.one_hot(indices, depth, **kw), np.moveaxis(ref, -1, axis), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
@pytest.mark.parametrize("shape,pads", [((3,), [[1, 2]]), ((3, 4), [[0, 2], [2, 1]]), ((2, 3, 3), [[1, 0], [0, 0], [2, 2]])])
def test_pad(dtype, mode, shape, pads):
    x = rand(shape, dtype)
    if mode == "CONSTANT":
        ref = np.pad(x, pads, constant_values=b"" if dtype is tf.string else 0)
    else:
        ref = np.pad(x, pads, mode=mode.lower())
    same(tf.pad(x, pads, mode), ref, dtype)


def test_pad_constant_values():
    x = np.arange(3, dtype=np.float32)
    same(tf.pad(x, [[1, 1]], constant_values=9), np.pad(x, 1, constant_values=9))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,begin,size", [((5,), [1], [3]), ((4, 3), [1, 0], [-1, 2]), ((4, 3), [4, 3], [0, 0]),
                                              ((2, 3, 4), [0, 1, 2], [2, -1, 1])])
def test_slice(dtype, shape, begin, size):
    x = rand(shape, dtype)
    key = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    same(tf.slice(x, begin, size), x[key], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((3,), [0]), ((2, 3), [1]), ((2, 3, 4), [0, 2]), ((2, 3), [-1]), ((2, 3), [])])
def test_reverse(dtype, shape, axis):
    x = rand(shape, dtype)
    same(tf.reverse(x, axis), np.flip(x, tuple(axis)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,mshape,axis", [((4,), (4,), None), ((3, 2), (3,), None), ((3, 2), (3, 2), None),
                                               ((2, 3, 2), (3,), 1)])
def test_boolean_mask(dtype, shape, mshape, axis):
    x = rand(shape, dtype)
    m = RNG.random(mshape) > 0.4
    a = axis or 0
    same(tf.boolean_mask(x, m, axis=axis), x[(slice(None),) * a + (m,)], dtype)


def test_boolean_mask_accepts_int_masks():
    x = np.arange(6).reshape(2, 3).astype(np.int32)
    same(tf.boolean_mask(x, [1, 0, 1], axis=1), x[:, [True, False, True]])


@pytest.mark.parametrize("lengths,maxlen,dtype", [([1, 3], 4, tf.bool), ([[1, 3]], None, tf.bool),
                                                  ([1, 3], None, tf.float32), ([], 2, tf.int32)])
def test_sequence_mask(lengths, maxlen, dtype):
    ln = np.array(lengths, np.int32)
    n = maxlen if maxlen is not None else (ln.max() if ln.size else 0)
    same(tf.sequence_mask(lengths, maxlen, dtype), (np.arange(n) < ln[..., None]).astype(dtype.as_numpy_dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,target", [((6,), [2, 3]), ((2, 3), [-1]), ((2, 3), [3, -1]), ((1,), []), ((0, 3), [3, 0])])
def test_reshape(dtype, shape, target):
    x = rand(shape, dtype)
    same(tf.reshape(x, target), np.reshape(x, target), dtype)
    same(tf.reshape(x, tf.constant(np.array(target, np.int32))), np.reshape(x, target), dtype)


def test_printed_forms_match_tensorflow():
    assert repr(tf.range(5)) == "<tf.Tensor: shape=(5,), dtype=int32, numpy=array([0, 1, 2, 3, 4], dtype=int32)>"
    assert str(tf.shape(tf.ones([2, 3]))) == "tf.Tensor([2 3], shape=(2,), dtype=int32)"
    assert repr(tf.size(tf.ones([2, 3]))) == "<tf.Tensor: shape=(), dtype=int32, numpy=6>"
    assert repr(tf.eye(2, 3, dtype=tf.int32)) == ("<tf.Tensor: shape=(2, 3), dtype=int32, numpy=\n"
                                                  "array([[1, 0, 0],\n       [0, 1, 0]], dtype=int32)>")


def test_views_are_marked():
    for op in (A.TRANSPOSE, A.RESHAPE, A.SQUEEZE, A.EXPAND_DIMS, A.SPLIT, A.REVERSE, A.BROADCAST_TO, A.SLICE):
        assert op.is_view


# ---------------------------------------------------------------- errors: eager InvalidArgumentError, graph ValueError
IAE = tf.errors.InvalidArgumentError
ERRORS = [
    (lambda: tf.gather(tf.constant([0.0]), [1]), IAE, r"indices\[0\] = 1 is not in \[0, 1\)"),
    (lambda: tf.gather(tf.ones([3, 2]), [[0, 1], [-1, 0]]), IAE, r"indices\[1,0\] = -1 is not in \[0, 3\)"),
    (lambda: tf.gather(tf.ones([3, 2]), [0], axis=2), IAE, "Shape must be at least rank 3 but is rank 2"),
    (lambda: tf.gather(tf.ones([3, 2]), [0.0]), IAE, "Value for attr 'Tindices' of float is not in the list"),
    (lambda: tf.gather(tf.ones([3, 2]), [[0]], batch_dims=1), IAE, r"params.shape\[0\]: 3 should be equal to"),
    (lambda: tf.gather(tf.ones([3, 2]), [[0]], batch_dims=3), ValueError, r"Expected batch_dims in the range \[-2, 2\]"),
    (lambda: tf.gather_nd(tf.ones([3, 2]), [[5, 0], [0, 7]]), IAE,
     r"indices\[1\] = \[0, 7\] does not index into param shape \[3,2\]"),
    (lambda: tf.gather_nd(tf.ones([3, 2]), [[0, 0, 0]]), IAE, "index innermost dimension length must be <= params rank"),
    (lambda: tf.concat([tf.ones([2]), tf.ones([3, 1])], 0), IAE,
     r"ConcatOp : Ranks of all input tensors should match: shape\[0\] = \[2\] vs. shape\[1\] = \[3,1\]"),
    (lambda: tf.concat([tf.ones([2]), tf.ones([3], tf.int32)], 0), IAE, "cannot compute ConcatV2 as input #1"),
    (lambda: tf.concat([tf.ones([2, 2]), tf.ones([3, 3])], 0), IAE, "ConcatOp : Dimension 1 in both shapes must be equal"),
    (lambda: tf.concat([tf.constant(1.0), tf.constant(2.0)], 0), IAE, "Can't concatenate scalars"),
    (lambda: tf.concat([tf.ones([2]), tf.ones([2])], 1), IAE, r"dimensions in the range \[-1, 1\), but got 1"),
    (lambda: tf.transpose(tf.ones([2, 3]), [0]), IAE, "transpose expects a vector of size 2. But input"),
    (lambda: tf.transpose(tf.ones([2, 3]), [0, 0]), IAE, r"1 is missing from \{0,0\}."),
    (lambda: tf.transpose(tf.ones([2, 3]), [2, 0]), IAE, r"2 is out of range \[0 .. 2\)"),
    (lambda: tf.split(tf.ones([6]), 4), IAE, r"evenly divide the split dimension, but got split_dim 0 \(size = 6\)"),
    (lambda: tf.split(tf.ones([6]), [1, 2, 2]), IAE, "Determined shape must either match input shape"),
    (lambda: tf.split(tf.ones([6]), [1, -1, -1]), IAE, "There can only be one -1 in the input."),
    (lambda: tf.squeeze(tf.ones([1, 2]), 1), IAE, r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"),
    (lambda: tf.squeeze(tf.ones([1, 2]), 2), IAE, "Tried to squeeze dim index 2 for tensor with 2 dimensions."),
    (lambda: tf.expand_dims(tf.ones([2]), 3), IAE, "Tried to expand dim index 3 for tensor with 1 dimensions."),
    (lambda: tf.tile(tf.ones([2]), [2, 2]), IAE, "Expected multiples argument to be a vector of length 1 but got"),
    (lambda: tf.tile(tf.ones([2]), [-1]), IAE, r"Expected multiples\[0\] >= 0, but got -1"),
    (lambda: tf.reshape(tf.ones([6]), [4, -1]), IAE, "tensor with 6 values, but the requested shape requires a "
                                                     "multiple of 4"),
    (lambda: tf.reshape(tf.ones([6]), [4]), IAE, "tensor with 6 values, but the requested shape has 4"),
    (lambda: tf.pad(tf.ones([2]), [[3, 3]], "REFLECT"), IAE, "paddings must be less than the dimension size: 3, 3"),
    (lambda: tf.pad(tf.ones([2]), [[3, 1]], "SYMMETRIC"), IAE, "paddings must be no greater than the dimension size"),
    (lambda: tf.pad(tf.ones([2]), [[-1, 1]]), IAE, "Paddings must be non-negative: -1 1"),
    (lambda: tf.pad(tf.ones([2]), [[1, 1], [1, 1]]), IAE, "The first dimension of paddings must be the rank"),
    (lambda: tf.pad(tf.ones([2]), [[1, 1]], "FOO"), ValueError, "expected to be one of"),
    (lambda: tf.slice(tf.ones([3]), [1], [5]), IAE, r"Expected size\[0\] in \[0, 2\], but got 5"),
    (lambda: tf.slice(tf.ones([3]), [4], [-1]), IAE, r"Expected begin\[0\] in \[0, 3\], but got 4"),
    (lambda: tf.slice(tf.ones([3, 3]), [0], [1]), IAE, "Expected begin and size arguments to be 1-D tensors of size 2"),
    (lambda: tf.broadcast_to(tf.ones([3]), [2, 2]), IAE, r"Incompatible shapes: \[3\] vs. \[2,2\]"),
    (lambda: tf.broadcast_to(tf.ones([2, 2, 2]), [2, 2]), IAE, "Rank of input \\(3\\) must be no greater than"),
    (lambda: tf.reverse(tf.ones([1, 2]), [2]), IAE, r"'axis'\[0\] = 2 is out of valid range"),
    (lambda: tf.reverse(tf.ones([1, 2]), [0, 0]), IAE, "axis 0 specified more than once."),
    (lambda: tf.fill([2], [1, 2]), IAE, r"value must represent a scalar, got shape \[2\]"),
    (lambda: tf.zeros([-1]), IAE, "Dimension -1 must be >= 0"),
    (lambda: tf.one_hot([1], 3, axis=2), IAE, r"Expected axis to be -1 or between \[0, 2\).  But received: 2"),
    (lambda: tf.one_hot([1], -1), IAE, "depth must be non-negative, got: -1"),
    (lambda: tf.one_hot([1.0], 3), IAE, "Value for attr 'TI' of float is not in the list of allowed values"),
    (lambda: tf.one_hot([1], 3, on_value=tf.constant(1, tf.int64), dtype=tf.int32), TypeError,
     "dtype <dtype: 'int64'> of on_value does not match dtype parameter <dtype: 'int32'>"),
    (lambda: tf.boolean_mask(tf.ones([3]), [True, False]), ValueError, r"Shapes \(3,\) and \(2,\) are incompatible"),
    (lambda: tf.boolean_mask(tf.ones([3]), True), ValueError, "mask cannot be scalar."),
    (lambda: tf.range(0, 5, 0), IAE, "Requires delta != 0: 0"),
    (lambda: tf.range(5, 0, 1), IAE, "Requires start <= limit when delta > 0: 5/0"),
    (lambda: tf.range(0, 5, -1), IAE, "Requires start >= limit when delta < 0: 0/5"),
    (lambda: tf.range(1.5, 5, dtype=tf.int32), TypeError, "Cannot convert 1.5 to EagerTensor of dtype int32"),
]


@pytest.mark.parametrize("fn,cls,match", ERRORS)
def test_eager_errors(fn, cls, match):
    eager_error(cls, match, fn)


@pytest.mark.parametrize("build,match", [
    (lambda x: tf.concat([x, tf.ones([2, 4])], 0), "Dimension 1 in both shapes must be equal"),
    (lambda x: tf.squeeze(x, 1), r"Can not squeeze dim\[1\], expected a dimension of 1, got 3"),
    (lambda x: tf.expand_dims(x, 3), "Tried to expand dim index 3"),
    (lambda x: tf.transpose(x, [0]), "transpose expects a vector of size 2"),
    (lambda x: tf.reshape(x, [4, -1]), None),
    (lambda x: tf.split(x, 2, axis=1), r"split_dim 1 \(size = 3\) and num_split 2"),
    (lambda x: tf.tile(x, [1]), "vector of length 2 but got length 1"),
    (lambda x: tf.pad(x, [[0, 0], [3, 0]], "REFLECT"), "paddings must be less than the dimension size"),
    (lambda x: tf.slice(x, [0, 1], [1, 3]), r"Expected size\[1\] in \[0, 2\], but got 3"),
    (lambda x: tf.gather(x, [0], axis=3), "Shape must be at least rank 4"),
    (lambda x: tf.broadcast_to(x, [2, 2]), r"Incompatible shapes: \[\?,3\] vs. \[2,2\]"),
])
def test_graph_errors_are_value_errors(build, match):
    if match is None:  # [None, 3] reshapes to [4, -1] only at run time: no static error
        assert graph_shape(build, (tf.float32, [None, 3])) == tf.TensorShape([4, None])
        return
    with pytest.raises(ValueError, match=match):
        graph_shape(build, (tf.float32, [None, 3]))


# ---------------------------------------------------------------- graph-mode shape inference (TensorFlow's answers)
X = (tf.float32, [None, 2, 3])
Y = (tf.float32, [3, 4])
SHAPES = [
    (lambda x, y: tf.reshape(x, [tf.shape(x)[0], -1]), [None, None]),
    (lambda x, y: tf.reshape(x, tf.shape(y)), [3, 4]),
    (lambda x, y: tf.reshape(x, [-1]), [None]),
    (lambda x, y: tf.reshape(x, [-1, 6]), [None, 6]),
    (lambda x, y: tf.reshape(y, [tf.shape(x)[0], 2, -1]), [None, 2, None]),
    (lambda x, y: tf.squeeze(x), None),
    (lambda x, y: tf.squeeze(y), [3, 4]),
    (lambda x, y: tf.squeeze(x, [0]), [2, 3]),
    (lambda x, y: tf.concat([x, x], 0), [None, 2, 3]),
    (lambda x, y: tf.concat([x, x], -2), [None, 4, 3]),
    (lambda x, y: tf.tile(x, [2, 1, 1]), [None, 2, 3]),
    (lambda x, y: tf.tile(x, tf.shape(x)), [None, 4, 9]),
    (lambda x, y: tf.broadcast_to(y, tf.shape(y)), [3, 4]),
    (lambda x, y: tf.broadcast_to(tf.ones([3]), [tf.shape(y)[0], 3]), [3, 3]),
    (lambda x, y: tf.zeros(tf.shape(x)), [None, 2, 3]),
    (lambda x, y: tf.zeros([tf.shape(x)[0], 4]), [None, 4]),
    (lambda x, y: tf.ones(tf.shape(x)[1:]), [2, 3]),
    (lambda x, y: tf.fill(tf.shape(y), 1.0), [3, 4]),
    (lambda x, y: tf.range(tf.shape(x)[0]), [None]),
    (lambda x, y: tf.range(3), [3]),
    (lambda x, y: tf.range(tf.size(y)), [12]),
    (lambda x, y: tf.shape(x), [3]),
    (lambda x, y: tf.size(x), []),
    (lambda x, y: tf.rank(x), []),
    (lambda x, y: tf.gather(x, [0, 1], axis=1), [None, 2, 3]),
    (lambda x, y: tf.gather(x, tf.range(tf.shape(x)[0])), [None, 2, 3]),
    (lambda x, y: tf.gather(y, [[0, 1]], axis=1), [3, 1, 2]),
    (lambda x, y: tf.gather_nd(x, [[0, 1]]), [1, 3]),
    (lambda x, y: tf.pad(x, [[1, 1], [0, 2], [0, 0]]), [None, 4, 3]),
    (lambda x, y: tf.pad(x, [[1, 1], [0, 1], [0, 0]], "SYMMETRIC"), [None, 3, 3]),
    (lambda x, y: tf.slice(x, [0, 0, 0], [-1, 1, 2]), [None, 1, 2]),
    (lambda x, y: tf.slice(y, [1, 1], [-1, -1]), [2, 3]),
    (lambda x, y: tf.slice(y, tf.shape(x)[:2], [1, 1]), [1, 1]),
    (lambda x, y: tf.split(x, [1, -1], axis=2), [[None, 2, 1], [None, 2, 2]]),
    (lambda x, y: tf.split(x, [1, -1], axis=0), [[1, 2, 3], [None, 2, 3]]),
    (lambda x, y: tf.split(y, 2, axis=1), [[3, 2], [3, 2]]),
    (lambda x, y: tf.boolean_mask(x, tf.ones(tf.shape(x)[:1], tf.bool)), [None, 2, 3]),
    (lambda x, y: tf.boolean_mask(y, [True, False, True]), [None, 4]),
    (lambda x, y: tf.one_hot(tf.cast(y, tf.int32), 4), [3, 4, 4]),
    (lambda x, y: tf.one_hot(tf.cast(y, tf.int32), 4, axis=0), [4, 3, 4]),
    (lambda x, y: tf.eye(tf.shape(x)[0]), [None, None]),
    (lambda x, y: tf.eye(tf.shape(y)[0], 2, batch_shape=[5]), [5, 3, 2]),
    (lambda x, y: tf.expand_dims(x, -1), [None, 2, 3, 1]),
    (lambda x, y: tf.transpose(x), [3, 2, None]),
    (lambda x, y: tf.transpose(x, [1, 0, 2]), [2, None, 3]),
    (lambda x, y: tf.reverse(x, [0]), [None, 2, 3]),
    (lambda x, y: tf.sequence_mask(tf.range(tf.shape(x)[0]), 5), [None, 5]),
    (lambda x, y: tf.sequence_mask(tf.range(3)), [3, None]),
]


@pytest.mark.parametrize("build,expected", SHAPES)
def test_graph_shape_inference(build, expected):
    got = graph_shape(build, X, Y)
    if isinstance(got, list):
        assert got == [tf.TensorShape(e) for e in expected]
    else:
        assert got == tf.TensorShape(expected)


def test_unknown_rank_inputs():
    U = (tf.float32, None)
    for build in (lambda u: tf.transpose(u), lambda u: tf.squeeze(u), lambda u: tf.expand_dims(u, 0),
                  lambda u: tf.concat([u, u], 0), lambda u: tf.gather(u, [0]), lambda u: tf.reshape(u, tf.shape(u))):
        assert graph_shape(build, U) == tf.TensorShape(None)
    assert graph_shape(lambda u: tf.reshape(u, [2, -1]), U) == tf.TensorShape([2, None])
    assert graph_shape(lambda u: tf.shape(u), U) == tf.TensorShape([None])
    assert graph_shape(lambda u: tf.tile(u, [1, 2]), U) == tf.TensorShape([None, None])
    assert graph_shape(lambda u: tf.pad(u, [[1, 1]]), U) == tf.TensorShape([None])


def test_shape_is_a_shape_op_whose_value_is_known_when_static():
    g = Graph()
    with g.as_default():
        y = g.placeholder(tf.float32, [3, 4])
        x = g.placeholder(tf.float32, [None, 4])
        s = tf.shape(y)
        assert s.op.type == "Shape" and s.dtype is tf.int32
        assert A.partial_value(s) == [3, 4]
        assert A.partial_value(tf.shape(x)) == [None, 4]
        assert A.partial_value(tf.shape(x)[1]) == 4
        assert A.partial_value(tf.stack([tf.shape(x)[0], 7])) == [None, 7]
        assert A.partial_value(tf.concat([tf.shape(x), [5]], 0)) == [None, 4, 5]
        assert A.partial_value(tf.size(y)) == 12 and A.partial_value(tf.rank(x)) == 2
        assert tf.shape(x, out_type=tf.int64).dtype is tf.int64


def test_dynamic_shapes_run_in_tf_function():
    @tf.function
    def f(x, y, n):
        return tf.reshape(x, tf.shape(y)), tf.zeros([tf.shape(x)[0], 2]), tf.tile(y, [n, 1]), tf.range(n), \
            tf.slice(x, [n], [1]), tf.eye(n), tf.broadcast_to(y[:1], tf.shape(y)), tf.sequence_mask([1], n)

    x, y = np.arange(6.0, dtype=np.float32), np.ones((2, 3), np.float32)
    r, z, t, rg, sl, e, b, sm = f(tf.constant(x), tf.constant(y), tf.constant(2))
    same(r, x.reshape(2, 3))
    same(z, np.zeros((6, 2), np.float32))
    same(t, np.tile(y, [2, 1]))
    same(rg, np.arange(2, dtype=np.int32))
    same(sl, x[2:3])
    same(e, np.eye(2, dtype=np.float32))
    same(b, y)
    same(sm, np.array([[True, False]]))


def test_unused_gather_does_not_fail_at_trace_time():
    @tf.function
    def f(x):
        tf.gather(x, [1])
        return x

    same(f(tf.constant([0.0])), np.array([0.0], np.float32))


# ---------------------------------------------------------------- gradients vs central differences
def _i32(a):
    return np.array(a, np.int32)


GRADS = [
    (A.TRANSPOSE, [rand((2, 3, 4))], {"perm": (2, 0, 1)}, 0),
    (A.TRANSPOSE, [rand((2, 3))], {"perm": None}, 0),
    (A.CONJUGATE_TRANSPOSE, [rand((2, 3))], {"perm": (1, 0)}, 0),
    (A.CONCAT, [rand((2, 3)), rand((2, 1)), rand((2, 2))], {"axis": 1}, 0),
    (A.SPLIT, [rand((4, 3))], {"num_split": 2, "axis": 0}, 1),
    (A.SPLITV, [rand((2, 5))], {"size_splits": (1, -1, 2), "axis": 1}, 1),
    (A.SQUEEZE, [rand((1, 3, 1))], {"axis": None}, 0),
    (A.EXPAND_DIMS, [rand((2, 3))], {"axis": 1}, 0),
    (A.TILE, [rand((2, 3))], {"multiples": (2, 3)}, 0),
    (A.BROADCAST_TO, [rand((3, 1))], {"shape": (2, 3, 4)}, 0),
    (A.GATHER, [rand((4, 3)), _i32([[0, 2], [2, 2]])], {"axis": 0, "batch_dims": 0}, 0),
    (A.GATHER, [rand((2, 4, 3)), _i32([[0, 3, 3], [1, 1, 0]])], {"axis": 1, "batch_dims": 1}, 0),
    (A.GATHER_ND, [rand((3, 4)), _i32([[0, 1], [2, 3], [0, 1]])], {"batch_dims": 0}, 0),
    (A.GATHER_ND, [rand((2, 3, 4)), _i32([[[1], [1]], [[0], [2]]])], {"batch_dims": 1}, 0),
    (A.PAD, [rand((2, 3)), np.float64(0)], {"paddings": ((1, 0), (2, 1))}, 0),
    (A.MIRROR_PAD, [rand((3, 4))], {"paddings": ((2, 1), (1, 3)), "mode": "REFLECT"}, 0),
    (A.MIRROR_PAD, [rand((3, 4))], {"paddings": ((3, 1), (0, 4)), "mode": "SYMMETRIC"}, 0),
    (A.SLICE, [rand((4, 3))], {"begin": (1, 0), "size": (2, -1)}, 0),
    (A.REVERSE, [rand((2, 3, 2))], {"axis": (0, 2)}, 0),
    (A.RESHAPE, [rand((2, 3))], {"shape": (3, -1)}, 0),
    (A.FILL, [np.float64(2.0)], {"shape": (2, 3)}, 0),
    (A.BOOLEAN_MASK, [rand((3, 2)), np.array([True, False, True])], {"axis": 0}, 0),
    (A.TILE_GRAD, [rand((4, 9)), rand((2, 3))], {"multiples": (2, 3)}, 0),
    (A.GATHER_GRAD, [rand((2, 2, 3)), rand((4, 3)), _i32([[0, 1], [1, 1]])], {"axis": 0, "batch_dims": 0}, 0),
    (A.MIRROR_PAD_GRAD, [rand((6, 8))], {"paddings": ((2, 1), (1, 3)), "mode": "REFLECT"}, 0),
    (A.SLICE_GRAD, [rand((2, 3)), rand((4, 3))], {"begin": (1, 0), "size": (2, -1)}, 0),
    (A.BOOLEAN_MASK_GRAD, [rand((2, 2)), rand((3, 2)), np.array([True, False, True])], {"axis": 0}, 0),
    (A.GATHER_ND_GRAD, [rand((3,)), rand((3, 4)), _i32([[0, 1], [2, 3], [0, 1]])], {"batch_dims": 0}, 0),
]


@pytest.mark.parametrize("op,inputs,attrs,out_index", GRADS, ids=lambda v: getattr(v, "name", None))
def test_gradients(op, inputs, attrs, out_index):
    # The grad ops' other inputs only give shapes and indices; Pad's constant value has no gradient (as in TF).
    wrt = [0] if op.name.endswith("Grad") or op is A.PAD else None
    check_grad(op, inputs, attrs, out_index, wrt=wrt)


def test_gradient_of_dynamic_shape_ops_keeps_one_entry_per_input():
    g = Graph()
    with g.as_default():
        x = g.placeholder(tf.float32, [None, 3])
        out = tf.reshape(x, tf.shape(x))
        assert len(out.op.inputs) == 2
        grads = A.RESHAPE.grad(out.op, out)
        assert len(grads) == 2 and grads[1] is None and grads[0].shape == tf.TensorShape([None, 3])


def test_non_differentiable_ops_have_no_gradient():
    for op in (A.SHAPE, A.SIZE, A.RANK, A.RANGE, A.EYE, A.ONE_HOT, A.SEQUENCE_MASK):
        assert op.grad is None


def test_stack_of_mixed_dtypes_is_an_error_not_a_promotion():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pack"):
        tf.stack([tf.constant(1), tf.constant(2.0)])
    with pytest.raises(TypeError, match="don't all match"):
        tf.function(lambda a, b: tf.stack([a, b]))(tf.constant(1), tf.constant(2.0))
    assert tf.stack([tf.constant(1), 2]).dtype == tf.int32  # Python values take the tensors' dtype
