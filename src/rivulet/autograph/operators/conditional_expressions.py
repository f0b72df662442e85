"""`a if c else b`: a tf.cond when c is a graph tensor."""
from ...core.tensor import SymbolicTensor


def if_exp(cond, if_true, if_false, expr_repr):
    if isinstance(cond, SymbolicTensor):
        from ...function.control_flow import cond as tf_cond
        return tf_cond(cond, if_true, if_false)
    return if_true() if cond else if_false()
