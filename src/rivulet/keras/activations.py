"""tf.keras.activations: elementwise functions, and `get` turning a name into one."""
import rivulet as tf


def linear(x):
    return x


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    if alpha == 0.0 and max_value is None and threshold == 0.0:
        return tf.nn.relu(x)
    if alpha == 0.0 and max_value == 6 and threshold == 0.0:  # tf_keras: one Relu6 (MobileNetV2's ReLU(6.))
        return tf.nn.relu6(x)
    y = tf.where(x > threshold, x, alpha * (x - threshold) if alpha else tf.zeros_like(x))
    if max_value is not None:
        y = tf.minimum(y, tf.cast(max_value, y.dtype))
    return y


def relu6(x):
    return tf.nn.relu6(x)


def leaky_relu(x, alpha=0.2):
    return tf.nn.leaky_relu(x, alpha=alpha)


def elu(x, alpha=1.0):
    y = tf.nn.elu(x)
    return y if alpha == 1.0 else tf.where(x > 0, y, alpha * y)


def selu(x):
    return tf.nn.selu(x)


def gelu(x, approximate=False):
    return tf.nn.gelu(x, approximate=approximate)


def sigmoid(x):
    return tf.math.sigmoid(x)


def hard_sigmoid(x):
    return tf.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def tanh(x):
    return tf.math.tanh(x)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def swish(x):
    return x * tf.math.sigmoid(x)


silu = swish


def exponential(x):
    return tf.math.exp(x)


def softmax(x, axis=-1):
    if x.shape.rank is not None and x.shape.rank <= 1:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return tf.nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return tf.nn.log_softmax(x, axis=axis)


_BY_NAME = {f.__name__: f for f in (linear, relu, relu6, leaky_relu, elu, selu, gelu, sigmoid, hard_sigmoid, tanh,
                                    softplus, softsign, swish, exponential, softmax, log_softmax)}
_BY_NAME["silu"] = swish


def serialize(activation):
    return getattr(activation, "__name__", type(activation).__name__)


def deserialize(name, custom_objects=None):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"Unknown activation function: {name}. Please ensure this object is passed to the "
                         f"`custom_objects` argument.") from None


def get(identifier):
    """None -> linear; a name -> that function; a callable stays itself."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier!r}")
