"""tf.keras.applications.imagenet_utils: preprocess_input and decode_predictions as tf_keras 2.21 has them.

decode_predictions reads ImageNet's class index (`imagenet_class_index.json`, fetched once with get_file
from TensorFlow's URL into the `models` cache) as JSON data; its shape is checked before use.
"""
import json
import logging

import numpy as np

import rivulet as tf

from .. import backend

CLASS_INDEX_PATH = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
_CLASS_INDEX = [None]


def preprocess_input(x, data_format=None, mode="caffe"):
    """Scales images for a model: mode 'tf' to [-1, 1], 'torch' to ImageNet's mean/std, 'caffe' to BGR
    minus ImageNet's mean. A float NumPy array is changed in place, as tf_keras does."""
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}"
                         .replace("{mode}", str(mode)))
    data_format = data_format or "channels_last"
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Expected data_format to be one of `channels_first` or `channels_last`. Received: "
                         f"data_format={data_format}")
    if isinstance(x, np.ndarray):
        if not issubclass(x.dtype.type, np.floating):
            x = x.astype(backend.floatx(), copy=False)
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _preprocess_numpy(x, data_format, mode):
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        x = x[::-1, ...] if data_format == "channels_first" and x.ndim == 3 else \
            x[:, ::-1, ...] if data_format == "channels_first" else x[..., ::-1]
        mean, std = [103.939, 116.779, 123.68], None
    axis = (0 if x.ndim == 3 else 1) if data_format == "channels_first" else -1
    for c in range(3):
        idx = [slice(None)] * x.ndim
        idx[axis] = c
        x[tuple(idx)] -= mean[c]
        if std is not None:
            x[tuple(idx)] /= std[c]
    return x


def _preprocess_tensor(x, data_format, mode):
    """A tensor, or a functional model's input (a KerasTensor: then each step is a TFOpLambda layer, as
    tf_keras's, whose transfer_learning summary lists tf.math.truediv and tf.math.subtract)."""
    from ..layers.input_layer import KerasTensor
    symbolic = isinstance(x, KerasTensor)
    if not symbolic:
        x = tf.convert_to_tensor(x)
        if not x.dtype.is_floating:
            x = tf.cast(x, backend.floatx())
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    else:
        axis = (0 if x.shape.rank == 3 else 1) if data_format == "channels_first" else -1
        if symbolic:  # (a slice, as tf_keras reverses a Keras tensor's channels)
            x = x[::-1, ...] if axis == 0 else x[:, ::-1, ...] if axis == 1 else x[..., ::-1]
        else:
            x = tf.reverse(x, [axis])
        mean, std = [103.939, 116.779, 123.68], None
    # (tf_keras adds -mean with tf.nn.bias_add; here a subtraction, the same values)
    shape = [3] + [1] * (2 if data_format == "channels_first" else 0)
    x = x - tf.reshape(tf.constant(mean, x.dtype), shape) if data_format == "channels_first" else \
        x - tf.constant(mean, x.dtype)
    if std is not None:
        x = x / (tf.reshape(tf.constant(std, x.dtype), shape) if data_format == "channels_first"
                 else tf.constant(std, x.dtype))
    return x


def _class_index():
    if _CLASS_INDEX[0] is None:
        from ..data_utils import get_file
        path = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                        file_hash="c2c37ea517e94d9795004a39431a14cb")
        with open(path, encoding="utf-8") as f:
            try:
                index = json.load(f)
            except ValueError as e:
                raise ValueError(f"{path} is not ImageNet's class index (JSON): {e}") from None
        if not isinstance(index, dict) or not all(
                isinstance(v, list) and len(v) == 2 and all(isinstance(s, str) for s in v) for v in index.values()):
            raise ValueError(f"{path} is not ImageNet's class index: expected {{\"0\": [wnid, name], ...}}")
        _CLASS_INDEX[0] = index
    return _CLASS_INDEX[0]


def decode_predictions(preds, top=5):
    """The `top` (class_name, class_description, score) tuples of each row of 1000 ImageNet scores."""
    preds = preds.numpy() if hasattr(preds, "numpy") else np.asarray(preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {preds.shape}")
    index = _class_index()
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        missing = [i for i in top_indices if str(i) not in index]
        if missing:
            raise ValueError(f"ImageNet's class index has no class {missing[0]}")
        result = [tuple(index[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda r: r[2], reverse=True)
        results.append(result)
    return results


def obtain_input_shape(input_shape, default_size, min_size, require_flatten, weights=None):
    """The (rows, cols, channels) input shape of an application model (channels_last), checked as tf_keras."""
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten and input_shape is not None:
        if tuple(input_shape) != default_shape:
            raise ValueError(f"When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                             f"should be {default_shape}.  Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        if input_shape is not None:
            if len(input_shape) != 3:
                raise ValueError("`input_shape` must be a tuple of three integers.")
            if input_shape[-1] != 3 and weights == "imagenet":
                raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
            if (input_shape[0] is not None and input_shape[0] < min_size) or \
                    (input_shape[1] is not None and input_shape[1] < min_size):
                raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                                 f"input_shape={input_shape}")
    else:
        input_shape = default_shape if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. Received: "
                         f"input_shape={input_shape}")
    return tuple(input_shape)


def sized_input_shape(input_shape, sizes, include_top, weights):
    """obtain_input_shape for a model with ImageNet weights for square inputs of `sizes` rows (MobileNet's and
    MobileNetV2's): the default size is a square input's own when it is one of them, else 224."""
    default_size = 224
    if input_shape is not None:
        rows, cols = input_shape[0], input_shape[1]
        default_size = rows if rows == cols and rows in sizes else 224
    return obtain_input_shape(input_shape, default_size=default_size, min_size=32, require_flatten=include_top,
                              weights=weights)


def weights_rows(rows, sizes):
    """The rows of the ImageNet weights loaded for an input of `rows` rows: its own when there are weights of
    that size (`sizes`), else 224, with tf_keras's warning."""
    if rows in sizes:
        return rows
    logging.getLogger("rivulet").warning(
        f"`input_shape` is undefined or non-square, or `rows` is not in {list(sizes)}. Weights for input shape "
        "(224, 224) will be loaded as the default.")
    return 224


def correct_pad(inputs, kernel_size):
    """The ZeroPadding2D padding that makes a stride-2 'valid' convolution of `kernel_size` centred."""
    size = tuple(inputs.shape.as_list()[1:3])
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation, weights):
    if weights is None:
        return
    from .. import activations
    if classifier_activation not in (None, "softmax") and \
            activations.get(classifier_activation) not in (activations.get("softmax"), activations.get(None)):
        raise ValueError("Only `None` and `softmax` activations are allowed for the `classifier_activation` "
                         "argument when using pretrained weights, with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")


def check_weights(weights, include_top, classes):
    import os
    if not (weights in ("imagenet", None) or (isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError("The `weights` argument should be either `None` (random initialization), `imagenet` "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.  Received: "
                         f"weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be '
                         f"1000.  Received classes={classes}")
