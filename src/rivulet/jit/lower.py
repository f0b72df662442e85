"""Lowers a ConcreteFunction's optimised graph to one ONNX model for the compiled tier.

Unlike rivulet.onnx.export (variables frozen into initializers, state changes refused), a compiled step is
a pure function: the variables it reads are extra inputs, and each variable it assigns gives one extra
output, its final value, which the caller stores back. Stateful ops are converted in program order, so a
read after an assign sees the assigned value. Anything else with a side effect (printing, assertions,
random numbers with their own state) is refused: the function then runs on the NumPy executor.
"""
import itertools

import numpy as np
from onnx import helper, numpy_helper

from .. import dtypes as _dt
from ..core.tensor import EagerTensor
from ..execute.blas_threads import largest_gemm
from ..execute.plan import needed_ops
from ..graph.graph_def import side_effect
from ..onnx import ops_array, ops_control, ops_math, ops_nn, ops_sort  # noqa: F401  (register the converters)
from ..onnx.builder import CONVERTERS, Model, Scope, Unsupported, VarRef, converter, onnx_type, value_info
from ..onnx.convert import convert_ops
from ..onnx.prune import prune
from ..onnx.report import ExportReport
from .rows import row_wise

OPSET = 17
_UPDATES = {"AssignVariableOp": None, "AssignAddVariableOp": "Add", "AssignSubVariableOp": "Sub"}
# ops that update variables (their leading resource inputs, how many): a compiled step writes them back
_UPDATED = {**{t: 1 for t in _UPDATES}, "_KerasAdamUpdate": 3, "_MatMulAssignSub": 1, "_BiasAssignSub": 1}
# stateful ops a compiled step runs as pure ones: reads and updates of variables (assigns inside a loop or cond
# are refused where they are lowered, StepModel.assign)
_HARMLESS = ("ReadVariableOp", *_UPDATED)


class Lowered:
    """The ONNX model and how to call it: which compiled-graph inputs feed it, which variables it updates."""
    __slots__ = ("model", "arg_index", "var_index", "input_names", "n_outputs", "updated", "output_names",
                 "heavy_flops", "frozen", "fused_rnns", "rows")


class StepModel(Model):
    """Model bookkeeping plus each variable's current value: its input until an assign replaces it. A Keras
    LSTM, or GRU with reset_after, lowers to a Scan rather than ONNX's LSTM/GRU node (onnx/ops_rnn.py:
    onnxruntime runs it faster)."""
    rnn_as_scan = True

    def __init__(self, opset, report, freeze):
        super().__init__(opset, report)
        self.resources = {}  # id(var) -> (var, position among the compiled graph's inputs)
        self.inputs = []  # (var, input name, position), in first-use order
        self.current, self.assigned = {}, {}
        self.freeze = freeze  # ids of the variables that become constants: read, never assigned here
        self.frozen = []  # (var, the array frozen)

    def variable(self, var):
        name = self.current.get(id(var))
        if name is None:
            if id(var) not in self.resources:
                raise Unsupported("reads a resource that is not a tf.Variable")
            base = var.name.split(":")[0].replace("/", "_") or "var"
            if id(var) in self.freeze:
                value = var._value
                self.frozen.append((var, value))
                name = self.current[id(var)] = self.initializer(np.asarray(value), base)
            else:
                name = self.current[id(var)] = self.fresh(base)
                self.inputs.append((var, name, self.resources[id(var)][1]))
        return name

    def assign(self, ctx, ref, value):
        self._check(ctx, ref)
        old = self.variable(ref.var)
        how = _UPDATES[ctx.op.type]
        self.set(ref, value if how is None else ctx.node(how, [old, value]))
        return []

    def set(self, ref, value):
        self.current[id(ref.var)] = value
        self.assigned[id(ref.var)] = ref.var

    @staticmethod
    def _check(ctx, ref):
        if ctx.scope.prefix:
            raise Unsupported("assigns a variable inside a control-flow branch or loop")
        if not isinstance(ref, VarRef):
            raise Unsupported("assigns a resource that is not a tf.Variable")


def _assign(ctx, op, ref, value):
    if not isinstance(ctx.model, StepModel):
        raise Unsupported("changes a variable, which an exported model cannot do")
    return ctx.model.assign(ctx, ref, value)


for _t in _UPDATES:
    if _t not in CONVERTERS:
        converter(_t)(_assign)


@converter("_KerasAdamUpdate")
def _keras_adam(ctx, op, w, m, v, g, alpha, c1, c2, eps):
    """Keras Adam's step (ops/training_ops.py) in the same operations: m += (g - m) c1; v += (g g - v) c2;
    w -= m alpha / (sqrt(v) + eps)."""
    model = ctx.model
    if not isinstance(model, StepModel):
        raise Unsupported("changes a variable, which an exported model cannot do")
    for ref in (w, m, v):
        model._check(ctx, ref)
    wo, mo, vo = (model.variable(ref.var) for ref in (w, m, v))
    n = ctx.node
    m1 = n("Add", [mo, n("Mul", [n("Sub", [g, mo]), c1])])
    v1 = n("Add", [vo, n("Mul", [n("Sub", [n("Mul", [g, g]), vo]), c2])])
    w1 = n("Sub", [wo, n("Div", [n("Mul", [m1, alpha]), n("Add", [n("Sqrt", [v1]), eps])])])
    for ref, value in ((m, m1), (v, v1), (w, w1)):
        model.set(ref, value)
    return []


@converter("_MatMulAssignSub")
def _matmul_assign_sub(ctx, op, ref, a, b):
    """The optimiser's fused SGD step on a layer's weights (optimize/fusion.py), v -= c * (op(a) @ op(b)), in the
    three ops it replaces: MatMul (transposed operands as Transpose nodes, as a MatMul's), Mul, Sub."""
    model = ctx.model
    if not isinstance(model, StepModel):
        raise Unsupported("changes a variable, which an exported model cannot do")
    model._check(ctx, ref)
    old = model.variable(ref.var)
    a, b = (ctx.node("Transpose", [x], perm=[1, 0]) if op.attrs.get(flag) else x
            for x, flag in ((a, "transpose_a"), (b, "transpose_b")))
    scaled = ctx.node("Mul", [ctx.const(np.float32(op.attrs["c"])), ctx.node("MatMul", [a, b])])
    model.set(ref, ctx.node("Sub", [old, scaled]))
    return []


@converter("_BiasAssignSub")
def _bias_assign_sub(ctx, op, ref, g):
    """The optimiser's fused SGD step on a bias (optimize/fusion.py), v -= c * (g summed over its rows), in the
    three ops it replaces: ReduceSum over axis 0 (SumToShapeOf's), Mul, Sub."""
    model = ctx.model
    if not isinstance(model, StepModel):
        raise Unsupported("changes a variable, which an exported model cannot do")
    model._check(ctx, ref)
    old = model.variable(ref.var)
    summed = ctx.reduce("ReduceSum", g, [0], False)
    model.set(ref, ctx.node("Sub", [old, ctx.node("Mul", [ctx.const(op.attrs["c"]), summed])]))
    return []


@converter("_MatMulReluGrad")
def _matmul_relu_grad(ctx, op, a, b, x):
    """The optimiser's fused input gradient through a ReLU (optimize/fusion.py), (op(a) @ op(b)) * (x > 0), in
    the ops it replaces: MatMul (transposed operands as Transpose nodes), then ReluGrad's Greater, Cast, Mul."""
    a, b = (ctx.node("Transpose", [v], perm=[1, 0]) if op.attrs.get(flag) else v
            for v, flag in ((a, "transpose_a"), (b, "transpose_b")))
    mask = ctx.cast(ctx.node("Greater", [x, ctx.scalar(op.inputs[2], 0)]), op.inputs[2].dtype)
    return ctx.node("Mul", [ctx.node("MatMul", [a, b]), mask])


def lower(graph, inputs, outputs, captures, n_args, freeze=True):
    """graph/inputs/outputs: the optimised graph and the compiled function's parameters and results;
    captures: the values fed after the n_args arguments (variables, eager tensors). freeze: the variables
    the function reads but never assigns become constants holding their current values (onnxruntime then
    pre-packs the weights: w1 0.58 -> 0.34 ms); `Lowered.frozen` lists them, for the caller to check that
    they still hold those arrays (an assign replaces a variable's array while anyone else holds it).
    Returns (Lowered, None); (None, an ExportReport listing what cannot be compiled); or (None, None) when
    the function computes nothing."""
    report = ExportReport()
    ops = needed_ops(graph, outputs)
    assigned = {id(t) for op in ops for t in op.inputs[:_UPDATED.get(op.type, 0)]}  # their resource placeholders
    frozen = {id(v) for v, ph in zip(captures, inputs[n_args:]) if freeze and id(ph) not in assigned}
    model = StepModel(OPSET, report, frozen)
    scope = Scope(model)
    feeds, in_infos = {}, []
    low = Lowered()
    low.arg_index, low.var_index, low.input_names, low.output_names, low.updated = [], [], [], [], []
    unknown = itertools.count()
    for i, ph in enumerate(inputs[:n_args]):
        name = model.fresh(f"arg{i}")
        feeds[id(ph)] = name
        in_infos.append(value_info(name, ph, symbolic=lambda: f"unk__{next(unknown)}"))  # each dim its own
        low.arg_index.append(i)
        low.input_names.append(name)
    for k, (value, ph) in enumerate(zip(captures, inputs[n_args:])):
        if isinstance(value, EagerTensor):
            feeds[id(ph)] = model.initializer(np.asarray(value._v), f"capture{k}")
            continue
        feeds[id(ph)] = VarRef(value)  # a resource that is not a variable: its users report themselves
        if getattr(value, "_is_resource", False) and hasattr(value, "_value"):
            model.resources[id(value)] = (value, n_args + k)
    for op in ops:
        if side_effect(op, _HARMLESS) is not None:
            report.add(op, "has a side effect (printing, an assertion, random numbers, other state) that the "
                           "compiled tier does not run")
        elif any(t.dtype is _dt.string for t in op.outputs):
            report.add(op, "works on strings, which the compiled tier does not handle")
    values = convert_ops(scope, graph, feeds, outputs, ops=ops)
    if report.ok:
        for v, t in zip(values, outputs):
            if not isinstance(v, str):
                report.add(t.op, "returns a resource (a variable handle), which the compiled tier cannot return")
    if not report.ok:
        seen = set()  # one line per op (a stateful op without a converter is refused for both reasons)
        report.problems = [p for p in report.problems if not (p.op_name in seen or seen.add(p.op_name))]
        return None, report
    if not outputs and not model.assigned:
        return None, None  # nothing to compute: the NumPy executor's call is as cheap as any
    out_infos = [_output(scope, model, v, f"out{i}", lambda n, t=t: value_info(n, t), low)
                 for i, (v, t) in enumerate(zip(values, outputs))]
    low.n_outputs = len(outputs)
    for j, var in enumerate(model.assigned.values()):
        low.updated.append(var)
        out_infos.append(_output(scope, model, model.current[id(var)], f"new{j}",
                                 lambda n, var=var: _var_info(n, var), low))
    for var, name, pos in model.inputs:
        in_infos.append(_var_info(name, var))
        low.var_index.append(pos)
        low.input_names.append(name)
    g = helper.make_graph(_shapes_of_gathers(scope.nodes, model.initializers), "rivulet_jit", in_infos, out_infos)
    live = prune(g)
    g.initializer.extend(t for t in model.initializers if t.name in live)
    opsets = [helper.make_opsetid("", OPSET)]
    low.model = helper.make_model(g, opset_imports=opsets, producer_name="rivulet-jit",
                                  ir_version=helper.find_min_ir_version_for(opsets))
    low.heavy_flops = largest_gemm(ops)
    low.fused_rnns = {n.op_type for n in g.node if n.op_type in ("RNN", "LSTM", "GRU", "Scan")}  # onnx/ops_rnn.py
    low.frozen = model.frozen
    # a recurrent step computing each row from its arguments' row alone: per output, whether it has rows
    # (jit/rows.py), for the caller to run big batches in chunks on two threads; None: run it whole
    low.rows = row_wise(low.model, n_args) if "Scan" in low.fused_rnns and not low.updated else None
    return low, None


def _shapes_of_gathers(nodes, initializers):
    """Shape(Gather(table, ids)) rewritten as the shape of ids then the table's row shape, where the table is a
    constant: a Keras RNN's zero state is sized from its input, an embedding lookup whose rows the RNN's Scan
    gathers itself (onnx/ops_rnn.py), which then need not be gathered whole (2 of 28 ms at batch 1024)."""
    dims = {t.name: list(t.dims) for t in initializers}
    made = {o: n for n in nodes for o in n.output}
    out = []
    for n in nodes:
        src = made.get(n.input[0]) if n.op_type == "Shape" and n.input else None
        if src is not None and src.op_type == "Gather" and src.input[0] in dims and not n.attribute and \
                all(a.name != "axis" or a.i == 0 for a in src.attribute):
            ids_shape, rows = n.output[0] + "/ids", n.output[0] + "/rows"
            out += [helper.make_node("Shape", [src.input[1]], [ids_shape], name=ids_shape),
                    helper.make_node("Constant", [], [rows], name=rows, value=numpy_helper.from_array(
                        np.asarray(dims[src.input[0]][1:], np.int64), rows)),
                    helper.make_node("Concat", [ids_shape, rows], list(n.output), name=n.name, axis=0)]
        else:
            out.append(n)
    return out


def _output(scope, model, value, base, make_info, low):
    name = model.fresh(base)
    scope.nodes.append(helper.make_node("Identity", [value], [name], name=name))
    low.output_names.append(name)
    return make_info(name)


def _var_info(name, var):
    v = np.asarray(var._value)
    return helper.make_tensor_value_info(name, onnx_type(v.dtype), list(v.shape))
