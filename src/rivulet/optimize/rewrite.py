"""The rewrite driver: rebuilds a graph in topological order, offering each node to rules in turn.

A rule is `rule(ctx, op, inputs) -> list of replacement tensors | None`; `inputs` are the op's inputs
already rewritten. Whatever no rule replaces is re-emitted as is (hash-consed when CSE is on). One forward
pass reaches a fixed point for rules that only look backwards (folding, simplification, CSE), because
every input has been rewritten before its consumers are visited. The original graph is never changed.
"""
import numpy as np

from ..graph.graph import Graph
from ..execute.plan import needed_ops


class RewriteContext:
    def __init__(self, graph, consts, cse):
        self.graph = graph
        self._consts = consts  # id(new tensor) -> known constant value
        self._cse = cse
        self._table = {}
        self.changed = 0
        self.frame = None  # the user frame of the op being rewritten, inherited by what replaces it
        self.memo = {}  # what rules found out about this pass's tensors, by id (the graphs keep them alive)

    def const_value(self, t):
        op = t.op
        if op.type == "Const":
            return op.attrs["value"]
        return self._consts.get(id(t))

    def constant(self, value, name):
        self.changed += 1
        return self.graph.constant(value, name=name)

    def clone(self, op, inputs, control):
        """Re-emits `op` unchanged on rewritten inputs of identical types (hash-consed when CSE is on)."""
        key = None
        if self._cse and not op.opdef.stateful and not control:
            key = _cse_key(op.opdef, inputs, op.attrs)
            if key is not None:
                hit = self._table.get(key)
                if hit is not None:
                    self.changed += 1
                    return hit
        outs = self.graph.clone_op(op, inputs, control).outputs
        if key is not None:
            self._table[key] = outs
        return outs

    def emit(self, opdef, inputs, attrs, name, control=(), frame=None):
        key = None
        if self._cse and not opdef.stateful and not control:
            key = _cse_key(opdef, inputs, attrs)
            if key is not None:
                hit = self._table.get(key)
                if hit is not None:
                    self.changed += 1
                    return hit
        with self.graph.control_dependencies(control or None) if control else _null():
            op = self.graph.create_op(opdef, inputs, attrs, name, frame or self.frame)
        if key is not None:
            self._table[key] = op.outputs
        return op.outputs


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _freeze(v):
    if isinstance(v, np.ndarray):
        return None if v.size > 64 else (v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        parts = tuple(_freeze(x) for x in v)
        return None if any(p is None and x is not None for p, x in zip(parts, v)) else parts
    try:
        hash(v)
    except TypeError:
        return None
    return v


def _cse_key(opdef, inputs, attrs):
    if opdef.name == "Const":
        v = attrs["value"]
        if isinstance(v, np.generic) and v.dtype.kind != "O":  # the common Python-scalar constant
            return ("Const", v.dtype.str, v.tobytes())  # bytes: -0.0 and 0.0 stay distinct
        frozen = _freeze(np.asarray(v))
        return None if frozen is None else ("Const", type(v).__name__, frozen)
    if not attrs:
        return (opdef.name, tuple(map(id, inputs)), ())
    items = []
    for k in sorted(attrs):
        f = _freeze(attrs[k])
        if f is None and attrs[k] is not None:
            return None
        items.append((k, f))
    return (opdef.name, tuple(id(t) for t in inputs), tuple(items))


class _Changes(Exception):
    pass


class _Probe(RewriteContext):
    """The rules' context of a pass that only looks: a rule that would make anything changes the graph."""
    def constant(self, value, name):
        raise _Changes

    def emit(self, opdef, inputs, attrs, name, control=(), frame=None):
        raise _Changes


def _unchanged_prefix(inputs, ops, rules, consts, cse):
    """How many of `ops` a rebuild would copy as they are, give or take what the compiler never sees:
    duplicate constants merged (each is a value of the compiled code, none a line) and identities dropped
    (the compiled code's aliases). len(ops) when that is the whole pass: the graph compiles as it is."""
    fed = {id(t) for t in inputs}
    ctx = _Probe(None, consts or {}, cse)
    alias, table = {}, {}
    for i, op in enumerate(ops):
        try:
            if not _as_it_is(op, ctx, rules, cse, fed, alias, table):
                return i
        except _Changes:
            return i
    return len(ops)


def _as_it_is(op, ctx, rules, cse, fed, alias, table):
    """Whether a rebuild copies `op` as it is, give or take a merged constant or dropped identity (noted in
    `alias`); a rule that would make anything raises _Changes (_Probe)."""
    typ = op.type
    if typ == "Placeholder":
        return id(op.outputs[0]) in fed
    ins = [alias.get(id(t), t) for t in op._inputs] if alias else op._inputs
    if typ == "Identity":
        res = None
        for rule in rules:
            res = rule(ctx, op, ins)
            if res is not None:
                break
        if res is not None:
            if op.control_inputs or len(res) != 1 or res[0] is not ins[0]:
                return False
            alias[id(op.outputs[0])] = ins[0]
            return True
    else:
        ctx.frame = op.user_frame
        for rule in rules:
            if rule(ctx, op, ins) is not None:
                return False
    if cse and not op.control_inputs and not op.opdef.stateful:
        key = _cse_key(op.opdef, ins, op.attrs)
        if key is not None:
            hit = table.get(key)
            if hit is None:
                table[key] = op.outputs
            elif typ == "Const":
                alias[id(op.outputs[0])] = hit[0]
            else:
                return False
    return True


def _prunes_nothing_real(graph, ops):
    """Whether the ops pruning leaves out of `graph` are at most unused constants and placeholders (what else
    the graph holds, whoever looks at its ops, such as the BLAS thread policy, would count)."""
    if len(ops) == len(graph._ops):
        return True
    kept = {op._id for op in ops}
    return all(op.type in ("Const", "Placeholder") for op in graph._ops if op._id not in kept)


def rebuild(graph, inputs, outputs, rules, consts=None, cse=True, prune=True, as_is=False):
    """Returns (new graph, new inputs, new outputs, number of rewrites). `consts`: {id(input): value}.
    `as_is` (for the compiler alone): the graph itself when the pass would change nothing the compiler sees
    (see _unchanged_prefix), saving its copy; else the ops before the first change are copied without
    offering them to the rules again."""
    ops = needed_ops(graph, outputs, keep_stateful=True) if prune else graph.get_operations()
    start = 0
    if as_is:
        start = _unchanged_prefix(inputs, ops, rules, consts, cse)
        if start == len(ops) and _prunes_nothing_real(graph, ops):
            return graph, list(inputs), list(outputs), 0
    g2 = Graph(graph.name)
    g2.outer_graph = graph.outer_graph
    tmap, omap = {}, {}
    for ph in inputs:
        new = g2.placeholder(ph.dtype, ph.shape, name=ph.op.name)
        tmap[id(ph)] = new
    known = {id(tmap[pid]): v for pid, v in consts.items() if pid in tmap} if consts else {}
    ctx = RewriteContext(g2, known, cse)
    for i, op in enumerate(ops):
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in tmap:
                raise ValueError(f"Placeholder '{op.name}' is needed but is not an input of the graph")
            continue
        ins = [tmap[id(t)] for t in op._inputs]
        ctx.frame = op.user_frame
        res = None
        if i >= start or op.type == "Identity":  # before `start` the rules were offered it: they keep it
            for rule in rules:
                res = rule(ctx, op, ins)
                if res is not None:
                    ctx.changed += 1
                    break
        if res is None:
            ctrl = [omap[c._id] for c in op.control_inputs if c._id in omap]
            same = True
            for n, o in zip(ins, op._inputs):
                if n._dtype is not o._dtype or (n._shape is not o._shape and n._shape != o._shape):
                    same = False
                    break
            if same:
                res = ctx.clone(op, ins, ctrl)
            else:
                res = ctx.emit(op.opdef, ins, op.attrs, op.name, ctrl)
            if res and len(res) and hasattr(res[0], "op"):
                omap[op._id] = res[0].op
        for t, r in zip(op.outputs, res):
            tmap[id(t)] = r
    return g2, [tmap[id(t)] for t in inputs], [tmap[id(t)] for t in outputs], ctx.changed
