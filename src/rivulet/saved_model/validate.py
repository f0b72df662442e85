"""Checks that what a saved model's graphs say is something rivulet itself could have built, before any of
it runs: each node's call (input count, attr names) against its op's rule and kernel, attr values of the
kinds ops take, the wiring of control-flow sub-graphs (which inputs feed them, what they return) and the
agreement of a function's argument types with its graph. A file that fails raises `format.Invalid`
naming the node, which the loader reports as SavedModelError. What no check here can know before the
values exist (a reshape to the wrong size) fails when the function runs, as the op's tf.errors.OpError.
"""
import inspect

import numpy as np

from .. import dtypes as _dt
from ..shape import TensorShape, TensorSpec
from .format import Invalid, short

# Values an attr may hold (and tuples of them); arrays only as a Const's value.
_PLAIN = (type(None), bool, int, float, str, bytes, _dt.DType, TensorShape, np.bool_, np.number)
# Ops keeping their sub-graphs in an attr: op -> (attr, kind of holder).
_HOLDERS = {"If": ("branches", "if"), "StatelessIf": ("branches", "if"), "Case": ("branches", "case"),
            "StatelessCase": ("branches", "case"), "While": ("body", "loop"), "StatelessWhile": ("body", "loop"),
            "WhileGrad": ("body", "grad")}
_LOOP_FIELDS = {"cond", "body", "n_vars", "cond_feed", "body_feed", "out_specs", "must_iterate"}
# Handles: a resource (a Variable) is read and written only by these ops (input 0), a variant (a tensor
# list) only by the TensorList ops; both may pass through control flow and identities.
_VARIABLE_OPS = {"ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"}
# ...and by optimizer updates (ops/training_ops.py), which write their first n inputs, all of the dtype and
# shape of their gradient (input n)
_UPDATE_OPS = {"_KerasAdamUpdate": 3}
_LIST_MAKERS = {"TensorListReserve", "TensorListFromTensor", "TensorListScatterSum", "TensorListSplit"}
_LIST_PAIRS = {"TensorListAdd"}  # gradient lists summed: both inputs are lists
_PASS = {"Identity", "IdentityN", "StopGradient"}
# Attrs that hold a dtype wherever an op has them (rules would read a string as NumPy's dtype code).
_DTYPE_ATTRS = {"dtype", "DstT", "out_type", "output_type", "out_idx", "element_dtype", "output_dtype"}


def node(name, opdef, inputs, attrs, variables):
    """Checks a node before it is built: `inputs` are its data input tensors, `attrs` its decoded attrs,
    `variables` maps id(resource tensor) to the Variable it stands for, where the loader knows it."""
    where = f"node {short(name)} ({opdef.name})"
    problem = opdef.call_problem(len(inputs), attrs)
    if problem is not None:
        raise Invalid(f"{where}: {problem}")
    holder = _HOLDERS.get(opdef.name)
    for key, value in attrs.items():
        if holder is not None and key == holder[0] or opdef.name == "Const" and key == "value":
            continue  # checked below / by the loader's Const check
        if opdef.name == "IdentityN" and key == "grad_fn":
            _custom_gradient(where, value, inputs, attrs)
            continue
        if not _plain(value) or key in _DTYPE_ATTRS and not isinstance(value, (_dt.DType, type(None))):
            raise Invalid(f"{where}: attr {key!r} cannot be {short(value)}")
        if not _like(opdef.attr_default(key), value):
            raise Invalid(f"{where}: attr {key!r} should be like its default "
                          f"{opdef.attr_default(key)!r}, got {short(value)}")
    _handles(where, opdef.name, inputs, attrs, variables)
    if holder is not None:
        key, kind = holder
        if key not in attrs:
            raise Invalid(f"{where}: missing attr {key!r}")
        (_branches if kind in ("if", "case") else _loop)(where, attrs[key], inputs, kind, attrs)


def _handles(where, op, inputs, attrs, variables):
    lists = op.startswith("TensorList") and op not in _LIST_MAKERS
    for i, t in enumerate(inputs):
        # control flow passes handles to its sub-graphs, except an If's or Case's selector (input 0)
        flows = op in _PASS or op in _HOLDERS and (i > 0 or _HOLDERS[op][1] in ("loop", "grad"))
        if t.dtype == _dt.resource:
            ok = flows or op in _VARIABLE_OPS and i == 0 or i < _UPDATE_OPS.get(op, 0)
        elif t.dtype == _dt.variant:
            ok = flows or lists and (i == 0 or op in _LIST_PAIRS)
        else:
            ok = i != 0 or op not in _VARIABLE_OPS and not lists
        if not ok:
            raise Invalid(f"{where}: input {i} ({short(t.name)}) cannot be a {t.dtype.name} tensor")
    n = _UPDATE_OPS.get(op, 0)
    if n:
        if len(inputs) <= n or any(t.dtype != _dt.resource for t in inputs[:n]):
            raise Invalid(f"{where}: updates {n} variables, the first {n} inputs")
        grad = inputs[n]
        for t in inputs[:n]:
            var = variables.get(id(t))
            if var is not None and (var.dtype is not grad.dtype or not grad.shape.is_compatible_with(var.shape)):
                raise Invalid(f"{where}: cannot update variable {short(var.name)} ({var.dtype.name} {var.shape}) "
                              f"with {TensorSpec(grad.shape, grad.dtype)}")
    if op not in _VARIABLE_OPS:
        return
    dtype, var = attrs.get("dtype"), variables.get(id(inputs[0]))
    if var is not None and dtype is not var.dtype:
        raise Invalid(f"{where}: variable {short(var.name)} is {var.dtype.name}, the node says {short(dtype)}")
    shape = var.shape if var is not None else None
    if op == "ReadVariableOp":
        if not isinstance(attrs.get("shape"), TensorShape) or shape is not None and \
                not attrs["shape"].is_compatible_with(shape):
            raise Invalid(f"{where}: reads shape {short(attrs.get('shape'))} from a variable of shape {shape}")
        return
    value = inputs[1]
    if value.dtype is not dtype or shape is not None and not value.shape.is_compatible_with(shape):
        raise Invalid(f"{where}: cannot write {TensorSpec(value.shape, value.dtype)} to a variable of "
                      f"{short(dtype)} {shape}")


def _plain(v, depth=0):
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return depth < 16 and all(_plain(x, depth + 1) for x in v)
    if isinstance(v, int):
        return -2 ** 63 <= v < 2 ** 63  # attrs are int64s, as in TensorFlow
    return isinstance(v, _PLAIN) and not (isinstance(v, np.generic) and v.dtype.hasobject)


def _like(default, v):
    """A value of the kind the op's default has (bool for False, a number for 0.2 ...); None or no
    default says nothing."""
    if default is inspect.Parameter.empty or default is None:
        return True
    if isinstance(default, bool):
        return isinstance(v, (bool, np.bool_))
    if isinstance(default, (int, float)):
        ok = (int, np.integer) if isinstance(default, int) else (int, float, np.integer, np.floating)
        return isinstance(v, ok) and not isinstance(v, (bool, np.bool_))
    if isinstance(default, (str, bytes)):
        return isinstance(v, type(default))
    return True


# ------------------------------------------------------------------------------------------ control flow
def _indices(where, feed, n, what):
    if not isinstance(feed, (tuple, list)) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in feed):
        raise Invalid(f"{where}: bad {what} {short(feed)} (the op has {n} inputs)")
    return list(feed)


def _specs(where, specs):
    if not isinstance(specs, (tuple, list)) or not all(
            isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], TensorShape) and isinstance(s[1], _dt.DType)
            for s in specs):
        raise Invalid(f"{where}: bad output specs {short(specs)}")
    return list(specs)


def _sub(where, sub):
    from ..function.control_flow import SubGraph
    if type(sub) is not SubGraph:
        raise Invalid(f"{where}: {short(sub)} is not a sub-graph")
    return sub


def _fed(where, target, phs, values):
    """Placeholders `phs` of `target` are fed `values` (tensors or specs): as many, of the same dtypes, of
    shapes that fit."""
    if len(phs) != len(values):
        raise Invalid(f"{where}: {target} takes {len(phs)} inputs, is fed {len(values)}")
    for ph, v in zip(phs, values):
        if ph.dtype != v.dtype or not ph.shape.is_compatible_with(v.shape):
            raise Invalid(f"{where}: {target} input {ph.op.name} is {TensorSpec(ph.shape, ph.dtype)}, fed "
                          f"{TensorSpec(v.shape, v.dtype)}")


def _feeds_into(where, sub, values):
    _fed(where, f"sub-graph {short(sub.graph.name)}", sub.inputs, values)


def _returns(where, sub, specs):
    outs = sub.outputs
    if len(outs) != len(specs):
        raise Invalid(f"{where}: sub-graph {short(sub.graph.name)} returns {len(outs)} values, the op {len(specs)}")
    for t, (shape, dt) in zip(outs, specs):
        if t.dtype != dt or not t.shape.is_compatible_with(shape):
            raise Invalid(f"{where}: sub-graph {short(sub.graph.name)} returns {TensorSpec(t.shape, t.dtype)} "
                          f"where the op says {TensorSpec(shape, dt)}")


def _branches(where, b, inputs, kind, attrs):
    from ..function.control_flow import Branches
    if type(b) is not Branches or set(vars(b)) != {"subs", "feeds", "out_specs"}:
        raise Invalid(f"{where}: bad branches {short(b)}")
    subs, feeds = b.subs, b.feeds
    if not isinstance(subs, (list, tuple)) or not subs or kind == "if" and len(subs) != 2 or \
            not isinstance(feeds, (list, tuple)) or len(feeds) != len(subs):
        raise Invalid(f"{where}: bad branches {short(subs)} fed {short(feeds)}")
    specs = _specs(where, b.out_specs)
    if not inputs:
        raise Invalid(f"{where}: no branch selector")
    for sub, feed in zip(subs, feeds):
        sub = _sub(where, sub)
        _feeds_into(where, sub, [inputs[i] for i in _indices(where, feed, len(inputs), "feed")])
        _returns(where, sub, specs)


def _loop(where, lb, inputs, kind, attrs):
    from ..function.control_flow import LoopBody
    if type(lb) is not LoopBody or set(vars(lb)) != _LOOP_FIELDS:
        raise Invalid(f"{where}: bad loop {short(lb)}")
    n = lb.n_vars
    n_in = len(inputs) - (n if kind == "grad" and isinstance(n, int) else 0)
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= n_in:
        raise Invalid(f"{where}: bad number of loop variables {short(n)}")
    specs = _specs(where, lb.out_specs)
    loop_vars = inputs[:n]
    if len(specs) != n or any(t.dtype != dt or not t.shape.is_compatible_with(s)
                              for t, (s, dt) in zip(loop_vars, specs)):
        raise Invalid(f"{where}: output specs {short(specs)} do not match the loop variables")
    cond, body = _sub(where, lb.cond), _sub(where, lb.body)
    _feeds_into(where, cond, loop_vars + [inputs[i] for i in _indices(where, lb.cond_feed, n_in, "feed")])
    _feeds_into(where, body, loop_vars + [inputs[i] for i in _indices(where, lb.body_feed, n_in, "feed")])
    _returns(where, cond, [(TensorShape([]), _dt.bool)])
    _returns(where, body, specs)
    if not isinstance(lb.must_iterate, tuple) or not all(isinstance(s, str) for s in lb.must_iterate):
        raise Invalid(f"{where}: bad loop variable names {short(lb.must_iterate)}")
    if kind == "grad":
        _indices(where, attrs.get("wrt"), n_in, "wrt")
        for t, (_, dt) in zip(inputs[n_in:], specs):
            if t.dtype != dt:
                raise Invalid(f"{where}: gradient input {t.name} is {t.dtype.name}, its loop variable {dt.name}")


def _custom_gradient(where, grad, inputs, attrs):
    """A tf.custom_gradient's saved gradient (custom_gradients.py): fed the gradients of the op's n outputs
    (the dtypes of its first n inputs), returning one gradient per input the mask names, of its dtype
    (a variable's gradient is a tensor of the variable's dtype: any non-resource tensor)."""
    from .custom_gradients import MissingGradient, SavedGradient
    if type(grad) is MissingGradient:
        return
    n = attrs.get("n")
    if type(grad) is not SavedGradient or not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= len(inputs):
        raise Invalid(f"{where}: bad custom gradient {short(grad)}")
    target = f"custom gradient {short(grad.graph.name)}"
    _fed(where, target, grad.args, inputs[:n])
    wrt = inputs[n:]
    if len(grad.mask) != len(wrt) or len(grad.outputs) != sum(grad.mask):
        raise Invalid(f"{where}: {target} returns {len(grad.outputs)} gradients for mask {short(grad.mask)} "
                      f"over {len(wrt)} inputs")
    for t, x in zip(grad.outputs, [x for x, m in zip(wrt, grad.mask) if m]):
        if t.dtype != x.dtype and (x.dtype != _dt.resource or t.dtype in (_dt.resource, _dt.variant)):
            raise Invalid(f"{where}: {target} returns a {t.dtype.name} gradient for {x.name}, a {x.dtype.name} "
                          f"tensor")


# ------------------------------------------------------------------------------------------ functions
def arguments(where, arg_types, placeholders):
    """The tensors a function's argument types promise are what its graph's argument placeholders take,
    in order (variables passed in are matched by their own spec, not here)."""
    specs = []
    stack = list(reversed(arg_types))
    while stack:
        t = stack.pop()
        if isinstance(t, TensorSpec):
            specs.append(t)
        elif isinstance(t, tuple) and t and t[0] in ("list", "tuple"):
            stack.extend(reversed(t[1]))
        elif isinstance(t, tuple) and t and t[0] == "dict":
            stack.extend(reversed([v for _, v in t[1]]))
        elif isinstance(t, tuple) and t and t[0] == "namedtuple":
            stack.extend(reversed(t[3]))
        elif hasattr(t, "_component_specs"):  # a RaggedTensorSpec / SparseTensorSpec: its component tensors
            stack.extend(reversed(t._component_specs))
    _fed(where, "its graph", [p for p in placeholders if p.dtype != _dt.resource], specs)
