"""tf.TensorArray: a list of same-dtype tensors, written one element at a time (typically in a loop).

Eagerly it is a Python list of tensors, changed in place. In a graph its state is a `flow` tensor of dtype
variant whose value is an immutable TensorList; each write returns a new TensorArray around a new flow, so
it can be a while-loop variable or a cond output (function/control_flow.py treats it as a composite: its flow).

Gradients, as TensorFlow's list ops: the gradient of a TensorList is a TensorList of per-element gradients, an
element nobody wrote standing for zeros. TensorListSetItem <-> reading the item's gradient out of the gradient
list (and clearing it), TensorListGetItem <-> a gradient list holding dy at the index, Stack <-> FromTensor,
Gather <-> a scatter (repeated indices summed), ConcatV2 <-> Split. Gradient lists are read with the
`...OrZeros` ops, given the shape of the value they stand for, and summed with TensorListAdd.
"""
import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor
from ..errors import InvalidArgumentError, OutOfRangeError
from ..shape import TensorShape

_VARIANT = _dt.variant
_SCALAR = TensorShape([])


class _ListDType:
    """What a TensorList gives as its `.dtype`: an EagerTensor holding one (ops replayed eagerly, under a tape)
    is a variant tensor, so tapes follow it and its gradient is a list."""
    __slots__ = ()
    kind = "V"
    name = "variant"


_LIST_DTYPE = _ListDType()
_dt._BY_NP[_LIST_DTYPE] = _VARIANT


class TensorList:
    """The runtime value of a flow tensor: a tuple of NumPy values (None: not written yet)."""
    __slots__ = ("items",)
    dtype = _LIST_DTYPE  # an EagerTensor holding it is a variant tensor
    shape = ()
    ndim = 0

    def __init__(self, items):
        self.items = tuple(items)

    def __repr__(self):
        return f"TensorList(size={len(self.items)})"


def _element(items, i, element_dtype, element_shape):
    if not 0 <= i < len(items):
        raise InvalidArgumentError(f"Tried to read from index {i} but array size is: {len(items)}")
    v = items[i]
    if v is None:
        if not element_shape.is_fully_defined():
            raise InvalidArgumentError(f"Could not read from TensorArray index {i}: it was never written and the "
                                       f"element shape {element_shape} is not fully defined.")
        return np.zeros(element_shape.as_list(), element_dtype.as_numpy_dtype)
    return v


def _place(items, i, item, resize):
    """items[i] = item, growing a resizeable list; TensorFlow's errors for a negative or (fixed size) too
    large index."""
    i = int(i)
    if i < 0:
        raise InvalidArgumentError(f"Tried to write to index {i} but array size is: {len(items)}")
    if i >= len(items):
        if not resize:
            raise OutOfRangeError(f"Tried to write to index {i} but array is not resizeable and size is: "
                                  f"{len(items)} ")
        items.extend([None] * (i + 1 - len(items)))
    items[i] = item


def _set_item(lst, index, item, resize):
    items = list(lst.items)
    _place(items, index, item, resize)
    return TensorList(items)


def _stack(lst, element_dtype, element_shape):
    items = lst.items
    if not items:
        dims = element_shape.as_list() if element_shape.rank is not None else []
        return np.zeros([0] + [d or 0 for d in dims], element_dtype.as_numpy_dtype)
    known = next((v for v in items if v is not None), None)
    shape = element_shape if known is None else TensorShape(np.shape(known))
    return np.stack([_element(items, i, element_dtype, shape) for i in range(len(items))])


def _list_infer(*args, **attrs):
    return _SCALAR, _VARIANT


def _leading(element_shape, n=None):
    return TensorShape([n]).concatenate(element_shape)


RESERVE = defop("TensorListReserve", lambda n, element_dtype, element_shape: TensorList([None] * int(n)),
                _list_infer)
SET_ITEM = defop("TensorListSetItem", lambda lst, i, item, resize: _set_item(lst, i, item, resize), _list_infer)
GET_ITEM = defop("TensorListGetItem",
                 lambda lst, i, element_dtype, element_shape: _element(lst.items, int(i), element_dtype,
                                                                       element_shape),
                 lambda lst, i, element_dtype, element_shape: (element_shape, element_dtype))
STACK = defop("TensorListStack", _stack,
              lambda lst, element_dtype, element_shape: (_leading(element_shape), element_dtype))
FROM_TENSOR = defop("TensorListFromTensor", lambda t: TensorList(list(t)), _list_infer)
LENGTH = defop("TensorListLength", lambda lst: np.int32(len(lst.items)), lambda lst: (_SCALAR, _dt.int32))
GATHER = defop("TensorListGather",
               lambda lst, idx, element_dtype, element_shape: np.stack(
                   [_element(lst.items, int(i), element_dtype, element_shape) for i in np.ravel(idx)]).reshape(
                   np.shape(idx) + tuple(element_shape.as_list())) if np.size(idx) else
               np.zeros((0,) + tuple(d or 0 for d in (element_shape.as_list() or [])), element_dtype.as_numpy_dtype),
               lambda lst, idx, element_dtype, element_shape: (
                   idx.shape.concatenate(element_shape) if idx.shape.rank is not None else TensorShape(None),
                   element_dtype))
CONCAT = defop("TensorListConcatV2",
               lambda lst, element_dtype, element_shape: np.concatenate(
                   [_element(lst.items, i, element_dtype, element_shape) for i in range(len(lst.items))]),
               lambda lst, element_dtype, element_shape: (
                   TensorShape([None]).concatenate(element_shape[1:]) if element_shape.rank else TensorShape(None),
                   element_dtype))


# ----------------------------------------------------------------------------- gradients
#
# The gradient ops below read, write and sum gradient lists (None items: zeros). Their inputs are what the
# forward op's inputs were, so they work eagerly, in graphs and inside a While's compiled backward loop.

def _gather_or_zeros(lst, indices, shape, element_dtype, element_shape):
    """Items `indices` of a gradient list stacked (a scalar index: the item), zeros where none was written."""
    items = lst.items
    shape = tuple(int(d) for d in np.ravel(shape))
    idx = np.asarray(indices)
    n = len(items)
    if idx.ndim == 0:
        i = int(idx)
        v = items[i] if 0 <= i < n else None
        return np.zeros(shape, element_dtype.as_numpy_dtype) if v is None else v
    out = np.zeros(shape, element_dtype.as_numpy_dtype)
    rows = out.reshape((-1,) + shape[idx.ndim:])
    for k, i in enumerate(idx.ravel()):
        v = items[i] if 0 <= i < n else None
        if v is not None:
            rows[k] = v
    return out


def _gather_or_zeros_infer(lst, indices, shape, element_dtype, element_shape):
    return (indices.shape.concatenate(element_shape) if indices.shape.rank is not None else TensorShape(None),
            element_dtype)


def _clear_items(lst, indices):
    items = list(lst.items)
    for i in np.ravel(indices):
        if 0 <= i < len(items):
            items[i] = None
    return TensorList(items)


def _resize(lst, size):
    items = list(lst.items[:int(size)])
    items.extend([None] * (int(size) - len(items)))
    return TensorList(items)


def _add(a, b):
    """The sum of two gradient lists (an unwritten item: zero)."""
    x, y = a.items, b.items
    if len(x) < len(y):
        x, y = y, x
    out = list(x)
    for i, v in enumerate(y):
        if v is not None:
            out[i] = v if out[i] is None else out[i] + v
    return TensorList(out)


def _scatter_sum(tensor, indices, num_elements):
    """A gradient list holding the rows of `tensor` at `indices` (rows of a repeated index summed)."""
    idx = np.ravel(indices)
    t = np.asarray(tensor)
    rows = t.reshape((idx.size,) + t.shape[np.ndim(indices):])
    n = max(int(num_elements), int(idx.max()) + 1 if idx.size else 0)
    items = [None] * n
    for k, i in enumerate(idx):
        if i < 0:
            raise InvalidArgumentError(f"Trying to scatter to a negative index {i}")
        items[i] = rows[k] if items[i] is None else items[i] + rows[k]
    return TensorList(items)


def _scatter_into(lst, tensor, indices, resize):
    items = list(lst.items)
    idx = np.ravel(indices)
    t = np.asarray(tensor)
    rows = t.reshape((idx.size,) + t.shape[np.ndim(indices):])
    for k, i in enumerate(idx):
        _place(items, i, rows[k], resize)
    return TensorList(items)


def _split(tensor, lengths):
    t = np.asarray(tensor)
    ends = np.cumsum(np.asarray(lengths, np.int64))
    if (ends[-1] if ends.size else 0) != t.shape[0]:
        raise InvalidArgumentError(f"Sum of lengths {ends[-1] if ends.size else 0} does not match the leading "
                                   f"dimension {t.shape[0]} of the tensor being split")
    return TensorList(np.split(t, ends[:-1]))


def _element_lengths(lst, element_dtype, element_shape):
    return np.array([np.shape(_element(lst.items, i, element_dtype, element_shape))[0]
                     for i in range(len(lst.items))], np.int64)


def _shape_of(t):
    """t's shape as an int32 tensor: a constant where it is static (nothing kept from a loop's iterations)."""
    from .array_ops import shape
    if t.shape.is_fully_defined():
        return convert_to_tensor(np.array(t.shape.as_list(), np.int32))
    return shape(t, out_type=_dt.int32)


def zeros_list_like(t):
    """The zero gradient of a TensorList tensor: a list as long, nothing written."""
    return bind(RESERVE, [bind(LENGTH, [t])], {"element_dtype": _dt.float32, "element_shape": TensorShape(None)})


def add_lists(a, b):
    """The sum of two gradient lists (backprop's sum of a list tensor's gradients)."""
    return bind(LIST_ADD, [a, b])


def _differentiable(t):
    return t.dtype.is_floating or t.dtype.is_complex


def gather_or_zeros(lst, indices, like):
    """The gradient of `like` (the value(s) written at `indices`) read out of the gradient list `lst`."""
    element = like.shape if indices.shape.rank is None else like.shape[indices.shape.rank:] \
        if like.shape.rank is not None else TensorShape(None)
    return bind(GATHER_OR_ZEROS, [lst, indices, _shape_of(like)],
                {"element_dtype": like.dtype, "element_shape": element})


def _set_item_grad(op, dlist):
    lst, index, item = op.inputs
    d_item = gather_or_zeros(dlist, index, item) if _differentiable(item) else None
    d_lst = bind(CLEAR_ITEMS, [dlist, index])
    if op.attrs["resize"]:  # a write that grew the list: the input list's gradient is as long as it was
        d_lst = bind(RESIZE, [d_lst, bind(LENGTH, [lst])])
    return [d_lst, None, d_item]


def _get_item_grad(op, dy):
    lst, index = op.inputs
    empty = bind(RESERVE, [bind(LENGTH, [lst])], {"element_dtype": dy.dtype, "element_shape": TensorShape(None)})
    return [bind(SET_ITEM, [empty, index, dy], {"resize": False}), None]


def _stack_grad(op, dy):
    return [bind(FROM_TENSOR, [dy])]


def _from_tensor_grad(op, dlist):
    return [_stack_or_zeros(dlist, op.inputs[0])]


def _stack_or_zeros(dlist, like):
    from .array_ops import range as _range, shape
    n = like.shape[0] if like.shape.rank and like.shape[0] is not None else shape(like, out_type=_dt.int32)[0]
    return gather_or_zeros(dlist, _range(n), like)


def _gather_grad(op, dy):
    lst, indices = op.inputs
    return [bind(SCATTER_SUM, [dy, indices, bind(LENGTH, [lst])]), None]


def _concat_grad(op, dy):
    lst = op.inputs[0]
    lengths = bind(ELEMENT_LENGTHS, [lst], {"element_dtype": op.attrs["element_dtype"],
                                            "element_shape": op.attrs["element_shape"]})
    return [bind(SPLIT, [dy, lengths])]


def _gather_or_zeros_grad(op, dy):
    lst, indices, _ = op.inputs
    return [bind(SCATTER_SUM, [dy, indices, bind(LENGTH, [lst])]), None, None]


def _scatter_sum_grad(op, dlist):
    tensor, indices, _ = op.inputs
    return [gather_or_zeros(dlist, indices, tensor), None, None]


def _scatter_into_grad(op, dlist):
    lst, tensor, indices = op.inputs
    d_lst = bind(CLEAR_ITEMS, [dlist, indices])
    if op.attrs["resize"]:
        d_lst = bind(RESIZE, [d_lst, bind(LENGTH, [lst])])
    return [d_lst, gather_or_zeros(dlist, indices, tensor) if _differentiable(tensor) else None, None]


def _split_grad(op, dlist):
    tensor = op.inputs[0]
    return [bind(CONCAT_OR_ZEROS, [dlist, op.inputs[1], _shape_of(tensor)], {"element_dtype": tensor.dtype}),
            None]


def _concat_or_zeros(lst, lengths, shape, element_dtype):
    shape = tuple(int(d) for d in np.ravel(shape))
    out = np.zeros(shape, element_dtype.as_numpy_dtype)
    at = 0
    for i, n in enumerate(np.ravel(lengths)):
        v = lst.items[i] if i < len(lst.items) else None
        if v is not None:
            out[at:at + n] = v
        at += int(n)
    return out


GATHER_OR_ZEROS = defop("TensorListGatherOrZeros", _gather_or_zeros, _gather_or_zeros_infer,
                        grad=_gather_or_zeros_grad)
CLEAR_ITEMS = defop("TensorListClearItems", _clear_items, _list_infer,
                    grad=lambda op, dlist: [bind(CLEAR_ITEMS, [dlist, op.inputs[1]]), None])
RESIZE = defop("TensorListResize", _resize, _list_infer,
               grad=lambda op, dlist: [bind(RESIZE, [dlist, bind(LENGTH, [op.inputs[0]])]), None])
LIST_ADD = defop("TensorListAdd", _add, _list_infer, grad=lambda op, dlist: [dlist, dlist])
SCATTER_SUM = defop("TensorListScatterSum", _scatter_sum, _list_infer, grad=_scatter_sum_grad)
SCATTER_INTO = defop("TensorListScatterIntoExistingList", _scatter_into, _list_infer, grad=_scatter_into_grad)
SPLIT = defop("TensorListSplit", _split, _list_infer, grad=_split_grad)
ELEMENT_LENGTHS = defop("TensorListElementLengths", _element_lengths,
                        lambda lst, element_dtype, element_shape: (TensorShape([None]), _dt.int64))
CONCAT_OR_ZEROS = defop("TensorListConcatOrZeros", _concat_or_zeros,
                        lambda lst, lengths, shape, element_dtype: (TensorShape(None), element_dtype))
RESERVE.grad = lambda op, dlist: [None]
SET_ITEM.grad = _set_item_grad
GET_ITEM.grad = _get_item_grad
STACK.grad = _stack_grad
FROM_TENSOR.grad = _from_tensor_grad
GATHER.grad = _gather_grad
CONCAT.grad = _concat_grad


def _static_index(v, what):
    """An eager TensorArray's int argument; floats and strings are refused (int() would truncate 0.5 to 0)."""
    t = convert_to_tensor(v, dtype=_dt.int32) if not isinstance(v, Tensor) else v
    if not t.dtype.is_integer or t.shape.rank != 0:
        raise TypeError(f"TensorArray `{what}` must be a scalar integer, got {v!r}")
    return int(t)


class TensorArray:
    """tf.TensorArray(dtype, size=None, dynamic_size=None, ..., element_shape=None)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = _dt.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape) if element_shape is not None else TensorShape(None)
        if flow is not None:
            self._flow, self._items = flow, None
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if context.current_graph() is None:
            n = _static_index(size, "size")
            if n < 0:
                raise ValueError(f"TensorArray `size` must be >= 0, got {n}")
            self._flow, self._items = None, [None] * n
        else:
            n = convert_to_tensor(size, dtype=_dt.int32)
            self._flow = bind(RESERVE, [n], {"element_dtype": self._dtype, "element_shape": self._element_shape},
                              name=name or "TensorArrayV2")
            self._items = None

    # -- composite protocol (function/control_flow.py) ------------------------------------------------------------
    def _flow_tensor(self):
        if self._flow is None:
            raise TypeError("An eager TensorArray cannot be used inside a graph; create it inside the function.")
        return self._flow

    def _with_flow(self, flow, element_shape=None):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = self._dtype, self._dynamic_size, self._infer_shape
        ta._element_shape = self._element_shape if element_shape is None else element_shape
        ta._flow, ta._items = flow, None
        return ta

    # -- properties ------------------------------------------------------------------------------------------
    dtype = property(lambda self: self._dtype)
    dynamic_size = property(lambda self: self._dynamic_size)
    element_shape = property(lambda self: self._element_shape)

    @property
    def flow(self):
        return self._flow

    @property
    def handle(self):
        return self._flow

    def _attrs(self, shape=None):
        return {"element_dtype": self._dtype, "element_shape": self._element_shape if shape is None else shape}

    # -- element access --------------------------------------------------------------------------------------
    def _value(self, value):
        try:
            t = convert_to_tensor(value, dtype=self._dtype)
        except (TypeError, ValueError):
            t = convert_to_tensor(value)
        if t.dtype is not self._dtype:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                            f"{t.dtype.name} ")
        if self._infer_shape and not self._element_shape.is_compatible_with(t.shape):
            raise ValueError(f"Incompatible shape for value ({_py(t.shape)}), expected ({_py(self._element_shape)})")
        return t

    def write(self, index, value, name=None):
        t = self._value(value)
        shape = self._element_shape.merge_with(t.shape) if self._infer_shape else self._element_shape
        if self._items is not None:
            i = _static_index(index, "index")
            n = len(self._items)
            if i >= n and not self._dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {i} but array is not resizeable and size is: {n} ")
            if i < 0:
                raise InvalidArgumentError(f"Tried to write to index {i} but array size is: {n}")
            self._items.extend([None] * (i + 1 - n))
            self._items[i] = t
            self._element_shape = shape
            return self
        flow = bind(SET_ITEM, [self._flow, convert_to_tensor(index, dtype=_dt.int32), t],
                    {"resize": self._dynamic_size}, name=name or "TensorListSetItem")
        return self._with_flow(flow, shape)

    def read(self, index, name=None):
        if self._items is not None:
            i = _static_index(index, "index")
            if not 0 <= i < len(self._items):
                raise InvalidArgumentError(f"Tried to read from index {i} but array size is: {len(self._items)}")
            t = self._items[i]
            if t is None:
                if not self._element_shape.is_fully_defined():
                    raise ValueError(f"Cannot convert a partially known TensorShape {self._element_shape} to a "
                                     f"Tensor.")
                return EagerTensor(np.zeros(self._element_shape.as_list(), self._dtype.as_numpy_dtype))
            return t
        return bind(GET_ITEM, [self._flow, convert_to_tensor(index, dtype=_dt.int32)], self._attrs(),
                    name=name or "TensorListGetItem")

    def stack(self, name=None):
        if self._items is not None:
            return self.gather(list(range(len(self._items))))
        return bind(STACK, [self._flow], self._attrs(), name=name or "TensorListStack")

    def gather(self, indices, name=None):
        if self._items is not None:
            from .array_ops import stack, zeros
            idx = [int(i) for i in np.ravel(np.asarray(convert_to_tensor(indices)))]
            if not idx:
                dims = self._element_shape.as_list() if self._element_shape.rank is not None else []
                return zeros([0] + [d or 0 for d in dims], self._dtype)
            return stack([self.read(i) for i in idx])
        return bind(GATHER, [self._flow, convert_to_tensor(indices, dtype=_dt.int32)], self._attrs(),
                    name=name or "TensorListGather")

    def concat(self, name=None):
        if self._items is not None:
            from .array_ops import concat
            return concat([self.read(i) for i in range(len(self._items))], 0)
        return bind(CONCAT, [self._flow], self._attrs(), name=name or "TensorListConcat")

    def unstack(self, value, name=None):
        t = convert_to_tensor(value, dtype=self._dtype)
        if t.shape.rank == 0:
            raise ValueError(f"TensorArray.unstack needs a value of rank >= 1 (one element per row), got a "
                             f"scalar {t!r}")
        shape = self._element_shape.merge_with(t.shape[1:]) if t.shape.rank else self._element_shape
        if self._items is not None:
            from .array_ops import unstack
            n = t.shape[0]
            if n > len(self._items) and not self._dynamic_size:
                raise ValueError(f"Cannot unstack {n} tensors into a TensorArray of static size {len(self._items)}")
            self._items = list(unstack(t)) if n else []
            self._element_shape = shape
            return self
        return self._with_flow(bind(FROM_TENSOR, [t], name=name or "TensorListFromTensor"), shape)

    def scatter(self, indices, value, name=None):
        from .array_ops import unstack
        if self._items is None:  # in a graph: one op, the indices may be computed
            t = convert_to_tensor(value, dtype=self._dtype)
            idx = convert_to_tensor(indices, dtype=_dt.int32)
            if t.shape.rank == 0 or idx.shape.rank not in (None, 1):
                raise ValueError(f"TensorArray.scatter needs a vector of indices and a value of rank >= 1, got "
                                 f"indices {idx.shape} and value {t.shape}")
            shape = self._element_shape.merge_with(t.shape[1:]) if t.shape.rank else self._element_shape
            flow = bind(SCATTER_INTO, [self._flow, t, idx], {"resize": self._dynamic_size},
                        name=name or "TensorListScatterIntoExistingList")
            return self._with_flow(flow, shape if self._infer_shape else self._element_shape)
        ta = self
        for i, v in zip(np.ravel(np.asarray(convert_to_tensor(indices))), unstack(convert_to_tensor(value))):
            ta = ta.write(int(i), v)
        return ta

    def size(self, name=None):
        if self._items is not None:
            return convert_to_tensor(len(self._items))
        return bind(LENGTH, [self._flow], name=name or "TensorListLength")

    def identity(self):
        return self

    def close(self, name=None):
        return None

    def mark_used(self):
        return None

    def __repr__(self):
        return f"<tf.TensorArray dtype={self._dtype.name} element_shape={self._element_shape}>"


def _py(shape):
    return "<unknown>" if shape.rank is None else str(tuple(shape.as_list()))
