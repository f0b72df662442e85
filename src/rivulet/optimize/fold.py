"""Constant folding: an op whose inputs are all known constants is computed once, at optimisation time.

Captured eager tensors count as constants (a ConcreteFunction captures them by value). Stateful ops are
never folded. A kernel that fails is left in place, so the error (if that op ever runs) happens at run
time as it would without folding.
"""
import numpy as np

from ..errors import OpError

_MAX_ELEMENTS = 1 << 20  # do not materialise huge constants
_NEVER = {"Placeholder", "Const", "Identity"}


def fold_constants(ctx, op, ins):
    opdef = op.opdef
    if opdef.stateful or op.type in _NEVER:
        return None
    vals = []
    for t in ins:
        v = ctx.const_value(t)
        if v is None:
            return _fold_shape(ctx, op, ins)
        vals.append(v)
    try:
        with np.errstate(all="ignore"):
            out = opdef.kernel(*vals, **op.attrs)
    except (OpError, ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError, OverflowError):
        return None
    outs = [out] if len(op.outputs) == 1 else list(out)
    if any(np.size(o) > _MAX_ELEMENTS for o in outs):
        return None
    res = []
    for i, (o, t) in enumerate(zip(outs, op.outputs)):
        if not hasattr(o, "dtype"):
            o = np.array(o, dtype=object)
        if o.dtype != (t.dtype._np if t.dtype._np is not None else np.dtype(object)):
            return None  # a kernel that does not honour its rule's dtype: leave it to run
        res.append(ctx.constant(o, f"{op.name}" if i == 0 else f"{op.name}_{i}"))
    return res


def _fold_shape(ctx, op, ins):
    """Ops answered by static shapes alone: Shape, Size, Rank of fully defined inputs."""
    if op.type in ("Shape", "Size", "Rank") and ins[0].shape.is_fully_defined():
        t = op.outputs[0]
        dims = ins[0].shape.as_list()
        v = {"Shape": dims, "Size": int(np.prod(dims)) if dims else 1, "Rank": len(dims)}[op.type]
        return [ctx.constant(np.asarray(v, dtype=t.dtype._np), op.name)]
    return None
