"""Array ops exposed at the top level (tf.reshape, tf.concat, tf.gather ...). TOPLEVEL lists them."""
from .ops.array_ops import (identity, reshape, zeros_like, ones_like, where, stack, unstack, transpose,  # noqa: F401
                            concat, split, squeeze, expand_dims, tile, broadcast_to, gather, gather_nd, fill,
                            zeros, ones, eye, range, shape, size, rank, one_hot, pad, slice, reverse, boolean_mask,
                            sequence_mask, roll, repeat, linspace, meshgrid)
from .ops.constant_op import constant  # noqa: F401
from .ops.array_ops import broadcast_static_shape, broadcast_dynamic_shape  # noqa: F401
from .ops.slicing import strided_slice  # noqa: F401
from .ops.sort_segment_ops import (sort, argsort, unique, searchsorted, scatter_nd,  # noqa: F401
                                   tensor_scatter_nd_update, tensor_scatter_nd_add, tensor_scatter_nd_sub)
from .ops.scatter_unique_ops import tensor_scatter_nd_max, tensor_scatter_nd_min, unique_with_counts  # noqa: F401,E501
from .ops.image_ops import saturate_cast  # noqa: F401  (tf.saturate_cast)

newaxis = None

TOPLEVEL = ["identity", "reshape", "zeros_like", "ones_like", "where", "stack", "unstack", "constant", "transpose",
            "concat", "split", "squeeze", "expand_dims", "tile", "broadcast_to", "gather", "gather_nd", "fill",
            "zeros", "ones", "eye", "range", "shape", "size", "rank", "one_hot", "pad", "slice", "reverse",
            "boolean_mask", "sequence_mask", "newaxis", "sort", "argsort", "unique", "searchsorted", "scatter_nd",
            "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "roll", "repeat",
            "linspace", "meshgrid", "broadcast_static_shape", "broadcast_dynamic_shape", "strided_slice",
            "tensor_scatter_nd_max", "tensor_scatter_nd_min", "unique_with_counts", "saturate_cast"]

from .ops import composite as _composite  # noqa: E402
_composite.wrap_namespace(globals(), _composite.UNARY + _composite.LISTS + _composite.FIRST + _composite.ARRAY_MORE)  # composite tensors (RaggedTensor) dispatch through its table

from .ops.array_more_ops import (complex, ensure_shape, reverse_sequence, unravel_index,  # noqa: F401,E402,A004
                                 dynamic_partition, dynamic_stitch, histogram_fixed_width,
                                 histogram_fixed_width_bins, bitcast, fingerprint, timestamp, space_to_batch_nd,
                                 space_to_batch, batch_to_space, identity_n, shape_n, is_tensor, get_static_value,
                                 parallel_stack, tuple_ as tuple)
from .ops.string_ops import as_string  # noqa: F401,E402  (tf.as_string is tf.strings.as_string)
from .ops.indexed_slices import IndexedSlices  # noqa: F401,E402
TOPLEVEL += ["IndexedSlices", "complex", "ensure_shape", "reverse_sequence", "unravel_index", "dynamic_partition", "dynamic_stitch",
             "histogram_fixed_width", "histogram_fixed_width_bins", "bitcast", "fingerprint", "timestamp",
             "space_to_batch_nd", "space_to_batch", "batch_to_space", "identity_n", "shape_n", "is_tensor",
             "get_static_value", "parallel_stack", "tuple", "as_string"]
