"""break -> `break_ = True`; the rest of the body is guarded by `if not break_` and the loop condition
gains `not break_`. A loop's else clause runs when the flag is not set."""
import ast

from ..pyct import templates
from . import base


class _Break(ast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)  # inner loops first: their breaks are their own
        flag = self.ctx.namer.new("break_")
        body, used = base.replace_jumps(node.body, ast.Break, flag)
        if not used:
            self.ctx.namer.taken.discard(flag)
            return node
        node.body = body
        base.add_loop_condition(node, base.not_(templates.name(flag)))
        init = base.located(templates.replace("flag = False", flag=flag), node)
        orelse, node.orelse = node.orelse, []
        after = base.located(templates.replace("if ag__.not_(flag):\n    body", flag=flag, body=orelse), node) \
            if orelse else []
        return init + [node] + after

    visit_While = visit_For = _loop


def transform(node, ctx):
    return _Break(ctx).visit(node)
