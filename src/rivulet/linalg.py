"""tf.linalg. TOPLEVEL lists the names TensorFlow also exposes as tf.NAME."""
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_ops import cross  # noqa: F401
from .ops.linalg_ops import (adjoint, band_part, cholesky, cholesky_solve, det, diag, diag_part, eigh,  # noqa: F401
                             eigvalsh, einsum, expm, global_norm, inv, logdet, lstsq, matrix_transpose, matvec, norm,
                             pinv, qr, set_diag, slogdet, solve, svd, tensordot, trace, triangular_solve)
from .ops.math_ops import matmul  # noqa: F401
from .ops.nn_ops import l2_normalize  # noqa: F401
from .ops.decomposition_ops import eig, eigvals, lu  # noqa: F401

from .ops.linalg_more_ops import (lu_reconstruct, lu_solve, lu_matrix_inverse, matrix_rank, tensor_diag,  # noqa: F401
                                  tensor_diag_part, tridiagonal_solve, tridiagonal_matmul, banded_triangular_solve,
                                  sqrtm, logm, eigh_tridiagonal)

transpose = matrix_transpose
matrix_square_root = sqrtm  # tf.matrix_square_root
TOPLEVEL = ["einsum", "tensordot", "norm", "eig", "eigvals", "matrix_square_root"]


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / norm, norm), the norm kept with its reduced dims, as TensorFlow's tf.linalg.normalize."""
    from .ops.math_ops import truediv as _truediv
    from .ops._rules import to_tensor as _to_tensor
    x = _to_tensor(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return _truediv(x, n, name=name), n
