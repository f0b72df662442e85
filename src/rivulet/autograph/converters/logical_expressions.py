"""and/or/not -> ag__.and_/or_/not_ (operands lazily, as lambdas): logical ops or conds on tensors."""
import ast

from ..pyct import templates
from . import base


class _Logical(ast.NodeTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "ag__.and_" if isinstance(node.op, ast.And) else "ag__.or_"
        expr = node.values[-1]
        for v in reversed(node.values[:-1]):
            expr = templates.replace_expr(f"{fn}(lambda: a, lambda: b)", a=v, b=expr)
        return base.located([expr], node)[0]

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not) or getattr(node, "_ag_gen", False):
            return node
        return base.located([templates.replace_expr("ag__.not_(a)", a=node.operand)], node)[0]


def transform(node, ctx):
    return _Logical().visit(node)
