"""Tensor indexing (`x[1:, ..., tf.newaxis, i]`) as ONE StridedSlice op.

The index is normalised at build time into a static, hashable `spec`, one entry per index element:
    ("i", k)                       an integer index (drops the dimension)
    ("s", start, stop, step)       a slice; a bound may be None
    ("n",)                         tf.newaxis
    ("e",)                         Ellipsis
An int or bound equal to DYN is a scalar tensor known only at run time; those tensors follow the sliced
tensor as extra inputs, in spec order. NumPy's basic indexing has TensorFlow's semantics for all of these.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import Tensor
from ..shape import TensorShape
from ._rules import UNKNOWN, static_value, to_tensor

DYN = "?"
_NEWAXIS, _ELLIPSIS = ("n",), ("e",)
_KEYS = {}  # spec -> NumPy key, for specs without run-time values


def np_key(spec, vals):
    """The NumPy index for `spec`, with run-time values `vals` (NumPy scalars) in place of DYN."""
    if not vals:
        key = _KEYS.get(spec)
        if key is None:
            key = _KEYS[spec] = _build_key(spec, iter(()))
        return key
    return _build_key(spec, iter(vals))


def _build_key(spec, it):
    out = []
    for e in spec:
        tag = e[0]
        if tag == "i":
            out.append(int(next(it)) if e[1] == DYN else e[1])
        elif tag == "s":
            out.append(slice(*(int(next(it)) if v == DYN else v for v in e[1:])))
        else:
            out.append(None if tag == "n" else Ellipsis)
    return tuple(out)


# ---------------------------------------------------------------- shape rule (also the error messages)
def _resolve(spec, vals):
    """spec with the run-time values known (None: unknown, stays DYN) filled in."""
    it = iter([DYN if v is None else int(v) for v in vals])
    return [(e[0],) + tuple(next(it) if v == DYN else v for v in e[1:]) for e in spec]


def _dim_after_slice(n, start, stop, step):
    step = 1 if step is None else step
    if n is None or DYN in (start, stop, step):
        return None
    return len(range(*slice(start, stop, step).indices(n)))


def _strided_slice_infer(x, *dyn, spec):
    from .array_ops import partial_value  # sees through Shape/Rank/...: a[:tf.rank(a)] has a static length
    return _sliced_shape(x.shape, _resolve(spec, [partial_value(d) for d in dyn])), x.dtype


def _sliced_shape(s, entries):
    """The result shape of indexing shape `s`; ValueError with TensorFlow's words when the index cannot work."""
    if sum(e[0] == "e" for e in entries) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    for j, e in enumerate(entries):
        if e[0] == "s" and e[3] == 0:
            raise ValueError(f"strides[{j}] must be non-zero")
    if s.rank is None:
        return UNKNOWN
    real = sum(e[0] in "is" for e in entries)
    if s.rank == 0 and real:
        raise ValueError("Attempting to slice scalar input.")
    if real > s.rank:
        raise ValueError(f"Index out of range using input dim {s.rank}; input has only {s.rank} dims")
    if _ELLIPSIS not in entries:
        entries.append(_ELLIPSIS)
    dims, d = [], 0
    for e in entries:
        tag = e[0]
        if tag == "n":
            dims.append(1)
        elif tag == "e":
            k = s.rank - real
            dims.extend(s[d:d + k])
            d += k
        elif tag == "i":
            n, k = s[d], e[1]
            if n is not None and k != DYN and not -n <= k < n:
                raise ValueError(f"slice index {k + n if k < 0 else k} of dimension {d} out of bounds.")
            d += 1
        else:
            dims.append(_dim_after_slice(s[d], *e[1:]))
            d += 1
    return TensorShape(dims)


# ---------------------------------------------------------------- the ops
def _strided_slice_kernel(x, *dyn, spec):
    try:
        r = x[np_key(spec, dyn)]
    except (IndexError, ValueError):
        _sliced_shape(TensorShape(x.shape), _resolve(spec, dyn))  # raises with TensorFlow's words
        raise
    # An all-integer index of a string tensor yields a bare bytes object: keep values arrays.
    return r if r.__class__ is not bytes else np.array(r, dtype=object)


def _strided_slice_grad_kernel(dy, x, *dyn, spec):
    out = np.zeros(np.shape(x), dtype=dy.dtype)
    out[np_key(spec, dyn)] = dy
    return out


def _strided_slice_grad(op, dy):
    x, *dyn = op.inputs
    return (bind(STRIDED_SLICE_GRAD, (dy, x, *dyn), op.attrs),) + (None,) * len(dyn)


def _strided_slice_grad_grad(op, ddy):
    _, x, *dyn = op.inputs
    return (bind(STRIDED_SLICE, (ddy, *dyn), op.attrs), None) + (None,) * len(dyn)


STRIDED_SLICE = defop("StridedSlice", _strided_slice_kernel, _strided_slice_infer, grad=_strided_slice_grad,
                      is_view=True)
# Scatters the gradient of a slice into zeros shaped like the sliced tensor (x is used for its shape).
STRIDED_SLICE_GRAD = defop("StridedSliceGrad", _strided_slice_grad_kernel,
                           lambda dy, x, *dyn, spec: (x.shape, dy.dtype), grad=_strided_slice_grad_grad)


# ---------------------------------------------------------------- building a spec from a Python key
def _bad_index(k):
    return TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     f"tf.int32/tf.int64 tensors are valid indices, got {k!r}")


def _scalar(v, dyn, key_elem):
    """An index or slice bound -> int/None for the spec, or DYN (appending the tensor to `dyn`)."""
    if v is None:
        return None
    if isinstance(v, Tensor):
        if v.dtype not in (_dt.int32, _dt.int64) or v.shape.rank != 0:
            raise _bad_index(key_elem)
        sv = static_value(v)
        if sv is not None:
            return int(sv)
        dyn.append(v)
        return DYN
    if isinstance(v, (bool, np.bool_)) or not hasattr(v, "__index__"):
        raise _bad_index(key_elem)
    return int(v.__index__())


def parse_key(key):
    """A Python index -> (spec, run-time index tensors)."""
    items = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    spec, dyn = [], []
    for k in items:
        if k is None:
            spec.append(_NEWAXIS)
        elif k is Ellipsis:
            spec.append(_ELLIPSIS)
        elif isinstance(k, slice):
            spec.append(("s",) + tuple(_scalar(v, dyn, k) for v in (k.start, k.stop, k.step)))
        else:
            spec.append(("i", _scalar(k, dyn, k)))
    return tuple(spec), dyn


def _is_mask(key):
    return (isinstance(key, (bool, np.bool_)) or (isinstance(key, Tensor) and key.dtype is _dt.bool)
            or (isinstance(key, np.ndarray) and key.dtype == np.bool_))


def getitem(tensor, key):
    """`tensor[key]`; a boolean tensor key is tf.boolean_mask, as in TensorFlow."""
    x = to_tensor(tensor)
    if _is_mask(key):
        from .array_ops import boolean_mask
        return boolean_mask(x, key)
    spec, dyn = parse_key(key)
    return bind(STRIDED_SLICE, (x, *dyn), {"spec": spec}, name="strided_slice")


def strided_slice_spec(x, spec, name="strided_slice"):
    """Applies a static spec (used by other ops' gradients, e.g. Pad)."""
    return bind(STRIDED_SLICE, (x,), {"spec": spec}, name=name)


# ---------------------------------------------------------------- tf.strided_slice
def _bits(mask, name):
    if isinstance(mask, Tensor):
        mask = static_value(mask)
        if mask is None:
            raise ValueError(f"tf.strided_slice: `{name}` must be known when the op is built.")
    if isinstance(mask, (bool, np.bool_)) or not hasattr(mask, "__index__"):
        raise TypeError(f"tf.strided_slice: `{name}` must be an integer bit mask, got {mask!r}")
    return int(mask.__index__())


def _bound_list(v, what, n=None):
    """begin/end/strides -> a list of Python ints or scalar tensors (dynamic elements), and its length."""
    if isinstance(v, Tensor):
        sv = static_value(v)
        if sv is None:
            if v.dtype not in (_dt.int32, _dt.int64) or v.shape.rank != 1 or v.shape[0] is None:
                raise ValueError(f"tf.strided_slice: `{what}` must be an int32/int64 vector of static length, "
                                 f"got {v.shape} {v.dtype.name}")
            return [v[i] for i in range(v.shape[0])]
        v = sv
    a = np.asarray(v)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise ValueError(f"tf.strided_slice: `{what}` must be a vector of integers, got {v!r}")
    if n is not None and a.size != n:
        raise ValueError(f"Expected {what} and begin to have the same length, got {a.size} and {n}")
    return [int(x) for x in a]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """tf.strided_slice: the general slice `input_[begin:end:strides]` with TensorFlow's bit masks.

    Bit i of a mask refers to entry i of begin/end/strides: begin_mask/end_mask ignore that bound (the
    whole range), ellipsis_mask makes the entry `...`, new_axis_mask makes it tf.newaxis and
    shrink_axis_mask an integer index `begin[i]`. Built as the one StridedSlice op indexing uses, so it has
    its gradient and shape rule."""
    x = to_tensor(input_)
    b = _bound_list(begin, "begin")
    e = _bound_list(end, "end", len(b))
    s = [1] * len(b) if strides is None else _bound_list(strides, "strides", len(b))
    bm, em, elm, nm, sm = (_bits(m, n) for m, n in ((begin_mask, "begin_mask"), (end_mask, "end_mask"),
                                                   (ellipsis_mask, "ellipsis_mask"),
                                                   (new_axis_mask, "new_axis_mask"),
                                                   (shrink_axis_mask, "shrink_axis_mask")))
    key = []
    for i in range(len(b)):
        bit = 1 << i
        if elm & bit:
            key.append(Ellipsis)
        elif nm & bit:
            key.append(None)
        elif sm & bit:
            key.append(b[i])
        else:
            key.append(slice(None if bm & bit else b[i], None if em & bit else e[i], s[i]))
    spec, dyn = parse_key(tuple(key))
    return bind(STRIDED_SLICE, (x, *dyn), {"spec": spec}, name=name or "StridedSlice")
