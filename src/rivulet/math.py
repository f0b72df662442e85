"""tf.math: the public math namespace. TOPLEVEL lists the names TensorFlow also exposes as tf.NAME."""
import numpy as _np

from .ops.math_ops import (add, subtract, multiply, divide, truediv, realdiv, floordiv, floormod, pow,  # noqa: F401,A004
                           maximum, minimum, less, less_equal, greater, greater_equal, equal, not_equal, logical_and,
                           logical_or, logical_not, logical_xor, negative, floor, conj, cast, matmul, reduce_sum,
                           reduce_mean, abs, sign, square, sqrt, rsqrt, exp, log, log1p, expm1, sin, cos, tan, tanh,
                           sigmoid, reciprocal, round, ceil, is_nan, is_inf, is_finite, erf, erfc, squared_difference,
                           truncatediv, truncatemod, divide_no_nan, xdivy, xlogy, add_n, clip_by_value, reduce_max,
                           reduce_min, reduce_prod, reduce_all, reduce_any, reduce_logsumexp, reduce_std,
                           reduce_variance, argmax, argmin, cumsum, cumprod, real, imag, asin, acos, atan,
                           atan2, sinh, cosh, asinh, acosh, atanh, rint, multiply_no_nan,
                           reciprocal_no_nan, reduce_euclidean_norm, count_nonzero, clip_by_norm, lgamma, digamma)
from .ops.sort_segment_ops import (top_k, segment_sum, segment_mean, segment_max, segment_min,  # noqa: F401
                                   segment_prod, unsorted_segment_sum, unsorted_segment_mean, unsorted_segment_max,
                                   unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)
from .ops.nn_ops import softmax, log_softmax, softplus, softsign, l2_normalize  # noqa: F401  (tf.math has them too)
from .ops.math_ops import (scalar_mul, clip_by_global_norm, bincount, in_top_k,  # noqa: F401
                           confusion_matrix)

mod = floormod


def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 wherever x == 0 (y included: its gradient there is 0 too), as TensorFlow's Xlog1py."""
    from .ops.array_ops import where as _where, zeros_like as _zeros_like
    from .ops._rules import binary_args as _binary_args
    x, y = _binary_args(x, y)
    if not (x.dtype.is_floating or x.dtype.is_complex):  # TensorFlow's op-def check comes before the shapes
        from .core import context as _context
        from .errors import InvalidArgumentError as _IAE
        msg = (f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: half, float, double, "
               f"complex64, complex128")
        raise _IAE(msg + " [Op:Xlog1py]") if _context.executing_eagerly() else TypeError(msg)
    zero = equal(x, _zeros_like(x))
    safe_y = _where(zero, _zeros_like(y), y)
    return _where(zero, _zeros_like(x), multiply(x, log1p(safe_y)), name=name)


def angle(input, name=None):  # noqa: A002
    """The argument of a complex number (atan2(imag, real)); for real input pi where it is negative, else 0."""
    from .ops.array_ops import where as _where, zeros_like as _zeros_like
    from .ops._rules import to_tensor as _to_tensor
    x = _to_tensor(input)
    if x.dtype.is_complex:
        return atan2(imag(x), real(x), name=name)
    return _where(less(x, _zeros_like(x)), _to_tensor(_np.pi, x.dtype), _zeros_like(x), name=name)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), as TensorFlow computes it: -softplus(-x) (no overflow for large |x|)."""
    return negative(softplus(negative(x)), name=name)
# tf.truncatediv, tf.truncatemod, tf.clip_by_value and tf.realdiv are top-level only in TensorFlow; they live
# here because TOPLEVEL is how names reach `tf.` (so tf.math has them too).
TOPLEVEL = ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "floordiv", "floormod", "pow", "maximum",
            "minimum", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and",
            "logical_or", "logical_not", "negative", "floor", "cast", "matmul", "reduce_sum", "reduce_mean", "abs",
            "sign", "square", "sqrt", "exp", "sin", "cos", "tan", "tanh", "sigmoid", "round", "truncatediv",
            "truncatemod", "add_n", "clip_by_value", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
            "reduce_any", "reduce_logsumexp", "argmax", "argmin", "cumsum", "asin", "acos", "atan", "atan2",
            "sinh", "cosh", "asinh", "acosh", "atanh", "clip_by_norm", "scalar_mul", "clip_by_global_norm"]

from .ops import composite as _composite  # noqa: E402
_composite.wrap_namespace(globals(), _composite.UNARY + _composite.BINARY + _composite.REDUCE)  # composite tensors (RaggedTensor) dispatch through its table

# Special functions (ops/special_ops.py): tf.math.erfinv/ndtri/erfcinv, the Bessel I functions here too, and the
# tf.math.special namespace.
from .ops.special_ops import (erfinv, ndtri, erfcinv, bessel_i0, bessel_i0e, bessel_i1,  # noqa: F401,E402
                              bessel_i1e)
import types as _types  # noqa: E402
from .ops import special_ops as _special_ops  # noqa: E402
special = _types.ModuleType("rivulet.math.special", "tf.math.special: Bessel functions, dawsn, expint, fresnel_cos/"
                            "sin, spence.")
for _n in _special_ops.SPECIAL:
    setattr(special, _n, getattr(_special_ops, _n))
from .ops.math_more_ops import (cumulative_logsumexp, invert_permutation, nextafter, polyval, lbeta,  # noqa: F401,E402
                                is_non_decreasing, is_strictly_increasing, zero_fraction, accumulate_n)
from .ops.special_ops import igamma, igammac, betainc, zeta, polygamma  # noqa: F401,E402
from .ops.math_more_ops import approx_max_k, approx_min_k  # noqa: F401,E402
