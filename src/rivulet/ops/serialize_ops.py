"""tf.io.serialize_tensor and tf.io.parse_tensor: a tensor as a TensorProto (formats/tensor_proto.py) and back."""
import math

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import convert_to_tensor
from ..errors import InvalidArgumentError
from ..formats.tensor_proto import datatype_name, string_content, tensor_message
from ..formats.wire import fields, signed
from ..shape import TensorShape


def _not_a_tensor_proto(kind, detail=None):
    return InvalidArgumentError("Could not parse `serialized` as TensorProto")


def serialize_kernel(x):
    return np.array(tensor_message(x), dtype=object)


SERIALIZE_TENSOR = defop("SerializeTensor", serialize_kernel, lambda x: (TensorShape([]), _dt.string))


# the TensorProto field of each dtype's typed values, and how one value is stored: "v" varint, "4"/"8" fixed
_TYPED = {"float32": (5, "4", "<f4"), "float64": (6, "8", "<f8"), "int32": (7, "v", None), "int16": (7, "v", None),
          "int8": (7, "v", None), "uint8": (7, "v", None), "uint16": (7, "v", None), "string": (8, None, None),
          "complex64": (9, "4", "<f4"), "int64": (10, "v", None), "bool": (11, "v", None),
          "complex128": (12, "8", "<f8"), "float16": (13, "v", None), "bfloat16": (13, "v", None),
          "uint32": (16, "v", None), "uint64": (17, "v", None)}
_MAX_FILLED = 1 << 28  # a tensor filled from a few typed values (its last repeats) is refused past this


def _typed_values(entries, kind, fixed):
    """The values of one repeated field, packed (wire type 2) or one per entry, in order."""
    from ..formats.wire import read_varint
    vals = []
    for wire, v in entries:
        if kind == "v":
            if wire == 0:
                vals.append(v)
            elif wire == 2:
                pos = 0
                while pos < len(v):
                    x, pos = read_varint(v, pos, len(v), _not_a_tensor_proto)
                    vals.append(x)
            else:
                raise _not_a_tensor_proto("wire type")
        else:
            width = int(kind)
            if wire not in (2, 5 if width == 4 else 1) or len(v) % width:
                raise _not_a_tensor_proto("wire type")
            vals.append(np.frombuffer(v, fixed))
    if kind == "v":
        return vals
    return np.concatenate(vals) if vals else np.zeros(0, fixed)


def _from_typed(out_type, n, entries):
    """TensorFlow's reading of a TensorProto without tensor_content: the dtype's typed field, its last value
    repeated to fill the shape (none: zeros), values past the shape ignored."""
    name = out_type.name
    if name not in _TYPED:
        raise InvalidArgumentError("Could not parse `serialized` as TensorProto")
    if n > _MAX_FILLED:
        raise InvalidArgumentError(f"Could not parse `serialized` as TensorProto: wrong number of values: {n} "
                                   f"elements filled from {len(entries)} entries is more than this reader accepts "
                                   f"({_MAX_FILLED})")
    _, kind, fixed = _TYPED[name]
    npd = np.dtype(out_type._np) if name != "string" else np.dtype(object)
    if name == "string":
        items = [bytes(v) for wire, v in entries if wire == 2]
        if len(items) != len(entries):
            raise _not_a_tensor_proto("wire type")
        arr = np.empty(len(items), object)
        arr[:] = items
    elif name in ("complex64", "complex128"):
        parts = _typed_values(entries, kind, fixed)
        k = len(parts) // 2
        arr = np.ascontiguousarray(parts[:2 * k], dtype=npd.char.lower()).view(npd)  # bits kept (-0.0, NaN parts)
    elif kind == "v":
        ints = np.array([signed(v) for v in _typed_values(entries, kind, fixed)], dtype=np.int64)
        if name == "bool":
            arr = ints != 0
        elif name in ("float16", "bfloat16"):
            arr = ints.astype(np.uint16).view(npd)
        elif name in ("uint32", "uint64"):
            arr = ints.astype(np.uint64).astype(npd)
        else:
            arr = ints.astype(npd)  # (a value past the dtype's range keeps its low bits, as TensorFlow's cast)
    else:
        arr = _typed_values(entries, kind, fixed).astype(npd)
    out = np.full(n, arr[-1] if len(arr) else (b"" if name == "string" else 0), dtype=npd)
    k = min(n, len(arr))
    out[:k] = arr[:k]
    return out


def parse_tensor_kernel(data, out_type):
    data = data.item() if isinstance(data, np.ndarray) else data
    dtype, dims, content, typed = None, [], None, {}
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
        elif f in (5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17):
            typed.setdefault(f, []).append((w, v))
    if dtype != out_type.as_datatype_enum:
        raise InvalidArgumentError(f"Type mismatch between parsed tensor ({datatype_name(dtype)}) and dtype "
                                   f"({datatype_name(out_type.as_datatype_enum)})")  # TF's names: float, double ...
    if any(d < 0 for d in dims):
        raise InvalidArgumentError("Could not parse `serialized` as TensorProto: negative dimension")
    if len(dims) > 64:
        raise InvalidArgumentError(f"Could not parse `serialized` as TensorProto: rank {len(dims)} is more than "
                                   "this reader holds (64)")
    n = math.prod(dims)  # Python ints: a huge shape cannot wrap around to a small count
    if out_type is _dt.string:
        if content:  # (serialize_tensor writes string_val; TensorFlow's C++ writes this, and reads it)
            items = string_content(content, n)
            if items is None:
                raise InvalidArgumentError(f"Cannot parse tensor from proto: its string tensor_content does not "
                                           f"hold {n} strings")
            arr = np.empty(n, dtype=object)
            arr[:] = items
            return arr.reshape(dims)
        return _from_typed(out_type, n, typed.get(8, [])).reshape(dims)
    if not content:
        return _from_typed(out_type, n, typed.get(_TYPED.get(out_type.name, (0,))[0], [])).reshape(dims)
    np_t = np.dtype(out_type._np).newbyteorder("<")
    if len(content) != n * np_t.itemsize:
        raise InvalidArgumentError("Could not parse `serialized` as TensorProto: content size does not match "
                                   "the shape")
    return np.frombuffer(content, dtype=np_t).astype(out_type._np).reshape(dims)


PARSE_TENSOR = defop("ParseTensor", parse_tensor_kernel, lambda data, out_type: (TensorShape(None), out_type))


def serialize_tensor(tensor, name=None):
    return bind(SERIALIZE_TENSOR, [convert_to_tensor(tensor)])


def parse_tensor(serialized, out_type, name=None):
    s = convert_to_tensor(serialized, dtype=_dt.string)
    return bind(PARSE_TENSOR, [s], {"out_type": _dt.as_dtype(out_type)})
