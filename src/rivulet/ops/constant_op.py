"""tf.constant (the Const and Placeholder node kinds live in graph/node_kinds.py)."""
import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, Tensor, to_numpy_value
from ..core import context
from ..shape import TensorShape


def constant(value, dtype=None, shape=None, name="Const"):
    """tf.constant: a tensor from a Python or NumPy value (optionally cast and reshaped/broadcast)."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if isinstance(value, Tensor):
        if isinstance(value, EagerTensor):
            if dtype is not None and value.dtype != dtype:  # TensorFlow casts no tensor here (tf.cast does)
                raise TypeError(f"Expected tensor {value._v} with dtype {dtype!r}, but got dtype {value.dtype!r}.")
            value = value._v
        else:
            from .math_ops import cast
            return value if dtype is None else cast(value, dtype)
    v = to_numpy_value(value, dtype) if dtype is None or not isinstance(value, (np.ndarray, np.generic)) \
        else np.asarray(value).astype(dtype._np if dtype._np is not None else object)
    if shape is not None:
        ts = TensorShape(shape)
        if not ts.is_fully_defined():  # None dims, or -1 (which TensorShape reads as unknown)
            raise ValueError(f"tf.constant needs a fully defined `shape` of dimensions >= 0, got {shape!r}")
        shape = tuple(ts.as_list())
        a = np.asarray(v)
        if a.size == int(np.prod(shape)):
            v = a.reshape(shape)
        elif a.size == 1:
            v = np.broadcast_to(a.reshape(()), shape).copy()
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} (converted "
                            f"from {value!r}) has {a.size} elements, but got `shape` {shape} with "
                            f"{int(np.prod(shape))} elements).")
        if v.ndim == 0 and v.dtype != object:  # (a string scalar stays a 0-d object array, as elsewhere)
            v = v[()]
    g = context.current_graph()
    if g is not None:
        return g.constant(v, name=name)
    t = EagerTensor(v)
    if context.state.device is not None:
        from ..devices import place
        place([t], context.state.device)
    return t
