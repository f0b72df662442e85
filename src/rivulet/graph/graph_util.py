"""tf.graph_util: rebuilding a graph from a GraphDef.

Every node is re-created with `Graph.create_op`, so the shape/dtype rules run again: a GraphDef that does
not describe a valid graph fails here with a ValueError naming the node. The saved-model loader rebuilds its
graphs through `build_nodes` too.
"""
import re

from ..core.op import REGISTRY
from .graph import get_default_graph

_REF = re.compile(r"^(\^?)([^:^]+)(?::(\d+))?$")
# Attrs node_def_of derives for display; the op itself was not built with them.
_DERIVED = frozenset(["T", "SrcT", "Truncate", "grad_a", "grad_b"])  # grad_*: MatMul's, as TF 2.21 states them


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports the nodes of `graph_def` into the default graph under the name scope `name` ("import").

    input_map: {"node" or "node:i": tensor} replaces those tensors wherever the imported nodes use them.
    return_elements: names ("node" for an Operation, "node:i" for a Tensor) to return, in order.
    """
    g = get_default_graph()
    name = "import" if name is None else name
    with g.name_scope(name):
        ops = build_nodes(g, graph_def.node, input_map=input_map)
    if return_elements is None:
        return None
    out = []
    for ref in return_elements:
        m = _REF.match(ref)
        if not m or m.group(1) or m.group(2) not in ops:
            raise ValueError(f"Requested return_element '{ref}' not found in graph_def.")
        op = ops[m.group(2)]
        if m.group(3) is None:
            out.append(op)
        else:
            out.append(_output(op, int(m.group(3)), ref))
    return out


def build_nodes(graph, nodes, input_map=None, attrs_of=None, placeholder=None):
    """Re-creates `nodes` (NodeDefs) in `graph`; returns {node name: Operation}.

    attrs_of(node, tensor_by_name) -> the op's attrs (default: node.op_attrs, else node.attr untagged).
    placeholder(node) -> a tensor standing for a Placeholder node (None: create the Placeholder as is).
    """
    input_map = {_canonical(k): v for k, v in (input_map or {}).items()}
    by_name = {}
    for n in nodes:
        if n.name in by_name:
            raise ValueError(f"Node '{n.name}' is defined twice in the graph_def.")
        by_name[n.name] = n
    built = {}

    def tensor(ref, node):
        m = _REF.match(ref)
        if not m or m.group(1):
            raise ValueError(f"Node '{node.name}': malformed input '{ref}'.")
        key = f"{m.group(2)}:{m.group(3) or 0}"
        if key in input_map:
            return input_map[key]
        op = built.get(m.group(2))
        if op is None:
            raise ValueError(f"Node '{node.name}': Unknown input node '{ref}'.")
        return _output(op, int(m.group(3) or 0), ref)

    for n in topological(by_name):
        opdef = REGISTRY.get(n.op)
        if opdef is None:
            raise ValueError(f"Node '{n.name}': Op type not registered '{n.op}'.")
        data = [r for r in n.input if not r.startswith("^")]
        ctrl = [r[1:] for r in n.input if r.startswith("^")]
        ph = placeholder(n) if placeholder is not None and n.op == "Placeholder" else None
        if ph is not None:
            op = ph.op
        else:
            inputs = [tensor(r, n) for r in data]
            attrs = attrs_of(n, lambda r: tensor(r, n)) if attrs_of is not None else _attrs(n)
            try:
                op = graph.create_op(opdef, inputs, attrs, name=n.name)
            except (ValueError, TypeError) as e:
                raise ValueError(f"Node '{n.name}' ({n.op}) is not valid: {e}") from e
        for c in ctrl:
            if c not in built:
                raise ValueError(f"Node '{n.name}': Unknown control input node '{c}'.")
            if built[c] not in op.control_inputs:
                op.control_inputs.append(built[c])
        built[n.name] = op
    return built


def _attrs(node):
    if node.op_attrs is not None:
        return dict(node.op_attrs)
    return {k: _untag(v) for k, v in node.attr.items() if not k.startswith("_") and k not in _DERIVED}


def _untag(tv):
    kind, v = tv
    if kind == "list":
        return tuple(_untag(x) for x in v)
    return v


def topological(by_name, deps=None):
    """Nodes ordered so each comes after its inputs (a GraphDef need not list them in order).
    deps(node) -> the names of the nodes it reads (default: parsed from the GraphDef's input references)."""
    order, state = [], {}
    for root in by_name:
        stack = [(root, False)]
        while stack:
            name, done = stack.pop()
            if done:
                state[name] = 2
                order.append(by_name[name])
                continue
            if state.get(name) == 2:
                continue
            if state.get(name) == 1:
                raise ValueError(f"The graph_def has a cycle through node '{name}'.")
            state[name] = 1
            stack.append((name, True))
            for dep in _deps(by_name[name]) if deps is None else deps(by_name[name]):
                if dep in by_name and state.get(dep) != 2:
                    if state.get(dep) == 1:
                        raise ValueError(f"The graph_def has a cycle through node '{dep}'.")
                    stack.append((dep, False))
    return order


def _deps(node):
    return [m.group(2) if m else None for m in map(_REF.match, node.input)]


def _output(op, i, ref):
    if i >= len(op.outputs):
        raise ValueError(f"Input '{ref}': node '{op.name}' has only {len(op.outputs)} output(s).")
    return op.outputs[i]


def _canonical(ref):
    m = _REF.match(ref)
    if not m or m.group(1):
        raise ValueError(f"input_map key '{ref}' is not a tensor name.")
    return f"{m.group(2)}:{m.group(3) or 0}"


def data_ancestors(graph, outputs):
    """Ops the outputs depend on through data edges (no control edges), in graph (topological) order: what an
    exporter (ONNX, TFLite) has to convert."""
    want, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op._id not in want:
            want.add(op._id)
            stack.extend(t.op for t in op.inputs)
    return [op for op in graph.get_operations() if op._id in want]


def user_location(frame):
    """'file:line (in function)' for an op's user_frame, the file relative to the working directory."""
    if not frame:
        return "<unknown location>"
    import os
    return f"{os.path.relpath(frame[0])}:{frame[1]} (in {frame[2]})"
