"""More of tf.math: cumulative_logsumexp (the CumulativeLogsumexp op and its gradient), invert_permutation
(InvertPermutation), nextafter (NextAfter), and TensorFlow's composites polyval, lbeta, is_non_decreasing,
is_strictly_increasing, zero_fraction and accumulate_n."""
import collections

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..errors import InvalidArgumentError, NotFoundError
from ..shape import TensorShape
from ._rules import binary, binary_args, same_shape, to_tensor
from .array_ops import reshape, size, where, zeros_like
from .math_ops import (_scan_fn, _scan_kernel, add, add_n, cast, count_nonzero, divide, exp, greater, less,
                       less_equal, lgamma, log, multiply, negative, reduce_all, reduce_sum, subtract)
from .slicing import strided_slice


# ---------------------------------------------------------------- cumulative_logsumexp
def _cls_grad(op, dy):
    """d out_j / d x_i = exp(x_i - out_j) over the windows holding i: a scan of dy * exp(-out) the other way,
    split by the sign of dy so that each part is a log-sum-exp of real logs."""
    a = op.attrs
    x, out = op.inputs[0], op.outputs[0]
    lowest = to_tensor(np.finfo(x.dtype.as_numpy_dtype).min, x.dtype)
    zero = zeros_like(dy)

    def part(mask, mag):
        lg = where(mask, log(where(mask, mag, zero + 1)), zero + lowest)
        s = cumulative_logsumexp(subtract(lg, out), a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
        return exp(add(s, x))

    return (subtract(part(greater(dy, zero), dy), part(less(dy, zero), negative(dy))),)


CUMULATIVE_LOGSUMEXP = defop("CumulativeLogsumexp", _scan_kernel(np.logaddexp.accumulate, -np.inf), same_shape,
                             grad=_cls_grad, allowed=FLOATS)
cumulative_logsumexp = _scan_fn(CUMULATIVE_LOGSUMEXP, "cumulative_logsumexp")


# ---------------------------------------------------------------- invert_permutation
def _invert_permutation_kernel(x):
    if x.ndim != 1:
        raise InvalidArgumentError("invert_permutation expects a 1D vector.")
    n = x.shape[0]
    out = np.full(n, -1, x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise InvalidArgumentError(f"{d} is not between 0 and {n}")
        if out[d] != -1:
            raise InvalidArgumentError(f"{d} is duplicated in the input.")
        out[d] = i
    return out


def _invert_permutation_infer(x):
    if x.shape.rank is not None and x.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.rank}")
    return TensorShape([x.shape[0] if x.shape.rank else None]), x.dtype


INVERT_PERMUTATION = defop("InvertPermutation", _invert_permutation_kernel, _invert_permutation_infer, grad=None,
                           allowed=frozenset([_dt.int32, _dt.int64]))


def invert_permutation(x, name=None):
    """y[x[i]] = i for a permutation x of 0 .. n-1 (int32/int64)."""
    return bind(INVERT_PERMUTATION, (to_tensor(x),), name=name or "InvertPermutation")


# ---------------------------------------------------------------- nextafter
NEXT_AFTER = defop("NextAfter", lambda a, b: np.nextafter(a, b), binary, grad=None, same=2,
                   allowed=frozenset([_dt.float32, _dt.float64]))


def nextafter(x1, x2, name=None):
    """The next representable value after x1 towards x2, elementwise with broadcasting (float32/float64)."""
    x1, x2 = binary_args(x1, x2)
    return bind(NEXT_AFTER, (x1, x2), name=name or "NextAfter")


# ---------------------------------------------------------------- composites
def polyval(coeffs, x, name=None):
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1] by Horner's rule, as TensorFlow builds it (zeros_like(x) for no
    coefficients); each coefficient may be a tensor broadcasting against x."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = to_tensor(x)
    if not coeffs:
        return zeros_like(x, name=name)
    p = to_tensor(coeffs[0])
    for c in coeffs[1:]:
        p = add(c, multiply(p, x))
    return p


def lbeta(x, name=None):
    """log|Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (-inf for an empty last axis)."""
    x = to_tensor(x)
    return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])), name=name)


def _monotonic(x, strict, name):
    x = to_tensor(x)
    if not (x.dtype.is_integer or x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"Expected x to be numeric, instead found: {str(x)}")
    flat = reshape(x, [-1])
    n = size(flat)
    diff = subtract(strided_slice(flat, [1], [n]), strided_slice(flat, [0], [n - 1]))
    zero = to_tensor(0, x.dtype)
    return reduce_all((less if strict else less_equal)(zero, diff), name=name)


def is_non_decreasing(x, name=None):
    """True when every element of x (flattened) is <= the next; True for fewer than two."""
    return _monotonic(x, False, name)


def is_strictly_increasing(x, name=None):
    """True when every element of x (flattened) is < the next; True for fewer than two."""
    return _monotonic(x, True, name)


def zero_fraction(value, name=None):
    """The fraction of zeros in value, a float32 scalar (NaN for an empty tensor)."""
    value = to_tensor(value)
    total = size(value, out_type=_dt.int64)
    nonzero = count_nonzero(value, dtype=_dt.int64)
    return divide(cast(subtract(total, nonzero), _dt.float32), cast(total, _dt.float32), name=name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Deprecated in TensorFlow (use tf.math.add_n): the sum of a list of tensors of one shape and dtype."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [to_tensor(t) for t in inputs]
    if not all(t.dtype == inputs[0].dtype for t in inputs):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    want = TensorShape(shape)
    for t in inputs:
        want = want.merge_with(t.shape)
    if tensor_dtype is not None and _dt.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is <dtype: '{_dt.as_dtype(tensor_dtype).name}'>, but `input` is "
                        f"of type <dtype: '{inputs[0].dtype.name}'>. These must be equal. Try casting the input to the "
                        "desired type.")
    if len(inputs) == 1 and name is None:
        return inputs[0]
    return add_n(inputs, name=name)



# ---------------------------------------------------------------- approx_max_k / approx_min_k
ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])
_APPROX_TYPES = frozenset([_dt.float16, _dt.float32])


def _approx_top_k_kernel(x, k, reduction_dimension, recall_target, is_max_k, reduction_input_size_override,
                         aggregate_to_topk):
    if not is_max_k or reduction_dimension != -1:  # TensorFlow's CPU kernel: the exact top k of the last axis only
        raise NotFoundError(
            f"Could not find device for node: {{{{node ApproxTopK}}}} = ApproxTopK[T={_ENUM(x.dtype)}, "
            f"aggregate_to_topk={str(aggregate_to_topk).lower()}, is_max_k={str(is_max_k).lower()}, k={k}, "
            f"recall_target={recall_target:g}, reduction_dimension={reduction_dimension}, "
            f"reduction_input_size_override={reduction_input_size_override}]")
    n = x.shape[-1]
    if n < k:
        raise InvalidArgumentError(f"input must have at least k columns. Had {n}, needed {k}")
    v = x.astype(np.float64)
    rank = np.where(np.isnan(v), 0, np.where(v == np.inf, 1, 2))  # NaN first, then inf, then the rest by value
    order = np.lexsort((np.where(np.isnan(v), 0, -v), rank), axis=-1)[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


def _ENUM(np_dtype):  # noqa: N802
    return _dt.ENUM_NAMES[_dt.from_numpy(np_dtype).as_datatype_enum]


def _approx_infer(x, k, reduction_dimension, **_):
    if x.shape.rank is None:
        return [(TensorShape(None), x.dtype), (TensorShape(None), _dt.int32)]
    dims = x.shape.as_list()
    dims[reduction_dimension] = k
    return [(TensorShape(dims), x.dtype), (TensorShape(dims), _dt.int32)]


APPROX_TOP_K = defop("ApproxTopK", _approx_top_k_kernel, _approx_infer, num_outputs=2, allowed=_APPROX_TYPES)


def _approx(operand, k, reduction_dimension, recall_target, is_max_k, reduction_input_size_override,
            aggregate_to_topk, name):
    x = to_tensor(operand)
    values, indices = bind(APPROX_TOP_K, (x,), {
        "k": int(k), "reduction_dimension": int(reduction_dimension), "recall_target": float(recall_target),
        "is_max_k": bool(is_max_k), "reduction_input_size_override": int(reduction_input_size_override),
        "aggregate_to_topk": bool(aggregate_to_topk)}, name=name or "ApproxTopK")
    return ApproxTopK(values, indices)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k largest values along reduction_dimension and their indices (ApproxTopK; TensorFlow's CPU kernel is
    exact and serves the last dimension only: other dimensions raise its NotFoundError)."""
    return _approx(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                   aggregate_to_topk, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """ApproxTopK for the smallest values: TensorFlow 2.21 has no CPU kernel for it (NotFoundError), here too."""
    return _approx(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                   aggregate_to_topk, name)
