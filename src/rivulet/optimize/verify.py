"""The graph checker run after every pass when `debug_verify` is on: structural invariants that every
pass must keep (inputs precede their consumers, tensors belong to the graph, shapes agree with the rules)."""


class GraphVerificationError(AssertionError):
    pass


def verify(graph, outputs=()):
    seen = set()
    for op in graph.get_operations():
        for t in op.inputs:
            if t.op.graph is not graph:
                raise GraphVerificationError(f"{op.name}: input {t.name} belongs to another graph")
            if t.op._id not in seen:
                raise GraphVerificationError(f"{op.name}: input {t.name} is not computed before it is used")
        for c in op.control_inputs:
            if c._id not in seen:
                raise GraphVerificationError(f"{op.name}: control input {c.name} does not precede it")
        if op.type not in ("Placeholder",):
            res = op.opdef.infer(*op.inputs, **op.attrs)
            res = [res] if isinstance(res, tuple) and len(res) == 2 and not isinstance(res[0], tuple) else res
            for t, (shape, dtype) in zip(op.outputs, res):
                if t.dtype is not dtype or not t.shape.is_compatible_with(shape):
                    raise GraphVerificationError(f"{op.name}: output {t.name} is {t.dtype.name}{t.shape} but "
                                                 f"its rule says {dtype.name}{shape}")
        seen.add(op._id)
    for t in outputs:
        if t.op.graph is not graph or t.op._id not in seen:
            raise GraphVerificationError(f"output {t.name} is not computed by the graph")
