"""rivulet.jit: the compiled tier behind `tf.function(jit_compile=True)`, `tf.config.optimizer.set_jit(True)`
and Keras `model.compile(jit_compile=True)` (TensorFlow's XLA switches): the optimised graph runs in
onnxruntime. Needs the `jit` extra (pip install 'rivulet[jit]'); without it jit functions run on the NumPy
executor after a one-time warning saying what to install. See docs/JIT.md.

    rivulet.jit.configure(warmup_calls=0)  # compile on the first call
    rivulet.jit.tier_of(f)  # 'numpy', 'compiling', 'onnxruntime' or 'fallback' for each traced signature
"""
from ..core.tensor import EagerTensor
from .tier import SETTINGS, JitFunction


_KEEP = object()


def configure(warmup_calls=None, background=None, threads=_KEEP):
    """warmup_calls: NumPy-executor calls before compiling (default 2); background: compile fast functions
    in a thread while NumPy serves their calls (default False: in the caller); threads: onnxruntime intra-op
    threads (default None: chosen per graph). Returns the settings."""
    if warmup_calls is not None:
        if int(warmup_calls) < 0:
            raise ValueError(f"warmup_calls must be >= 0, got {warmup_calls}")
        SETTINGS["warmup_calls"] = int(warmup_calls)
    if background is not None:
        SETTINGS["background"] = bool(background)
    if threads is not _KEEP:
        if threads is not None and int(threads) < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        SETTINGS["threads"] = None if threads is None else int(threads)
    return dict(SETTINGS)


def wrap(compiled, name, graph, inputs, outputs, captures, n_args):
    """The jit form of a NumPy CompiledGraph: same calling convention, tiered (see tier.py)."""
    values = [c._v if isinstance(c, EagerTensor) else c for c in captures]  # as the compiled graph is fed them
    jf = JitFunction(compiled.fn, name, (graph, inputs, outputs, captures, n_args), values)
    compiled.fn = jf.fn
    return jf


def tier_of(function):
    """The tier of each traced signature of a tf.function (or of one ConcreteFunction)."""
    cfs = function._list_all_concrete_functions() if hasattr(function, "_list_all_concrete_functions") else [function]
    out = []
    for cf in cfs:
        jf = getattr(cf, "_jit_function", None)
        out.append(jf.tier if jf is not None else "numpy")
    return out
