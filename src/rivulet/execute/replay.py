"""Replays a graph's operations through bind(): eagerly (so gradient tapes see each op) or into the graph
being built (inlining a ConcreteFunction into its caller)."""
from ..core import context
from ..core.dispatch import bind
from ..core.tensor import EagerTensor
from .plan import needed_ops


def replay(graph, inputs, outputs, values):
    env = {id(ph): v for ph, v in zip(inputs, values)}
    target = context.current_graph()
    for op in needed_ops(graph, outputs):
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise ValueError(f"Placeholder '{op.name}' is needed but was not given a value")
            continue
        if op.type == "Const":
            v = op.attrs["value"]
            env[id(op.outputs[0])] = EagerTensor(v) if target is None else target.constant(v, name=op.name)
            continue
        res = bind(op.opdef, [env[id(t)] for t in op.inputs], op.attrs, name=op.name)
        if op.opdef.num_outputs == 1:
            env[id(op.outputs[0])] = res
        else:
            for t, r in zip(op.outputs, res):
                env[id(t)] = r
    return [env[id(t)] for t in outputs]
