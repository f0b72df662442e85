"""Static analysis over a function body, at statement granularity.

Symbols are names (`x`) and attribute chains rooted at a name (`self.count`, "composites"). Nested scopes
(functions, lambdas, comprehensions) bind nothing outside themselves, except names they declare nonlocal
(how converted code writes its loop and branch variables); what they read counts as read where they are.

`annotate(fn_node)` sets on every if/while/for statement:
  _ag_live_in / _ag_live_out: symbols that may be read before being overwritten, from its start / end;
  _ag_defined_in: symbols that may have been assigned before it (parameters included).
"""
import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp, ast.ClassDef)


def qualified(node):
    """'a.b.c' for a Name/Attribute chain rooted at a Name (or at ag__.ld(name)), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if _is_ld(node):
        node = node.args[0]
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_ld(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ld" and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == "ag__" and len(node.args) == 1


class _Activity(ast.NodeVisitor):
    def __init__(self):
        self.bound, self.read = set(), set()

    def visit_Name(self, node):
        (self.bound if isinstance(node.ctx, (ast.Store, ast.Del)) else self.read).add(node.id)

    def visit_Attribute(self, node):
        q = qualified(node)
        if q is not None and isinstance(node.ctx, (ast.Store, ast.Del)):
            self.bound.add(q)
            self._reads_of_base(node.value)
            return
        if q is not None:
            self.read.add(q)
        self.generic_visit(node)

    def _reads_of_base(self, node):
        self.read.add(qualified(node))
        q = node
        while isinstance(q, ast.Attribute):
            q = q.value
            self.read.add(qualified(q))

    def visit_AugAssign(self, node):
        self.visit(node.value)
        q = qualified(node.target)
        if q is not None:
            self.read.add(q)
            self.bound.add(q)
            if isinstance(node.target, ast.Attribute):
                self._reads_of_base(node.target.value)
        else:
            self.visit(node.target)

    def _nested(self, node, params, body):
        inner = _Activity()
        for b in body:
            inner.visit(b)
        declared = set()
        for n in ast.walk(node):
            if isinstance(n, (ast.Nonlocal, ast.Global)):
                declared.update(n.names)
        local = (inner.bound | set(params)) - declared
        self.read |= {s for s in inner.read if s.split(".")[0] not in local}
        self.bound |= {s for s in inner.bound if s.split(".")[0] in declared}

    def visit_FunctionDef(self, node):
        for d in node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]:
            self.visit(d)
        self.bound.add(node.name)
        self._nested(node, _params(node.args), node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        for d in node.args.defaults:
            self.visit(d)
        self._nested(node, _params(node.args), [node.body])

    def _comprehension(self, node, elts):
        targets = set()
        for g in node.generators:
            t = _Activity()
            t.visit(g.target)
            targets |= t.bound
        inner = _Activity()
        for g in node.generators:
            inner.visit(g.iter)
            for c in g.ifs:
                inner.visit(c)
        for e in elts:
            inner.visit(e)
        self.read |= {s for s in inner.read if s.split(".")[0] not in targets}

    def visit_ListComp(self, node):
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._comprehension(node, [node.key, node.value])

    def visit_ClassDef(self, node):
        self.bound.add(node.name)

    def visit_Import(self, node):
        for a in node.names:
            self.bound.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_Global(self, node):
        pass

    visit_Nonlocal = visit_Global


def _params(args):
    ps = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    ps += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return ps


def activity(nodes):
    """(bound, read) symbols of statements or expressions."""
    a = _Activity()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        a.visit(n)
    return a.bound, a.read


def bound(nodes):
    return activity(nodes)[0]


def reads(nodes):
    return activity(nodes)[1]


def _kills(stmt):
    """Symbols a simple statement certainly overwrites (reads that follow cannot see earlier values)."""
    if isinstance(stmt, ast.Assign):
        return bound(stmt.targets)
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return bound([stmt.target])
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return set()


# ----------------------------------------------------------------------------- liveness (backward)

def _live_block(stmts, live):
    for s in reversed(stmts):
        live = _live_stmt(s, live)
    return live


def _live_stmt(s, out):
    if isinstance(s, ast.If):
        live = reads(s.test) | _live_block(s.body, out) | _live_block(s.orelse, out)
    elif isinstance(s, (ast.While, ast.For, ast.AsyncFor)):
        head = reads(s.test) if isinstance(s, ast.While) else reads(s.iter)
        after = _live_block(s.orelse, out) | out
        body_in = set()
        for _ in range(3):  # loop-carried liveness settles in two rounds for these set equations
            loop_top = after | head | body_in
            body_in = _live_block(s.body, loop_top)
            if not isinstance(s, ast.While):
                body_in = body_in - _kills_target(s.target)
        live = head | body_in | after
        s._ag_body_live_in = body_in
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        # `with ... as name` binds name before the body runs: the body's reads of it see that value
        targets = bound([i.optional_vars for i in s.items if i.optional_vars])
        live = reads([i.context_expr for i in s.items]) | (_live_block(s.body, out) - targets)
    elif isinstance(s, ast.Try):
        handlers = set()
        for h in s.handlers:
            handlers |= _live_block(h.body, out)
        rest = _live_block(s.orelse, _live_block(s.finalbody, out))
        live = _live_block(s.body, rest | handlers) | handlers
    elif isinstance(s, (ast.Return, ast.Raise)):
        live = reads(s)
    else:
        live = (out - _kills(s)) | reads(s)
    if isinstance(s, (ast.If, ast.While, ast.For)):
        s._ag_live_out = set(out)
        s._ag_live_in = set(live)
    return live


def _kills_target(target):
    return bound([target])


# ----------------------------------------------------------------------------- possibly defined (forward)

def _defined_block(stmts, defined):
    for s in stmts:
        defined = _defined_stmt(s, defined)
    return defined


def _defined_stmt(s, d):
    if isinstance(s, (ast.If, ast.While, ast.For)):
        s._ag_defined_in = set(d)
    if isinstance(s, ast.If):
        return _defined_block(s.body, d) | _defined_block(s.orelse, d)
    if isinstance(s, (ast.While, ast.For)):
        inner = d | bound(s.body) | (bound([s.target]) if isinstance(s, ast.For) else set())
        return _defined_block(s.body, inner) | _defined_block(s.orelse, inner)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return _defined_block(s.body, d | bound([i.optional_vars for i in s.items if i.optional_vars]))
    if isinstance(s, ast.Try):
        out = _defined_block(s.body, d)
        for h in s.handlers:
            out |= _defined_block(h.body, d | ({h.name} if h.name else set()))
        return _defined_block(s.finalbody, _defined_block(s.orelse, out))
    return d | bound(s)


def annotate(fn):
    """Annotates the control-flow statements of function `fn` (an ast.FunctionDef)."""
    _live_block(fn.body, set())
    _defined_block(fn.body, set(_params(fn.args)))
    return fn


def scope_declarations(fn):
    """Names the function's own body declares global or nonlocal: {name: ast.Global or ast.Nonlocal}."""
    out = {}
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update((name, type(n)) for name in n.names)
        if not isinstance(n, _SCOPES):
            todo.extend(ast.iter_child_nodes(n))
    return out
