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
    if any((t.shape.num_elements() or 0) > _MAX_ELEMENTS for t in op.outputs):
        return None  # known too big before computing it (a hostile saved model's Fill of 2**40 elements)
    try:
        with np.errstate(all="ignore"):
            out = opdef.kernel(*vals, **op.attrs)
    except (OpError, ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError, OverflowError,
            MemoryError):
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


# Inputs whose values an op never reads, only their static shape and dtype (gradient plumbing mostly):
# with those shapes fully known and every other input constant, the op folds to a constant.
SHAPE_ONLY = {"Shape": (0,), "Size": (0,), "Rank": (0,), "ZerosLike": (0,), "OnesLike": (0,),
              "ReducedCount": (0, 1), "BroadcastLike": (1,), "SumToShapeOf": (1,), "ReshapeLike": (1,),
              "ExpandReduced": (1,)}


def _fold_shape(ctx, op, ins):
    only = SHAPE_ONLY.get(op.type)
    if only is None:
        return None
    vals = []
    for i, t in enumerate(ins):
        if i in only:
            if not t.shape.is_fully_defined() or t.dtype._np is None:
                return None
            # A stand-in with the right shape and dtype and no memory behind it.
            vals.append(np.broadcast_to(np.zeros((), t.dtype._np), t.shape.as_list()))
        else:
            v = ctx.const_value(t)
            if v is None:
                return None
            vals.append(v)
    try:
        out = op.opdef.kernel(*vals, **op.attrs)
    except (OpError, ValueError, TypeError, IndexError):
        return None
    out = np.array(out, dtype=op.outputs[0].dtype._np)  # own the memory (never a view of a stand-in)
    if out.size > _MAX_ELEMENTS:
        return None
    return [ctx.constant(out if out.ndim else out[()], op.name)]
