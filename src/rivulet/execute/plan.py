"""Which operations a run needs: outputs and every stateful op, with their transitive inputs (non-strict
execution: everything else is pruned). Creation order is already topological."""


def needed_ops(graph, outputs, keep_stateful=True):
    want = set()
    stack = [t.op for t in outputs]
    if keep_stateful:
        stack.extend(graph.control_outputs)
    while stack:
        op = stack.pop()
        if op._id in want:
            continue
        want.add(op._id)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return [op for op in graph._ops if op._id in want]
