"""What `saved_model_cli show --all --dir DIR` prints for a SavedModel written by TensorFlow.

Read from saved_model.pb itself (SignatureDefs, the ops used, the root object's functions and their
canonical input signatures), so it also lists models rivulet cannot run. The set of ops is printed sorted
(TensorFlow prints a Python set, in hash order).
"""
from ... import dtypes as _dt
from ...shape import TensorSpec
from ..format import Invalid
from . import proto


def show_text(export_dir):
    from . import read_meta_graph
    mg, _ = read_meta_graph(export_dir)
    try:
        return _text(mg)
    except Invalid as e:
        from ..format import SavedModelError
        raise SavedModelError(export_dir, str(e)) from None


def _text(mg):
    tags = list(mg.meta_info_def.tags)
    lines = ["", f"MetaGraphDef with tag-set: '{', '.join(tags)}' contains the following SignatureDefs:"]
    for key in sorted(mg.signature_def):
        sig = mg.signature_def[key]
        lines += ["", f"signature_def['{key}']:",
                  "  The given SavedModel SignatureDef contains the following input(s):"]
        for k in sorted(sig.inputs):
            lines += [f"    inputs['{k}'] tensor_info:"] + _tensor_info(sig.inputs[k])
        lines.append("  The given SavedModel SignatureDef contains the following output(s):")
        for k in sorted(sig.outputs):
            lines += [f"    outputs['{k}'] tensor_info:"] + _tensor_info(sig.outputs[k])
        lines.append(f"  Method name is: {sig.method_name}")
    ops = ", ".join(repr(op) for op in sorted(_ops_used(mg.graph_def)))
    lines.append(f"The MetaGraph with tag set {tags!r} contains the following ops: {{{ops}}}")
    if mg.HasField("object_graph_def"):
        lines += [""] + _functions(mg.object_graph_def, _load_order(mg.graph_def.library))
    return "\n".join(lines) + "\n"


def _tensor_info(info):
    name = _dt.ENUM_NAMES.get(info.dtype, "DT_INVALID" if info.dtype == 0 else f"DT_{info.dtype}")
    if info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    else:
        shape = "(" + ", ".join(str(d.size) for d in info.tensor_shape.dim) + ")"
    return [f"        dtype: {name}", f"        shape: {shape}", f"        name: {info.name}"]


def _ops_used(graph_def):
    """Op types of the graph's nodes and of the functions they call (directly, or as a PartitionedCall's f),
    as TensorFlow counts them: branch and body functions only through such calls."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used, todo = set(), []

    def visit(node):
        called = [node.op]
        if node.op in ("PartitionedCall", "StatefulPartitionedCall") and "f" in node.attr:
            called.append(node.attr["f"].func.name)
        for op in called:
            if op not in used and op in functions:
                todo.append(functions[op])
            used.add(op)
    for n in graph_def.node:
        visit(n)
    while todo:
        for n in todo.pop().node_def:
            visit(n)
    return used - set(functions)


def _load_order(library):
    """{function name: position} in the order TensorFlow's loader renames functions (dependencies first,
    a stack of the ready ones), which decides the order it lists a function's options in."""
    names = [f.signature.name for f in library.function]
    known = set(names)
    users, waiting = {}, {}
    for f in library.function:
        deps = {n.op for n in f.node_def if n.op in known}
        for n in f.node_def:
            for av in n.attr.values():
                kind = av.WhichOneof("value")
                if kind == "func":
                    deps.add(av.func.name)
                elif kind == "list":
                    deps.update(fn.name for fn in av.list.func)
        deps &= known
        waiting[f.signature.name] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(f.signature.name)
    ready = [n for n in names if not waiting[n]]
    order = {}
    while ready:
        name = ready.pop()
        order[name] = len(order)
        for u in users.get(name, ()):
            waiting[u] -= 1
            if not waiting[u]:
                ready.append(u)
    return order


def _functions(graph, order):
    lines = ["Concrete Functions:"]
    root = graph.nodes[0] if len(graph.nodes) else None
    children = sorted(root.children, key=lambda c: c.local_name) if root is not None else []
    for child in children:
        if not 0 <= child.node_id < len(graph.nodes):
            raise Invalid(f"bad object reference {child.node_id}")
        node = graph.nodes[child.node_id]
        kind = node.WhichOneof("kind")
        if kind == "function":
            names = sorted(node.function.concrete_functions, key=lambda n: (order.get(n, len(order)), n))
        elif kind == "bare_concrete_function":
            names = [node.bare_concrete_function.concrete_function_name]
        else:
            continue
        lines.append(f"  Function Name: '{child.local_name}'")
        for n, name in enumerate(names, 1):
            saved = graph.concrete_functions.get(name)
            if saved is None:
                continue
            args, kwargs = _split(proto.structure(saved.canonicalized_input_signature))
            if args:
                lines += [f"    Option #{n}", "      Callable with:"] + _arguments(args, "Argument")
            if kwargs:  # TensorFlow lists the keyword names (iterating the dict)
                lines += _arguments(list(kwargs), "Named Argument")
        lines.append("")
    return lines[:-1] if lines[-1] == "" else lines


def _split(structure):
    if isinstance(structure, tuple) and len(structure) == 2 and isinstance(structure[1], dict):
        return structure
    raise Invalid("a function's input signature is not (args, kwargs)")


def _quoted(v):
    return f"'{v}'" if isinstance(v, str) else str(v)


def _arguments(values, label):
    lines = []
    for i, v in enumerate(values, 1):
        lines.append(f"        {label} #{i}")
        if isinstance(v, str):
            lines.append(f"          {v}")
        elif isinstance(v, TensorSpec):
            lines.append(f"          {v.name}: {v!r}")
        elif isinstance(v, dict):
            items = "".join(f"'{k}': {_quoted(x)}, " for k, x in v.items())
            lines += ["          DType: dict", f"          Value: {{{items}\b\b}}"]
        elif isinstance(v, (list, tuple)):
            items = "".join(f"{_quoted(x)}, " for x in v)
            lines += [f"          DType: {type(v).__name__}", f"          Value: [{items}\b\b]"]
        else:
            lines += [f"          DType: {type(v).__name__}", f"          Value: {v}"]
    return lines
