"""tf.stop_gradient and tf.custom_gradient.

A custom gradient is an `IdentityN` op over (outputs of f, f's tensor arguments, variables f read) whose
`grad_fn` attr is the user's gradient function: tapes and tf.gradients differentiate it like any op,
so the gradient reaches the arguments and variables only through the user's function.
"""
import functools
import inspect

from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import convert_to_tensor
from ..ops._rules import same_shape, to_tensor
from .. import nest
from ..state.resource_ops import READ
from ..core import context

STOP_GRADIENT = defop("StopGradient", lambda x: x, same_shape, grad=lambda op, dy: (None,))


def stop_gradient(input, name=None):  # noqa: A002  (TensorFlow's name)
    """The input, as a constant for differentiation: no gradient flows through it."""
    return bind(STOP_GRADIENT, (to_tensor(input),), name=name or "StopGradient")


def _identity_n_infer(*inputs, n, grad_fn):
    return [(t.shape, t.dtype) for t in inputs[:n]]


def _identity_n_grad(op, *dys):
    n = op.attrs["n"]
    return (None,) * n + tuple(op.attrs["grad_fn"](*dys))


# Inputs past the first n (arguments, variables) only carry the gradient; their values are not used.
IDENTITY_N = defop("IdentityN", lambda *xs, n, grad_fn: tuple(xs[:n]), _identity_n_infer, grad=_identity_n_grad,
                   num_outputs=lambda attrs: attrs["n"])


class _VariableWatcher:
    """Sits on the tape stack while f runs, noting the variables it reads (in first-read order)."""

    def __init__(self):
        self.variables = {}

    def _record(self, op, inputs, attrs, outs, graph):
        if op is READ:
            self.variables.setdefault(id(inputs[0]), inputs[0])


def custom_gradient(f=None):
    """Decorator: `f(*args)` returns `(y, grad_fn)`; grad_fn(*dy) returns one gradient per argument, or
    with `variables=` (when f reads variables) a pair (argument gradients, variable gradients)."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call(f, args, kwargs)
    return decorated


def _call(f, args, kwargs):
    watcher = _VariableWatcher()
    context.push_tape(watcher)
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        context.pop_tape(watcher)
    flat_args = nest.flatten(args) + nest.flatten(kwargs)
    arg_ids = {id(a) for a in flat_args}
    variables = [v for v in watcher.variables.values() if id(v) not in arg_ids]
    if variables and not _takes_variables(grad_fn):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses "
                        f"variables: {variables}")
    flat_result = [convert_to_tensor(r) for r in nest.flatten(result)]
    inputs = [convert_to_tensor(a) for a in flat_args]
    n_args = len(inputs)

    def grads_for_inputs(*dys):
        dys = list(dys)
        if variables:
            arg_grads, var_grads = grad_fn(*dys, variables=variables)
            var_grads = list(var_grads)
            if len(var_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @tf.custom_gradient grad_fn.")
        else:
            arg_grads, var_grads = grad_fn(*dys), []
        arg_grads = nest.flatten(arg_grads)
        if len(arg_grads) != n_args:
            raise ValueError(f"custom_gradient function expected to return {n_args} gradients, but returned "
                             f"{len(arg_grads)} instead.")
        return arg_grads + var_grads

    outs = bind(IDENTITY_N, flat_result + inputs + variables, {"n": len(flat_result), "grad_fn": grads_for_inputs})
    return nest.pack_sequence_as(result, outs)


def _takes_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
