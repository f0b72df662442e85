"""tf.image.total_variation and tf.image.sobel_edges, composed of ops that have gradients (style_transfer
regularises its image with total_variation and shows sobel_edges)."""
import numpy as np

from . import array_ops as _a
from . import math_ops as _m
from ._rules import to_tensor
from .constant_op import constant


def total_variation(images, name=None):
    """Sum of absolute differences of vertically and horizontally neighbouring pixels: one value per image
    of a 4-D batch, a scalar for a 3-D image."""
    images = to_tensor(images)
    rank = images.shape.rank
    if rank == 3:
        dh = images[1:, :, :] - images[:-1, :, :]
        dw = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    elif rank == 4:
        dh = images[:, 1:, :, :] - images[:, :-1, :, :]
        dw = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    else:
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return _m.add(_m.reduce_sum(_m.abs(dh), axis=axis), _m.reduce_sum(_m.abs(dw), axis=axis), name=name)


# the two Sobel filters (vertical gradient dy, then horizontal dx), taps as [row][col]
_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], np.float32)


def sobel_edges(image):
    """[batch, h, w, d] -> [batch, h, w, d, 2]: each channel's Sobel responses (dy, dx) over the image padded
    by reflection."""
    from .conv_ops import depthwise_conv2d
    image = to_tensor(image)
    if not image.dtype.is_floating:
        raise TypeError(f"sobel_edges takes a floating-point image, got {image.dtype.name}")
    channels = image.shape[-1]
    if channels is None:
        raise ValueError("sobel_edges needs the image's number of channels (its last dimension) known")
    taps = np.transpose(_SOBEL, (1, 2, 0))[:, :, None, :]  # [3, 3, 1, 2]
    kernel = constant(np.tile(taps, (1, 1, channels, 1)).astype(image.dtype.as_numpy_dtype))
    padded = _a.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, kernel, strides=[1, 1, 1, 1], padding="VALID")
    return _a.reshape(out, _a.concat([_a.shape(image), [2]], 0))
