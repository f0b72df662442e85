"""Code templates: Python source whose placeholder names are replaced by AST nodes.

Every node the template itself contributes is marked generated (`_ag_gen`), so later passes can tell the
converter's own code from the user's (e.g. the variables pass does not wrap generated names in ag__.ld), and
new (`_ag_new`) until converters.base.located gives it the position of the user statement it stands for."""
import ast
import copy
import textwrap


class _Replacer(ast.NodeTransformer):
    def __init__(self, repl):
        self.repl = repl

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.repl:
            v = self.repl[node.value.id]
            if isinstance(v, list):  # a block placeholder standing alone: splice the statements in
                return copy.deepcopy(v) if v else []
        return self.generic_visit(node)

    def visit_Name(self, node):
        v = self.repl.get(node.id)
        if v is None:
            return node
        if isinstance(v, str):
            node.id = v
            return node
        v = copy.deepcopy(v)
        _set_ctx(v, node.ctx)
        return v

    def visit_FunctionDef(self, node):
        v = self.repl.get(node.name)
        if isinstance(v, str):
            node.name = v
        return self.generic_visit(node)

    def visit_arg(self, node):
        v = self.repl.get(node.arg)
        if isinstance(v, str):
            node.arg = v
        return node

    def visit_Nonlocal(self, node):
        names = []
        for n in node.names:
            v = self.repl.get(n, n)
            names.extend(v if isinstance(v, (list, tuple)) else [v])
        if not names:
            return None  # nothing to declare: drop the statement
        node.names = names
        return node

    visit_Global = visit_Nonlocal


def _set_ctx(node, ctx):
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred)):
        node.ctx = type(ctx)()
    if isinstance(node, (ast.Tuple, ast.List)):
        node.ctx = type(ctx)()
        for e in node.elts:
            _set_ctx(e, ctx)


def replace(template, **repl):
    """Statements of `template` with names replaced: str -> renamed, AST node -> that node (expression),
    list of statements -> spliced where the name stands alone as a statement, list of str in nonlocal."""
    tree = ast.parse(textwrap.dedent(template))
    for n in ast.walk(tree):
        n._ag_gen = n._ag_new = True
    tree = _Replacer(repl).visit(tree)
    return tree.body


def replace_expr(template, **repl):
    return replace(template, **repl)[0].value


def name(id_, store=False):
    n = ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())
    n._ag_gen = n._ag_new = True
    return n


def names_tuple(ids, store=False):
    t = ast.Tuple(elts=[name(i, store) if "." not in i else attr(i, store) for i in ids],
                  ctx=ast.Store() if store else ast.Load())
    t._ag_gen = t._ag_new = True
    return t


def attr(qualified, store=False):
    """`a.b.c` as an expression (or an assignment target)."""
    parts = qualified.split(".")
    node = name(parts[0])
    for p in parts[1:]:
        node = ast.Attribute(value=node, attr=p, ctx=ast.Load())
        node._ag_gen = node._ag_new = True
    if store:
        node.ctx = ast.Store()
    return node


def constant(v):
    c = ast.Constant(value=v)
    c._ag_gen = c._ag_new = True
    return c
