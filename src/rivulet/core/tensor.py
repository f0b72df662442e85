"""Tensors: EagerTensor holds a NumPy value; SymbolicTensor is an edge of a Graph being built.

Both derive from Tensor (`tf.Tensor`), whose Python operators are attached by ops/operators.py once
the op library exists. Values are NumPy arrays or NumPy scalars (0-d results stay NumPy scalars, which
is also what TensorFlow's `.numpy()` returns); strings are object arrays of bytes.
"""
import numpy as np

from .. import dtypes as _dt
from ..errors import OperatorNotAllowedInGraphError
from ..shape import TensorShape, TensorSpec
from . import context

_from_np = _dt._BY_NP.__getitem__
_OBJ = np.dtype(object)


class Tensor:
    """A multi-dimensional array with a dtype and a (possibly partially known) shape."""
    __slots__ = ()
    __array_priority__ = 100
    OVERLOADABLE_OPERATORS = ()

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self):
        return Ref(self)

    def experimental_ref(self):
        return self.ref()

    @property
    def ndim(self):
        return self.shape.rank

    def get_shape(self):
        return self.shape

    def __len__(self):
        s = self.shape
        if s.rank is None or s.rank == 0:
            raise TypeError(f"len is not well defined for a rank-{s.rank if s.rank is not None else 'unknown'} "
                            f"Tensor.")
        if s[0] is None:
            raise TypeError("len is not well defined for a Tensor with an unknown first dimension.")
        return s[0]


class Ref:
    """A hashable reference to a tensor (`tensor.ref()`), compared by identity."""
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def deref(self):
        return self._t

    def __hash__(self):
        return id(self._t)

    def __eq__(self, other):
        return isinstance(other, Ref) and other._t is self._t

    def __repr__(self):
        return f"<Reference wrapping {self._t!r}>"


def numpy_text(v, is_repr):
    if v.ndim == 0:
        x = v[()] if isinstance(v, np.ndarray) else v
        if is_repr and isinstance(x, (np.floating, np.complexfloating)):
            # TensorFlow 2.21's repr shows a scalar as the Python number it holds: float32 2.2 is
            # 2.200000047683716 (str and arrays keep NumPy's shortest form)
            return repr(complex(x) if isinstance(x, np.complexfloating) else float(x))
        return str(x)
    text = repr(v) if is_repr else str(v)
    return "\n" + text if "\n" in text else text  # TensorFlow starts a multi-line value on its own line


class EagerTensor(Tensor):
    """A tensor with a concrete value."""
    __slots__ = ("_v", "_device", "__weakref__")  # _device: set only when placed off CPU:0 (rivulet.devices)

    def __init__(self, value):
        self._v = value

    def numpy(self):
        v = self._v
        if isinstance(v, np.ndarray):
            return v.copy() if v.ndim else v[()]
        return v

    def _numpy(self):
        return self._v

    @property
    def dtype(self):
        return _from_np(self._v.dtype)

    @property
    def shape(self):
        return TensorShape._known(self._v.shape)

    def set_shape(self, shape):
        """An eager tensor's shape is fixed: ValueError unless `shape` is compatible with it."""
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape "
                             f"{TensorShape(shape)}.")

    @property
    def ndim(self):
        return self._v.ndim

    @property
    def device(self):
        try:
            return self._device
        except AttributeError:
            return "/job:localhost/replica:0/task:0/device:CPU:0"

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._v)
        return v if dtype is None else v.astype(dtype)

    def __bool__(self):
        return bool(self._v)

    def __int__(self):
        return int(self._v)

    def __float__(self):
        return float(self._v)

    def __complex__(self):
        return complex(self._v)

    def __index__(self):
        v = self._v
        if v.ndim == 0 and v.dtype.kind in "iu":
            return int(v)
        raise TypeError(f"Only integer scalar tensors can be converted to an index, got {self.dtype.name} "
                        f"tensor of shape {self.shape}")

    def __len__(self):
        if self._v.ndim == 0:
            raise TypeError("len is not well defined for a rank-0 Tensor.")
        return self._v.shape[0]

    def __iter__(self):
        if self._v.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (EagerTensor(x) for x in self._v)

    def __format__(self, spec):
        # As TensorFlow: the NumPy value's format (f"{t}" of a scalar is "1.5", of a vector "[1. 2.]").
        v = self._v
        if v.ndim == 0:
            return format(v[()] if isinstance(v, np.ndarray) else v, spec)
        return format(v, spec)

    def __str__(self):
        return f"tf.Tensor({numpy_text(self._v, False)}, shape={self.shape}, dtype={self.dtype.name})"

    def __repr__(self):
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={numpy_text(self._v, True)}>"

    def __reduce__(self):
        return EagerTensor, (self._v,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return EagerTensor(np.copy(self._v))


class SymbolicTensor(Tensor):
    """An output of an Operation in a Graph: has a static shape and dtype but no value."""
    __slots__ = ("_op", "_index", "_shape", "_dtype", "__weakref__")

    def __init__(self, op, index, shape, dtype):
        self._op, self._index, self._shape, self._dtype = op, index, shape, dtype

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._index)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self):
        return f"{self._op.name}:{self._index}"

    @property
    def _spec_name(self):
        return self._op.name if self._op.type == "Placeholder" else None

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return [op for op in self._op.graph.get_operations() if any(t is self for t in op.inputs)]

    @property
    def numpy(self):
        # As in TensorFlow a graph tensor, leaked from a trace or not, has no numpy() (hasattr says False);
        # a property, so that other missing attributes stay plain, fast lookups.
        raise AttributeError(f"'SymbolicTensor' object has no attribute 'numpy': {self.name} is a tensor of a "
                             "traced graph and has no value (return it from the tf.function instead).")

    def eval(self, *a, **k):
        raise NotImplementedError("Symbolic tensors cannot be evaluated outside a graph run.")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error may indicate that "
            "you're trying to pass a Tensor to a NumPy call, which is not supported.")

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following "
            "resolutions to the problem: If you are running in Graph mode, use Eager execution mode or "
            "decorate this function with @tf.function. If you are using AutoGraph, you can try decorating "
            "this function with @tf.function. If that does not work, then you may be using an unsupported "
            "feature or your source code may not be visible to AutoGraph.")

    def __iter__(self):
        # As TensorFlow: whatever its shape, a graph tensor is not a Python iterable (a list comprehension,
        # list(x) or `a, b = x`). AutoGraph stages a `for` statement over it as a loop instead; tf.unstack
        # splits it.
        raise OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions to "
            "the problem: If you are running in Graph mode, use Eager execution mode or decorate this function "
            "with @tf.function. If you are using AutoGraph, you can try decorating this function with "
            "@tf.function. If that does not work, then you may be using an unsupported feature or your source "
            "code may not be visible to AutoGraph.")

    def __int__(self):
        raise TypeError(f"int() argument must not be a symbolic Tensor ({self.name})")

    __float__ = __index__ = __int__

    def __str__(self):
        if self._shape.rank is None:  # TensorFlow leaves an unknown shape out
            return f'Tensor("{self.name}", dtype={self._dtype.name})'
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __reduce__(self):
        raise TypeError("A symbolic Tensor cannot be pickled.")


# ----------------------------------------------------------------------------- conversion

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def _cpp(dtype):
    """TensorFlow names dtypes by their C++ spelling in conversion errors: float, double, half."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def _strings_to_object(a):
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    for i, s in enumerate(a.reshape(-1)):
        flat[i] = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return out


def _bytes_list(value, a):
    """A list of bytes keeps its trailing NULs (NumPy's "S" dtype drops them; TensorFlow keeps them)."""
    if a.dtype.kind == "S" and isinstance(value, (list, tuple)):
        o = np.array(value, dtype=object)
        if o.shape == a.shape:
            return o
    return a


def _numpy_strings(a):
    """A NumPy string or object array as a tf.string value (an object array must hold only str/bytes)."""
    if a.dtype.kind == "O":
        flat = a.reshape(-1)
        if all(type(x) is bytes for x in flat):
            return a
        for x in flat:
            if not isinstance(x, (str, bytes)):
                raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                                 f"{type(x).__name__}).")
    return _strings_to_object(a)


# a Python float is float32 by default; one float32 cannot hold (beyond rounding) is refused, in TF's words
_F32_MAX = float(np.finfo(np.float32).max) * (1 + 2.0 ** -25)  # what still rounds to float32's largest
_INFS = (float("inf"), float("-inf"))
_F32_RANGE = "Can't convert Python sequence with a value out of range for a double-precision float."


def _python_default(value):
    """TensorFlow's default dtype rules for Python values: float->float32, int->int32 (int64 if it must)."""
    if value is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a "
                         "Tensor.")
    try:
        a = np.asarray(value)
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        raise
    k = a.dtype.kind
    if k == "f":
        with np.errstate(over="ignore"):
            out = a.astype(np.float32)
        if a.size and np.isinf(out).any() and not np.isinf(a[np.isinf(out)]).all():
            raise ValueError(_F32_RANGE)  # a finite Python float past float32's range: TensorFlow refuses it
        return out
    if k in "iu":
        if a.size and _outside_int32(a):
            if a.max() > np.iinfo(np.int64).max:
                raise ValueError(f"Can't convert Python int {value!r} to a tensor: too large for int64")
            return a.astype(np.int64)
        return a.astype(np.int32)
    if k == "c":
        return a.astype(np.complex128)
    if k in "US":
        if isinstance(value, (list, tuple)) and a.size and not _all_strings(value):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        return _strings_to_object(_bytes_list(value, a))
    if k == "O":
        return _object_list(value, a)
    return a


def _outside_int32(a):
    """Whether an integer array holds a value int32 cannot; a small one (a Python list's) compared as Python
    ints, ~4x faster than NumPy's two reductions there."""
    if a.size <= 64:
        flat = a.ravel().tolist()
        return min(flat) < _INT32_MIN or max(flat) > _INT32_MAX
    return a.min() < _INT32_MIN or a.max() > _INT32_MAX


def _all_strings(value):
    """Whether every leaf of a nested list is a str or bytes (NumPy turns [1, 'a'] into strings silently)."""
    return all(_all_strings(v) if isinstance(v, (list, tuple)) else isinstance(v, (str, bytes, np.str_, np.bytes_))
               for v in value)


def _unsupported(value):
    """The error for a value (or an element of a nested list) that no tensor can hold."""
    if isinstance(value, (list, tuple)):
        bad = _first_unsupported(value)
        if bad:
            return ValueError(f"Can't convert Python sequence with mixed types to Tensor: element {bad[0]!r} has "
                              f"unsupported type {type(bad[0])}.")
        return ValueError("Can't convert Python sequence with mixed types to Tensor.")
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
                      f"Tensor.")


def _first_unsupported(value):
    """(element,) for the first leaf of a nested list no tensor can hold, else ()."""
    for v in value:
        if isinstance(v, (list, tuple)):
            bad = _first_unsupported(v)
            if bad:
                return bad
        elif not isinstance(v, (int, float, complex, bool, str, bytes, np.generic, np.ndarray, Tensor)):
            return (v,)
    return ()


def _object_list(value, a):
    """Nested lists mixing tensors and numbers, or of bytes: pack them."""
    flat = a.reshape(-1)
    if flat.size and all(isinstance(x, (bytes, str)) for x in flat):
        return _strings_to_object(a)
    if any(isinstance(x, Tensor) for x in flat) or isinstance(value, (list, tuple)):
        items = [x.numpy() if isinstance(x, EagerTensor) else x for x in flat]
        try:
            arr = np.array(items)
        except ValueError:
            arr = None
        if arr is not None and arr.dtype != _OBJ:
            kinds = {getattr(getattr(x, "dtype", None), "kind", None) for x in items}
            base = arr if kinds - {None} else _python_default(arr.tolist())
            return base.reshape(a.shape + arr.shape[1:])
    if isinstance(value, (list, tuple)) and not _first_unsupported(value):
        raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                        f"supported type.")
    raise _unsupported(value)


def to_numpy_value(value, dtype=None):
    """Python/NumPy value -> NumPy value of the dtype TensorFlow would give it (`dtype` requested if given)."""
    if dtype is None:
        if isinstance(value, np.ndarray):
            return value if value.dtype.kind not in "USO" else _numpy_strings(value)
        if isinstance(value, np.generic):
            if value.dtype.kind in "US":
                return np.array(_strings_to_object(np.asarray(value))[()], dtype=object)
            return value
        if isinstance(value, float):
            if -_F32_MAX <= value <= _F32_MAX or value != value or value in _INFS:
                return np.float32(value)
            raise ValueError(_F32_RANGE)
        if hasattr(value, "__array__") and not isinstance(value, (Tensor, list, tuple, str, bytes)):
            # as TensorFlow: an array-like (a pandas Series) converts as the array it gives (int64 stays int64)
            return to_numpy_value(np.asarray(value))
        if isinstance(value, bool):
            return np.bool_(value)
        if isinstance(value, int) and _INT32_MIN <= value <= _INT32_MAX:
            return np.int32(value)
        if isinstance(value, (str, bytes)):
            return np.array(value.encode("utf-8") if isinstance(value, str) else value, dtype=object)
        return _python_default(value)
    np_t = dtype._np
    tv = type(value)
    if tv is float and np_t.kind in "fc" if np_t is not None else False:
        if np_t.itemsize >= 4 and -_F32_MAX <= value <= _F32_MAX:
            return np_t.type(value)
        with np.errstate(over="ignore"):  # float16/float32 asked for: inf, as TensorFlow, without a warning
            return np_t.type(value)
    if tv is int and np_t is not None and np_t.kind in "iuf":
        try:
            return np_t.type(value)
        except OverflowError:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {_cpp(dtype)}") from None
    if np_t is None:  # string
        if isinstance(value, (str, bytes)):
            return np.array(value.encode("utf-8") if isinstance(value, str) else value, dtype=object)
        if value is None:
            _python_default(value)  # raises TensorFlow's "Attempt to convert a value (None)" ValueError
        a = np.asarray(value)
        if a.dtype.kind in "USO":
            return _numpy_strings(_bytes_list(value, a))
        if a.size == 0 and isinstance(value, (list, tuple)):  # tf.constant([], tf.string)
            return np.empty(a.shape, dtype=object)
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype == np_t:
            return value
        if value.dtype.kind in "USO":
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {_cpp(dtype)}")
        return value.astype(np_t)
    a = np.asarray(value)
    k = a.dtype.kind
    if k in "USO":
        if k == "O":
            return _object_list(value, a).astype(np_t)
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {_cpp(dtype)}")
    if a.size and ((k == "f" and np_t.kind in "iub") or (k == "c" and np_t.kind != "c") or
                   (k in "iu" and np_t.kind == "b")):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {_cpp(dtype)}")
    if k in "iu" and np_t.kind in "iu":
        info = np.iinfo(np_t)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {_cpp(dtype)}")
    out = a.astype(np_t)
    return out[()] if out.ndim == 0 else out


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None):
    """tf.convert_to_tensor: Tensor stays (dtype checked); objects with `_as_tensor` convert themselves;
    Python and NumPy values become constants (in the graph being built, or eager)."""
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
            if value.dtype is not dtype:
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                 f"{value.dtype.name}: {value!r}")
        return value
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _autopack(value, dtype, name)
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        t = conv()
        if dtype is not None and t.dtype is not _dt.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {_dt.as_dtype(dtype).name} for Tensor with "
                             f"dtype {t.dtype.name}")
        return t
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
        v = to_numpy_value(value, dtype)
    elif dtype_hint is not None:
        try:
            v = to_numpy_value(value, _dt.as_dtype(dtype_hint))
        except (TypeError, ValueError):
            v = to_numpy_value(value)
    else:
        v = to_numpy_value(value)
    g = context.current_graph()
    if g is not None:
        return g.constant(v, name=name)
    return EagerTensor(v)


_PLAIN = frozenset([int, float, bool, complex, str, bytes])


def _holds_tensor(value):
    """Whether a (nested) list holds a tensor or an object that converts itself (a variable)."""
    for v in value:
        c = v.__class__
        if c in _PLAIN:  # the usual leaves, told apart without a hasattr miss each
            continue
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            return True
        if (c is list or c is tuple or isinstance(v, (list, tuple))) and _holds_tensor(v):
            return True
    return False


_STACK = []  # tf.stack, given by ops/array_ops.py when it loads (the ops sit above core)


def register_stack(fn):
    _STACK[:] = [fn]


def _autopack(value, dtype, name):
    """A (nested) list mixing tensors and Python numbers becomes tf.stack of its rows, as TensorFlow packs
    it; the Python numbers take the tensors' dtype."""
    stack = _STACK[0]
    if dtype is None:
        dtype = next(_tensor_dtypes(value))
    rows = [_autopack(v, dtype, None) if isinstance(v, (list, tuple)) else convert_to_tensor(v, dtype=dtype)
            for v in value]
    return stack(rows, axis=0, name=name or "packed")


def _tensor_dtypes(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _tensor_dtypes(v)
        elif isinstance(v, Tensor):
            yield v.dtype
        elif hasattr(v, "_as_tensor"):
            yield v.dtype


def spec_of(t):
    return TensorSpec(t.shape, t.dtype)


def static_value(t):
    """The concrete NumPy value of a tensor if it is known without running a graph (eager or Const)."""
    v = getattr(t, "_v", None)
    if v is not None:
        return v
    op = getattr(t, "_op", None)
    if op is not None and op.type == "Const":
        return op.attrs["value"]
    if not isinstance(t, Tensor):
        return np.asarray(t)
    return None
