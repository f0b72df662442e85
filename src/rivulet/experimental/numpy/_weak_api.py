"""The "all"/"safe" promotion modes outside tnp: TensorFlow's WeakTensor-supporting APIs (tf.add, tf.math.abs,
tf.reshape ...; the list of TensorFlow's type promotion guide) promote their operands by the lattice and give weak
results for weak inputs; `tf.constant` of a Python value is weak, `tf.constant(tensor, dtype)` converts; variables'
assign/assign_add/assign_sub convert a value the lattice allows. Installed over the public namespaces while the
mode is on (code that bound the functions earlier, and rivulet's own internals, keep the plain ops)."""
import numpy as np

from ... import dtypes as _dt
from ...core.tensor import EagerTensor, Tensor
from ...ops import np_behavior as _nb

_UNARY = {
    "math": ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "conj", "cos", "cosh", "digamma",
             "erf", "erfc", "erfcinv", "erfinv", "exp", "expm1", "floor", "imag", "lgamma", "log1p", "log_sigmoid",
             "log", "ndtri", "negative", "real", "reciprocal_no_nan", "reciprocal", "reduce_euclidean_norm",
             "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std",
             "reduce_sum", "reduce_variance", "rint", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
             "softplus", "sqrt", "square", "tan", "tanh", "angle"],
    "nn": ["elu", "gelu", "leaky_relu", "log_softmax", "relu6", "relu", "selu", "softsign", "swish",
           "depth_to_space", "space_to_depth"],
    "linalg": ["diag", "diag_part", "matrix_transpose", "tensor_diag_part", "trace"],
    "": ["abs", "identity", "ones_like", "reshape", "squeeze", "stop_gradient", "transpose", "zeros_like",
         "expand_dims", "clip_by_value", "negative", "exp", "sqrt", "square", "sin", "cos", "tan", "tanh", "sign",
         "round", "sigmoid", "floor", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
         "reduce_logsumexp"],
    "bitwise": ["invert"],
}
_BINARY = {
    "math": ["add", "subtract", "multiply", "divide", "divide_no_nan", "floordiv", "floormod", "multiply_no_nan",
             "pow", "truediv", "scalar_mul"],
    "linalg": ["matmul"],
    "": ["add", "subtract", "multiply", "divide", "floordiv", "floormod", "pow", "truediv", "realdiv",
         "truncatediv", "truncatemod", "matmul"],
}
_SAVED = []


def _convert(x):
    """(tensor-or-value, weak) of a unary op's input."""
    if isinstance(x, Tensor):
        return _nb.strong(x), _nb.is_weak(x)
    r = _nb._python_dtype(x)
    if r is not None:
        return _nb.to_dtype(x, r[0]), r[1]
    return x, False


def _plain(v):
    """Values the lattice reads (tensors, variables, NumPy and Python values); composite tensors (ragged,
    sparse) go to the op unchanged."""
    return isinstance(v, (Tensor, np.ndarray, np.generic, bool, int, float, complex, list, tuple)) or \
        hasattr(v, "_as_tensor")


def _unary(fn, python_weak=True):
    def f(x, *args, **kwargs):
        if not _plain(x):
            return fn(x, *args, **kwargs)
        t, w = _convert(x) if python_weak or isinstance(x, Tensor) else (x, False)
        out = fn(t, *args, **kwargs)
        return _nb.weak(out) if w and isinstance(out, EagerTensor) else out
    f.__name__ = getattr(fn, "__name__", "f")
    f.__wrapped__ = fn
    return f


def _binary(fn):
    def f(x, y, *args, **kwargs):
        if not (_plain(x) and _plain(y)):
            return fn(x, y, *args, **kwargs)
        (a, b), w = _nb.promote(x, y)
        out = fn(a, b, *args, **kwargs)
        return _nb.weak(out) if w and isinstance(out, EagerTensor) else out
    f.__name__ = getattr(fn, "__name__", "f")
    f.__wrapped__ = fn
    return f


def _constant(fn):
    def constant(value, dtype=None, shape=None, name="Const"):
        if dtype is not None and isinstance(value, Tensor) and value.dtype is not _dt.as_dtype(dtype):
            return fn(_nb.to_dtype(value, _dt.as_dtype(dtype)), shape=shape, name=name)
        out = fn(_nb.strong(value) if isinstance(value, Tensor) else value, dtype=dtype, shape=shape, name=name)
        if dtype is None and isinstance(out, EagerTensor) and (
                _nb.is_weak(value) or (not isinstance(value, (Tensor, np.ndarray, np.generic)) and
                                       _nb._python_dtype(value) is not None and _nb._python_dtype(value)[1])):
            return _nb.weak(out)
        return out
    constant.__wrapped__ = fn
    return constant


def _assign(fn, what):
    def f(self, value, use_locking=None, name=None, read_value=True):
        dt, w = _nb.infer(value)
        if dt is not self.dtype:
            res = _nb.lattice_type((self.dtype, False), (dt, w))[0]  # SAFE mode's refusal first
            if res is not self.dtype:
                v = f"{value!r}" if not isinstance(value, Tensor) else f"{value.numpy()!r}"
                if isinstance(value, Tensor):
                    v = str(value.numpy())
                desc = f"{v} weakly typed" if w else v
                raise TypeError(f"Variable dtype is immutable. Calling {what} of Variable (with dtype "
                                f"{self.dtype}) on {desc} requires converting {desc} to {self.dtype}. This is "
                                f"disabled in the current promotion semantics. Please convert {desc} manually "
                                f"before calling {what}.")
            value = _nb.to_dtype(value, self.dtype)
        return fn(self, value, use_locking=use_locking, name=name, read_value=read_value)
    f.__wrapped__ = fn
    return f


def _namespaces():
    import rivulet
    return {"": rivulet, "math": rivulet.math, "nn": rivulet.nn, "linalg": rivulet.linalg,
            "bitwise": rivulet.bitwise}


def set_mode(mode):
    if mode in ("all", "safe"):
        if _SAVED:
            return
        spaces = _namespaces()
        for table, make in ((_UNARY, _unary), (_BINARY, _binary)):
            for ns, names in table.items():
                mod = spaces[ns]
                for n in names:
                    fn = mod.__dict__.get(n)
                    if fn is None or hasattr(fn, "__wrapped__") and getattr(fn, "_np_weak", False):
                        continue
                    w = make(fn) if ns != "nn" else _unary(fn, python_weak=False)
                    w._np_weak = True
                    _SAVED.append((mod, n, fn))
                    setattr(mod, n, w)
        for mod in (spaces[""],):
            fn = mod.__dict__["constant"]
            _SAVED.append((mod, "constant", fn))
            mod.constant = _constant(fn)
        from ...state.variables import Variable
        for what in ("assign", "assign_add", "assign_sub"):
            fn = Variable.__dict__.get(what)
            if fn is not None:
                _SAVED.append((Variable, what, fn))
                setattr(Variable, what, _assign(fn, what))
    else:
        while _SAVED:
            obj, n, fn = _SAVED.pop()
            setattr(obj, n, fn)
