"""tf.linalg. TOPLEVEL lists the names TensorFlow also exposes as tf.NAME."""
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_ops import (adjoint, band_part, cholesky, cholesky_solve, det, diag, diag_part, eigh,  # noqa: F401
                             eigvalsh, einsum, expm, global_norm, inv, logdet, lstsq, matrix_transpose, matvec, norm,
                             pinv, qr, set_diag, slogdet, solve, svd, tensordot, trace, triangular_solve)
from .ops.math_ops import matmul  # noqa: F401
from .ops.nn_ops import l2_normalize  # noqa: F401
from .ops.decomposition_ops import eig, eigvals, lu  # noqa: F401

transpose = matrix_transpose
TOPLEVEL = ["einsum", "tensordot", "norm"]
