"""The optimisation pipeline run on a traced graph before it is compiled.

For now: pruning happens in the planner (needed_ops). The passes (constant folding, CSE, arithmetic
simplification, fusion) plug in here and return (graph, outputs) for the compiler.
"""


def optimize_for_run(graph, outputs):
    return graph, list(outputs)
