"""Optimizer switches (tf.config.optimizer.set_experimental_options / get_experimental_options).

TensorFlow's Grappler names where they mean the same thing: constant_folding, arithmetic_optimization
(algebraic simplification), remapping (op fusion for the executor), disable_model_pruning. rivulet adds
common_subexpression_elimination, buffer_reuse, parallel_execution, blas_threads_per_graph (one OpenBLAS
thread where every GEMM is small: graphs, loop bodies, the While gradient, eager GEMMs; big ones tuned by
their calls' times: execute/blas_threads.py), retain_heap (glibc keeps freed memory for the next training
step: execute/memory.py) and debug_verify (check the graph after every pass). They live in execute/ because the executor reads them too and optimize/ sits above it.
"""
_DEFAULTS = {
    "constant_folding": True,
    "arithmetic_optimization": True,
    "common_subexpression_elimination": True,
    "remapping": True,
    "buffer_reuse": True,
    "parallel_execution": True,
    "blas_threads_per_graph": True,
    "retain_heap": True,
    "disable_model_pruning": False,
    "debug_verify": False,
}
_options = dict(_DEFAULTS)


def set_experimental_options(options):
    unknown = set(options) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"Unknown optimizer option(s): {sorted(unknown)}. Known: {sorted(_DEFAULTS)}")
    for k, v in options.items():
        if not isinstance(v, bool):
            raise TypeError(f"Optimizer option {k!r} must be a bool, got {v!r}")
    _options.update(options)


def get_experimental_options():
    """The options that differ from the defaults, like TensorFlow (which returns only those set)."""
    return {k: v for k, v in _options.items() if v != _DEFAULTS[k]}


def enabled(name):
    return _options[name]


def reset():
    _options.clear()
    _options.update(_DEFAULTS)
