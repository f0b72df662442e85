"""Nodes checked against the OpDefs the file lists (meta_info_def.stripped_op_list), as TensorFlow checks each
node against its registered OpDef before anything runs: every attr present and of its declared kind, within its
allowed values and minimum, and the data inputs as many and of the dtypes the input args declare. TensorFlow
refuses a node that fails (InvalidArgumentError). Ops the list leaves out (it need not cover the ops used only
inside functions) are left to their converters and rivulet's ops.
"""
import numpy as np

from ... import dtypes as _dt
from ...shape import TensorShape
from .proto import InvalidGraph

_KINDS = {"int": int, "float": (float, int), "bool": bool, "string": bytes, "type": _dt.DType,
          "shape": TensorShape, "tensor": np.ndarray}


def check(op_def, attrs, inputs, where):
    """Raises InvalidGraph where the node (decoded `attrs`, defaults filled in; data `inputs`) breaks op_def."""
    for a in op_def.attr:
        if a.name not in attrs:
            raise InvalidGraph(f"{where}: attr '{a.name}' is missing")
        _attr(a, attrs[a.name], f"{where}: attr '{a.name}'")
    at = 0
    for arg in op_def.input_arg:
        types = _arg_types(arg, attrs, len(inputs), where)
        for want in types:
            if at >= len(inputs):
                break
            v = inputs[at]
            got = _dt.resource if getattr(v, "_is_resource", False) else getattr(v, "dtype", None)
            if got != want:
                got = got.name if isinstance(got, _dt.DType) else type(v).__name__
                raise InvalidGraph(f"{where}: input {at} ('{arg.name}') is {got} where the op takes {want.name}")
            at += 1
    if at != len(inputs):
        raise InvalidGraph(f"{where}: {len(inputs)} inputs where the op takes {at}")


def _attr(a, v, what):
    kind = a.type
    if kind.startswith("list(") and kind.endswith(")"):
        if not isinstance(v, tuple):
            raise InvalidGraph(f"{what} should be a {kind}, got {_short(v)}")
        if a.has_minimum and len(v) < a.minimum:
            raise InvalidGraph(f"{what} has {len(v)} values, fewer than {a.minimum}")
        items, kind, minimum = v, kind[5:-1], None  # (the minimum was the list's length)
    else:
        items, minimum = (v,), a.minimum if a.has_minimum else None
    want = _KINDS.get(kind)
    if kind == "func":
        from .functions import FuncRef
        want = FuncRef
    for x in items:
        if want is None:
            continue  # a kind this check does not know ("placeholder" ...)
        if not isinstance(x, want) or kind != "bool" and isinstance(x, bool):
            raise InvalidGraph(f"{what} should be a {a.type}, got {_short(x)}")
        if kind == "int" and minimum is not None and x < minimum:
            raise InvalidGraph(f"{what} is {x}, less than its minimum {minimum}")
        allowed = a.allowed_values.list
        if kind == "type" and len(allowed.type) and x.as_datatype_enum not in allowed.type:
            raise InvalidGraph(f"{what} cannot be {x.name}")
        if kind == "string" and len(allowed.s) and x not in allowed.s:
            raise InvalidGraph(f"{what} cannot be {_short(x)}")


def _arg_types(arg, attrs, limit, where):
    """The dtypes an input arg takes: one, `number_attr` of one (at most `limit`, the node's inputs), or the list
    `type_list_attr` names."""
    if arg.type_list_attr:
        return list(attrs.get(arg.type_list_attr) or ())
    if arg.type:
        from .proto import dtype
        one = dtype(arg.type, f"{where}: input '{arg.name}'")
    else:
        one = attrs.get(arg.type_attr)
        if not isinstance(one, _dt.DType):
            raise InvalidGraph(f"{where}: input '{arg.name}' has no dtype")
    if arg.number_attr:
        n = attrs.get(arg.number_attr)
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= limit:
            raise InvalidGraph(f"{where}: attr '{arg.number_attr}' says {_short(n)} '{arg.name}' inputs, the node has "
                               f"{limit} inputs")
        return [one] * n
    return [one]


def _short(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."
