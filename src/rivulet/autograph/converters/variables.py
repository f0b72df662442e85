"""Reads of the user's variables x -> ag__.ld(x), which raises a clear error for a variable that AutoGraph
had to leave undefined (assigned in only one branch, or only inside a loop)."""
import ast

from ..pyct import templates
from . import base


class _Loads(ast.NodeTransformer):
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and not getattr(node, "_ag_gen", False) and node.id != "__class__":
            return base.located([templates.replace_expr("ag__.ld(x)", x=node)], node)[0]
        return node

    def visit_Attribute(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            return node  # `a.b = v` assigns an attribute; reading `a` there needs no check
        return self.generic_visit(node)


def transform(node, ctx):
    return _Loads().visit(node)
