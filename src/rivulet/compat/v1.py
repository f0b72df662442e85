"""tf.compat.v1: of TensorFlow 1's API, the names rivulet gives with TensorFlow 1's meaning in eager mode -
data, dtypes, Keras, math, strings, linalg, constant, logging, the eager switches and seeds. The rest of
TensorFlow 1 (graph mode: Session, placeholder, get_variable, variable_scope; v1 optimizers, losses, layers,
summaries, estimators) raises AttributeError saying so, never a TF2 function with another meaning under a v1 name."""
import logging as _logging

import rivulet as _tf

# The names whose TF1 meaning (in eager mode) is the TF2 function's: forwarded to rivulet
_SAME = {"data", "dtypes", "as_dtype", "DType", "keras", "math", "strings", "linalg", "bitwise", "Tensor",
         "TensorShape", "TensorSpec", "executing_eagerly", "convert_to_tensor", "identity", "cast", "shape", "size",
         "rank", "reshape", "transpose", "concat", "stack", "unstack", "expand_dims", "squeeze", "tile", "gather",
         "zeros", "ones", "zeros_like", "ones_like", "fill", "range", "add", "subtract", "multiply",
         "divide", "matmul", "abs", "exp", "sqrt", "square", "maximum", "minimum", "equal", "not_equal", "less",
         "greater", "logical_and", "logical_or", "logical_not", "function", "GradientTape", "get_logger",
         "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
         "uint32", "uint64", "bool", "string", "complex64", "complex128", "newaxis", "errors", "nest", "io",
         "sparse", "ragged", "RaggedTensor", "SparseTensor", "py_function", "numpy_function", "print",
         "control_dependencies", "name_scope", "device", "saved_model", "lite", "config", "compat", "version",
         "VERSION", "__version__", "one_hot", "clip_by_value", "split", "slice", "pad",
         "einsum", "tensordot", "sign", "round", "floor", "ceil", "log", "sin", "cos", "tanh", "sigmoid"}


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """TF1's constant: as TF2's, and with verify_shape=True a value whose shape is not `shape` is an error."""
    if verify_shape and shape is not None:
        got = _tf.constant(value, dtype=dtype).shape
        if got != _tf.TensorShape(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {tuple(got.as_list())}.")
    return _tf.constant(value, dtype=dtype, shape=shape, name=name)


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Eager execution is always on (TF2's behaviour)."""


def enable_v2_behavior():
    """TF2's behaviour is rivulet's: nothing to switch."""


def _graph_mode(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"tf.compat.v1.{name}: rivulet runs TensorFlow 2 programs (eager execution and "
                                  "tf.function); TensorFlow 1's graph mode with Sessions is not provided")
    refuse.__name__ = name
    return refuse


def enable_tensor_equality():
    """Tensors compare elementwise with == (TF2's behaviour, always on here)."""


disable_eager_execution = _graph_mode("disable_eager_execution")
disable_tensor_equality = _graph_mode("disable_tensor_equality")
disable_v2_behavior = _graph_mode("disable_v2_behavior")


def set_random_seed(seed):
    """TF1's name for tf.random.set_seed."""
    _tf.random.set_seed(seed)


class logging:  # noqa: N801 - tf.compat.v1.logging, a namespace as TensorFlow 1 had it
    """tf.compat.v1.logging: the 'tensorflow' logger's levels and functions."""
    DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL

    @staticmethod
    def _logger():
        return _tf.get_logger()

    @classmethod
    def set_verbosity(cls, v):
        cls._logger().setLevel(v)

    @classmethod
    def get_verbosity(cls):
        return cls._logger().getEffectiveLevel()

    @classmethod
    def log(cls, level, msg, *args, **kwargs):
        cls._logger().log(level, msg, *args, **kwargs)

    @classmethod
    def debug(cls, msg, *args, **kwargs):
        cls._logger().debug(msg, *args, **kwargs)

    @classmethod
    def info(cls, msg, *args, **kwargs):
        cls._logger().info(msg, *args, **kwargs)

    @classmethod
    def warning(cls, msg, *args, **kwargs):
        cls._logger().warning(msg, *args, **kwargs)

    warn = warning

    @classmethod
    def error(cls, msg, *args, **kwargs):
        cls._logger().error(msg, *args, **kwargs)

    @classmethod
    def fatal(cls, msg, *args, **kwargs):
        cls._logger().fatal(msg, *args, **kwargs)


def __getattr__(name):
    if name in _SAME:
        return getattr(_tf, name)
    raise AttributeError(f"tf.compat.v1.{name} is not provided: rivulet runs TensorFlow 2 programs, and of "
                         "tf.compat.v1 it gives only the names that mean in TensorFlow 1 what they mean in "
                         "TensorFlow 2 (graph mode, Sessions, variable scopes, v1 optimizers/losses/layers and "
                         "estimators are not among them)")


def __dir__():
    return sorted(_SAME | {"constant", "enable_eager_execution", "enable_v2_behavior", "disable_eager_execution",
                           "disable_v2_behavior", "enable_tensor_equality", "disable_tensor_equality",
                           "set_random_seed", "logging"})
