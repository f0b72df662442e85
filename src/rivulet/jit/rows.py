"""Whether a lowered step computes each row of its results from the same row of its arguments alone.

Such a step (a Keras model's predict step: an embedding, an LSTM, a Dense head) can run its batch in chunks of
rows, on two threads at once, and give the same rows (jit/tier.py runs the big batches of an RNN step that way:
onnxruntime's intra-op threads share out each step of a recurrence, a sync per small node). The
check is a walk over the ONNX graph that tags each value: a constant (it depends on no argument), a row
tensor with its batch axis (the arguments' axis 0 and where it went: a transpose, a gather of a constant
table, a Scan over time), or a shape vector, some of whose elements are the batch size (tf.shape(x)[0],
sizing a zero state). An op not listed, a reduction over the batch axis, a batch size used as a number,
anything not understood: the step is not row-wise and runs whole.
"""
import numpy as np
from onnx import numpy_helper, shape_inference

B = "B"  # a shape vector's element that is the batch size


class _No(Exception):
    pass


def _need(ok):
    if not ok:
        raise _No


class _Const:
    __slots__ = ("rank", "value")

    def __init__(self, rank=None, value=None):
        self.rank, self.value = rank, value


class _Rows:
    __slots__ = ("axis", "rank")

    def __init__(self, axis, rank):
        _need(rank is not None and 0 <= axis < rank)
        self.axis, self.rank = axis, rank


class _Shape:
    """A 1-D (or scalar) int tensor of known length: each element B, an int, or None (batch-independent)."""
    __slots__ = ("elems", "scalar")

    def __init__(self, elems, scalar=False):
        self.elems, self.scalar = tuple(elems), scalar


_UNARY = {"Identity", "Cast", "Sigmoid", "Tanh", "Relu", "Exp", "Log", "Neg", "Abs", "Sqrt", "Reciprocal", "Erf",
          "Softplus", "Softsign", "Not", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "LeakyRelu", "Elu", "Selu",
          "HardSigmoid", "HardSwish", "IsNaN", "IsInf", "Gelu", "Tan", "Atan", "Asin", "Acos", "Sinh", "Cosh",
          "Asinh", "Acosh", "Atanh", "ThresholdedRelu", "Celu", "Mish", "Shrink", "Dropout"}
_ELEMENTWISE = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Equal", "Less", "LessOrEqual",
                "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Where", "Mod", "PRelu", "Clip", "BitwiseAnd",
                "BitwiseOr", "BitwiseXor"}
_REDUCE = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceLogSumExp", "ReduceSumSquare", "ReduceLogSum"}
_BATCH_FIRST = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LRN",
                "BatchNormalization", "InstanceNormalization", "Flatten"}


def row_wise(model, n_args):
    """Whether `model` (the lowered step: its n_args arguments first, then the variables it reads) is row-wise:
    returns a list saying, per graph output, True (a row tensor with the batch on axis 0) or False (a
    constant); None when the step is not row-wise (or the check does not understand it)."""
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # noqa: BLE001  (no ranks: nothing understood)
        return None
    return _Walk(inferred).run(n_args)


class _Walk:
    def __init__(self, model):
        self.graph = model.graph
        self.ranks = {}
        for g in _graphs(model.graph):
            for vi in list(g.value_info) + list(g.input) + list(g.output):
                t = vi.type.tensor_type
                if t.HasField("shape"):
                    self.ranks[vi.name] = len(t.shape.dim)

    def run(self, n_args):
        g = self.graph
        env = {}
        for t in g.initializer:
            env[t.name] = _Const(len(t.dims), numpy_helper.to_array(t))
        inits = set(env)
        for k, i in enumerate(x for x in g.input if x.name not in inits):
            env[i.name] = _Rows(0, self.ranks.get(i.name)) if k < n_args else _Const(self.ranks.get(i.name))
        try:
            _need(n_args > 0)
            self.block(g.node, env)
            out = []
            for o in g.output:
                v = env[o.name]
                _need(isinstance(v, _Const) or isinstance(v, _Rows) and v.axis == 0)
                out.append(isinstance(v, _Rows))
            return out
        except (_No, KeyError, IndexError, TypeError, ValueError):
            return None

    def block(self, nodes, env):
        for n in nodes:
            ins = [None if not x else env[x] for x in n.input]
            outs = self.node(n, ins, env)
            if not isinstance(outs, list):
                outs = [outs] * len(n.output)
            for name, v in zip(n.output, outs):
                if name:
                    env[name] = v

    def rank(self, name, v):
        if isinstance(v, _Rows):
            return v.rank
        if isinstance(v, _Const) and v.rank is not None:
            return v.rank
        if isinstance(v, _Shape):
            return 0 if v.scalar else 1
        r = self.ranks.get(name)
        _need(r is not None)
        return r

    def node(self, n, ins, env):
        t = n.op_type
        a = {x.name: x for x in n.attribute}
        subs = [x.g for x in n.attribute if x.g.node]
        present = [v for v in ins if v is not None]
        if t == "Constant":
            value = numpy_helper.to_array(a["value"].t) if "value" in a else None
            return _Const(None if value is None else value.ndim, value)
        if all(isinstance(v, _Const) for v in present) and not subs:
            return _Const(self.ranks.get(n.output[0]), self._fold(n, ins))
        if t == "Scan":
            return self.scan(n, ins, a, env)
        _need(not subs)
        x = ins[0]
        if t in _UNARY:
            _need(isinstance(x, _Rows) or isinstance(x, _Shape) and t in ("Identity", "Cast"))
            return x
        if t in _ELEMENTWISE:
            return self.broadcast(n, ins)
        if t == "Gemm":
            _need(isinstance(x, _Rows) and x.rank == 2 and not _i(a, "transA") and isinstance(ins[1], _Const))
            c = ins[2] if len(ins) > 2 else None
            _need(c is None or isinstance(c, _Const) or isinstance(c, _Rows) and c.rank == 2 and c.axis == 0)
            return _Rows(0, 2)
        if t == "MatMul":
            _need(isinstance(x, _Rows) and x.axis <= x.rank - 2 and isinstance(ins[1], _Const)
                  and self.rank(n.input[1], ins[1]) == 2)
            return _Rows(x.axis, x.rank)
        if t == "Einsum":
            eq = a["equation"].s.decode().replace(" ", "")
            _need("->" in eq and "." not in eq)
            terms, out = eq.split("->")
            terms = terms.split(",")
            letters = {term[v.axis] for term, v in zip(terms, ins) if isinstance(v, _Rows)}
            _need(len(letters) == 1)
            (b,) = letters
            _need(all(term.count(b) == (1 if isinstance(v, _Rows) else 0) for term, v in zip(terms, ins)))
            _need(all(isinstance(v, (_Rows, _Const)) for v in ins) and out.count(b) == 1)
            return _Rows(out.index(b), len(out))
        if t == "Gather":
            data, idx = ins
            axis = _i(a, "axis")
            rd, ri = self.rank(n.input[0], data), self.rank(n.input[1], idx)
            axis = axis % rd
            if isinstance(data, _Const) and isinstance(idx, _Rows):
                return _Rows(axis + idx.axis, rd - 1 + ri)
            if isinstance(data, _Rows) and isinstance(idx, _Const):
                _need(axis != data.axis)
                return _Rows(data.axis if data.axis < axis else data.axis - 1 + ri, rd - 1 + ri)
            _need(isinstance(data, _Shape) and isinstance(idx, _Const) and idx.value is not None)
            picked = [data.elems[int(k)] for k in np.ravel(idx.value)]
            return _Shape(picked, scalar=np.ndim(idx.value) == 0)
        if t == "Transpose":
            _need(isinstance(x, _Rows))
            perm = list(a["perm"].ints) if "perm" in a else list(range(x.rank))[::-1]
            return _Rows(perm.index(x.axis), x.rank)
        if t in ("Unsqueeze", "Squeeze"):
            axes = self.axes(ins, a)
            _need(axes is not None)
            axes = [int(v) for v in np.ravel(axes)]
            if isinstance(x, _Shape):
                _need(t == "Unsqueeze" and x.scalar and axes in ([0], [-1]))
                return _Shape(x.elems)
            _need(isinstance(x, _Rows))
            if t == "Unsqueeze":
                r = x.rank + len(axes)
                axes = sorted(k % r for k in axes)
                rest = [k for k in range(r) if k not in axes]
                return _Rows(rest[x.axis], r)
            axes = sorted(k % x.rank for k in axes)
            _need(x.axis not in axes)
            return _Rows(x.axis - sum(1 for k in axes if k < x.axis), x.rank - len(axes))
        if t == "Concat":
            axis = _i(a, "axis")
            if all(isinstance(v, (_Shape, _Const)) for v in present):
                elems = []
                for v in present:
                    if isinstance(v, _Shape):
                        elems += v.elems
                    else:
                        _need(v.value is not None and np.ndim(v.value) == 1)
                        elems += [int(e) for e in v.value]
                return _Shape(elems)
            _need(all(isinstance(v, _Rows) and v.axis == x.axis and v.rank == x.rank for v in present))
            _need(axis % x.rank != x.axis)
            return _Rows(x.axis, x.rank)
        if t == "Split":
            _need(isinstance(x, _Rows) and _i(a, "axis") % x.rank != x.axis)
            return _Rows(x.axis, x.rank)
        if t == "Slice":
            return self.slice(ins)
        if t == "Shape":
            _need(isinstance(x, _Rows))
            elems = [B if k == x.axis else None for k in range(x.rank)]
            start = _i(a, "start")
            end = a["end"].i if "end" in a else x.rank
            return _Shape(elems[start:end])
        if t == "Reshape":
            shape = ins[1]
            _need(isinstance(x, _Rows) and x.axis == 0 and isinstance(shape, _Shape) and shape.elems)
            first, rest = shape.elems[0], shape.elems[1:]
            _need(first == B and B not in rest and all(e is not None for e in rest) and not _i(a, "allowzero"))
            return _Rows(0, len(shape.elems))
        if t in ("Expand", "ConstantOfShape"):
            shape = ins[-1]
            _need(isinstance(shape, _Shape) and list(shape.elems).count(B) == 1)
            p, r = shape.elems.index(B), len(shape.elems)
            if t == "Expand":
                rx = self.rank(n.input[0], x)
                if isinstance(x, _Rows):
                    _need(x.axis + r - rx == p)
                else:
                    _need(isinstance(x, _Const) and x.value is not None and
                          (rx < r - p or x.value.shape[p - (r - rx)] == 1))
            return _Rows(p, r)
        if t in ("Softmax", "LogSoftmax", "Hardmax", "ArgMax", "ArgMin", "LayerNormalization"):
            _need(isinstance(x, _Rows))
            axis = _i(a, "axis", -1) % x.rank
            if t == "LayerNormalization":
                _need(axis > x.axis and all(isinstance(v, _Const) for v in present[1:]))
                return [_Rows(x.axis, x.rank)] + [_Rows(x.axis, x.rank)] * (len(n.output) - 1)
            _need(axis != x.axis)
            if t in ("ArgMax", "ArgMin") and not _i(a, "keepdims", 1):
                return _Rows(x.axis - (axis < x.axis), x.rank - 1)
            return _Rows(x.axis, x.rank)
        if t in _REDUCE:
            _need(isinstance(x, _Rows))
            axes = self.axes(ins, a)
            _need(axes is not None and len(np.ravel(axes)))
            axes = sorted({int(k) % x.rank for k in np.ravel(axes)})
            _need(x.axis not in axes)
            if _i(a, "keepdims", 1):
                return _Rows(x.axis, x.rank)
            return _Rows(x.axis - sum(1 for k in axes if k < x.axis), x.rank - len(axes))
        if t in _BATCH_FIRST:
            _need(isinstance(x, _Rows) and x.axis == 0 and all(isinstance(v, _Const) for v in present[1:]))
            _need(t != "BatchNormalization" or len(n.output) == 1)
            _need(t != "Flatten" or _i(a, "axis", 1) >= 1)
            return _Rows(0, 2 if t == "Flatten" else x.rank)
        raise _No

    def axes(self, ins, a):
        """The axes of Squeeze/Unsqueeze/Reduce*: the input (a constant), else the attribute; None if neither."""
        if len(ins) > 1 and ins[1] is not None:
            return self.value(ins[1])
        return list(a["axes"].ints) if "axes" in a else None

    def value(self, v):
        _need(isinstance(v, _Const) and v.value is not None)
        return v.value

    def broadcast(self, n, ins):
        """Elementwise ops: every row operand's batch axis lands on the same output axis; no constant operand
        spans that axis (broadcasting a size-1 axis at most)."""
        _need(not any(isinstance(v, _Shape) for v in ins))
        ranks = [None if v is None else self.rank(name, v) for name, v in zip(n.input, ins)]
        r = max(k for k in ranks if k is not None)
        axes = {v.axis + r - k for v, k in zip(ins, ranks) if isinstance(v, _Rows)}
        _need(len(axes) == 1)
        p = axes.pop()
        for v, k in zip(ins, ranks):
            if isinstance(v, _Const) and k > r - 1 - p:
                _need(v.value is not None and v.value.shape[p - (r - k)] == 1)
        return _Rows(p, r)

    def slice(self, ins):
        data, starts, ends = ins[:3]
        axes = ins[3] if len(ins) > 3 else None
        steps = ins[4] if len(ins) > 4 else None
        starts, ends = self.value(starts), self.value(ends)
        if isinstance(data, _Shape):
            _need(axes is None or list(np.ravel(self.value(axes))) in ([0], [-1]))
            _need(steps is None or list(np.ravel(self.value(steps))) == [1])
            return _Shape(list(data.elems)[slice(int(starts[0]), int(min(ends[0], 1 << 30)))])
        _need(isinstance(data, _Rows))
        axes = list(range(len(starts))) if axes is None else [int(k) % data.rank for k in np.ravel(self.value(axes))]
        _need(data.axis not in axes)
        return _Rows(data.axis, data.rank)

    def scan(self, n, ins, a, env):
        body = a["body"].g
        m = a["num_scan_inputs"].i
        states, scanned = ins[:len(ins) - m], ins[len(ins) - m:]
        in_axes = list(a["scan_input_axes"].ints) if "scan_input_axes" in a else [0] * m
        out_axes = list(a["scan_output_axes"].ints) if "scan_output_axes" in a else None
        inner = dict(env)
        for vi, v in zip(body.input, states):
            _need(isinstance(v, (_Rows, _Const)))
            inner[vi.name] = v
        for vi, v, ax in zip(body.input[len(states):], scanned, in_axes):
            if isinstance(v, _Rows):
                ax %= v.rank
                _need(ax != v.axis)
                inner[vi.name] = _Rows(v.axis - (ax < v.axis), v.rank - 1)
            else:
                _need(isinstance(v, _Const))
                inner[vi.name] = _Const(None if v.rank is None else v.rank - 1)
        self.block(body.node, inner)
        outs = []
        for k, o in enumerate(body.output):
            v = inner[o.name]
            if k < len(states):
                s = states[k]
                _need(type(v) is type(s) and (isinstance(v, _Const) or (v.axis, v.rank) == (s.axis, s.rank)))
                outs.append(v)
            elif isinstance(v, _Rows):
                ax = 0 if out_axes is None else out_axes[k - len(states)] % (v.rank + 1)
                outs.append(_Rows(v.axis + (ax <= v.axis), v.rank + 1))
            else:
                _need(isinstance(v, _Const))
                outs.append(_Const())
        return outs

    def _fold(self, n, ins):
        """The value of a small constant shape computation (Constant, Cast, Unsqueeze, Concat of ints), else None."""
        vals = [None if v is None else v.value for v in ins]
        if any(v is None for v, x in zip(vals, n.input) if x) or not vals:
            return None
        t = n.op_type
        if t == "Cast" or t == "Identity":
            return vals[0]
        if t == "Concat" and all(np.ndim(v) == 1 for v in vals):
            return np.concatenate(vals)
        if t == "Unsqueeze" and np.ndim(vals[0]) == 0:
            return np.reshape(vals[0], [1])
        return None


def _i(attrs, name, default=0):
    return attrs[name].i if name in attrs else default


def _graphs(g):
    yield g
    for n in g.node:
        for x in n.attribute:
            if x.g.node:
                yield from _graphs(x.g)
