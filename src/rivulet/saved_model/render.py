"""Pictures of graphs: Graphviz DOT text, and an SVG laid out here when the `dot` program is not installed.

Nodes are ops (name and type; colour by kind: inputs, constants, variables, outputs, control flow), edges
are tensors labelled with their shapes. Control-flow sub-graphs are drawn as their own panels (DOT
clusters), titled with the op that runs them.
"""
import html
import shutil
import subprocess

from . import format as fmt

_COLOURS = {"input": "#c8e6c9", "const": "#eeeeee", "variable": "#ffe0b2", "output": "#bbdefb",
            "control": "#e1bee7", "op": "#ffffff"}
_CONTROL = {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"}
_ROW, _GAP, _CHAR, _PAD, _HEIGHT = 70, 24, 7, 16, 34


def _kind(op, outputs):
    if op.type == "Placeholder":
        return "variable" if op.outputs[0].dtype.name == "resource" else "input"
    if op.type == "Const":
        return "const"
    if "Variable" in op.type:
        return "variable"
    if op.type in _CONTROL:
        return "control"
    return "output" if any(id(t) in outputs for t in op.outputs) else "op"


def subgraphs(graph):
    """[(title, Graph, output tensors)] for the control-flow sub-graphs of graph's ops, recursively."""
    out = []
    for op in graph.get_operations():
        for key, value in op.attrs.items():
            for sub in _subs(value):
                out.append((f"{op.name}: {sub.graph.name}", sub.graph, sub.outputs))
                out.extend(subgraphs(sub.graph))
    return out


def _subs(value):
    kind = fmt.ATTR_CLASSES.get(fmt.attr_class_key(type(value)))
    if kind == "subgraph":
        return [value]
    if kind == "object":
        return [s for v in vars(value).values() for s in _subs(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _subs(v)]
    return []


def _panels(graph, outputs, title):
    return [(title, graph, outputs)] + subgraphs(graph)


def _label(t):
    return str(t.shape) if t.shape.rank is not None else "?"


def _tooltip(op):
    lines = [f"{op.name} = {op.type}"]
    lines += [f"  {k} = {v!r}"[:120] for k, v in op.attrs.items() if k != "value" or getattr(v, "size", 0) <= 8]
    lines += [f"  -> {t.dtype.name}{t.shape}" for t in op.outputs]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ DOT
def to_dot(graph, outputs, title="graph"):
    lines = ["digraph G {", f"  label={_q(title)}; labelloc=t; fontname=Helvetica;",
             "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, fontsize=10];",
             "  edge [fontname=Helvetica, fontsize=8, color=\"#555555\"];"]
    for i, (name, g, outs) in enumerate(_panels(graph, outputs, title)):
        ind = "  " if i == 0 else "    "
        if i:
            lines.append(f"  subgraph cluster_{i} {{ label={_q(name)}; style=dashed; color=\"#9c27b0\";")
        lines.extend(ind + s for s in _dot_body(g, outs, f"p{i}_"))
        if i:
            lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_body(g, outputs, prefix):
    out_ids = {id(t) for t in outputs}
    ids = {op: f"{prefix}{n}" for n, op in enumerate(g.get_operations())}
    body = []
    for op, nid in ids.items():
        body.append(f"{nid} [label={_q(op.name + chr(10) + op.type)}, fillcolor=\"{_COLOURS[_kind(op, out_ids)]}\", "
                    f"tooltip={_q(_tooltip(op))}];")
    for op, nid in ids.items():
        for t in op.inputs:
            if t.op in ids:
                body.append(f"{ids[t.op]} -> {nid} [label={_q(_label(t))}];")
        for c in op.control_inputs:
            if c in ids:
                body.append(f"{ids[c]} -> {nid} [style=dashed, color=\"#aaaaaa\"];")
    return body


def _q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


# ------------------------------------------------------------------------------------------ SVG
def to_svg(graph, outputs, title="graph"):
    """SVG of the graph: Graphviz's layout when `dot` is installed, else the layered layout below."""
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=to_dot(graph, outputs, title), capture_output=True,
                              text=True, timeout=120)
        if done.returncode == 0:
            return done.stdout
    return layout_svg(graph, outputs, title)


def layout_svg(graph, outputs, title="graph"):
    """SVG laid out here: each graph a panel of layered ops, sub-graphs in panels to the right."""
    panels = [_layout(g, outs, name) for name, g, outs in _panels(graph, outputs, title)]
    width = sum(p["width"] for p in panels) + _GAP * (len(panels) + 1)
    height = max(p["height"] for p in panels) + 2 * _GAP
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    x = _GAP
    for i, p in enumerate(panels):
        parts.append(f'<g transform="translate({x},{_GAP})">')
        if i:
            parts.append(f'<rect x="-8" y="-8" width="{p["width"] + 16}" height="{p["height"] + 16}" fill="none" '
                         f'stroke="#9c27b0" stroke-dasharray="5,4" rx="8"/>')
        parts.extend(p["svg"])
        parts.append("</g>")
        x += p["width"] + _GAP
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _layout(g, outputs, title):
    """Layers by longest path from the inputs, order within layers by the neighbours' mean position."""
    ops = g.get_operations()
    preds = {op: [t.op for t in op.inputs if t.op.graph is g] + [c for c in op.control_inputs if c.graph is g]
             for op in ops}
    layer = {}
    for op in ops:  # creation order is topological
        layer[op] = 1 + max((layer[p] for p in preds[op] if p in layer), default=-1)
    succs = {op: [] for op in ops}
    for op in ops:
        for p in preds[op]:
            if p in succs:
                succs[p].append(op)
    for op in ops:  # constants and captures sit just above their first user, not at the top
        if not preds[op] and succs[op] and op.type != "Placeholder" or op.type == "Placeholder" and \
                op.outputs[0].dtype.name == "resource" and succs[op]:
            layer[op] = min(layer[s] for s in succs[op]) - 1
    rows = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for op in ops:
        rows[layer[op]].append(op)
    for sweep in range(4):
        order = rows if sweep % 2 == 0 else rows[::-1]
        nbrs = preds if sweep % 2 == 0 else succs
        pos = {}
        for row in order:
            if pos:
                here = {op: i for i, op in enumerate(row)}
                row.sort(key=lambda op: _mean([pos[n] for n in nbrs[op] if n in pos], here[op]))
            pos.update((op, i) for i, op in enumerate(row))
    width_of = {op: max(len(op.name), len(op.type)) * _CHAR + 2 * _PAD for op in ops}
    xy = {}
    for r, row in enumerate(rows):
        # Each op goes under the mean of its inputs, pushed right only as far as its left neighbour needs.
        x = 0
        for op in row:
            centres = [xy[p][0] + width_of[p] / 2 for p in preds[op] if p in xy]
            x = max(x, _mean(centres, x) - width_of[op] / 2 if centres else x)
            xy[op] = (x, 36 + r * _ROW)
            x += width_of[op] + _GAP
    left = min((x for x, _ in xy.values()), default=0)
    xy = {op: (x - left, y) for op, (x, y) in xy.items()}
    width = max([x + width_of[op] for op, (x, _) in xy.items()] + [len(title) * 8 + 20])
    out_ids = {id(t) for t in outputs}
    svg = [f'<text x="{width / 2}" y="14" text-anchor="middle" font-size="13" font-weight="bold">'
           f'{html.escape(title)}</text>']
    for op in ops:
        x1, y1 = xy[op]
        for t in op.inputs:
            if t.op in xy:
                svg.append(_edge(xy[t.op], width_of[t.op], x1, y1, width_of[op], _label(t), False))
        for c in op.control_inputs:
            if c in xy:
                svg.append(_edge(xy[c], width_of[c], x1, y1, width_of[op], "", True))
    for op in ops:
        x, y = xy[op]
        w = width_of[op]
        svg.append(f'<g><title>{html.escape(_tooltip(op))}</title>'
                   f'<rect x="{x}" y="{y}" width="{w}" height="{_HEIGHT}" rx="7" '
                   f'fill="{_COLOURS[_kind(op, out_ids)]}" stroke="#333"/>'
                   f'<text x="{x + w / 2}" y="{y + 14}" text-anchor="middle" font-size="11">'
                   f'{html.escape(op.name)}</text>'
                   f'<text x="{x + w / 2}" y="{y + 27}" text-anchor="middle" font-size="9" fill="#555">'
                   f'{html.escape(op.type)}</text></g>')
    return {"width": width, "height": 36 + len(rows) * _ROW, "svg": svg}


def _edge(src, src_w, x, y, w, label, dashed):
    sx, sy = src[0] + src_w / 2, src[1] + _HEIGHT
    tx, ty = x + w / 2, y
    my = (sy + ty) / 2
    style = 'stroke="#aaa" stroke-dasharray="4,3"' if dashed else 'stroke="#555"'
    text = (f'<text x="{(sx + tx) / 2 + 4}" y="{my + 3}" font-size="8" fill="#777">{html.escape(label)}</text>'
            if label else "")
    return (f'<path d="M{sx},{sy} C{sx},{my} {tx},{my} {tx},{ty}" fill="none" {style} '
            f'marker-end="url(#arrow)"/>{text}')


def _mean(xs, default):
    return sum(xs) / len(xs) if xs else default


def to_html(graph, outputs, title="graph"):
    """A self-contained page: the SVG, with each op's attrs shown when the pointer rests on it."""
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            "<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px} svg{max-width:100%;height:auto}"
            "</style></head><body>\n"
            f"<h2>{html.escape(title)}</h2><p>Hover over an op to see its attributes and outputs.</p>\n"
            f"{to_svg(graph, outputs, title)}</body></html>\n")
