"""return -> `do_return = True; retval_ = value`; what follows runs under `if not do_return`, loops that may
return stop when it is set, and the function ends with `return fscope.ret(retval_, do_return)`."""
import ast

from ..pyct import templates
from . import base

_RETURN = """
try:
    do_return = True
    retval_ = value
except:
    do_return = False
    raise
"""


class _Return(base.FunctionVisitor):
    def convert_function(self, node):
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(node)):
            raise NotImplementedError("generators are not converted")
        namer = self.ctx.namer
        flag, value = namer.new("do_return"), namer.new("retval_")

        def rewrite(s):
            if isinstance(s, ast.Return):
                v = s.value if s.value is not None else templates.constant(None)
                return base.located(templates.replace(_RETURN, do_return=flag, retval_=value, value=v), s), True
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return [s], False
            if isinstance(s, (ast.While, ast.For)):
                s.body, jumps = block(s.body)
                if jumps:
                    base.add_loop_condition(s, base.not_(templates.name(flag)))
                s.orelse, j2 = block(s.orelse)
                return [s], jumps or j2
            s, jumps = base.rewrite_compound(s, block)
            return [s], jumps

        def block(stmts):
            return base.guard_block(stmts, flag, rewrite)

        body, _ = block(_fold_into_branches(node.body))
        head = base.located(templates.replace("do_return = False\nretval_ = ag__.UndefinedReturnValue()",
                                              do_return=flag, retval_=value), node.body[0])
        tail = base.located(templates.replace("return fscope.ret(retval_, do_return)", do_return=flag,
                                              retval_=value), node.body[-1])
        node.body = head + body + tail
        return node


def _returns(stmts):
    """Whether a block certainly ends by returning."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _returns(last.body) and _returns(last.orelse)


def _fold_into_branches(stmts):
    """`if c: ...return` followed by more code -> the code moves into the else branch (and symmetrically):
    then each staged branch sets the return value, as `if c: return a` + `return b` means."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.If):
            s.body, s.orelse = _fold_into_branches(s.body), _fold_into_branches(s.orelse)
            rest = stmts[i + 1:]
            if rest and _returns(s.body) != _returns(s.orelse):
                if _returns(s.body):
                    s.orelse = _fold_into_branches(s.orelse + rest)
                else:
                    s.body = _fold_into_branches(s.body + rest)
                out.append(s)
                return out
        out.append(s)
    return out


def _own_nodes(fn):
    """Nodes of fn's body, not of functions nested in it."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))


def transform(node, ctx):
    return _Return(ctx).visit(node)
