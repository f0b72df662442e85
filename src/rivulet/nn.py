"""tf.nn. `sigmoid` and `tanh` are the math ops (tf.math owns them); they resolve on first access."""
from .ops.nn_ops import (relu, relu6, leaky_relu, elu, selu, gelu, softplus, softsign, silu, swish,  # noqa: F401
                         softmax, log_softmax, softmax_cross_entropy_with_logits,
                         sparse_softmax_cross_entropy_with_logits, sigmoid_cross_entropy_with_logits, conv2d,
                         max_pool2d, avg_pool2d, bias_add, dropout, l2_loss, l2_normalize, moments,
                         batch_normalization)
from .ops.sort_segment_ops import top_k  # noqa: F401
from .ops.nn_ops import embedding_lookup  # noqa: F401
from .ops.math_ops import in_top_k  # noqa: F401
from .ops.math_more_ops import zero_fraction, approx_max_k, approx_min_k  # noqa: F401  (tf.math's too)
from .ops.nn_more_ops import (max_pool, avg_pool, pool, space_to_depth, depth_to_space,  # noqa: F401
                              local_response_normalization, lrn, crelu, weighted_cross_entropy_with_logits,
                              log_poisson_loss, normalize_moments, sufficient_statistics, weighted_moments)
from .ops.array_more_ops import space_to_batch  # noqa: F401,E402
from .ops.nn_more_ops import (conv3d, conv3d_transpose, conv1d_transpose, conv_transpose,  # noqa: F401,E402
                              atrous_conv2d,
                              atrous_conv2d_transpose, max_pool_with_argmax, embedding_lookup_sparse,
                              batch_norm_with_global_normalization, collapse_repeated, isotonic_regression,
                              dilation2d, erosion2d)

from .autodiff.api_extras import (depthwise_conv2d_backprop_input,  # noqa: F401,E402
                                  depthwise_conv2d_backprop_filter)
from .ops.ctc_ops import (ctc_loss, ctc_greedy_decoder, ctc_beam_search_decoder,  # noqa: F401,E402
                          ctc_unique_labels)


def safe_embedding_lookup_sparse(*args, **kwargs):
    """tf.nn.safe_embedding_lookup_sparse (tf.sparse loads on first use)."""
    from .sparse.more_ops import safe_embedding_lookup_sparse as _impl
    return _impl(*args, **kwargs)
from .ops import rnn_ops as _rnn_ops  # noqa: F401,E402  (Keras LSTM/GRU training steps: saved graphs hold them)
from .ops import training_ops as _training_ops  # noqa: F401,E402  (Keras Adam updates: saved graphs hold them)
from .ops.conv_ops import (conv1d, conv2d_transpose, depthwise_conv2d, separable_conv2d, max_pool1d,  # noqa: F401
                           avg_pool1d, max_pool3d, avg_pool3d)



def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """tf.nn.convolution: conv1d or conv2d by the filters' rank (N + 2 dimensions), strides and dilations 1 by
    default (optimization/compression's CustomConv2D calls it)."""
    from .ops._rules import to_tensor
    w = to_tensor(filters)
    n = (w.shape.rank or 0) - 2
    if n == 1:
        return conv1d(input, w, 1 if strides is None else strides, padding, data_format or "NWC",
                      dilations, name=name or "convolution")
    if n == 2:
        return conv2d(input, w, 1 if strides is None else strides, padding, data_format or "NHWC",
                      dilations, name=name or "convolution")
    raise ValueError(f"rivulet's tf.nn.convolution supports 1-D and 2-D convolutions (filters of rank 3 or 4); "
                     f"got filters of shape {w.shape}")


TOPLEVEL = []

from .ops import composite as _composite  # noqa: E402
_composite.wrap_namespace(globals(), _composite.NN_MORE)  # composite tensors (RaggedTensor) dispatch through its table


def __getattr__(name):
    if name in ("sigmoid", "tanh"):  # the same function objects as tf.math's (composites dispatch through them)
        from . import math as _math
        fn = getattr(_math, name, None)
        if fn is not None:
            globals()[name] = fn
            return fn
    if name in ("compute_average_loss", "scale_regularization_loss"):
        from .distribute import losses
        return getattr(losses, name)
    raise AttributeError(f"module 'rivulet.nn' has no attribute '{name}'")
