"""Building ONNX graphs from rivulet graphs.

One name space serves the whole model: an ONNX sub-graph (an If branch, a Loop body) reads outer values by
name, so names must be unique across all of them. Converters are registered per op type and get a `Ctx`
(node/constant helpers aware of the target opset); they return the ONNX names of the op's outputs, or raise
Unsupported with a reason for the export report.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from .. import dtypes as _dt

INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
CONVERTERS = {}  # op type -> fn(ctx, op, *input values) -> output name(s)


class Unsupported(Exception):
    """A converter cannot express this op; the message is the reason shown in the export report."""


class VarRef:
    """The value of a `resource` placeholder: the variable its ReadVariableOps read."""
    __slots__ = ("var",)

    def __init__(self, var):
        self.var = var


def converter(*op_types):
    def deco(fn):
        for t in op_types:
            CONVERTERS[t] = fn
        return fn
    return deco


def onnx_type(dtype):
    """The TensorProto element type of a rivulet DType (or NumPy dtype)."""
    if isinstance(dtype, _dt.DType):
        if dtype is _dt.string:
            return TensorProto.STRING
        if dtype._np is None:
            raise Unsupported(f"dtype {dtype.name} has no ONNX equivalent")
        dtype = dtype._np
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def value_info(name, tensor, symbolic=None):
    """A ValueInfoProto typed like the rivulet tensor; unknown dims get names from `symbolic()` when given."""
    shape = tensor.shape
    dims = None if shape.rank is None else [
        d if d is not None else (symbolic() if symbolic else None) for d in shape.as_list()]
    return helper.make_tensor_value_info(name, onnx_type(tensor.dtype), dims)


class Model:
    """Model-wide state: the opset, names in use, initializers (variables and large constants)."""

    def __init__(self, opset, report):
        self.opset, self.report = opset, report
        self.names = set()
        self.initializers = []
        self._vars = {}

    def fresh(self, base):
        base = base or "t"
        name, i = base, 1
        while name in self.names:
            name, i = f"{base}_{i}", i + 1
        self.names.add(name)
        return name

    def initializer(self, value, base):
        name = self.fresh(base)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def variable(self, var):
        """Each variable becomes one initializer holding its current value, however often it is read."""
        name = self._vars.get(id(var))
        if name is None:
            name = self._vars[id(var)] = self.initializer(var.numpy(), var.name.split(":")[0])
        return name


class Scope:
    """The nodes of one ONNX graph being built: the main graph or a sub-graph."""

    def __init__(self, model, prefix=""):
        self.model, self.prefix, self.nodes = model, prefix, []


class Ctx:
    """What a converter uses to emit the nodes for one rivulet op."""

    def __init__(self, scope, op):
        self.scope, self.op, self.model = scope, op, scope.model
        self.opset = scope.model.opset
        self._base = scope.prefix + op.name

    def node(self, op_type, inputs, n_out=1, **attrs):
        """Appends a node (named after its first output); returns its output name (a list when n_out != 1)."""
        fresh = self.model.fresh
        outs = [fresh(f"{self._base}/{op_type}" + (f":{i}" if i else "")) for i in range(n_out)]
        self.scope.nodes.append(helper.make_node(op_type, list(inputs), outs, name=outs[0],
                                                 **{k: v for k, v in attrs.items() if v is not None}))
        return outs[0] if n_out == 1 else outs

    def const(self, value, dtype=None):
        """A constant: a Constant node when small, else an initializer of the main graph."""
        v = np.asarray(value, dtype=None if dtype is None else np.dtype(dtype))  # strings: object arrays
        if v.size > 64:
            return self.model.initializer(v, f"{self._base}/const")
        out = self.model.fresh(f"{self._base}/Const")
        self.scope.nodes.append(helper.make_node("Constant", [], [out], name=out,
                                                 value=numpy_helper.from_array(v, out)))
        return out

    def scalar(self, t, v):
        """A constant of rivulet tensor t's dtype (the other operand of an elementwise op on t)."""
        return self.const(np.asarray(v, dtype=t.dtype._np))

    def i64(self, values):
        return self.const(np.asarray(values, dtype=np.int64))

    def cast(self, x, dtype):
        return self.node("Cast", [x], to=onnx_type(dtype))

    def as_i64(self, x, t):
        """Value x (of rivulet tensor t) as int64, the index type ONNX shape inputs take."""
        return x if t.dtype is _dt.int64 else self.cast(x, np.int64)

    def vector(self, parts):
        """A 1-D int64 tensor from ints and scalar int tensors [(value name, rivulet tensor)] mixed."""
        if all(not isinstance(p, tuple) for p in parts):
            return self.i64(parts)
        pieces = [self.i64([p]) if not isinstance(p, tuple) else
                  self.unsqueeze(self.as_i64(p[0], p[1]), [0]) for p in parts]
        return pieces[0] if len(pieces) == 1 else self.node("Concat", pieces, axis=0)

    def rank(self, t, why):
        r = t.shape.rank
        if r is None:
            raise Unsupported(f"needs the static rank of {t.name}, which is unknown ({why})")
        return r

    def variable(self, ref):
        if not isinstance(ref, VarRef):
            raise Unsupported("reads a resource that is not a tf.Variable")
        return self.model.variable(ref.var)

    # -- ops whose form changed between opsets ----------------------------------------------------------
    def unsqueeze(self, x, axes):
        return self.node("Unsqueeze", [x, self.i64(axes)])

    def squeeze(self, x, axes=None):
        return self.node("Squeeze", [x] + ([] if axes is None else [self.i64(axes)]))

    def reduce(self, op_type, x, axes, keepdims):
        """axes None: all of them. Axes became an input in opset 13 for ReduceSum, in 18 for the others."""
        keep = int(bool(keepdims))
        if axes is not None and not len(axes):
            return self.node("Identity", [x])
        if axes is None:
            return self.node(op_type, [x], keepdims=keep)
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.node(op_type, [x, self.i64(axes)], keepdims=keep)
        return self.node(op_type, [x], axes=list(axes), keepdims=keep)

    def split(self, x, sizes, axis, n):
        """Splits along `axis` into `n` parts of `sizes` (None: equal parts)."""
        if sizes is not None:
            outs = self.node("Split", [x, self.i64(sizes)], n_out=n, axis=axis)
        else:
            outs = self.node("Split", [x], n_out=n, axis=axis, num_outputs=n if self.opset >= 18 else None)
        return [outs] if n == 1 else outs
