"""NumPy behaviour for tensors: what `tnp.experimental_enable_numpy_behavior()` switches on.

Nothing here runs until it is enabled: the operators of `tf.Tensor` (and `tf.Variable`) stay ops/operators.py's,
with their eager fast paths, while STATE["mode"] is None. Enabling swaps in (on the classes, once per call of
`enable`) operators that promote their operands' dtypes first, NumPy-style indexing, and NumPy's methods
(`.T`, `.reshape`, `.astype`, `.ravel` ...).

The promotion rules, as TensorFlow 2.21's:
- "legacy": NumPy's (`np.result_type`, Python scalars weak as NumPy 2 treats them: int32 + 2.5 is float64,
  float32 + 2.5 float32, int32 + float32 float64); a Python value alone becomes int64 / float64 (float32 with
  `prefer_float32`).
- "all" / "safe": the lattice of TensorFlow's type promotion guide (JAX-like), with weak types: a Python
  int is `i32*`, a float `f32*`, a complex `c128*`, and a value made with no dtype given (`tf.constant(5)`)
  is a weak tensor (`WeakEagerTensor`, printed with `weak=True`) that defers to the other operand's dtype.
  "safe" refuses the promotions that lose precision or widen bits (TypeError). The table below is TensorFlow
  2.21's result for every pair of (dtype, weak) (recorded by running it; tests/experimental_numpy check it).
Weak tensors exist eagerly; values traced in a tf.function are strong (a documented difference).
"""
import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor, to_numpy_value

STATE = {"mode": None, "prefer_float32": False}

# ------------------------------------------------------------------ the lattice (TensorFlow 2.21's table)
_KEYS = 'b u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i32* i64* f32* f64* c128*'.split()
_ALL = (
    'b u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i32* i64* f32* f64* c128*',
    'u8 u8 u16 u32 u64 i16 i16 i32 i64 bf16 f16 f32 f64 c64 c128 u8 u8 f64* f64* c128*',
    'u16 u16 u16 u32 u64 i32 i32 i32 i64 bf16 f16 f32 f64 c64 c128 u16 u16 f64* f64* c128*',
    'u32 u32 u32 u32 u64 i64 i64 i64 i64 bf16 f16 f32 f64 c64 c128 u32 u32 f64* f64* c128*',
    'u64 u64 u64 u64 u64 f64* f64* f64* f64* bf16 f16 f32 f64 c64 c128 u64 u64 f64* f64* c128*',
    'i8 i16 i32 i64 f64* i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i8 i8 f64* f64* c128*',
    'i16 i16 i32 i64 f64* i16 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i16 i16 f64* f64* c128*',
    'i32 i32 i32 i64 f64* i32 i32 i32 i64 bf16 f16 f32 f64 c64 c128 i32 i32 f64* f64* c128*',
    'i64 i64 i64 i64 f64* i64 i64 i64 i64 bf16 f16 f32 f64 c64 c128 i64 i64 f64* f64* c128*',
    'bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f32 f32 f64 c64 c128 bf16 bf16 bf16 bf16 c64',
    'f16 f16 f16 f16 f16 f16 f16 f16 f16 f32 f16 f32 f64 c64 c128 f16 f16 f16 f16 c64',
    'f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f64 c64 c128 f32 f32 f32 f32 c64',
    'f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 c128 c128 f64 f64 f64 f64 c128',
    'c64 c64 c64 c64 c64 c64 c64 c64 c64 c64 c64 c64 c128 c64 c128 c64 c64 c64 c64 c64',
    'c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128',
    'i32* u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i32* i64* f32* f64* c128*',
    'i64* u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 i64* i64* f32* f64* c128*',
    'f32* f64* f64* f64* f64* f64* f64* f64* f64* bf16 f16 f32 f64 c64 c128 f32* f32* f32* f64* c128*',
    'f64* f64* f64* f64* f64* f64* f64* f64* f64* bf16 f16 f32 f64 c64 c128 f64* f64* f64* f64* c128*',
    'c128* c128* c128* c128* c128* c128* c128* c128* c128* c64 c64 c64 c128 c64 c128 c128* c128* c128* c128* c128*',
)
# "x": refused in SAFE mode (precision loss or bit-widening)
_SAFE = (
    '....................',
    '.....x...........x..',
    '.....xx..xx......x..',
    '.....xxx.xxx.x...x..',
    '.....xxxxxxxxxx..xxx',
    '.xxxx............x..',
    '..xxx....xx......x..',
    '...xx....xxx.x...x..',
    '....x....xxxxxx..xxx',
    '..xxx.xxx.x........x',
    '..xxx.xxxx.........x',
    '...xx..xx..........x',
    '....x...x....x......',
    '...xx..xx...x.......',
    '....x...x...........',
    '....................',
    '....................',
    '.xxxxxxxx...........',
    '....x...x...........',
    '....x...xxxx........',
)
_SHORT = {"b": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "i8": "int8",
          "i16": "int16", "i32": "int32", "i64": "int64", "bf16": "bfloat16", "f16": "float16", "f32": "float32",
          "f64": "float64", "c64": "complex64", "c128": "complex128"}


def _key_type(k):
    """(DType, weak) of a table key; bfloat16 (which rivulet has no dtype for) as None."""
    return getattr(_dt, _SHORT[k.rstrip("*")], None), k.endswith("*")


_INDEX = {_key_type(k): i for i, k in enumerate(_KEYS) if _key_type(k)[0] is not None}


_TABLE = [[_key_type(k) for k in row.split()] for row in _ALL]
WEAK_DTYPES = frozenset([_dt.int32, _dt.int64, _dt.float32, _dt.float64, _dt.complex128])


class WeakEagerTensor(EagerTensor):
    """A weakly typed eager tensor ("all"/"safe" promotion): its dtype defers to the other operand's."""
    __slots__ = ()

    def __str__(self):
        return super().__str__()[:-1] + ", weak=True)"

    def __repr__(self):
        return super().__repr__()[:-1] + ", weak=True>"

    def __reduce__(self):
        return WeakEagerTensor, (self._v,)


def weak(t):
    """`t` as a weak tensor (eager ones of a dtype that can be weak; anything else unchanged)."""
    if t.__class__ is EagerTensor and t.dtype in WEAK_DTYPES:
        return WeakEagerTensor(t._v)
    return t


def strong(t):
    return EagerTensor(t._v) if t.__class__ is WeakEagerTensor else t


def is_weak(t):
    return t.__class__ is WeakEagerTensor


# ------------------------------------------------------------------ input types
_PY = (bool, int, float, complex)


def _python_dtype(v):
    """The weak dtype of a Python number or nested list of them ("all" mode), None for anything else."""
    c = v.__class__
    if c is bool:
        return _dt.bool, False
    if c is int:
        return (_dt.int32 if -2 ** 31 <= v < 2 ** 31 else _dt.int64), True
    if c is float:
        return _dt.float32, True
    if c is complex:
        return _dt.complex128, True
    if isinstance(v, (list, tuple)):
        try:
            a = np.asarray(v)
        except ValueError:
            return None
        k = a.dtype.kind
        if k == "b":
            return _dt.bool, False
        if k in "iu":
            return (_dt.int64 if a.size and (a.min() < -2 ** 31 or a.max() >= 2 ** 31) else _dt.int32), True
        if k == "f":
            return _dt.float32, True
        if k == "c":
            return _dt.complex128, True
    return None


def infer(v):
    """(dtype, weak) of an operand, as the new type promotion reads it."""
    if isinstance(v, Tensor):
        return v.dtype, v.__class__ is WeakEagerTensor
    if hasattr(v, "_as_tensor"):  # variables
        return v.dtype, False
    if isinstance(v, (np.ndarray, np.generic)):
        return _dt.as_dtype(v.dtype), False
    r = _python_dtype(v)
    if r is not None:
        return r
    if isinstance(v, (list, tuple)):
        t = convert_to_tensor(v)
        return t.dtype, False
    dt = getattr(v, "dtype", None)
    if dt is not None:
        return _dt.as_dtype(dt), False
    return convert_to_tensor(v).dtype, False


def _promo_name():
    return "PromoMode.SAFE" if STATE["mode"] == "safe" else "PromoMode.ALL"


def lattice_type(a, b):
    """(dtype, weak) of two (dtype, weak) pairs by the lattice; TypeError where SAFE refuses it."""
    ia = _INDEX.get(a) if a[1] else _INDEX.get((a[0], False))
    ib = _INDEX.get(b) if b[1] else _INDEX.get((b[0], False))
    if ia is None or ib is None:
        if a[0] is b[0]:
            return a[0], a[1] and b[1]
        bad = a if ia is None else b
        raise TypeError(f"{bad[0].name} is not a dtype the type promotion lattice knows")
    if STATE["mode"] == "safe" and _SAFE[ia][ib] == "x":
        raise TypeError(f"In promotion mode {_promo_name()}, implicit dtype promotion between ({a[0]}, "
                        f"weak={a[1]}) and ({b[0]}, weak={b[1]}) is disallowed. You need to explicitly specify "
                        "the dtype in your op, or relax your dtype promotion rules (such as from SAFE mode to "
                        "ALL mode).")
    return _TABLE[ia][ib]


def result_type_all(*values):
    cur = None
    for v in values:
        t = infer(v)
        cur = t if cur is None else lattice_type(cur, t)
    return cur


# ------------------------------------------------------------------ legacy (NumPy's) rules
def default_float():
    return _dt.float32 if STATE["prefer_float32"] else _dt.float64


def legacy_default(v):
    """The dtype tnp gives a Python value alone in legacy mode: int64, float64 (float32 with prefer_float32),
    complex128, bool."""
    a = np.asarray(v)
    k = a.dtype.kind
    if k == "f":
        return default_float()
    if k in "iu":
        return _dt.int64 if a.dtype.itemsize <= 8 and k == "i" else _dt.as_dtype(a.dtype)
    if k == "c":
        return _dt.complex128
    if k == "b":
        return _dt.bool
    return convert_to_tensor(v).dtype


def _np_of(dtype):
    return dtype._np if dtype._np is not None else np.dtype(object)


def result_type_legacy(*values):
    items = []
    scalars = []
    for v in values:
        if isinstance(v, Tensor) or hasattr(v, "_as_tensor"):
            items.append(_np_of(v.dtype))
        elif isinstance(v, (np.ndarray, np.generic)):
            items.append(v.dtype)
        elif v.__class__ in _PY:
            scalars.append(v)
        elif isinstance(v, (list, tuple)):
            t = convert_to_tensor(v) if _has_tensor(v) else None
            items.append(_np_of(t.dtype if t is not None else legacy_default(v)))
        elif hasattr(v, "dtype"):
            items.append(np.dtype(getattr(v.dtype, "as_numpy_dtype", v.dtype)))
        else:
            items.append(_np_of(convert_to_tensor(v).dtype))
    if not items:  # Python scalars alone: each as tnp.asarray makes it
        items = [_np_of(legacy_default(s)) for s in scalars]
        scalars = []
    try:
        return _dt.as_dtype(np.result_type(*items, *scalars))
    except TypeError:
        return _dt.as_dtype(items[0])


def _has_tensor(v):
    return any(isinstance(x, Tensor) or hasattr(x, "_as_tensor") or
               (isinstance(x, (list, tuple)) and _has_tensor(x)) for x in v)


def result_type(*values):
    """(dtype, weak) of the values together under the current mode ("legacy" when off)."""
    if STATE["mode"] in ("all", "safe"):
        return result_type_all(*values)
    return result_type_legacy(*values), False


def to_dtype(v, dtype):
    """`v` as a tensor of `dtype` (a cast for tensors of another dtype)."""
    if hasattr(v, "_as_tensor") and not isinstance(v, Tensor):
        v = v._as_tensor()
    if isinstance(v, Tensor):
        if v.dtype is dtype:
            return strong(v)
        from .math_ops import cast
        return cast(strong(v), dtype)
    if v.__class__ is bool and dtype.is_integer and dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype {dtype.name}")  # as TensorFlow
    if isinstance(v, (np.ndarray, np.generic)) or v.__class__ in _PY or isinstance(v, (list, tuple)):
        if isinstance(v, (list, tuple)) and _has_tensor(v):
            return to_dtype(convert_to_tensor(v), dtype)
        if dtype._np is not None:
            with np.errstate(all="ignore"):
                a = np.asarray(v).astype(dtype._np)
            val = a if a.ndim else a[()]
        else:
            val = to_numpy_value(v, dtype)
        g = context.current_graph()
        return EagerTensor(val) if g is None else g.constant(val)
    return to_dtype(convert_to_tensor(v), dtype)


def promote(*values):
    """The values as tensors of one dtype, by the current mode's rules; and whether the result is weak."""
    dtype, w = result_type(*values)
    return [to_dtype(v, dtype) for v in values], w


def wrap(result, w):
    return weak(result) if w else result


# ------------------------------------------------------------------ operators
def _binary(fn):
    def op(self, other):
        try:
            (x, y), w = promote(self, other)
        except TypeError:
            if isinstance(other, np.ndarray):  # NumPy's reflected operator then computes it, as in TensorFlow
                return NotImplemented
            raise
        return wrap(fn(x, y), w)

    def rop(self, other):
        (x, y), w = promote(other, self)
        return wrap(fn(x, y), w)
    return op, rop


def _compare(fn):
    def op(self, other):
        (x, y), _ = promote(self, other)
        return fn(x, y)
    return op


def _eq_like(fn, default):
    def op(self, other):
        if other is None:
            return default
        try:
            (x, y), _ = promote(self, other)
        except (TypeError, ValueError) as e:
            if "promotion mode" in str(e):  # SAFE mode's refusal is raised, as TensorFlow's
                raise
            return default
        return fn(x, y)
    return op


def _unary(fn):
    def op(self):
        return wrap(fn(strong(self)), is_weak(self))
    return op


def _operators():
    from . import bitwise_ops, math_ops as m

    def logical_or_bitwise(logical, bitwise):
        def f(x, y):
            return logical(x, y) if x.dtype.is_bool else bitwise(x, y)
        return f

    def invert(x):
        return m.logical_not(x) if x.dtype.is_bool else bitwise_ops.invert(x)

    ops = {}
    for name, fn in [("add", m.add), ("sub", m.subtract), ("mul", m.multiply), ("truediv", m.truediv),
                     ("floordiv", m.floordiv), ("mod", m.floormod), ("pow", m.pow),
                     ("matmul", lambda a, b: m.matmul(a, b)),
                     ("and", logical_or_bitwise(m.logical_and, bitwise_ops.bitwise_and)),
                     ("or", logical_or_bitwise(m.logical_or, bitwise_ops.bitwise_or)),
                     ("xor", logical_or_bitwise(m.logical_xor, bitwise_ops.bitwise_xor))]:
        ops[f"__{name}__"], ops[f"__r{name}__"] = _binary(fn)
    ops["__lt__"] = _compare(m.less)
    ops["__le__"] = _compare(m.less_equal)
    ops["__gt__"] = _compare(m.greater)
    ops["__ge__"] = _compare(m.greater_equal)
    ops["__eq__"] = _eq_like(m.equal, False)
    ops["__ne__"] = _eq_like(m.not_equal, True)
    ops["__neg__"] = _unary(m.negative)
    ops["__abs__"] = _unary(m.abs)
    ops["__invert__"] = _unary(invert)
    ops["__pos__"] = lambda self: self
    ops["__getitem__"] = getitem
    return ops


# ------------------------------------------------------------------ NumPy-style indexing
def _is_advanced(k):
    if isinstance(k, (list, np.ndarray)) or (isinstance(k, tuple)):
        return True
    if isinstance(k, Tensor):
        return k.shape.rank != 0 or k.dtype.is_bool
    return False


def getitem(self, key):
    """NumPy's indexing: basic slices as tf.Tensor's, plus integer-array and boolean-mask indices (lists,
    tuples, arrays and tensors, as NumPy reads them). Static indices into a tensor of known shape are gathered
    from the flattened tensor; one advanced index among basic ones (any shape, traced index tensors too) is a
    gather along its axis. Differentiable either way."""
    from . import slicing
    self = strong(self)
    keys = key if isinstance(key, tuple) else (key,)
    if not any(_is_advanced(k) for k in keys):
        return slicing.getitem(self, key)
    from . import array_ops
    static = []
    for k in keys:
        if isinstance(k, Tensor):
            v = getattr(k, "_v", None)
            if v is None:
                static = None
                break
            k = np.asarray(v)
        elif isinstance(k, (list, tuple)):
            k = np.asarray(k)
        static.append(k)
    if static is not None and self.shape.is_fully_defined():
        dims = self.shape.as_list()
        positions = np.arange(int(np.prod(dims)) if dims else 1, dtype=np.int64).reshape(dims)
        try:
            idx = positions[tuple(static)]
        except IndexError as e:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError(str(e)) from None
        return array_ops.gather(array_ops.reshape(self, [-1]), convert_to_tensor(np.asarray(idx, dtype=np.int64)))
    return _one_advanced(self, keys if static is None else tuple(static))


def _one_advanced(x, keys):
    from . import array_ops, math_ops, slicing
    adv = [i for i, k in enumerate(keys) if _is_advanced(k) or isinstance(k, np.ndarray)]
    rank = x.shape.rank
    if len(adv) != 1 or rank is None:
        raise TypeError("NumPy-style indexing of a tensor of unknown shape, or with a traced index tensor, takes "
                        "one integer-array or boolean index (among basic slices)")
    i = adv[0]
    consumed = sum(1 for k in keys if k is not None and k is not Ellipsis)
    axis = 0
    for k in keys[:i]:
        if k is Ellipsis:
            axis += rank - consumed
        elif k is None or isinstance(k, slice):
            axis += 1
    basic = list(keys)
    basic[i] = slice(None)
    y = slicing.getitem(x, tuple(basic))
    idx = keys[i] if isinstance(keys[i], Tensor) else convert_to_tensor(np.asarray(keys[i]))
    if idx.dtype.is_bool:
        idx = array_ops.reshape(array_ops.where(idx), [-1])
    else:
        idx = math_ops.cast(idx, _dt.int64)
        n = math_ops.cast(array_ops.shape(y)[axis], _dt.int64)
        idx = array_ops.where(idx < 0, idx + n, idx)
    return array_ops.gather(y, idx, axis=axis)


# ------------------------------------------------------------------ NumPy methods
def _methods():
    from . import array_ops, math_ops as m

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return array_ops.reshape(self, shape)

    def transpose(self, axes=None):
        return array_ops.transpose(self, axes)

    def astype(self, dtype):
        dtype = _dt.as_dtype(dtype)
        return strong(self) if self.dtype is dtype else m.cast(strong(self), dtype)

    def ravel(self):
        return array_ops.reshape(self, [-1])

    def tolist(self):
        return self.numpy().tolist()

    def size(self):
        return array_ops.size(self, out_type=_dt.int64)

    def keep(fn):  # a weak tensor's reshaped/transposed views stay weak
        def f(self, *a, **k):
            return wrap(fn(strong(self), *a, **k), is_weak(self))
        return f
    return {"T": property(keep(lambda self: array_ops.transpose(self))), "reshape": keep(reshape),
            "transpose": keep(transpose), "astype": astype, "ravel": keep(ravel), "flatten": keep(ravel),
            "tolist": tolist, "size": property(size), "data": property(lambda self: self)}


_SAVED = {}
_EXTRA_METHODS = {}


def register_methods(methods):
    """Methods given by the face (tnp's clip, max, mean, min), installed with the others."""
    _EXTRA_METHODS.update(methods)


def _install(cls, attrs):
    saved = _SAVED.setdefault(cls, {})
    for name, value in attrs.items():
        if name not in saved:
            saved[name] = cls.__dict__.get(name, _MISSING)
        setattr(cls, name, value)


_MISSING = object()


def enable(mode="legacy", prefer_float32=False):
    """Turns NumPy behaviour on (global, as TensorFlow's): operators, indexing and methods on tensors and
    variables."""
    if mode not in ("legacy", "all", "safe"):
        raise ValueError(f"dtype_conversion_mode must be one of 'legacy', 'all' or 'safe', got {mode!r}")
    from ..state.variables import Variable
    if _SAVED:
        disable()
    STATE["mode"] = mode
    STATE["prefer_float32"] = bool(prefer_float32)
    ops = _operators()
    if mode != "legacy":  # the new promotion leaves <, <=, >, >= as TensorFlow's (no promotion)
        for n in ("__lt__", "__le__", "__gt__", "__ge__"):
            del ops[n]
    meths = dict(_methods())
    meths.update(_EXTRA_METHODS)
    _install(Tensor, {**ops, **meths})

    def delegate(fn):
        return lambda self, *a, **k: fn(self._as_tensor(), *a, **k)
    var = {n: delegate(f) for n, f in ops.items()}
    _install(Variable, var)


def disable():
    """Back to TensorFlow's default behaviour (for tests: TensorFlow itself has no way back)."""
    STATE["mode"] = None
    STATE["prefer_float32"] = False
    for cls, saved in _SAVED.items():
        for name, value in saved.items():
            if value is _MISSING:
                try:
                    delattr(cls, name)
                except AttributeError:
                    pass
            else:
                setattr(cls, name, value)
    _SAVED.clear()


def enabled():
    return STATE["mode"] is not None

