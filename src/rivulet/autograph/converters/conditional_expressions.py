"""`a if c else b` -> ag__.if_exp(c, lambda: a, lambda: b, 'c'): a tf.cond when c is a tensor."""
import ast

from ..pyct import templates
from . import base


class _IfExp(ast.NodeTransformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = templates.replace_expr("ag__.if_exp(test, lambda: body, lambda: orelse, text)", test=node.test,
                                      body=node.body, orelse=node.orelse,
                                      text=templates.constant(ast.unparse(node.test)))
        return base.located([call], node)[0]


def transform(node, ctx):
    return _IfExp().visit(node)
