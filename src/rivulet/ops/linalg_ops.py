"""Linear algebra (tf.linalg): diagonals, det/inv, einsum/tensordot, norms; matvec and transposes compose
matmul with the array ops, as TensorFlow does."""
import collections
import functools
import math

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import COMPLEX, FLOATS, cpp_dtype_name, defop
from ..core.tensor import EagerTensor, Tensor
from ..core import context
from ..errors import InvalidArgumentError, NotFoundError
from ..execute import blas_threads as _blas_threads
from ..execute import onednn as _onednn
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


def _set_diag_shape_error(xs, ds, k):
    """TensorFlow's message when the diagonal does not fit the matrices, or None (shapes as tuples, dims may be
    None)."""
    if len(xs) < 2:
        return f"input must be at least 2-dim, received shape: {list(xs)}"
    r, c = xs[-2], xs[-1]
    n = None if r is None or c is None else max(min(r + min(k, 0), c - max(k, 0)), 0)
    want = tuple(xs[:-2]) + (n,)
    if len(ds) != len(want) or any(a is not None and b is not None and a != b for a, b in zip(ds, want)):
        return (f"diagonal must have shape {['?' if d is None else d for d in want]} to fit the input of shape "
                f"{['?' if d is None else d for d in xs]} (k={k}), got shape {['?' if d is None else d for d in ds]}")
    return None


def _set_diag_infer(x, d, k):
    if x.shape.rank is not None and d.shape.rank is not None:
        err = _set_diag_shape_error(tuple(x.shape), tuple(d.shape), k)
        if err:
            raise ValueError(err)
    return x.shape, x.dtype


def _set_diag_kernel(x, d, k):
    err = _set_diag_shape_error(x.shape, d.shape, k)
    if err:
        raise InvalidArgumentError(err)
    out = x.copy()
    n = d.shape[-1]
    i = np.arange(n)
    out[..., i + max(-k, 0), i + max(k, 0)] = d
    return out


MATRIX_DIAG = defop("MatrixDiagV3", _diag_kernel, _diag_infer,
                    grad=lambda op, dy: (diag_part(dy, k=op.attrs["k"]),))
MATRIX_DIAG_PART = defop("MatrixDiagPartV3", lambda x, k: np.diagonal(x, k, -2, -1), _diag_part_infer, is_view=True,
                         grad=lambda op, dy: (set_diag(_m.zeros_like_(op.inputs[0]), dy, k=op.attrs["k"]),))
MATRIX_SET_DIAG = defop("MatrixSetDiagV3", _set_diag_kernel, _set_diag_infer, same=2,
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
    k.__wrapped__ = fn  # the op's inputs and attrs are fn's (core/op.py reads them)
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


# ---------------------------------------------------------------- cross
def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise InvalidArgumentError(f"Both inputs must be of same shape: {_fmt(TensorShape(a.shape))} vs. "
                                   f"{_fmt(TensorShape(b.shape))}")
    if a.ndim < 1 or a.shape[-1] != 3:
        from ..errors import FailedPreconditionError
        raise FailedPreconditionError("Cross-products are only defined for 3-element vectors.")
    return np.cross(a, b).astype(a.dtype)


def _cross_infer(a, b):
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sb.rank is not None:
        if sa.rank != sb.rank:
            raise ValueError(f"Shapes must be equal rank, but are {sa.rank} and {sb.rank}")
        if sa.rank == 0 or (sa[-1] is not None and sa[-1] != 3) or (sb[-1] is not None and sb[-1] != 3):
            bad = sa[-1] if sa.rank and sa[-1] not in (None, 3) else (sb[-1] if sb.rank else 0)
            raise ValueError(f"Dimension must be 3 but is {bad}")
        return TensorShape([x if x is not None else y for x, y in zip(sa, sb)]), a.dtype
    return (sa if sa.rank is not None else sb), a.dtype


CROSS = defop("Cross", _cross_kernel, _cross_infer, same=2,
              allowed=FLOATS | frozenset([_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16,
                                          _dt.uint32, _dt.uint64]),
              grad=lambda op, dy: (cross(op.inputs[1], dy), cross(dy, op.inputs[0])))


def cross(a, b, name=None):
    """The cross product of 3-element vectors along the last axis (shapes equal), as TensorFlow's Cross."""
    return bind(CROSS, (to_tensor(a), to_tensor(b)), name=name or "Cross")


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


@functools.lru_cache(maxsize=256)
def _matmul_plan(equation):
    """How a two-operand einsum is one (batched) matrix product, or None: (a's letters, b's letters, batch,
    a's free, contracted, b's free, output letters, swap). The groups keep the order their letters have in the
    first operand that holds them (so the common layouts, like a Gram matrix's 'bijc,bijd->bcd', need no
    copy); `swap` puts b first when the output lists b's free letters before a's."""
    ins, out = _parse(equation)
    if len(ins) != 2 or "..." in equation:
        return None
    sa, sb = ins
    if len(set(sa)) != len(sa) or len(set(sb)) != len(sb) or len(set(out)) != len(out):
        return None
    if any(c not in sa and c not in sb for c in out) or any(c not in out and c not in sb for c in sa) \
            or any(c not in out and c not in sa for c in sb):
        return None  # a letter summed inside one operand: NumPy's einsum
    batch = "".join(c for c in sa if c in sb and c in out)
    contracted = "".join(c for c in sa if c in sb and c not in out)
    free_a = "".join(c for c in sa if c not in sb)
    free_b = "".join(c for c in sb if c not in sa)
    swap = bool(free_a and free_b) and out.find(free_b[0]) < out.find(free_a[0])
    return sa, sb, batch, free_a, contracted, free_b, out, swap


def _as_matrices(x, sub, batch, rows, cols, dims):
    """x (subscripts sub) as a stack (batch, rows, cols): a view when its layout allows (a transposed view
    when x holds cols before rows), else a copy."""
    shape = (math.prod(dims[c] for c in batch), math.prod(dims[c] for c in rows),
             math.prod(dims[c] for c in cols))
    if sub == batch + cols + rows:
        return x.reshape(shape[0], shape[2], shape[1]).swapaxes(1, 2)
    order = batch + rows + cols
    return np.transpose(x, [sub.index(c) for c in order]).reshape(shape)


def _einsum_matmul(plan, a, b):
    """A two-operand einsum as one np.matmul (BLAS) over views of the operands; None where a shared
    letter's sizes differ (NumPy's einsum then broadcasts or raises)."""
    sa, sb, batch, free_a, contracted, free_b, out, swap = plan
    dims = dict(zip(sa, a.shape))
    for c, d in zip(sb, b.shape):
        if dims.setdefault(c, d) != d:
            return None
    if swap:
        a, sa, b, sb, free_a, free_b = b, sb, a, sa, free_b, free_a
    am = _as_matrices(a, sa, batch, free_a, contracted, dims)
    bm = _as_matrices(b, sb, batch, contracted, free_b, dims)
    y = _tall_on_onednn(am, bm) if am.dtype == np.float32 else None
    if y is None:
        y = np.matmul(am, bm)
    got = batch + free_a + free_b
    y = y.reshape([dims[c] for c in got])
    return y if got == out else np.transpose(y, [got.index(c) for c in out])


# A product at least this many times longer along its contracted (or its rows) axis than along the others, of at
# least _TALL_MIN_WORK multiply-adds, runs on oneDNN as a 1x1 convolution's filter gradient (A^T B: a Gram
# matrix) or forward pass (A B: its gradient), where OpenBLAS's kernels are slow for such shapes and its threads
# spin: the style transfer tutorial's 64x216064x64 Gram matrix took 12 ms of CPU time on OpenBLAS (one
# thread; 100-210 on two, the machine loaded) and 10 on oneDNN, its 216064x64x64 gradient 25 against 11 ms.
_TALL, _TALL_MIN_WORK = 16, 3_000_000


def _tall_on_onednn(am, bm):
    """am @ bm (float32 stacks) on oneDNN when that is a tall product (see _TALL), else None."""
    nb, m, k = am.shape
    n = bm.shape[2]
    if m * n * k < _TALL_MIN_WORK or not _tall(m, k, n) or _onednn.api() is None:
        return None
    gram = k >= _TALL * max(m, n)
    if gram and not (am.strides[1] == 4 and am.strides[2] == 4 * m and bm.strides[1:] == (4 * n, 4)):
        return None  # A^T B wants both operands' rows contiguous (the views _as_matrices makes)
    if not gram and am.strides[1:] != (4 * k, 4):
        return None
    pads, ys = ((0, 0), (0, 0)), []
    try:
        for i in range(nb):
            if gram:  # am[i].T and bm[i]: C-contiguous [k, m] and [k, n], no copy
                ys.append(_onednn.conv2d_backprop_filter(am[i].T.reshape(1, 1, k, m), (1, 1, m, n),
                                                         bm[i].reshape(1, 1, k, n), (1, 1), (1, 1), pads))
            else:
                ys.append(_onednn.conv2d(am[i].reshape(1, 1, m, k), np.ascontiguousarray(bm[i]).reshape(1, 1, k, n),
                                         (1, 1), (1, 1), pads))
    except (ValueError, _onednn.Error):
        return None
    return ys[0].reshape(1, m, n) if nb == 1 else np.stack([v.reshape(m, n) for v in ys])


def _tall(m, k, n):
    return k >= _TALL * max(m, n) or m >= _TALL * max(k, n)


def _tall_einsum(op):
    """Whether an Einsum op is a float32 tall product (oneDNN runs it, as its own threads decide): it then does
    not make its graph's OpenBLAS GEMMs big (execute/blas_threads.py)."""
    if op.type != "Einsum" or len(op.inputs) != 2 or op.outputs[0].dtype != _dt.float32 or _onednn.api() is None:
        return False
    plan = _matmul_plan(op.attrs["equation"])
    if plan is None:
        return False
    sa, sb, _, free_a, contracted, free_b, _, _ = plan
    dims = {}
    for sub, t in ((sa, op.inputs[0]), (sb, op.inputs[1])):
        if t.shape.rank != len(sub) or not t.shape.is_fully_defined():
            return False
        dims.update(zip(sub, t.shape.as_list()))
    m, k, n = (math.prod(dims[c] for c in g) for g in (free_a, contracted, free_b))
    return m * n * k >= _TALL_MIN_WORK and (_tall(m, k, n) or _tall(n, k, m))


_blas_threads.register_offload(_tall_einsum)


def _einsum_kernel(*xs, equation):
    # Two operands that make one matrix product go straight to np.matmul (BLAS, no copy of either where
    # their layouts allow: a Gram matrix's 'bijc,bijd->bcd' took 33 ms of CPU time through np.einsum and
    # 12 through matmul, 216064x64 operands); other large contractions go through BLAS (optimize=True); small
    # ones skip the path search.
    if len(xs) == 2 and xs[0].size * xs[1].size > 1 << 16 and xs[0].dtype == xs[1].dtype:
        plan = _matmul_plan(equation)
        if plan is not None:
            y = _einsum_matmul(plan, *xs)
            if y is not None:
                return y
    big = len(xs) > 2 or (len(xs) == 2 and xs[0].size * xs[1].size > 1 << 16)
    return np.einsum(equation, *xs, optimize=big)


def _einsum_grad(op, dy):
    """d/dx_k: contract dy with the other operands back onto x_k's subscripts."""
    ins, out = _parse(op.attrs["equation"])
    xs = op.inputs
    twin = _twin_grad(ins, out, xs, dy)
    if twin is not None:
        return twin
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
        if "..." not in sub and any("..." in t for t in subs):
            # the other operands' ellipsis dims are not x_k's: keep them in front, then sum them away
            g = einsum(",".join(subs) + "->..." + sub, *operands)
            if g.shape.rank is None:
                raise NotImplementedError(f"The gradient of einsum {op.attrs['equation']!r} needs known ranks.")
            lead = g.shape.rank - len(sub)
            g = _m.reduce_sum(g, axis=list(range(lead))) if lead else g
        else:
            g = einsum(",".join(subs) + "->" + sub, *operands)
        grads.append(_m.sum_to(g, xs[k]) if "..." in sub else g)
    return tuple(grads)


def _twin_grad(ins, out, xs, dy):
    """The gradient of einsum(x, x) whose second operand's letters are the first's with some pairs swapped
    (a Gram matrix 'bijc,bijd->bcd'), or None: both operands' gradients are one contraction of x with dy
    and dy's transpose over the swapped output letters, einsum(out,b->a)(dy + dy^T, x), given wholly to the
    first operand (the second gets None): one big product instead of two and their sum."""
    if len(xs) != 2 or xs[0] is not xs[1] or "..." in "".join(ins) + out:
        return None
    sa, sb = ins
    if len(sa) != len(sb) or len(set(sa)) != len(sa) or len(set(out)) != len(out):
        return None
    swap = {}
    for p, q in zip(sa, sb):
        if swap.setdefault(p, q) != q or swap.setdefault(q, p) != p:
            return None  # not an involution of the letters
    if sa == sb or any(swap.get(c, c) not in out for c in out):
        return None
    perm = [out.index(swap.get(c, c)) for c in out]
    total = _m.add(dy, _a.transpose(dy, perm))
    return einsum(out + "," + sb + "->" + sa, total, _m.conj(xs[0])), None


_EINSUM_TYPES = FLOATS | COMPLEX | frozenset([_dt.int32, _dt.int64])
EINSUM = defop("Einsum", _einsum_kernel, _einsum_infer, grad=_einsum_grad, same=1 << 30, allowed=_EINSUM_TYPES)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation (NumPy's einsum), with TensorFlow's shape checks."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum's `equation` must be a string like 'ij,jk->ik', got {equation!r}")
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
    """Vector norms (euclidean, 1, inf, any p > 0) and matrix norms (fro/euclidean, 1, 2, inf) as TensorFlow."""
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
        return _spectral_norm(x, axis, keepdims, name)
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


# ---------------------------------------------------------------- helpers for the decompositions and solvers
def _no_half(name, fn):
    """TensorFlow registers no CPU kernel for half precision for most of these ops."""
    def k(x, *rest, **attrs):
        if x.dtype == np.float16:
            raise NotFoundError(f"Could not find device for node: {{{{node {name}}}}} = {name}[T=DT_HALF] "
                                f"[Op:{name}]")
        return fn(x, *rest, **attrs)
    k.__wrapped__ = fn
    return k


def _H(x):
    """Conjugate transpose of the last two axes of a NumPy array."""
    return np.conj(np.swapaxes(x, -1, -2))


def _batch_dims(s):
    return s[:-2]


def _square_infer(x, **_):
    msg = _square_error(x.shape)
    if msg:
        raise ValueError(msg)
    return x.shape, x.dtype


def _eye_like_batch(x):
    """An identity matrix broadcastable against the (batch of) square matrix x."""
    n = x.shape[-1]
    return _a.eye(n if n is not None else _a.shape(x)[-1], dtype=x.dtype)


def _as_dy_matrix(dy):
    return _a.expand_dims(_a.expand_dims(dy, -1), -1)


# ---------------------------------------------------------------- log-determinant
def _slogdet_kernel(x):
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)


def _slogdet_infer(x):
    msg = _square_error(x.shape)
    if msg:
        raise ValueError(msg)
    s = x.shape if x.shape.rank is None else x.shape[:-2]
    return [(s, x.dtype), (s, x.dtype)]


def _slogdet_grad(op, dsign, dlog):
    # d log|det A| = Re tr(A^-1 dA): the gradient is A^-H scaled by the (real part of the) cotangent. The sign is
    # treated as a constant, as TensorFlow does.
    a = op.inputs[0]
    if a.dtype.is_complex:
        dlog = _m.cast(_m.real(dlog), a.dtype)
    return (_m.multiply(_as_dy_matrix(dlog), inv(a, adjoint=True)),)


SLOGDET = defop("LogMatrixDeterminant", _no_half("LogMatrixDeterminant", _slogdet_kernel), _slogdet_infer,
                grad=_slogdet_grad, num_outputs=2, allowed=_INVERTIBLE)
_Slogdet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of a (batch of) square matrix."""
    x = to_tensor(input)
    return _Slogdet(*_checked(SLOGDET, (x,), {}, name or "LogMatrixDeterminant"))


def logdet(matrix, name=None):
    """log(det(matrix)) of a Hermitian positive-definite matrix, from its Cholesky factor (real result)."""
    chol = cholesky(matrix)
    d = _m.log(_m.real(diag_part(chol)))
    return _m.multiply(_m.reduce_sum(d, axis=-1), _m.cast(2.0, d.dtype), name=name or "logdet")


# ---------------------------------------------------------------- Cholesky
def _cholesky_kernel(x):
    try:
        return np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        pass
    # TensorFlow fills the lower triangle of each matrix that is not positive definite with NaN.
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = np.where(np.tri(n, dtype=bool), np.nan, 0).astype(x.dtype)
    return out.reshape(x.shape)


def _cholesky_grad(op, dl):
    # With A = L L^H: P = tril(L^H dL) with its diagonal halved, S = L^-H P L^-1, grad = (S + S^H) / 2.
    chol = op.outputs[0]
    p = _m.matmul(chol, dl, adjoint_a=True)
    p = set_diag(band_part(p, -1, 0), _m.multiply(diag_part(p), _m.cast(0.5, p.dtype)))
    t = triangular_solve(chol, p, lower=True, adjoint=True)  # L^-H P
    s = adjoint(triangular_solve(chol, adjoint(t), lower=True, adjoint=True))  # (L^-H P) L^-1
    return (_m.multiply(_m.add(s, adjoint(s)), _m.cast(0.5, s.dtype)),)


CHOLESKY = defop("Cholesky", _no_half("Cholesky", _cholesky_kernel), _square_infer, grad=_cholesky_grad,
                 allowed=_INVERTIBLE)


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor of a (batch of) Hermitian positive-definite matrix. Only the lower
    triangle is read; a matrix that is not positive definite gives NaNs, as in TensorFlow."""
    return _checked(CHOLESKY, (to_tensor(input),), {}, name or "Cholesky")


# ---------------------------------------------------------------- solvers
def _solve_infer(a, b, adjoint=False):
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sb.rank is not None:
        if sa.rank < 2:
            raise ValueError(f"Input tensor 0 must have rank >= 2, got {sa.rank}")
        if sa.rank != sb.rank:
            raise ValueError("All input tensors must have the same rank.")
        for x, y in zip(sa[:-2], sb[:-2]):
            if x is not None and y is not None and x != y:
                raise ValueError("All input tensors must have the same outer dimensions.")
    if sa.rank is not None and sa.rank >= 2:
        if sa[-1] is not None and sa[-2] is not None and sa[-1] != sa[-2]:
            raise ValueError("First input (lhs) must be a square matrix.")
        if sb.rank is not None and sb.rank >= 2:
            rows = sa[-2] if sa[-2] is not None else sa[-1]
            if rows is not None and sb[-2] is not None and rows != sb[-2]:
                raise ValueError("Input matrix and rhs are incompatible.")
    if sb.rank is None:
        return (UNKNOWN if sa.rank is None else TensorShape([None] * sa.rank)), b.dtype
    if sa.rank is None:
        return sb, b.dtype
    batch = [x if x is not None else y for x, y in zip(sa[:-2], sb[:-2])]
    return TensorShape(batch + [sa[-1] if sa[-1] is not None else sb[-2], sb[-1]]), b.dtype


def _solve_kernel(a, b, adjoint=False):
    if adjoint:
        a = _H(a)
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("Input matrix is not invertible.") from None


def _solve_grad(op, dx):
    a, adj, x = op.inputs[0], op.attrs.get("adjoint", False), op.outputs[0]
    gb = solve(a, dx, adjoint=not adj)
    ga = _m.matmul(x, gb, adjoint_b=True) if adj else _m.matmul(gb, x, adjoint_b=True)
    return _m.negative(ga), gb


SOLVE = defop("MatrixSolve", _no_half("MatrixSolve", _solve_kernel), _solve_infer, grad=_solve_grad, same=2,
              allowed=_INVERTIBLE)


def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs when `adjoint`); batch dimensions must match."""
    a, b = binary_args(matrix, rhs)
    return _checked(SOLVE, (a, b), {"adjoint": bool(adjoint)}, name or "MatrixSolve")


def _trisolve_infer(a, b, lower=True, adjoint=False):
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sa.rank < 2:
        raise ValueError(f"In[0] ndims must be >= 2: {sa.rank}")
    if sb.rank is not None and sb.rank < 2:
        raise ValueError(f"In[1] ndims must be >= 2: {sb.rank}")
    if sa.rank is None or sb.rank is None:
        return UNKNOWN, a.dtype
    if sa[-1] is not None and sa[-2] is not None and sa[-1] != sa[-2]:
        raise ValueError(f"In[0] matrices in the last dimensions must be square ({sa[-1]} =/= {sa[-2]})")
    n = sa[-1] if sa[-1] is not None else sa[-2]
    if n is not None and sb[-2] is not None and n != sb[-2]:
        raise ValueError(f"In[0] mismatch In[1] shape: {n} vs. {sb[-2]}: {_fmt(sa)} {_fmt(sb)} {int(lower)} "
                         f"{int(adjoint)}")
    try:
        batch = broadcast_shape(sa[:-2], sb[:-2])
    except ValueError:
        raise ValueError(f"In[0] and In[1] must have compatible batch dimensions: {_fmt(sa)} vs. {_fmt(sb)}") from None
    return batch.concatenate([n if n is not None else sb[-2], sb[-1]]), a.dtype


def _trisolve_kernel(a, b, lower=True, adjoint=False):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    if adjoint:
        a, lower = _H(a), not lower
    n = a.shape[-1]
    x = np.zeros(b.shape, np.result_type(a, b))
    # Substitution row by row (vectorised over the batch and the right-hand sides); a zero on the diagonal gives
    # infinities as in TensorFlow rather than an error.
    for i in (range(n) if lower else range(n - 1, -1, -1)):
        done = slice(0, i) if lower else slice(i + 1, n)
        acc = np.matmul(a[..., i:i + 1, done], x[..., done, :])[..., 0, :]
        x[..., i, :] = (b[..., i, :] - acc) / a[..., i, i][..., None]
    return x


def _trisolve_grad(op, dx):
    a, b = op.inputs
    lower, adj, x = op.attrs.get("lower", True), op.attrs.get("adjoint", False), op.outputs[0]
    gb = triangular_solve(a, dx, lower=lower, adjoint=not adj)
    ga = _m.negative(_m.matmul(x, gb, adjoint_b=True) if adj else _m.matmul(gb, x, adjoint_b=True))
    ga = band_part(ga, -1, 0) if lower else band_part(ga, 0, -1)
    return _m.sum_to(ga, a), _m.sum_to(gb, b)


TRISOLVE = defop("MatrixTriangularSolve", _no_half("MatrixTriangularSolve", context.quiet(_trisolve_kernel)),
                 _trisolve_infer, grad=_trisolve_grad, same=2, allowed=_INVERTIBLE)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves with the lower (or upper) triangle of `matrix` only; batch dimensions broadcast."""
    a, b = binary_args(matrix, rhs)
    return _checked(TRISOLVE, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)},
                    name or "MatrixTriangularSolve")


def cholesky_solve(chol, rhs, name=None):
    """X with A X = rhs, given chol = cholesky(A): two triangular solves."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True, name=name or "cholesky_solve")


def _lstsq_infer(a, b, l2, fast=True):
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sa.rank < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {sa.rank}")
    if sb.rank is not None and sb.rank < 2:
        raise ValueError(f"Input tensor 1 must have rank >= 2, got {sb.rank}")
    if sa.rank is None or sb.rank is None:
        return UNKNOWN, a.dtype
    if sa[-2] is not None and sb[-2] is not None and sa[-2] != sb[-2]:
        raise ValueError(f"Matrix size-incompatible: In[0]: {_fmt(sa[-2:])}, In[1]: {_fmt(sb[-2:])}")
    return broadcast_shape(sa[:-2], sb[:-2]).concatenate([sa[-1], sb[-1]]), a.dtype


def _lstsq_kernel(a, b, l2, fast=True):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    m, n = a.shape[-2:]
    if fast:  # regularised normal equations, as TensorFlow's fast path
        eye = l2 * np.eye(min(m, n), dtype=a.dtype)
        if m >= n:
            return np.linalg.solve(_H(a) @ a + eye, _H(a) @ b).astype(a.dtype)
        return (_H(a) @ np.linalg.solve(a @ _H(a) + eye, b)).astype(a.dtype)
    if l2 != 0:
        raise InvalidArgumentError("l2_regularizer must be 0 when fast=False")
    flat_a = a.reshape((-1, m, n))
    flat_b = b.reshape((-1, m, b.shape[-1]))
    out = [np.linalg.lstsq(x, y, rcond=None)[0] for x, y in zip(flat_a, flat_b)]
    return np.stack(out).reshape(batch + (n, b.shape[-1])).astype(a.dtype) if out else \
        np.zeros(batch + (n, b.shape[-1]), a.dtype)


def _lstsq_grad(op, dx):
    if not op.attrs.get("fast", True):
        raise ValueError("Gradient not defined for fast=False")
    raise NotImplementedError("The gradient of tf.linalg.lstsq needs static matrix dimensions (it is taken "
                              "through its composite form).")


LSTSQ = defop("MatrixSolveLs", _no_half("MatrixSolveLs", _lstsq_kernel), _lstsq_infer, grad=_lstsq_grad, same=2,
              allowed=_INVERTIBLE)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """Least-squares solutions of matrix @ X = rhs (minimum-norm when under-determined). With `fast` and known
    matrix dimensions it is composed of matmul/cholesky/cholesky_solve (so it is differentiable), as TensorFlow."""
    a, b = binary_args(matrix, rhs)
    m, n = (a.shape[-2], a.shape[-1]) if a.shape.rank is not None and a.shape.rank >= 2 else (None, None)
    if fast and m is not None and n is not None and b.shape.rank is not None and b.shape.rank >= 2:
        over = m >= n
        gram = _m.matmul(a, a, adjoint_a=over, adjoint_b=not over)
        if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
            l2 = _m.cast(l2_regularizer, a.dtype)
            gram = _m.add(gram, _m.multiply(l2, _a.eye(min(m, n), dtype=a.dtype)))
        chol = cholesky(gram)
        if over:
            return cholesky_solve(chol, _m.matmul(a, b, adjoint_a=True), name=name)
        return _m.matmul(a, cholesky_solve(chol, b), adjoint_a=True, name=name)
    l2 = _m.cast(l2_regularizer, _dt.float64)
    return _checked(LSTSQ, (a, b, l2), {"fast": bool(fast)}, name or "MatrixSolveLs")


# ---------------------------------------------------------------- band part
def _band_infer(x, num_lower, num_upper):
    s = x.shape
    if s.rank is not None and s.rank < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {_fmt(s)}")
    return s, x.dtype


def _band_kernel(x, num_lower, num_upper):
    m, n = x.shape[-2:]
    lo, up = int(num_lower), int(num_upper)
    if lo > m:
        raise InvalidArgumentError(f"num_lower must be negative or less or equal to number of rows ({m}) got: {lo}")
    if up > n:
        raise InvalidArgumentError(f"num_upper must be negative or less or equal to number of columns ({n}) got: "
                                   f"{up}")
    d = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
    keep = ((lo < 0) | (-d <= lo)) & ((up < 0) | (d <= up))
    return np.where(keep, x, np.zeros((), x.dtype))


BAND_PART = defop("MatrixBandPart", _band_kernel, _band_infer,
                  grad=lambda op, dy: (band_part(dy, op.inputs[1], op.inputs[2]), None, None))


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps the num_lower sub-diagonals and num_upper super-diagonals (negative: all of them)."""
    x = to_tensor(input)
    given = [t.dtype for t in (num_lower, num_upper) if isinstance(t, Tensor)]
    idx_dt = given[0] if given else _dt.int64
    lo, up = (t if isinstance(t, Tensor) else to_tensor(t, idx_dt) for t in (num_lower, num_upper))
    for i, t in ((1, lo), (2, up)):
        if t.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"Value passed to parameter 'num_{'lower' if i == 1 else 'upper'}' has DataType "
                            f"{t.dtype.name} not in list of allowed values: int32, int64")
        if t.dtype is not lo.dtype:
            raise _m.static_error(f"cannot compute MatrixBandPart as input #{i}(zero-based) was expected to be a "
                                  f"{lo.dtype.name} tensor but is a {t.dtype.name} tensor", "MatrixBandPart")
    return _checked(BAND_PART, (x, lo, up), {}, name or "MatrixBandPart")


# ---------------------------------------------------------------- QR
def _qr_infer(x, full_matrices=False):
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype), (UNKNOWN, x.dtype)]
    if s.rank < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {s.rank}")
    m, n = s[-2], s[-1]
    k = None if m is None or n is None else min(m, n)
    b = s[:-2]
    return [(b.concatenate([m, m if full_matrices else k]), x.dtype),
            (b.concatenate([m if full_matrices else k, n]), x.dtype)]


def _qr_kernel(x, full_matrices=False):
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    q, r = np.linalg.qr(wide, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _solve_r(x, r):
    """x @ R^-H for an upper-triangular R."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False))


def _qr_grad_tall(q, r, dq, dr):
    """The QR gradient when Q is m x n with m >= n (R square), in terms of public ops."""
    qdq = _m.matmul(q, dq, adjoint_a=True)
    rdr = _m.matmul(r, dr, adjoint_b=True)
    tril = band_part(_m.add(_m.subtract(qdq, adjoint(qdq)), _m.subtract(rdr, adjoint(rdr))), -1, 0)
    out = _m.add(_m.matmul(q, _m.add(dr, _solve_r(tril, r))), _solve_r(_m.subtract(dq, _m.matmul(q, qdq)), r))
    if q.dtype.is_complex:  # the imaginary part of R's diagonal is fixed at 0: remove that direction
        d = diag_part(_m.subtract(rdr, adjoint(qdq)))
        fix = diag(_m.subtract(d, _m.cast(_m.real(d), d.dtype)))
        out = _m.add(out, _solve_r(_m.matmul(q, adjoint(fix)), r))
    return out


def _qr_grad(op, dq, dr):
    a = op.inputs[0]
    q, r = op.outputs
    m, n = a.shape[-2] if a.shape.rank else None, a.shape[-1] if a.shape.rank else None
    if m is None or n is None:
        raise NotImplementedError("The QR gradient needs static matrix dimensions.")
    if m > n and op.attrs.get("full_matrices", False):
        raise NotImplementedError(f"The QR gradient is not implemented when nrows > ncols and full_matrices is "
                                  f"true (input shape {_fmt(a.shape)}).")
    if m >= n:
        return (_qr_grad_tall(q, r, dq, dr),)
    # Wide: A = [X, Y], R = [U, V] with X = Q U square; Y = Q V adds a term.
    y, u, dv, du = a[..., :, m:], r[..., :, :m], dr[..., :, m:], dr[..., :, :m]
    dx = _qr_grad_tall(q, u, _m.add(dq, _m.matmul(y, dv, adjoint_b=True)), du)
    return (_a.concat([dx, _m.matmul(q, dv)], axis=-1),)


QR = defop("Qr", _qr_kernel, _qr_infer, grad=_qr_grad, num_outputs=2, allowed=_INVERTIBLE)
_Qr = collections.namedtuple("Qr", ["q", "r"])


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """(q, r) with input = q @ r, q orthonormal columns, r upper triangular."""
    return _Qr(*_checked(QR, (to_tensor(input),), {"full_matrices": bool(full_matrices)}, name or "Qr"))


# ---------------------------------------------------------------- SVD
def _svd_infer(x, compute_uv=True, full_matrices=False):
    s = x.shape
    real = x.dtype.real_dtype
    if s.rank is None:
        return [(UNKNOWN, real), (UNKNOWN, x.dtype), (UNKNOWN, x.dtype)]
    if s.rank < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {s.rank}")
    m, n = s[-2], s[-1]
    k = None if m is None or n is None else min(m, n)
    b = s[:-2]
    if not compute_uv:
        return [(b.concatenate([k]), real), (TensorShape([0]), x.dtype), (TensorShape([0]), x.dtype)]
    return [(b.concatenate([k]), real), (b.concatenate([m, m if full_matrices else k]), x.dtype),
            (b.concatenate([n, n if full_matrices else k]), x.dtype)]


def _svd_kernel(x, compute_uv=True, full_matrices=False):
    real = np.finfo(x.dtype).dtype
    if not compute_uv:
        empty = np.zeros((0,), x.dtype)
        return np.linalg.svd(x, compute_uv=False).astype(real), empty, empty
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s.astype(real), u.astype(x.dtype), _H(vh).astype(x.dtype)


def _safe_reciprocal(x, eps=1e-20):
    return _m.divide(x, _m.add(_m.multiply(x, x), _m.cast(eps, x.dtype)))


def _svd_grad(op, ds, du, dv):
    a = op.inputs[0]
    s, u, v = op.outputs
    m, n = (a.shape[-2], a.shape[-1]) if a.shape.rank else (None, None)
    if m is None or n is None:
        raise NotImplementedError("The SVD gradient needs static matrix dimensions.")
    dt = a.dtype
    sc = _m.cast(s, dt)
    if not op.attrs.get("compute_uv", True):
        s2, u2, v2 = svd(a, compute_uv=True)
        return (_m.matmul(u2, _m.matmul(diag(_m.cast(ds, dt)), v2, adjoint_b=True)),)
    full = op.attrs.get("full_matrices", False)
    if full and m != n:
        raise NotImplementedError("The SVD gradient is not implemented for full_matrices=True with a non-square "
                                  "input.")
    tall = m > n
    if tall:  # work on A^H = V S U^H so that the matrix is wide (m <= n)
        u, v, du, dv, m, n = v, u, dv, du, n, m
    ds = _m.cast(ds, dt)
    s2 = _m.square(s)
    f = set_diag(_m.cast(_safe_reciprocal(_m.subtract(_a.expand_dims(s2, -2), _a.expand_dims(s2, -1))), dt),
                 _m.zeros_like_(sc))
    v1, dv1 = (v, dv) if m == n else (v[..., :, :m], dv[..., :, :m])
    fu = _m.multiply(f, _m.matmul(u, du, adjoint_a=True))
    vgv = _m.matmul(v1, dv1, adjoint_a=True)
    fv = _m.multiply(f, vgv)
    smat = diag(sc)
    inner = _m.add(_m.add(diag(ds), _m.matmul(_m.add(fu, adjoint(fu)), smat)), _m.matmul(smat, _m.add(fv, adjoint(fv))))
    g = _m.matmul(u, _m.matmul(inner, v1, adjoint_b=True))
    s_inv = _safe_reciprocal(sc)
    if m != n:
        dv1h = adjoint(dv1)
        rest = _m.subtract(dv1h, _m.matmul(_m.matmul(dv1h, v1), v1, adjoint_b=True))
        g = _m.add(g, _m.matmul(_m.multiply(u, _a.expand_dims(s_inv, -2)), rest))
    if dt.is_complex:  # the phase of each singular pair is free: its gradient direction is removed
        lmat = diag(diag_part(vgv))
        t3 = _m.matmul(diag(s_inv), _m.subtract(adjoint(lmat), lmat))
        g = _m.add(g, _m.multiply(_m.cast(0.5, dt), _m.matmul(u, _m.matmul(t3, v1, adjoint_b=True))))
    return (adjoint(g) if tall else g,)


SVD = defop("Svd", _no_half("Svd", _svd_kernel), _svd_infer, grad=_svd_grad, num_outputs=3, allowed=_INVERTIBLE)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values s (descending, real) and, with compute_uv, u and v with tensor = u @ diag(s) @ adjoint(v)
    (TensorFlow returns v, not its adjoint)."""
    s, u, v = _checked(SVD, (to_tensor(tensor),), {"compute_uv": bool(compute_uv),
                                                    "full_matrices": bool(full_matrices)}, name or "Svd")
    return (s, u, v) if compute_uv else s


# ---------------------------------------------------------------- Hermitian eigendecomposition
def _eigh_infer(x, compute_v=True):
    msg = _square_error(x.shape)
    if msg:
        raise ValueError(msg)
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype), (UNKNOWN if compute_v else TensorShape([0]), x.dtype)]
    e = s[:-2].concatenate([s[-1] if s[-1] is not None else s[-2]])
    return [(e, x.dtype), (e.concatenate([e[-1]]) if compute_v else TensorShape([0]), x.dtype)]


def _eigh_kernel(x, compute_v=True):
    # Only the lower triangle is read (LAPACK's "L"), as TensorFlow does.
    if not compute_v:
        return np.linalg.eigvalsh(x).astype(x.dtype), np.zeros((0,), x.dtype)
    e, v = np.linalg.eigh(x)
    return e.astype(x.dtype), v


def _eigh_grad(op, de, dv):
    a = op.inputs[0]
    e = op.outputs[0]
    if op.attrs.get("compute_v", True):
        v = op.outputs[1]
        f = set_diag(_safe_reciprocal(_m.subtract(_a.expand_dims(e, -2), _a.expand_dims(e, -1))), _m.zeros_like_(e))
        inner = _m.add(diag(de), _m.multiply(f, _m.matmul(v, dv, adjoint_a=True)))
    else:
        v = eigh(a)[1]
        inner = diag(de)
    g = _m.matmul(v, _m.matmul(inner, v, adjoint_b=True))
    # The op reads the lower triangle only: fold the upper part onto it.
    g = band_part(_m.add(g, adjoint(g)), -1, 0)
    return (set_diag(g, _m.multiply(diag_part(g), _m.cast(0.5, g.dtype))),)


EIGH = defop("SelfAdjointEigV2", _no_half("SelfAdjointEigV2", _eigh_kernel), _eigh_infer, grad=_eigh_grad,
             num_outputs=2, allowed=_INVERTIBLE)


def eigh(tensor, name=None):
    """(eigenvalues ascending, eigenvectors as columns) of a (batch of) Hermitian matrix (lower triangle read)."""
    e, v = _checked(EIGH, (to_tensor(tensor),), {"compute_v": True}, name or "SelfAdjointEigV2")
    return e, v


def eigvalsh(tensor, name=None):
    return _checked(EIGH, (to_tensor(tensor),), {"compute_v": False}, name or "SelfAdjointEigV2")[0]


# ---------------------------------------------------------------- matrix exponential
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
           10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm_kernel(x):
    """Scaling and squaring with a [13/13] Pade approximant (Higham 2005), in double precision."""
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    n = x.shape[-1]
    if n == 0 or wide.size == 0:
        return x.copy()
    norm1 = np.max(np.sum(np.abs(wide), axis=-2), axis=-1)  # per matrix
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(norm1 / _THETA13))).astype(int)
    s = np.where(np.isfinite(norm1), s, 0)
    a = wide / (2.0 ** s)[..., None, None]
    b = _PADE13
    eye = np.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for i in range(int(s.max(initial=0))):
        r = np.where((i < s)[..., None, None], r @ r, r)
    return r.astype(x.dtype)


def _expm_grad(op, dy):
    # The adjoint Frechet derivative: the upper-right block of expm([[A^H, dy], [0, A^H]]).
    ah = adjoint(op.inputs[0])
    top = _a.concat([ah, dy], axis=-1)
    bottom = _a.concat([_m.zeros_like_(ah), ah], axis=-1)
    big = expm(_a.concat([top, bottom], axis=-2))
    n = op.inputs[0].shape[-1]
    if n is None:
        raise NotImplementedError("The expm gradient needs a static matrix size.")
    return (big[..., :n, n:],)


EXPM = defop("MatrixExponential", _no_half("MatrixExponential", context.quiet(_expm_kernel)), _square_infer,
             grad=_expm_grad, allowed=_INVERTIBLE)


def expm(input, name=None):  # noqa: A002
    x = to_tensor(input)
    if x.dtype not in _INVERTIBLE:
        raise ValueError(f"tf.linalg.expm does not support matrices of type {x.dtype!r}")
    return _checked(EXPM, (x,), {}, name or "MatrixExponential")


# ---------------------------------------------------------------- composites: pinv, global_norm
def pinv(a, rcond=None, validate_args=False, name=None):
    """Moore-Penrose pseudo-inverse from the SVD; singular values at most rcond * max(s) are dropped."""
    a = to_tensor(a)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if rcond is None:
        dims = [d for d in a.shape[-2:]] if a.shape.rank is not None else []
        if any(d is None for d in dims) or not dims:
            raise NotImplementedError("tf.linalg.pinv with rcond=None needs static matrix dimensions.")
        rcond = 10.0 * max(dims) * float(np.finfo(a.dtype.real_dtype.as_numpy_dtype).eps)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = _m.multiply(_m.cast(rcond, s.dtype), _m.reduce_max(s, axis=-1, keepdims=True))
    s = _a.where(_m.greater(s, cutoff), s, _m.cast(np.inf, s.dtype) * _a.ones_like(s))
    return _m.matmul(_m.divide(v, _a.expand_dims(_m.cast(s, a.dtype), -2)), u, adjoint_b=True, name=name or "pinv")


def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in t_list); None entries are skipped."""
    if not isinstance(t_list, (list, tuple)) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    from .nn_ops import l2_loss
    values = [to_tensor(t.values if hasattr(t, "values") and not isinstance(t, Tensor) else t)
              for t in t_list if t is not None]
    if not values:
        return _m.cast(0.0, _dt.float32, name=name or "global_norm")
    for i, v in enumerate(values[1:], 1):
        if v.dtype is not values[0].dtype:
            raise _m.static_error(f"cannot compute Pack as input #{i}(zero-based) was expected to be a "
                                  f"{cpp_dtype_name(values[0].dtype)} tensor but is a {cpp_dtype_name(v.dtype)} tensor", "Pack")
    half = _m.reduce_sum(_a.stack([l2_loss(v) for v in values]))
    return _m.sqrt(_m.multiply(half, _m.cast(2.0, half.dtype)), name=name or "global_norm")


def _spectral_norm(x, axis, keepdims, name):
    """The largest singular value over the two `axis` dimensions (real-valued, as TensorFlow's SVD gives)."""
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("tf.norm(ord=2) over matrices needs a known rank.")
    ax = [a % rank if -rank <= a < rank else a for a in axis]
    if any(not 0 <= a < rank for a in ax):
        raise _m.static_error(f"Invalid reduction dimension ({max(axis, key=abs)} for input with {rank} "
                              f"dimension(s)", "Svd")
    rest = [i for i in range(rank) if i not in ax]
    moved = _a.transpose(x, rest + ax) if rest + ax != list(range(rank)) else x
    s = svd(moved, compute_uv=False)
    top = _m.reduce_max(s, axis=-1)
    if keepdims:
        for a in sorted(ax):
            top = _a.expand_dims(top, a)
    return _a.identity(top, name=name) if name else top
