"""rivulet: TensorFlow-2-style eager tensors, tf.function graphs and AutoGraph on NumPy.

    import rivulet as tf
"""
import importlib as _importlib

from . import dtypes, errors  # noqa: F401
from .dtypes import (DType, as_dtype, float16, half, float32, float64,  # noqa: F401
                     double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, string, complex64,
                     complex128, resource, variant)
from .shape import TensorShape, TensorSpec  # noqa: F401
from .core.tensor import Tensor, convert_to_tensor  # noqa: F401
from .core.context import executing_eagerly, init_scope  # noqa: F401
from .ops import operators as _operators  # noqa: F401  (attaches tf.Tensor's Python operators)
from . import math, array as _array, linalg, nn, random, strings, debugging, config, bitwise  # noqa: F401
from . import control_flow as _control_flow  # noqa: E402

from . import version  # noqa: E402,F401
from .version import VERSION as __version__, GIT_VERSION as __git_version__  # noqa: E402,F401
from .version import COMPILER_VERSION as __compiler_version__  # noqa: E402,F401

for _ns in (math, _array, linalg, nn, random, strings, debugging, bitwise, _control_flow):
    for _name in _ns.TOPLEVEL:
        globals()[_name] = getattr(_ns, _name)

from . import nest  # noqa: F401,E402
from .function.polymorphic import function  # noqa: E402,F401
from .graph.graph import Graph, Operation, get_default_graph  # noqa: E402,F401
from .state.variables import Variable, VariableAggregation, VariableSynchronization  # noqa: E402,F401
from .state.creation import variable_creator_scope  # noqa: E402,F401
from .state.naming import name_scope  # noqa: E402,F401
from .state.module import Module  # noqa: E402,F401
from .autodiff.tape import GradientTape  # noqa: E402,F401
from .autodiff.backprop import UnconnectedGradients, gradients  # noqa: E402,F401
from .autodiff.custom_gradient import custom_gradient, stop_gradient  # noqa: E402,F401
from .log import get_logger  # noqa: E402,F401
from .ops.logging_ops import print_v2 as print  # noqa: E402,F401,A001
from .devices import device, DeviceSpec  # noqa: E402,F401
from .ops.script_ops import py_function, numpy_function  # noqa: E402,F401
from .init_ops import (zeros_initializer, ones_initializer, constant_initializer,  # noqa: E402,F401
                       random_uniform_initializer, random_normal_initializer)



def _autograph_convert(fn):
    from .autograph.impl import convert
    return convert(fn)


def _jit_wrap(*args):
    from .jit import wrap
    return wrap(*args)


def _ragged_class():
    from .ragged import RaggedTensor
    return RaggedTensor


# tf.function reaches up to AutoGraph and the compiled tier, and tf.strings to RaggedTensor, through these
# (loaded on first use)
def _sparse_class():
    from .sparse import SparseTensor
    return SparseTensor


from .ops import composite as _composite  # noqa: E402
_composite.register_loader("ragged", _ragged_class)
_composite.register_loader("sparse", _sparse_class)
_composite.register_loader("extension_type", lambda: _importlib.import_module(".extension_type.saving",
                                                                              __name__).SavedModelKind)
from .function import concrete as _concrete, polymorphic as _polymorphic  # noqa: E402
_polymorphic.register_autograph(_autograph_convert)
_concrete.register_jit(_jit_wrap)

# Heavier namespaces load on first use, keeping `import rivulet` fast.
_LAZY = {"keras": ".keras", "saved_model": ".saved_model", "summary": ".summary", "autograph": ".autograph",
         "onnx": ".onnx", "graph_util": ".graph.graph_util", "types": ".types", "jit": ".jit",
         "data": ".data", "io": ".io", "train": ".train", "image": ".image", "signal": ".signal",
         "distribute": ".distribute", "profiler": ".profiler", "sparse": ".sparse", "ragged": ".ragged",
         "lite": ".lite",
         "audio": ".audio", "experimental": ".experimental", "lookup": ".lookup",
         "feature_column": ".feature_column", "compat": ".compat"}


# TensorFlow's short aliases of Keras namespaces (tf.losses is tf.keras.losses ...), loaded on first use
_KERAS_ALIASES = {"losses": "losses", "metrics": "metrics", "optimizers": "optimizers",
                  "initializers": "initializers"}


def __getattr__(name):
    alias = _KERAS_ALIASES.get(name)
    if alias is not None:
        from . import keras
        m = getattr(keras, alias)
        globals()[name] = m
        return m
    if name in ("SparseTensor", "SparseTensorSpec"):
        from . import sparse
        return getattr(sparse, name)
    if name in ("RaggedTensor", "RaggedTensorSpec"):
        from . import ragged
        return getattr(ragged, name)
    if name == "type_spec_from_value":  # (extension_type/: tf.experimental.ExtensionType's specs too)
        from .extension_type import type_spec_from_value
        return type_spec_from_value
    if name in ("make_tensor_proto", "make_ndarray"):  # TensorProto messages (io/tensor_util.py)
        from .io import tensor_util
        return getattr(tensor_util, name)
    if name == "OptionalSpec":
        from .data.optional_ops import OptionalSpec
        return OptionalSpec
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'rivulet' has no attribute '{name}'")
    m = _importlib.import_module(mod, __name__)
    globals()[name] = m
    _composite.namespace_loaded()  # (Keras's TFOpLambda dispatch wraps its functions, once KerasTensors exist)
    return m
