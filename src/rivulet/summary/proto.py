"""Just enough of the protobuf wire format to write TensorBoard's messages (Event, Summary, TensorProto,
GraphDef, RunMetadata), and a schema-less reader (`read_varint`, `fields`) that checkpoints and
tf.train.Example decode with. Field numbers are those of TensorFlow's .proto files.

Each `*_message` function returns the serialised bytes of one message.
"""
import struct

import numpy as np

from .. import dtypes as _dt
from ..shape import TensorShape


def _varint(n):
    n &= (1 << 64) - 1  # negative int64s are written as their two's complement, ten bytes long
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, pos, end, fail):
    """(value, position after it) of the varint at buf[pos]; raises fail("varint") if it runs past `end`
    or ten bytes. The value is taken modulo 2**64 (a tenth byte's bits past the 64th are dropped, as
    protobuf drops them), so it always fits a uint64. `fail(kind, detail=None)` builds the caller's
    exception."""
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise fail("varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7


_FIXED = {1: 8, 5: 4}
_WIRE_NAMES = {1: "fixed64", 2: "length-delimited field", 5: "fixed32"}


def fields(buf, fail):
    """Yields (field number, wire type, value) of each field of a message: varints as ints, the rest as
    bytes, every length checked. Problems raise fail(kind, detail): "field 0", "truncated" (detail: what
    was cut short) or "wire type" (detail: the type)."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos, end, fail)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise fail("field 0")
        if wire == 0:
            v, pos = read_varint(buf, pos, end, fail)
        elif wire in _FIXED or wire == 2:
            n = _FIXED.get(wire)
            if n is None:
                n, pos = read_varint(buf, pos, end, fail)
            if n > end - pos:
                raise fail("truncated", _WIRE_NAMES[wire])
            v, pos = buf[pos:pos + n], pos + n
        else:
            raise fail("wire type", wire)
        yield field, wire, v


def _key(field, wire):
    return _varint(field << 3 | wire)


def varint_field(field, n):
    return _key(field, 0) + _varint(int(n))


def bytes_field(field, b):
    if isinstance(b, str):
        b = b.encode()
    return _key(field, 2) + _varint(len(b)) + b


def double_field(field, x):
    return _key(field, 1) + struct.pack("<d", x)


def float_field(field, x):
    return _key(field, 5) + struct.pack("<f", x)


def packed_varints(field, ns):
    return bytes_field(field, b"".join(_varint(int(n)) for n in ns))


# ------------------------------------------------------------------------------------------ tensors
def shape_message(shape):
    shape = TensorShape(shape)
    if shape.rank is None:
        return varint_field(3, 1)  # unknown_rank
    return b"".join(bytes_field(2, varint_field(1, -1 if d is None else d)) for d in shape)


def tensor_message(value):
    """TensorProto: dtype, shape, and the data (raw little-endian bytes, or string_val for strings)."""
    a = np.asarray(value)
    dt = _dt.from_numpy(a.dtype)
    out = varint_field(1, dt.as_datatype_enum) + bytes_field(2, shape_message(a.shape))
    if dt is _dt.string:
        return out + b"".join(bytes_field(8, x if isinstance(x, bytes) else str(x).encode())
                              for x in a.reshape(-1))
    return out + bytes_field(4, np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())


# ------------------------------------------------------------------------------------------ summaries
def summary_value(tag, tensor, plugin, content=b"", description=None):
    """Summary.Value with a tensor and SummaryMetadata naming the TensorBoard plugin that shows it."""
    plugin_data = bytes_field(1, plugin) + (bytes_field(2, content) if content else b"")
    metadata = bytes_field(1, plugin_data) + (bytes_field(3, description) if description else b"")
    return bytes_field(1, tag) + bytes_field(8, tensor_message(tensor)) + bytes_field(9, metadata)


def event(wall_time, step=0, summary_values=(), graph_def=None, file_version=None, writer=None):
    out = double_field(1, wall_time)
    if step:
        out += varint_field(2, step)
    if file_version is not None:
        out += bytes_field(3, file_version)
    if graph_def is not None:
        out += bytes_field(4, graph_def)
    if summary_values:
        out += bytes_field(5, b"".join(bytes_field(1, v) for v in summary_values))
    if writer is not None:
        out += bytes_field(10, bytes_field(1, writer))  # SourceMetadata.writer
    return out


def run_metadata(graph_defs):
    """RunMetadata listing each traced function's graph as a FunctionGraphs.pre_optimization_graph."""
    return b"".join(bytes_field(4, bytes_field(2, g)) for g in graph_defs)


# ------------------------------------------------------------------------------------------ graphs
def graph_def_message(gd):
    """A rivulet GraphDef (graph/graph_def.py) as TensorFlow's GraphDef protobuf."""
    out = b"".join(bytes_field(1, node_message(n)) for n in gd.node)
    if gd.library:
        funcs = b"".join(bytes_field(1, bytes_field(1, bytes_field(1, name)) +
                                     b"".join(bytes_field(3, node_message(n)) for n in nodes))
                         for name, nodes in gd.library)
        out += bytes_field(2, funcs)
    return out + bytes_field(4, varint_field(1, gd.producer))


def node_message(n):
    out = bytes_field(1, n.name) + bytes_field(2, n.op) + b"".join(bytes_field(3, i) for i in n.input)
    if n.device:
        out += bytes_field(4, n.device)
    for k in sorted(n.attr):
        out += bytes_field(5, bytes_field(1, k) + bytes_field(2, attr_message(n.attr[k])))
    return out


def attr_message(tv):
    """AttrValue from graph_def.py's tagged values."""
    kind, v = tv
    if kind == "s":
        return bytes_field(2, v)
    if kind == "i":
        return varint_field(3, v)
    if kind == "f":
        return float_field(4, v)
    if kind == "b":
        return varint_field(5, bool(v))
    if kind == "type":
        return varint_field(6, v.as_datatype_enum)
    if kind == "shape":
        return bytes_field(7, shape_message(v))
    if kind == "tensor":
        return bytes_field(8, tensor_message(v))
    if kind == "func":
        return bytes_field(10, bytes_field(1, v))
    return bytes_field(1, _list_message(v))


def _list_message(items):
    """AttrValue.ListValue: repeated s (2), i (3, packed), f (4, packed), b (5), type (6), shape (7),
    tensor (8), func (9). Packed fields may be split over several records, which keeps this simple."""
    out = b""
    for kind, v in items:
        if kind == "s":
            out += bytes_field(2, v)
        elif kind in ("i", "b"):
            out += packed_varints(3 if kind == "i" else 5, [v])
        elif kind == "f":
            out += bytes_field(4, struct.pack("<f", v))
        elif kind == "type":
            out += packed_varints(6, [v.as_datatype_enum])
        elif kind == "shape":
            out += bytes_field(7, shape_message(v))
        elif kind == "tensor":
            out += bytes_field(8, tensor_message(v))
        elif kind == "func":
            out += bytes_field(9, bytes_field(1, v))
    return out
