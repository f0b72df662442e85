"""if / while / for -> nested functions handed to ag__.if_stmt / while_stmt / for_stmt.

The variables a statement changes and that matter outside it (read later, or read inside before being
written) are its state: get_state()/set_state() read and write them, and the body functions declare them
nonlocal. Variables it may define that are not defined before it start as ag__.Undefined(name), so the
runtime can name them if a staged branch or loop leaves them undefined. Statements are converted innermost
first; the analysis is taken before, on the user's structure.
"""
import ast

from ..pyct import analysis, templates
from . import base

_STATE = """
def get_state():
    return state
def set_state(vars_):
    global globals_
    nonlocal names
    target = vars_
"""
_EMPTY_STATE = """
def get_state():
    return ()
def set_state(vars_):
    pass
"""


class _ControlFlow(ast.NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.declared = []

    def visit_FunctionDef(self, node):
        analysis.annotate(node)
        self.declared.append(analysis.scope_declarations(node))
        self.generic_visit(node)
        self.declared.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def _block_vars(self, node, modified):
        helpers, declared = self.ctx.namer.helpers, self.declared[-1]
        modified = {s for s in modified if s.split(".")[0] not in helpers}
        live_in, live_out = node._ag_live_in, node._ag_live_out
        live = live_in | live_out
        state = {s for s in modified if s in live and ("." not in s or s.split(".")[0] not in modified)}
        undefined = sorted(s for s in modified if "." not in s and s not in node._ag_defined_in and s not in declared)
        input_only = {s for s in state if s in live_in and s not in live_out}
        state = sorted(state, key=lambda s: (s in input_only, s))
        return state, undefined, len(state) - len(input_only)

    def _state_functions(self, state, node):
        get, set_ = self.ctx.namer.new("get_state", True), self.ctx.namer.new("set_state", True)
        basic, globals_ = self._scopes(state)
        if state:
            fns = templates.replace(_STATE, get_state=get, set_state=set_, state=templates.names_tuple(state),
                                    names=basic, globals_=globals_, target=templates.names_tuple(state, store=True))
        else:
            fns = templates.replace(_EMPTY_STATE, get_state=get, set_state=set_)
        return fns, get, set_

    def _def(self, base_name, body, state, params=()):
        name = self.ctx.namer.new(base_name, True)
        basic, globals_ = self._scopes(state)
        args = ", ".join(params)
        fn = templates.replace(f"def fn({args}):\n    global globals_\n    nonlocal names\n    body", fn=name,
                               names=basic, globals_=globals_, body=body or [ast.Pass()])
        return fn, name

    def _scopes(self, state):
        """The state's plain names as the generated functions declare them: (nonlocal, global). A name the
        user's function declares global stays global in them (a nonlocal of it would not compile)."""
        declared = self.declared[-1]
        basic = [s for s in state if "." not in s]
        return ([s for s in basic if declared.get(s) is not ast.Global],
                [s for s in basic if declared.get(s) is ast.Global])

    @staticmethod
    def _undefined(names):
        out = []
        for n in names:
            out += templates.replace("var = ag__.Undefined(text)", var=n, text=templates.constant(n))
        return out

    @staticmethod
    def _call(template, **repl):
        return templates.replace(template, **repl)

    def visit_If(self, node):
        self.generic_visit(node)
        state, undefined, nouts = self._block_vars(node, analysis.bound(node.body) | analysis.bound(node.orelse))
        fns, get, set_ = self._state_functions(state, node)
        body_fn, body_name = self._def("if_body", node.body, state)
        else_fn, else_name = self._def("else_body", node.orelse, state)
        call = self._call("ag__.if_stmt(test, body, orelse, get_state, set_state, names, nouts)", test=node.test,
                          body=body_name, orelse=else_name, get_state=get, set_state=set_,
                          names=_names(state), nouts=templates.constant(nouts))
        return base.located(self._undefined(undefined) + fns + body_fn + else_fn + call, node)

    def visit_While(self, node):
        self.generic_visit(node)
        state, undefined, _ = self._block_vars(node, analysis.bound(node.body))
        fns, get, set_ = self._state_functions(state, node)
        body_fn, body_name = self._def("loop_body", node.body, state)
        test_name = self.ctx.namer.new("loop_test", True)
        test_fn = templates.replace("def fn():\n    return test", fn=test_name, test=node.test)
        call = self._call("ag__.while_stmt(test, body, get_state, set_state, names, opts)", test=test_name,
                          body=body_name, get_state=get, set_state=set_, names=_names(state), opts=_opts(node))
        return base.located(self._undefined(undefined) + fns + body_fn + test_fn + call, node) + node.orelse

    def visit_For(self, node):
        self.generic_visit(node)
        modified = analysis.bound(node.body) | analysis.bound([node.target])
        state, undefined, _ = self._block_vars(node, modified)
        fns, get, set_ = self._state_functions(state, node)
        itr = self.ctx.namer.new("itr", True)
        assign = templates.replace("target = itr", target=node.target, itr=itr)
        body_fn, body_name = self._def("loop_body", assign + node.body, state, params=[itr])
        extra = getattr(node, "_ag_extra_test", [])
        extra_fn, extra_name = [], templates.constant(None)
        if extra:
            cond = extra[-1]
            for e in reversed(extra[:-1]):
                cond = templates.replace_expr("ag__.and_(lambda: a, lambda: b)", a=e, b=cond)
            name = self.ctx.namer.new("extra_test", True)
            extra_fn = templates.replace("def fn():\n    return cond", fn=name, cond=cond)
            extra_name = templates.name(name)
        opts = _opts(node)
        opts.keys.append(templates.constant("iterate_names"))
        opts.values.append(templates.constant(ast.unparse(node.target)))
        call = self._call("ag__.for_stmt(iter_, extra, body, get_state, set_state, names, opts)", iter_=node.iter,
                          extra=extra_name, body=body_name, get_state=get, set_state=set_,
                          names=_names(state), opts=opts)
        return base.located(self._undefined(undefined) + fns + body_fn + extra_fn + call, node) + node.orelse


def _names(state):
    t = ast.Tuple(elts=[templates.constant(s) for s in state], ctx=ast.Load())
    t._ag_gen = t._ag_new = True
    return t


def _opts(node):
    keys, values = [], []
    for kw in getattr(node, "_ag_loop_opts", []):
        keys.append(templates.constant(kw.arg))
        values.append(kw.value)
    d = ast.Dict(keys=keys, values=values)
    d._ag_gen = d._ag_new = True
    return d


def transform(node, ctx):
    return _ControlFlow(ctx).visit(node)
