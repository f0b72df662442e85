"""tf.autograph.experimental.set_loop_options(...) at the top of a loop body becomes the loop's options."""
import ast

from ..pyct import analysis


class _Directives(ast.NodeTransformer):
    def _loop(self, node):
        self.generic_visit(node)
        keep = []
        for s in node.body:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                    (analysis.qualified(s.value.func) or "").endswith("set_loop_options"):
                node._ag_loop_opts = getattr(node, "_ag_loop_opts", []) + list(s.value.keywords)
            else:
                keep.append(s)
        node.body = keep or [ast.copy_location(ast.Pass(), node)]
        return node

    visit_While = visit_For = _loop


def transform(node, ctx):
    return _Directives().visit(node)
