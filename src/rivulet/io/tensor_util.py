"""tf.make_tensor_proto and tf.make_ndarray: a value as a TensorProto message (written and read in the protobuf
wire format by hand, no protobuf dependency) and back, as TensorFlow 2.21 encodes it: tensor_content (the
little-endian bytes) for a tensor of more than one element of the types TensorFlow packs that way, the dtype's
typed field (float_val, int_val, half_val as bits, scomplex_val, string_val ...) otherwise. make_ndarray reads any
TensorProto (this one, or protobuf's: anything with SerializeToString) through tf.io.parse_tensor's decoder, so
every bit comes back (NaN payloads, -0.0), and a proto that does not fit its shape is InvalidArgumentError.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor, to_numpy_value
from ..formats.tensor_proto import DATATYPE_NAMES, shape_message
from ..formats.wire import bytes_field, encode_varint, fields
from ..errors import InvalidArgumentError
from ..shape import TensorShape

# the dtypes TensorFlow writes as tensor_content when a tensor has more than one element (tensor_util.py's
# _TENSOR_CONTENT_TYPES: not uint16, bool, complex or string)
_CONTENT = {"float16", "float32", "float64", "int32", "uint8", "int16", "int8", "int64", "uint32", "uint64"}
# dtype -> (field name, number, how its values are written: varint | f32 | f64 | bytes)
_FIELD = {"float16": ("half_val", 13, "varint"), "float32": ("float_val", 5, "f32"),
          "float64": ("double_val", 6, "f64"), "int32": ("int_val", 7, "varint"), "uint8": ("int_val", 7, "varint"),
          "int16": ("int_val", 7, "varint"), "int8": ("int_val", 7, "varint"), "uint16": ("int_val", 7, "varint"),
          "int64": ("int64_val", 10, "varint"), "bool": ("bool_val", 11, "varint"),
          "complex64": ("scomplex_val", 9, "f32"), "complex128": ("dcomplex_val", 12, "f64"),
          "uint32": ("uint32_val", 16, "varint"), "uint64": ("uint64_val", 17, "varint"),
          "string": ("string_val", 8, "bytes")}
_BY_NUMBER = {num: name for name, num, _ in _FIELD.values()}


def _escape(b):
    out = []
    for c in b:
        if c in (0x22, 0x27, 0x5C):
            out.append("\\" + chr(c))
        elif c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif 0x20 <= c < 0x7F:
            out.append(chr(c))
        else:
            out.append("\\%03o" % c)
    return "".join(out)


class _Dim:
    def __init__(self, size=0, name=""):
        self.size, self.name = size, name


class TensorShapeProto:
    def __init__(self, dims=None, unknown_rank=False):
        self.dim = [_Dim(-1 if d is None else d) for d in (dims or [])]
        self.unknown_rank = unknown_rank


class TensorProto:
    """The TensorProto message: dtype (DataType number), tensor_shape, tensor_content and the typed value
    fields, with SerializeToString/FromString and protobuf's text format as str()."""

    def __init__(self, dtype=0, tensor_shape=None, tensor_content=b""):
        self.dtype = dtype
        self.tensor_shape = tensor_shape if tensor_shape is not None else TensorShapeProto()
        self.tensor_content = tensor_content
        self.version_number = 0
        for name, _, _ in _FIELD.values():
            setattr(self, name, [])

    def _shape(self):
        ts = self.tensor_shape
        return TensorShape(None) if ts.unknown_rank else TensorShape([d.size if d.size >= 0 else None
                                                                      for d in ts.dim])

    def SerializeToString(self, deterministic=None):
        out = encode_varint(1 << 3) + encode_varint(self.dtype) if self.dtype else b""
        out += bytes_field(2, shape_message(self._shape()))
        if self.version_number:
            out += encode_varint(3 << 3) + encode_varint(self.version_number)
        if self.tensor_content:
            out += bytes_field(4, self.tensor_content)
        for name, num, kind in sorted(set(_FIELD.values()), key=lambda f: f[1]):
            vals = getattr(self, name)
            if not vals:
                continue
            if kind == "bytes":
                out += b"".join(bytes_field(num, v) for v in vals)
            elif kind == "f32":
                out += bytes_field(num, np.asarray(vals, "<f4").tobytes())
            elif kind == "f64":
                out += bytes_field(num, np.asarray(vals, "<f8").tobytes())
            else:
                out += bytes_field(num, b"".join(encode_varint(int(v) & ((1 << 64) - 1)) for v in vals))
        return out

    @classmethod
    def FromString(cls, data):
        from ..ops.serialize_ops import parse_tensor_kernel  # (the decoder, for the checks it makes)
        out = cls()
        data = bytes(data)

        def bad(kind, detail=None):
            return InvalidArgumentError("Could not parse `serialized` as TensorProto")
        for f, w, v in fields(data, bad):
            if f == 1 and w == 0:
                out.dtype = v
            elif f == 4 and w == 2:
                out.tensor_content = v
        dt = _dt._BY_ENUM.get(out.dtype)
        if dt is None:
            raise InvalidArgumentError(f"TensorProto of dtype {DATATYPE_NAMES.get(out.dtype, out.dtype)} cannot be "
                                       "read")
        arr = parse_tensor_kernel(np.array(data, dtype=object), dt)
        out.tensor_shape = TensorShapeProto(list(arr.shape))
        if not out.tensor_content:
            _set_typed(out, dt.name, arr.reshape(-1))
        return out

    def ParseFromString(self, data):
        self.__dict__.update(type(self).FromString(data).__dict__)
        return len(data)

    def __eq__(self, other):
        return isinstance(other, TensorProto) and self.SerializeToString() == other.SerializeToString()

    def __str__(self):
        lines = [f"dtype: DT_{DATATYPE_NAMES.get(self.dtype, str(self.dtype)).upper()}"]
        if self.tensor_shape.unknown_rank:
            lines += ["tensor_shape {", "  unknown_rank: true", "}"]
        else:
            lines.append("tensor_shape {")
            for d in self.tensor_shape.dim:
                lines += ["  dim {"] + ([f"    size: {d.size}"] if d.size else []) + ["  }"]
            lines.append("}")
        if self.tensor_content:
            lines.append(f'tensor_content: "{_escape(self.tensor_content)}"')
        for name, num, kind in sorted(set(_FIELD.values()), key=lambda f: f[1]):
            for v in getattr(self, name):
                if kind == "bytes":
                    lines.append(f'{name}: "{_escape(v)}"')
                elif name == "bool_val":
                    lines.append(f"{name}: {'true' if v else 'false'}")
                elif kind == "f32":
                    lines.append(f"{name}: {_float_text(np.float32(v))}")
                elif kind == "f64":
                    lines.append(f"{name}: {_float_text(np.float64(v))}")
                else:
                    lines.append(f"{name}: {int(v)}")
        return "".join(ln + "\n" for ln in lines)

    __repr__ = __str__


def _float_text(x):
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = repr(float(x)) if x.dtype == np.float64 else str(x)
    return s[:-2] if s.endswith(".0") else s


def _set_typed(proto, name, flat):
    field = _FIELD[name][0]
    if name == "string":
        vals = [bytes(v) for v in flat]
    elif name == "float16":
        vals = flat.astype(np.float16).view(np.uint16).astype(int).tolist()
    elif name in ("complex64", "complex128"):
        vals = flat.astype(name).view(np.float32 if name == "complex64" else np.float64).tolist()
    elif name in ("float32", "float64"):
        vals = flat.tolist()
    else:
        vals = [int(v) for v in flat]
    getattr(proto, field).extend(vals)


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """tf.make_tensor_proto: `values` (a Python value, NumPy array or eager tensor) as a TensorProto."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if isinstance(values, Tensor):
        if not hasattr(values, "_v"):
            raise TypeError(f"make_tensor_proto needs a value, not the traced tensor {values!r}")
        arr = np.asarray(values._v)
        if dtype is not None and dtype is not values.dtype:
            arr = arr.astype(dtype._np)
    elif isinstance(values, (np.ndarray, np.generic)) and dtype is not None and values.dtype.kind not in "USO":
        arr = np.asarray(values).astype(dtype._np)  # (a NumPy value is cast to the dtype asked for, as TF)
    else:
        arr = np.asarray(to_numpy_value(values, dtype))
    dt = dtype or _dt.from_numpy(arr.dtype)
    if dt.name not in _FIELD:
        raise TypeError(f"make_tensor_proto does not support dtype {dt.name}")
    if dt is _dt.string:
        arr = np.asarray(arr, dtype=object)
    if shape is None:
        dims = list(arr.shape)
    else:
        dims = TensorShape(shape).as_list()
        n = int(np.prod(dims, dtype=np.int64))
        if list(arr.shape) != dims:
            if verify_shape or (allow_broadcast and arr.size not in (1, n)):
                raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {tuple(arr.shape)}.")
            if arr.size > n:  # (fewer: the typed field's last value fills the shape when read, as TensorFlow's)
                raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
    proto = TensorProto(dtype=dt.as_datatype_enum, tensor_shape=TensorShapeProto(dims))
    same_size = arr.size == int(np.prod(dims, dtype=np.int64))
    if same_size and dt.name in _CONTENT and arr.size > 1:
        proto.tensor_content = np.ascontiguousarray(arr, dtype=np.dtype(dt._np).newbyteorder("<")).tobytes()
        return proto
    _set_typed(proto, dt.name, arr.reshape(-1))
    return proto


def make_ndarray(tensor):
    """tf.make_ndarray: a TensorProto (rivulet's or protobuf's) as a NumPy array of its dtype, every bit kept."""
    from ..ops.serialize_ops import parse_tensor_kernel
    data = tensor.SerializeToString()
    enum = None
    for f, w, v in fields(bytes(data), lambda kind, detail=None: InvalidArgumentError(
            "Could not parse `serialized` as TensorProto")):
        if f == 1 and w == 0:
            enum = v
    dt = _dt._BY_ENUM.get(enum if enum is not None else 0)
    if dt is None or dt.name not in _FIELD:
        raise TypeError(f"Unsupported tensor type: {DATATYPE_NAMES.get(enum, enum)}")
    arr = parse_tensor_kernel(np.array(bytes(data), dtype=object), dt)
    return np.asarray(arr, dtype=object) if dt is _dt.string else arr
