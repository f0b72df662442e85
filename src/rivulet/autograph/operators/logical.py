"""and_/or_/not_: Python's operators for Python values; logical ops (lazily, as conds) for tensors."""
from ...core.tensor import SymbolicTensor, Tensor


def and_(a, b):
    a_val = a()
    if isinstance(a_val, SymbolicTensor):
        from ...function.control_flow import cond
        return cond(a_val, b, lambda: a_val)
    return a_val and b()


def or_(a, b):
    a_val = a()
    if isinstance(a_val, SymbolicTensor):
        from ...function.control_flow import cond
        return cond(a_val, lambda: a_val, b)
    return a_val or b()


def not_(a):
    if isinstance(a, Tensor):
        from ...ops.math_ops import logical_not
        return logical_not(a)
    return not a
