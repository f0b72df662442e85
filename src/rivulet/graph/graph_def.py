"""GraphDef / NodeDef: the graph as plain data, printed in protobuf text format like TensorFlow's.

Attribute values are kept as tagged Python values (`("type", DType)`, `("shape", TensorShape)`,
`("tensor", ndarray)`, `("b", bool)`, `("i", int)`, `("f", float)`, `("s", bytes)`, `("list", [...])`,
`("func", name)`), which is also what the saved-model format serialises.
"""
import itertools
import weakref

import numpy as np

from .. import dtypes as _dt
from ..shape import TensorShape

# The GraphDef version TensorFlow 2.21 writes (`versions { producer: ... }`).
GRAPH_DEF_VERSION = 2474

# Ops whose first inputs share the type attr "T" in TensorFlow's GraphDefs.
_NO_T = {"Const", "Placeholder", "Cast", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
         "AssignSubVariableOp", "VarHandleOp", "NoOp"}


class NodeDef:
    """`attr` holds the tagged values TensorFlow would show; `op_attrs` the exact attrs rivulet's op was built
    with (None for a hand-made NodeDef), which is what import_graph_def and saved models rebuild from."""
    __slots__ = ("name", "op", "input", "attr", "device", "op_attrs")

    def __init__(self, name, op, input=(), attr=None, device="", op_attrs=None):  # noqa: A002
        self.name, self.op, self.input, self.attr, self.device = name, op, list(input), dict(attr or {}), device
        self.op_attrs = op_attrs

    def __str__(self):
        return "".join(_node_lines(self, ""))

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    __slots__ = ("node", "producer", "library")

    def __init__(self, node=(), producer=GRAPH_DEF_VERSION, library=()):
        self.node, self.producer, self.library = list(node), producer, list(library)

    def __str__(self):
        out = []
        for n in self.node:
            out.append("node {\n")
            out.extend(_node_lines(n, "  "))
            out.append("}\n")
        if self.library:
            out.append("library {\n")
            for fname, fnodes in self.library:
                out.append(f"  function {{\n    signature {{\n      name: \"{fname}\"\n    }}\n")
                for n in fnodes:
                    out.append("    node_def {\n")
                    out.extend(_node_lines(n, "      "))
                    out.append("    }\n")
                out.append("  }\n")
            out.append("}\n")
        # a graph holding functions needs consumers of version 12 at least (TensorFlow says so once it has one)
        consumer = "  min_consumer: 12\n" if self.library else ""
        out.append(f"versions {{\n  producer: {self.producer}\n{consumer}}}\n")
        return "".join(out)

    __repr__ = __str__


def _tensor_name(t):
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def node_def_of(op):
    attrs = {}
    if op.type == "Placeholder":
        attrs["dtype"] = ("type", op.attrs["dtype"])
        attrs["shape"] = ("shape", op.attrs["shape"])
        attrs["_user_specified_name"] = ("s", op.name.encode())
    elif op.type == "Const":
        attrs["dtype"] = ("type", op.attrs["dtype"])
        attrs["value"] = ("tensor", np.asarray(op.attrs["value"]))
    else:
        if op.type == "Cast":
            attrs["SrcT"] = ("type", op.inputs[0].dtype)
            attrs["Truncate"] = ("b", False)
        elif op.type not in _NO_T and op.inputs and (op.opdef.same or op.opdef.allowed is not None or
                                                     op.type == "Identity"):
            attrs["T"] = ("type", op.inputs[0].dtype)
        flow = _control_flow_attrs(op)
        if flow is not None:
            attrs.update(flow)
        else:
            for k, v in op.attrs.items():
                attrs[k] = attr_value(v)
        if op.type == "MatMul":  # TensorFlow 2.21's MatMul states every attr (grad_*: which operand is a gradient)
            for k in ("transpose_a", "transpose_b", "grad_a", "grad_b"):
                attrs.setdefault(k, ("b", False))
    inputs = [_tensor_name(t) for t in op.inputs] + ["^" + c.name for c in op.control_inputs]
    return NodeDef(op.name, op.type, inputs, attrs, op_attrs=dict(op.attrs))


def attr_value(v):
    if isinstance(v, _dt.DType):
        return ("type", v)
    if isinstance(v, TensorShape):
        return ("shape", v)
    if isinstance(v, (bool, np.bool_)):
        return ("b", bool(v))
    if isinstance(v, (int, np.integer)):
        return ("i", int(v))
    if isinstance(v, (float, np.floating)):
        return ("f", float(v))
    if isinstance(v, str):
        return ("s", v.encode())
    if isinstance(v, bytes):
        return ("s", v)
    if v is None:
        return ("list", [])
    if isinstance(v, (list, tuple)):
        return ("list", [attr_value(x) for x in v])
    if isinstance(v, np.ndarray):
        return ("tensor", v)
    name = getattr(v, "name", None) or getattr(v, "_name", None)
    return ("func", str(name) if name else type(v).__name__)


def subgraphs(op):
    """The sub-graphs of a control-flow op (branches of If/Case, cond and body of While), in order; [] for
    any other op."""
    return [sub.graph for sub, _ in _sub_feeds(op)]


def side_effect(op, harmless=("ReadVariableOp",)):
    """The first stateful op that does more than the `harmless` kinds: a stateful `op` itself, or for control
    flow the first one inside its sub-graphs (a loop or cond whose sub-graphs only read variables is as pure as
    the graph around it); None when there is none."""
    if not op.opdef.stateful:
        return None
    subs = subgraphs(op)
    if not subs:
        return None if op.type in harmless else op
    for g in subs:
        for inner in g.get_operations():
            found = side_effect(inner, harmless)
            if found is not None:
                return found
    return None


_FUNC_NAMES = weakref.WeakKeyDictionary()
_func_ids = itertools.count(1)


def func_name(g):
    """A sub-graph's name in a function library, unique per process like TensorFlow's cond_true_30."""
    name = _FUNC_NAMES.get(g)
    if name is None:
        name = _FUNC_NAMES[g] = f"{g.name}_{next(_func_ids)}"
    return name


def _sub_feeds(op):
    """[(sub-graph, the op input feeding each of its inputs)] of a control-flow op ([] for other ops)."""
    b = op.attrs.get("branches")
    if b is not None and hasattr(b, "subs"):
        return [(sub, list(feed)) for sub, feed in zip(b.subs, b.feeds)]
    body = op.attrs.get("body")
    if body is not None and hasattr(body, "cond") and hasattr(body, "body"):
        loop_vars = list(range(body.n_vars))
        return [(body.cond, loop_vars + list(body.cond_feed)), (body.body, loop_vars + list(body.body_feed))]
    return []


def read_only_resource_inputs(op):
    """Indices of a control-flow op's resource inputs (variables) that its sub-graphs only read (TensorFlow's
    `_read_only_resource_inputs`): every use is a ReadVariableOp, or such an input of a nested one."""
    feeds = _sub_feeds(op)
    return [i for i, t in enumerate(op.inputs) if t.dtype is _dt.resource and
            all(_only_read(sub.graph, ph) for sub, feed in feeds for ph, j in zip(sub.inputs, feed) if j == i)]


def _only_read(graph, ph):
    for o in graph.get_operations():
        for k, x in enumerate(o.inputs):
            if x is ph and o.type != "ReadVariableOp" and not (_sub_feeds(o) and k in read_only_resource_inputs(o)):
                return False
    return True


def _control_flow_attrs(op):
    """TensorFlow's attrs for If/Case/While: input/output types, the branch functions by name, shapes, and
    the attrs TensorFlow's cond_v2/while_v2 add (lowering, read-only variables, While's output count)."""
    subs = subgraphs(op)
    if not subs:
        return None
    types = lambda ts: ("list", [("type", t.dtype) for t in ts])  # noqa: E731
    shapes = ("list", [("shape", t.shape) for t in op.outputs])
    added = {"_lower_using_switch_merge": ("b", True),
             "_read_only_resource_inputs": ("list", [("i", i) for i in read_only_resource_inputs(op)])}
    if op.type in ("If", "StatelessIf"):
        return {"Tcond": ("type", op.inputs[0].dtype), "Tin": types(op.inputs[1:]), "Tout": types(op.outputs),
                "then_branch": ("func", func_name(subs[0])), "else_branch": ("func", func_name(subs[1])),
                "output_shapes": shapes, **added}
    if op.type in ("Case", "StatelessCase"):
        return {"Tin": types(op.inputs[1:]), "Tout": types(op.outputs), "output_shapes": shapes,
                "branches": ("list", [("func", func_name(g)) for g in subs]), **added}
    return {"T": types(op.inputs), "cond": ("func", func_name(subs[0])), "body": ("func", func_name(subs[1])),
            "output_shapes": shapes, "parallel_iterations": ("i", 10),
            "_num_original_outputs": ("i", len(op.outputs)), **added}


def graph_to_graph_def(graph, add_shapes=False):
    nodes = [node_def_of(op) for op in graph.get_operations()]
    if add_shapes:
        for n, op in zip(nodes, graph.get_operations()):
            n.attr["_output_shapes"] = ("list", [("shape", t.shape) for t in op.outputs])
    library, seen = [], set()

    def collect(g):
        for op in g.get_operations():
            for sub in subgraphs(op):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    library.append((func_name(sub), [node_def_of(o) for o in sub.get_operations()]))
                    collect(sub)
    collect(graph)
    return GraphDef(nodes, library=library)


# ------------------------------------------------------------------------------- text format
def _text_key(k):
    b = k.encode() if isinstance(k, str) else bytes(k)
    # bytes compare descending, a prefix before its extensions: each byte inverted, then an end marker (0x100)
    # above every inverted byte would put "T" after "Tidx"; below them all (-1) puts it first, as upb does.
    return [255 - c for c in b] + [-1]


def text_order(keys):
    """Map keys in the order TensorFlow 2.21 prints a NodeDef's attrs (str() of its protobuf messages, upb's
    text encoder): sorted by their bytes in descending order, except that a key that is a prefix of another
    comes first ("transpose_b", "transpose_a", "grad_b", "grad_a", "T"; "T", "Tidx", "N")."""
    return sorted(keys, key=_text_key)


def _node_lines(n, ind):
    yield f'{ind}name: "{n.name}"\n'
    yield f'{ind}op: "{n.op}"\n'
    for i in n.input:
        yield f'{ind}input: "{i}"\n'
    if n.device:
        yield f'{ind}device: "{n.device}"\n'
    for k in text_order(n.attr):
        yield f"{ind}attr {{\n{ind}  key: \"{k}\"\n{ind}  value {{\n"
        yield from _value_lines(n.attr[k], ind + "    ")
        yield f"{ind}  }}\n{ind}}}\n"


def _shape_lines(s, ind):
    yield f"{ind}shape {{\n"
    if s.rank is None:
        yield f"{ind}  unknown_rank: true\n"
    else:
        for d in s:
            yield f"{ind}  dim {{\n{ind}    size: {-1 if d is None else d}\n{ind}  }}\n"
    yield f"{ind}}}\n"


def _value_lines(tv, ind):
    kind, v = tv
    if kind == "type":
        yield f"{ind}type: {_dt.ENUM_NAMES[v.as_datatype_enum]}\n"
    elif kind == "shape":
        yield from _shape_lines(v, ind)
    elif kind == "b":
        yield f"{ind}b: {'true' if v else 'false'}\n"
    elif kind == "i":
        yield f"{ind}i: {v}\n"
    elif kind == "f":
        yield f"{ind}f: {_fmt_float(v)}\n"
    elif kind == "s":
        yield f'{ind}s: "{text_escape(v)}"\n'
    elif kind == "func":
        yield f'{ind}func {{\n{ind}  name: "{v}"\n{ind}}}\n'
    elif kind == "tensor":
        yield from _tensor_lines(v, ind)
    elif kind == "list":
        if not v:
            yield f"{ind}list {{\n{ind}}}\n"
            return
        yield f"{ind}list {{\n"
        for item in v:
            yield from _value_lines(item, ind + "  ")
        yield f"{ind}}}\n"


_VAL_FIELD = {"f": "float_val", "d": "double_val", "i": "int_val", "u": "int_val", "b": "bool_val",
              "c": "scomplex_val", "O": "string_val", "e": "half_val"}


def _tensor_lines(a, ind):
    dt = _dt.from_numpy(a.dtype)
    yield f"{ind}tensor {{\n{ind}  dtype: {_dt.ENUM_NAMES[dt.as_datatype_enum]}\n{ind}  tensor_shape {{\n"
    for d in a.shape:
        yield f"{ind}    dim {{\n{ind}      size: {d}\n{ind}    }}\n"
    yield f"{ind}  }}\n"
    if a.size == 1 or a.dtype == object:
        field = _VAL_FIELD["d" if a.dtype == np.float64 else ("i" if a.dtype == np.int64 else a.dtype.kind)]
        if a.dtype == np.int64:
            field = "int64_val"
        for x in a.reshape(-1)[: 1 if a.dtype != object else None]:
            if a.dtype == object:
                yield f'{ind}  {field}: "{text_escape(x)}"\n'
            elif a.dtype.kind == "b":
                yield f"{ind}  {field}: {'true' if x else 'false'}\n"
            elif a.dtype.kind == "f":
                yield f"{ind}  {field}: {_fmt_float(x)}\n"
            else:
                yield f"{ind}  {field}: {int(x)}\n"
    elif a.size:
        yield f'{ind}  tensor_content: "{text_escape(np.ascontiguousarray(a).tobytes())}"\n'
    yield f"{ind}}}\n"


def _fmt_float(x):
    s = np.format_float_positional(np.float32(x) if not isinstance(x, np.float64) else x, trim="-")
    return s


def text_escape(b):
    if isinstance(b, str):
        b = b.encode()
    out = []
    for c in b:
        ch = chr(c)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= c < 127:
            out.append(ch)
        else:
            out.append(f"\\{c:03o}")
    return "".join(out)
