"""Shape and layout ops (tf.reshape, tf.concat, tf.gather, tf.zeros, tf.pad ...).

Operands TensorFlow passes as int tensors (shapes, multiples, begin/size) are attrs when known at build time.
Only a value computed in the graph becomes an extra trailing input; the attr then holds what is known of it
(None entries, or None for an unknown length), so shape inference stays partial but sound.
"""
from builtins import range as _pyrange, slice as _pyslice

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import FLOATS, NUMERIC, cpp_dtype_name, defop
from ..core import tensor as _tensor
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import math_ops as _m
from . import slicing
from ._rules import (UNKNOWN, _convert_like, _fmt, binary_args, broadcast_shape, same_shape, static_value,
                     to_tensor)

_INDEX = (_dt.int32, _dt.int64)


def _indices(v):
    """Index-like arguments: an empty Python list is an int32 tensor, not a float one."""
    if isinstance(v, Tensor):
        return v
    if np.size(v) == 0:  # core conversion refuses [] as int32 (TensorFlow allows it)
        v = np.zeros(np.shape(v), np.int32)
    return convert_to_tensor(v, dtype_hint=_dt.int32)


def _build_time(v, what):
    """A Python value, or the value of a tensor known when the graph is built."""
    if isinstance(v, Tensor):
        sv = static_value(v)
        if sv is None:
            raise NotImplementedError(f"`{what}` must be known when the graph is built")
        return sv
    return v


def _static_int(v, what, op_name=None):
    """An int attr given as a Python int or a tensor known at build time."""
    if type(v) is int:
        return v
    v = _build_time(v, what)
    a = _int_array(v, what, "an integer")
    if a.size != 1:
        msg = f"`{what}` must be a scalar, got a value of shape {list(a.shape)}"
        raise _m.static_error(msg, op_name) if op_name else ValueError(msg)
    return int(a.reshape(()))


def _ints(v, what):
    """A static int list (axis lists, paddings) given as Python values or a tensor known at build time."""
    return _int_array(_build_time(v, what), what).astype(np.int64).tolist()


def _int_array(v, what, kind="an integer or a list of integers"):
    """`v` as a NumPy integer array; TensorFlow's errors for None (ValueError) and non-integers (TypeError)
    name the argument instead of leaking int()'s message."""
    if v is None:
        raise ValueError(f"`{what}` must be {kind}, got None")
    try:
        a = np.asarray(v)
    except ValueError:  # ragged nesting
        raise ValueError(f"`{what}` must be {kind}, got the ragged list {v!r}") from None
    if a.dtype.kind not in "iub" and not (a.size == 0 and a.dtype.kind == "f"):
        raise TypeError(f"`{what}` must be {kind}, got {v!r}")
    return a


def _check_index_dtype(t, op_name, attr="Tindices", allowed=_INDEX):
    if t.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        msg = (f"Value for attr '{attr}' of {cpp_dtype_name(t.dtype)} is not in the list of allowed values: {names}\n"
               f"\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}>")
        if context.executing_eagerly():
            raise InvalidArgumentError(f"{msg} [Op:{op_name}]")
        raise TypeError(msg)


def _check(op, inputs, **attrs):
    """Runs the shape rule now, for errors NumPy would not raise or that must precede normalising attrs:
    ValueError while building a graph, InvalidArgumentError eagerly, as TensorFlow splits them."""
    try:
        op.infer(*inputs, **attrs)
    except ValueError as e:
        if context.executing_eagerly():
            raise InvalidArgumentError(f"{e} [Op:{op.name}]") from None
        raise


# ---------------------------------------------------------------- build-time knowledge of int tensors
def partial_value(t):
    """What is known at build time about an int tensor: an int or None (scalar), a list of int-or-None (vector),
    or None. Sees through Shape, Size, Rank, Pack, ConcatV2, StridedSlice, Cast and Identity the way
    TensorFlow's shape inference does, so `tf.zeros([tf.shape(x)[0], 4])` has shape (None, 4)."""
    v = static_value(t)
    if v is not None:
        v = np.asarray(v)
        return v.tolist() if v.dtype.kind in "iu" else None
    op = getattr(t, "_op", None)
    if op is None:
        return None
    kind, ins = op.type, op.inputs
    if kind == "Shape":
        s = ins[0].shape
        return None if s.rank is None else list(s)
    if kind == "Size":
        return ins[0].shape.num_elements()
    if kind == "Rank":
        return ins[0].shape.rank
    if kind == "Pack" and op.attrs["axis"] == 0 and all(x.shape.rank == 0 for x in ins):
        return [_scalar_or_none(partial_value(x)) for x in ins]
    if kind == "ConcatV2" and op.attrs["axis"] in (0, -1):
        out = []
        for x in ins:
            p = partial_value(x)
            if not isinstance(p, list):
                n = x.shape[0] if x.shape.rank == 1 else None
                if n is None:
                    return None
                p = [None] * n
            out += p
        return out
    if kind in ("Identity", "Cast") and t.dtype.is_integer and ins[0].dtype.is_integer:
        return partial_value(ins[0])
    if kind == "StridedSlice" and len(ins) == 1:
        base = partial_value(ins[0])
        if isinstance(base, list):
            try:
                r = np.array(base, dtype=object)[slicing.np_key(op.attrs["spec"], ())]
            except (IndexError, ValueError):
                return None
            return r.tolist() if isinstance(r, np.ndarray) else r
    return None


def _scalar_or_none(p):
    return p if isinstance(p, int) else None


_I64 = 2 ** 63


def shape_arg(shape, what="shape"):
    """A shape-like operand -> (attr, extra_inputs); see the module docstring."""
    if shape.__class__ is list or shape.__class__ is tuple:  # the usual Python ints: no NumPy round trip
        for d in shape:
            if d.__class__ is not int or not -_I64 <= d < _I64:
                break
        else:
            return tuple(shape), ()
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
        return tuple(shape.as_list()), ()
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        known = [_scalar_or_none(partial_value(d)) if isinstance(d, Tensor) else int(d) for d in shape]
        if None in known:
            return tuple(known), (stack(shape, name=what),)
        return tuple(known), ()
    if not isinstance(shape, Tensor):
        a = np.asarray(shape)
        if a.size and a.dtype.kind not in "iu":
            raise TypeError(f"`{what}` must be integers, got {shape!r}")
        if a.ndim > 1:
            raise InvalidArgumentError(f"`{what}` must be a vector (rank 1), got shape {list(a.shape)}: {shape!r}")
        return tuple(int(d) for d in a.reshape(-1)), ()
    if shape.dtype not in _INDEX:
        raise TypeError(f"`{what}` must be an int32 or int64 tensor, got {shape.dtype.name}")
    pv = partial_value(shape)
    if isinstance(pv, int):
        return (pv,), ()
    if isinstance(pv, list) and None not in pv:
        return tuple(pv), ()
    if shape.shape.rank == 0:
        shape = reshape(shape, [1])
    if pv is None and shape.shape.rank == 1 and shape.shape[0] is not None:
        pv = [None] * shape.shape[0]
    return (None if pv is None else tuple(pv)), (shape,)


def _dims(dyn, static):
    """Kernel side of shape_arg: the runtime shape."""
    return tuple(dyn[-1].tolist()) if dyn else static


def _shape_of(attr):
    return UNKNOWN if attr is None else TensorShape(attr)


# ---------------------------------------------------------------- identity
IDENTITY = defop("Identity", lambda x: x, same_shape, grad=lambda op, dy: (dy,))


def identity(input, name=None):  # noqa: A002
    return bind(IDENTITY, (to_tensor(input),), name=name or "Identity")


# ---------------------------------------------------------------- reshape
def _infer_missing(in_dims, shape):
    """The size of the -1 dimension of `shape` for an input of the known dims `in_dims`, by TensorFlow's
    rule: where the requested shape has a 0, the input's zero dims are left out of its count and the
    requested zeros out of the product (so [0, 3] reshaped to [-1, 0] is [3, 0]); None when it does not
    divide. Returns (missing, product of the known requested sizes)."""
    has_zero = 0 in shape
    product = int(np.prod([d for d in shape if d not in (-1, 0)], dtype=np.int64))
    count, input_has_zero = 1, False
    for d in in_dims:
        if d > 0 or not has_zero:
            count *= d
        else:
            input_has_zero = True
    missing = count // product if product else 0
    if not input_has_zero and product * missing != count:
        return None, product
    return missing, product


def _reshape_kernel(x, *dyn, shape):
    shape = _dims(dyn, shape)
    size = np.size(x)
    if shape.count(-1) > 1:
        raise InvalidArgumentError(f"Only one input size may be -1, not both {shape.index(-1)} and "
                                   f"{len(shape) - 1 - shape[::-1].index(-1)}")
    if -1 in shape:
        missing, n = _infer_missing(np.shape(x), shape)
        if missing is not None:
            shape = [missing if d == -1 else d for d in shape]
            if int(np.prod(shape)) == size:
                return np.reshape(x, shape)
            raise InvalidArgumentError(f"Input to reshape is a tensor with {size} values, but the requested shape "
                                       f"has {int(np.prod(shape))}")
        raise InvalidArgumentError(f"Input to reshape is a tensor with {size} values, but the requested shape "
                                   f"requires a multiple of {n}")
    n = int(np.prod(shape)) if shape else 1
    if n != size:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {size} values, but the requested shape "
                                   f"has {n}")
    return np.reshape(x, shape)


def _reshape_infer(x, *dyn, shape):
    if shape is None:
        if not dyn:  # only a graph read from a file says neither
            raise ValueError("Reshape needs its shape, as an attr or as an input")
        return UNKNOWN, x.dtype
    if shape.count(-1) > 1:
        raise ValueError(f"Only one input size may be -1, not both {shape.index(-1)} and "
                         f"{len(shape) - 1 - shape[::-1].index(-1)}")
    n = x.shape.num_elements()
    known = int(np.prod([d for d in shape if d is not None and d != -1]))
    open_dims = [i for i, d in enumerate(shape) if d is None or d == -1]
    out = list(shape)
    if n is not None and len(open_dims) == 1 and None not in shape:
        missing, m = _infer_missing(x.shape.as_list(), shape)
        if missing is None:
            raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape requires "
                             f"a multiple of {m}")
        if n != missing * known:
            raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape has "
                             f"{missing * known}")
        out[open_dims[0]] = missing
    elif n is not None and len(open_dims) == 1:
        if known == 0 or n % known:
            raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape requires "
                             f"a multiple of {known}")
        out[open_dims[0]] = n // known
    elif n is not None and not open_dims and n != known:
        raise ValueError(f"Input to reshape is a tensor with {n} values, but the requested shape has {known}")
    return TensorShape([None if d == -1 else d for d in out]), x.dtype


RESHAPE = defop("Reshape", _reshape_kernel, _reshape_infer, is_view=True,
                grad=lambda op, dy: (bind(RESHAPE_LIKE, (dy, op.inputs[0])),) + (None,) * (len(op.inputs) - 1))
RESHAPE_LIKE = defop("ReshapeLike", lambda x, ref: np.reshape(x, np.shape(ref)),
                     lambda x, ref: (ref.shape, x.dtype), is_view=True,
                     grad=lambda op, dy: (bind(RESHAPE_LIKE, (dy, op.inputs[0])), None))


def reshape(tensor, shape, name=None):
    x = to_tensor(tensor)
    attr, dyn = shape_arg(shape)
    return bind(RESHAPE, (x, *dyn), {"shape": attr}, name=name or "Reshape")


# ---------------------------------------------------------------- zeros/ones like
def _zeros_like_kernel(x):
    if x.dtype == object:  # strings: TensorFlow's zero is the empty string (NumPy's would be the int 0)
        return np.full(np.shape(x), b"", object)
    return np.zeros_like(x)


ZEROS_LIKE = defop("ZerosLike", _zeros_like_kernel, same_shape, grad=lambda op, dy: (None,))
ONES_LIKE = defop("OnesLike", lambda x: np.ones_like(x), same_shape, grad=lambda op, dy: (None,),
                  allowed=NUMERIC | {_dt.bool})


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input)
    out = bind(ZEROS_LIKE, (x,), name=name or "zeros_like")
    if dtype is not None and _dt.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


def ones_like(input, dtype=None, name=None):  # noqa: A002
    x = to_tensor(input)
    out = bind(ONES_LIKE, (x,), name=name or "ones_like")
    if dtype is not None and _dt.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast
        out = cast(out, dtype)
    return out


# ---------------------------------------------------------------- where (select)
def _select_infer(c, x, y):
    if c.dtype is not _dt.bool:
        raise TypeError(f"The condition of tf.where must be bool, got {c.dtype.name}")
    if x.dtype is not y.dtype:
        raise TypeError(f"x and y of tf.where must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    return broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape), x.dtype


def _select_grad(op, dy):
    from .math_ops import sum_to, zeros_like_
    c, x, y = op.inputs
    z = zeros_like_(dy)
    return None, sum_to(where(c, dy, z), x), sum_to(where(c, z, dy), y)


SELECT = defop("SelectV2", np.where, _select_infer, grad=_select_grad)
WHERE_INDICES = defop("Where", lambda c: np.argwhere(c).astype(np.int64),
                      lambda c: (TensorShape([None, c.shape.rank]), _dt.int64))


def where(condition, x=None, y=None, name=None):
    c = to_tensor(condition)
    if x is None and y is None:
        if c.dtype is not _dt.bool:
            from .math_ops import cast
            c = cast(c, _dt.bool)
        return bind(WHERE_INDICES, (c,), name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = binary_args(x, y)
    if x.dtype is not y.dtype:  # no promotion: NumPy's where would promote
        if context.executing_eagerly():
            raise InvalidArgumentError(f"cannot compute SelectV2 as input #2(zero-based) was expected to be a "
                                       f"{cpp_dtype_name(x.dtype)} tensor but is a {cpp_dtype_name(y.dtype)} tensor [Op:SelectV2]")
        raise TypeError(f"Input 'e' of 'SelectV2' Op has type {y.dtype.name} that does not match type "
                        f"{x.dtype.name} of argument 't'.")
    return bind(SELECT, (c, x, y), name=name or "SelectV2")


# ---------------------------------------------------------------- unstack (used to iterate symbolic tensors)
def _unstack_kernel(x, num, axis):
    return tuple(np.take(x, i, axis=axis) for i in _pyrange(num))


def _unstack_infer(x, num, axis):
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype)] * num
    dims = list(s)
    del dims[axis]
    return [(TensorShape(dims), x.dtype)] * num


def _unstack_grad(op, *dys):
    return (stack(list(dys), axis=op.attrs["axis"]),)


# num_outputs=-1: the count varies with the `num` attr, and bind returns a list.
UNPACK = defop("Unpack", _unstack_kernel, _unstack_infer, grad=_unstack_grad, num_outputs=-1)


def _stack_infer(*xs, axis):
    s = xs[0].shape
    for x in xs[1:]:
        if x.dtype is not xs[0].dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types [{xs[0].dtype.name}, "
                            f"{x.dtype.name}] that don't all match.")
        if not s.is_compatible_with(x.shape):
            raise ValueError(f"Shapes of all inputs must match: values[0].shape = {_fmt(xs[0].shape)} != "
                             f"values[1].shape = {_fmt(x.shape)}")
        s = s.merge_with(x.shape)
    if s.rank is None:
        return UNKNOWN, xs[0].dtype
    dims = list(s)
    ax = axis % (len(dims) + 1)
    dims.insert(ax, len(xs))
    return TensorShape(dims), xs[0].dtype


PACK = defop("Pack", lambda *xs, axis: np.stack(xs, axis=axis), _stack_infer, same=1 << 30,
             grad=lambda op, dy: tuple(unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])))


def stack(values, axis=0, name="stack"):
    if isinstance(values, (list, tuple)) and not values:  # TensorFlow: an empty float32 vector
        return convert_to_tensor(np.zeros((0,), np.float32), name=name)
    if axis == 0 and isinstance(values, (list, tuple)) and not any(isinstance(v, Tensor) for v in values) \
            and _tensor._holds_tensor(values):
        # TensorFlow converts the whole list first along axis 0: rows such as [0, 0] and [n, n - 1] of an int64
        # n are packed in n's dtype (a list of separately converted rows would mix int32 and int64)
        return convert_to_tensor(values, name=name)
    xs = _same_dtype_list(values)
    axis = _static_int(axis, "axis", "Pack")
    rank = xs[0].shape.rank
    if rank is not None and not -(rank + 1) <= axis < rank + 1:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-(rank + 1)}, {rank + 1})")
    return bind(PACK, tuple(xs), {"axis": axis if axis >= 0 or rank is None else axis + rank + 1}, name=name)


_tensor.register_stack(stack)  # core packs lists mixing tensors and numbers with it


def unstack(value, num=None, axis=0, name="unstack"):
    x = to_tensor(value)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("Cannot infer argument `num` from shape <unknown>")
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    axis %= rank
    if num is None:
        num = x.shape[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return list(bind(UNPACK, (x,), {"num": num, "axis": axis}, name=name))


# ---------------------------------------------------------------- transpose
def _inverse(perm):
    return None if perm is None else tuple(int(i) for i in np.argsort(perm))


def _transpose_infer(x, perm):
    s = x.shape
    if s.rank is None:
        return (UNKNOWN if perm is None else TensorShape([None] * len(perm))), x.dtype
    if perm is None:
        return TensorShape(list(s)[::-1]), x.dtype
    if len(perm) != s.rank:
        raise ValueError(f"transpose expects a vector of size {s.rank}. But input(1) is a vector of size "
                         f"{len(perm)}")
    for p in perm:
        if not 0 <= p < s.rank:
            raise ValueError(f"{p} is out of range [0 .. {s.rank})")
    for i in _pyrange(s.rank):
        if i not in perm:
            raise ValueError(f"{i} is missing from {{{','.join(map(str, perm))}}}.")
    return TensorShape([s[p] for p in perm]), x.dtype


TRANSPOSE = defop("Transpose", lambda x, perm: np.transpose(x, perm), _transpose_infer, is_view=True,
                  grad=lambda op, dy: (transpose(dy, _inverse(op.attrs["perm"])),))
CONJUGATE_TRANSPOSE = defop("ConjugateTranspose", lambda x, perm: np.conj(np.transpose(x, perm)), _transpose_infer,
                            grad=lambda op, dy: (transpose(dy, _inverse(op.attrs["perm"]), conjugate=True),))


def transpose(a, perm=None, conjugate=False, name="transpose"):
    x = to_tensor(a)
    perm = None if perm is None else tuple(_ints(perm, "perm"))
    op = CONJUGATE_TRANSPOSE if conjugate and x.dtype.is_complex else TRANSPOSE
    return bind(op, (x,), {"perm": perm}, name=name)


# ---------------------------------------------------------------- concat / split
def _concat_infer(*xs, axis):
    ranks = [x.shape.rank for x in xs]
    known = [i for i, r in enumerate(ranks) if r is not None]
    if not known:
        return UNKNOWN, xs[0].dtype
    first = xs[known[0]].shape
    rank = first.rank
    for i in known:
        if ranks[i] != rank:
            raise ValueError(f"ConcatOp : Ranks of all input tensors should match: shape[{known[0]}] = "
                             f"{_fmt(first)} vs. shape[{i}] = {_fmt(xs[i].shape)}")
    if rank == 0:
        raise ValueError("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= axis < rank:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got "
                         f"{axis}")
    axis %= rank
    dims = list(first)
    total = 0
    for i in known:
        s = xs[i].shape
        for d in _pyrange(rank):
            if d == axis:
                continue
            if dims[d] is not None and s[d] is not None and dims[d] != s[d]:
                raise ValueError(f"ConcatOp : Dimension {d} in both shapes must be equal: shape[{known[0]}] = "
                                 f"{_fmt(first)} vs. shape[{i}] = {_fmt(s)}")
            dims[d] = dims[d] if dims[d] is not None else s[d]
        total = None if total is None or s[axis] is None else total + s[axis]
    dims[axis] = total if len(known) == len(xs) else None
    return TensorShape(dims), xs[0].dtype


def _concat_grad(op, dy):
    return tuple(bind(SPLIT_LIKE, (dy, *op.inputs), {"axis": op.attrs["axis"], "num": len(op.inputs)}))


def _filled(dys, outs):
    return [dy if dy is not None else zeros_like(o) for dy, o in zip(dys, outs)]


# `same`: every input shares the first one's dtype.
CONCAT = defop("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis), _concat_infer, grad=_concat_grad,
               same=1 << 30)
# The gradient of concat: dy cut into pieces shaped like the inputs (the refs), along `axis`.
SPLIT_LIKE = defop(
    "SplitLike",
    lambda dy, *refs, axis, num: np.split(dy, np.cumsum([np.shape(r)[axis] for r in refs[:-1]], dtype=np.intp),
                                          axis),
    lambda dy, *refs, axis, num: [(r.shape, dy.dtype) for r in refs],
    grad=lambda op, *dys: (concat(_filled(dys, op.outputs), op.attrs["axis"]),) + (None,) * (len(op.inputs) - 1),
    num_outputs=lambda attrs: attrs["num"], is_view=True)


def _same_dtype_list(values):
    """Python values in a list take the dtype of the list's first tensor (TensorFlow's rule for lists)."""
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        return [to_tensor(v) for v in values]
    return [v if isinstance(v, Tensor) else _convert_like(v, first.dtype) for v in values]


def concat(values, axis, name="concat"):
    if not isinstance(values, (list, tuple)):  # TensorFlow concatenates a lone tensor with nothing
        values = [values]
    if not values:
        raise _m.static_error("tf.concat needs at least one tensor in `values`, got an empty list", "ConcatV2")
    xs = _same_dtype_list(values)
    axis = _static_int(axis, "axis", "ConcatV2")
    if len(xs) == 1:
        rank = xs[0].shape.rank
        if rank is not None and not -rank <= axis < max(rank, 1):
            raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got "
                             f"{axis}")
        return identity(xs[0], name=name)
    rank = next((x.shape.rank for x in xs if x.shape.rank is not None), None)
    if rank and -rank <= axis < 0:
        axis += rank
    return bind(CONCAT, tuple(xs), {"axis": axis}, name=name)


def _split_infer(x, num_split, axis):
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype)] * num_split
    n = s[axis]
    if n is not None and n % num_split:
        raise ValueError(f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                         f"{axis} (size = {n}) and num_split {num_split}")
    dims = list(s)
    dims[axis] = None if n is None else n // num_split
    return [(TensorShape(dims), x.dtype)] * num_split


def _splitv_infer(x, size_splits, axis):
    s = x.shape
    if s.rank is None:
        return [(UNKNOWN, x.dtype)] * len(size_splits)
    n = s[axis]
    sizes = list(size_splits)
    if sizes.count(-1) > 1:
        raise ValueError("There can only be one -1 in the input.")
    rest = sum(d for d in sizes if d != -1)
    if n is not None:
        if (-1 not in sizes and rest != n) or (-1 in sizes and rest > n):
            raise ValueError("Determined shape must either match input shape along split_dim exactly if fully "
                             "specified, or be less than the size of the input along split_dim if not fully "
                             f"specified.  Got: {rest}")
        sizes = [n - rest if d == -1 else d for d in sizes]
    out = []
    for d in sizes:
        dims = list(s)
        dims[axis] = None if d == -1 else d
        out.append((TensorShape(dims), x.dtype))
    return out


def _splitv_kernel(x, size_splits, axis):
    sizes = list(size_splits)
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[axis] or min(sizes, default=0) < 0:
        raise ValueError("split sizes do not match")  # the shape rule words it
    return np.split(x, np.cumsum(sizes[:-1], dtype=np.intp), axis)


def _split_grad(op, *dys):
    return (concat(_filled(dys, op.outputs), op.attrs["axis"]),)


SPLIT = defop("Split", lambda x, num_split, axis: np.split(x, num_split, axis), _split_infer, grad=_split_grad,
              num_outputs=lambda attrs: attrs["num_split"], is_view=True)
SPLITV = defop("SplitV", _splitv_kernel, _splitv_infer, grad=_split_grad,
               num_outputs=lambda attrs: len(attrs["size_splits"]), is_view=True)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    x = to_tensor(value)
    axis = _static_int(axis, "axis")
    rank = x.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"Split dim {axis} is out of range [{-rank}, {rank})" if rank else
                             "Can't split a scalar (rank 0) tensor")
        axis %= rank
    if isinstance(num_or_size_splits, (int, np.integer)) or (
            isinstance(num_or_size_splits, Tensor) and num_or_size_splits.shape.rank == 0):
        n = _static_int(num_or_size_splits, "num_or_size_splits")
        if n < 1:
            raise ValueError(f"Value for attr 'num_split' of {n} must be at least minimum 1")
        return bind(SPLIT, (x,), {"num_split": n, "axis": axis}, name=name)
    sizes = tuple(_ints(num_or_size_splits, "num_or_size_splits"))
    return bind(SPLITV, (x,), {"size_splits": sizes, "axis": axis}, name=name)


# ---------------------------------------------------------------- squeeze / expand_dims
def _squeeze_infer(x, axis):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, x.dtype
    if axis is None:
        if None in s:
            return UNKNOWN, x.dtype  # an unknown dim might be 1
        return TensorShape([d for d in s if d != 1]), x.dtype
    for a in axis:
        if not -s.rank <= a < s.rank:
            raise ValueError(f"Tried to squeeze dim index {a} for tensor with {s.rank} dimensions.")
        if s[a] is not None and s[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a % s.rank}], expected a dimension of 1, got {s[a]}")
    drop = {a % s.rank for a in axis}
    return TensorShape([d for i, d in enumerate(s) if i not in drop]), x.dtype


def _to_shape_of_input(op, dy):
    return (bind(RESHAPE_LIKE, (dy, op.inputs[0])),)


SQUEEZE = defop("Squeeze", lambda x, axis: np.squeeze(x, axis), _squeeze_infer, grad=_to_shape_of_input,
                is_view=True)


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = to_tensor(input)
    if axis is not None:
        axis = tuple(_ints([axis] if np.ndim(axis) == 0 and not isinstance(axis, (list, tuple)) else axis, "axis"))
        rank = x.shape.rank
        if rank is not None:
            _check(SQUEEZE, (x,), axis=axis)
            axis = tuple(sorted({a % rank for a in axis}))
    return bind(SQUEEZE, (x,), {"axis": axis}, name=name or "Squeeze")


def _expand_dims_infer(x, axis):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, x.dtype
    if not -s.rank - 1 <= axis <= s.rank:
        raise ValueError(f"Tried to expand dim index {axis} for tensor with {s.rank} dimensions.")
    dims = list(s)
    dims.insert(axis % (s.rank + 1), 1)
    return TensorShape(dims), x.dtype


EXPAND_DIMS = defop("ExpandDims", lambda x, axis: np.expand_dims(x, axis), _expand_dims_infer,
                    grad=_to_shape_of_input, is_view=True)


def expand_dims(input, axis, name=None):  # noqa: A002
    x = to_tensor(input)
    axis = _static_int(axis, "axis", "ExpandDims")
    rank = x.shape.rank
    if rank is not None:
        _check(EXPAND_DIMS, (x,), axis=axis)
        axis %= rank + 1
    return bind(EXPAND_DIMS, (x,), {"axis": axis}, name=name or "ExpandDims")


# ---------------------------------------------------------------- tile / broadcast_to
def _tile_kernel(x, *dyn, multiples):
    multiples = _dims(dyn, multiples)
    if len(multiples) != x.ndim or min(multiples, default=0) < 0:
        raise ValueError("bad multiples")  # the shape rule words it
    return np.tile(x, multiples)


def _tile_infer(x, *dyn, multiples):
    s = x.shape
    if multiples is None:
        return (UNKNOWN if s.rank is None else TensorShape([None] * s.rank)), x.dtype
    if s.rank is None:
        return TensorShape([None] * len(multiples)), x.dtype
    if len(multiples) != s.rank:
        raise ValueError(f"Expected multiples argument to be a vector of length {s.rank} but got length "
                         f"{len(multiples)}")
    for i, m in enumerate(multiples):
        if m is not None and m < 0:
            raise ValueError(f"Expected multiples[{i}] >= 0, but got {m}")
    return TensorShape([None if d is None or m is None else d * m for d, m in zip(s, multiples)]), x.dtype


def _tile_grad_kernel(dy, x, *dyn, multiples):
    multiples = _dims(dyn, multiples)
    split = [v for m, d in zip(multiples, np.shape(x)) for v in (m, d)]
    return np.sum(np.reshape(dy, split), axis=tuple(_pyrange(0, len(split), 2)), dtype=dy.dtype)


def _tile_grad(op, dy):
    x, *dyn = op.inputs
    return (bind(TILE_GRAD, (dy, x, *dyn), op.attrs),) + (None,) * len(dyn)


TILE = defop("Tile", _tile_kernel, _tile_infer, grad=_tile_grad)
# Sums the tiled copies of the gradient back onto the input's shape (x is used for its shape).
TILE_GRAD = defop("TileGrad", _tile_grad_kernel, lambda dy, x, *dyn, multiples: (x.shape, dy.dtype),
                  grad=lambda op, ddy: (bind(TILE, (ddy, *op.inputs[2:]), op.attrs),) + (None,) * (len(op.inputs) - 1))


def tile(input, multiples, name=None):  # noqa: A002
    x = to_tensor(input)
    attr, dyn = shape_arg(multiples, "multiples")
    return bind(TILE, (x, *dyn), {"multiples": attr}, name=name or "Tile")


def _broadcast_to_infer(x, *dyn, shape):
    s = x.shape
    if shape is None:
        return UNKNOWN, x.dtype
    if s.rank is not None and s.rank > len(shape):
        raise ValueError(f"Rank of input ({s.rank}) must be no greater than rank of output shape ({len(shape)}).")
    if s.rank is None:
        return TensorShape(shape), x.dtype
    lead = len(shape) - s.rank
    out = list(shape[:lead])
    for d, t in zip(s, shape[lead:]):
        if d is not None and t is not None and d != t and d != 1:
            raise ValueError(f"Incompatible shapes: {_fmt(s)} vs. {_fmt(TensorShape(shape))}")
        out.append(t if t is not None else (d if d not in (None, 1) else None))
    return TensorShape(out), x.dtype


# A read-only broadcast view (stride 0 along the new dims), as NumPy gives it.
BROADCAST_TO = defop("BroadcastTo", lambda x, *dyn, shape: np.broadcast_to(x, _dims(dyn, shape)), _broadcast_to_infer,
                     grad=lambda op, dy: (_m.sum_to(dy, op.inputs[0]),) + (None,) * (len(op.inputs) - 1),
                     is_view=True)


def broadcast_to(input, shape, name=None):  # noqa: A002
    x = to_tensor(input)
    attr, dyn = shape_arg(shape)
    return bind(BROADCAST_TO, (x, *dyn), {"shape": attr}, name=name or "BroadcastTo")


# ---------------------------------------------------------------- gather / gather_nd
def _first_bad(indices, n):
    bad = (indices < 0) | (indices >= n)
    if not bad.any():
        return None
    pos = np.unravel_index(int(np.argmax(bad)), indices.shape)
    return pos, indices[pos]


def _gather_kernel(params, indices, axis, batch_dims):
    n = params.shape[axis]
    hit = _first_bad(indices, n) if indices.size else None
    if hit is not None:
        pos, v = hit
        raise InvalidArgumentError(f"indices[{','.join(map(str, pos))}] = {v} is not in [0, {n})")
    if not batch_dims:
        return np.take(params, indices, axis=axis)
    bshape = params.shape[:batch_dims]
    if indices.shape[:batch_dims] != bshape:
        raise ValueError("batch dimensions differ")  # the shape rule words it
    out = np.empty(params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:], params.dtype)
    nb = int(np.prod(bshape))
    p = params.reshape((nb,) + params.shape[batch_dims:])
    i = indices.reshape((nb,) + indices.shape[batch_dims:])
    o = out.reshape((nb,) + out.shape[batch_dims:])
    for b in _pyrange(nb):
        o[b] = np.take(p[b], i[b], axis=axis - batch_dims)
    return out


def _gather_infer(params, indices, axis, batch_dims):
    ps, ist = params.shape, indices.shape
    if ps.rank is None or ist.rank is None:
        return UNKNOWN, params.dtype
    if not -ps.rank <= axis < ps.rank:
        raise ValueError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {ps.rank}")
    for i in _pyrange(batch_dims):
        if ps[i] is not None and ist[i] is not None and ps[i] != ist[i]:
            raise ValueError(f"params.shape[{i}]: {ps[i]} should be equal to indices.shape[{i}]: {ist[i]}")
    return TensorShape(list(ps[:axis]) + list(ist[batch_dims:]) + list(ps[axis + 1:])), params.dtype


def _gather_grad_kernel(dy, params, indices, axis, batch_dims):
    if not batch_dims and not axis and len(params.shape) == 2 and dy.dtype in _BINCOUNT_FLOATS:
        flat = np.reshape(indices, -1)
        n, d = params.shape
        if flat.size and d <= 128 and n <= 64 * flat.size and flat.min() >= 0:
            return _row_sums(np.reshape(dy, (flat.size, d)), flat, n)
    out = np.zeros(params.shape, dy.dtype)
    lead = (_pyslice(None),) * (axis - batch_dims)
    if not batch_dims:
        np.add.at(out, lead + (indices,), dy)
        return out
    nb = int(np.prod(params.shape[:batch_dims]))
    o = out.reshape((nb,) + out.shape[batch_dims:])
    i = indices.reshape((nb,) + indices.shape[batch_dims:])
    d = dy.reshape((nb,) + dy.shape[batch_dims:])
    for b in _pyrange(nb):
        np.add.at(o[b], lead + (i[b],), d[b])
    return out


_BINCOUNT_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _row_sums(dy, rows, n):
    """sum of dy's rows into n rows by index (an Embedding's gradient): one bincount per column, about 2.5x
    np.add.at on a 64x80-token batch of 32-wide rows (sums in float64, rounded once)."""
    out = np.empty((n, dy.shape[1]), dy.dtype)
    for j in _pyrange(dy.shape[1]):
        out[:, j] = np.bincount(rows, dy[:, j], minlength=n)
    return out


def _gather_grad(op, dy):
    params, indices = op.inputs
    return bind(GATHER_GRAD, (dy, params, indices), op.attrs), None


GATHER = defop("GatherV2", _gather_kernel, _gather_infer, grad=_gather_grad)
# Dense gradient of gather: dy summed into zeros shaped like params (params is used for its shape).
GATHER_GRAD = defop("GatherGrad", _gather_grad_kernel, lambda dy, p, i, axis, batch_dims: (p.shape, dy.dtype),
                    grad=lambda op, ddy: (bind(GATHER, (ddy, op.inputs[2]), op.attrs), None, None))


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    p = to_tensor(params)
    i = _indices(indices)
    _check_index_dtype(i, "GatherV2", allowed=(_dt.int16, _dt.int32, _dt.int64))
    batch_dims = _static_int(batch_dims, "batch_dims")
    axis = batch_dims if axis is None else _static_int(axis, "axis")
    pr, ir = p.shape.rank, i.shape.rank
    if ir is not None:
        if not -ir <= batch_dims <= ir:
            raise ValueError(f"Expected batch_dims in the range [{-ir}, {ir}], but got {batch_dims}")
        if batch_dims < 0:
            batch_dims += ir
    if pr is not None:
        if -pr <= axis < 0:
            axis += pr
        if batch_dims and batch_dims >= pr:
            raise ValueError(f"batch_dims ({batch_dims}) must be less than rank(params) ({pr}).")
    if batch_dims > axis >= 0:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
    if batch_dims < 0:
        raise NotImplementedError("a negative batch_dims needs indices of known rank")
    return bind(GATHER, (p, i), {"axis": axis, "batch_dims": batch_dims}, name=name or "GatherV2")


def _nd_key(indices):
    return tuple(np.moveaxis(indices, -1, 0))


def _gather_nd_kernel(params, indices, batch_dims):
    k = indices.shape[-1]
    inner = params.shape[batch_dims:batch_dims + k]
    if k > params.ndim - batch_dims:
        raise ValueError("index too long")  # the shape rule words it
    if indices.size:
        flat = indices.reshape(-1, k)
        bad = np.nonzero(((flat < 0) | (flat >= np.array(inner, dtype=np.int64))).any(axis=1))[0]
        if bad.size:
            j = int(bad[-1])  # TensorFlow reports the last bad index vector
            raise InvalidArgumentError(
                f"indices[{j}] = [{', '.join(map(str, flat[j]))}] does not index into param shape "
                f"[{','.join(map(str, params.shape))}], node name: GatherNd")
    if not batch_dims:
        if k == 0:
            return np.broadcast_to(params, indices.shape[:-1] + params.shape).copy()
        return params[_nd_key(indices)]
    nb = int(np.prod(params.shape[:batch_dims]))
    p = params.reshape((nb,) + params.shape[batch_dims:])
    i = indices.reshape((nb,) + indices.shape[batch_dims:])
    return np.stack([p[b][_nd_key(i[b])] for b in _pyrange(nb)]).reshape(
        indices.shape[:-1] + params.shape[batch_dims + k:])


def _gather_nd_infer(params, indices, batch_dims):
    ps, ist = params.shape, indices.shape
    if ps.rank is None or ist.rank is None or ist[-1] is None:
        return UNKNOWN, params.dtype
    k = ist[-1]
    if k > ps.rank - batch_dims:
        raise ValueError(f"index innermost dimension length must be <= params rank; saw: {k} vs. {ps.rank}")
    return TensorShape(list(ist[:-1]) + list(ps[batch_dims + k:])), params.dtype


def _gather_nd_grad_kernel(dy, params, indices, batch_dims):
    out = np.zeros(params.shape, dy.dtype)
    if not batch_dims:
        np.add.at(out, _nd_key(indices), dy)
        return out
    nb = int(np.prod(params.shape[:batch_dims]))
    o = out.reshape((nb,) + out.shape[batch_dims:])
    i = indices.reshape((nb,) + indices.shape[batch_dims:])
    d = dy.reshape((nb,) + dy.shape[batch_dims:])
    for b in _pyrange(nb):
        np.add.at(o[b], _nd_key(i[b]), d[b])
    return out


GATHER_ND = defop("GatherNd", _gather_nd_kernel, _gather_nd_infer,
                  grad=lambda op, dy: (bind(GATHER_ND_GRAD, (dy, *op.inputs), op.attrs), None))
GATHER_ND_GRAD = defop("GatherNdGrad", _gather_nd_grad_kernel, lambda dy, p, i, batch_dims: (p.shape, dy.dtype),
                       grad=lambda op, ddy: (bind(GATHER_ND, (ddy, op.inputs[2]), op.attrs), None, None))


def gather_nd(params, indices, batch_dims=0, name=None):
    p = to_tensor(params)
    i = _indices(indices)
    _check_index_dtype(i, "GatherNd", attr="Tindices", allowed=(_dt.int16, _dt.int32, _dt.int64))
    if i.shape.rank == 0:
        raise ValueError("indices must be at least a vector")
    return bind(GATHER_ND, (p, i), {"batch_dims": _static_int(batch_dims, "batch_dims")}, name=name or "GatherNd")


# ---------------------------------------------------------------- fill / zeros / ones / eye
def _fill_infer(value, *dyn, shape):
    if value.shape.rank not in (0, None):
        raise ValueError(f"value must represent a scalar, got shape {_fmt(value.shape)}")
    for d in shape or ():
        if d is not None and d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
    return _shape_of(shape), value.dtype


FILL = defop("Fill", lambda value, *dyn, shape: np.full(_dims(dyn, shape), value, dtype=value.dtype), _fill_infer,
             grad=lambda op, dy: (_m.reduce_sum(dy),) + (None,) * (len(op.inputs) - 1))


def fill(dims, value, name=None):
    v = to_tensor(value)
    if v.shape.rank not in (0, None):
        _check(FILL, (v,), shape=())  # raises: NumPy would broadcast a non-scalar value
    attr, dyn = shape_arg(dims, "dims")
    return bind(FILL, (v, *dyn), {"shape": attr}, name=name or "Fill")


def zeros(shape, dtype=_dt.float32, name=None):
    dtype = _dt.as_dtype(dtype)
    zero = b"" if dtype is _dt.string else np.zeros((), dtype._np)
    return fill(shape, to_tensor(zero, dtype=dtype), name=name or "zeros")


def ones(shape, dtype=_dt.float32, name=None):
    dtype = _dt.as_dtype(dtype)
    one = 1 if dtype is _dt.string else np.ones((), dtype._np)  # strings: TensorFlow's conversion error
    return fill(shape, to_tensor(one, dtype=dtype), name=name or "ones")


def _eye_kernel(*dyn, shape, dtype):
    shape = _dims(dyn, shape)
    e = np.eye(shape[-2], shape[-1], dtype=dtype._np)
    return np.broadcast_to(e, shape).copy() if len(shape) > 2 else e


def _eye_infer(*dyn, shape, dtype):
    for d in shape or ():
        if d is not None and d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
    return _shape_of(shape), dtype


EYE = defop("Eye", _eye_kernel, _eye_infer)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dt.float32, name=None):
    cols = num_rows if num_columns is None else num_columns
    if batch_shape is None or isinstance(batch_shape, (list, tuple)):
        dims = list(batch_shape or []) + [num_rows, cols]
    else:  # batch_shape is an int vector tensor
        dims = concat([batch_shape, stack([num_rows, cols])], 0)
    attr, dyn = shape_arg(dims)
    return bind(EYE, tuple(dyn), {"shape": attr, "dtype": _dt.as_dtype(dtype)}, name=name or "eye")


# ---------------------------------------------------------------- range
def _num(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _range_kernel(start, limit, delta):
    if delta == 0:
        raise InvalidArgumentError(f"Requires delta != 0: {_num(delta)}")
    if delta > 0 and start > limit:
        raise InvalidArgumentError(f"Requires start <= limit when delta > 0: {_num(start)}/{_num(limit)}")
    if delta < 0 and start < limit:
        raise InvalidArgumentError(f"Requires start >= limit when delta < 0: {_num(start)}/{_num(limit)}")
    return np.arange(start, limit, delta, dtype=start.dtype)


def _range_infer(start, limit, delta):
    for t, what in ((start, "start"), (limit, "limit"), (delta, "delta")):
        if t.shape.rank not in (0, None):
            raise ValueError(f"{what} must be a scalar, not shape {_fmt(t.shape)}")
    vals = [partial_value(t) if t.dtype.is_integer else static_value(t) for t in (start, limit, delta)]
    if any(v is None for v in vals) or vals[2] == 0:
        return TensorShape([None]), start.dtype
    return TensorShape([len(np.arange(*vals))]), start.dtype


_RANGE_TYPES = FLOATS | frozenset([_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint16, _dt.uint32])
RANGE = defop("Range", _range_kernel, _range_infer, same=3, allowed=_RANGE_TYPES)
_RANGE_ORDER = [_dt.int32, _dt.int64, _dt.float16, _dt.float32, _dt.float64]


def _arg_dtype(a):
    if isinstance(a, Tensor):
        return a.dtype
    if a.__class__ is int and -2 ** 31 <= a < 2 ** 31:
        return _dt.int32
    return _dt.float32 if a.__class__ is float else to_tensor(a).dtype


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        dts = [_arg_dtype(a) for a in args]
        dtype = max(dts, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1)
    dtype = _dt.as_dtype(dtype)
    ts = [_m.cast(a, dtype) if isinstance(a, Tensor) else to_tensor(a, dtype=dtype) for a in args]
    return bind(RANGE, tuple(ts), name=name)


# ---------------------------------------------------------------- shape / size / rank
def _out_type(out_type):
    dt = _dt.as_dtype(out_type)
    if dt not in _INDEX:
        raise TypeError(f"out_type must be int32 or int64, got {dt.name}")
    return dt


SHAPE = defop("Shape", lambda x, out_type: np.array(np.shape(x), dtype=out_type._np),
              lambda x, out_type: (TensorShape([x.shape.rank]), out_type))
SIZE = defop("Size", lambda x, out_type: out_type._np.type(np.size(x)), lambda x, out_type: (TensorShape(()), out_type))
RANK = defop("Rank", lambda x: np.int32(np.ndim(x)), lambda x: (TensorShape(()), _dt.int32))


def shape(input, out_type=_dt.int32, name=None):  # noqa: A002
    """tf.shape: a Shape op; `partial_value` sees its value at build time wherever the static shape knows it."""
    return bind(SHAPE, (to_tensor(input),), {"out_type": _out_type(out_type)}, name=name or "Shape")


def size(input, out_type=_dt.int32, name=None):  # noqa: A002
    return bind(SIZE, (to_tensor(input),), {"out_type": _out_type(out_type)}, name=name or "Size")


def rank(input, name=None):  # noqa: A002
    return bind(RANK, (to_tensor(input),), name=name or "Rank")


# ---------------------------------------------------------------- one_hot
def _one_hot_kernel(indices, on_value, off_value, depth, axis):
    out = np.where(np.expand_dims(indices, -1) == np.arange(depth), on_value, off_value)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


def _one_hot_infer(indices, on_value, off_value, depth, axis):
    s = indices.shape
    if s.rank is None:
        return UNKNOWN, on_value.dtype
    if not (axis == -1 or 0 <= axis <= s.rank):
        raise ValueError(f"Expected axis to be -1 or between [0, {s.rank + 1}).  But received: {axis}")
    if depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    dims = list(s)
    dims.insert(s.rank if axis == -1 else axis, depth)
    return TensorShape(dims), on_value.dtype


ONE_HOT = defop("OneHot", _one_hot_kernel, _one_hot_infer)
_ONE_HOT_INDEX = (_dt.uint8, _dt.int8, _dt.int32, _dt.int64)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    i = _indices(indices)
    _check_index_dtype(i, "OneHot", attr="TI", allowed=_ONE_HOT_INDEX)
    if dtype is None:
        given = next((v for v in (on_value, off_value) if v is not None), None)
        dtype = _dt.float32 if given is None else to_tensor(given).dtype
    dtype = _dt.as_dtype(dtype)
    vals = []
    for v, default, what in ((on_value, 1, "on_value"), (off_value, 0, "off_value")):
        if isinstance(v, Tensor) and v.dtype is not dtype:
            raise TypeError(f"dtype {v.dtype} of {what} does not match dtype parameter {dtype}")
        vals.append(to_tensor(default if v is None else v, dtype=dtype))
    attrs = {"depth": _static_int(depth, "depth"), "axis": -1 if axis is None else _static_int(axis, "axis")}
    _check(ONE_HOT, (i, *vals), **attrs)
    return bind(ONE_HOT, (i, *vals), attrs, name=name or "one_hot")


# ---------------------------------------------------------------- pad
def _pad_kernel(x, c, paddings):
    out = np.full(tuple(a + n + b for (a, b), n in zip(paddings, x.shape)), c, dtype=x.dtype)
    out[tuple(_pyslice(a, a + n) for (a, _), n in zip(paddings, x.shape))] = x
    return out


def _pad_infer(x, *c, paddings, mode="CONSTANT"):
    s = x.shape
    if s.rank is not None and len(paddings) != s.rank:
        raise ValueError(f"The first dimension of paddings must be the rank of inputs[{len(paddings)},2] "
                         f"{_fmt(s)}")
    for a, b in paddings:
        if a < 0 or b < 0:
            raise ValueError(f"Paddings must be non-negative: {a} {b}")
    if s.rank is None:
        return TensorShape([None] * len(paddings)), x.dtype
    if mode != "CONSTANT":
        for (a, b), n in zip(paddings, s):
            if n is None:
                continue
            if mode == "REFLECT" and max(a, b) >= n:
                raise ValueError(f"paddings must be less than the dimension size: {a}, {b} not less than {n}")
            if mode == "SYMMETRIC" and max(a, b) > n:
                raise ValueError(f"paddings must be no greater than the dimension size: {a}, {b} greater than {n}")
    return TensorShape([None if n is None else a + n + b for (a, b), n in zip(paddings, s)]), x.dtype


def _unpad_spec(paddings):
    return tuple(("s", a, -b if b else None, None) for a, b in paddings)


PAD = defop("PadV2", _pad_kernel, _pad_infer,
            grad=lambda op, dy: (slicing.strided_slice_spec(dy, _unpad_spec(op.attrs["paddings"])), None))


def _mirror_pad_kernel(x, paddings, mode):
    limit = 0 if mode == "REFLECT" else 1
    for (a, b), n in zip(paddings, x.shape):
        if max(a, b) > n - 1 + limit:
            raise ValueError("paddings too large")  # the shape rule words it
    return np.pad(x, paddings, mode=mode.lower())


def _mirror_pad_grad_kernel(dy, paddings, mode):
    """Folds the mirrored borders of dy back onto the values they copy."""
    off = 1 if mode == "REFLECT" else 0
    g = dy
    for ax, (a, b) in enumerate(paddings):
        if not (a or b):
            continue
        g = np.moveaxis(g, ax, 0)
        n = g.shape[0] - a - b
        c = g[a:a + n].copy()
        if a:
            c[off:off + a] += g[:a][::-1]
        if b:
            c[n - off - b:n - off] += g[a + n:][::-1]
        g = np.moveaxis(c, 0, ax)
    return g


def _mirror_pad_grad_infer(dy, paddings, mode):
    s = dy.shape
    if s.rank is None:
        return UNKNOWN, dy.dtype
    return TensorShape([None if n is None else n - a - b for (a, b), n in zip(paddings, s)]), dy.dtype


MIRROR_PAD = defop("MirrorPad", _mirror_pad_kernel, _pad_infer,
                   grad=lambda op, dy: (bind(MIRROR_PAD_GRAD, (dy,), op.attrs),))
MIRROR_PAD_GRAD = defop("MirrorPadGrad", _mirror_pad_grad_kernel, _mirror_pad_grad_infer,
                        grad=lambda op, ddy: (bind(MIRROR_PAD, (ddy,), op.attrs),))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    x = to_tensor(tensor)
    if isinstance(paddings, Tensor) or isinstance(paddings, (list, tuple)) and _tensor._holds_tensor(paddings):
        p = to_tensor(paddings)
        if static_value(p) is None:  # computed in the graph: `[[0, n]]` of a traced n
            return _pad_by_tensor(x, p, mode, constant_values, name)
        paddings = static_value(p)
    pads = _ints(paddings, "paddings")
    if np.ndim(pads) != 2 or (pads and len(pads[0]) != 2):
        raise ValueError(f"paddings must be a matrix with 2 columns, got {paddings!r}")
    pads = tuple((int(a), int(b)) for a, b in pads)
    m = str(mode).upper()
    if m == "CONSTANT":
        if x.dtype is _dt.string and isinstance(constant_values, int) and constant_values == 0:
            constant_values = b""  # the default pads strings with empty strings
        c = _convert_like(constant_values, x.dtype)
        _check(PAD, (x, c), paddings=pads)
        return bind(PAD, (x, c), {"paddings": pads}, name=name or "PadV2")
    if m not in ("REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    _check(MIRROR_PAD, (x,), paddings=pads, mode=m)
    return bind(MIRROR_PAD, (x,), {"paddings": pads, "mode": m}, name=name or "MirrorPad")


def _pad_by_tensor(x, p, mode, constant_values, name):
    """pad with paddings computed in the graph (audio front ends pad a waveform to whole frames so): along each
    axis, a concat of constant blocks (CONSTANT) or a gather of reflected indices (REFLECT, SYMMETRIC)."""
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError("rivulet's tf.pad with paddings computed in the graph needs an input of known rank")
    if p.dtype not in _INDEX:
        raise TypeError(f"Value passed to parameter 'paddings' has DataType {p.dtype.name} not in list of allowed "
                        "values: int32, int64")
    if p.shape.rank is not None and (p.shape.rank != 2 or p.shape[1] not in (None, 2)
                                     or p.shape[0] not in (None, rank)):
        raise ValueError(f"paddings must be a matrix of shape [{rank}, 2], got shape {p.shape}")
    m = str(mode).upper()
    if m not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    if m == "CONSTANT":
        if x.dtype is _dt.string and isinstance(constant_values, int) and constant_values == 0:
            constant_values = b""
        c = _convert_like(constant_values, x.dtype)
    for a in _pyrange(rank):
        before, after = p[a, 0], p[a, 1]
        if m == "CONSTANT":
            s = shape(x, out_type=p.dtype)

            def block(k):
                return fill(concat([s[:a], reshape(k, [1]), s[a + 1:]], 0), c)
            x = concat([block(before), x, block(after)], a)
        else:
            n = shape(x, out_type=p.dtype)[a]
            j = range(-before, n + after, dtype=p.dtype)
            if m == "REFLECT":
                j = _m.abs(j)
                j = where(j >= n, 2 * (n - 1) - j, j)
            else:
                j = where(j < 0, -j - 1, j)
                j = where(j >= n, 2 * n - 1 - j, j)
            x = gather(x, j, axis=a)
    return identity(x, name=name) if name else x


# ---------------------------------------------------------------- slice / reverse
def _slice_bounds(shape, begin, size):
    """Validated (start, stop) per dimension, or the TensorFlow error as ValueError."""
    if len(begin) != len(shape) or len(size) != len(shape):
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, but got "
                         f"shapes [{len(begin)}] and [{len(size)}] instead.")
    out = []
    for i, (n, b, s) in enumerate(zip(shape, begin, size)):
        if n is not None and b is not None and not 0 <= b <= n:
            raise ValueError(f"Expected begin[{i}] in [0, {n}], but got {b}")
        if s == -1:
            s = None if n is None or b is None else n - b
        elif n is not None and b is not None and s is not None and not 0 <= s <= n - b:
            raise ValueError(f"Expected size[{i}] in [0, {n - b}], but got {s}")
        out.append((b, None if b is None or s is None else b + s, s))
    return out


def _slice_kernel(x, *dyn, begin, size):
    if dyn:
        begin, size = dyn[0].tolist(), dyn[1].tolist()
    return x[tuple(_pyslice(b, e) for b, e, _ in _slice_bounds(x.shape, begin, size))]


def _slice_infer(x, *dyn, begin, size):
    s = x.shape
    n = len(begin) if begin is not None else (len(size) if size is not None else None)
    if s.rank is None or begin is None or size is None:
        return (UNKNOWN if n is None else TensorShape([None] * n)), x.dtype
    return TensorShape([d for _, _, d in _slice_bounds(list(s), begin, size)]), x.dtype


def _slice_grad_kernel(dy, x, *dyn, begin, size):
    if dyn:
        begin = dyn[0].tolist()
    out = np.zeros(np.shape(x), dy.dtype)
    out[tuple(_pyslice(b, b + n) for b, n in zip(begin, dy.shape))] = dy
    return out


def _slice_grad(op, dy):
    x, *dyn = op.inputs
    return (bind(SLICE_GRAD, (dy, x, *dyn), op.attrs),) + (None,) * len(dyn)


SLICE = defop("Slice", _slice_kernel, _slice_infer, grad=_slice_grad, is_view=True)
# dy placed at `begin` in zeros shaped like x (x is used for its shape).
SLICE_GRAD = defop("SliceGrad", _slice_grad_kernel, lambda dy, x, *dyn, begin, size: (x.shape, dy.dtype),
                   grad=lambda op, ddy: (bind(SLICE, (ddy, *op.inputs[2:]), op.attrs),) + (None,) * (len(op.inputs) - 1))


def slice(input_, begin, size, name=None):  # noqa: A001
    x = to_tensor(input_)
    b_attr, b_dyn = shape_arg(begin, "begin")
    s_attr, s_dyn = shape_arg(size, "size")
    if b_dyn or s_dyn:  # both travel as inputs so the kernel reads them together
        b_dyn = b_dyn or (to_tensor(list(b_attr), dtype=_dt.int32),)
        s_dyn = s_dyn or (to_tensor(list(s_attr), dtype=_dt.int32),)
    attrs = {"begin": b_attr, "size": s_attr}
    if not (b_dyn or s_dyn) and x.shape.rank is not None:
        _check(SLICE, (x,), **attrs)
    return bind(SLICE, (x, *b_dyn, *s_dyn), attrs, name=name or "Slice")


def _reverse_infer(x, axis):
    r = x.shape.rank
    if r is not None:
        for i, a in enumerate(axis):
            if not -r <= a < r:
                raise ValueError(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}")
        seen = set()
        for a in axis:
            if a % r in seen:
                raise ValueError(f"axis {a % r} specified more than once.")
            seen.add(a % r)
    return x.shape, x.dtype


REVERSE = defop("ReverseV2", lambda x, axis: np.flip(x, axis), _reverse_infer, is_view=True,
                grad=lambda op, dy: (reverse(dy, op.attrs["axis"]),))


def reverse(tensor, axis, name=None):
    x = to_tensor(tensor)
    axis = tuple(_ints(axis, "axis"))
    _check(REVERSE, (x,), axis=axis)
    return bind(REVERSE, (x,), {"axis": axis}, name=name or "ReverseV2")


# ---------------------------------------------------------------- boolean_mask / sequence_mask
def _mask_key(axis, mask):
    return (_pyslice(None),) * axis + (mask,)


def _boolean_mask_infer(x, mask, axis):
    s, k = x.shape, mask.shape.rank
    if s.rank is None or k is None:
        return UNKNOWN, x.dtype
    return TensorShape(list(s[:axis]) + [None] + list(s[axis + k:])), x.dtype


def _boolean_mask_grad_kernel(dy, x, mask, axis):
    out = np.zeros(np.shape(x), dy.dtype)
    out[_mask_key(axis, mask)] = dy
    return out


BOOLEAN_MASK = defop("BooleanMask", lambda x, mask, axis: x[_mask_key(axis, mask)], _boolean_mask_infer,
                     grad=lambda op, dy: (bind(BOOLEAN_MASK_GRAD, (dy, *op.inputs), op.attrs), None))
# dy scattered into zeros shaped like x where the mask is set (x is used for its shape).
BOOLEAN_MASK_GRAD = defop(
    "BooleanMaskGrad", _boolean_mask_grad_kernel, lambda dy, x, mask, axis: (x.shape, dy.dtype),
    grad=lambda op, ddy: (bind(BOOLEAN_MASK, (ddy, op.inputs[2]), op.attrs), None, None))


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    x = to_tensor(tensor)
    m = to_tensor(mask)
    if m.dtype is not _dt.bool:
        m = _m.cast(m, _dt.bool)
    k = m.shape.rank
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    if k is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
                         "shape=[None] is ok, but shape=None is not.")
    axis = 0 if axis is None else _static_int(axis, "axis")
    rank = x.shape.rank
    if rank is not None:
        if not -rank <= axis <= rank - k:
            raise ValueError(f"boolean_mask: a rank-{k} mask at `axis` {axis} does not fit a tensor of rank {rank}")
        axis %= max(rank, 1)
        x.shape[axis:axis + k].assert_is_compatible_with(m.shape)
    return bind(BOOLEAN_MASK, (x, m), {"axis": axis}, name=name)


def _sequence_mask_kernel(lengths, *dyn, maxlen, dtype):
    n = int(dyn[0]) if dyn else maxlen
    if n is None:
        n = int(lengths.max()) if lengths.size else 0
    return (np.arange(n) < np.expand_dims(lengths, -1)).astype(dtype._np)


SEQUENCE_MASK = defop("SequenceMask", _sequence_mask_kernel,
                      lambda lengths, *dyn, maxlen, dtype: (lengths.shape.concatenate([maxlen]), dtype))


def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
    ln = _indices(lengths)
    _check_index_dtype(ln, "SequenceMask", attr="T")
    dyn = ()
    if isinstance(maxlen, Tensor) and partial_value(maxlen) is None:
        dyn, maxlen = (maxlen,), None
    elif maxlen is not None:
        maxlen = _scalar_or_none(partial_value(to_tensor(maxlen)))
    return bind(SEQUENCE_MASK, (ln, *dyn), {"maxlen": maxlen, "dtype": _dt.as_dtype(dtype)},
                name=name or "SequenceMask")


# ---------------------------------------------------------------- roll / repeat / linspace / meshgrid
def _roll_infer(x, shift, axis):
    r = x.shape.rank
    if r == 0:
        raise ValueError("input must be 1-D or higher")
    if len(shift) != len(axis):
        raise ValueError("shift and axis must have the same size")
    for a in axis:
        if r is not None and not -r <= a < r:
            raise ValueError(f"axis {a} is out of range")
    return x.shape, x.dtype


ROLL = defop("Roll", lambda x, shift, axis: np.roll(x, shift, axis), _roll_infer,
             grad=lambda op, dy: (roll(dy, [-s for s in op.attrs["shift"]], op.attrs["axis"]),))


def roll(input, shift, axis, name=None):  # noqa: A002
    """Elements shifted along `axis` (wrapping around); shifts along a repeated axis add up."""
    x = to_tensor(input)
    if isinstance(shift, Tensor) and static_value(shift) is None:
        return _roll_by_tensor(x, shift, axis, name)
    shift = tuple(np.ravel(_ints(shift, "shift")).tolist())
    axis = tuple(np.ravel(_ints(axis, "axis")).tolist())
    _check(ROLL, (x,), shift=shift, axis=axis)
    return bind(ROLL, (x,), {"shift": shift, "axis": axis}, name=name or "Roll")


def _roll_by_tensor(x, shift, axis, name):
    """roll with a shift computed in the graph (generative/deepdream's random one): along each axis, a gather
    of the indices (i - shift) mod n."""
    axis = tuple(np.ravel(_ints(axis, "axis")).tolist())
    if shift.shape.rank is not None and shift.shape.num_elements() not in (None, len(axis)):
        k = shift.shape.num_elements()
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {k} and {len(axis)}. Shapes are [{k}] "
                         f"and [{len(axis)}]. for 'Roll' (shift and axis)")
    if not shift.dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'shift' has DataType {shift.dtype.name} not in list of allowed "
                        "values: int32, int64")
    shifts = reshape(shift, [-1])
    for i, a in enumerate(axis):
        n = shape(x, out_type=shift.dtype)[a]
        x = gather(x, _m.floormod(range(n, dtype=shift.dtype) - shifts[i], n), axis=a,
                   name=name if i == len(axis) - 1 else None)
    return x


def _repeats(x, reps, axis):
    n = x.shape[axis]
    if reps.ndim == 0:
        if reps < 0:
            raise InvalidArgumentError(f"Expected repeats >= 0, but got {int(reps)}")
        return np.full(n, int(reps))
    if reps.shape[0] not in (1, n):
        raise InvalidArgumentError(f"repeats must have {n} entries (the size of axis {axis}), got {reps.shape[0]}")
    return np.maximum(np.broadcast_to(reps, (n,)), 0)  # a negative count repeats nothing, as TensorFlow's does


def _repeat_grad_kernel(dy, reps, x, axis):
    ids = np.repeat(np.arange(x.shape[axis]), _repeats(x, reps, axis))
    out = np.zeros(np.moveaxis(x, axis, 0).shape, dy.dtype)
    np.add.at(out, ids, np.moveaxis(dy, axis, 0))
    return np.moveaxis(out, 0, axis)


def _repeat_infer(x, reps, axis):
    s = x.shape
    if s.rank is None:
        return UNKNOWN, x.dtype
    if reps.shape.rank not in (None, 0, 1):
        raise ValueError(f"repeats must be a scalar or a vector, got shape {_fmt(reps.shape)}")
    n, pv, dims = s[axis], partial_value(reps), list(s)
    if reps.shape.rank == 1 and None not in (n, reps.shape[0]) and reps.shape[0] not in (1, n):
        raise ValueError(f"Dimensions {n} and {reps.shape[0]} are not compatible")
    if isinstance(pv, int):
        dims[axis] = None if n is None else n * max(pv, 0)
    elif isinstance(pv, list) and None not in pv and n is not None:
        dims[axis] = sum(max(r, 0) for r in pv) * (n if len(pv) == 1 else 1)
    else:
        dims[axis] = None
    return TensorShape(dims), x.dtype


REPEAT = defop("Repeat", lambda x, reps, axis: np.repeat(x, _repeats(x, reps, axis), axis), _repeat_infer,
               grad=lambda op, dy: (bind(REPEAT_GRAD, (dy, op.inputs[1], op.inputs[0]), op.attrs), None))
# Sums each run of repeated slices of dy back onto its source slice (x is used for its shape).
REPEAT_GRAD = defop("RepeatGrad", _repeat_grad_kernel, lambda dy, reps, x, axis: (x.shape, dy.dtype),
                    grad=lambda op, ddy: (bind(REPEAT, (ddy, op.inputs[1]), op.attrs), None, None))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each slice along `axis` repeated `repeats` times (a scalar, or one count per slice); axis=None
    repeats the flattened input."""
    x = to_tensor(input)
    r = _indices(repeats)
    _check_index_dtype(r, "Repeat", attr="T")
    if axis is None or x.shape.rank == 0:
        x, axis = reshape(x, [-1]), 0
    axis = _static_int(axis, "axis")
    rank = x.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        axis %= rank
    _check(REPEAT, (x, r), axis=axis)
    return bind(REPEAT, (x, r), {"axis": axis}, name=name or "Repeat")


def _linspace_kernel(start, stop, *dyn, num, axis):
    num = int(dyn[0]) if dyn else num
    if num < 0:
        raise InvalidArgumentError(f"Requires num >= 0, got {num}")
    return np.linspace(start, stop, num, axis=axis).astype(start.dtype, copy=False)


def _linspace_infer(start, stop, *dyn, num, axis):
    if num is not None and num < 0:
        raise ValueError(f"Requires num >= 0, got {num}")
    s = broadcast_shape(start.shape, stop.shape)
    if s.rank is None:
        return UNKNOWN, start.dtype
    if not -(s.rank + 1) <= axis <= s.rank:
        raise ValueError(f"axis {axis} is out of range for an output of rank {s.rank + 1}")
    dims = list(s)
    dims.insert(axis % (s.rank + 1), num)
    return TensorShape(dims), start.dtype


def _linspace_grad(op, dy):
    start, stop = op.inputs[:2]
    rank = op.outputs[0].shape.rank
    if rank is None:
        raise NotImplementedError("The gradient of linspace needs a known rank.")
    axis = op.attrs["axis"] % rank
    w = bind(LINSPACE, (_m.cast(0, start.dtype), _m.cast(1, start.dtype), *op.inputs[2:]),
             {"num": op.attrs["num"], "axis": 0})
    w = reshape(w, [-1] + [1] * (rank - axis - 1))
    to_stop = _m.reduce_sum(_m.multiply(dy, w), axis)
    to_start = _m.subtract(_m.reduce_sum(dy, axis), to_stop)
    return (_m.sum_to(to_start, start), _m.sum_to(to_stop, stop)) + (None,) * (len(op.inputs) - 2)


LINSPACE = defop("LinSpace", _linspace_kernel, _linspace_infer, grad=_linspace_grad, same=2, allowed=FLOATS)


def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from start to stop (both included), inserted at `axis` of the broadcast of
    start and stop; integer ends give float64, as TensorFlow's."""
    s, e = binary_args(start, stop)
    if s.dtype is not e.dtype:
        raise ValueError(f"stop: Tensor conversion requested dtype {s.dtype.name} for Tensor with dtype "
                         f"{e.dtype.name}")
    if s.dtype.is_integer:
        s, e = _m.cast(s, _dt.float64), _m.cast(e, _dt.float64)
    if isinstance(num, Tensor) and partial_value(num) is None:
        n, dyn = None, (num,)
    else:
        n, dyn = int(_build_time(num, "num")), ()
    attrs = {"num": n, "axis": _static_int(axis, "axis")}
    _check(LINSPACE, (s, e), **attrs)
    return bind(LINSPACE, (s, e, *dyn), attrs, name=name or "linspace")


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D inputs: 'xy' (Cartesian: the first two output axes swapped) or 'ij'."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    xs = [reshape(to_tensor(a), [-1]) for a in args]
    n = len(xs)
    sizes = [size(x) for x in xs]
    pos = list(_pyrange(n))
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
        pos[0], pos[1] = 1, 0
    out = []
    for x, p in zip(xs, pos):
        shape = [1] * n
        shape[p] = -1
        out.append(broadcast_to(reshape(x, shape), sizes, name=name))
    return out


# ---------------------------------------------------------------- broadcast_static_shape / broadcast_dynamic_shape
def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape both static shapes broadcast to; ValueError when they cannot broadcast."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    try:
        return broadcast_shape(x, y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}") from None


def _broadcast_args_kernel(sx, sy):
    x, y = [int(d) for d in sx], [int(d) for d in sy]
    n = max(len(x), len(y))
    x, y = [1] * (n - len(x)) + x, [1] * (n - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p != q and 1 not in (p, q):
            raise InvalidArgumentError(f"Incompatible shapes: [{','.join(map(str, sx))}] vs. "
                                       f"[{','.join(map(str, sy))}]")
        out.append(q if p == 1 else p)
    return np.array(out, dtype=sx.dtype)


def _broadcast_args_infer(sx, sy):
    for t in (sx, sy):
        if t.shape.rank not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    px, py = partial_value(sx), partial_value(sy)
    if isinstance(px, list) and isinstance(py, list) and all(d is not None for d in px + py):
        _broadcast_args_kernel(np.array(px), np.array(py))  # raises for incompatible static shapes
        return TensorShape([max(len(px), len(py))]), sx.dtype
    n = [t.shape[0] if t.shape.rank == 1 else None for t in (sx, sy)]
    return TensorShape([None if None in n else max(n)]), sx.dtype


BROADCAST_ARGS = defop("BroadcastArgs", _broadcast_args_kernel, _broadcast_args_infer, same=2,
                       allowed=(_dt.int32, _dt.int64))


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (an int vector tensor) that shapes `shape_x` and `shape_y` broadcast to."""
    sx = shape_x if isinstance(shape_x, Tensor) else None
    sy = shape_y if isinstance(shape_y, Tensor) else None
    given = sx if sx is not None else sy
    dtype = given.dtype if given is not None else _dt.int32
    sx = to_tensor(shape_x, dtype=dtype) if sx is None else sx
    sy = to_tensor(shape_y, dtype=dtype) if sy is None else sy
    return bind(BROADCAST_ARGS, (sx, sy), {}, name="BroadcastArgs")
