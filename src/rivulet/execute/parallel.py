"""Inter-op parallelism: independent heavy ops of one dependency level run together on a thread pool.

NumPy releases the GIL inside ufuncs and reductions on large arrays, which are otherwise single-threaded;
BLAS ops (matmul, conv) already use every core, so they are not worth spreading (on a 2-core machine
two parallel matmuls just share the cores). The schedule is decided at compile time from static shapes:
graphs without two heavy independent ops compile to the plain sequential code.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ..core.context import run_quiet

# Ops whose kernels are BLAS-backed (multi-threaded inside) or cheap views: never worth a thread hop.
_BLAS = {"MatMul", "BatchMatMulV2", "_FusedMatMul", "_MatrixPowerMatMul", "Conv2D", "_FusedConv2D", "Conv2DBackpropInput",
         "Conv2DBackpropFilter", "Einsum"}
HEAVY_ELEMENTS = 1 << 17  # below this a thread hand-off (tens of microseconds) costs more than it saves
_pool = None


_LIGHT = _BLAS | {"Placeholder", "Const", "Identity", "ReadVariableOp"}


def _heavy(op):
    if len(op.outputs) != 1 or op.type in _LIGHT or op.opdef.stateful or op.opdef.is_view:
        return False
    for t in (op.outputs[0], *op.inputs):  # big output (elementwise) or big input (reductions)
        dims = t._shape._dims  # (called for every op while compiling: no TensorShape method calls)
        if dims:
            n = 1
            for d in dims:
                if d is None:
                    break
                n *= d
            else:
                if n >= HEAVY_ELEMENTS:
                    return True
    return False


def schedule(ops):
    """Returns (ops in emission order, {id of a group's first op: [ops run together]}). Levels are
    longest-path depths, so ops of one level never depend on each other."""
    if sum(1 for op in ops if _heavy(op)) < 2:
        return ops, {}
    level = {}
    for op in ops:
        deps = [t.op._id for t in op.inputs] + [c._id for c in op.control_inputs]
        level[op._id] = 1 + max((level.get(d, 0) for d in deps), default=0)
    by_level = {}
    for op in ops:
        by_level.setdefault(level[op._id], []).append(op)
    groups = {}
    for members in by_level.values():
        heavy = [op for op in members if _heavy(op)]
        if len(heavy) >= 2:
            groups[heavy[0]._id] = heavy
    if not groups:
        return ops, {}
    order = [op for lv in sorted(by_level) for op in by_level[lv]]
    return order, groups


_FREE = {"Placeholder", "Const"}  # shared by several branches at no cost


def components(graph, outputs):
    """Groups output indices into independent branches: outputs whose cones share no op (inputs and
    constants aside). Returns the groups when at least two of them carry heavy work, else None. Graphs
    with stateful ops keep one program order, so they are never split."""
    from .plan import needed_ops
    if graph.control_outputs or len(outputs) < 2:
        return None
    owner, parent = {}, list(range(len(outputs)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    heavy = [False] * len(outputs)
    for i, t in enumerate(outputs):
        for op in needed_ops(graph, [t], keep_stateful=False):
            if op.type in _FREE:
                continue
            heavy[i] = heavy[i] or _heavy(op)
            j = owner.setdefault(op._id, i)
            if j != i:
                parent[find(i)] = find(j)
    groups = {}
    for i in range(len(outputs)):
        groups.setdefault(find(i), []).append(i)
    groups = list(groups.values())
    if sum(any(heavy[i] for i in g) for g in groups) < 2:
        return None
    return groups


def run_together(*calls):
    """Runs (kernel, args, kwargs) calls concurrently: all but the first on the pool, the first here.
    Called from a pool thread (a branch that itself has parallel levels) it runs them in turn: waiting
    on the pool from inside it could leave every worker waiting on work that no worker is free to run."""
    global _pool
    if threading.current_thread().name.startswith("rivulet"):
        return tuple(fn(*a, **k) for fn, a, k in calls)
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2), thread_name_prefix="rivulet")
    # pool threads enter their own quiet context: compiled code calls bare kernels (see core/context.py)
    futures = [_pool.submit(run_quiet, fn, *a, **k) for fn, a, k in calls[1:]]
    first = calls[0][0](*calls[0][1], **calls[0][2])
    return (first, *[f.result() for f in futures])
