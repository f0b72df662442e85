"""Core layers: Dense, Flatten, Dropout, Activation, ReLU, Softmax, Reshape, Embedding, Lambda."""
import math

import numpy as np

import rivulet as tf

from .. import activations, initializers, regularizers
from .base import InputSpec, Layer


def _positive_int(v, what):
    """A positive int argument (integral floats such as 2.0 are accepted, as Keras 2 did)."""
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) or \
        isinstance(v, (float, np.floating)) and float(v).is_integer()
    if not ok or v <= 0:
        raise ValueError(f"Received an invalid value for `{what}`, expected a positive integer. Received: "
                         f"{what}={v!r}")
    return int(v)


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias): eagerly exactly MatMul, BiasAdd and the activation."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = _positive_int(units, "units")
        self.activation = activations.get(activation)
        # `linear` is skipped outright: no extra op, eager or traced.
        self._act = None if self.activation is activations.linear else self.activation
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = tf.TensorShape(input_shape)
        if input_shape.rank is not None and input_shape.rank < 2:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: "
                             f"{self.input_spec.incompatibility(input_shape)}")
        last = input_shape[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {tf.TensorShape(input_shape)}")
        self.kernel = self.add_weight("kernel", [last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.built = True

    def call(self, inputs):
        if isinstance(inputs, tf.SparseTensor):  # Input(sparse=True): a sparse-dense matmul, as tf_keras
            out = tf.sparse.sparse_dense_matmul(_sparse_as(inputs, self._dtype), self.kernel)
            return self._bias_and_activation(out)
        if inputs.dtype is not self._dtype:
            inputs = tf.cast(inputs, self._dtype)  # integer inputs too, as Keras's Dense does
        rank = inputs.shape.rank  # (tf_keras reads the shape: a composite input, an ExtensionType, has one)
        if rank == 2 or rank is None:
            out = tf.matmul(inputs, self.kernel)
        else:
            out = tf.tensordot(inputs, self.kernel, [[inputs.ndim - 1], [0]])
        return self._bias_and_activation(out)

    def _bias_and_activation(self, out):
        if self.bias is not None:
            out = tf.nn.bias_add(out, self.bias)
        if self._act is not None:
            out = self._act(out)
        return out

    def get_config(self):
        return {**super().get_config(), "units": self.units, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias}


def _sparse_as(st, dtype):
    if st.dtype is dtype:
        return st
    return tf.SparseTensor(st.indices, tf.cast(st.values, dtype), st.dense_shape)


class Flatten(Layer):
    """[batch, d1, d2 ...] -> [batch, d1 * d2 * ...]."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        shape = inputs.shape
        if shape.rank == 2:
            return inputs
        if shape.rank == 1:
            return tf.expand_dims(inputs, 1)
        if self.data_format == "channels_first" and shape.rank > 2:
            inputs = tf.transpose(inputs, [0] + list(range(2, shape.rank)) + [1])
        rest = shape[1:]
        if rest.is_fully_defined():
            return tf.reshape(inputs, [-1, math.prod(rest.as_list())])
        return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]))


class Dropout(Layer):
    """Zeroes a fraction `rate` of inputs and scales the rest by 1/(1-rate), in training only."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and "
                             f"1. Received: rate={rate}")
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True  # a mask passes through (Dropout is never on the plain fast path)

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return tf.nn.dropout(inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return tf.nn.softmax(inputs, axis=self.axis)


class Reshape(Layer):
    """Reshapes everything but the batch dimension to `target_shape` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def _check_size(self, shape):
        """A ValueError when the known input size cannot fill `target_shape`."""
        rest = shape[1:]
        if shape.rank is None or not rest.is_fully_defined():
            return
        size, target = math.prod(rest.as_list()), self.target_shape
        unknown = [i for i, d in enumerate(target) if d == -1]
        known = math.prod(d for d in target if d != -1)
        if len(unknown) > 1:
            raise ValueError(f"There must be at most one unknown dimension in output_shape. Received: "
                             f"output_shape={target}.")
        if (not unknown and size != known) or (unknown and (known == 0 or size % known)):
            raise ValueError(f"The total size of the tensor must be unchanged. Received: "
                             f"input_shape={tuple(rest.as_list())}, target_shape={target}")

    def call(self, inputs):
        self._check_size(inputs.shape)
        batch = inputs.shape[0]
        if batch is None:
            batch = tf.shape(inputs)[0]
            return tf.reshape(inputs, tf.stack([batch] + list(self.target_shape)))
        return tf.reshape(inputs, (batch,) + self.target_shape)


class Embedding(Layer):
    """Integer ids -> rows of a trainable [input_dim, output_dim] table."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            # as tf_keras: (None,) without input_length, so a Sequential starting with it is built at once
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        super().__init__(**kwargs)
        self.input_dim = _positive_int(input_dim, "input_dim")
        self.output_dim = _positive_int(output_dim, "output_dim")
        self.embeddings_initializer = initializers.get(
            "random_uniform" if embeddings_initializer == "uniform" else embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.mask_zero, self.input_length = mask_zero, input_length
        self._autocast = False  # ids stay integers

    def build(self, input_shape):
        # (not autocast under a mixed policy: the looked-up rows are cast instead, as tf_keras does, which is
        # the same values without casting the whole table)
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim],
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer, experimental_autocast=False)
        self.built = True

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = tf.cast(inputs, tf.int32)
        out = tf.gather(self.embeddings, inputs)
        return out if out.dtype is self._dtype or not out.dtype.is_floating else tf.cast(out, self._dtype)

    def compute_mask(self, inputs, mask=None):
        return tf.not_equal(inputs, 0) if self.mask_zero else None


_LAMBDA_REFUSED = (
    "Requested the deserialization of a Lambda layer with a Python `lambda` inside it. This carries a potential "
    "risk of arbitrary code execution and thus it is disallowed by default. If you trust the source of the saved "
    "model, you can pass `safe_mode=False` to the loading function in order to allow Lambda layer loading. "
    "(rivulet never runs code read from a file, with safe_mode=False neither: rebuild this layer in Python, "
    "or give its function a name and pass it in `custom_objects`.)")


class Lambda(Layer):
    """Wraps a function of tensors as a layer.

    Its config is tf_keras's: a named function by name (`function_type` 'function'; loading finds it in
    custom_objects or the registry), a lambda as tf_keras writes it (`function_type` 'lambda': its marshalled
    bytecode, defaults and closure), so saving works as in tf_keras. Loading a 'lambda' config is refused
    with tf_keras's safe-mode error: the bytecode is never loaded.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, arguments or {}
        self._output_shape, self.mask = output_shape, mask

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

    def get_config(self):
        from ..saving.serialization import serialize_keras_object
        fn = self.function
        if getattr(fn, "__name__", None) == "<lambda>" or getattr(fn, "__closure__", None):
            function, function_type = _func_dump(fn), "lambda"
        else:
            function, function_type = serialize_keras_object(fn), "function"
        from ..mixed_precision.policy import serialize
        config = {"name": self.name, "trainable": self.trainable, "dtype": serialize(self.dtype_policy)}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        config.update({"function": function, "function_type": function_type,
                       "module": getattr(fn, "__module__", None),
                       "output_shape": serialize_keras_object(self._output_shape), "output_shape_type": "raw",
                       "output_shape_module": None, "arguments": serialize_keras_object(self.arguments)})
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ..saving.serialization import deserialize_keras_object
        config = dict(config)
        function_type = config.pop("function_type", "function")
        for key in ("module", "output_shape_type", "output_shape_module"):
            config.pop(key, None)
        if function_type == "lambda" or config.get("output_shape_type") == "lambda":
            raise ValueError(_LAMBDA_REFUSED)
        if function_type != "function":
            raise ValueError(f"Unknown function type for the Lambda layer '{config.get('name')}': "
                             f"{function_type!r} (expected 'function' or 'lambda')")
        name = config.get("function")
        function = deserialize_keras_object(name, custom_objects) if isinstance(name, (str, dict)) else None
        if not callable(function):
            raise ValueError(f"Unknown function in the Lambda layer '{config.get('name')}': {name!r}. Please "
                             "ensure it is passed in `custom_objects` or registered with "
                             "keras.saving.register_keras_serializable.")
        config["function"] = function
        config["arguments"] = deserialize_keras_object(config.get("arguments") or {}, custom_objects)
        return cls(**config)


def _func_dump(fn):
    """tf_keras's func_dump: [base64 of the marshalled code, defaults, closure values] (written, never read)."""
    import base64
    import marshal
    from ..saving.serialization import serialize_keras_object
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(serialize_keras_object(c.cell_contents) for c in fn.__closure__) if fn.__closure__ else None
    return [code, serialize_keras_object(fn.__defaults__), serialize_keras_object(closure)]
