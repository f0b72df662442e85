"""The functions TensorFlow's ops are rebuilt with, taken from the ops and autodiff layers (the public facade is
for clients), under the names the converters call them by: `tf.reshape`, `tf.nn.conv2d`, `tf.strings.join` ..."""
import types

from ...autodiff.custom_gradient import stop_gradient  # noqa: F401
from ...core.tensor import Tensor  # noqa: F401
from ...ops import array_ops as _a, math_ops as _m, nn_ops as _n, random_ops as _r, string_ops as _s
from ...ops.constant_op import constant  # noqa: F401
from ...ops.linalg_ops import einsum  # noqa: F401
from ...ops.logging_ops import Assert
from ...ops.slicing import strided_slice  # noqa: F401

add_n, cast, clip_by_value, maximum, not_equal = _m.add_n, _m.cast, _m.clip_by_value, _m.maximum, _m.not_equal
reduce_all, reduce_any, reduce_max, reduce_mean = _m.reduce_all, _m.reduce_any, _m.reduce_max, _m.reduce_mean
reduce_min, reduce_prod, reduce_sum = _m.reduce_min, _m.reduce_prod, _m.reduce_sum
broadcast_to, concat, expand_dims, fill, gather = _a.broadcast_to, _a.concat, _a.expand_dims, _a.fill, _a.gather
gather_nd, identity, one_hot, pad, range = _a.gather_nd, _a.identity, _a.one_hot, _a.pad, _a.range  # noqa: A001
rank, reshape, shape, size, slice = _a.rank, _a.reshape, _a.shape, _a.size, _a.slice  # noqa: A001
split, squeeze, stack, tile, transpose = _a.split, _a.squeeze, _a.stack, _a.tile, _a.transpose
unstack, where, zeros, zeros_like = _a.unstack, _a.where, _a.zeros, _a.zeros_like

math = types.SimpleNamespace(argmax=_m.argmax, argmin=_m.argmin, cumsum=_m.cumsum)
linalg = types.SimpleNamespace(matmul=_m.matmul)
nn = types.SimpleNamespace(avg_pool2d=_n.avg_pool2d, batch_normalization=_n.batch_normalization,
                           bias_add=_n.bias_add, conv2d=_n.conv2d, leaky_relu=_n.leaky_relu,
                           log_softmax=_n.log_softmax, max_pool2d=_n.max_pool2d, moments=_n.moments,
                           softmax=_n.softmax)
random = types.SimpleNamespace(normal=_r.normal, uniform=_r.uniform)
strings = types.SimpleNamespace(join=_s.join, length=_s.length, lower=_s.lower, to_number=_s.to_number,
                                upper=_s.upper)
debugging = types.SimpleNamespace(Assert=Assert)
