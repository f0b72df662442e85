"""f(a, *b, k=c, **d) -> ag__.converted_call(f, (a, *b), {'k': c, **d}, fscope): the callee is converted too
(when it is user code) at the moment it is called."""
import ast

from ..pyct import templates
from . import base

# Calls that must run in the caller's own frame, or that AutoGraph leaves alone.
_DIRECT = {"super", "locals", "globals", "vars", "eval", "exec", "dir", "isinstance", "issubclass", "type",
           "getattr", "hasattr", "setattr", "id", "callable"}


class _Calls(ast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.first_params = []

    def visit_FunctionDef(self, node):
        args = node.args.posonlyargs + node.args.args
        self.first_params.append(args[0].arg if args else None)
        self.generic_visit(node)
        self.first_params.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if getattr(f, "_ag_gen", False) or _is_ag(f):
            return node
        if isinstance(f, ast.Name) and f.id in _DIRECT:
            if f.id == "super" and not node.args and self.first_params and self.first_params[-1]:
                # zero-argument super() needs the class cell the compiler only makes inside a class body
                node.args = [templates.name("__class__"), ast.Name(id=self.first_params[-1], ctx=ast.Load())]
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Dict(keys=[templates.constant(k.arg) if k.arg else None for k in node.keywords],
                              values=[k.value for k in node.keywords])
        else:
            kwargs = templates.constant(None)
        call = templates.replace_expr("ag__.converted_call(f, args, kwargs, fscope)", f=f, args=args,
                                      kwargs=kwargs)
        return base.located([call], node)[0]


def _is_ag(f):
    while isinstance(f, ast.Attribute):
        f = f.value
    return isinstance(f, ast.Name) and f.id == "ag__"


def transform(node, ctx):
    return _Calls(ctx).visit(node)
