"""Array ops exposed at the top level (tf.reshape, tf.stack ...). TOPLEVEL lists them."""
from .ops.array_ops import identity, reshape, zeros_like, ones_like, where, stack, unstack  # noqa: F401
from .ops.constant_op import constant  # noqa: F401

TOPLEVEL = ["identity", "reshape", "zeros_like", "ones_like", "where", "stack", "unstack", "constant"]
