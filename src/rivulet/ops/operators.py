"""Python operators on tf.Tensor (and on anything that mixes them in, like tf.Variable).

Each operator first tries the eager fast path (both operands eager tensors of one dtype, no graph being
built, no tape recording): one NumPy call and one object. Everything else goes through the op functions.
"""
import numpy as np

from ..core import context
from ..core.tensor import EagerTensor, Tensor
from ..errors import InvalidArgumentError
from ..state.variables import Variable
from . import math_ops as m
from ._rules import scalar_as

_SLOW = context.SLOW
_QUIET = context.shared_quiet
_E = EagerTensor
_FAST_KINDS = frozenset("fiuc")


_PY_SCALARS = frozenset([float, int, bool, str, bytes])


def _operand(other, like):
    """A Python scalar beside a tensor, as TensorFlow's operators convert it: to the tensor's dtype, a TypeError
    where it cannot be (int_tensor * 2.5: 'Cannot convert 2.5 to EagerTensor of dtype int32'; tf.multiply
    converts it alone and names the dtype mismatch instead)."""
    return scalar_as(other, like.dtype) if other.__class__ in _PY_SCALARS else other


def _fast_binary(np_fn, slow_fn, name):
    # (TensorFlow's x + y converts y alone, as tf.add does: int_tensor + 2.5 is its dtype-mismatch error)
    convert = _operand if name != "add" else (lambda other, like: other)

    def op(self, other):
        if not _SLOW[0] and other.__class__ is _E and self.__class__ is _E:
            a = self._v
            b = other._v
            if a.dtype is b.dtype and a.dtype.kind in _FAST_KINDS:
                try:
                    return _E(_QUIET(np_fn, a, b))  # no RuntimeWarning for inf - inf, as in TF
                except Exception:
                    pass  # let the op path raise TensorFlow's error
        return slow_fn(self, convert(other, self), name=name)

    def rop(self, other):
        return slow_fn(_operand(other, self), self, name=name)
    return op, rop


def _compare(slow_fn, name, np_fn):
    def op(self, other):
        if not _SLOW[0] and other.__class__ is _E and self.__class__ is _E:
            a = self._v
            b = other._v
            if a.dtype is b.dtype and a.dtype.kind in _FAST_KINDS and a.shape == b.shape:
                return _E(np_fn(a, b))
        return slow_fn(self, _operand(other, self), name=name)
    return op


def _eq(self, other):
    if other is None:
        return False
    other = _operand(other, self)  # a Python scalar of another kind: TypeError, as TensorFlow's ==
    try:  # (a value that does not convert raises, as TensorFlow's ==: only None compares unequal without it)
        return m.equal(self, other)
    except InvalidArgumentError as e:  # TensorFlow's == is False (a tensor) for shapes that cannot broadcast
        if "Incompatible shapes" not in e.message:
            raise
        return EagerTensor(np.bool_(False))


def _ne(self, other):
    if other is None:
        return True
    other = _operand(other, self)
    try:
        return m.not_equal(self, other)
    except InvalidArgumentError as e:
        if "Incompatible shapes" not in e.message:
            raise
        return EagerTensor(np.bool_(True))


def _invert(self):
    if self.dtype.is_bool:
        return m.logical_not(self)
    from . import bitwise_ops
    return bitwise_ops.invert(self)


def _and(self, other):
    if self.dtype.is_bool:
        return m.logical_and(self, other)
    from . import bitwise_ops
    return bitwise_ops.bitwise_and(self, other)


def _or(self, other):
    if self.dtype.is_bool:
        return m.logical_or(self, other)
    from . import bitwise_ops
    return bitwise_ops.bitwise_or(self, other)


def _xor(self, other):
    if self.dtype.is_bool:
        return m.logical_xor(self, other)
    from . import bitwise_ops
    return bitwise_ops.bitwise_xor(self, other)


def _matmul(a, b, name=None):
    return m.matmul(a, b, name=name)


def _abs(self):
    return m.abs(self)


def _getitem(self, key):
    from . import slicing
    return slicing.getitem(self, key)


def install(cls):
    """Attaches the operators to `cls` (tf.Tensor, tf.Variable)."""
    for name, np_fn, fn, opname in [("add", np.add, m.add, "add"), ("sub", np.subtract, m.subtract, "sub"),
                                    ("mul", np.multiply, m.multiply, "mul"),
                                    ("truediv", None, m.truediv, "truediv"),
                                    ("floordiv", None, m.floordiv, "floordiv"), ("mod", None, m.floormod, "mod"),
                                    ("pow", None, m.pow, "pow"), ("matmul", None, _matmul, "matmul")]:
        if np_fn is not None:
            op, rop = _fast_binary(np_fn, fn, opname)
        elif name in ("floordiv", "mod", "pow"):
            def op(self, other, _fn=fn, _n=opname):
                return _fn(self, _operand(other, self), name=_n)

            def rop(self, other, _fn=fn, _n=opname):
                return _fn(_operand(other, self), self, name=_n)
        else:  # truediv and matmul keep their own conversions (TensorFlow's truediv: "must have the same dtype")
            def op(self, other, _fn=fn, _n=opname):
                return _fn(self, other, name=_n)

            def rop(self, other, _fn=fn, _n=opname):
                return _fn(other, self, name=_n)
        setattr(cls, f"__{name}__", op)
        setattr(cls, f"__r{name}__", rop)
    cls.__lt__ = _compare(m.less, "Less", np.less)
    cls.__le__ = _compare(m.less_equal, "LessEqual", np.less_equal)
    cls.__gt__ = _compare(m.greater, "Greater", np.greater)
    cls.__ge__ = _compare(m.greater_equal, "GreaterEqual", np.greater_equal)
    cls.__eq__ = _eq
    cls.__ne__ = _ne
    cls.__neg__ = lambda self: m.negative(self)
    cls.__pos__ = lambda self: self
    cls.__abs__ = _abs
    cls.__invert__ = _invert
    cls.__and__ = _and
    cls.__rand__ = lambda self, other: _and(m.binary_args(other, self)[0], self)
    cls.__or__ = _or
    cls.__ror__ = lambda self, other: _or(m.binary_args(other, self)[0], self)
    cls.__xor__ = _xor
    cls.__rxor__ = lambda self, other: _xor(m.binary_args(other, self)[0], self)
    cls.__getitem__ = _getitem


install(Tensor)


def _install_on_variables():
    """Variables take the tensor operators, applied to their value: converting `self` first gives TensorFlow's
    dtype rule for reflected operators (`1 + v` is float32 for a float32 v) and the eager fast path."""
    class Probe:
        pass
    install(Probe)  # learns which operators tf.Tensor has

    def delegate(fn):
        return lambda self, *args: fn(self._as_tensor(), *args)
    for name in vars(Probe):
        if name.startswith("__") and name not in ("__module__", "__qualname__", "__dict__", "__weakref__",
                                                  "__doc__", "__hash__"):
            setattr(Variable, name, delegate(getattr(Tensor, name)))


_install_on_variables()
