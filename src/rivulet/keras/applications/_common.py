"""What the applications share: the image input (or the caller's input_tensor, the model then taking that
tensor's own source Inputs, as tf_keras's get_source_inputs), the classifier top or the pooling, and the
ImageNet weights fetched with get_file (tf_keras's URL and file name, and md5 hash when given) into the
`models` cache."""
from .. import layers
from ..layers.input_layer import KerasTensor
from ..models import Model
from . import imagenet_utils


def image_input(input_tensor, input_shape):
    """The model's image tensor: a new Input of input_shape, or input_tensor (a Keras tensor)."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if not isinstance(input_tensor, KerasTensor):
        raise ValueError("`input_tensor` should be a Keras tensor (the output of `tf.keras.Input` or of a layer). "
                         f"Received: input_tensor={input_tensor!r}")
    return input_tensor


def source_inputs(tensor):
    """The Input tensors `tensor` was computed from (itself when it is one), in first-reached order."""
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.node is None or type(t.node.layer).__name__ == "InputLayer":
            found.append(t)
        else:
            stack.extend(reversed(list(t.node.keras_inputs())))
    return found[0] if len(found) == 1 else found


def top(x, classes, classifier_activation, weights, pool_name=None):
    """The classifier: global average pooling, then Dense `predictions`."""
    x = layers.GlobalAveragePooling2D(name=pool_name)(x)
    imagenet_utils.validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)


def pooled(x, pooling, avg_name=None, max_name=None):
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def model(input_tensor, img_input, x, name):
    return Model(img_input if input_tensor is None else source_inputs(input_tensor), x, name=name)


def load_weights(model, weights, url, file_hash):
    """weights='imagenet': the file at url (get_file into the `models` cache, checked against file_hash);
    a path: that file; None: nothing. Returns the model."""
    if weights == "imagenet":
        from ..data_utils import get_file
        model.load_weights(get_file(url.rsplit("/", 1)[1], url, cache_subdir="models", file_hash=file_hash))
    elif weights is not None:
        model.load_weights(weights)
    return model
