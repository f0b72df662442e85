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
                 (tf.linalg.diag(r, k=-1), [None, 4, 4]), (tf.linalg.set_diag(m, tf.linalg.diag_part(m)), [None, 4, 4]),
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


# ---------------------------------------------------------------- decompositions and solvers
def _spd(*shape, dtype=np.float64):
    x = _m(*shape, dtype=dtype)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dtype)


def _wide(dt):
    return np.complex128 if np.dtype(dt).kind == "c" else np.float64


def _tol(dt):
    return 1e-4 if np.dtype(dt) in (np.float32, np.complex64) else 1e-10


def _adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(3, 3), (2, 4, 4), (2, 1, 2, 2), (0, 3, 3)]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_cholesky_slogdet_logdet(dt, shape):
    a = _spd(*shape, dtype=dt)
    chol = tf.linalg.cholesky(a)
    assert chol.dtype == tf.as_dtype(dt) and chol.shape == shape
    np.testing.assert_allclose(chol.numpy(), np.linalg.cholesky(a.astype(_wide(dt))), rtol=_tol(dt), atol=_tol(dt))
    sign, logabs = tf.linalg.slogdet(a)
    rs, rl = np.linalg.slogdet(a.astype(_wide(dt)))
    assert sign.dtype == logabs.dtype == tf.as_dtype(dt) and sign.shape == shape[:-2]
    np.testing.assert_allclose(sign.numpy(), rs, rtol=_tol(dt), atol=_tol(dt))
    np.testing.assert_allclose(logabs.numpy(), rl, rtol=_tol(dt), atol=_tol(dt))
    ld = tf.linalg.logdet(a)
    assert ld.dtype == tf.as_dtype(dt).real_dtype and ld.shape == shape[:-2]
    np.testing.assert_allclose(ld.numpy(), rl, rtol=_tol(dt), atol=_tol(dt))


def test_cholesky_reads_lower_triangle_and_nans_when_not_positive_definite():
    a = _spd(3, 3)
    np.testing.assert_allclose(tf.linalg.cholesky(np.tril(a)).numpy(), np.linalg.cholesky(a))
    bad = np.stack([a, -a])  # only the second matrix fails: its lower triangle becomes NaN, as in TensorFlow
    out = tf.linalg.cholesky(bad).numpy()
    np.testing.assert_allclose(out[0], np.linalg.cholesky(a))
    assert np.isnan(out[1][np.tril_indices(3)]).all() and (out[1][np.triu_indices(3, 1)] == 0).all()
    sign, logabs = tf.linalg.slogdet(tf.constant([[1.0, 2], [2, 4]]))
    assert sign.numpy() == 0 and logabs.numpy() == -np.inf
    assert tf.linalg.slogdet(np.array([[0.0, 1], [1, 0]])).sign.numpy() == -1


def test_decomposition_errors():
    cases = [(tf.linalg.cholesky, "Input matrix must be square. \\[Op:Cholesky\\]"),
             (tf.linalg.slogdet, "Input matrix must be square. \\[Op:LogMatrixDeterminant\\]"),
             (tf.linalg.eigh, "Input matrix must be square. \\[Op:SelfAdjointEigV2\\]"),
             (tf.linalg.expm, "Input matrix must be square")]
    for fn, msg in cases:
        with pytest.raises(InvalidArgumentError, match=msg):
            fn(tf.ones([2, 3]))
    for fn, op in [(tf.linalg.cholesky, "Cholesky"), (tf.linalg.svd, "Svd"), (tf.linalg.qr, "Qr"),
                   (tf.linalg.eigvalsh, "SelfAdjointEigV2")]:
        with pytest.raises(InvalidArgumentError, match=f"must have rank >= 2, got 1 \\[Op:{op}\\]"):
            fn(tf.ones([3]))
        with pytest.raises(InvalidArgumentError, match="not in the list of allowed values"):
            fn(tf.ones([2, 2], tf.int32))
    for fn in (tf.linalg.cholesky, tf.linalg.slogdet, tf.linalg.svd, tf.linalg.eigh):
        with pytest.raises(tf.errors.NotFoundError, match="Could not find device for node"):
            fn(tf.eye(2, dtype=tf.float16))
    q, r = tf.linalg.qr(tf.eye(2, dtype=tf.float16))  # QR has a half kernel
    assert q.dtype == r.dtype == tf.float16
    with pytest.raises(TypeError, match="float`-like `dtype` \\(saw int32\\)"):
        tf.linalg.pinv(tf.ones([2, 2], tf.int32))
    with pytest.raises(ValueError, match="does not support matrices of type"):
        tf.linalg.expm(tf.ones([2, 2], tf.int32))


@pytest.mark.parametrize("dt", DTYPES)
def test_solve_and_triangular_solve(dt):
    a, b = _well_conditioned(2, 3, 3, dtype=dt), _m(2, 3, 4, dtype=dt)
    wa, wb = a.astype(_wide(dt)), b.astype(_wide(dt))
    for adj in (False, True):
        x = tf.linalg.solve(a, b, adjoint=adj)
        assert x.dtype == tf.as_dtype(dt) and x.shape == (2, 3, 4)
        np.testing.assert_allclose(x.numpy(), np.linalg.solve(_adj(wa) if adj else wa, wb), rtol=_tol(dt) * 10,
                                   atol=_tol(dt) * 10)
        for lower in (True, False):
            tri = np.tril(wa) if lower else np.triu(wa)
            x = tf.linalg.triangular_solve(a, b, lower=lower, adjoint=adj)
            np.testing.assert_allclose(x.numpy(), np.linalg.solve(_adj(tri) if adj else tri, wb),
                                       rtol=_tol(dt) * 10, atol=_tol(dt) * 10)
    # triangular_solve broadcasts batch dimensions; cholesky_solve is built on it
    x = tf.linalg.triangular_solve(a[:, None], b[0])
    assert x.shape == (2, 1, 3, 4)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.tril(wa)[:, None], wb[0]), rtol=_tol(dt) * 10,
                               atol=_tol(dt) * 10)
    spd = _spd(2, 3, 3, dtype=dt)
    x = tf.linalg.cholesky_solve(tf.linalg.cholesky(spd), b)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(spd.astype(_wide(dt)), wb), rtol=_tol(dt) * 10,
                               atol=_tol(dt) * 10)


def test_solver_errors():
    a = tf.constant([[4.0, 1], [1, 3]])
    cases = [(lambda: tf.linalg.solve(tf.constant([[1.0, 2], [2, 4]]), tf.ones([2, 3])),
              r"Input matrix is not invertible. \[Op:MatrixSolve\]"),
             (lambda: tf.linalg.solve(tf.ones([2, 3]), tf.ones([2, 3])), "First input \\(lhs\\) must be a square"),
             (lambda: tf.linalg.solve(a, tf.ones([3, 3])), "Input matrix and rhs are incompatible"),
             (lambda: tf.linalg.solve(tf.ones([4, 2, 2]), tf.ones([2, 3])), "must have the same rank"),
             (lambda: tf.linalg.solve(tf.ones([4, 2, 2]), tf.ones([3, 2, 3])), "the same outer dimensions"),
             (lambda: tf.linalg.triangular_solve(tf.ones([2, 3]), tf.ones([2, 3])),
              r"In\[0\] matrices in the last dimensions must be square \(3 =/= 2\)"),
             (lambda: tf.linalg.triangular_solve(a, tf.ones([2])), r"In\[1\] ndims must be >= 2: 1"),
             (lambda: tf.linalg.triangular_solve(a, tf.ones([3, 3])), r"In\[0\] mismatch In\[1\] shape: 2 vs. 3"),
             (lambda: tf.linalg.triangular_solve(tf.ones([4, 2, 2]), tf.ones([3, 2, 3])),
              r"compatible batch dimensions: \[4,2,2\] vs. \[3,2,3\]"),
             (lambda: tf.linalg.triangular_solve(a, tf.ones([2, 3], tf.float64)), "but is a double tensor"),
             (lambda: tf.linalg.lstsq(tf.ones([4, 2]), tf.ones([3, 3])), r"Matrix size-incompatible"),
             (lambda: tf.linalg.band_part(tf.ones([3, 3]), 5, 0), r"num_lower must be negative or less or equal to "
                                                                  r"number of rows \(3\) got: 5"),
             (lambda: tf.linalg.band_part(tf.ones([3, 4]), 0, 5), r"number of columns \(4\) got: 5"),
             (lambda: tf.linalg.band_part(tf.ones([3]), 1, 0), r"input must be at least 2-dim, received shape: \[3\]"),
             (lambda: tf.linalg.band_part(tf.ones([3, 3]), tf.constant(0), tf.constant(1, tf.int64)),
              "input #2\\(zero-based\\) was expected to be a int32 tensor but is a int64 tensor")]
    for fn, msg in cases:
        with pytest.raises(InvalidArgumentError, match=msg):
            fn()
    with pytest.raises(tf.errors.NotFoundError):
        tf.linalg.solve(tf.eye(2, dtype=tf.float16), tf.ones([2, 1], tf.float16))
    # A zero on the diagonal is not an error for triangular_solve: it gives infinities, as in TensorFlow.
    assert np.isinf(tf.linalg.triangular_solve(tf.constant([[0.0, 0], [1, 1]]), tf.ones([2, 1])).numpy()).all()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_lstsq(dt):
    for shape_a, shape_b in [((5, 3), (5, 2)), ((2, 6, 3), (6, 1)), ((3, 5), (3, 2))]:
        a, b = _m(*shape_a, dtype=dt) + np.eye(*shape_a[-2:]).astype(dt), _m(*shape_b, dtype=dt)
        a64 = a.astype(np.float64)
        ref = np.linalg.pinv(a64) @ b.astype(np.float64)
        for fast in (True, False):
            x = tf.linalg.lstsq(a, b, fast=fast)
            assert x.dtype == tf.as_dtype(dt) and x.shape == ref.shape
            np.testing.assert_allclose(x.numpy(), ref, rtol=1e-3 if dt == np.float32 else 1e-8,
                                       atol=1e-3 if dt == np.float32 else 1e-8)
    a, b = _m(5, 3), _m(5, 2)
    ref = np.linalg.solve(a.T @ a + 0.5 * np.eye(3), a.T @ b)
    np.testing.assert_allclose(tf.linalg.lstsq(a, b, l2_regularizer=0.5).numpy(), ref, rtol=1e-10)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 2), (2, 2, 3)], ids=str)
def test_qr_and_svd(dt, shape):
    x = _m(*shape, dtype=dt)
    m, n = shape[-2:]
    k = min(m, n)
    for full in (False, True):
        q, r = tf.linalg.qr(x, full_matrices=full)
        cols = m if full else k
        assert q.dtype == r.dtype == tf.as_dtype(dt)
        assert q.shape == shape[:-2] + (m, cols) and r.shape == shape[:-2] + (cols, n)
        np.testing.assert_allclose((q.numpy() @ r.numpy()), x, atol=_tol(dt))
        eye = np.broadcast_to(np.eye(cols), shape[:-2] + (cols, cols))
        np.testing.assert_allclose(_adj(q.numpy()) @ q.numpy(), eye, atol=_tol(dt))
        np.testing.assert_array_equal(np.tril(r.numpy(), -1), 0)
        s, u, v = tf.linalg.svd(x, full_matrices=full)
        assert s.dtype == tf.as_dtype(dt).real_dtype and s.shape == shape[:-2] + (k,)
        assert u.shape == shape[:-2] + (m, m if full else k) and v.shape == shape[:-2] + (n, n if full else k)
        np.testing.assert_allclose(s.numpy(), np.linalg.svd(x.astype(_wide(dt)), compute_uv=False), rtol=_tol(dt),
                                   atol=_tol(dt))
        us = u.numpy()[..., :, :k] * s.numpy()[..., None, :]
        np.testing.assert_allclose(us @ _adj(v.numpy()[..., :, :k]), x, atol=_tol(dt) * 10)  # v, not v^H
    s_only = tf.linalg.svd(x, compute_uv=False)
    np.testing.assert_allclose(s_only.numpy(), s.numpy(), rtol=_tol(dt), atol=_tol(dt))


@pytest.mark.parametrize("dt", DTYPES)
def test_eigh_and_eigvalsh(dt):
    x = _m(2, 4, 4, dtype=dt)
    h = (x + _adj(x)) / 2
    e, v = tf.linalg.eigh(h)
    assert e.dtype == v.dtype == tf.as_dtype(dt) and e.shape == (2, 4) and v.shape == (2, 4, 4)
    np.testing.assert_allclose(e.numpy(), np.linalg.eigvalsh(h.astype(_wide(dt))), rtol=_tol(dt), atol=_tol(dt))
    np.testing.assert_allclose(v.numpy() @ (e.numpy()[..., None] * _adj(v.numpy())), h, atol=_tol(dt) * 10)
    np.testing.assert_allclose(tf.linalg.eigvalsh(h).numpy(), e.numpy(), rtol=_tol(dt), atol=_tol(dt))
    # only the lower triangle is read
    np.testing.assert_allclose(tf.linalg.eigvalsh(np.tril(h)).numpy(), e.numpy(), rtol=_tol(dt), atol=_tol(dt))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.complex128, np.bool_])
def test_band_part(dt):
    x = (RNG.uniform(-5, 5, (2, 4, 5)) + 0.5).astype(dt)
    rows, cols = np.arange(4)[:, None], np.arange(5)[None, :]
    for lo, up in [(0, 0), (1, 0), (-1, 0), (0, -1), (2, 1), (-1, -1), (4, 5)]:
        keep = ((lo < 0) | (rows - cols <= lo)) & ((up < 0) | (cols - rows <= up))
        y = tf.linalg.band_part(x, lo, up)
        assert y.dtype == tf.as_dtype(dt)
        np.testing.assert_array_equal(y.numpy(), np.where(keep, x, np.zeros((), dt)))
    y = tf.linalg.band_part(x, tf.constant(1), tf.constant(0))
    np.testing.assert_array_equal(y.numpy(), np.where(rows - cols <= 1, np.where(cols <= rows, x, 0), 0).astype(dt))


def test_expm_pinv_global_norm_l2_normalize():
    for x in (_m(3, 3), 4 * _m(2, 4, 4), np.zeros((2, 2)), _m(3, 3, dtype=np.complex128)):
        w, vecs = np.linalg.eig(x)  # diagonalisable (random): expm = V exp(W) V^-1
        ref = (vecs * np.exp(w)[..., None, :]) @ np.linalg.inv(vecs)
        y = tf.linalg.expm(x)
        assert y.dtype == tf.as_dtype(x.dtype)
        np.testing.assert_allclose(y.numpy(), ref if x.dtype.kind == "c" else ref.real, rtol=1e-9, atol=1e-9)
    assert tf.linalg.expm(tf.zeros([3, 3])).dtype == tf.float32
    for shape in [(4, 2), (2, 5), (2, 3, 3)]:
        x = _m(*shape)
        np.testing.assert_allclose(tf.linalg.pinv(x).numpy(), np.linalg.pinv(x), rtol=1e-9, atol=1e-9)
    low_rank = np.outer([1.0, 2, 3], [1.0, -1])
    np.testing.assert_allclose(tf.linalg.pinv(tf.constant(low_rank, tf.float32)).numpy(), np.linalg.pinv(low_rank),
                               rtol=1e-5, atol=1e-6)
    ts = [_m(2, 3).astype(np.float32), None, _m(4).astype(np.float32)]
    g = tf.linalg.global_norm(ts)
    assert g.dtype == tf.float32
    np.testing.assert_allclose(g.numpy(), np.sqrt(sum(np.sum(t.astype(np.float64) ** 2) for t in ts if t is not None)),
                               rtol=1e-6)
    assert tf.linalg.global_norm([]).numpy() == 0 and tf.linalg.global_norm([]).dtype == tf.float32
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        tf.linalg.global_norm(tf.ones([2]))
    with pytest.raises(InvalidArgumentError, match="Pack"):
        tf.linalg.global_norm([tf.ones([2]), tf.ones([2], tf.float64)])
    x = _m(3, 4)
    np.testing.assert_allclose(tf.linalg.l2_normalize(x, axis=1).numpy(), x / np.linalg.norm(x, axis=1, keepdims=True))


def test_spectral_norm():
    x = _m(3, 2, 4)
    ref = np.linalg.norm(x, 2, axis=(-2, -1))
    np.testing.assert_allclose(tf.norm(x, ord=2, axis=[-2, -1]).numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(tf.norm(x, ord=2, axis=(2, 1), keepdims=True).numpy(), ref[:, None, None], rtol=1e-12)
    np.testing.assert_allclose(tf.norm(x, ord=2, axis=[0, 2]).numpy(), np.linalg.norm(x, 2, axis=(0, 2)), rtol=1e-12)
    c = _m(3, 3, dtype=np.complex64)
    y = tf.norm(c, ord=2, axis=[0, 1])
    assert y.dtype == tf.float32  # the singular values are real
    np.testing.assert_allclose(y.numpy(), np.linalg.norm(c.astype(np.complex128), 2), rtol=1e-5)
    with pytest.raises(InvalidArgumentError, match="not in the list of allowed values"):
        tf.norm(tf.constant([[1, 2], [3, 4]]), ord=2, axis=[0, 1])
    check_fn_grad(lambda t: tf.norm(t, ord=2, axis=[-2, -1]), [x], atol=1e-7)


# ---------------------------------------------------------------- gradients of the new ops
def _sym(t):
    return (t + tf.linalg.adjoint(t)) / 2


def _outer(v):
    """v v^H: invariant under the sign (phase) of the vector v."""
    return tf.einsum("...i,...j->...ij", v, tf.math.conj(v))


def test_cholesky_and_slogdet_gradients():
    # Cholesky reads the lower triangle only: check the gradient through a symmetrised input.
    a = _spd(2, 3, 3)
    check_fn_grad(lambda t: tf.linalg.cholesky(_sym(t)), [a], atol=1e-7)
    check_fn_grad(lambda t: tf.linalg.cholesky(_sym(t)), [_spd(3, 3, dtype=np.complex128)], atol=1e-7)
    check_fn_grad(lambda t: tf.linalg.logdet(_sym(t)), [a], atol=1e-7)
    check_op_grad(L.SLOGDET, [_well_conditioned(2, 3, 3)], out_index=1, atol=1e-7)
    check_op_grad(L.SLOGDET, [_well_conditioned(3, 3, dtype=np.complex128)], out_index=1, atol=1e-7)


def test_solver_gradients():
    a, b = _well_conditioned(2, 3, 3), _m(2, 3, 2)
    for adj in (False, True):
        check_op_grad(L.SOLVE, [a, b], {"adjoint": adj}, atol=1e-7)
        for lower in (True, False):
            check_op_grad(L.TRISOLVE, [a, b], {"lower": lower, "adjoint": adj}, atol=1e-7)
    c = _well_conditioned(3, 3, dtype=np.complex128)
    check_op_grad(L.SOLVE, [c, _m(3, 2, dtype=np.complex128)], {"adjoint": True}, atol=1e-7)
    check_op_grad(L.TRISOLVE, [c, _m(3, 2, dtype=np.complex128)], {"lower": False, "adjoint": True}, atol=1e-7)
    check_op_grad(L.TRISOLVE, [a[:, None], b[0]], {"lower": True, "adjoint": False}, atol=1e-7)  # broadcast batch
    spd = _spd(3, 3)
    check_fn_grad(lambda t, r: tf.linalg.cholesky_solve(tf.linalg.cholesky(_sym(t)), r), [spd, _m(3, 2)], atol=1e-7)
    check_fn_grad(lambda t, r: tf.linalg.lstsq(t, r), [_m(5, 3) + np.eye(5, 3), _m(5, 2)], atol=1e-6)
    check_fn_grad(lambda t, r: tf.linalg.lstsq(t, r, l2_regularizer=0.1), [_m(2, 4) + np.eye(2, 4), _m(2, 2)],
                  atol=1e-6)
    check_op_grad(L.BAND_PART, [_m(2, 3, 4), np.int64(1), np.int64(0)])


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)], ids=str)
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_qr_gradient(shape, dt):
    x = _m(*shape, dtype=dt)
    check_fn_grad(lambda t: tf.linalg.qr(t).q, [x], atol=1e-7)
    check_fn_grad(lambda t: tf.linalg.qr(t).r, [x], atol=1e-7)
    if shape[-2] <= shape[-1]:
        check_fn_grad(lambda t: tf.linalg.qr(t, full_matrices=True).r, [x], atol=1e-7)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)], ids=str)
@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_svd_gradient(shape, dt):
    # u and v are defined up to a sign (phase) per singular pair: check invariant functions of them.
    x = _m(*shape, dtype=dt)
    check_fn_grad(lambda t: tf.linalg.svd(t, compute_uv=False), [x], atol=1e-7)
    check_fn_grad(lambda t: tf.linalg.svd(t)[0], [x], atol=1e-7)

    # (tf.einsum rather than tf.matmul in these test functions: MatMul's own gradient does not conjugate yet.)
    check_fn_grad(lambda t: _outer(tf.linalg.svd(t)[1][..., :, 0]), [x], atol=1e-7)
    check_fn_grad(lambda t: _outer(tf.linalg.svd(t)[2][..., :, 0]), [x], atol=1e-7)

    def reconstruct(t):
        s, u, v = tf.linalg.svd(t)
        return tf.einsum("...ik,...k,...jk->...ij", u, tf.cast(s, u.dtype), tf.math.conj(v))

    check_fn_grad(reconstruct, [x], atol=1e-7)


@pytest.mark.parametrize("dt", [np.float64, np.complex128])
def test_eigh_and_expm_gradients(dt):
    x = _m(2, 3, 3, dtype=dt)
    check_op_grad(L.EIGH, [x], {"compute_v": False}, atol=1e-7)
    check_op_grad(L.EIGH, [x], {"compute_v": True}, atol=1e-7)  # only the lower triangle is read by the op
    check_fn_grad(lambda t: tf.linalg.eigvalsh(t), [x], atol=1e-7)

    check_fn_grad(lambda t: _outer(tf.linalg.eigh(t)[1][..., :, -1]), [x], atol=1e-7)  # a gauge-invariant projector
    check_op_grad(L.EXPM, [x], atol=1e-7)
    if dt == np.float64:  # pinv is composed with tf.matmul, whose gradient does not conjugate complex inputs yet
        check_fn_grad(lambda t: tf.linalg.pinv(t), [_m(3, 2, dtype=dt)], atol=1e-7)
    check_fn_grad(lambda t: tf.linalg.global_norm([t, t * 2]), [_m(3, dtype=dt).real], atol=1e-7)


def test_gradient_limits():
    x = tf.constant(_m(4, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
        q = tf.linalg.qr(x, full_matrices=True).q
    with pytest.raises(NotImplementedError, match="nrows > ncols and full_matrices"):
        tape.gradient(q, x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.linalg.lstsq(x, tf.ones([4, 1], tf.float64), fast=False)
    with pytest.raises(ValueError, match="Gradient not defined for fast=False"):
        tape.gradient(y, x)


# ---------------------------------------------------------------- graph mode
def test_decompositions_graph_shapes():
    g = Graph()
    with g.as_default():
        m = g.placeholder(tf.float32, [None, 4, 4])
        w = g.placeholder(tf.float32, [None, 3, 5])
        u = g.placeholder(tf.float32, None)
        d = g.placeholder(tf.float32, [None, None, None])
        s, su, sv = tf.linalg.svd(w)
        fs, fu, fv = tf.linalg.svd(w, full_matrices=True)
        q, r = tf.linalg.qr(w)
        fq, fr = tf.linalg.qr(w, full_matrices=True)
        e, v = tf.linalg.eigh(m)
        cases = [(s, [None, 3]), (su, [None, 3, 3]), (sv, [None, 5, 3]), (fu, [None, 3, 3]), (fv, [None, 5, 5]),
                 (q, [None, 3, 3]), (r, [None, 3, 5]), (fq, [None, 3, 3]), (fr, [None, 3, 5]), (e, [None, 4]),
                 (v, [None, 4, 4]), (tf.linalg.cholesky(m), [None, 4, 4]), (tf.linalg.slogdet(m)[1], [None]),
                 (tf.linalg.logdet(m), [None]), (tf.linalg.solve(m, tf.ones([2, 4, 3])), [2, 4, 3]),
                 (tf.linalg.triangular_solve(m, tf.ones([4, 3])), [None, 4, 3]),
                 (tf.linalg.cholesky_solve(m, tf.ones([4, 3])), [None, 4, 3]),
                 (tf.linalg.lstsq(w, tf.ones([3, 2])), [None, 5, 2]), (tf.linalg.band_part(w, 1, 0), [None, 3, 5]),
                 (tf.linalg.expm(m), [None, 4, 4]), (tf.linalg.pinv(w), [None, 5, 3]),
                 (tf.norm(w, ord=2, axis=[-2, -1]), [None]), (tf.linalg.svd(d)[1], [None, None, None]),
                 (tf.linalg.eigvalsh(d), [None, None]), (tf.linalg.lstsq(d, d), [None, None, None]),
                 (tf.linalg.global_norm([w, m]), [])]
        unknown = [tf.linalg.cholesky(u), tf.linalg.svd(u)[0], tf.linalg.qr(u)[0], tf.linalg.band_part(u, 0, 0),
                   tf.linalg.triangular_solve(u, u)]
        for fn, msg in [(lambda: tf.linalg.cholesky(g.placeholder(tf.float32, [2, 3])), "must be square"),
                        (lambda: tf.linalg.solve(g.placeholder(tf.float32, [2, 2]), tf.ones([3, 2])), "incompatible"),
                        (lambda: tf.linalg.triangular_solve(m, tf.ones([3, 2])), "mismatch")]:
            with pytest.raises(ValueError, match=msg):
                fn()
    for y, shape in cases:
        assert y.shape.as_list() == shape, (y, shape)
        assert y.dtype == tf.float32
    assert all(y.shape.rank is None for y in unknown)


def test_decompositions_in_tf_function():
    @tf.function
    def f(a, b):
        chol = tf.linalg.cholesky(a)
        s = tf.linalg.svd(a, compute_uv=False)
        e, v = tf.linalg.eigh(a)
        q, r = tf.linalg.qr(a)
        return (tf.linalg.cholesky_solve(chol, b), tf.linalg.solve(a, b), s, e, tf.matmul(q, r),
                tf.linalg.slogdet(a)[1], tf.linalg.expm(a * 0.1), tf.linalg.band_part(a, 0, -1))

    a, b = _spd(2, 3, 3), _m(2, 3, 2)
    outs = f(tf.constant(a), tf.constant(b))
    refs = [np.linalg.solve(a, b), np.linalg.solve(a, b), np.linalg.svd(a, compute_uv=False), np.linalg.eigvalsh(a), a,
            np.linalg.slogdet(a)[1], None, np.triu(a)]
    for y, ref in zip(outs, refs):
        if ref is not None:
            np.testing.assert_allclose(y.numpy(), ref, rtol=1e-9, atol=1e-9)

    @tf.function
    def inv_of(x):
        return tf.linalg.inv(x)

    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):
        inv_of(tf.constant([[1.0, 2], [2, 4]]))

    @tf.function
    def grad_of(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.linalg.svd(x, compute_uv=False)) + tf.linalg.logdet(tf.matmul(x, x, transpose_b=True))
        return tape.gradient(y, x)

    x = _well_conditioned(3, 3)
    u, s, vh = np.linalg.svd(x)
    expected = u @ vh + 2 * np.linalg.inv(x).T  # d sum(s) = U V^T; d logdet(X X^T) = 2 X^-T
    np.testing.assert_allclose(grad_of(tf.constant(x)).numpy(), expected, rtol=1e-8, atol=1e-8)
