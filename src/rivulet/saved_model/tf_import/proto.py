"""Reading TensorFlow's protocol buffers: saved_model.pb, and the values inside them as plain Python.

The message classes are the ones the `tensorboard` package ships compiled (MetaGraphDef, GraphDef,
FunctionDef, SavedObjectGraph, TrackableObjectGraph, TensorProto ...), parsed by the `protobuf` library:
the `tf-interop` extra. The SavedModel wrapper itself (field 1: schema version, field 2: the MetaGraphDefs)
is not among them, so it is described here from its public field numbers.

Everything decoded is checked: dtypes must be known, shapes non-negative and of bounded size, tensor bytes
exactly as long as the shape says. Problems raise `Invalid`, which the loader reports as SavedModelError;
a tensor TensorFlow would refuse raises `InvalidGraph`, reported as one that is an InvalidArgumentError too.
"""
import math

import numpy as np

from ... import dtypes as _dt
from ...shape import TensorShape, TensorSpec
from ...formats.tensor_proto import DATATYPE_NAMES, datatype_name
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
            from tensorboard.compat.proto import meta_graph_pb2, saved_object_graph_pb2, tensor_pb2
        except ImportError:
            raise ImportError(f"Loading a SavedModel written by TensorFlow needs the protobuf and tensorboard "
                              f"packages: {INSTALL}") from None
        _pb = _Modules(meta_graph_pb2, saved_object_graph_pb2, tensor_pb2, DecodeError)
    return _pb


class _Modules:
    def __init__(self, meta_graph, saved_object_graph, tensor, decode_error):
        self.meta_graph, self.saved_object_graph, self.tensor = meta_graph, saved_object_graph, tensor
        self.DecodeError = decode_error


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
        from ...formats.wire import encode_varint as _encode_varint
        out = bytearray()
        if self.saved_model_schema_version:
            out += b"\x08" + _encode_varint(self.saved_model_schema_version)
        for mg in self.meta_graphs:
            body = mg.SerializeToString()
            out += b"\x12" + _encode_varint(len(body)) + body
        return bytes(out)


def _not_protobuf(kind, detail=None):
    return Invalid("the file is truncated or not a protocol buffer")


def _varint(data, at):
    from ...formats.wire import read_varint
    return read_varint(data, at, len(data), _not_protobuf)


def read_saved_model(data):
    return SavedModel(data)


# --------------------------------------------------------------------------------------------- values
def dtype(enum, what="dtype"):
    dt = _dt._BY_ENUM.get(int(enum))  # (dtypes.as_dtype(int) trips over its own `bool` global)
    if dt is None:
        raise Invalid(f"{what}: dtype {datatype_name(int(enum))}, which rivulet does not support"
                      if int(enum) in DATATYPE_NAMES else f"{what}: unknown dtype enum {int(enum)}")
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
_NARROW = {"int8", "int16", "uint8", "uint16", "float16"}  # kept in int32 fields: TensorFlow keeps the low bits


class InvalidGraph(Invalid):
    """What TensorFlow refuses as an invalid argument (InvalidArgumentError): a tensor whose values do not
    fit its dtype and shape, a Const whose value is not of its dtype, a call with arguments of other types."""


def tensor(proto, what="tensor"):
    """TensorProto -> NumPy array of its dtype (strings: object array of bytes). As TensorFlow reads it:
    tensor_content when present, else the typed value field, whose last value repeats to fill the shape."""
    try:
        dt = dtype(proto.dtype, what)
        sh = shape(proto.tensor_shape)
    except InvalidGraph:
        raise
    except Invalid as e:
        raise InvalidGraph(str(e)) from None
    if not sh.is_fully_defined():
        raise InvalidGraph(f"{what}: shape {sh} is not fully defined")
    dims = sh.as_list()
    n = math.prod(dims)
    if n > MAX_ELEMENTS:
        raise InvalidGraph(f"{what}: {n} elements is more than this reader accepts ({MAX_ELEMENTS})")
    field = _VALUE_FIELDS.get(dt.name)
    if field is None:
        raise InvalidGraph(f"{what}: tensors of dtype {dt.name} cannot be read")
    try:
        return _values(proto, dt, field, dims, what).reshape(dims)
    except MemoryError:
        raise InvalidGraph(f"{what}: {n} {dt.name} values do not fit in memory") from None


def _values(proto, dt, field, dims, what):
    raw, n = proto.tensor_content, math.prod(dims)
    if dt.name == "string":
        items = _strings(raw, n, what) if raw else list(proto.string_val)
        return _filled(items, dims, object, what)
    npd = np.dtype(dt.as_numpy_dtype)
    if raw:
        if len(raw) != n * npd.itemsize:
            raise InvalidGraph(f"{what}: {len(raw)} bytes of content for {n} {dt.name} values")
        arr = np.frombuffer(raw, dtype=npd.newbyteorder("<"))
        return arr.view(np.uint8) != 0 if dt.name == "bool" else arr.astype(npd)  # a bool is any non-zero byte
    vals = getattr(proto, field)
    if field in ("scomplex_val", "dcomplex_val"):
        if len(vals) % 2:
            raise InvalidGraph(f"{what}: an odd number of complex parts")
        parts = np.array(vals, dtype=np.float32 if field == "scomplex_val" else np.float64)
        return _filled(parts.view(npd), dims, npd, what)  # each part's bits kept (-0.0, a NaN imaginary part)
    if dt.name in _NARROW:
        arr = np.array(vals, dtype=np.int64).astype(np.uint16 if dt.name == "float16" else npd)
        return _filled(arr.view(np.float16) if dt.name == "float16" else arr, dims, npd, what)
    return _filled(np.array(vals, dtype=npd), dims, npd, what)


def _filled(items, dims, npd, what):
    """The values of a tensor of shape `dims` given `items`: more is an error, fewer repeat the last (none:
    zeros)."""
    k, n = len(items), math.prod(dims)
    if k > n:
        raise InvalidGraph(f"{what}: {k} values for shape {dims}")
    out = np.full(n, items[-1] if k else b"" if npd is object else 0, dtype=npd)
    out[:k] = items
    return out


def _strings(raw, n, what):
    """DT_STRING tensor_content: the n lengths as varints, then the strings back to back."""
    from ...formats.wire import read_varint

    def truncated(kind, detail=None):
        return InvalidGraph(f"{what}: string content is truncated")
    sizes, at = [], 0
    for _ in range(n):
        size, at = read_varint(raw, at, len(raw), truncated)
        sizes.append(size)
    if at + sum(sizes) != len(raw):
        raise InvalidGraph(f"{what}: {len(raw)} bytes of content for {n} strings of {sum(sizes)} bytes")
    out = []
    for size in sizes:
        out.append(raw[at:at + size])
        at += size
    return out


def const_value(value, want, what):
    """A Const's value (an array from `tensor`), which must be of the node's `dtype` attr `want`: TensorFlow
    refuses the node otherwise, where a cast would silently change the numbers."""
    got = _dt.from_numpy(value.dtype)
    if got != want:
        raise InvalidGraph(f"{what}: type mismatch between value ({got.name}) and dtype "
                           f"({getattr(want, 'name', want)})")
    return value


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
