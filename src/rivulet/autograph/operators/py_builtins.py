"""Builtins that mean something else for tensors in converted code: len(), range()."""
from ...core.tensor import SymbolicTensor, Tensor


def len_(s):
    if isinstance(s, SymbolicTensor):
        rank = s.shape.rank
        if rank == 0:
            raise ValueError("len requires a non-scalar tensor, got one of shape []")
        if rank is not None and s.shape[0] is not None:
            from ...ops.constant_op import constant
            return constant(s.shape[0])
        from ...ops.array_ops import shape
        return shape(s)[0]
    return len(s)


def range_(start_or_stop, stop=None, step=None):
    args = [a for a in (start_or_stop, stop, step) if a is not None]
    if any(isinstance(a, Tensor) for a in args):
        from ...ops.array_ops import range as tf_range
        if stop is None:
            return tf_range(start_or_stop)
        return tf_range(start_or_stop, stop, 1 if step is None else step)
    return range(*args)


OVERRIDES = {len: len_, range: range_}
