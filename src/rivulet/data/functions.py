"""User functions of a pipeline (map, filter, reduce, scan ...), traced once into a graph with the element's
spec, exactly as tf.function traces (AutoGraph applies; Python side effects run once, at trace time), then
compiled to straight-line NumPy code that the pipeline calls on each element's flat components."""
import gc

from .. import nest
from ..core import context
from ..core.tensor import EagerTensor
from ..shape import TensorSpec
from . import composites, structure


def _should_unpack(spec):
    return type(spec) is tuple  # tf.data passes a plain tuple's parts as separate arguments


class StructuredFunction:
    """fn traced for `input_specs` (one structure per positional argument). Calling it with a flat tuple of
    NumPy components returns the flat tuple of the result's components; `output_spec` is its structure."""

    def __init__(self, fn, input_specs, name, unpack=True):
        from ..function.polymorphic import user_facing
        from ..function.tracing import FuncGraph, finalize_outputs
        if not callable(fn):
            raise TypeError(f"`{name}` expects a callable, got {fn!r}")
        self.python_function = fn
        self.name = name
        conv = fn
        if getattr(fn, "_python_to_run", None) is None:
            try:
                from ..autograph.impl import convert
                conv = convert(fn)
            except ImportError:  # pragma: no cover - AutoGraph is part of the package
                conv = fn
        g = FuncGraph(name)
        args = []
        k = 0
        in_kinds = []
        with g.as_default():
            for spec in input_specs:
                leaves = []
                for s in structure.flat_specs(spec):
                    kind = composites.kind_of_spec(s)
                    in_kinds.append(kind)
                    if kind is not None:  # a composite: one placeholder per component, rebuilt for fn
                        phs = []
                        for c in s._component_specs:
                            phs.append(g.placeholder(c.dtype, c.shape, name=f"args_{k}"))
                            g.arg_placeholders.append(phs[-1])
                            k += 1
                        leaves.append(s._from_components(phs))
                        continue
                    ph = g.placeholder(s.dtype, s.shape, name=f"args_{k}")
                    g.arg_placeholders.append(ph)
                    leaves.append(ph)
                    k += 1
                v = nest.pack_sequence_as(spec, leaves) if nest.is_nested(spec) else leaves[0]
                if unpack and _should_unpack(spec) and len(input_specs) == 1:
                    args.extend(v)
                else:
                    args.append(v)
            paused = gc.isenabled()
            gc.disable()
            try:
                result = conv(*args)
            except Exception as e:
                raise user_facing(e, name) from e.__cause__
            finally:
                if paused:
                    gc.enable()
            if isinstance(result, list):
                result = tuple(result)  # tf.data treats a returned list as a tuple of components
            finalize_outputs(g, result)
        self.graph = g
        self.output_spec = structure.spec_of_tensors(g.structured_outputs)
        self._n_out = len(g.outputs)
        from ..optimize.pipeline import lower
        self._fn = lower(g, name=name)[3].fn
        self._captures = tuple(v._v if isinstance(v, EagerTensor) else v for v in g.external_captures)
        out_kinds = [composites.kind_of_spec(s) for s in structure.flat_specs(self.output_spec)]
        self.has_composites = any(in_kinds) or any(out_kinds)
        if self.has_composites:
            self._fn = _composite_adapter(self._fn, in_kinds, out_kinds,
                                          [len(s._component_specs) if k else 1 for k, s in
                                           zip(out_kinds, structure.flat_specs(self.output_spec))])

    def __call__(self, flat):
        """flat NumPy components in -> tuple of NumPy components out."""
        return context.run_quiet(self._fn, *flat, *self._captures)

    def call_many(self, elements):
        """Calls fn on each of a list of flat elements inside one quiet context (less per-call overhead)."""
        fn, caps = self._fn, self._captures
        return context.run_quiet(_many, fn, elements, caps)

    def check_output(self, want, what):
        """The result must be a scalar boolean (filter, take_while)."""
        s = self.output_spec
        if not isinstance(s, TensorSpec) or s.dtype.name != want or s.shape.rank not in (0, None):
            raise ValueError(f"Invalid `{what}`. `{what}` must return a `tf.bool` scalar tensor, but its return "
                             f"type is {s}.")


def _composite_adapter(fn, in_kinds, out_kinds, out_sizes):
    """fn over component arrays -> fn over pipeline elements whose composite leaves are CompositeValues."""
    n_in = len(in_kinds)

    def call(*args):
        flat = []
        for v, kind in zip(args[:n_in], in_kinds):
            if kind is None:
                flat.append(v)
            else:
                flat.extend(kind.components(v))
        res = fn(*flat, *args[n_in:])
        out, i = [], 0
        for kind, n in zip(out_kinds, out_sizes):
            out.append(res[i] if kind is None else kind.from_components(res[i:i + n]))
            i += n
        return tuple(out)
    return call


def _many(fn, elements, caps):
    return [fn(*e, *caps) for e in elements]


def eager_call(fn, spec, flat):
    """Runs fn on one element eagerly (functions that return datasets: flat_map, interleave, group_by_window)."""
    v = structure.pack(spec, flat)
    return fn(*v) if _should_unpack(spec) else fn(v)


# -- whole-batch execution of element-wise map functions ---------------------------------------------------
# A map before a batch may run once per batch instead of once per element when its graph provably treats
# every element alike: element-wise ops (operands broadcast within the element), reductions over element
# axes, softmax over the last axis, reshapes to a static shape, and constants. Anything else (indexing,
# random ops, shape-dependent code, variables) keeps the per-element path: the result is the same either way.
_UNARY = frozenset("Abs Cast Ceil Cos Exp Expm1 Floor Identity IsFinite IsInf IsNan Log Log1p LogicalNot Neg "
                   "Reciprocal Relu Relu6 Rint Round Rsqrt Sigmoid Sign Sin Softplus Sqrt Square StopGradient Tan "
                   "Tanh Elu Selu Gelu Silu LeakyRelu Erf".split())
_BINARY = frozenset("AddV2 Sub Mul RealDiv DivNoNan FloorDiv FloorMod Maximum Minimum Pow SquaredDifference Less "
                    "LessEqual Greater GreaterEqual Equal NotEqual LogicalAnd LogicalOr TruncateDiv Xdivy Xlogy"
                    .split())


def vectorize(sf):
    """A batched version of StructuredFunction `sf` (flat batch components in and out), or None."""
    from ..core.dispatch import bind
    from ..function.tracing import FuncGraph, finalize_outputs
    g = sf.graph
    if sf.has_composites:
        return None
    args = list(g.arg_placeholders)
    if not all(t.shape.is_fully_defined() for t in args) or g.variables:
        return None
    bg = FuncGraph(sf.name + "_batched")
    new, batched = {}, set()
    captured = {id(ph): v for v, ph in g.captures}
    with bg.as_default():
        for ph in args:
            t = bg.placeholder(ph.dtype, [None] + ph.shape.as_list(), name=ph.op.name)
            bg.arg_placeholders.append(t)
            new[id(ph)] = t
            batched.add(id(ph))
        for op in g.get_operations():
            if op.type == "Placeholder":
                if id(op.outputs[0]) in new:
                    continue
                v = captured.get(id(op.outputs[0]))
                if v is None or not isinstance(v, EagerTensor):
                    return None
                new[id(op.outputs[0])] = bg.capture(v)
                continue
            if op.opdef.stateful or op.control_inputs:
                return None
            ins = [new[id(t)] for t in op.inputs]
            hot = [id(t) in batched for t in op.inputs]
            if not any(hot):
                outs = bind(op.opdef, ins, op.attrs)
                outs = outs if isinstance(outs, list) else [outs]
            else:
                outs = _batched_op(op, ins, hot)
                if outs is None:
                    return None
            for t, n in zip(op.outputs, outs):
                new[id(t)] = n
                if any(hot):
                    batched.add(id(t))
        if not all(id(t) in batched for t in g.outputs):
            return None
        res = [new[id(t)] for t in g.outputs]
        finalize_outputs(bg, tuple(res))
    from ..optimize.pipeline import lower
    fn = lower(bg)[3].fn
    caps = tuple(v._v for v in bg.external_captures)
    return lambda flat: context.run_quiet(fn, *flat, *caps)


def _batched_op(op, ins, hot):
    """The batched counterpart of one element op (inputs: batched versions, `hot` marking those that carry
    the batch dimension), or None when the op is not provably the same on every element."""
    from ..core.dispatch import bind
    from ..ops import array_ops
    out = op.outputs[0].shape
    if len(op.outputs) != 1 or not out.is_fully_defined() or \
            not all(t.shape.is_fully_defined() for t, h in zip(op.inputs, hot) if h):
        return None
    typ = op.type
    if typ in _UNARY or typ in _BINARY or typ in _TERNARY:
        if len(op.inputs) != (1 if typ in _UNARY else 2 if typ in _BINARY else 3):
            return None
        # Element shapes broadcast right-aligned: a batched operand of lower rank gets unit dims after the
        # batch dimension; constants already align with the batched output from the right.
        args = [_pad_rank(x, t.shape, out.rank) if h else x for x, t, h in zip(ins, op.inputs, hot)]
        return [bind(op.opdef, args, op.attrs)]
    if typ == "Reshape":
        return [array_ops.reshape(ins[0], [-1] + out.as_list())] if hot[0] and not any(hot[1:]) else None
    if typ in _REDUCE and len(ins) == 1:
        rank = op.inputs[0].shape.rank
        axis = op.attrs.get("axis")
        axis = tuple(range(1, rank + 1)) if axis is None else tuple(a + 1 if a >= 0 else a for a in axis)
        return [bind(op.opdef, ins, dict(op.attrs, axis=axis))]
    if typ in _LAST_AXIS and len(ins) == 1 and op.inputs[0].shape.rank >= 1:
        return [bind(op.opdef, ins, op.attrs)]
    return None


def _pad_rank(x, shape, rank):
    if shape.rank == rank:
        return x
    from ..ops import array_ops
    return array_ops.reshape(x, [-1] + [1] * (rank - shape.rank) + shape.as_list())


_TERNARY = frozenset(["SelectV2"])
_REDUCE = frozenset(["Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "ReduceLogSumExp"])
_LAST_AXIS = frozenset(["Softmax", "LogSoftmax"])
