"""tf.types: the public types of rivulet's objects, for isinstance checks and annotations."""
import types as _pytypes
from typing import Union as _Union

import numpy as _np

from .core.tensor import Tensor as _Tensor
from .function.concrete import ConcreteFunction as _Concrete, FunctionType as _FunctionType
from .function.polymorphic import PolymorphicFunction as _Polymorphic
from .function.trace_type import TraceType as _TraceType
from .state.variables import Variable as _Variable

# What tf.convert_to_tensor accepts, as an annotation (TensorFlow's tf.types.experimental.TensorLike).
_TensorLike = _Union[_Tensor, _Variable, _np.ndarray, int, float, bool, str, bytes, complex, tuple, list]

experimental = _pytypes.SimpleNamespace(
    ConcreteFunction=_Concrete,
    PolymorphicFunction=_Polymorphic,
    GenericFunction=_Polymorphic,  # TensorFlow's older name for the same thing
    FunctionType=_FunctionType,
    TensorLike=_TensorLike,
    TraceType=_TraceType,
)
