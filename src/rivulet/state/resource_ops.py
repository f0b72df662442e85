"""ReadVariableOp and the Assign*VariableOp family.

The resource input is the Variable object itself: eagerly it reaches the kernel as is, in a graph through
the placeholder `Graph.capture(variable)` makes, which is fed the variable on every call. Assigns
replace the variable's array, and updates write into it only when nothing else holds it, so values read
earlier keep theirs; both hold the variable's lock, so concurrent updates of one variable are atomic (as
TensorFlow's resource variables). Reads are stateful too, so automatic control dependencies keep them in
order with the writes around them.
"""
import sys

import numpy as np

from ..core.op import defop
from ..errors import InvalidArgumentError


def _read_kernel(var, dtype, shape):
    return var._value


def _read_infer(handle, dtype, shape):
    return shape, dtype


# The gradient of a read flows to the resource input: a tape or tf.gradients asked for a variable
# collects it there (summed over all reads of that variable).
READ = defop("ReadVariableOp", _read_kernel, _read_infer, grad=lambda op, dy: (dy,), stateful=True)
# A read replayed for a gradient with the value the forward run read (a while loop's VJP per iteration):
# the recorded value, and the read's gradient flowing to the resource as above.
REPLAYED_READ = defop("_ReplayedRead", lambda var, value: value, lambda handle, value: (value.shape, value.dtype),
                      grad=lambda op, dy: (dy, None))


def update_shape_error(var_shape, value_shape):
    return (f"Cannot update variable with shape {_dims(var_shape)} using a Tensor with shape "
            f"{_dims(value_shape)}, shapes must be equal.")


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _assign_kernel(var, value, dtype):
    # A copy: inside a compiled graph `value` may be a temporary whose buffer a later op reuses.
    value = value.copy() if isinstance(value, np.ndarray) else value
    with var._lock:
        var._value = value
    return ()


def _update_kernel(fn):
    def kernel(var, value, dtype):
        with var._lock:  # read-modify-write under the variable's lock: concurrent updates all land
            old = var._value
            if np.shape(old) != np.shape(value):
                raise InvalidArgumentError(update_shape_error(np.shape(old), np.shape(value)))
            # Copy on write, as TensorFlow's kernels do: update in place only when nothing else holds the
            # array (refs: the variable, `old`, getrefcount's argument; a view or an earlier read adds one).
            if (old.__class__ is np.ndarray and old.flags.owndata and old.flags.writeable
                    and value.__class__ is np.ndarray and value.dtype == old.dtype
                    and sys.getrefcount(old) == 3 and value is not old):
                fn(old, value, out=old)
            else:
                var._value = fn(old, value)
        return ()
    return kernel


def _no_outputs(handle, value, dtype):
    return []


ASSIGN = defop("AssignVariableOp", _assign_kernel, _no_outputs, num_outputs=0, stateful=True)
ASSIGN_ADD = defop("AssignAddVariableOp", _update_kernel(np.add), _no_outputs, num_outputs=0, stateful=True)
ASSIGN_SUB = defop("AssignSubVariableOp", _update_kernel(np.subtract), _no_outputs, num_outputs=0,
                   stateful=True)
