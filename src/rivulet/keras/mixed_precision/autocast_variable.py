"""AutoCastVariable: a layer's float32 weight under a mixed policy, read in the layer's compute dtype.

Inside the `call` of a layer whose policy computes in another dtype (`enable_auto_cast_variables`), reading
the variable (converting it to a tensor, as every op does) gives it cast to that dtype, so `tf.matmul(x16,
kernel)` works on float16 inputs; elsewhere it reads as the float32 variable it is. `dtype` is always the
variable's own, as in tf_keras; gradients flow through the cast back to the float32 variable.
"""
import contextlib
import threading

import rivulet as tf
from rivulet.state.variables import ResourceVariable


class _State(threading.local):
    dtype = None


_STATE = _State()


@contextlib.contextmanager
def enable_auto_cast_variables(dtype):
    """AutoCastVariables read as `dtype` inside the block (None: as themselves)."""
    old = _STATE.dtype
    _STATE.dtype = tf.as_dtype(dtype) if dtype is not None else None
    try:
        yield
    finally:
        _STATE.dtype = old


class AutoCastVariable(ResourceVariable):
    """A float variable that reads as the active autocast dtype (see the module docstring)."""

    def _cast_dtype(self):
        return _STATE.dtype or self._dtype

    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        value = super()._as_tensor(dtype=None, name=name, as_ref=as_ref)
        cast = _STATE.dtype
        if cast is not None and cast is not self._dtype:
            return tf.cast(value, cast)
        return value

    @property
    def true_dtype(self):
        return self._dtype

    def __repr__(self):
        from rivulet.core.context import current_graph
        from rivulet.core.tensor import numpy_text
        head = (f"<AutoCastVariable '{self.name}' shape={self._shape} dtype={self._dtype.name} "
                f"dtype_to_cast_to={self._cast_dtype().name}")
        if current_graph() is not None:
            return head + ">"
        return f"{head}, numpy={numpy_text(self._value, True)}>"

    __str__ = __repr__


def create_autocast_variable(**kwargs):
    return AutoCastVariable(**kwargs)
