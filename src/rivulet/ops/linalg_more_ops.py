"""More of tf.linalg: lu_reconstruct / lu_solve / lu_matrix_inverse, matrix_rank, tensor_diag / tensor_diag_part,
tridiagonal_solve / tridiagonal_matmul, banded_triangular_solve (TensorFlow's composites over the dense ops, so
differentiable), sqrtm (MatrixSquareRoot), logm (MatrixLogarithm) and eigh_tridiagonal."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from . import array_ops as _a, linalg_ops as _l, math_ops as _m
from ._rules import same_shape, to_tensor


# ---------------------------------------------------------------- LU helpers
def _unit_lower(lu):
    lower = _l.band_part(lu, -1, 0)
    return _l.set_diag(lower, _a.ones_like(_l.diag_part(lu)))


def _row_gather(x, perm):
    rank = x.shape.rank
    return _a.gather(x, perm, axis=rank - 2, batch_dims=rank - 2)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix whose tf.linalg.lu gave (lower_upper, perm): L @ U with its rows put back."""
    lu = to_tensor(lower_upper)
    p = to_tensor(perm)
    x = _m.matmul(_unit_lower(lu), _l.band_part(lu, 0, -1))
    from .math_more_ops import invert_permutation
    inv = invert_permutation(p) if p.shape.rank == 1 else _a.stack(
        [invert_permutation(q) for q in _a.unstack(_a.reshape(p, [-1, p.shape[-1]]))])
    if p.shape.rank != 1:
        inv = _a.reshape(inv, _a.shape(p))
    return _row_gather(x, inv)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A @ X = rhs, from A's LU factorisation (lower_upper, perm)."""
    lu = to_tensor(lower_upper)
    b = _row_gather(to_tensor(rhs, lu.dtype), to_tensor(perm))
    y = _l.triangular_solve(_unit_lower(lu), b, lower=True)
    return _l.triangular_solve(_l.band_part(lu, 0, -1), y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """A^-1 from A's LU factorisation."""
    lu = to_tensor(lower_upper)
    eye = _a.eye(_a.shape(lu)[-1], batch_shape=_a.shape(lu)[:-2], dtype=lu.dtype)
    return lu_solve(lu, perm, eye)


# ---------------------------------------------------------------- rank, tensor diagonals
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above tol (default: eps * max(rows, cols) * the largest one)."""
    x = to_tensor(a)
    s = _l.svd(x, compute_uv=False)
    if tol is None:
        n = _m.cast(_m.reduce_max(_a.shape(x)[-2:]), x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        tol = _m.multiply(_m.multiply(n, eps), _m.reduce_max(s, axis=-1, keepdims=True))
    else:
        tol = to_tensor(tol, x.dtype)
    return _m.reduce_sum(_m.cast(_m.greater(s, tol), _dt.int32), axis=-1, name=name)


def tensor_diag(diagonal, name=None):
    """A tensor of shape d + d (d: diagonal's shape) with diagonal on its main 'diagonal'."""
    d = to_tensor(diagonal)
    shape = _a.shape(d)
    return _a.reshape(_l.diag(_a.reshape(d, [-1])), _a.concat([shape, shape], 0), name=name)


def tensor_diag_part(input, name=None):  # noqa: A002
    """The diagonal part of a tensor of shape d + d."""
    x = to_tensor(input)
    rank = x.shape.rank
    if rank is None or rank % 2:
        raise ValueError(f"The rank of the tensor should be even and positive, got shape {x.shape}")
    half = _a.shape(x)[:rank // 2]
    n = _m.reduce_prod(half)
    return _a.reshape(_l.diag_part(_a.reshape(x, _a.stack([n, n]))), half, name=name)


# ---------------------------------------------------------------- tridiagonal and banded systems
def _tridiagonal_dense(diagonals, fmt):
    if fmt == "matrix":
        return to_tensor(diagonals)
    if fmt == "sequence":
        sup, main, sub = (to_tensor(t) for t in diagonals)
    elif fmt == "compact":
        d = to_tensor(diagonals)
        sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {fmt}")
    m = main.shape[-1]
    dense = _l.diag(main)
    if m is None or m > 1:
        dense = _m.add(dense, _l.diag(sup[..., :-1], k=1))
        dense = _m.add(dense, _l.diag(sub[..., 1:], k=-1))
    return dense


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """X with T @ X = rhs for a tridiagonal T given as 'compact' [..., 3, M] (super, main, sub; the first of
    super and the last of sub unused), 'sequence' or a full 'matrix'."""
    t = _tridiagonal_dense(diagonals, diagonals_format)
    b = to_tensor(rhs, t.dtype)
    if transpose_rhs:
        b = _l.matrix_transpose(b)
    if conjugate_rhs:
        b = _m.conj(b)
    return _l.solve(t, b, name=name)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """T @ rhs for a tridiagonal T in any of tridiagonal_solve's formats."""
    t = _tridiagonal_dense(diagonals, diagonals_format)
    return _m.matmul(t, to_tensor(rhs, t.dtype), name=name)


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """X with A @ X = rhs for a triangular A given by its K bands [..., K, N] (TensorFlow's LEFT_RIGHT layout):
    lower, row j is the j-th subdiagonal (padded on the left); upper, row j is the (K-1-j)-th superdiagonal (the
    main diagonal last, padded on the right)."""
    b = to_tensor(bands)
    k = b.shape[-2]
    n = b.shape[-1]
    if k is None or n is None:
        raise ValueError("rivulet's banded_triangular_solve needs the band count and size known when traced")
    dense = _a.zeros(_a.concat([_a.shape(b)[:-2], [n, n]], 0), b.dtype)
    for j in range(k):
        if lower:  # row j of bands: the j-th subdiagonal, its entries at bands[j, j:]
            dense = _m.add(dense, _l.diag(b[..., j, j:], k=-j, num_rows=n, num_cols=n))
        else:
            sup = k - 1 - j
            dense = _m.add(dense, _l.diag(b[..., j, :n - sup], k=sup, num_rows=n, num_cols=n))
    return _l.triangular_solve(dense, to_tensor(rhs, b.dtype), lower=lower, adjoint=adjoint, name=name)


# ---------------------------------------------------------------- sqrtm, logm
def _eig_apply(a, fn):
    w, v = np.linalg.eig(a)
    return v @ (fn(w)[..., None] * np.linalg.inv(v))


@_m._quiet
def _sqrtm_kernel(a):
    """The principal square root through an eigendecomposition; NaN where the matrix has a negative real
    eigenvalue (no real square root), as TensorFlow gives for real inputs."""
    if a.shape[-1] == 0:
        return a.copy()
    if a.dtype.kind == "c":
        return _eig_apply(a, np.sqrt).astype(a.dtype)
    w = np.linalg.eigvals(a)
    r = _eig_apply(a.astype(np.complex128), np.sqrt)
    bad = np.any((np.abs(w.imag) < 1e-12 * np.maximum(1, np.abs(w))) & (w.real < 0), axis=-1)
    out = np.real(r).astype(a.dtype)
    out[bad] = np.nan
    return out


MATRIX_SQUARE_ROOT = defop("MatrixSquareRoot", _sqrtm_kernel, same_shape,
                           allowed=frozenset([_dt.float32, _dt.float64, _dt.complex64, _dt.complex128]))


def sqrtm(input, name=None):  # noqa: A002
    """The principal matrix square root (NaN for a real matrix without a real one)."""
    return bind(MATRIX_SQUARE_ROOT, (to_tensor(input),), name=name or "MatrixSquareRoot")


LOGM = defop("MatrixLogarithm", _m._quiet(lambda a: _eig_apply(a, np.log).astype(a.dtype)), same_shape,
             allowed=frozenset([_dt.complex64, _dt.complex128]))


def logm(input, name=None):  # noqa: A002
    """The principal matrix logarithm of a complex matrix."""
    return bind(LOGM, (to_tensor(input),), name=name or "MatrixLogarithm")


# ---------------------------------------------------------------- eigh_tridiagonal
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """Eigenvalues (and vectors) of the symmetric tridiagonal matrix with diagonal alpha and off-diagonal beta,
    ascending; select 'a' (all), 'v' (values in select_range) or 'i' (indices in select_range)."""
    a = to_tensor(alpha)
    b = to_tensor(beta, a.dtype)
    n = a.shape[-1]
    dense = _l.diag(a)
    if n is None or n > 1:
        dense = _m.add(_m.add(dense, _l.diag(b, k=1)), _l.diag(_m.conj(b), k=-1))
    if eigvals_only:
        w = _l.eigvalsh(dense)
        v = None
    else:
        w, v = _l.eigh(dense)
    if select == "a":
        return w if eigvals_only else (w, v)
    lo, hi = select_range
    if select == "i":
        keep = _a.range(int(lo), int(hi) + 1)
    elif select == "v":
        keep = _a.reshape(_a.where(_m.logical_and(_m.greater(w, lo), _m.less_equal(w, hi))), [-1])
    else:
        raise ValueError(f"select must be 'a', 'v' or 'i', got {select!r}")
    w = _a.gather(w, keep)
    return w if eigvals_only else (w, _a.gather(v, keep, axis=1))

