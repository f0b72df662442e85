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
