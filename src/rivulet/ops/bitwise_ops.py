"""Bitwise ops on integers (tf.bitwise); `~ & | ^` on integer tensors come here (ops/operators.py)."""
import numpy as np

from ..core.dispatch import bind
from ..core.op import INTS, defop
from ._rules import binary, binary_args, same_shape, to_tensor


def _shift(fn):
    # TensorFlow clamps the shift to [0, bits - 1] instead of leaving it undefined.
    def k(x, y):
        return fn(x, np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(x.dtype, copy=False))
    return k


# Bitwise ops are not differentiable (no gradient function, like TensorFlow's NotDifferentiable).
INVERT = defop("Invert", np.invert, same_shape, allowed=INTS)
BITWISE_AND = defop("BitwiseAnd", np.bitwise_and, binary, same=2, allowed=INTS)
BITWISE_OR = defop("BitwiseOr", np.bitwise_or, binary, same=2, allowed=INTS)
BITWISE_XOR = defop("BitwiseXor", np.bitwise_xor, binary, same=2, allowed=INTS)
LEFT_SHIFT = defop("LeftShift", _shift(np.left_shift), binary, same=2, allowed=INTS)
RIGHT_SHIFT = defop("RightShift", _shift(np.right_shift), binary, same=2, allowed=INTS)


def invert(x, name=None):
    return bind(INVERT, (to_tensor(x),), name=name or "Invert")


def _binary_fn(op, doc):
    def f(x, y, name=None):
        x, y = binary_args(x, y)
        return bind(op, (x, y), name=name or op.name)
    f.__name__ = f.__qualname__ = doc
    return f


bitwise_and = _binary_fn(BITWISE_AND, "bitwise_and")
bitwise_or = _binary_fn(BITWISE_OR, "bitwise_or")
bitwise_xor = _binary_fn(BITWISE_XOR, "bitwise_xor")
left_shift = _binary_fn(LEFT_SHIFT, "left_shift")
right_shift = _binary_fn(RIGHT_SHIFT, "right_shift")
