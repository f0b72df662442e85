"""Replays a graph's operations through bind(): eagerly (so gradient tapes see each op) or into the graph
being built (inlining a ConcreteFunction into its caller)."""
from ..core import context
from ..core.dispatch import bind
from ..core.tensor import EagerTensor
from ..state.resource_ops import REPLAYED_READ
from .plan import needed_ops


def replay(graph, inputs, outputs, values, env=None, keep_stateful=None, reads=None):
    """The values of `outputs` (tensors of `graph`) given `values` for the placeholders `inputs`. `env`
    (id of a graph tensor -> its value here) holds values already known; it is filled in as ops run.
    Stateful ops run too (as in a call) unless `keep_stateful` is False; by default only when no `env`
    was given: computing a forgotten value from a replay's `env` must not run its side effects again.
    `reads` (id of a ReadVariableOp's output -> the value a forward run read) replays those reads with
    the recorded values, their gradients still flowing to the variables."""
    if keep_stateful is None:
        keep_stateful = env is None
    env = {} if env is None else env
    env.update((id(ph), v) for ph, v in zip(inputs, values))
    target = context.current_graph()
    for op in needed_ops(graph, outputs, keep_stateful=keep_stateful):
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise ValueError(f"Placeholder '{op.name}' is needed but was not given a value")
            continue
        if op.outputs:
            if all(id(t) in env for t in op.outputs):
                continue
        elif not keep_stateful:  # an assign or another side effect: only a replay that runs them runs it
            continue
        if op.type == "Const":
            v = op.attrs["value"]
            env[id(op.outputs[0])] = EagerTensor(v) if target is None else target.constant(v, name=op.name)
            continue
        if reads is not None and op.type == "ReadVariableOp" and id(op.outputs[0]) in reads:
            env[id(op.outputs[0])] = bind(REPLAYED_READ, [env[id(op.inputs[0])], EagerTensor(reads[id(op.outputs[0])])])
            continue
        attrs = op.attrs
        if "grad_fn" in attrs:  # tf.custom_gradient: its gradient function speaks of this graph's tensors
            attrs = dict(attrs, grad_fn=_ReplayedGradient(graph, op, env))
        res = bind(op.opdef, [env[id(t)] for t in op.inputs], attrs, name=op.name)
        if op.opdef.num_outputs == 1:
            env[id(op.outputs[0])] = res
        else:
            for t, r in zip(op.outputs, res):
                env[id(t)] = r
    return [env[id(t)] for t in outputs]


class _ReplayedGradient:
    """A custom gradient function traced into `graph`, run on replayed values.

    The user's gradient function closes over the traced graph's tensors, so it cannot run on the replayed
    (eager, or another graph's) values directly. It is traced once into a backward graph nested in
    `graph` (dys as placeholders, the forward tensors it uses as captures), and that graph is replayed
    with the forward values this replay computed: the same numbers, and outer tapes record every step."""

    def __init__(self, graph, op, env):
        self._graph, self._op, self._env = graph, op, env

    def __call__(self, *dys):
        op, env = self._op, self._env
        cache = self._graph.__dict__.setdefault("_replayed_backward", {})  # op id -> traced backward
        bwd = cache.get(op._id)
        if bwd is None:
            bwd = cache[op._id] = _trace_backward(self._graph, op)
        g, dy_phs, grads = bwd
        values = []
        for v, ph in g.captures:
            if getattr(v, "_op", None) is not None and v._op.graph is self._graph:
                if id(v) not in env:  # used only by the gradient: computed from the forward values now
                    replay(self._graph, [], [v], [], env)
                values.append(env[id(v)])
            else:
                values.append(v)  # an eager tensor or a variable, as captured
        wanted = [t for t in grads if t is not None]
        out = iter(replay(g, dy_phs + g.internal_captures, wanted, list(dys) + values))
        return [None if t is None else next(out) for t in grads]


def _trace_backward(graph, op):
    from ..graph.graph import Graph
    g = Graph(name=graph.name + "_custom_gradient", outer_graph=graph)
    with g.as_default():
        dy_phs = [g.placeholder(t.dtype, t.shape, name="dy") for t in op.outputs]
        grads = [None if r is None else g._internal(_as_tensor(r)) for r in op.attrs["grad_fn"](*dy_phs)]
    return g, dy_phs, grads


def _as_tensor(r):
    from ..core.tensor import Tensor, convert_to_tensor
    return r if isinstance(r, Tensor) else convert_to_tensor(r)


# Public for saved models, which save a custom gradient as the graph this traces (saved_model/custom_gradients.py).
trace_backward = _trace_backward
