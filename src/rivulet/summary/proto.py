"""tf.summary's messages in the protobuf wire format (Event, Summary, TensorProto, GraphDef, RunMetadata),
written with formats/wire.py's encoders. Field numbers are those of TensorFlow's .proto files.

Each `*_message` function returns the serialised bytes of one message.
"""
import struct

import numpy as np

from .. import dtypes as _dt
from ..formats.tensor_proto import shape_message, tensor_message
from ..formats.wire import bytes_field, double_field, field_key, float_field, packed_varints, varint_field
from ..shape import TensorShape


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
