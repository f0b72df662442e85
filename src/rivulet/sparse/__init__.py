"""tf.sparse: SparseTensor and the ops on it."""
from .tensor import SparseTensor, SparseTensorSpec  # noqa: F401
from .ops import (to_dense, from_dense, reorder, retain, transpose, add, sparse_dense_matmul,  # noqa: F401
                  reduce_sum, reduce_max, concat, map_values, slice, expand_dims, reshape)

matmul = sparse_dense_matmul
