"""The debug stripper (tf.config.optimizer option `debug_stripper`, off by default as in TensorFlow): graphs run
without their debugging ops. Assert and PrintV2 (tf.debugging.assert_*, tf.Assert, tf.print) do nothing and
CheckNumerics (tf.debugging.check_numerics) passes its input through: in a traced function's graph they are
dropped by the rewrite (with what only they needed, pruned after); in the bodies of tf.cond / tf.while_loop,
which are compiled as traced, their kernels are replaced (`body_kernels`)."""
from ..execute import options

_DROPPED = {"Assert", "PrintV2"}


def strip_debug_ops(ctx, op, ins):
    if op.type in _DROPPED:
        return []
    if op.type == "CheckNumerics":
        return [ins[0]]
    return None


def _nothing(*inputs, **attrs):
    return ()


def _pass_through(x, **attrs):
    return x


def body_kernels(graph, kernels=None):
    """`kernels` ({op: kernel} for compile_graph), with the body's debugging ops made no-ops when the option is on."""
    if not options.enabled("debug_stripper"):
        return kernels
    out = dict(kernels or {})
    for op in graph.get_operations():
        if op.type in _DROPPED:
            out[op] = _nothing
        elif op.type == "CheckNumerics":
            out[op] = _pass_through
    return out
