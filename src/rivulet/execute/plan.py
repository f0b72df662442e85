"""Which operations a run needs: outputs and every stateful op, with their transitive inputs (non-strict
execution: everything else is pruned). Creation order is already topological."""


def needed_ops(graph, outputs, keep_stateful=True):
    want = set()
    stack = [t._op for t in outputs]
    if keep_stateful:
        stack.extend(graph.control_outputs)
    push = stack.append
    while stack:  # runs for every op of every graph compiled: slots, not properties
        op = stack.pop()
        i = op._id
        if i in want:
            continue
        want.add(i)
        for t in op._inputs:
            push(t._op)
        if op.control_inputs:
            stack.extend(op.control_inputs)
    return [op for op in graph._ops if op._id in want]
