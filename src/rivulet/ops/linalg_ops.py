"""Linear algebra (tf.linalg): diagonals, det/inv, einsum/tensordot, norms; matvec and transposes compose
matmul with the array ops, as TensorFlow does."""
import functools

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import COMPLEX, FLOATS, defop
from ..core.tensor import EagerTensor, Tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a
from . import math_ops as _m
from ._rules import UNKNOWN, binary_args, broadcast_shape, to_tensor

_fmt = _m._dims_str
_INVERTIBLE = FLOATS | COMPLEX


# ---------------------------------------------------------------- transposes, matvec
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two axes (conjugating too when asked)."""
    a = to_tensor(a)
    rank = a.shape.rank
    if rank is None:
        raise NotImplementedError("tf.linalg.matrix_transpose needs a known rank.")
    if rank < 2:
        shown = a.numpy() if isinstance(a, EagerTensor) else a
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {shown} with "
                         f"shape: {a.shape}")
    return _a.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], conjugate=conjugate, name=name)


def adjoint(matrix, name=None):
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a (batch of) matrix a and vector b: matmul with b as a column, as TensorFlow does."""
    a, b = binary_args(a, b)
    return _a.squeeze(_m.matmul(a, _a.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a), axis=-1,
                      name=name)


# ---------------------------------------------------------------- diagonals
def _diag_size(n, k, num_rows, num_cols):
    """TensorFlow's output size for MatrixDiagV3 with one diagonal k of length n."""
    min_rows, min_cols = n + max(-k, 0), n + max(k, 0)
    if num_rows == -1 and num_cols == -1:
        return max(min_rows, min_cols), max(min_rows, min_cols)
    return (min_rows if num_rows == -1 else num_rows), (min_cols if num_cols == -1 else num_cols)


def _diag_kernel(d, k, num_rows, num_cols, padding_value):
    n = d.shape[-1]
    rows, cols = _diag_size(n, k, num_rows, num_cols)
    if min(rows + min(k, 0), cols - max(k, 0)) != n:
        raise InvalidArgumentError(f"The length of the diagonal ({n}) does not fit a {rows}x{cols} matrix with "
                                   f"k = {k} [Op:MatrixDiagV3]")
    out = np.full(d.shape[:-1] + (rows, cols), padding_value, d.dtype)
    i = np.arange(n)
    out[..., i + max(-k, 0), i + max(k, 0)] = d
    return out


def _diag_infer(d, k, num_rows, num_cols, padding_value):
    s = d.shape
    if s.rank is None:
        return UNKNOWN, d.dtype
    if s.rank < 1:
        raise ValueError(f"diagonal must be at least 1-dim, received shape: {_fmt(s)}")
    if s[-1] is None:
        rows, cols = (None if num_rows == -1 else num_rows), (None if num_cols == -1 else num_cols)
    else:
        rows, cols = _diag_size(s[-1], k, num_rows, num_cols)
    return s[:-1].concatenate([rows, cols]), d.dtype


def _diag_part_infer(x, k):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, x.dtype
    if s.rank < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_fmt(s)}")
    r, c = s[-2], s[-1]
    n = None if r is None or c is None else max(min(r + min(k, 0), c - max(k, 0)), 0)
    return s[:-2].concatenate([n]), x.dtype


def _set_diag_kernel(x, d, k):
    out = x.copy()
    n = d.shape[-1]
    i = np.arange(n)
    out[..., i + max(-k, 0), i + max(k, 0)] = d
    return out


MATRIX_DIAG = defop("MatrixDiagV3", _diag_kernel, _diag_infer,
                    grad=lambda op, dy: (diag_part(dy, k=op.attrs["k"]),))
MATRIX_DIAG_PART = defop("MatrixDiagPartV3", lambda x, k: np.diagonal(x, k, -2, -1), _diag_part_infer, is_view=True,
                         grad=lambda op, dy: (set_diag(_m.zeros_like_(op.inputs[0]), dy, k=op.attrs["k"]),))
MATRIX_SET_DIAG = defop("MatrixSetDiagV3", _set_diag_kernel, lambda x, d, k: (x.shape, x.dtype), same=2,
                        grad=lambda op, dy: (set_diag(dy, _m.zeros_like_(op.inputs[1]), k=op.attrs["k"]),
                                             diag_part(dy, k=op.attrs["k"])))


def _single_k(k):
    if not isinstance(k, (int, np.integer)):
        raise NotImplementedError("Only a single diagonal (an int k) is supported, not a band.")
    return int(k)


def _checked(op, inputs, attrs, name):
    """Runs the shape rule now so that a bad shape fails as TensorFlow's kernel would."""
    try:
        op.infer(*inputs, **attrs)
    except ValueError as e:
        raise _m.static_error(str(e), op.name) from None
    return bind(op, inputs, attrs, name=name)


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """A (batch of) matrix with `diagonal` on its k-th diagonal."""
    d = to_tensor(diagonal)
    attrs = {"k": _single_k(k), "num_rows": int(num_rows), "num_cols": int(num_cols),
             "padding_value": d.dtype.as_numpy_dtype(padding_value)}
    return _checked(MATRIX_DIAG, (d,), attrs, name)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    return _checked(MATRIX_DIAG_PART, (to_tensor(input),), {"k": _single_k(k)}, name)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    x, d = binary_args(input, diagonal)
    return bind(MATRIX_SET_DIAG, (x, d), {"k": _single_k(k)}, name=name)


def trace(x, name=None):
    return _m.reduce_sum(diag_part(x), axis=-1, name=name or "trace")


# ---------------------------------------------------------------- determinant, inverse
def _square_error(s):
    """TensorFlow's message for a shape that is not a (batch of) square matrix, or None."""
    if s.rank is None:
        return None
    if s.rank < 2:
        return f"Input tensor 0 must have rank >= 2, got {s.rank}"
    if s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
        return "Input matrix must be square."
    return None


def _matrix_infer(out_rank_drop):
    def infer(x, **_):
        msg = _square_error(x.shape)
        if msg:
            raise ValueError(msg)
        s = x.shape
        return (s if s.rank is None or not out_rank_drop else s[:-2]), x.dtype
    return infer


def _lapack(fn):
    """NumPy's LAPACK routines have no float16: compute in float32."""
    def k(x, **attrs):
        if x.dtype == np.float16:
            return fn(x.astype(np.float32), **attrs).astype(np.float16)
        return fn(x, **attrs)
    return k


def _inv(x, adjoint=False):
    try:
        r = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(f"{_square_error(TensorShape(x.shape)) or 'Input is not invertible.'} "
                                   f"[Op:MatrixInverse]") from None
    return np.conj(np.swapaxes(r, -1, -2)) if adjoint else r


def _det_grad(op, dy):
    # d det(A) / dA = det(A) A^-T; conjugated for complex A, as TensorFlow's convention wants.
    scale = _a.expand_dims(_a.expand_dims(_m.multiply(dy, _m.conj(op.outputs[0])), -1), -1)
    return (_m.multiply(scale, inv(op.inputs[0], adjoint=True)),)


def _inv_grad(op, dy):
    ainv, adj = op.outputs[0], op.attrs.get("adjoint", False)
    return (_m.negative(_m.matmul(ainv, _m.matmul(dy, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)),)


DET = defop("MatrixDeterminant", _lapack(np.linalg.det), _matrix_infer(True), grad=_det_grad, allowed=_INVERTIBLE)
INV = defop("MatrixInverse", _lapack(_inv), _matrix_infer(False), grad=_inv_grad, allowed=_INVERTIBLE)


def det(input, name=None):  # noqa: A002
    return bind(DET, (to_tensor(input),), name=name or "MatrixDeterminant")


def inv(input, adjoint=False, name=None):  # noqa: A002
    return bind(INV, (to_tensor(input),), {"adjoint": bool(adjoint)}, name=name or "MatrixInverse")


# ---------------------------------------------------------------- einsum, tensordot
@functools.lru_cache(maxsize=256)
def _parse(equation):
    """'ij,jk' -> (('ij', 'jk'), 'ik'): the implicit output is the once-used letters, sorted (NumPy's rule)."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    if not arrow:
        letters = lhs.replace("...", "").replace(",", "")
        out = ("..." if "..." in lhs else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return tuple(lhs.split(",")), out


def _einsum_infer(*xs, equation):
    ins, out = _parse(equation)
    dims, ell = {}, TensorShape(())
    for x, sub in zip(xs, ins):
        s = x.shape
        if s.rank is None:
            return UNKNOWN, xs[0].dtype
        letters = sub.replace("...", "")
        n_ell = s.rank - len(letters)
        if n_ell < 0 or (n_ell and "..." not in sub):
            raise ValueError(f"Input subscripts {sub!r} do not match the rank {s.rank} of the input shaped {_fmt(s)}")
        at = sub.find("...")
        if at >= 0:
            ell = broadcast_shape(ell, s[at:at + n_ell])
            axes = list(range(at)) + list(range(at + n_ell, s.rank))
        else:
            axes = list(range(s.rank))
        for c, i in zip(letters, axes):
            d = s[i]
            if d is not None and dims.get(c) is not None and dims[c] != d:
                raise ValueError(f"Expected dimension {dims[c]} at axis {i} of the input shaped {_fmt(s)} but got "
                                 f"dimension {d}")
            if dims.get(c) is None:
                dims[c] = d
    missing = set(out.replace("...", "")) - set(dims)
    if missing:
        raise ValueError(f"Output subscripts {''.join(sorted(missing))!r} do not appear in the inputs of {equation!r}")
    head, _, tail = out.partition("...") if "..." in out else ("", "", out)
    shape = [dims[c] for c in head] + (list(ell) if "..." in out else []) + [dims[c] for c in tail]
    return TensorShape(shape), xs[0].dtype


def _einsum_kernel(*xs, equation):
    # Large contractions go through BLAS (optimize=True); small ones skip the path search.
    big = len(xs) > 2 or (len(xs) == 2 and xs[0].size * xs[1].size > 1 << 16)
    return np.einsum(equation, *xs, optimize=big)


def _einsum_grad(op, dy):
    """d/dx_k: contract dy with the other operands back onto x_k's subscripts."""
    ins, out = _parse(op.attrs["equation"])
    xs = op.inputs
    grads = []
    for k, sub in enumerate(ins):
        letters = sub.replace("...", "")
        if len(set(letters)) != len(letters):
            raise NotImplementedError(f"The gradient of einsum {op.attrs['equation']!r} (a repeated subscript in one "
                                      f"operand) is not supported.")
        subs = [out] + [s for j, s in enumerate(ins) if j != k]
        operands = [dy] + [_m.conj(x) for j, x in enumerate(xs) if j != k]
        # Indices summed away inside x_k alone come back by broadcasting against ones shaped like x_k.
        if set(sub) - set("".join(subs)):
            subs.append(sub)
            operands.append(_a.ones_like(xs[k]))
        g = einsum(",".join(subs) + "->" + sub, *operands)
        grads.append(_m.sum_to(g, xs[k]) if "..." in sub else g)
    return tuple(grads)


_EINSUM_TYPES = FLOATS | COMPLEX | frozenset([_dt.int32, _dt.int64])
EINSUM = defop("Einsum", _einsum_kernel, _einsum_infer, grad=_einsum_grad, same=1 << 30, allowed=_EINSUM_TYPES)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (NumPy's einsum), with TensorFlow's shape checks."""
    ins, out = _parse(equation)
    if len(inputs) != len(ins):
        raise ValueError(f'Got {len(inputs)} inputs for equation "{equation}", expecting {len(ins)}')
    xs = tuple(to_tensor(x) for x in inputs)
    eq = ",".join(ins) + "->" + out
    return _checked(EINSUM, xs, {"equation": eq}, kwargs.get("name") or "einsum")


def _axes_list(v):
    return [int(v)] if np.ndim(v) == 0 else [int(a) for a in v]


def tensordot(a, b, axes, name=None):
    """Sums the products of a and b over the given axes (an int N: a's last N with b's first N)."""
    a, b = to_tensor(a), to_tensor(b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise NotImplementedError("tf.tensordot needs inputs of known rank.")
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if not isinstance(axes, (list, tuple)):
        n = int(axes)
        if n > ra:
            shown = a.numpy() if isinstance(a, EagerTensor) else a
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {shown}.  "
                             f"Received {n}, vs tensor dimensions {ra}.")
        if n < 0:
            raise ValueError(f"'axes' must be at least 0. Received {n}.")
        a_axes, b_axes = list(range(ra - n, ra)), list(range(n))
    else:
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = _axes_list(axes[0]), _axes_list(axes[1])
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        a_axes, b_axes = [x % ra for x in a_axes], [x % rb for x in b_axes]
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    sa = [next(letters) for _ in range(ra)]
    sb = [next(letters) for _ in range(rb)]
    for i, j in zip(a_axes, b_axes):
        sb[j] = sa[i]
    free_a = [i for i in range(ra) if i not in a_axes]
    free_b = [j for j in range(rb) if j not in b_axes]
    _check_tensordot(a.shape, b.shape, a_axes, b_axes, free_a, free_b)
    eq = "".join(sa) + "," + "".join(sb) + "->" + "".join(sa[i] for i in free_a) + "".join(sb[j] for j in free_b)
    return einsum(eq, a, b, name=name or "Tensordot")


def _check_tensordot(sa, sb, a_axes, b_axes, free_a, free_b):
    """TensorFlow reshapes to matrices and multiplies: a mismatch reads as MatMul's error."""
    if any(sa[i] is not None and sb[j] is not None and sa[i] != sb[j] for i, j in zip(a_axes, b_axes)):
        def prod(s, idx):
            return None if any(s[i] is None for i in idx) else int(np.prod([s[i] for i in idx]))
        m = [prod(sa, free_a), prod(sa, a_axes)], [prod(sb, b_axes), prod(sb, free_b)]
        raise _m.static_error(f"Matrix size-incompatible: In[0]: {_fmt(m[0])}, In[1]: {_fmt(m[1])}", "MatMul")


# ---------------------------------------------------------------- norms
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (euclidean, 1, inf, any p > 0) and matrix norms (fro/euclidean, 1, inf) as TensorFlow."""
    keepdims = bool(keepdims)
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(int(x) for x in axis)
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got {ord}")
    else:
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in ("euclidean", 1, 2, np.inf) and (isinstance(ord, str) or not np.isreal(ord) or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    x = to_tensor(tensor)
    if matrix and ord == 2:
        raise NotImplementedError("The spectral (ord=2) matrix norm needs an SVD, which is not available yet.")
    if ord in ("euclidean", "fro", 2):
        return _m.sqrt(_m.reduce_sum(_m.multiply(x, _m.conj(x)), axis, keepdims=keepdims), name=name)
    mag = _m.abs(x)
    if ord == 1 and matrix:  # max column sum
        return _m.reduce_max(_m.reduce_sum(mag, axis[0], keepdims=True), axis, keepdims=keepdims, name=name)
    if ord == np.inf and matrix:  # max row sum
        return _m.reduce_max(_m.reduce_sum(mag, axis[1], keepdims=True), axis, keepdims=keepdims, name=name)
    if ord == 1:
        return _m.reduce_sum(mag, axis, keepdims=keepdims, name=name)
    if ord == np.inf:
        return _m.reduce_max(mag, axis, keepdims=keepdims, name=name)
    return _m.pow(_m.reduce_sum(_m.pow(mag, ord), axis, keepdims=keepdims), 1.0 / ord, name=name)
