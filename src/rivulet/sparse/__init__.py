"""tf.sparse: SparseTensor and the ops on it."""
from .tensor import SparseTensor, SparseTensorSpec  # noqa: F401
from .ops import (to_dense, from_dense, reorder, retain, transpose, add, sparse_dense_matmul,  # noqa: F401
                  reduce_sum, reduce_max, concat, map_values, slice, expand_dims, reshape)
from .more_ops import (segment_sum, segment_mean, segment_sqrt_n, eye, reset_shape, to_indicator,  # noqa: F401
                       fill_empty_rows, softmax, maximum, minimum, split, bincount, cross, cross_hashed,
                       sampled_addmm, mask)

matmul = sparse_dense_matmul
