"""Optimizer updates as one op per variable (TensorFlow's training_ops: ResourceApplyAdam and its family).

`_KerasAdamUpdate` is a Keras Adam step on one variable with tf_keras's arithmetic, the same IEEE operations in
the same order as the ops it replaces (m += (g - m) * (1 - b1); v += (g*g - v) * (1 - b2);
w -= m * alpha / (sqrt(v) + eps)), so its results are equal to theirs bit for bit. As ops those are eleven
passes over arrays of the variable's size, each through memory for a big variable (a 21632x128 Dense kernel:
~7 ms of a 15 ms training step); here they run over blocks of BLOCK elements that stay in cache, in place on
the variable's and slots' arrays where nothing else holds them (copy on write otherwise, as the
Assign*VariableOp kernels do), under the three variables' locks.
"""
import sys

import numpy as np

from ..core.dispatch import bind
from ..core.op import defop
from ..errors import InvalidArgumentError
from ..state.resource_ops import update_shape_error

BLOCK = 32768  # elements: six float32 blocks (g, m, v, w and two temporaries) take 768 KiB, cache-resident


def _own(var):
    """var's array, to be written in place: copied first when anything else holds it (an earlier read's value,
    a view), as the update kernels do. Refs: the variable, `a`, getrefcount's argument."""
    a = var._value
    if not (a.__class__ is np.ndarray and a.flags.owndata and a.flags.writeable and sys.getrefcount(a) == 3):
        a = var._value = np.array(a, copy=True)
    return a


def _adam_kernel(var, m, v, g, alpha, c1, c2, eps):
    for x in (var, m, v):
        if not (getattr(x, "_is_resource", False) and hasattr(x, "_lock") and hasattr(x, "_value")):
            raise InvalidArgumentError(f"_KerasAdamUpdate updates variables, got {type(x).__name__}")
    locks = sorted({id(x): x._lock for x in (var, m, v)}.items())  # one order: concurrent steps never deadlock
    for _, lock in locks:
        lock.acquire()
    try:
        for x in (var, m, v):
            if np.shape(x._value) != g.shape:
                raise InvalidArgumentError(update_shape_error(np.shape(x._value), g.shape))
            if x._value.dtype != g.dtype:
                raise InvalidArgumentError(f"_KerasAdamUpdate: {x._value.dtype} variable with a {g.dtype} gradient")
        w_, m_, v_ = (_own(x).reshape(-1) for x in (var, m, v))
        g = np.ascontiguousarray(g).reshape(-1)
        n = g.size
        k = min(n, BLOCK)
        a, b = np.empty(k, g.dtype), np.empty(k, g.dtype)
        for s in range(0, n, BLOCK):
            e = min(s + BLOCK, n)
            gb, mb, vb, wb, ta, tb = g[s:e], m_[s:e], v_[s:e], w_[s:e], a[:e - s], b[:e - s]
            np.subtract(gb, mb, out=ta)
            ta *= c1
            mb += ta
            np.square(gb, out=ta)
            ta -= vb
            ta *= c2
            vb += ta
            np.sqrt(vb, out=ta)
            ta += eps
            np.multiply(mb, alpha, out=tb)
            tb /= ta
            wb -= tb
    finally:
        for _, lock in reversed(locks):
            lock.release()
    return ()


def _adam_infer(var, m, v, g, alpha, c1, c2, eps):
    if not g.dtype.is_floating or any(t.dtype is not g.dtype for t in (alpha, c1, c2, eps)):
        raise TypeError(f"_KerasAdamUpdate takes a floating gradient and scalars of its dtype, got {g.dtype.name}")
    if any(t.shape.rank not in (None, 0) for t in (alpha, c1, c2, eps)):
        raise ValueError("_KerasAdamUpdate's alpha, 1 - beta_1, 1 - beta_2 and epsilon must be scalars")
    return []


KERAS_ADAM = defop("_KerasAdamUpdate", _adam_kernel, _adam_infer, num_outputs=0, stateful=True)


def keras_adam_update(var, m, v, grad, alpha, one_minus_b1, one_minus_b2, epsilon):
    """One Adam step on `var` (its slots m and v: variables of its shape and dtype); the scalars are tensors
    of the gradient's dtype (Python floats are converted as the unfused ops convert them)."""
    return bind(KERAS_ADAM, [var._res, m._res, v._res, grad, alpha, one_minus_b1, one_minus_b2, epsilon])
