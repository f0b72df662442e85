"""tensor_scatter_nd_min/max and unique_with_counts, built on the scatter and unique helpers of
sort_segment_ops (same index checks and messages)."""
from collections import namedtuple

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import REAL, cpp_dtype_name, defop
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import array_ops as _a
from . import math_ops as _m
from . import sort_segment_ops as _s
from ._rules import to_tensor

UniqueWithCounts = namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _extremum_kernel(ufunc):
    def k(tensor, indices, updates):
        msg = _s._scatter_shapes(list(tensor.shape), list(indices.shape), list(updates.shape))
        if msg:
            raise InvalidArgumentError(msg)
        out = np.array(tensor, copy=True)
        key = _s._nd_positions(indices, tensor.shape, "")
        ufunc.at(out, key, updates.reshape((-1,) + tensor.shape[indices.shape[-1]:]))
        return out
    return k


def _extremum_grad(op, dy):
    """The gradient goes to every input equal to the result, split evenly among ties (TensorFlow's rule)."""
    x, i, u = op.inputs
    y = op.outputs[0]
    x_hit = _m.cast(_m.equal(x, y), dy.dtype)
    u_hit = _m.cast(_m.equal(u, _a.gather_nd(y, i)), dy.dtype)
    count = _s.tensor_scatter_nd_add(x_hit, i, u_hit)
    share = _m.truediv(dy, count)
    return _m.multiply(share, x_hit), None, _m.multiply(_a.gather_nd(share, i), u_hit)


TENSOR_SCATTER_MAX = defop("TensorScatterMax", _extremum_kernel(np.maximum), _s._tensor_scatter_infer,
                           grad=_extremum_grad, allowed=REAL)
TENSOR_SCATTER_MIN = defop("TensorScatterMin", _extremum_kernel(np.minimum), _s._tensor_scatter_infer,
                           grad=_extremum_grad, allowed=REAL)
tensor_scatter_nd_max = _s._tensor_scatter_fn(TENSOR_SCATTER_MAX, "tensor_scatter_nd_max")
tensor_scatter_nd_min = _s._tensor_scatter_fn(TENSOR_SCATTER_MIN, "tensor_scatter_nd_min")


def _unique_counts_kernel(x, out_idx):
    y, idx = _s._unique_kernel(x, out_idx)
    return y, idx, np.bincount(idx, minlength=len(y)).astype(out_idx._np)


def _unique_counts_infer(x, out_idx):
    (y, ydt), idx = _s._unique_infer(x, out_idx)
    return [(y, ydt), idx, (TensorShape([None]), out_idx)]


UNIQUE_WITH_COUNTS = defop("UniqueWithCounts", _unique_counts_kernel, _unique_counts_infer, num_outputs=3)


def unique_with_counts(x, out_idx=_dt.int32, name=None):
    """(y, idx, count): unique's values in order of first occurrence, each entry's index in y, and how often
    each value occurs."""
    t = to_tensor(x)
    out_idx = _dt.as_dtype(out_idx)
    if out_idx not in _s._INDEX:
        msg = (f"Value for attr 'out_idx' of {cpp_dtype_name(out_idx)} is not in the list of allowed values: int32, int64"
               f"\n\t; NodeDef: {{{{node UniqueWithCounts}}}}; Op<name=UniqueWithCounts>")
        raise InvalidArgumentError(f"{msg} [Op:UniqueWithCounts]") if context.executing_eagerly() else TypeError(msg)
    _a._check(UNIQUE_WITH_COUNTS, (t,), out_idx=out_idx)
    return UniqueWithCounts(*bind(UNIQUE_WITH_COUNTS, (t,), {"out_idx": out_idx}, name=name or "UniqueWithCounts"))
