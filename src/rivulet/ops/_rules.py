"""Shared shape/dtype rules and argument helpers for op definitions."""
import numpy as np

from .. import dtypes as _dt
from ..core.context import current_graph
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor, static_value, to_numpy_value  # noqa: F401
from ..shape import TensorShape

UNKNOWN = TensorShape(None)


def _fmt(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]" if shape.rank is not None else "<unknown>"


def broadcast_shape(a, b):
    """Static NumPy/TensorFlow broadcasting; ValueError naming both shapes when they cannot broadcast."""
    if a._dims is None or b._dims is None:
        return UNKNOWN
    x, y = a._dims, b._dims
    if x == y:
        return a
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + x
    y = (1,) * (n - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p == q:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None:
            out.append(p)
        else:
            raise ValueError(f"Incompatible shapes: {_fmt(a)} vs. {_fmt(b)}")
    return TensorShape._known(tuple(out))


def same_shape(x, *_, **__):
    """Output like the first input (extra inputs, e.g. the forward input of a gradient op, don't matter)."""
    return x.shape, x.dtype


def binary(x, y, **_):
    return broadcast_shape(x.shape, y.shape), x.dtype


def binary_bool(x, y, **_):
    return broadcast_shape(x.shape, y.shape), _dt.bool


def norm_axis(axis, rank, what="axis"):
    """Normalises an int axis against a known rank; InvalidArgument-style ValueError when out of range."""
    a = int(axis)
    if rank is not None and not -rank <= a < max(rank, 1 if what == "expand" else rank):
        raise ValueError(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
    return a % rank if rank else a


def to_tensor(x, dtype=None, name=None):
    return x if isinstance(x, Tensor) and dtype is None else convert_to_tensor(x, dtype=dtype, name=name)


_SCALARS = frozenset([float, int, bool])


def binary_args(x, y):
    """TensorFlow's binary-op conversion: a Python scalar or array takes the other operand's dtype."""
    # The common cases first: a tensor with a Python number (x * 2.0), converted as _convert_like would.
    cy = y.__class__
    if cy in _SCALARS:
        if isinstance(x, Tensor):
            return x, _scalar_like(y, x.dtype)
    elif x.__class__ in _SCALARS and isinstance(y, Tensor):
        return _scalar_like(x, y.dtype), y
    # Objects that convert themselves (variables) count as tensors: their dtype wins over a Python scalar.
    if not isinstance(x, Tensor) and hasattr(x, "_as_tensor"):
        x = x._as_tensor()
    if not isinstance(y, Tensor) and hasattr(y, "_as_tensor"):
        y = y._as_tensor()
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _convert_like(y, x.dtype)
        return x, y
    if isinstance(y, Tensor):
        return _convert_like(x, y.dtype), y
    x = convert_to_tensor(x)
    return x, _convert_like(y, x.dtype)


def _scalar_like(v, dtype):
    """convert_to_tensor(v, dtype) of a Python number, else convert_to_tensor(v) (the op's dtype check then
    names the mismatch): _convert_like without its three probes for `_as_tensor`."""
    try:
        return scalar_as(v, dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(v)


def scalar_as(v, dtype):
    """A Python scalar as a tensor of `dtype` (in a trace one Const per value), raising TypeError or ValueError
    where it cannot be one, as TensorFlow's operators do ('Cannot convert 2.5 to EagerTensor of dtype int32')."""
    val = to_numpy_value(v, dtype)
    g = current_graph()
    return EagerTensor(val) if g is None else g.scalar_constant(val)


def _convert_like(v, dtype):
    conv = getattr(v, "_as_tensor", None)
    if conv is not None:
        return conv()
    try:
        return convert_to_tensor(v, dtype=dtype)
    except (TypeError, ValueError):
        return convert_to_tensor(v)  # the dtype check of the op then names the mismatch
