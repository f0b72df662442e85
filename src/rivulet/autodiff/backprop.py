"""Reverse mode over a list of ops that ran (a tape's records, or a graph's Operations), and tf.gradients.

Gradient functions are the ops' own (`opdef.grad(op, *dys)`), written with public op functions, so the
backward pass goes through bind(): eagerly it runs now (and outer tapes record it: higher-order
gradients), inside a graph it adds the gradient ops to the graph being built.
"""
import enum

from ..core import context
from ..core.tensor import Tensor, convert_to_tensor
from .. import nest


class UnconnectedGradients(enum.Enum):
    """What a gradient is when no path connects the source to the target: None, or zeros."""
    NONE = "none"
    ZERO = "zero"


def unconnected_mode(value):
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def backprop(ops, targets, seeds, sources, no_grad_message, stop=()):
    """The gradient of sum(targets * seeds) for each of `sources` (None where unconnected).

    `ops` are op records in the order they ran: anything with `.inputs`, `.outputs`, `.opdef` and `.attrs`.
    Tensors are matched by identity; `stop` tensors pass no gradient on (tf.gradients' stop_gradients).
    """
    # Forward: the ops that depend on a source. Nothing else can carry a gradient to one.
    stop = {id(t) for t in stop}
    reach = {id(s) for s in sources}
    active = []
    for op in ops:
        for t in op.inputs:
            if id(t) in reach:
                active.append(op)
                reach.update(id(o) for o in op.outputs if id(o) not in stop)
                break
    grads = {}
    for t, s in zip(targets, seeds):
        _accumulate(grads, t, s)
    # Backward, in reverse order of execution: every consumer of an output has already contributed.
    for op in reversed(active):
        outs = op.outputs
        dys = [grads.get(id(o)) for o in outs]
        if all(d is None for d in dys):
            continue
        fn = op.opdef.grad
        if fn is None:
            raise LookupError(no_grad_message(op))
        if len(outs) > 1 and not getattr(fn, "takes_none", False):
            # Gradient functions marked `takes_none` skip unused outputs themselves, as TensorFlow's skip
            # zero gradients; the others get zeros for them.
            dys = [_zeros_for(o) if d is None else d for o, d in zip(outs, dys)]
        in_grads = fn(op, *dys)
        for t, g in zip(op.inputs, in_grads):
            if g is not None and id(t) in reach:
                _accumulate(grads, t, g)
    return [grads.get(id(s)) for s in sources]


def _accumulate(grads, t, g):
    prev = grads.get(id(t))
    if prev is None:
        grads[id(t)] = g
    elif t.dtype._kind == "v":  # gradients of a TensorList: lists, summed item by item
        from ..ops.tensor_array_ops import add_lists
        grads[id(t)] = add_lists(prev, g)
    else:
        from ..ops.math_ops import add
        grads[id(t)] = add(prev, g)


def _zeros_for(t):
    """The gradient of an output nobody used: zeros (None for outputs no gradient can flow through)."""
    if not (t.dtype.is_floating or t.dtype.is_complex):
        return None
    from ..ops.array_ops import zeros_like
    return zeros_like(t)


def tape_no_grad_message(op):
    return f"gradient registry has no entry for: {op.type}"


def graph_no_grad_message(op):
    return (f"No gradient defined for operation'{op.name}' (op type: {op.type}). In general every operation "
            "must have an associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If "
            "you want to pretend this operation is a constant in your program, you may insert "
            "`tf.stop_gradient`. This can be useful to silence the error in cases where you know gradients are "
            "not needed, e.g. the forward pass of tf.custom_gradient. Please see more details in "
            "https://www.tensorflow.org/api_docs/python/tf/custom_gradient.")


def graph_gradients(graph, ys, xs, grad_ys=None, stop=()):
    """Symbolic gradients of `ys` (tensors of `graph`) with respect to `xs` (its tensors, e.g. its
    placeholders; a variable's resource placeholder collects the gradients of its reads).

    The gradient ops go into the graph being built now, which may be `graph` itself (tf.gradients) or
    another graph whose outer graph is `graph` (a function's backward graph captures forward values).
    Unconnected sources get None."""
    grad_ys = list(grad_ys) if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    from ..ops.array_ops import ones_like
    seeds = [ones_like(y) if g is None else convert_to_tensor(g) for y, g in zip(ys, grad_ys)]
    return backprop(graph.get_operations(), ys, seeds, xs, graph_no_grad_message, stop)


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """tf.gradients: symbolic partial derivatives of sum(ys) with respect to each of xs, in a graph."""
    g = context.current_graph()
    if g is None:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                           "instead.")
    mode = unconnected_mode(unconnected_gradients)
    ys = [convert_to_tensor(y) for y in nest.flatten(ys)]
    xs = nest.flatten(xs)
    grad_ys = None if grad_ys is None else nest.flatten(grad_ys)
    stop = [convert_to_tensor(t) for t in nest.flatten(stop_gradients)] if stop_gradients is not None else ()
    with g.name_scope(name or "gradients"):
        out = graph_gradients(g, ys, [_graph_source(g, x) for x in xs], grad_ys, stop)
        if mode is UnconnectedGradients.ZERO:
            from ..ops.array_ops import zeros_like
            out = [zeros_like(x) if d is None else d for x, d in zip(xs, out)]
    return out


def _graph_source(g, x):
    """A source as a tensor of graph `g`: a variable is its resource placeholder."""
    if getattr(x, "_is_resource", False):
        return g.capture(getattr(x, "_res", x))
    if not isinstance(x, Tensor):
        raise TypeError(f"Expected a Tensor or a Variable in xs, got {x!r}")
    return x
