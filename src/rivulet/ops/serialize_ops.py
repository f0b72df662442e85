"""tf.io.serialize_tensor and tf.io.parse_tensor: a tensor as a TensorProto (formats/tensor_proto.py) and back."""
import math

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import convert_to_tensor
from ..errors import InvalidArgumentError
from ..formats.tensor_proto import tensor_message
from ..formats.wire import fields, signed
from ..shape import TensorShape


def _not_a_tensor_proto(kind, detail=None):
    return InvalidArgumentError("Could not parse `serialized` as TensorProto")


def serialize_kernel(x):
    return np.array(tensor_message(x), dtype=object)


SERIALIZE_TENSOR = defop("SerializeTensor", serialize_kernel, lambda x: (TensorShape([]), _dt.string))


def parse_tensor_kernel(data, out_type):
    data = data.item() if isinstance(data, np.ndarray) else data
    dtype, dims, content, strings = None, [], None, []
    for f, w, v in fields(bytes(data), _not_a_tensor_proto):
        if f == 1 and w == 0:
            dtype = v
        elif f == 2 and w == 2:
            for df, dw, dv in fields(v, _not_a_tensor_proto):
                if df == 2 and dw == 2:
                    size = 0
                    for sf, sw, sv in fields(dv, _not_a_tensor_proto):
                        if sf == 1 and sw == 0:
                            size = signed(sv)
                    dims.append(size)
        elif f == 4 and w == 2:
            content = v
        elif f == 8 and w == 2:
            strings.append(bytes(v))
    if dtype != out_type.as_datatype_enum:
        got = _dt._BY_ENUM[dtype].name if dtype in _dt._BY_ENUM else str(dtype)
        raise InvalidArgumentError(f"Type mismatch between parsed tensor ({got}) and dtype ({out_type.name})")
    if any(d < 0 for d in dims):
        raise InvalidArgumentError("Could not parse `serialized` as TensorProto: negative dimension")
    n = math.prod(dims)  # Python ints: a huge shape cannot wrap around to a small count
    if out_type is _dt.string:
        if len(strings) != n:
            raise InvalidArgumentError("Could not parse `serialized` as TensorProto: wrong number of strings")
        a = np.empty(n, dtype=object)
        a[:] = strings
        return a.reshape(dims)
    np_t = np.dtype(out_type._np).newbyteorder("<")
    if content is None or len(content) != n * np_t.itemsize:
        raise InvalidArgumentError("Could not parse `serialized` as TensorProto: content size does not match "
                                   "the shape")
    return np.frombuffer(content, dtype=np_t).astype(out_type._np).reshape(dims)


PARSE_TENSOR = defop("ParseTensor", parse_tensor_kernel, lambda data, out_type: (TensorShape(None), out_type))


def serialize_tensor(tensor, name=None):
    return bind(SERIALIZE_TENSOR, [convert_to_tensor(tensor)])


def parse_tensor(serialized, out_type, name=None):
    s = convert_to_tensor(serialized, dtype=_dt.string)
    return bind(PARSE_TENSOR, [s], {"out_type": _dt.as_dtype(out_type)})
