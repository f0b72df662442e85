"""Dead-node removal on the finished ONNX graph: converters may emit outputs nobody reads (the backprop
output of a cross-entropy op, a constant only an unused node took)."""
from onnx import AttributeProto


def prune(graph):
    """Keeps the nodes graph.output needs, in sub-graphs too; returns every name the graph reads."""
    live = {o.name for o in graph.output}
    kept = []
    for node in reversed(graph.node):
        if not any(o in live for o in node.output):
            continue
        kept.append(node)
        live.update(node.input)
        for attr in node.attribute:
            if attr.type == AttributeProto.GRAPH:
                live.update(prune(attr.g))  # names a sub-graph reads from the enclosing scopes
    del graph.node[:]
    graph.node.extend(reversed(kept))
    return live
