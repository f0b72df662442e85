"""Reading TensorFlow's protocol buffers: saved_model.pb, and the values inside them as plain Python.

The message classes are the ones the `tensorboard` package ships compiled (MetaGraphDef, GraphDef,
FunctionDef, SavedObjectGraph, TrackableObjectGraph, TensorProto ...), parsed by the `protobuf` library:
the `tf-interop` extra. The SavedModel wrapper itself (field 1: schema version, field 2: the MetaGraphDefs)
is not among them, so it is described here from its public field numbers.

Everything decoded is checked: dtypes must be known, shapes non-negative and of bounded size, tensor bytes
exactly as long as the shape says. Problems raise `Invalid`, which the loader reports as SavedModelError.
"""
import math

import numpy as np

from ... import dtypes as _dt
from ...shape import TensorShape, TensorSpec
from ..format import Invalid

INSTALL = "pip install 'rivulet[tf-interop]'"
MAX_ELEMENTS = 1 << 28  # a constant or variable larger than this (1 GiB of float32) is refused
MAX_DEPTH = 64
_pb = None


def modules():
    """The protobuf message modules (imported on first use); ImportError saying what to install."""
    global _pb
    if _pb is None:
        try:
            from google.protobuf.message import DecodeError
            from tensorboard.compat.proto import (meta_graph_pb2, saved_object_graph_pb2, tensor_pb2,
                                                  trackable_object_graph_pb2)
        except ImportError:
            raise ImportError(f"Loading a SavedModel written by TensorFlow needs the protobuf and tensorboard "
                              f"packages: {INSTALL}") from None
        _pb = _Modules(meta_graph_pb2, saved_object_graph_pb2, tensor_pb2, trackable_object_graph_pb2, DecodeError)
    return _pb


class _Modules:
    def __init__(self, meta_graph, saved_object_graph, tensor, trackable, decode_error):
        self.meta_graph, self.saved_object_graph, self.tensor = meta_graph, saved_object_graph, tensor
        self.trackable, self.DecodeError = trackable, decode_error


def parse(cls, data, what):
    """A message of class `cls` parsed from bytes; Invalid if they are not one."""
    msg = cls()
    try:
        msg.ParseFromString(data)
    except (modules().DecodeError, RecursionError, ValueError) as e:
        raise Invalid(f"{what} is not a valid protocol buffer ({e or 'truncated or corrupted'})") from None
    return msg


class SavedModel:
    """saved_model.pb's top message: field 1 the schema version (varint), field 2 the MetaGraphDefs. Its two
    fields are read here; each MetaGraphDef is parsed by protobuf (meta_graph_pb2)."""

    def __init__(self, data):
        self.saved_model_schema_version, self.meta_graphs = 0, []
        chunks = []
        at, n = 0, len(data)
        while at < n:
            key, at = _varint(data, at)
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, at = _varint(data, at)
                if field == 1:
                    self.saved_model_schema_version = value
            elif wire == 2:
                size, at = _varint(data, at)
                if at + size > n:
                    raise Invalid("the file is truncated")
                if field == 2:
                    chunks.append((at, at + size))
                at += size
            elif wire in (1, 5):
                at += 8 if wire == 1 else 4
            else:
                raise Invalid(f"not a SavedModel (wire type {wire} in field {field})")
        if at != n:
            raise Invalid("the file is truncated")
        view = memoryview(data)
        cls = modules().meta_graph.MetaGraphDef
        self.meta_graphs = [parse(cls, bytes(view[a:b]), "a MetaGraphDef") for a, b in chunks]


    def SerializeToString(self):  # noqa: N802  (protobuf's name)
        from ...checkpoint.wire import encode_varint as _encode_varint
        out = bytearray()
        if self.saved_model_schema_version:
            out += b"\x08" + _encode_varint(self.saved_model_schema_version)
        for mg in self.meta_graphs:
            body = mg.SerializeToString()
            out += b"\x12" + _encode_varint(len(body)) + body
        return bytes(out)


def _varint(data, at):
    from ...checkpoint.wire import read_varint
    from ...errors import DataLossError
    try:
        return read_varint(data, at)
    except DataLossError:
        raise Invalid("the file is truncated or not a protocol buffer") from None


def read_saved_model(data):
    return SavedModel(data)


# --------------------------------------------------------------------------------------------- values
def dtype(enum, what="dtype"):
    dt = _dt._BY_ENUM.get(int(enum))  # (dtypes.as_dtype(int) trips over its own `bool` global)
    if dt is None:
        raise Invalid(f"{what}: unknown dtype enum {int(enum)}")
    return dt


def shape(proto):
    """TensorShapeProto -> TensorShape (dims of -1 unknown)."""
    if proto.unknown_rank:
        return TensorShape(None)
    if len(proto.dim) > 64:
        raise Invalid(f"a shape of rank {len(proto.dim)} is not supported")
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise Invalid(f"bad dimension {d.size} in a shape")
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


_VALUE_FIELDS = {  # dtype name -> (TensorProto repeated field, how to turn its items into the dtype)
    "float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val", "int8": "int_val",
    "uint8": "int_val", "uint16": "int_val", "int64": "int64_val", "bool": "bool_val", "uint32": "uint32_val",
    "uint64": "uint64_val", "float16": "half_val", "complex64": "scomplex_val",
    "complex128": "dcomplex_val", "string": "string_val"}


def tensor(proto, what="tensor"):
    """TensorProto -> NumPy array of its dtype (strings: object array of bytes)."""
    dt = dtype(proto.dtype, what)
    sh = shape(proto.tensor_shape)
    if not sh.is_fully_defined():
        raise Invalid(f"{what}: shape {sh} is not fully defined")
    dims = sh.as_list()
    n = math.prod(dims)
    if n > MAX_ELEMENTS:
        raise Invalid(f"{what}: {n} elements is more than this reader accepts ({MAX_ELEMENTS})")
    field = _VALUE_FIELDS.get(dt.name)
    if field is None:
        raise Invalid(f"{what}: tensors of dtype {dt.name} cannot be read")
    if dt.name == "string":
        items = list(proto.string_val)
        if len(items) not in (0, 1, n) and len(items) < n:
            raise Invalid(f"{what}: {len(items)} strings for shape {dims}")
        out = np.empty(n, dtype=object)
        out[:] = (items + [items[-1] if items else b""] * (n - len(items)))[:n] if n else []
        return out.reshape(dims)
    npd = dt.as_numpy_dtype
    if proto.tensor_content:
        raw = proto.tensor_content
        if len(raw) != n * np.dtype(npd).itemsize:
            raise Invalid(f"{what}: {len(raw)} bytes of content for {n} {dt.name} values")
        return np.frombuffer(raw, dtype=np.dtype(npd).newbyteorder("<")).astype(npd).reshape(dims)
    vals = list(getattr(proto, field))
    if dt.name == "float16":  # half_val holds the bits
        vals = np.array(vals, dtype=np.uint16).view(np.float16).tolist()
    if field in ("scomplex_val", "dcomplex_val"):
        if len(vals) % 2:
            raise Invalid(f"{what}: an odd number of complex parts")
        vals = [complex(a, b) for a, b in zip(vals[::2], vals[1::2])]
    if len(vals) > n:
        raise Invalid(f"{what}: {len(vals)} values for shape {dims}")
    try:
        arr = np.array(vals, dtype=npd)
    except (OverflowError, ValueError) as e:
        raise Invalid(f"{what}: {e}") from None
    if len(vals) < n:  # TensorFlow repeats the last value given (none given: zeros)
        fill = np.full(n - len(vals), arr[-1] if len(vals) else 0, dtype=npd)
        arr = np.concatenate([arr, fill])
    return arr.reshape(dims)


class NoneType:
    pass


def structure(sv, depth=0):
    """StructuredValue -> Python: TensorSpec leaves, tuples/lists/dicts, literals (None, bool, int, float, str)."""
    if depth > MAX_DEPTH:
        raise Invalid("a structured value is nested too deeply")
    kind = sv.WhichOneof("kind")
    if kind in (None, "none_value"):
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(sv, kind)
    if kind == "tensor_spec_value":
        s = sv.tensor_spec_value
        return TensorSpec(shape(s.shape), dtype(s.dtype, "TensorSpec"), s.name or None)
    if kind == "bounded_tensor_spec_value":
        s = sv.bounded_tensor_spec_value
        return TensorSpec(shape(s.shape), dtype(s.dtype, "TensorSpec"), s.name or None)
    if kind == "tensor_shape_value":
        return shape(sv.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtype(sv.tensor_dtype_value)
    if kind == "list_value":
        return [structure(v, depth + 1) for v in sv.list_value.values]
    if kind == "tuple_value":
        return tuple(structure(v, depth + 1) for v in sv.tuple_value.values)
    if kind == "dict_value":
        fields = sv.dict_value.fields  # a protobuf map: no order of its own; TensorFlow sorts the keys
        return {k: structure(fields[k], depth + 1) for k in sorted(fields)}
    if kind == "named_tuple_value":
        return {p.key: structure(p.value, depth + 1) for p in sv.named_tuple_value.values}
    raise Invalid(f"structured values of kind '{kind}' are not supported")
