"""tf.linalg.lu (partial-pivoting LU, packed as TensorFlow returns it) and tf.linalg.eig/eigvals.

eig uses LAPACK's geev through NumPy; TensorFlow uses Eigen's solver. The eigenpairs agree, but their order
and each eigenvector's complex phase may differ (both are unspecified), so compare eigenpairs, not positions.
"""
from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import COMPLEX, FLOATS, defop
from ..shape import TensorShape
from . import array_ops as _a
from . import linalg_ops as _l
from . import math_ops as _m
from ._rules import UNKNOWN, to_tensor

Lu = namedtuple("Lu", ["lu", "p"])
_LU_TYPES = frozenset([_dt.float32, _dt.float64, _dt.complex64, _dt.complex128, _dt.float16])


def _square_infer(x, what):
    s = x.shape
    if s.rank is None:
        return UNKNOWN
    if s.rank < 2:
        raise ValueError(f"Input must have rank >= 2, got {s.rank}")
    if s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
        raise ValueError(f"Input matrices must be squares, got {s[-2]} != {s[-1]}")
    return s


# ---------------------------------------------------------------- lu
def _lu_kernel(x, output_idx_type):
    n = x.shape[-1]
    a = np.array(x.reshape((-1, n, n)), copy=True)
    rows = np.arange(a.shape[0])
    perm = np.tile(np.arange(n), (a.shape[0], 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(n):
            piv = k + np.argmax(np.abs(a[:, k:, k]), axis=1)  # first largest pivot, as LAPACK and Eigen pick
            swap = piv != k
            if swap.any():
                r = rows[swap]
                a[r, k], a[r, piv[swap]] = a[r, piv[swap]].copy(), a[r, k].copy()
                perm[r, k], perm[r, piv[swap]] = perm[r, piv[swap]], perm[r, k].copy()
            a[:, k + 1:, k] /= a[:, k, k][:, None]
            a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
    return a.reshape(x.shape), perm.reshape(x.shape[:-1]).astype(output_idx_type._np)


def _lu_infer(x, output_idx_type):
    s = _square_infer(x, "lu")
    return [(s, x.dtype), (s[:-1] if s.rank is not None else UNKNOWN, output_idx_type)]


# TensorFlow registers no gradient for Lu (tf.linalg.lu_reconstruct is how its users differentiate).
LU = defop("Lu", _lu_kernel, _lu_infer, num_outputs=2, allowed=_LU_TYPES)


def lu(input, output_idx_type=_dt.int32, name=None):  # noqa: A002
    """(lu, p): L (unit diagonal, strictly below) and U (on and above) packed in one matrix, with
    input[..., p, :] = L @ U (partial pivoting)."""
    x = to_tensor(input)
    idx = _dt.as_dtype(output_idx_type)
    if idx not in (_dt.int32, _dt.int64):
        raise TypeError(f"output_idx_type must be int32 or int64, got {idx.name}")
    return Lu(*_l._checked(LU, (x,), {"output_idx_type": idx}, name or "Lu"))


# ---------------------------------------------------------------- eig
_EIG_OUT = {_dt.float32: _dt.complex64, _dt.complex64: _dt.complex64, _dt.float64: _dt.complex128,
            _dt.complex128: _dt.complex128}


def _eig_kernel(x, compute_v):
    out = _EIG_OUT[_dt.from_numpy(x.dtype)]._np
    if not compute_v:
        return np.linalg.eigvals(x).astype(out), np.zeros((0,), out)
    e, v = np.linalg.eig(x)
    return e.astype(out), v.astype(out)


def _eig_infer(x, compute_v):
    s = _square_infer(x, "eig")
    out = _EIG_OUT.get(x.dtype)
    if out is None:
        raise TypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: float, double, "
                        f"complex64, complex128")
    if s.rank is None:
        return [(UNKNOWN, out), (UNKNOWN, out)]
    return [(s[:-1], out), (s if compute_v else TensorShape([0]), out)]


def _eig_grad(op, de, dv):
    """TensorFlow's eig gradient: V^-H (diag(de) + F * (V^H dV - V^H V diag(Re diag(V^H dV)))) V^H."""
    x = op.inputs[0]
    e, v = op.outputs
    if not op.attrs["compute_v"]:
        e, v = eig(x)
        dv = None
    vt = _l.adjoint(v)
    mid = _l.diag(de) if de is not None else _m.zeros_like_(v)
    if dv is not None:
        f = _l.set_diag(_m.conj(_m.reciprocal(_m.subtract(_a.expand_dims(e, -2), _a.expand_dims(e, -1)))),
                        _m.zeros_like_(e))
        vgv = _m.matmul(vt, dv)
        diag_re = _l.diag(_m.cast(_m.real(_l.diag_part(vgv)), v.dtype))
        mid = _m.add(mid, _m.multiply(f, _m.subtract(vgv, _m.matmul(_m.matmul(vt, v), diag_re))))
    g = _l.solve(vt, _m.matmul(mid, vt))
    return (_m.real(g) if not x.dtype.is_complex else g,)


EIG = defop("Eig", _eig_kernel, _eig_infer, grad=_eig_grad, num_outputs=2, allowed=FLOATS | COMPLEX)


def eig(tensor, name=None):
    """(eigenvalues, eigenvectors as unit columns) of a (batch of) general square matrix, complex-valued."""
    return tuple(_l._checked(EIG, (to_tensor(tensor),), {"compute_v": True}, name or "Eig"))


def eigvals(tensor, name=None):
    return _l._checked(EIG, (to_tensor(tensor),), {"compute_v": False}, name or "Eig")[0]
