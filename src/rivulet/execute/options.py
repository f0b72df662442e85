"""Optimizer switches (tf.config.optimizer.set_experimental_options / get_experimental_options).

TensorFlow's Grappler names where they mean the same thing: constant_folding, arithmetic_optimization
(algebraic simplification), remapping (op fusion for the executor), disable_model_pruning, debug_stripper,
disable_meta_optimizer, min_graph_nodes. rivulet adds
common_subexpression_elimination, buffer_reuse, parallel_execution, blas_threads_per_graph (one OpenBLAS
thread where every GEMM is small: graphs, loop bodies, the While gradient, eager GEMMs; big ones tuned by
their calls' times: execute/blas_threads.py), retain_heap (glibc keeps freed memory for the next training
step: execute/memory.py) and debug_verify (check the graph after every pass). They live in execute/ because the executor reads them too and optimize/ sits above it.
"""
# TensorFlow's names, in the order its get_experimental_options lists them. Those rivulet has no pass for
# (layouts, shape arithmetic beyond constant folding, control dependencies, loops, function inlining, allocation,
# host pinning, implementation selection, GPU mixed precision) are accepted and reported, as TF reports them.
_TF_ORDER = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
             "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper",
             "disable_model_pruning", "scoped_allocator_optimization", "pin_to_host_optimization",
             "implementation_selector", "auto_mixed_precision", "disable_meta_optimizer", "min_graph_nodes")
_ALWAYS_REPORTED = ("disable_model_pruning", "disable_meta_optimizer")  # TF lists these even when unset
_DEFAULTS = {
    "layout_optimizer": True,
    "constant_folding": True,
    "shape_optimization": True,
    "remapping": True,
    "arithmetic_optimization": True,
    "dependency_optimization": True,
    "loop_optimization": True,
    "function_optimization": True,
    "debug_stripper": False,  # Assert, CheckNumerics and PrintV2 removed from graphs (optimize/strip.py)
    "disable_model_pruning": False,
    "scoped_allocator_optimization": False,
    "pin_to_host_optimization": False,
    "implementation_selector": True,
    "auto_mixed_precision": False,
    "disable_meta_optimizer": False,  # no pass at all runs on traced graphs
    "min_graph_nodes": 0,  # graphs with fewer ops than this (when > 0) are compiled as traced
    "common_subexpression_elimination": True,
    "buffer_reuse": True,
    "parallel_execution": True,
    "blas_threads_per_graph": True,
    "retain_heap": True,
    "debug_verify": False,
}
_options = dict(_DEFAULTS)
_set = set()  # the options set explicitly: TensorFlow reports those, whatever their value


def set_experimental_options(options):
    unknown = set(options) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"Unknown optimizer option(s): {sorted(unknown)}. Known: {sorted(_DEFAULTS)}")
    values = {}
    for k, v in options.items():
        if k == "min_graph_nodes":
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Optimizer option 'min_graph_nodes' must be an int, got {v!r}")
            values[k] = v
        elif isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
            values[k] = bool(v)
        else:
            raise TypeError(f"Optimizer option {k!r} must be a bool, got {v!r}")
    _options.update(values)
    _set.update(values)


def get_experimental_options():
    """As TensorFlow: the options set explicitly (TF's in its order, then rivulet's own), plus
    disable_model_pruning and disable_meta_optimizer always; min_graph_nodes when not 0."""
    out = {}
    for k in _TF_ORDER:
        if k in _ALWAYS_REPORTED or (k in _set and (k != "min_graph_nodes" or _options[k] != 0)):
            out[k] = _options[k]
    out.update((k, _options[k]) for k in _DEFAULTS if k not in _TF_ORDER and k in _set)
    return out


def enabled(name):
    return _options[name]


def reset():
    _options.clear()
    _options.update(_DEFAULTS)
    _set.clear()
