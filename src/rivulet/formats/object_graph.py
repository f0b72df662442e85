"""TensorFlow's TrackableObjectGraph message, stored in every object-based checkpoint under
`_CHECKPOINTABLE_OBJECT_GRAPH`: one TrackableObject per node (children 1: ObjectReference{node_id 1,
local_name 2}; attributes 2: SerializedTensor{name 1, full_name 2, checkpoint_key 3}; slot_variables 3:
{original_variable_node_id 1, slot_name 2, slot_variable_node_id 3}; has_checkpoint_values 5: BoolValue)."""
from dataclasses import dataclass, field

from ..errors import DataLossError
from .checkpoint_wire import bytes_field, first, parse, repeated, varint_field

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ESCAPE = "."


def escape_local_name(name):
    """A child name as it appears in a checkpoint key: "." doubled, "/" written ".S" (as TensorFlow does)."""
    return name.replace(_ESCAPE, _ESCAPE * 2).replace("/", _ESCAPE + "S")


def checkpoint_key(path, attribute="VARIABLE_VALUE"):
    return "/".join(escape_local_name(p) for p in path) + f"/.ATTRIBUTES/{attribute}"


@dataclass
class Node:
    children: list = field(default_factory=list)      # [(node_id, local_name)]
    attributes: list = field(default_factory=list)    # [(name, full_name, checkpoint_key)]
    slot_variables: list = field(default_factory=list)  # [(original node id, slot name, slot node id)]
    has_values: bool = False


def encode(nodes):
    out = []  # joined once: adding to one bytes object would copy it for every node
    for n in nodes:
        msg = b"".join(bytes_field(1, (varint_field(1, i) if i else b"") + bytes_field(2, name))
                       for i, name in n.children)
        msg += b"".join(bytes_field(2, bytes_field(1, a) + bytes_field(2, f) + bytes_field(3, k))
                        for a, f, k in n.attributes)
        msg += b"".join(bytes_field(3, (varint_field(1, o) if o else b"") + bytes_field(2, s) +
                                    (varint_field(3, v) if v else b"")) for o, s, v in n.slot_variables)
        msg += bytes_field(5, varint_field(1, 1) if n.has_values else b"")
        out.append(bytes_field(1, msg))
    return b"".join(out)


def _text(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise DataLossError(None, None, "the checkpoint's object graph holds a name that is not UTF-8") from None


def decode(raw):
    nodes = []
    for buf in repeated(parse(raw), 1):
        m = parse(buf)
        n = Node()
        for c in repeated(m, 1):
            c = parse(c)
            n.children.append((first(c, 1), _text(first(c, 2, b""))))
        for a in repeated(m, 2):
            a = parse(a)
            n.attributes.append((_text(first(a, 1, b"")), _text(first(a, 2, b"")), _text(first(a, 3, b""))))
        for s in repeated(m, 3):
            s = parse(s)
            n.slot_variables.append((first(s, 1), _text(first(s, 2, b"")), first(s, 3)))
        hv = repeated(m, 5)
        n.has_values = bool(first(parse(hv[-1]), 1)) if hv else True
        nodes.append(n)
    count = len(nodes)
    for n in nodes:
        ids = [i for i, _ in n.children] + [x for o, _, v in n.slot_variables for x in (o, v)]
        if any(not 0 <= i < count for i in ids):
            raise DataLossError(None, None, "the checkpoint's object graph refers to a node that does not exist")
    return nodes
