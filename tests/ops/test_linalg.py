"""tf.linalg: values vs NumPy, TensorFlow's errors, gradients vs finite differences, graph shapes."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph
from rivulet.ops import linalg_ops as L

from .gradcheck import check_fn_grad, check_op_grad

RNG = np.random.default_rng(11)


def _m(*shape, dtype=np.float64):
    x = RNG.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(-1, 1, shape)
    return x.astype(dtype)


def _well_conditioned(*shape, dtype=np.float64):
    n = shape[-1]
    return (_m(*shape, dtype=dtype) + 3 * np.eye(n)).astype(dtype)


# ---------------------------------------------------------------- matvec, transposes
def test_matvec():
    for dt in (np.float32, np.float64, np.int32, np.complex128):
        a, b = _m(2, 3, 4, dtype=dt), _m(4, dtype=dt)
        y = tf.linalg.matvec(tf.constant(a), tf.constant(b))
        assert y.dtype == tf.as_dtype(dt) and y.shape == (2, 3)
        np.testing.assert_allclose(y.numpy(), a @ b, rtol=1e-6)
    a, b = _m(3, 3), _m(3)
    np.testing.assert_allclose(tf.linalg.matvec(a, b, transpose_a=True).numpy(), a.T @ b)
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[2,2\], In\[1\]: \[3,1\]"):
        tf.linalg.matvec(tf.constant([[1.0, 2], [3, 4]]), tf.constant([1.0, 1, 1]))
    check_fn_grad(tf.linalg.matvec, [_m(2, 3, 4), _m(4)], atol=1e-8)


def test_matrix_transpose_and_adjoint():
    x = _m(2, 3, 4, dtype=np.complex128)
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(), np.swapaxes(x, -1, -2))
    np.testing.assert_array_equal(tf.linalg.adjoint(x).numpy(), np.conj(np.swapaxes(x, -1, -2)))
    np.testing.assert_array_equal(tf.linalg.transpose(x, conjugate=True).numpy(), np.conj(np.swapaxes(x, -1, -2)))
    with pytest.raises(ValueError, match="should be a \\(batch\\) matrix with rank >= 2.  Received `a` = "
                                         "\\[1. 2. 3.\\] with shape: \\(3,\\)"):
        tf.linalg.matrix_transpose(tf.constant([1.0, 2, 3]))


# ---------------------------------------------------------------- diagonals and trace
def test_diag_and_diag_part():
    d = np.array([[1, 2], [3, 4]], np.int32)
    np.testing.assert_array_equal(tf.linalg.diag(d[0]).numpy(), np.diag(d[0]))
    for k in (-2, -1, 0, 1, 2):
        y = tf.linalg.diag(tf.constant(d), k=k)
        assert y.dtype == tf.int32 and y.shape == (2, 2 + abs(k), 2 + abs(k))
        for i in range(2):
            np.testing.assert_array_equal(y.numpy()[i], np.diag(d[i], k))
            np.testing.assert_array_equal(tf.linalg.diag_part(y, k=k).numpy()[i], d[i])
    y = tf.linalg.diag(tf.constant([1.0, 2.0]), num_rows=2, num_cols=3, padding_value=9)
    np.testing.assert_array_equal(y.numpy(), [[1, 9, 9], [9, 2, 9]])
    x = np.arange(12).reshape(3, 4)
    for k in (-2, 0, 1, 3):
        np.testing.assert_array_equal(tf.linalg.diag_part(x, k=k).numpy(), np.diagonal(x, k))
    with pytest.raises(InvalidArgumentError, match=r"input must be at least 2-dim, received shape: \[2\]"):
        tf.linalg.diag_part(tf.constant([1, 2]))
    with pytest.raises(NotImplementedError):
        tf.linalg.diag_part(x, k=(0, 1))


def test_set_diag_and_trace():
    x = _m(2, 3, 3)
    d = _m(2, 3)
    y = tf.linalg.set_diag(x, d).numpy()
    for i in range(2):
        np.testing.assert_array_equal(np.diagonal(y[i]), d[i])
        np.testing.assert_array_equal(y[i] - np.diag(np.diagonal(y[i])), x[i] - np.diag(np.diagonal(x[i])))
    assert tf.linalg.trace(tf.constant([[1, 2], [3, 4]])).numpy() == 5
    t = tf.linalg.trace(tf.constant([[[1, 2, 0], [3, 4, 0]]]))
    assert t.dtype == tf.int32 and t.numpy().tolist() == [5]
    with pytest.raises(InvalidArgumentError, match="at least 2-dim"):
        tf.linalg.trace(tf.constant([1, 2]))


def test_diagonal_gradients():
    check_op_grad(L.MATRIX_DIAG, [_m(2, 3)], {"k": 1, "num_rows": -1, "num_cols": -1, "padding_value": 0.0})
    check_op_grad(L.MATRIX_DIAG_PART, [_m(2, 3, 4)], {"k": -1})
    check_op_grad(L.MATRIX_SET_DIAG, [_m(3, 4), _m(3)], {"k": 0})
    check_fn_grad(tf.linalg.trace, [_m(2, 3, 3)])


# ---------------------------------------------------------------- det, inv
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.complex64, np.complex128])
def test_det_and_inv(dt):
    x = _well_conditioned(2, 3, 3, dtype=dt)
    d, i = tf.linalg.det(x), tf.linalg.inv(x)
    assert d.dtype == i.dtype == tf.as_dtype(dt) and d.shape == (2,) and i.shape == (2, 3, 3)
    tol = 5e-3 if dt == np.float16 else 1e-5
    wide = x.astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)
    np.testing.assert_allclose(d.numpy(), np.linalg.det(wide), rtol=tol)
    np.testing.assert_allclose(i.numpy(), np.linalg.inv(wide), rtol=tol, atol=tol)
    np.testing.assert_allclose(tf.linalg.inv(x, adjoint=True).numpy(), np.conj(np.swapaxes(np.linalg.inv(wide), -1, -2)),
                               rtol=tol, atol=tol)


def test_det_and_inv_errors():
    with pytest.raises(InvalidArgumentError, match="MatrixDeterminant"):
        tf.linalg.det(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(InvalidArgumentError, match=r"Input matrix must be square. \[Op:MatrixDeterminant\]"):
        tf.linalg.det(tf.constant([[1.0, 2, 3], [3, 4, 5]]))
    with pytest.raises(InvalidArgumentError, match=r"Input is not invertible. \[Op:MatrixInverse\]"):
        tf.linalg.inv(tf.constant([[1.0, 2], [2, 4]]))
    with pytest.raises(InvalidArgumentError, match="Input matrix must be square"):
        tf.linalg.inv(tf.constant([[1.0, 2, 3], [3, 4, 5]]))
    with pytest.raises(InvalidArgumentError, match="must have rank >= 2, got 1"):
        tf.linalg.inv(tf.constant([1.0, 2]))
    assert tf.linalg.det(tf.constant([[1.0, 2], [2, 4]])).numpy() == 0


def test_det_and_inv_gradients():
    check_op_grad(L.DET, [_well_conditioned(2, 3, 3)], atol=1e-7)
    check_op_grad(L.DET, [_well_conditioned(3, 3, dtype=np.complex128)], atol=1e-7)
    check_op_grad(L.INV, [_well_conditioned(2, 3, 3)], {"adjoint": False}, atol=1e-7)
    check_op_grad(L.INV, [_well_conditioned(3, 3, dtype=np.complex128)], {"adjoint": True}, atol=1e-7)


# ---------------------------------------------------------------- einsum, tensordot
EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ij->", [(2, 3)]),
          ("ij->ji", [(2, 3)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
          ("i,j->ij", [(3,), (4,)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
          ("ii->i", [(3, 3)]), ("i,i", [(4,), (4,)])]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy(eq, shapes):
    for dt in (np.float32, np.float64, np.int32, np.complex128):
        xs = [_m(*s, dtype=dt) if dt != np.int32 else np.arange(np.prod(s), dtype=dt).reshape(s) for s in shapes]
        y = tf.einsum(eq, *[tf.constant(x) for x in xs])
        expected = np.einsum(eq, *xs)
        assert y.dtype == tf.as_dtype(dt) and y.shape == np.shape(expected)
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("eq,shapes", [e for e in EINSUM if e[0] != "ii->i" and e[0] != "ii"], ids=str)
def test_einsum_gradient(eq, shapes):
    xs = [_m(*s) for s in shapes]
    check_op_grad(L.EINSUM, xs, {"equation": ",".join(L._parse(eq)[0]) + "->" + L._parse(eq)[1]}, atol=1e-8)
    check_fn_grad(lambda *ts: tf.einsum(eq, *ts), [_m(*s, dtype=np.complex128) for s in shapes], atol=1e-8)


def test_einsum_errors():
    with pytest.raises(InvalidArgumentError, match="input #1\\(zero-based\\) was expected to be a float tensor but is "
                                                   "a int32 tensor"):
        tf.einsum("ij,jk->ik", tf.constant([[1.0, 2]]), tf.constant([[1], [2]]))
    with pytest.raises(InvalidArgumentError, match=r"Expected dimension 2 at axis 0 of the input shaped \[3,1\] but got "
                                                   r"dimension 3"):
        tf.einsum("ij,jk->ik", tf.constant([[1.0, 2]]), tf.constant([[1.0], [2], [3]]))
    with pytest.raises(ValueError, match='Got 1 inputs for equation "ij,jk->ik", expecting 2'):
        tf.einsum("ij,jk->ik", tf.constant([[1.0, 2]]))
    with pytest.raises(InvalidArgumentError, match="Einsum"):
        tf.einsum("ij->ji", tf.constant([[True]]))
    with pytest.raises(NotImplementedError, match="repeated subscript"):
        check_op_grad(L.EINSUM, [_m(3, 3)], {"equation": "ii->i"})


def test_tensordot():
    a, b = _m(2, 3, 4), _m(4, 3, 5)
    for axes in (0, 1, [[1, 2], [1, 0]], [2, 0], ([2], [0])):
        y = tf.tensordot(a, b, axes)
        np.testing.assert_allclose(y.numpy(), np.tensordot(a, b, axes), rtol=1e-12)
    assert tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), 1).dtype == tf.float32
    check_fn_grad(lambda x, y: tf.tensordot(x, y, [[1, 2], [1, 0]]), [a, b], atol=1e-8)


def test_tensordot_errors():
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,4\]"):
        tf.tensordot(tf.ones([2, 3]), tf.ones([2, 4]), 1)
    with pytest.raises(ValueError, match="`axes` must not be larger than the number of dimensions of tensor"):
        tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), 3)
    with pytest.raises(ValueError, match="Different number of contraction axes `a` and `b`, 2 != 1."):
        tf.tensordot(tf.ones([2, 3]), tf.ones([3, 4]), [[1, 0], [0]])
    with pytest.raises(InvalidArgumentError, match="but is a double tensor"):
        tf.tensordot(tf.ones([2, 3]), tf.constant(np.ones((3, 4))), 1)


# ---------------------------------------------------------------- norm
NORMS = [({}, lambda x: np.sqrt(np.sum(x * x))), ({"axis": 1}, lambda x: np.linalg.norm(x, axis=1)),
         ({"ord": 1, "axis": 1}, lambda x: np.linalg.norm(x, 1, axis=1)),
         ({"ord": np.inf, "axis": 0, "keepdims": True}, lambda x: np.linalg.norm(x, np.inf, axis=0, keepdims=True)),
         ({"ord": 1}, lambda x: np.sum(np.abs(x))), ({"ord": 3}, lambda x: np.sum(np.abs(x) ** 3) ** (1 / 3)),
         ({"ord": 1, "axis": [0, 1]}, lambda x: np.linalg.norm(x, 1)),
         ({"ord": np.inf, "axis": (0, 1)}, lambda x: np.linalg.norm(x, np.inf)),
         ({"ord": "fro", "axis": [0, 1]}, lambda x: np.linalg.norm(x, "fro")),
         ({"ord": "euclidean", "axis": -1}, lambda x: np.linalg.norm(x, axis=-1)),
         ({"ord": 1, "axis": [1, 0], "keepdims": True}, lambda x: np.linalg.norm(x.T, 1).reshape(1, 1))]


@pytest.mark.parametrize("kw,ref", NORMS, ids=[str(k) for k, _ in NORMS])
def test_norm(kw, ref):
    x = np.array([[3.0, -4.0, 0.5], [1.0, 1.0, -2.0]])
    for dt in (np.float32, np.float64):
        y = tf.norm(tf.constant(x.astype(dt)), **kw)
        assert y.dtype == tf.as_dtype(dt)
        np.testing.assert_allclose(y.numpy(), ref(x), rtol=1e-6)
        np.testing.assert_allclose(tf.linalg.norm(x.astype(dt), **kw).numpy(), ref(x), rtol=1e-6)
    check_fn_grad(lambda t: tf.norm(t, **kw), [x], atol=1e-7)


def test_norm_special_cases_and_errors():
    c = tf.norm(tf.constant([3 + 4j]))
    assert c.dtype == tf.complex128 and c.numpy() == 5  # TensorFlow keeps the complex dtype
    x = tf.constant([[3.0, -4], [1, 1]])
    for kw, msg in [({"ord": "fro"}, "'ord' must be a supported vector norm, got fro"),
                    ({"ord": 0}, "'ord' must be a supported vector norm, got 0"),
                    ({"axis": [0, 0]}, "a tuple of 2 unique integers, got \\(0, 0\\)"),
                    ({"axis": [0, 1, 1]}, "a tuple of 2 unique integers, got \\[0, 1, 1\\]"),
                    ({"ord": 3, "axis": [0, 1]}, "'ord' must be a supported matrix norm")]:
        with pytest.raises(ValueError, match=msg):
            tf.norm(x, **kw)
    with pytest.raises(InvalidArgumentError, match=r"Invalid reduction dimension \(2 for input with 2"):
        tf.norm(x, axis=2)
    with pytest.raises(InvalidArgumentError, match="Sqrt"):
        tf.norm(tf.constant([[3, -4], [1, 1]]))


# ---------------------------------------------------------------- graph shapes
def test_linalg_graph_shapes():
    g = Graph()
    with g.as_default():
        m = g.placeholder(tf.float32, [None, 4, 4])
        r = g.placeholder(tf.float32, [None, 3])
        u = g.placeholder(tf.float32, None)
        cases = [(tf.linalg.det(m), [None]), (tf.linalg.inv(m), [None, 4, 4]), (tf.linalg.trace(m), [None]),
                 (tf.linalg.diag_part(m, k=1), [None, 3]), (tf.linalg.diag(r), [None, 3, 3]),
                 (tf.linalg.diag(r, k=-1), [None, 4, 4]), (tf.linalg.set_diag(m, tf.ones([4])), [None, 4, 4]),
                 (tf.einsum("bij,bjk->bik", m, m), [None, 4, 4]), (tf.einsum("...i,i->...", r, tf.ones([3])), [None]),
                 (tf.tensordot(r, tf.ones([3, 5]), 1), [None, 5]), (tf.norm(r, axis=1), [None]),
                 (tf.norm(m, ord=1, axis=[1, 2]), [None]), (tf.linalg.matvec(m, tf.ones([4])), [None, 4]),
                 (tf.linalg.adjoint(m), [None, 4, 4])]
        unknown = [tf.linalg.det(u), tf.linalg.inv(u), tf.einsum("ij->ji", u)]
        with pytest.raises(ValueError, match="Input matrix must be square"):
            tf.linalg.det(g.placeholder(tf.float32, [2, 3]))
        with pytest.raises(ValueError, match="Expected dimension 4"):
            tf.einsum("ij,jk->ik", g.placeholder(tf.float32, [2, 4]), g.placeholder(tf.float32, [3, None]))
    for y, shape in cases:
        assert y.shape.as_list() == shape, y
        assert y.dtype == tf.float32
    assert all(y.shape.rank is None for y in unknown)
