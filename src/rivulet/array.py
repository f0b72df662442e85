"""Array ops exposed at the top level (tf.reshape, tf.concat, tf.gather ...). TOPLEVEL lists them."""
from .ops.array_ops import (identity, reshape, zeros_like, ones_like, where, stack, unstack, transpose,  # noqa: F401
                            concat, split, squeeze, expand_dims, tile, broadcast_to, gather, gather_nd, fill,
                            zeros, ones, eye, range, shape, size, rank, one_hot, pad, slice, reverse, boolean_mask,
                            sequence_mask)
from .ops.constant_op import constant  # noqa: F401

newaxis = None

TOPLEVEL = ["identity", "reshape", "zeros_like", "ones_like", "where", "stack", "unstack", "constant", "transpose",
            "concat", "split", "squeeze", "expand_dims", "tile", "broadcast_to", "gather", "gather_nd", "fill",
            "zeros", "ones", "eye", "range", "shape", "size", "rank", "one_hot", "pad", "slice", "reverse",
            "boolean_mask", "sequence_mask", "newaxis"]
