"""continue -> `continue_ = True`, with the rest of the loop body guarded by `if not continue_`; the flag is
reset at the start of every iteration."""
import ast

from ..pyct import templates
from . import base


class _Continue(ast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)
        flag = self.ctx.namer.new("continue_")
        body, used = base.replace_jumps(node.body, ast.Continue, flag)
        if not used:
            self.ctx.namer.taken.discard(flag)
            return node
        node.body = base.located(templates.replace("flag = False", flag=flag), node) + body
        return node

    visit_While = visit_For = _loop


def transform(node, ctx):
    return _Continue(ctx).visit(node)
