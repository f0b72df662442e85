"""What the converters share: the conversion context and helpers to rewrite statement blocks."""
import ast

from ..pyct import templates


class Context:
    """One conversion: the function's name, a Namer for generated names, and conversion options."""

    def __init__(self, name, namer, user_requested=True):
        self.name, self.namer, self.user_requested = name, namer, user_requested


def located(nodes, origin):
    """Gives generated nodes the source position of the user statement they replace: errors raised by the
    generated code then point at the user's line."""
    for n in nodes:
        for sub in ast.walk(n):
            if getattr(sub, "_ag_new", False):  # the first line of the statement (where tracebacks point)
                sub.lineno = sub.end_lineno = getattr(origin, "lineno", 1)
                sub.col_offset = sub.end_col_offset = getattr(origin, "col_offset", 0)
                del sub._ag_new
    return nodes


def not_(flag):
    return templates.replace_expr("ag__.not_(flag)", flag=flag)


def guard_block(stmts, flag, rewrite_stmt):
    """Rewrites a block with `rewrite_stmt(s) -> (statements, may_jump)`. Everything after a statement that
    may jump runs only under `if not flag`."""
    out = []
    for i, s in enumerate(stmts):
        new, jumps = rewrite_stmt(s)
        out.extend(new)
        rest = stmts[i + 1:]
        if jumps and rest:
            guarded, _ = guard_block(rest, flag, rewrite_stmt)
            out.extend(located(templates.replace("if ag__.not_(flag):\n    body", flag=flag, body=guarded), s))
            return out, True
        if jumps:
            return out, True
    return out, False


def rewrite_compound(s, recurse):
    """Applies `recurse(block) -> (block, may_jump)` to the blocks of if/with/try; (s, may_jump)."""
    jumps = False
    if isinstance(s, ast.If):
        s.body, j1 = recurse(s.body)
        s.orelse, j2 = recurse(s.orelse)
        jumps = j1 or j2
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        s.body, jumps = recurse(s.body)
    elif isinstance(s, ast.Try):
        blocks = [recurse(s.body)] + [recurse(h.body) for h in s.handlers] + [recurse(s.orelse),
                                                                              recurse(s.finalbody)]
        s.body = blocks[0][0]
        for h, (b, _) in zip(s.handlers, blocks[1:]):
            h.body = b
        s.orelse, s.finalbody = blocks[-2][0], blocks[-1][0]
        jumps = any(j for _, j in blocks)
    return s, jumps


_OPAQUE = (ast.While, ast.For, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def replace_jumps(stmts, kind, flag):
    """Replaces the `kind` statements (ast.Break / ast.Continue) of one loop body, not of loops or functions
    nested in it, by `flag = True`, guarding what follows them. Returns (block, whether any was found)."""
    found = []

    def rewrite(s):
        if isinstance(s, kind):
            found.append(s)
            return located(templates.replace("flag = True", flag=flag), s), True
        if isinstance(s, _OPAQUE):
            return [s], False
        s, jumps = rewrite_compound(s, block)
        return [s], jumps

    def block(b):
        return guard_block(b, flag, rewrite)

    out, _ = block(stmts)
    return out, bool(found)


def add_loop_condition(loop, cond):
    """Loops stop when `cond` (an expression) is false: while loops test it first, for loops as extra test."""
    if isinstance(loop, ast.While):
        loop.test = templates.replace_expr("ag__.and_(lambda: cond, lambda: test)", cond=cond, test=loop.test)
    else:
        loop._ag_extra_test = getattr(loop, "_ag_extra_test", []) + [cond]


class FunctionVisitor(ast.NodeTransformer):
    """Applies `convert_function(def)` to the converted function and to every function nested in it."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        return self.convert_function(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def convert_function(self, node):
        return node
