"""Lowers a ConcreteFunction's optimised graph to TensorFlow Lite's builtin operators, op by op.

The graph lowered is the one rivulet runs (optimize/pipeline.py's optimize_traced: constants folded, arithmetic
simplified, MatMul/Conv2D + bias + ReLU fused), so LiteRT computes what rivulet computes. Constants become
buffers; variables are frozen (their current values become buffers). Every op with no builtin is reported
with the user's source line (not just the first), as the ONNX export report does.
"""
import numpy as np

from .. import dtypes as _dt
from ..core.tensor import Tensor
from ..graph.graph_util import data_ancestors, user_location as where
from . import fuse, schema

# Control flow and recurrent ops not converted yet (If and While are: IF and WHILE with subgraphs).
CONTROL_FLOW = {"Case", "StatelessCase", "PartitionedCall",
                "StatefulPartitionedCall", "TensorListReserve", "TensorListFromTensor", "TensorListStack",
                "TensorListSetItem", "TensorListGetItem", "TensorArrayV3"}
# Stateful ops whose effect a converted model may drop, as TensorFlow's converter does.
_DROPPED = {"ReadVariableOp", "PrintV2", "Assert", "CheckNumerics", "NoOp"}
PASS_THROUGH = {"Identity", "IdentityN", "StopGradient", "Snapshot", "PreventGradient", "EnsureShape"}

_TYPES = {_dt.float32: 0, _dt.float16: 1, _dt.int32: 2, _dt.uint8: 3, _dt.int64: 4, _dt.bool: 6, _dt.int16: 7,
          _dt.int8: 9, _dt.float64: 10}
_NP_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.int32): 2, np.dtype(np.uint8): 3,
             np.dtype(np.int64): 4, np.dtype(np.bool_): 6, np.dtype(np.int16): 7, np.dtype(np.int8): 9,
             np.dtype(np.float64): 10}
_ACTIVATIONS = {None: 0, "relu": 1, "relu6": 3, "tanh": 4}
_PADDING = {"SAME": 0, "VALID": 1}
_MIN_VERSION = {"BROADCAST_TO": 2}  # TensorFlow Lite registers these from a version above 1


class Unsupported(Exception):
    """Raised by a lowering rule: the op (with these attrs) has no TensorFlow Lite builtin form."""


class LiteTensor:
    """One tensor of a subgraph; `quant` is None (float) or (scales, zero_points, quantized_dimension)."""
    __slots__ = ("name", "shape", "type", "buffer", "quant")

    def __init__(self, name, shape, type_, buffer, quant=None):
        self.name, self.shape, self.type, self.buffer, self.quant = name, tuple(shape), type_, buffer, quant


class LiteOp:
    __slots__ = ("opcode", "inputs", "outputs", "options", "fields")

    def __init__(self, opcode, inputs, outputs, options, fields):
        self.opcode, self.inputs, self.outputs, self.options, self.fields = opcode, inputs, outputs, options, fields


class Subgraph:
    def __init__(self, name):
        self.name, self.tensors, self.ops, self.inputs, self.outputs = name, [], [], [], []


class Signature:
    def __init__(self, key, inputs, outputs, subgraph):
        self.key, self.inputs, self.outputs, self.subgraph = key, inputs, outputs, subgraph


class LiteModel:
    """What schema.write turns into a flatbuffer: buffers (bytes; buffer 0 is the empty one), operator codes,
    subgraphs and signatures."""

    def __init__(self):
        self.buffers = [b""]
        self.opcodes = []
        self.versions = []  # each operator code's version (the first the runtime registers)
        self.subgraphs = []
        self.signatures = []
        self.description = "rivulet"

    def opcode(self, name, version=None):
        """The index of operator code `name` at `version` (default: the first the runtime registers); the
        quantised kernels are later versions of the same code, each an operator code of its own."""
        code = getattr(schema.enum("BuiltinOperator"), name)
        version = _MIN_VERSION.get(name, 1) if version is None else version
        for i, (c, v) in enumerate(zip(self.opcodes, self.versions)):
            if c == code and v == version:
                return i
        self.opcodes.append(code)
        self.versions.append(version)
        return len(self.opcodes) - 1


class Problem:
    __slots__ = ("op_type", "op_name", "reason", "frame")

    def __init__(self, op, reason):
        self.op_type, self.op_name, self.reason, self.frame = op.type, op.name, reason, op.user_frame

    def __str__(self):
        return f"{where(self.frame)}: {self.op_type} '{self.op_name}': {self.reason}"


RULES = {}


def rule(*op_types):
    def deco(fn):
        for t in op_types:
            RULES[t] = fn
        return fn
    return deco


class Lowering:
    """Builds one subgraph: `values` maps id(rivulet tensor) to a tensor index or a NumPy constant."""

    def __init__(self, model, sub):
        self.model, self.sub = model, sub
        self.problems, self.control_flow = [], []
        self.op = None

    # ---- tensors
    def new_tensor(self, name, shape, type_, buffer=0):
        self.sub.tensors.append(LiteTensor(name, shape, type_, buffer))
        return len(self.sub.tensors) - 1

    def const(self, value, name=None):
        arr = np.asarray(value, order="C")  # (ascontiguousarray would make a 0-d value 1-d)
        if arr.dtype not in _NP_TYPES:
            raise Unsupported(f"a constant of dtype {arr.dtype} has no TensorFlow Lite type")
        self.model.buffers.append(arr.tobytes())
        name = name or f"{self.op.name if self.op is not None else 'const'}/Const"
        return self.new_tensor(name, arr.shape, _NP_TYPES[arr.dtype], len(self.model.buffers) - 1)

    def i32(self, values):
        return self.const(np.asarray(values, dtype=np.int32))

    def index(self, v):
        """A tensor index for a value (constants are materialised as buffers here)."""
        return self.const(v) if isinstance(v, np.ndarray) else v

    def out_for(self, t, name=None):
        """A fresh tensor index for the rivulet tensor t (its static shape; unknown dims become -1 in the
        shape signature)."""
        if t.shape.rank is None:
            raise Unsupported(f"its output {t.name} has an unknown rank")
        if t.dtype not in _TYPES:
            raise Unsupported(f"its output dtype {t.dtype.name} has no TensorFlow Lite type")
        return self.new_tensor(name or t.op.name, t.shape.as_list(), _TYPES[t.dtype])

    # ---- operators
    def emit(self, opname, inputs, outputs=None, options=None, **fields):
        """Appends operator `opname` (BuiltinOperator name); inputs: indices, constants or -1 (optional input
        left out); outputs: rivulet tensors or indices (default: the current op's outputs)."""
        ins = [-1 if v is None else self.index(v) for v in inputs]
        outs = []
        for o in (self.op.outputs if outputs is None else outputs):
            outs.append(self.out_for(o) if isinstance(o, Tensor) else o)
        self.sub.ops.append(LiteOp(self.model.opcode(opname), ins, outs, options, fields))
        return outs[0] if len(outs) == 1 else outs

    def temp(self, shape, like, suffix):
        """An intermediate tensor of `shape` with the dtype of rivulet tensor `like`."""
        return self.new_tensor(f"{self.op.name}/{suffix}", shape, _TYPES[like.dtype])

    # ---- subgraphs (IF branches, WHILE conditions and bodies)
    def subgraph(self, sg, feeds, input_specs, carried=()):
        """Lowers control-flow sub-graph `sg` (function/control_flow.SubGraph) into a subgraph of its own;
        feeds: per sg.inputs, a NumPy constant (folded in) or k, the subgraph's input k; input_specs:
        (shape, type) per subgraph input; carried: inputs copied to extra outputs (a loop body's captures).
        Returns the subgraph's index."""
        from ..optimize.pipeline import optimize
        consts = {id(ph): v for ph, v in zip(sg.inputs, feeds) if _const(v)}
        graph, ins, outs = optimize(sg.graph, sg.inputs, sg.outputs, consts)
        sub = Subgraph(sg.graph.name)
        self.model.subgraphs.append(sub)
        index = len(self.model.subgraphs) - 1
        lw = Lowering(self.model, sub)
        sub.inputs = [lw.new_tensor(f"{sg.graph.name}_arg{k}", shape, type_)
                      for k, (shape, type_) in enumerate(input_specs)]
        fd = {id(ph): (v if _const(v) else sub.inputs[v]) for ph, v in zip(ins, feeds)}
        values = lw.run(graph, fd, outs)
        self.problems += lw.problems
        self.control_flow += lw.control_flow
        if lw.problems or lw.control_flow:
            return index
        sub.outputs = lw.output_tensors(values, outs)
        for k in carried:
            shape = [-1 if d is None else d for d in input_specs[k][0]]
            if shape.count(-1) > 1:
                self.problems.append(Problem(self.op, "a loop captures a value with more than one unknown "
                                                      "dimension"))
                return index
            copy = lw.new_tensor("carried", input_specs[k][0], input_specs[k][1])
            sub.ops.append(LiteOp(self.model.opcode("RESHAPE"), [sub.inputs[k], lw.i32(shape)], [copy], None, {}))
            sub.outputs.append(copy)
        for k, i in enumerate(sub.outputs):
            sub.tensors[i].name = f"{sg.graph.name}_out{k}"
        fuse.optimize(self.model, sub)
        return index

    def output_tensors(self, values, outputs, taken=()):
        """A tensor of its own per output: constants, inputs and repeated outputs are copied (RESHAPE)."""
        used, result = set(self.sub.inputs) | set(taken), []
        for v, t in zip(values, outputs):
            if isinstance(v, np.ndarray) or v in used:
                self.op = t.op
                v = self.emit("RESHAPE", [v, self.i32([-1 if d is None else d for d in t.shape.as_list()])], [t])
            used.add(v)
            result.append(v)
        self.op = None
        return result

    def spec(self, v, t=None):
        """(shape, type) of a value: a tensor index, or a constant (then the rivulet tensor t's shape)."""
        if _const(v):
            return list(v.shape), _NP_TYPES[v.dtype]
        lt = self.sub.tensors[v]
        return list(lt.shape), lt.type

    # ---- the walk
    def run(self, graph, feeds, outputs):
        values = self.values = dict(feeds)
        needed = data_ancestors(graph, outputs)
        gelus, skipped = _exact_gelus(needed)
        kept = {op._id for op in needed}
        for op in graph.control_outputs:  # effects a TensorFlow Lite model would silently drop
            if op._id not in kept and op.type not in _DROPPED:
                self.problems.append(Problem(op, "runs only for its side effects (it changes state, such as a "
                                                 "variable update), which the converted model would not do"))
        for op in needed:
            if op.type == "Placeholder":
                if id(op.outputs[0]) not in values and all(p.op_name != op.name for p in self.problems):
                    self.problems.append(Problem(op, "an input the converter could not feed"))
                continue
            self.op = op
            ins = [values.get(id(t)) for t in op.inputs]
            res = None
            if op._id in skipped:
                continue
            if op._id in gelus:  # 0.5 * x * erfc(-x / sqrt(2)) as TensorFlow's converter fuses it
                x = values.get(id(gelus[op._id]))
                if x is not None:
                    res = self.emit("GELU", [x], options="GeluOptions", Approximate=False)
            elif op.type in CONTROL_FLOW:
                self.control_flow.append(Problem(op, "this control flow is not converted yet"))
            elif op.type in PASS_THROUGH:
                res = list(ins) if op.type == "IdentityN" else ins[0]
            elif any(v is None for v in ins):  # an input already failed (reported there)
                if op.type not in RULES:
                    self.problems.append(Problem(op, "no TensorFlow Lite builtin operator for it"))
            else:
                if ins and all(_const(v) for v in ins) and _foldable(op):
                    res = _evaluate(op, ins)  # e.g. a Conv1D filter's ExpandDims of a frozen variable
                if res is not None:
                    pass
                elif op.type not in RULES:
                    self.problems.append(Problem(op, "no TensorFlow Lite builtin operator for it"))
                else:
                    try:
                        res = RULES[op.type](self, op, *ins)
                    except _Reported:
                        pass
                    except Unsupported as e:
                        self.problems.append(Problem(op, str(e)))
            if res is None:
                continue
            res = res if isinstance(res, list) else [res]
            for t, v in zip(op.outputs, res):
                values[id(t)] = v
        self.op = None
        return [values.get(id(t)) for t in outputs]


def _scalar_const(t, value):
    if t.op.type != "Const":
        return False
    v = np.asarray(t.op.attrs["value"])
    return v.size == 1 and abs(float(v.reshape(-1)[0]) - value) <= 1e-6 * abs(value)


def _other(op, t_pred):
    """The input of a two-input op that is not the one t_pred picks (None when neither or both are)."""
    if len(op.inputs) != 2:
        return None
    a, b = op.inputs
    if t_pred(a) and not t_pred(b):
        return b
    if t_pred(b) and not t_pred(a):
        return a
    return None


def _exact_gelus(ops):
    """TensorFlow's exact gelu as it traces (tf.nn.gelu, tf_keras' gelu): Mul(Mul(0.5, x), Erfc(Mul(Neg(x),
    0.7071))) or with Mul(x, -0.7071). Returns ({id of the last Mul: x}, {ids of the Erfc ops}): the Mul
    becomes one GELU; the other ops of the pattern become unused and are dropped with the dead ops."""
    gelus, skipped = {}, set()
    half = 0.5
    root2 = 0.7071067811865476
    for op in ops:
        if op.type != "Erfc":
            continue
        z = op.inputs[0].op
        if z.type != "Mul":
            continue
        a = _other(z, lambda t: _scalar_const(t, root2))
        if a is not None and a.op.type == "Neg":
            x = a.op.inputs[0]
        else:
            x = _other(z, lambda t: _scalar_const(t, -root2))
        consumers = op.outputs[0].consumers()
        if x is None or len(consumers) != 1 or consumers[0].type != "Mul":
            continue
        root = consumers[0]
        h = _other(root, lambda t: t is op.outputs[0])
        if h is None or h.op.type != "Mul" or _other(h.op, lambda t: _scalar_const(t, half)) is not x:
            continue
        gelus[root._id] = x
        skipped.add(op._id)
    return gelus, skipped


def _foldable(op):
    return not op.opdef.stateful and op.type not in ("Placeholder", "Const", "ReadVariableOp") and \
        all(t.dtype in _TYPES for t in op.outputs)


def _evaluate(op, ins):
    """The op's own NumPy kernel on constant inputs: a constant (None when the kernel refuses them)."""
    try:
        out = op.opdef.kernel(*ins, **op.attrs)
    except Exception:  # noqa: BLE001  (lowered as an operator instead)
        return None
    outs = list(out) if len(op.outputs) > 1 else [out]
    return [np.asarray(v, dtype=t.dtype._np) for v, t in zip(outs, op.outputs)]


def _const(v):
    return isinstance(v, np.ndarray)


def _static(op, dyn_from):
    """Refuses an op whose static operand (shape, begin ...) is known only at run time."""
    if len(op.inputs) > dyn_from:
        raise Unsupported("an operand (a shape, an axis or slice bounds) is known only at run time")


def _hw(v):
    """(h, w) from a 2- or 4-element strides/ksize/dilations attr (NHWC)."""
    v = tuple(v)
    return (v[1], v[2]) if len(v) == 4 else (v[0], v[1]) if len(v) == 2 else (v[0], v[0])


# ---------------------------------------------------------------- constants and variables
@rule("Const")
def _const_op(lw, op):
    if op.attrs["dtype"] not in _TYPES:
        raise Unsupported(f"a {op.attrs['dtype'].name} constant has no TensorFlow Lite type")
    return np.asarray(op.attrs["value"], dtype=op.attrs["dtype"]._np)


@rule("ReadVariableOp")
def _read(lw, op, ref):
    if not _const(ref):
        raise Unsupported("it reads a variable that is not closed over (variables are frozen into the model)")
    return ref


# ---------------------------------------------------------------- dense and convolution
def _fc(lw, op, a, b, bias, activation):
    if op.inputs[0].shape.rank != 2:
        raise Unsupported("FULLY_CONNECTED takes a 2-D input")
    ta = op.attrs.get("transpose_a") or op.attrs.get("adjoint_a")
    tb = op.attrs.get("transpose_b") or op.attrs.get("adjoint_b")
    if ta:
        m, k = op.inputs[0].shape.as_list()
        a = lw.emit("TRANSPOSE", [a, lw.i32([1, 0])], [lw.temp([k, m], op.inputs[0], "transpose_a")])
    if _const(b):
        w = b if tb else np.ascontiguousarray(b.T)  # FULLY_CONNECTED's weights are [units, inputs]
    elif tb:
        w = b
    else:
        k, n = op.inputs[1].shape.as_list()
        w = lw.emit("TRANSPOSE", [b, lw.i32([1, 0])], [lw.temp([n, k], op.inputs[1], "weights")])
    return lw.emit("FULLY_CONNECTED", [a, w, bias], options="FullyConnectedOptions",
                   FusedActivationFunction=_activation(activation), KeepNumDims=False)


def _activation(name):
    if name not in _ACTIVATIONS:
        raise Unsupported(f"fused activation {name!r} has no TensorFlow Lite form")
    return _ACTIVATIONS[name]


@rule("MatMul")
def _matmul(lw, op, a, b):
    return _fc(lw, op, a, b, None, None)


@rule("_FusedMatMul")
def _fused_matmul(lw, op, a, b, bias=None):
    return _fc(lw, op, a, b, bias, op.attrs.get("activation"))


def _conv_checks(op):
    if op.attrs.get("data_format", "NHWC") not in ("NHWC", None):
        raise Unsupported("TensorFlow Lite convolutions and pools take NHWC inputs")
    if op.attrs.get("padding") not in _PADDING or op.attrs.get("explicit"):
        raise Unsupported(f"padding {op.attrs.get('padding')!r}: TensorFlow Lite takes SAME or VALID")


def _conv(lw, op, x, f, bias, activation):
    _conv_checks(op)
    if not _const(f):
        raise Unsupported("the filter is not a constant")
    sh, sw = _hw(op.attrs.get("strides", (1, 1)))
    dh, dw = _hw(op.attrs.get("dilations", (1, 1)))
    w = np.ascontiguousarray(np.transpose(f, (3, 0, 1, 2)))  # HWIO -> OHWI
    if bias is None:
        bias = np.zeros(f.shape[3], f.dtype)
    return lw.emit("CONV_2D", [x, w, bias], options="Conv2DOptions", Padding=_PADDING[op.attrs["padding"]],
                   StrideW=sw, StrideH=sh, DilationWFactor=dw, DilationHFactor=dh,
                   FusedActivationFunction=_activation(activation))


@rule("Conv2D")
def _conv2d(lw, op, x, f):
    return _conv(lw, op, x, f, None, None)


@rule("_FusedConv2D")
def _fused_conv2d(lw, op, x, f, bias):
    return _conv(lw, op, x, f, bias, op.attrs.get("activation"))


@rule("DepthwiseConv2dNative")
def _depthwise(lw, op, x, f):
    _conv_checks(op)
    if not _const(f):
        raise Unsupported("the filter is not a constant")
    h, w_, c, m = f.shape
    sh, sw = _hw(op.attrs.get("strides", (1, 1)))
    dh, dw = _hw(op.attrs.get("dilations", (1, 1)))
    w = np.ascontiguousarray(f.reshape(1, h, w_, c * m))  # output channel c*m + k, as TensorFlow orders them
    return lw.emit("DEPTHWISE_CONV_2D", [x, w, np.zeros(c * m, f.dtype)], options="DepthwiseConv2DOptions",
                   Padding=_PADDING[op.attrs["padding"]], StrideW=sw, StrideH=sh, DepthMultiplier=m,
                   DilationWFactor=dw, DilationHFactor=dh, FusedActivationFunction=0)


@rule("MaxPool", "AvgPool")
def _pool(lw, op, x):
    _conv_checks(op)
    if op.inputs[0].shape.rank != 4:
        raise Unsupported("TensorFlow Lite pools take 4-D (NHWC) inputs")
    kh, kw = _hw(op.attrs["ksize"])
    sh, sw = _hw(op.attrs["strides"])
    name = "MAX_POOL_2D" if op.type == "MaxPool" else "AVERAGE_POOL_2D"
    return lw.emit(name, [x], options="Pool2DOptions", Padding=_PADDING[op.attrs["padding"]], StrideW=sw,
                   StrideH=sh, FilterWidth=kw, FilterHeight=kh, FusedActivationFunction=0)


# ---------------------------------------------------------------- elementwise
_BINARY = {"AddV2": ("ADD", "AddOptions"), "Add": ("ADD", "AddOptions"), "BiasAdd": ("ADD", "AddOptions"),
           "Sub": ("SUB", "SubOptions"), "Mul": ("MUL", "MulOptions"), "RealDiv": ("DIV", "DivOptions"),
           "Maximum": ("MAXIMUM", None), "Minimum": ("MINIMUM", None),
           "SquaredDifference": ("SQUARED_DIFFERENCE", None), "Pow": ("POW", None)}


@rule(*_BINARY)
def _binary(lw, op, a, b):
    if op.type == "BiasAdd" and op.attrs.get("data_format", "NHWC") != "NHWC":
        raise Unsupported("an NCHW bias")
    if op.type == "RealDiv" and not op.inputs[0].dtype.is_floating:
        raise Unsupported("integer division")
    name, options = _BINARY[op.type]
    fields = {"FusedActivationFunction": 0} if options else {}
    return lw.emit(name, [a, b], options=options, **fields)


_UNARY = {"Relu": "RELU", "Relu6": "RELU6", "Sigmoid": "LOGISTIC", "Tanh": "TANH", "Exp": "EXP", "Log": "LOG",
          "Sqrt": "SQRT", "Rsqrt": "RSQRT", "Neg": "NEG", "Abs": "ABS", "Square": "SQUARE", "Floor": "FLOOR",
          "Elu": "ELU", "Sin": "SIN", "Cos": "COS"}


@rule(*_UNARY)
def _unary(lw, op, x):
    return lw.emit(_UNARY[op.type], [x])


@rule("LeakyRelu")
def _leaky(lw, op, x):
    return lw.emit("LEAKY_RELU", [x], options="LeakyReluOptions", Alpha=float(op.attrs.get("alpha", 0.2)))


@rule("Softmax", "LogSoftmax")
def _softmax(lw, op, x):
    axis, rank = op.attrs.get("axis", -1), op.inputs[0].shape.rank
    if axis in (-1, (rank or 0) - 1):
        if op.type == "LogSoftmax":
            return lw.emit("LOG_SOFTMAX", [x])
        return lw.emit("SOFTMAX", [x], options="SoftmaxOptions", Beta=1.0)
    if rank is None:
        raise Unsupported("a softmax over an axis of a tensor of unknown rank")
    # TensorFlow Lite's softmax runs over the last axis: swap the axis there and back
    axis = axis + rank if axis < 0 else axis
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    dims = op.inputs[0].shape.as_list()
    swapped = [dims[p] for p in perm]
    t = lw.emit("TRANSPOSE", [x, lw.i32(perm)], [lw.temp(swapped, op.inputs[0], "to_last")])
    if op.type == "LogSoftmax":
        s = lw.emit("LOG_SOFTMAX", [t], [lw.temp(swapped, op.inputs[0], "softmax")])
    else:
        s = lw.emit("SOFTMAX", [t], [lw.temp(swapped, op.inputs[0], "softmax")], options="SoftmaxOptions", Beta=1.0)
    return lw.emit("TRANSPOSE", [s, lw.i32(perm)])


@rule("Cast")
def _cast(lw, op, x):
    return lw.emit("CAST", [x])


# ---------------------------------------------------------------- reductions
_REDUCE = {"Mean": "MEAN", "Sum": "SUM", "Max": "REDUCE_MAX", "Min": "REDUCE_MIN", "Prod": "REDUCE_PROD"}


@rule(*_REDUCE)
def _reduce(lw, op, x):
    _static(op, 1)
    axis, rank = op.attrs.get("axis"), op.inputs[0].shape.rank
    if axis is None:
        if rank is None:
            raise Unsupported("reducing all axes of a tensor of unknown rank")
        axis = range(rank)
    axis = [axis] if isinstance(axis, int) else list(axis)
    return lw.emit(_REDUCE[op.type], [x, lw.i32(axis)], options="ReducerOptions",
                   KeepDims=bool(op.attrs.get("keepdims", False)))


# ---------------------------------------------------------------- shapes, joining, slicing
@rule("Reshape", "Squeeze", "ExpandDims")
def _reshape(lw, op, x, *dyn):
    shape = op.outputs[0].shape
    if shape.rank is None:
        raise Unsupported("its result has an unknown rank")
    dims = [-1 if d is None else d for d in shape.as_list()]
    if dims.count(-1) > 1:
        static = op.attrs.get("shape") if op.type == "Reshape" and not dyn else None
        if static is not None and list(static).count(-1) <= 1 and not any(d is None for d in static):
            dims = list(static)
        elif op.type == "Reshape" and dyn and not _const(dyn[-1]):  # a shape computed at run time
            shape_t = dyn[-1]
            if lw.sub.tensors[shape_t].type != _TYPES[_dt.int32]:
                shape_t = lw.emit("CAST", [shape_t], [lw.new_tensor(f"{op.name}/shape32", [shape.rank], 2)])
            return lw.emit("RESHAPE", [x, shape_t])
        elif op.type == "Squeeze" and op.attrs.get("axis"):
            return lw.emit("SQUEEZE", [x], options="SqueezeOptions", SqueezeDims=list(op.attrs["axis"]))
        elif op.type == "ExpandDims" and "axis" in op.attrs and not dyn:
            return lw.emit("EXPAND_DIMS", [x, lw.i32(int(op.attrs["axis"]))])
        else:
            raise Unsupported("more than one dimension of its result is unknown")
    return lw.emit("RESHAPE", [x, lw.i32(dims)])


@rule("Transpose")
def _transpose(lw, op, x):
    _static(op, 1)
    perm = op.attrs.get("perm")
    if perm is None:
        perm = range(op.inputs[0].shape.rank)[::-1]
    return lw.emit("TRANSPOSE", [x, lw.i32(list(perm))])


@rule("ConcatV2", "Concat")
def _concat(lw, op, *xs):
    axis = op.attrs.get("axis")
    if not isinstance(axis, int):
        raise Unsupported("its axis is known only at run time")
    if axis < 0:
        axis += op.outputs[0].shape.rank
    return lw.emit("CONCATENATION", list(xs), options="ConcatenationOptions", Axis=axis, FusedActivationFunction=0)


@rule("Slice")
def _slice(lw, op, x, *dyn):
    if dyn:
        raise Unsupported("its begin/size are known only at run time")
    return lw.emit("SLICE", [x, lw.i32(op.attrs["begin"]), lw.i32(op.attrs["size"])])


@rule("StridedSlice")
def _strided_slice(lw, op, x, *dyn):
    """STRIDED_SLICE; bounds known only at run time are PACKed into its begin/end, except x[i] of a run-time
    scalar i (a loop body's step), a GATHER of row i as TensorFlow's converter writes it."""
    spec = op.attrs["spec"]
    if len(spec) == 1 and tuple(spec[0]) == ("i", "?") and len(dyn) == 1 and not _const(dyn[0]) and \
            op.inputs[1].shape.rank == 0 and op.inputs[1].dtype is _dt.int32:
        return lw.emit("GATHER", [x, dyn[0]], options="GatherOptions", Axis=0, BatchDims=0)
    given = iter(dyn)

    def take(v):
        if v != "?":
            return v
        d = next(given)
        return int(d) if _const(d) and d.ndim == 0 else _RunTime(d)

    begin, end, strides = [], [], []
    masks = dict(BeginMask=0, EndMask=0, EllipsisMask=0, NewAxisMask=0, ShrinkAxisMask=0)
    for j, e in enumerate(op.attrs["spec"]):
        bit, tag = 1 << j, e[0]
        if tag == "i":
            b = take(e[1])
            begin.append(b), end.append(b + 1 if isinstance(b, int) else _RunTime(b.value, True)), strides.append(1)
            masks["ShrinkAxisMask"] |= bit
        elif tag == "s":
            start, stop, step = (take(v) for v in e[1:])
            begin.append(0 if start is None else start), end.append(0 if stop is None else stop)
            strides.append(1 if step is None else step)
            masks["BeginMask"] |= bit if start is None else 0
            masks["EndMask"] |= bit if stop is None else 0
        else:
            begin.append(0), end.append(0), strides.append(1)
            masks["NewAxisMask" if tag == "n" else "EllipsisMask"] |= bit
    rank = op.inputs[0].shape.rank
    if rank is not None and not (masks["EllipsisMask"] or masks["NewAxisMask"]):
        for j in range(len(begin), rank):  # the axes the spec leaves out, whole (TFLite reads one per axis)
            begin.append(0), end.append(0), strides.append(1)
            masks["BeginMask"] |= 1 << j
            masks["EndMask"] |= 1 << j
    vectors = [_index_vector(lw, op, v, name) for v, name in ((begin, "begin"), (end, "end"), (strides, "strides"))]
    return lw.emit("STRIDED_SLICE", [x] + vectors, options="StridedSliceOptions", **masks)


class _RunTime:
    """A slice bound known at run time: a tensor index (plus one when `next`)."""
    __slots__ = ("value", "next")

    def __init__(self, value, next_=False):
        self.value, self.next = value, next_


def _index_vector(lw, op, items, name):
    """An int32 vector of static ints and run-time scalars."""
    if all(isinstance(v, int) for v in items):
        return lw.i32(items)
    scalars = []
    for v in items:
        if isinstance(v, int):
            scalars.append(np.asarray(v, np.int32))
            continue
        nxt, v = v.next, v.value
        if _const(v) or lw.sub.tensors[v].shape != () or lw.sub.tensors[v].type != _TYPES[_dt.int32]:
            raise Unsupported("a run-time slice bound that is not an int32 scalar")
        if nxt:
            v = lw.emit("ADD", [v, np.asarray(1, np.int32)], [lw.new_tensor(f"{op.name}/{name}_next", [], 2)],
                        options="AddOptions", FusedActivationFunction=0)
        scalars.append(v)
    return lw.emit("PACK", scalars, [lw.new_tensor(f"{op.name}/{name}", [len(items)], 2)], options="PackOptions",
                   ValuesCount=len(items), Axis=0)


@rule("Split")
def _split(lw, op, x):
    axis = op.attrs["axis"]
    return lw.emit("SPLIT", [lw.i32(axis), x], options="SplitOptions", NumSplits=op.attrs["num_split"])


@rule("SplitV")
def _splitv(lw, op, x):
    return lw.emit("SPLIT_V", [x, lw.i32(list(op.attrs["size_splits"])), lw.i32(op.attrs["axis"])],
                   options="SplitVOptions", NumSplits=len(op.attrs["size_splits"]))


@rule("GatherV2", "Gather")
def _gather(lw, op, params, indices, *dyn):
    if dyn:
        raise Unsupported("its axis is known only at run time")
    axis = op.attrs.get("axis", 0)
    if _const(indices) and indices.dtype == np.int64:
        indices = indices.astype(np.int32)
    return lw.emit("GATHER", [params, indices], options="GatherOptions", Axis=axis,
                   BatchDims=op.attrs.get("batch_dims", 0))


@rule("Pad", "PadV2")
def _pad(lw, op, x, *rest):
    pads = op.attrs.get("paddings")
    if pads is None or op.attrs.get("mode", "CONSTANT").upper() != "CONSTANT":
        raise Unsupported("only constant padding with static paddings")
    pads = lw.i32(np.asarray(pads).reshape(-1, 2))
    value = rest[0] if rest else None
    if value is None or (_const(value) and not np.any(value)):
        return lw.emit("PAD", [x, pads])
    return lw.emit("PADV2", [x, pads, value])


@rule("Shape")
def _shape(lw, op, x):
    out = op.attrs.get("out_type", _dt.int32)
    return lw.emit("SHAPE", [x], options="ShapeOptions", OutType=_TYPES[out])


@rule("Pack")
def _pack(lw, op, *xs):
    axis = op.attrs.get("axis", 0)
    if axis < 0:
        axis += op.outputs[0].shape.rank
    return lw.emit("PACK", list(xs), options="PackOptions", ValuesCount=len(xs), Axis=axis)


@rule("Unpack")
def _unpack(lw, op, x):
    axis = op.attrs.get("axis", 0)
    if axis < 0:
        axis += op.inputs[0].shape.rank
    return lw.emit("UNPACK", [x], options="UnpackOptions", Num=len(op.outputs), Axis=axis)


@rule("Tile")
def _tile(lw, op, x, *dyn):
    multiples = dyn[-1] if dyn else lw.i32(op.attrs["multiples"])
    return lw.emit("TILE", [x, multiples])


@rule("ArgMax", "ArgMin")
def _argmax(lw, op, x, *dyn):
    _static(op, 1)
    axis = op.attrs.get("axis", 0)
    out = op.attrs.get("output_type", _dt.int64)
    name, options = ("ARG_MAX", "ArgMaxOptions") if op.type == "ArgMax" else ("ARG_MIN", "ArgMinOptions")
    return lw.emit(name, [x, lw.i32([axis])], options=options, OutputType=_TYPES[out])


@rule("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(lw, op, x, size):
    name, options = (("RESIZE_BILINEAR", "ResizeBilinearOptions") if op.type == "ResizeBilinear"
                     else ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptions"))
    if _const(size):
        size = size.astype(np.int32)
    return lw.emit(name, [x, size], options=options, AlignCorners=bool(op.attrs.get("align_corners")),
                   HalfPixelCenters=bool(op.attrs.get("half_pixel_centers")))


@rule("Repeat")
def _repeat(lw, op, x, repeats):
    """np.repeat of every element `k` times along an axis (UpSampling layers): insert an axis, TILE, merge."""
    if not _const(repeats) or repeats.ndim != 0:
        raise Unsupported("only a constant number of repeats for every element")
    t, axis = op.inputs[0], op.attrs.get("axis")
    if axis is None or t.shape.rank is None:
        raise Unsupported("a repeat over the flattened tensor")
    rank = t.shape.rank
    axis = axis + rank if axis < 0 else axis
    dims = t.shape.as_list()
    if dims.count(None) > 1 or op.outputs[0].shape.as_list().count(None) > 1:
        raise Unsupported("more than one dimension is unknown")
    expanded = dims[:axis + 1] + [1] + dims[axis + 1:]
    e = lw.emit("RESHAPE", [x, lw.i32([-1 if d is None else d for d in expanded])],
                [lw.temp(expanded, t, "expand")])
    tiled = expanded[:axis + 1] + [int(repeats)] + expanded[axis + 2:]
    mult = [1] * (rank + 1)
    mult[axis + 1] = int(repeats)
    tl = lw.emit("TILE", [e, lw.i32(mult)], [lw.temp(tiled, t, "tile")])
    return lw.emit("RESHAPE", [tl, lw.i32([-1 if d is None else d for d in op.outputs[0].shape.as_list()])])


@rule("Einsum")
def _einsum(lw, op, a, b):
    """The einsums Keras' Dense and EinsumDense make ('abc,cd->abd', 'abc,cde->abde', 'abcd,cde->abe'): x's
    trailing axes contracted with a constant's leading ones, as FULLY_CONNECTED keeping x's leading
    dimensions (RESHAPEs around it when several axes are contracted or produced)."""
    eq = op.attrs.get("equation", "").replace(" ", "")
    lhs, _, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != 2 or "." in eq:
        raise Unsupported(f"einsum {eq!r}: only two operands without ellipses are converted")
    x, w = ins
    if not _const(b):
        return _einsum_general(lw, op, a, b, x, w, out)
    k = max([j for j in range(1, min(len(x), len(w)) + 1) if x[len(x) - j:] == w[:j]], default=0)
    keep, free = x[:len(x) - k], w[k:]
    if k == 0 or not free or out != keep + free or len(set(x + free)) != len(x) + len(free):
        return _einsum_general(lw, op, a, b, x, w, out)
    kdim, ndim = int(np.prod(b.shape[:k])), int(np.prod(b.shape[k:]))
    weights = np.ascontiguousarray(b.reshape(kdim, ndim).T)
    xt = op.inputs[0]
    lead = xt.shape.as_list()[:len(keep)]
    if lead.count(None) > 1:
        raise Unsupported("more than one leading dimension is unknown")
    if k > 1:
        a = lw.emit("RESHAPE", [a, lw.i32([-1 if d is None else d for d in lead] + [kdim])],
                    [lw.temp(lead + [kdim], xt, "flat")])
    if len(free) == 1:
        return lw.emit("FULLY_CONNECTED", [a, weights, None], options="FullyConnectedOptions",
                       FusedActivationFunction=0, KeepNumDims=True)
    y = lw.emit("FULLY_CONNECTED", [a, weights, None], [lw.temp(lead + [ndim], xt, "dense")],
                options="FullyConnectedOptions", FusedActivationFunction=0, KeepNumDims=True)
    return lw.emit("RESHAPE", [y, lw.i32([-1 if d is None else d for d in op.outputs[0].shape.as_list()])])


def _einsum_general(lw, op, a, b, x, w, out):
    """A two-operand einsum as TRANSPOSE/RESHAPE, BATCH_MATMUL, RESHAPE/TRANSPOSE (attention's einsums):
    batch letters (in both operands and the result), contracted letters (in both, not in the result) and
    each operand's own letters (kept in the result)."""
    eq = f"{x},{w}->{out}"
    if len(set(x)) != len(x) or len(set(w)) != len(w) or len(set(out)) != len(out) or set(out) - set(x + w):
        raise Unsupported(f"einsum {eq!r}: a letter repeated within an operand")
    if (set(x) | set(w)) - set(out) - (set(x) & set(w)):
        raise Unsupported(f"einsum {eq!r}: a letter summed out of one operand only")
    batch = [c for c in out if c in x and c in w]
    contr = [c for c in x if c in w and c not in out]
    fx = [c for c in x if c not in w]
    fw = [c for c in w if c not in x]
    tx, tw = op.inputs
    size = {}
    for letters, t in ((x, tx), (w, tw)):
        for c, d in zip(letters, t.shape.as_list()):
            if size.get(c) is None:
                size[c] = d
    if any(size[c] is None for c in contr + fx + fw) or [size[c] for c in batch].count(None) > 1:
        raise Unsupported(f"einsum {eq!r}: an unknown dimension other than one batch dimension")

    def arrange(v, t, letters, order, rows, cols, suffix):
        perm = [letters.index(c) for c in order]
        if perm != list(range(len(letters))):
            dims = [size[c] for c in order]
            v = lw.emit("TRANSPOSE", [v, lw.i32(perm)], [lw.temp(dims, t, f"{suffix}_t")]) if not _const(v) \
                else np.ascontiguousarray(np.transpose(v, perm))
        m = int(np.prod([size[c] for c in rows])) if rows else 1
        n = int(np.prod([size[c] for c in cols])) if cols else 1
        dims = [size[c] for c in batch] + [m, n]
        if _const(v):
            return v.reshape([d for d in dims])
        return lw.emit("RESHAPE", [v, lw.i32([-1 if d is None else d for d in dims])], [lw.temp(dims, t, suffix)])

    xa = arrange(a, tx, x, batch + fx + contr, fx, contr, "lhs")
    wa = arrange(b, tw, w, batch + contr + fw, contr, fw, "rhs")
    mm_dims = [size[c] for c in batch] + [int(np.prod([size[c] for c in fx])) if fx else 1,
                                          int(np.prod([size[c] for c in fw])) if fw else 1]
    y = lw.emit("BATCH_MATMUL", [xa, wa], [lw.temp(mm_dims, tx, "matmul")], options="BatchMatMulOptions",
                AdjX=False, AdjY=False)
    order = batch + fx + fw
    dims = [size[c] for c in order]
    if order == list(out):
        return lw.emit("RESHAPE", [y, lw.i32([-1 if d is None else d for d in dims])])
    y = lw.emit("RESHAPE", [y, lw.i32([-1 if d is None else d for d in dims])], [lw.temp(dims, tx, "unflat")])
    return lw.emit("TRANSPOSE", [y, lw.i32([order.index(c) for c in out])])


@rule("Conv2DBackpropInputSizes", "Conv2DBackpropInput")
def _transpose_conv(lw, op, sizes, f, x):
    _conv_checks(op)
    if not _const(f):
        raise Unsupported("the filter is not a constant")
    if _hw(op.attrs.get("dilations", (1, 1))) != (1, 1):
        raise Unsupported("TensorFlow Lite's TRANSPOSE_CONV has no dilations")
    sh, sw = _hw(op.attrs.get("strides", (1, 1)))
    if op.type == "Conv2DBackpropInput":  # its first input is a tensor of the result's shape, not the shape
        known = op.outputs[0].shape
        if known.is_fully_defined():
            sizes = np.asarray(known.as_list(), np.int32)
        elif _const(sizes):
            sizes = np.asarray(sizes.shape, np.int32)
        elif (filled := _filled_shape(lw, op.inputs[0])) is not None:
            sizes = filled  # the shape tf_keras filled zeros to
        else:
            sizes = lw.emit("SHAPE", [sizes], [lw.new_tensor(f"{op.name}/output_shape", [4], 2)],
                            options="ShapeOptions", OutType=2)
    if _const(sizes):
        sizes = sizes.astype(np.int32)
    w = np.ascontiguousarray(np.transpose(f, (2, 0, 1, 3)))  # [h, w, out, in] -> [out, h, w, in]
    return lw.emit("TRANSPOSE_CONV", [sizes, w, x, None], options="TransposeConvOptions",
                   Padding=_PADDING[op.attrs["padding"]], StrideW=sw, StrideH=sh, FusedActivationFunction=0)


def _filled_shape(lw, t):
    """The int32 shape tensor a Fill op producing t was given, or None."""
    if t.op.type != "Fill" or len(t.op.inputs) < 2:
        return None
    v = lw.values.get(id(t.op.inputs[-1]))
    if v is None or _const(v) or lw.sub.tensors[v].type != _TYPES[_dt.int32]:
        return None
    return v


@rule("BatchMatMulV2", "BatchMatMul", "BatchMatMulV3")
def _batch_matmul(lw, op, a, b):
    adj_x = any(op.attrs.get(k) for k in ("adj_x", "transpose_a", "adjoint_a"))
    adj_y = any(op.attrs.get(k) for k in ("adj_y", "transpose_b", "adjoint_b"))
    return lw.emit("BATCH_MATMUL", [a, b], options="BatchMatMulOptions", AdjX=adj_x, AdjY=adj_y)


_COMPARE = {"Greater": "GREATER", "GreaterEqual": "GREATER_EQUAL", "Less": "LESS", "LessEqual": "LESS_EQUAL",
            "Equal": "EQUAL", "NotEqual": "NOT_EQUAL", "LogicalAnd": "LOGICAL_AND", "LogicalOr": "LOGICAL_OR",
            "FloorDiv": "FLOOR_DIV", "FloorMod": "FLOOR_MOD"}


@rule(*_COMPARE)
def _compare(lw, op, a, b):
    return lw.emit(_COMPARE[op.type], [a, b])


_MORE_UNARY = {"LogicalNot": "LOGICAL_NOT", "Ceil": "CEIL", "Round": "ROUND", "Sign": "SIGN",
               "ZerosLike": "ZEROS_LIKE"}


@rule(*_MORE_UNARY)
def _more_unary(lw, op, x):
    return lw.emit(_MORE_UNARY[op.type], [x])


@rule("SelectV2", "Select")
def _select(lw, op, cond, a, b):
    if op.type == "Select" and op.inputs[0].shape.rank == 1 and (op.inputs[1].shape.rank or 0) > 1:
        raise Unsupported("tf.compat.v1.where's row selection by a vector condition")
    return lw.emit("SELECT_V2", [cond, a, b])


@rule("AddN")
def _add_n(lw, op, *xs):
    return lw.emit("ADD_N", list(xs))


@rule("Gelu")
def _gelu(lw, op, x):
    return lw.emit("GELU", [x], options="GeluOptions", Approximate=bool(op.attrs.get("approximate")))


@rule("Silu")
def _silu(lw, op, x):
    if op.attrs.get("beta", 1.0) != 1.0:
        raise Unsupported("silu with beta other than 1")
    t = op.inputs[0]
    s = lw.emit("LOGISTIC", [x], [lw.temp(t.shape.as_list(), t, "sigmoid")])
    return lw.emit("MUL", [x, s], options="MulOptions", FusedActivationFunction=0)


@rule("Reciprocal", "Inv")
def _reciprocal(lw, op, x):
    return lw.emit("DIV", [np.ones((), op.inputs[0].dtype._np), x], options="DivOptions", FusedActivationFunction=0)


@rule("BroadcastTo")
def _broadcast_to(lw, op, x, *dyn):
    shape = dyn[-1] if dyn else lw.i32(op.attrs["shape"])
    return lw.emit("BROADCAST_TO", [x, shape])


@rule("Fill")
def _fill(lw, op, value, *dyn):
    shape = dyn[-1] if dyn else lw.i32(op.attrs["shape"])
    return lw.emit("FILL", [shape, value])


@rule("Cumsum")
def _cumsum(lw, op, x, *dyn):
    _static(op, 1)
    return lw.emit("CUMSUM", [x, lw.i32(op.attrs.get("axis", 0))], options="CumsumOptions",
                   Exclusive=bool(op.attrs.get("exclusive")), Reverse=bool(op.attrs.get("reverse")))


# ---------------------------------------------------------------- control flow
@rule("If", "StatelessIf")
def _if(lw, op, pred, *args):
    """IF: the two branches as subgraphs, both taking every non-constant input (constants are folded into the
    branches that use them)."""
    branches = op.attrs["branches"]
    if len(branches.subs) != 2:
        raise Unsupported("an If of more than two branches")
    dynamic = [j for j, v in enumerate(args) if not _const(v)]
    position = {j: k for k, j in enumerate(dynamic)}
    specs = [lw.spec(args[j]) for j in dynamic]
    saved = lw.op
    index = []
    for sg, feed in zip(branches.subs, branches.feeds):
        feeds = [args[i - 1] if _const(args[i - 1]) else position[i - 1] for i in feed]
        index.append(lw.subgraph(sg, feeds, specs))
    lw.op = saved
    if lw.problems or lw.control_flow:
        raise _Reported()
    return lw.emit("IF", [pred] + [args[j] for j in dynamic], options="IfOptions", ThenSubgraphIndex=index[0],
                   ElseSubgraphIndex=index[1])


@rule("While", "StatelessWhile")
def _while(lw, op, *values):
    """WHILE: the condition and the body as subgraphs over the loop variables, followed by the non-constant
    values they capture (carried through unchanged); constant captures are folded into them."""
    body = op.attrs["body"]
    n = body.n_vars
    loop = [lw.index(v) for v in values[:n]]
    extra = [i for i in range(n, len(values)) if not _const(values[i])]
    position = {i: n + k for k, i in enumerate(extra)}
    shapes = [t.shape.as_list() for t in op.outputs]
    specs = [(shape, lw.spec(v)[1]) for shape, v in zip(shapes, loop)] + [lw.spec(values[i]) for i in extra]
    saved = lw.op

    def feeds(sg, captured):
        return list(range(n)) + [values[i] if _const(values[i]) else position[i] for i in captured]

    cond = lw.subgraph(body.cond, feeds(body.cond, body.cond_feed), specs)
    index = lw.subgraph(body.body, feeds(body.body, body.body_feed), specs, carried=range(n, n + len(extra)))
    lw.op = saved
    if lw.problems or lw.control_flow:
        raise _Reported()
    outs = list(op.outputs) + [lw.new_tensor(f"{op.name}/carried{k}", *lw.spec(values[i]))
                               for k, i in enumerate(extra)]
    res = lw.emit("WHILE", loop + [values[i] for i in extra], outs, options="WhileOptions",
                  CondSubgraphIndex=cond, BodySubgraphIndex=index)
    return res[:n] if isinstance(res, list) else res


class _Reported(Unsupported):
    """A sub-graph's own problems were reported already."""


@rule("Range")
def _range(lw, op, start, limit, delta):
    dt = op.outputs[0].dtype
    if dt not in (_dt.int32, _dt.float32, _dt.int64):
        raise Unsupported(f"a {dt.name} range")
    return lw.emit("RANGE", [np.asarray(v, dt._np) if _const(v) else v for v in (start, limit, delta)])


@rule("ReverseV2")
def _reverse(lw, op, x, *dyn):
    _static(op, 1)
    axis = op.attrs.get("axis")
    axis = [axis] if isinstance(axis, int) else list(axis)
    return lw.emit("REVERSE_V2", [x, lw.i32(axis)], options="ReverseV2Options")


@rule("TensorScatterUpdate")
def _tensor_scatter_update(lw, op, tensor, indices, updates):
    """tensor_scatter_nd_update of one leading-axis row (an RNN writing step t of its output sequence) as
    DYNAMIC_UPDATE_SLICE at [t, 0, ...]."""
    ishape, rank = op.inputs[1].shape.as_list(), op.inputs[0].shape.rank
    if ishape != [1, 1] or rank is None or op.inputs[1].dtype not in (_dt.int32, _dt.int64):
        raise Unsupported("only an update of one row along the first axis (indices of shape [1, 1])")
    if _const(indices):
        start = lw.i32([int(indices.reshape(-1)[0])] + [0] * (rank - 1))
    else:
        if op.inputs[1].dtype is _dt.int64:
            indices = lw.emit("CAST", [indices], [lw.new_tensor(f"{op.name}/indices32", [1, 1], 2)])
        row = lw.emit("RESHAPE", [indices, lw.i32([1])], [lw.new_tensor(f"{op.name}/row", [1], 2)])
        start = row if rank == 1 else lw.emit(
            "CONCATENATION", [row, lw.i32([0] * (rank - 1))], [lw.new_tensor(f"{op.name}/start", [rank], 2)],
            options="ConcatenationOptions", Axis=0, FusedActivationFunction=0)
    return lw.emit("DYNAMIC_UPDATE_SLICE", [tensor, updates, start])
