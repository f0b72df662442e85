"""The graph's own node kinds: Const (a value held in the graph) and Placeholder (a value fed when the graph
runs). Graph.constant and Graph.placeholder build them; ops/constant_op.py's tf.constant adds them as well."""
import numpy as np

from ..core.op import defop
from ..shape import TensorShape


def _const_infer(value, dtype):
    return TensorShape._known(np.shape(value)), dtype


CONST = defop("Const", lambda value, dtype: value, _const_infer)


def _placeholder_kernel(dtype, shape):
    raise RuntimeError("A Placeholder has no value: it must be fed when the graph runs.")


PLACEHOLDER = defop("Placeholder", _placeholder_kernel, lambda dtype, shape: (shape, dtype))
