"""tf.linalg. TOPLEVEL lists the names TensorFlow also exposes as tf.NAME."""
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_ops import (adjoint, det, diag, diag_part, einsum, inv, matrix_transpose, matvec, norm,  # noqa: F401
                             set_diag, tensordot, trace)
from .ops.math_ops import matmul  # noqa: F401

transpose = matrix_transpose
TOPLEVEL = ["einsum", "tensordot", "norm"]
