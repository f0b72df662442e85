"""Control flow: tf.cond, tf.switch_case, tf.case and tf.while_loop.

Eagerly these run Python. In a graph each branch (or the loop condition and body) is traced into its own
FuncGraph; ONE op joins them to the outer graph: If/StatelessIf, Case/StatelessCase, While/StatelessWhile.
Its inputs are the predicate (or loop variables) followed by every outer value the sub-graphs captured; its
static attr holds the sub-graphs, each compiled to Python once, on its first run. The stateful variant is
used when a sub-graph has stateful ops, so the op is never pruned and keeps its place in program order.

Gradients: If/Case differentiate as a cond/switch_case over the branches' gradients (each replays its
branch under a GradientTape). While differentiates through a WhileGrad op: loops compiled both ways, as
TensorFlow's. The body's reverse mode is traced once into a graph (`_Backward`: backprop over the body's
ops, the forward values it reads as captures) and compiled like the body; once a gradient of the loop
exists, or while a tape records, the forward loop runs the body compiled to also return those values
(each iteration's stash), and WhileGrad's kernel walks the stashes backwards through the compiled backward
body. A weight's per-iteration products x^T @ dy are stacked and multiplied once after the loop, x[t]'s
gradient rows written into place. Side effects are not repeated and the gradient sees what each iteration
read. TensorList loop variables and captures (TensorArrays) carry gradient lists, as TensorFlow's: a captured
list read at [t] gets its gradient written item by item. Bodies it cannot trace fall back to replaying the
body's vector-Jacobian product eagerly per iteration, from the recorded loop variables and variable reads. Only where
no record matches does it run the loop again. WhileGrad is not itself differentiable: where a tape records
the gradient (a second-order gradient may follow), the gradient is built as two While ops instead
(_while_grad_as_loops), which are.
"""
import contextlib
import threading
import weakref

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..core import context
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, SymbolicTensor, Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from ..execute import blas_threads, memory
from ..graph.graph_def import side_effect
from ..ops.slicing import DYN, np_key
from ..ops.tensor_array_ops import TensorList, zeros_list_like
from ..ops import tensor_array_ops as _lists
from ..shape import TensorShape

_state = context.state


# ----------------------------------------------------------------------------- sub-graphs

class SubGraph:
    """A traced branch or loop function: its graph, argument placeholders and outputs, compiled lazily."""

    def __init__(self, graph, params, outputs):
        self.graph = graph
        self.params = list(params)
        self.outputs = list(outputs)
        self._fn = self._fn_reading = None

    @property
    def inputs(self):
        return self.params + self.graph.internal_captures

    @property
    def stateful(self):
        return bool(self.graph.control_outputs)

    def run(self, *values):
        fn = self._fn
        if fn is None:
            fn = self._fn = self._compile(self.outputs)
        return fn(*values)

    def _compile(self, outputs):
        """The compiled sub-graph; on one BLAS thread on the calls that make its GEMMs small."""
        from ..execute.codegen import compile_graph
        from ..optimize.strip import body_kernels
        inputs = self.inputs
        compiled = compile_graph(self.graph, inputs, outputs, name=self.graph.name,
                                 kernels=body_kernels(self.graph))
        blas_threads.limit(compiled, self.graph.get_operations(), inputs)
        return compiled.fn

    def accumulators(self, n_vars):
        """The loop variables (indices < n_vars) this loop body only writes rows into: the body's output i is a
        TensorScatterUpdate of its parameter i, which nothing else in the body reads. A loop that owns such a
        buffer can update it in place (run_accumulating) instead of copying it every iteration."""
        acc = self.__dict__.get("_acc")
        if acc is None:
            readers = {}
            for op in self.graph.get_operations():
                for t in op.inputs:
                    readers.setdefault(id(t), []).append(op)
            acc = []
            for i, (p, out) in enumerate(zip(self.params[:n_vars], self.outputs[:n_vars])):
                op = out.op
                if (op.type == "TensorScatterUpdate" and op.inputs[0] is p and readers.get(id(p)) == [op]
                        and op.inputs[1] is not p and op.inputs[2] is not p
                        and sum(o is out for o in self.outputs) == 1):
                    acc.append((i, op))
            acc = self._acc = tuple(acc)
        return acc

    def run_accumulating(self, *values):
        """run, with the accumulators' row writes made into the buffers given (which the caller owns)."""
        fn = self.__dict__.get("_fn_acc")
        if fn is None:
            from ..execute.codegen import compile_graph
            from ..ops.sort_segment_ops import tensor_scatter_update_in_place
            inputs = self.inputs
            from ..optimize.strip import body_kernels
            compiled = compile_graph(self.graph, inputs, self.outputs, name=self.graph.name,
                                     kernels=body_kernels(self.graph, {op: tensor_scatter_update_in_place
                                                                       for _, op in self._acc}))
            blas_threads.limit(compiled, self.graph.get_operations(), inputs)
            fn = self._fn_acc = compiled.fn
        return fn(*values)

    def blas_profile(self):
        """The sizes of the sub-graph's GEMMs (execute/blas_threads.py), fed in `inputs` order."""
        p = self.__dict__.get("_blas")
        if p is None:
            p = self._blas = blas_threads.Profile(self.graph.get_operations(), self.inputs)
        return p

    @property
    def reads(self):
        """The outputs of the sub-graph's own variable reads."""
        return [op.outputs[0] for op in self.graph._ops if op.type == "ReadVariableOp"]

    def run_reading(self, *values):
        """(outputs, the values its variable reads gave): what a gradient replays the run with."""
        fn = self._fn_reading
        if fn is None:
            fn = self._fn_reading = self._compile(self.outputs + self.reads)
        res = fn(*values)
        n = len(self.outputs)
        return res[:n], res[n:]

    def __repr__(self):
        return f"<SubGraph {self.graph.name}>"


@contextlib.contextmanager
def isolated_tapes():
    """Outer gradient tapes must not see a sub-graph's ops (the control-flow op is what they record), while
    tapes opened inside (gradient code) record normally."""
    st = _state
    saved = st.tapes, st.stop_recording
    st.tapes, st.stop_recording = [], 0
    try:
        yield
    finally:
        st.tapes, st.stop_recording = saved


def flatten(structure):
    """Leaves of a structure; composites (TensorArray) stand for their flow tensor, composite tensors
    (tf.experimental.ExtensionType, RaggedTensor) for their component tensors."""
    out = []
    for x in nest.flatten(structure):
        if _expandable(x):
            out.extend(x._to_components())
        else:
            out.append(_flow_of(x))
    return out


def pack(template, flat):
    """Inverse of flatten: composites in `template` are rebuilt around the new flow tensors, composite tensors
    around their new components (by the template's spec)."""
    it = iter(flat)
    leaves = []
    for t in nest.flatten(template):
        if _expandable(t):
            n = len(t._to_components())
            leaves.append(type(t).__tf_tracing_type__(t, None)._from_components([next(it) for _ in range(n)]))
        else:
            v = next(it)
            leaves.append(t._with_flow(v) if _is_composite(t) else v)
    return nest.pack_sequence_as(template, leaves) if nest.is_nested(template) else leaves[0]


def _expandable(x):
    """A composite tensor (its type gives its trace type, the value its component tensors)."""
    return not isinstance(x, Tensor) and hasattr(x, "_to_components") and hasattr(type(x), "__tf_tracing_type__")


def _expanded(structure):
    """(structure with each composite tensor leaf replaced by the list of its components, the leaves' specs
    (None for other leaves)), or (structure, None) when it holds no composite tensor."""
    leaves = nest.flatten(structure)
    if not any(_expandable(x) for x in leaves):
        return structure, None
    specs = [type(x).__tf_tracing_type__(x, None) if _expandable(x) else None for x in leaves]
    new = [list(x._to_components()) if s is not None else x for x, s in zip(leaves, specs)]
    return (nest.pack_sequence_as(structure, new) if nest.is_nested(structure) else new[0]), specs


def _collapsed(template, expanded, specs):
    """Inverse of _expanded: composites rebuilt from their components by `specs`."""
    it = iter(nest.flatten(expanded))
    out = []
    for x, s in zip(nest.flatten(template), specs):
        if s is None:
            out.append(next(it))
        else:
            out.append(s._from_components([next(it) for _ in range(len(s._component_specs))]))
    return nest.pack_sequence_as(template, out) if nest.is_nested(template) else out[0]


def _is_composite(x):
    return hasattr(x, "_with_flow")


def _flow_of(x):
    return x._flow_tensor() if _is_composite(x) else x


def trace(fn, name, params=(), template=None):
    """Traces fn(*args) into a FuncGraph nested in the current graph. params: [(shape, dtype)] of the
    arguments, packed like `template`. Returns (graph, placeholders, raw Python result)."""
    from .tracing import FuncGraph
    outer = context.current_graph()
    g = FuncGraph(outer.unique_name(name, mark_as_used=True), outer_graph=outer)
    with isolated_tapes(), g.as_default():
        phs = [g.placeholder(dt, shape, name=f"{name}_arg{i}") for i, (shape, dt) in enumerate(params)]
        args = pack(template, phs) if params else ()
        result = fn(*args)
    return g, phs, result


def internal(g, value):
    """An output value as a tensor of sub-graph g (constants converted, outer tensors captured)."""
    with g.as_default():
        t = convert_to_tensor(value)
        return g._internal(t) if not (isinstance(t, SymbolicTensor) and t.graph is g) else t


def _feeds(subgraphs, first):
    """Union of the sub-graphs' captured outer values (by identity) and, per sub-graph, where its own
    captures sit in the op's inputs (offset by `first`, the number of leading inputs)."""
    outer, index, feeds = [], {}, []
    for sg in subgraphs:
        feed = []
        for v in sg.graph.external_captures:
            k = id(v)
            if k not in index:
                index[k] = len(outer)
                outer.append(v)
            feed.append(first + index[k])
        feeds.append(tuple(feed))
    return outer, feeds


# ----------------------------------------------------------------------------- If / Case

class Branches:
    """Attr of If/Case ops: the branch sub-graphs, where each takes its captures from, and output specs."""

    def __init__(self, subs, feeds, out_specs):
        self.subs, self.feeds, self.out_specs = subs, feeds, out_specs

    def run(self, k, args):
        vals = [args[i] for i in self.feeds[k]]
        if _state.tapes:
            _watch_variables(vals)
        return self.subs[k].run(*vals)


def _watch_variables(values):
    """Reading a variable watches it on tapes that watch accessed variables; reads inside a sub-graph are
    not seen by tapes, so the control-flow op does it for them."""
    for v in values:
        if getattr(v, "_is_resource", False) and getattr(v, "trainable", False):
            for tape in _state.tapes:
                if tape._watch_accessed_variables:
                    tape._watch_variable(v._res)


def _if_kernel(pred, *args, branches):
    if np.ndim(pred):
        raise InvalidArgumentError(f"The first input of If must be a scalar, got shape {np.shape(pred)}")
    return branches.run(0 if pred else 1, (pred,) + args)


def _case_kernel(index, *args, branches):
    n = len(branches.subs)
    i = int(index)
    return branches.run(i if 0 <= i < n - 1 else n - 1, (index,) + args)  # out of range: the default


def _branches_infer(sel, *args, branches):
    if sel.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {sel.shape.rank} for the branch selector")
    return list(branches.out_specs)


def _n_out(key):
    return lambda attrs: len(attrs[key].out_specs)


def _branches_grad(op, *dys):
    """Each branch's vector-Jacobian product w.r.t. the op's inputs. Eagerly the taken branch's alone; in a
    graph a cond/switch_case over all of them (each then gives zeros for inputs it does not use)."""
    br = op.attrs["branches"]
    eager = context.current_graph() is None
    inputs = op.inputs
    wrt = [i for i, t in enumerate(inputs) if i and _differentiable(t, eager)]
    out = [None] * len(inputs)
    if not wrt:
        return out
    dys = [dy if dy is not None else _zero_grad(o) for dy, o in zip(dys, op.outputs)]

    def branch_grad(k):
        def fn():
            feed = br.feeds[k]
            grads = vjp(br.subs[k], [inputs[i] for i in feed], dys)
            by_input = {i: g for i, g in zip(feed, grads) if g is not None}
            if eager:
                return [by_input.get(i) for i in wrt]
            return [by_input[i] if i in by_input else _zero_grad(inputs[i]) for i in wrt]
        return fn

    if eager:
        sel = inputs[0]._v
        n = len(br.subs)
        k = (0 if sel else 1) if op.type.endswith("If") else (int(sel) if 0 <= int(sel) < n - 1 else n - 1)
        res = branch_grad(k)()
    else:
        res = build_branches(inputs[0], [branch_grad(k) for k in range(len(br.subs))],
                             case=op.type.endswith("Case"), name="gradients")
    for i, g in zip(wrt, res):
        out[i] = g
    return out


def _differentiable(t, eager):
    """Floating tensors, TensorLists (variant: their gradient is a list) and variables (eagerly the Variable
    itself, in graphs its resource placeholder)."""
    if getattr(t, "_is_resource", False):
        return True
    dt = t.dtype
    return dt.is_floating or dt.is_complex or dt._kind == "v" or dt.name == "resource"


def _zero_grad(t):
    """The gradient a branch that does not use input `t` contributes: zeros of t's value (for a variable's
    resource placeholder, zeros of the variable)."""
    from ..ops.array_ops import zeros, zeros_like
    if t.dtype._kind == "v":
        return zeros_list_like(t)
    if t.dtype.name != "resource":
        return zeros_like(t)
    var = _variable_behind(t)
    return zeros(var.shape, var.dtype)


def _variable_behind(t):
    """The Variable a resource placeholder was captured from (through enclosing graphs)."""
    g = t.op.graph
    while g is not None:
        var = getattr(g, "arg_values", {}).get(id(t))
        if getattr(var, "_is_resource", False):  # a variable passed to the function being traced
            return var
        for value, ph in g.captures:
            if ph is t:
                if getattr(value, "_is_resource", False):
                    return value
                t = value  # captured from an enclosing graph: look there
                break
        else:
            break
        g = g.outer_graph
    raise ValueError(f"Cannot find the variable behind resource tensor {t.name}")


# Branch and body graphs are compiled with bare kernels (execute/codegen.py): the control-flow kernel runs
# them inside the quiet context, as a compiled function does.
_quiet = context.quiet
IF = defop("If", _quiet(_if_kernel), _branches_infer, grad=_branches_grad, num_outputs=_n_out("branches"),
           stateful=True)
STATELESS_IF = defop("StatelessIf", _quiet(_if_kernel), _branches_infer, grad=_branches_grad,
                     num_outputs=_n_out("branches"))
CASE = defop("Case", _quiet(_case_kernel), _branches_infer, grad=_branches_grad, num_outputs=_n_out("branches"),
             stateful=True)
STATELESS_CASE = defop("StatelessCase", _quiet(_case_kernel), _branches_infer, grad=_branches_grad,
                       num_outputs=_n_out("branches"))


def build_branches(selector, fns, case=False, name="cond", verify=None):
    """Stages one If (or Case) op choosing among `fns` (no-argument callables, traced in order).

    Returns the chosen branch's result structure with its tensors replaced by the op's outputs. Leaves that
    are the same Python object in every branch (None, a module ...) pass through; others become tensors.
    `verify(results)` may check the raw branch results first (AutoGraph names its variables there).
    """
    traced = [trace(fn, f"{name}_{'true' if not case and k == 0 else 'false' if not case else k}")
              for k, fn in enumerate(fns)]
    results = [r for _, _, r in traced]
    (verify or _verify_cond)(results)
    expanded = [_expanded(r) for r in results]
    if expanded[0][1] is not None or any(e[1] is not None for e in expanded):  # composite tensors: components
        specs = _merged_specs([e[1] for e in expanded], results)
        template = results[0]
        results = [e[0] for e in expanded]
        _verify_cond(results)
        traced = [(g, phs, r) for (g, phs, _), r in zip(traced, results)]
        out = _build_branches(selector, traced, results, case, name)
        return _collapsed(template, out, specs)
    return _build_branches(selector, traced, results, case, name)


def _merged_specs(all_specs, results):
    """Per leaf, the spec covering every branch's composite (TypeError when a branch has none there)."""
    if any(s is None for s in all_specs):
        _mismatch(results, "a branch returns a composite tensor where another does not")
    merged = []
    for specs in zip(*all_specs):
        if specs[0] is None:
            if any(s is not None for s in specs):
                _mismatch(results, "a branch returns a composite tensor where another does not")
            merged.append(None)
            continue
        m = specs[0]
        if any(s != m for s in specs[1:]):
            m = m.most_specific_common_supertype(list(specs[1:]))
            if m is None:
                _mismatch(results, f"{specs[0]} and {specs[1]} have different types")
        merged.append(m)
    return merged


def _build_branches(selector, traced, results, case, name):
    flats = [nest.flatten(r) for r in results]
    keep = []  # per leaf: True when it becomes an op output
    for leaves in zip(*flats):
        same = all(x is leaves[0] for x in leaves)
        keep.append(not (same and not _tensorlike(leaves[0])))
    outs = []
    for (g, _, _), leaves in zip(traced, flats):
        outs.append([internal(g, _flow_of(x)) for x, k in zip(leaves, keep) if k])
    specs = []
    for ts in zip(*outs):
        dts = {t.dtype for t in ts}
        if len(dts) > 1:
            _mismatch(results, f"{ts[0]} and {ts[1]} have different types")
        shape = ts[0].shape
        for t in ts[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        specs.append((shape, ts[0].dtype))
    subs = [SubGraph(g, (), o) for (g, _, _), o in zip(traced, outs)]
    outer, feeds = _feeds(subs, 1)
    stateful = any(s.stateful for s in subs)
    op = (CASE if stateful else STATELESS_CASE) if case else (IF if stateful else STATELESS_IF)
    res = bind(op, [selector] + outer, {"branches": Branches(subs, feeds, tuple(specs))}, name=name)
    it = iter(res)
    first = flats[0]
    leaves = [next(it) if k else x for x, k in zip(first, keep)]
    leaves = [x._with_flow(t) if _is_composite(x) else t for x, t in zip(first, leaves)]
    return nest.pack_sequence_as(results[0], leaves) if nest.is_nested(results[0]) else leaves[0]


def _tensorlike(x):
    return isinstance(x, (Tensor, np.ndarray, np.generic, int, float, complex, bool)) or _is_composite(x) or \
        hasattr(x, "_as_tensor")


def _verify_cond(results):
    for r in results[1:]:
        try:
            nest.assert_same_structure(results[0], r)
        except (ValueError, TypeError) as e:
            _mismatch(results, str(e))


def _mismatch(results, details):
    which = ["true_fn", "false_fn"] if len(results) == 2 else [f"branch {i}" for i in range(len(results))]
    lines = "\n".join(f"{w} output: {_describe(r)}" for w, r in zip(which, results))
    raise TypeError(f"{' and '.join(which) if len(results) == 2 else 'The branch functions'} arguments to "
                    f"tf.cond must have the same number, type, and overall structure of return values.\n\n"
                    f"{lines}\n\nError details:\n{details}")


def _describe(r):
    return str(r) if not isinstance(r, (list, tuple)) else repr(r)


def _unpack_singleton(x):
    return x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x


def cond(pred, true_fn=None, false_fn=None, name=None):
    """tf.cond: true_fn() if pred else false_fn(); in a graph both are traced and an If op chooses."""
    if isinstance(pred, bool) and context.current_graph() is not None:  # eagerly TensorFlow takes it
        raise TypeError("pred must not be a Python bool")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if context.current_graph() is None:
        p = convert_to_tensor(pred)
        return _unpack_singleton(true_fn() if bool(p) else false_fn())
    pred = convert_to_tensor(pred)
    if pred.dtype is not _dt.bool:
        raise TypeError(f"pred must be a bool tensor, got {pred.dtype.name}")
    return _unpack_singleton(build_branches(pred, [true_fn, false_fn], name=name or "cond"))


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """tf.switch_case: runs branch_fns[branch_index], or `default` (the last branch if None) when out of range."""
    fns = _indexed_branches(branch_fns)
    if default is None:
        default = fns[-1]
    if not isinstance(branch_index, Tensor) and not getattr(branch_index, "_is_resource", False):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    idx = convert_to_tensor(branch_index)
    if not idx.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {idx.dtype}")
    if idx.shape.rank not in (None, 0):
        msg = f"'branch_index' must be a scalar, got shape {idx.shape}"
        raise InvalidArgumentError(msg) if context.executing_eagerly() else ValueError(msg)
    if context.current_graph() is None:
        i = int(idx)
        return _unpack_singleton((fns[i] if 0 <= i < len(fns) else default)())
    if idx.dtype is not _dt.int32:
        from ..ops.math_ops import cast
        idx = cast(idx, _dt.int32)
    return _unpack_singleton(build_branches(idx, fns + [default], case=True, name=name))


def _indexed_branches(branch_fns):
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and isinstance(branch_fns[0], (list, tuple)):
        pairs = sorted(branch_fns)
    elif isinstance(branch_fns, (list, tuple)):
        pairs = list(enumerate(branch_fns))
    else:
        raise TypeError("branch_fns must be a list, tuple, or dict")
    if not pairs:
        raise ValueError("Must provide at least one item in branch_fns")
    keys = [k for k, _ in pairs]
    if keys != list(range(len(keys))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found "
                         f"{{{','.join(str(k) for k in keys)}}}")
    for _, f in pairs:
        if not callable(f):
            raise TypeError("fn for branch must be callable")
    return [f for _, f in pairs]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """tf.case: the fn of the first pred that holds, else default (the last pair's fn when None)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple (pred, callable)")
    if default is None:
        if not pairs:
            raise ValueError("Must provide at least one item in pred_fn_pairs")
        pairs, default = pairs[:-1], pairs[-1][1]
    result = default
    for p, f in reversed(pairs):
        result = (lambda p=p, f=f, rest=result: cond(p, f, rest))
    return result()


# ----------------------------------------------------------------------------- While

class LoopBody:
    """Attr of While ops: the cond and body sub-graphs and where each takes its captures from."""

    def __init__(self, cond, body, n_vars, feeds, out_specs, must_iterate=()):
        self.cond, self.body, self.n_vars = cond, body, n_vars
        self.cond_feed, self.body_feed = feeds
        self.out_specs = out_specs
        self.must_iterate = must_iterate  # names of variables only the loop body defines

    def run(self, values, history=None):
        """Runs the loop on the op's input values; returns (final loop variables, iteration count).
        `history`, a list, receives (the loop variables each iteration starts from, the values its
        variable reads gave)."""
        if _state.tapes:
            _watch_variables(values)
        lv = tuple(values[:self.n_vars])
        bc = [values[i] for i in self.body_feed]
        if self.body.blas_profile().one_thread([*lv, *bc]):  # a body of small GEMMs: the whole loop on
            with blas_threads.one_thread():                   # one BLAS thread
                return self._run(values, lv, bc, history)
        return self._run(values, lv, bc, history)

    def _run(self, values, lv, bc, history):
        cc = [values[i] for i in self.cond_feed]
        c, b = self.cond.run, self.body.run
        n = 0
        bw = _backward_of(self) if history is not None else None
        if bw is not None:  # keep what the compiled gradient needs from each iteration
            fwd, k, m = bw.forward, self.n_vars, bw.stash_end
            while c(*lv, *cc)[0]:
                res = fwd(*lv, *bc)
                lv = res[:k]
                history.append(res[k:m] + tuple([_Shaped(x.shape) for x in res[m:]]) if m < len(res) else res[k:])
                n += 1
            return lv, n
        if history is not None:
            reading = self.body.run_reading
            while c(*lv, *cc)[0]:
                start = lv
                lv, reads = reading(*lv, *bc)
                history.append((start, reads))
                n += 1
            return lv, n
        acc = self.body.accumulators(self.n_vars)
        if acc:  # buffers the body writes rows into: copied once here, then updated in place
            lv = list(lv)
            for i, _ in acc:
                lv[i] = np.array(lv[i], copy=True)
            b = self.body.run_accumulating
        while c(*lv, *cc)[0]:
            lv = b(*lv, *bc)
            n += 1
        return lv, n


_records = threading.local()  # per thread: {LoopBody: (its loop's input values, their history)}
_recording = weakref.WeakSet()  # the loops a WhileGrad was built for (not an attr: saved models keep attrs)


def _recorded():
    d = getattr(_records, "d", None)
    if d is None:
        d = _records.d = weakref.WeakKeyDictionary()
    return d


def _while_kernel(*values, body):
    if _state.tapes or body in _recording:
        # The gradient (WhileGrad, later in this run) takes the loop variables of every iteration from
        # here: running the loop again would repeat its side effects (assigns, prints) and read what they
        # changed. One record per loop and thread: the latest run's.
        history = []
        final, n = body.run(values, history)
        _recorded()[body] = (tuple(values[:body.n_vars]), history)
    else:
        final, n = body.run(values)
    if body.must_iterate and not n:
        names = ", ".join(body.must_iterate)
        raise InvalidArgumentError(f"assertion failed: [loop must iterate at least once to initialize {names}]")
    return final


def _while_infer(*values, body):
    return list(body.out_specs)


def _while_grad(op, *dys):
    lb = op.attrs["body"]
    wrt = [i for i, t in enumerate(op.inputs) if _differentiable(t, context.current_graph() is None)
           and not _other_resource(t)]
    if not wrt:
        return [None] * len(op.inputs)
    dys = [dy if dy is not None else _zero_grad(o) for dy, o in zip(dys, op.outputs)]
    if context.current_graph() is not None and (_state.tapes or getattr(_as_loops, "depth", 0)):
        # a tape records this gradient (or it is part of one built as loops): differentiable
        _as_loops.depth = getattr(_as_loops, "depth", 0) + 1
        try:
            return _while_grad_as_loops(op, dys, wrt)
        finally:
            _as_loops.depth -= 1
    _recording.add(lb)
    attrs = {"body": lb, "wrt": tuple(wrt)}
    # A captured variable's gradient is a value of the variable's shape and dtype (not a resource): recorded
    # now, while the capture still leads to the variable.
    specs = tuple((i, v.shape, v.dtype) for i, v in ((i, op.inputs[i]) for i in wrt) if v.dtype.name == "resource")
    if specs:
        attrs["resource_specs"] = tuple((i, var.shape, var.dtype) for i, var in
                                        ((i, _variable_behind(op.inputs[i])) for i, _, _ in specs))
    grads = bind(WHILE_GRAD, list(op.inputs) + dys, attrs, name="while_grad")
    out = [None] * len(op.inputs)
    for i, g in zip(wrt, grads):
        out[i] = g
    return out


_as_loops = threading.local()  # depth: building a gradient as loops (the loops inside it are built so too)


def _while_grad_as_loops(op, dys, wrt):
    """The loop's gradient as graph ops a tape can differentiate again (second-order gradients, as TensorFlow's
    While gradient, itself a While): one While runs the loop forward again, stacking each iteration's loop
    variables in TensorArrays, and one walks them backwards through the body's vector-Jacobian product
    replayed as graph ops, summing the captures' gradients. Used where a tape records the gradient's ops
    (WhileGrad, the compiled gradient, is not differentiable); for stateless loops of plain tensors."""
    from ..execute.replay import replay
    from ..ops.tensor_array_ops import TensorArray
    lb = op.attrs["body"]
    n = lb.n_vars
    ins = list(op.inputs)
    # (a variable read is not a side effect: read again, it gives what the forward loop read)
    effect = next((e for g in (lb.cond.graph, lb.body.graph) for e in map(side_effect, g.control_outputs)
                   if e is not None), None)
    if effect is not None:
        raise LookupError("Higher-order gradients of a while loop are supported for loops without side effects "
                          f"(assign, print); the loop '{op.name}' has a side effect ({effect.type})")
    shapes = [p.shape for p in lb.body.params]
    cc = [ins[i] for i in lb.cond_feed]
    bc = [ins[i] for i in lb.body_feed]

    def run(sub, values):
        return list(replay(sub.graph, sub.inputs, sub.outputs, values, keep_stateful=False))

    def f_cond(i, lv, tas):
        return run(lb.cond, list(lv) + cc)[0]

    def f_body(i, lv, tas):
        tas = [ta.write(i, v) for ta, v in zip(tas, lv)]
        return i + 1, run(lb.body, list(lv) + bc)[:n], tas

    tas = [TensorArray(t.dtype, size=0, dynamic_size=True, infer_shape=False, element_shape=s)
           for t, s in zip(ins[:n], shapes)]
    count, _, tas = while_loop(f_cond, f_body, (0, ins[:n], tas),
                               shape_invariants=(TensorShape([]), shapes, [TensorShape(None)] * n))
    fv = [j for j in range(n) if _is_float(ins[j])]
    caps = [(pos, i) for pos, i in enumerate(lb.body_feed) if i in wrt]
    sums = [_zero_grad(ins[i]) for _, i in caps]

    def b_body(k, g, sums):
        k = k - 1
        lv = [ta.read(k) for ta in tas]
        seeds = [None] * n
        for p, j in enumerate(fv):
            seeds[j] = g[p]
        grads = vjp(lb.body, lv + bc, seeds)
        g = [grads[j] if grads[j] is not None else _zero_grad(lv[j]) for j in fv]
        sums = [s if grads[n + pos] is None else _plus(s, grads[n + pos]) for s, (pos, _) in zip(sums, caps)]
        return k, g, sums

    _, g, sums = while_loop(lambda k, g, sums: k > 0, b_body, (count, [dys[j] for j in fv], sums),
                            shape_invariants=(TensorShape([]), [shapes[j] for j in fv], [s.shape for s in sums]))
    out = [None] * len(ins)
    for p, j in enumerate(fv):
        out[j] = g[p]
    for s, (_, i) in zip(sums, caps):
        out[i] = s if out[i] is None else _plus(out[i], s)
    return [out[i] if i in wrt else None for i in range(len(ins))]


def _plus(a, b):
    """a + b for gradients: TensorLists item by item, a sparse gradient made dense."""
    if a.dtype._kind == "v":
        return _lists.add_lists(a, b)
    return a + convert_to_tensor(b)


def _other_resource(t):
    """A resource input that is not a variable (a dataset's iterator): no gradient flows to it."""
    if t.dtype.name != "resource" or getattr(t, "_is_resource", False):
        return False
    try:
        _variable_behind(t)
    except ValueError:
        return True
    return False


def _while_grad_kernel(*values, body, wrt, resource_specs=()):
    """Reverse mode through a finished loop: re-run it forward keeping each iteration's loop variables,
    then pull the output gradients back through the body one iteration at a time."""
    n_in = len(values) - body.n_vars
    inputs, dys = values[:n_in], values[n_in:]
    n = body.n_vars
    rec = _recorded().pop(body, None)
    if rec is not None and len(rec[0]) == n and all(a is b for a, b in zip(rec[0], inputs)):
        history = rec[1]  # the forward run of these very inputs
    else:  # no record (a graph loaded from a file): run it again; its later runs record
        _recording.add(body)
        history = []
        body.run(inputs, history)
    bw = _backward_of(body)
    if bw is not None and all(i in bw.float_vars for i in wrt if i < n):
        return bw.pull(body, inputs, dys, history, wrt)
    g_vars = list(dys)
    g_inputs = [None] * n_in
    bc = [inputs[i] for i in body.body_feed]
    read_ids = [id(t) for t in body.body.reads]
    small = bool(history) and body.body.blas_profile().one_thread([*history[0][0], *bc])
    with isolated_tapes(), _eager(), (blas_threads.one_thread() if small else contextlib.nullcontext()):
        for lv, reads in reversed(history):
            ins = [EagerTensor(v) if not getattr(v, "_is_resource", False) else v for v in list(lv) + bc]
            gs = vjp(body.body, ins, [EagerTensor(g) for g in g_vars], dict(zip(read_ids, reads)))
            g_vars = [_value_or_zeros(g, x) for g, x in zip(gs[:n], lv)]
            for i, g in zip(body.body_feed, gs[n:]):
                if g is not None and i in wrt:
                    prev, x = g_inputs[i], g._v
                    g_inputs[i] = x if prev is None else _lists._add(prev, x) if isinstance(x, TensorList) else \
                        prev + x
    for i in range(n):
        g_inputs[i] = g_vars[i]
    return tuple(g_inputs[i] if g_inputs[i] is not None else _zeros_of(inputs[i]) for i in wrt)


class _Backward:
    """A loop body's reverse mode, traced once and compiled both ways (as TensorFlow's While gradient).

    `forward` is the body compiled to also return what its gradient needs from an iteration (its stash:
    the values the gradient ops read, e.g. a sigmoid's output); `fn` is the body's vector-Jacobian product,
    traced once as a graph (reverse mode over the body's ops; the forward values it uses are its captures)
    and compiled by the same code generator. While a gradient may follow, the While kernel runs `forward`
    and keeps each iteration's stash; WhileGrad walks the stashes backwards through `fn`, feeding the loop's
    captures (the same every iteration) alongside, and sums the captures' gradients over the iterations:
    a weight's `x^T @ dy` products are stacked and multiplied once after the loop (one big GEMM instead of
    one small one per iteration), a slice's gradient is added into its place instead of a dense scatter."""

    def __init__(self, lb):
        from ..autodiff.backprop import backprop, graph_no_grad_message
        from ..execute.codegen import compile_graph
        from ..graph.graph import Graph
        body = lb.body
        bg = body.graph
        params, caps = body.params, list(bg.internal_captures)
        if len(caps) != len(lb.body_feed):
            raise _Unsupported("captures")
        self.float_vars = fv = [i for i, p in enumerate(params) if _is_float(p)]
        outs = [body.outputs[i] for i in fv]
        g = Graph(name=bg.name + "_grad", outer_graph=bg)
        with _eager(), isolated_tapes(), g.as_default():
            dys = [g.placeholder(o.dtype, o.shape, name="dy") for o in outs]
            # gradients flow to floating captures and to variables (through their reads), as on a tape
            wanted = [j for j, c in enumerate(caps) if _is_float(c) or (c.dtype.name == "resource" and
                                                                          not _other_resource(c))]
            grads = backprop(bg._ops, outs, dys, [params[i] for i in fv] + [caps[j] for j in wanted],
                             graph_no_grad_message)
            var_grads = [internal(g, x) if x is not None else _zero_grad(g._internal(params[i]))
                         for i, x in zip(fv, grads)]
            cap_grads = [(j, internal(g, x)) for j, x in zip(wanted, grads[len(fv):]) if x is not None]
        if len(bg.internal_captures) != len(caps):
            raise _Unsupported("the gradient captured a value from outside the loop")
        # How each capture's gradient is summed over the iterations (see _accumulator).
        self.acc = []
        results = list(var_grads)
        for j, x in cap_grads:
            kind, parts = _accumulator(x)
            self.acc.append((j, kind, len(results), len(parts), x.op.attrs.get("spec")))
            results.extend(parts)
        self.n_results = len(results)
        cap_ids = {id(c): j for j, c in enumerate(caps)}
        stash, stash_ph, cap_ph, self.cap_idx, const_ph, self.consts = [], [], [], [], [], []
        for value, ph in g.captures:
            if isinstance(value, SymbolicTensor):
                if value.graph is not bg:
                    raise _Unsupported("a value of another graph")
                if id(value) in cap_ids:
                    cap_ph.append(ph)
                    self.cap_idx.append(cap_ids[id(value)])
                else:  # a loop variable or an intermediate value: from each iteration
                    stash.append(value)
                    stash_ph.append(ph)
            else:  # an eager constant or a variable a gradient function took in: fed as is
                const_ph.append(ph)
                self.consts.append(value._v if isinstance(value, EagerTensor) else value)
        # Values the gradient reads only for their shape (a broadcasting op's SumToShapeOf reference) are kept
        # as their shapes: the arrays are freed at once (a third of an LSTM step's stash) and reused.
        users = {}
        for op in g.get_operations():
            for pos, t in enumerate(op.inputs):
                users.setdefault(id(t), []).append((op.type, pos))
        # (or a Shape op's: a TensorList item's gradient read back as zeros of the written value's shape)
        shaped = [all(u in _SHAPE_USES for u in users.get(id(ph), [None])) and ph.shape.rank not in (None, 0)
                  for ph in stash_ph]
        order = [i for i, sh in enumerate(shaped) if not sh] + [i for i, sh in enumerate(shaped) if sh]
        stash, stash_ph = [stash[i] for i in order], [stash_ph[i] for i in order]
        self.stash_end = len(body.outputs) + shaped.count(False)  # forward results after it: shapes only
        self.n_shaped = shaped.count(True)
        self.forward = body._compile(body.outputs + stash)
        feeds = dys + stash_ph + cap_ph + const_ph
        self.fn = compile_graph(g, feeds, results, name=g.name).fn
        self.blas = blas_threads.Profile(g.get_operations(), feeds)
        self.graph = g
        self._buffers = {}  # the weight-gradient stacks of the last run (_Stacks)
        memory.retain_heap()  # the stashes of every step: reuse their memory rather than fault it in anew

    def pull(self, lb, inputs, dys, history, wrt):
        """WhileGrad's result: the gradients of `wrt` given the output gradients `dys` and the stashes."""
        bc = [inputs[i] for i in lb.body_feed]
        fixed = [bc[j] for j in self.cap_idx] + self.consts
        fv = self.float_vars
        gv = [dys[i] for i in fv]
        nf = len(gv)
        sums = [None] * len(self.acc)
        stacks = [_Stacks(self._buffers, k, len(history)) if kind == "gemm" else None
                  for k, (j, kind, *_) in enumerate(self.acc)]
        fn = self.fn
        small = bool(history) and self.blas.one_thread([*gv, *history[0], *fixed])
        with isolated_tapes(), _eager(), (blas_threads.one_thread() if small else contextlib.nullcontext()):
            for st in reversed(history):
                r = fn(*gv, *st, *fixed)
                gv = r[:nf]
                for k, (j, kind, at, m, spec) in enumerate(self.acc):
                    if kind == "item":  # one item of a captured list's gradient
                        items = sums[k]
                        if items is None:
                            items = sums[k] = [None] * len(bc[j].items)
                        i, x = int(r[at]), r[at + 1]
                        items[i] = x if items[i] is None else items[i] + x
                    elif kind == "list":
                        sums[k] = r[at] if sums[k] is None else _lists._add(sums[k], r[at])
                    elif kind == "add":
                        x = r[at]
                        if sums[k] is None:
                            sums[k] = np.array(x, copy=True)
                        else:
                            np.add(sums[k], x, out=sums[k])
                    elif kind == "slice":
                        x = r[at]
                        if spec == _ROW:  # x[t] (a time loop's read of its input): rows written once
                            rows = sums[k]
                            if rows is None:
                                rows = sums[k] = _Rows(np.shape(bc[j]), x.dtype)
                            rows.add(int(r[at + 1]), x)
                            continue
                        if sums[k] is None:
                            sums[k] = np.zeros(np.shape(bc[j]), dtype=x.dtype)
                        sums[k][np_key(spec, r[at + 1:at + m])] += x
                    else:
                        stacks[k].add(r[at], r[at + 1])
        for k, st in enumerate(stacks):
            if st is not None:
                sums[k] = st.product()
            elif isinstance(sums[k], _Rows):
                sums[k] = sums[k].result()
            elif self.acc[k][1] == "item" and sums[k] is not None:
                sums[k] = TensorList(sums[k])
        by_input = {}
        for k, (j, kind, at, m, spec) in enumerate(self.acc):
            if sums[k] is not None:
                by_input[lb.body_feed[j]] = sums[k]
        for pos, i in enumerate(fv):
            by_input[i] = gv[pos]
        return tuple(by_input[i] if i in by_input else _zeros_of(inputs[i]) for i in wrt)


_ROW = (("i", DYN),)  # the StridedSlice spec of x[t]
_SHAPE_USES = (("SumToShapeOf", 1), ("Shape", 0))  # (op, input) reading only the shape of a stashed value


class _Shaped:
    """A stashed value the gradient reads only the shape of (np.shape and `.shape` see it as the array)."""
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


class _Rows:
    """The gradient of x summed over a loop's reads x[t]: each row's gradient is written into place the first
    time (no zeroed array read back and added to), added after that; rows no iteration read are zeros."""

    def __init__(self, shape, dtype):
        self.out = np.empty(shape, dtype)
        self.seen = np.zeros(shape[0] if shape else 0, bool)

    def add(self, t, x):
        n = len(self.seen)
        if not -n <= t < n:
            raise InvalidArgumentError(f"slice index {t} of dimension 0 out of bounds.")
        if self.seen[t]:
            self.out[t] += x
        else:
            self.out[t] = x
            self.seen[t] = True

    def result(self):
        if not self.seen.all():
            self.out[~self.seen] = 0
        return self.out


class _Unsupported(Exception):
    """A loop body the compiled gradient does not cover: WhileGrad replays it eagerly instead."""


def _is_float(t):
    """Whether a gradient flows along t: floating, or a TensorList (variant: its gradient is a list)."""
    return t.dtype._kind in "fcv"


def _accumulator(x):
    """How the gradient `x` (a tensor of backward graph g) of a loop capture is summed over the iterations:
    ("gemm", [a, b]) when it is a @ b with a transposed: the a's and b's of all iterations are stacked and
    multiplied once after the loop; ("slice", [dy, key]) when it scatters an iteration's slice into zeros
    (StridedSliceGrad, as `seq[t]` gives): added into the running sum in place; for a TensorList read in the
    loop, ("item", [index, dy]) when the gradient is a list holding one item (TensorListGetItem's): written
    into the summed list's items in place, ("list", [x]) for other list gradients (summed item by item);
    ("add", [x]) otherwise."""
    op = x.op
    if x.dtype._kind == "v":
        if op.type == "TensorListSetItem" and op.inputs[0].op.type == "TensorListReserve":
            return "item", [op.inputs[1], op.inputs[2]]
        return "list", [x]
    if op.type == "MatMul" and op.attrs.get("transpose_a") and not op.attrs.get("transpose_b") and \
            not op.attrs.get("adjoint_a") and not op.attrs.get("adjoint_b") and \
            all(t.shape.rank == 2 for t in op.inputs) and not op.inputs[0].dtype.is_complex:
        return "gemm", list(op.inputs)
    if op.type == "StridedSliceGrad":
        dy, _, *dyn = op.inputs
        return "slice", [dy, *dyn]
    return "add", [x]


class _Stacks:
    """sum_t a_t^T @ b_t over a backward loop's n iterations as one GEMM: each iteration's factors are copied
    into two stacked buffers as they come (so they are freed at once, and their memory is reused by the next
    iteration), multiplied once at the end. The buffers are kept for the next run of the loop (`cache`:
    the _Backward's, one pair per accumulator, taken out while in use). Factors of another shape than the
    first iteration's (a loop whose shapes vary) are multiplied on their own."""

    def __init__(self, cache, k, n):
        self.cache, self.k, self.n = cache, k, n
        self.bufs = None
        self.i = 0
        self.extra = []

    def add(self, a, b):
        bufs = self.bufs
        if bufs is None:
            key = (self.n, a.shape, a.dtype, b.shape, b.dtype)
            got = self.cache.pop(self.k, None)
            if got is None or got[0] != key:
                got = (key, np.empty((self.n * a.shape[0],) + a.shape[1:], a.dtype),
                       np.empty((self.n * b.shape[0],) + b.shape[1:], b.dtype))
            bufs = self.bufs = got
        key, sa, sb = bufs
        ra, rb = key[1][0], key[3][0]
        if a.shape != key[1] or b.shape != key[3] or a.dtype != key[2] or b.dtype != key[4]:
            self.extra.append((a, b))
            return
        i = self.i
        sa[i * ra:(i + 1) * ra] = a
        sb[i * rb:(i + 1) * rb] = b
        self.i = i + 1

    def product(self):
        if self.bufs is None:
            return None
        key, sa, sb = self.bufs
        i, ra, rb = self.i, key[1][0], key[3][0]
        out = blas_threads.matmul(sa[:i * ra].T, sb[:i * rb]) if i else None
        for a, b in self.extra:
            p = blas_threads.matmul(a.T, b)
            out = p if out is None else out + p
        self.cache[self.k] = self.bufs  # for the next run
        return out


_backwards = weakref.WeakKeyDictionary()  # LoopBody -> its _Backward, or False where not covered
_backwards_lock = threading.Lock()


def _backward_of(lb):
    """The loop's compiled reverse mode (built on first need), or None where WhileGrad replays eagerly."""
    bw = _backwards.get(lb)
    if bw is None:
        with _backwards_lock:
            bw = _backwards.get(lb)
            if bw is None:
                try:
                    bw = _Backward(lb)
                except Exception:  # noqa: BLE001 - any body it cannot trace: the forward pass must not fail
                    bw = False  # the eager replay raises what the user must see, when a gradient is taken
                _backwards[lb] = bw
    return bw or None


def _zeros_of(v):
    if isinstance(v, TensorList):  # a list's zero gradient: as long, nothing written
        return TensorList([None] * len(v.items))
    return np.zeros_like(v._value if getattr(v, "_is_resource", False) else v)


def _value_or_zeros(g, x):
    return _zeros_of(x) if g is None else g._v


@contextlib.contextmanager
def _eager():
    """A kernel may run while an outer graph is being built (in tf.init_scope): run its ops eagerly."""
    st = _state
    saved = st.graphs
    st.graphs = []
    try:
        yield
    finally:
        st.graphs = saved


def _while_grad_infer(*values, body, wrt, resource_specs=()):
    known = {i: (shape, dtype) for i, shape, dtype in resource_specs}
    return [known.get(i, (values[i].shape, values[i].dtype)) for i in wrt]


WHILE = defop("While", _quiet(_while_kernel), _while_infer, grad=_while_grad, num_outputs=_n_out("body"), stateful=True)
STATELESS_WHILE = defop("StatelessWhile", _quiet(_while_kernel), _while_infer, grad=_while_grad,
                        num_outputs=_n_out("body"))
WHILE_GRAD = defop("WhileGrad", _quiet(_while_grad_kernel), _while_grad_infer,
                   num_outputs=lambda attrs: len(attrs["wrt"]))


def vjp(sub, inputs, dys, reads=None):
    """Gradients of a sub-graph's outputs w.r.t. `inputs` (fed in sub.inputs order) given the output
    gradients, by replaying the sub-graph into the current context: eagerly under a fresh tape, in a graph
    by reverse mode over the replayed ops. None where an input is unconnected. `reads` (eager only): the
    values the forward run's variable reads gave, replayed instead of reading the variables now."""
    from ..autodiff.backprop import backprop, graph_no_grad_message
    from ..execute.replay import replay
    g = context.current_graph()
    if g is None:
        from ..autodiff.tape import GradientTape
        with isolated_tapes(), GradientTape() as tape:
            for x in inputs:
                if isinstance(x, Tensor) and _is_float(x):
                    tape.watch(x)
            # keep_stateful=False: the forward pass already ran the sub-graph's side effects (assigns)
            outs = replay(sub.graph, sub.inputs, sub.outputs, inputs, keep_stateful=False, reads=reads)
        targets, seeds = _float_pairs(outs, dys)
        if not targets:
            return [None] * len(inputs)
        return tape.gradient(targets, list(inputs), output_gradients=seeds)
    with isolated_tapes():
        start = len(g._ops)
        outs = replay(sub.graph, sub.inputs, sub.outputs, inputs, keep_stateful=False)
        sources = [g._internal(x) for x in inputs]
    targets, seeds = _float_pairs(outs, dys)
    return backprop(g._ops[start:], targets, seeds, sources, graph_no_grad_message)


def _float_pairs(outs, dys):
    pairs = [(o, dy) for o, dy in zip(outs, dys) if _is_float(o)]
    return [o for o, _ in pairs], [dy for _, dy in pairs]


def build_while(cond_fn, body_fn, init, template, shapes, names=None, must_iterate=(), name="while"):
    """Stages one While op. init: flat loop-variable tensors; template: the structure they pack into (the
    arguments of cond_fn/body_fn); shapes: the shape invariant of each. body_fn returns the structure anew.
    names (AutoGraph's variable names) switch error messages to AutoGraph's wording."""
    init = [_flow_of(x) for x in init]
    params = [(s, t.dtype) for s, t in zip(shapes, init)]
    cg, cph, c = trace(cond_fn, f"{name}_cond", params, template)
    with cg.as_default():
        c = convert_to_tensor(c)
    if c.dtype is not _dt.bool or c.shape.rank not in (None, 0):
        raise TypeError(f"The loop condition must be a scalar bool tensor, got {c!r}")
    bg, bph, out = trace(body_fn, f"{name}_body", params, template)
    try:
        nest.assert_same_structure(template, out)
    except (ValueError, TypeError) as e:
        if names is None:
            raise ValueError(str(e)) from None
        raise TypeError(f"the loop variables must keep the same nested structure across iterations: {e}") \
            from None
    out_flat = [internal(bg, x) for x in flatten(out)]
    for i, (t0, t1, shape) in enumerate(zip(init, out_flat, shapes)):
        _check_iteration(t0, t1, shape, names[i] if names else None)
    subs = [SubGraph(cg, cph, [internal(cg, c)]),
            SubGraph(bg, bph, out_flat)]
    outer, feeds = _feeds(subs, len(init))
    lb = LoopBody(subs[0], subs[1], len(init), feeds, tuple(params), tuple(must_iterate))
    op = WHILE if (subs[0].stateful or subs[1].stateful) else STATELESS_WHILE
    res = bind(op, list(init) + outer, {"body": lb}, name=name)
    return pack(out, res)


def _check_iteration(t0, t1, shape, name):
    if t0.dtype is not t1.dtype:
        if name is not None:
            raise TypeError(f"'{name}' has dtype {t0.dtype.name} before the loop, but dtype {t1.dtype.name} "
                            f"after one iteration")
        tn = _tensor_name(t0)
        raise TypeError(f"Loop var {tn} enters the loop with type <dtype: '{t0.dtype.name}'> but has type "
                        f"<dtype: '{t1.dtype.name}'> after 1 iteration. {tn} type should remain constant.")
    if not t1.shape.is_subtype_of(shape):
        if name is not None:
            raise ValueError(f"'{name}' has shape {_pyshape(t0.shape)} before the loop, but shape "
                             f"{_pyshape(t1.shape)} after one iteration. Use "
                             f"tf.autograph.experimental.set_loop_options to set shape invariants.")
        raise ValueError(f"Input tensor `{_tensor_name(t0)}` enters the loop with shape {_pyshape(shape)}, but "
                         f"has shape {_pyshape(t1.shape)} after one iteration. To allow the shape to vary across "
                         f"iterations, use the `shape_invariants` argument of tf.while_loop to specify a "
                         f"less-specific shape.")


def _pyshape(s):
    if s.rank is None:
        return "<unknown>"
    return str(tuple(s.as_list()))


def _tensor_name(t):
    return t.name if isinstance(t, SymbolicTensor) else "Const:0"


def _loop_args(loop_vars):
    """tf.while_loop calls cond(*loop_vars): a list/tuple is the argument list, anything else one argument."""
    if isinstance(loop_vars, (list, tuple)) and not hasattr(loop_vars, "_fields"):
        return list(loop_vars), type(loop_vars)
    return [loop_vars], None


def _leaf_tensor(x):
    return x if _is_composite(x) or isinstance(x, Tensor) or _expandable(x) else convert_to_tensor(x)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """tf.while_loop: repeat `loop_vars = body(*loop_vars)` while cond(*loop_vars)."""
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if loop_vars is None or (isinstance(loop_vars, (list, tuple)) and not loop_vars):
        raise ValueError("'loop_vars' must be provided: tf.while_loop needs at least one loop variable.")
    if not isinstance(parallel_iterations, int) or isinstance(parallel_iterations, bool) or parallel_iterations < 1:
        raise TypeError(f"'parallel_iterations' must be a positive integer, got {parallel_iterations!r}.")
    args, kind = _loop_args(loop_vars)
    args = nest.map_structure(_leaf_tensor, args)
    if shape_invariants is not None and kind is None:
        shape_invariants = [shape_invariants]

    def step(*a):  # the body's result as a list of loop variables (a lone value is the only one)
        out = body(*a)
        if isinstance(out, (list, tuple)) and not hasattr(out, "_fields"):
            out = list(out)
        elif len(args) == 1:
            out = [out]
        return nest.map_structure(_leaf_tensor, out) if isinstance(out, list) else out

    def result(lv):
        return lv[0] if kind is None else kind(lv)

    if context.current_graph() is None:
        lv, n = args, 0
        limit = None if maximum_iterations is None else int(convert_to_tensor(maximum_iterations))
        while (limit is None or n < limit) and _eager_pred(cond(*lv)):
            out = step(*lv)
            nest.assert_same_structure(args, out)
            lv, n = out, n + 1
        return result(lv)
    init = flatten(args)
    if shape_invariants is None:
        shapes = [t.shape for t in init]
    else:
        shapes = [TensorShape([]) if _is_composite(t) else TensorShape(s)
                  for s, t in zip(_flat_invariants(shape_invariants, args), nest.flatten(args))]
        for t, s in zip(init, shapes):
            if not t.shape.is_subtype_of(s):
                raise ValueError(f"The shape invariant specified for {_tensor_name(t)} is not compatible with the "
                                 f"initial shape of the loop variable. It enters the loop with shape "
                                 f"{_pyshape(t.shape)}, but the specified shape invariant is {_pyshape(s)}.")
    c_fn, b_fn, template = cond, step, args
    if maximum_iterations is not None:
        from ..ops.math_ops import add, less, logical_and
        limit = convert_to_tensor(maximum_iterations, dtype=_dt.int32)
        zero = convert_to_tensor(0)
        init, shapes, template = [zero] + init, [TensorShape([])] + shapes, [zero] + args
        c_fn = (lambda i, *a: logical_and(less(i, limit), cond(*a)))
        b_fn = (lambda i, *a: [add(i, 1)] + _as_list(step(*a)))
    out = build_while(c_fn, b_fn, init, template, shapes, name=name or "while")
    return result(out[1:] if maximum_iterations is not None else out)


def _eager_pred(c):
    """The value of an eager loop condition, which must be a scalar bool (a string would be truthy forever)."""
    if c is True or c is False:
        return c
    t = convert_to_tensor(c)
    if t.dtype is not _dt.bool or t.shape.rank != 0:
        raise TypeError(f"The loop condition must be a scalar bool tensor, got {t!r}")
    return bool(t)


def _as_list(x):
    return x if isinstance(x, list) else [x]


def _flat_invariants(invariants, args):
    """Shape invariants, one per loop-variable leaf (a TensorShape-like leaf covers a whole composite)."""
    out = []

    def walk(inv, arg):
        if isinstance(arg, dict):
            for k in sorted(arg):
                walk(inv[k], arg[k])
        elif isinstance(arg, (list, tuple)):
            for i, a in zip(inv, arg):
                walk(i, a)
        else:
            out.append(inv)
    walk(list(invariants), list(args))
    return out
