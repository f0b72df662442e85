"""TensorFlow's function library (FunctionDefs) rebuilt as rivulet ops, in the graph being traced.

`Library.call(name, inputs)` replays one FunctionDef node by node with rivulet's public op functions (the
converters in `convert_ops`/`convert_control`), so every op is built through `bind` and the op registry:
shape rules run, gradients exist, and nothing from the file becomes code. Calls (PartitionedCall, a node
whose op is a library function) are inlined; If/Case/While run their functions as sub-graphs (below).
Nodes whose OpDef the file lists are checked against it first (opdefs.py).

Values flowing between nodes are tensors, rivulet Variables (for DT_RESOURCE handles) or None (NoOp).

A function that control flow runs (an If/Case branch, a While condition or body) is converted once per
kind of input into a sub-graph of its own, which every op running it shares (`Library.shared`): a file
whose branches call the same function at each of N levels of nesting is converted in N steps, not 2**N.
Direct calls are inlined; what that costs is bounded by a budget of converted nodes proportional to the
library, so a file whose calls fan out level after level fails fast. A function that calls itself,
directly or through others, is refused.
"""
import threading

import numpy as np

from ... import dtypes as _dt
from ...errors import NotFoundError, UnimplementedError
from ..format import Invalid
from . import opdefs, proto

MAX_CALL_DEPTH = 64
# Converted nodes allowed per node in the library (calls inline their functions' nodes again), and at least.
NODES_PER_NODE, MIN_NODE_BUDGET = 16, 1 << 14
_SKIPPED_ATTRS = ("_", )  # attrs starting with "_" are TensorFlow's annotations, not op semantics


class FuncRef:
    """A `func` attr: the name of a library function (and attrs it is instantiated with)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"FuncRef({self.name!r})"


def attr_value(av, what):
    """AttrValue -> Python: bytes, int, float, bool, DType, TensorShape, NumPy array, FuncRef, or a tuple."""
    kind = av.WhichOneof("value")
    if kind in ("s", "i", "f", "b"):
        return getattr(av, kind)
    if kind == "type":
        return proto.dtype(av.type, what)
    if kind == "shape":
        return proto.shape(av.shape)
    if kind == "tensor":
        return proto.tensor(av.tensor, what)
    if kind == "func":
        return FuncRef(av.func.name)
    if kind == "list":
        lv = av.list
        for field, conv in (("s", None), ("i", None), ("f", None), ("b", None),
                            ("type", lambda t: proto.dtype(t, what)), ("shape", proto.shape),
                            ("tensor", lambda t: proto.tensor(t, what)), ("func", lambda f: FuncRef(f.name))):
            items = getattr(lv, field)
            if len(items):
                return tuple(items) if conv is None else tuple(conv(x) for x in items)
        return ()
    if kind is None:
        return None
    raise Invalid(f"{what}: attr values of kind '{kind}' are not supported")


class Library:
    """The FunctionDefs of a MetaGraphDef, with the OpDefs (stripped_op_list) that say how outputs are named."""

    def __init__(self, graph_def, op_list):
        self.functions = {}
        for f in graph_def.library.function:
            if f.signature.name in self.functions:
                raise Invalid(f"function '{f.signature.name}' is defined twice")
            self.functions[f.signature.name] = f
        self.op_defs = {op.name: op for op in op_list.op}
        self._checked = set()
        self._order_cache = {}
        self._shared = {}  # (name, finish, input kinds) -> Shared
        self._active = set()  # the functions being converted (one calling itself is refused)
        self._lock = threading.RLock()  # lazily traced functions may be converted from several threads
        size = sum(len(f.node_def) for f in self.functions.values())
        self._budget = max(MIN_NODE_BUDGET, NODES_PER_NODE * size)

    # -- checking ----------------------------------------------------------------------------------------
    def check(self, names):
        """Every op that the functions `names` (and what they call) use must be one rivulet can import."""
        from .convert import CONVERTERS
        seen, todo = set(self._checked), list(names)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            f = self._function(name)
            for n in f.node_def:
                if n.op in self.functions:
                    todo.append(n.op)
                elif n.op not in CONVERTERS:
                    raise NotFoundError(None, None, f"Op type not registered '{n.op}' in rivulet (node '{n.name}' "
                                                    f"in function '{name}'): this model uses an op rivulet "
                                                    f"cannot run yet.")
                for key, av in n.attr.items():
                    if av.WhichOneof("value") == "func":
                        todo.append(av.func.name)
                    elif av.WhichOneof("value") == "list":
                        todo.extend(fn.name for fn in av.list.func)
        self._checked |= seen  # only once all of them passed

    def _function(self, name):
        f = self.functions.get(name)
        if f is None:
            raise Invalid(f"function '{name}' is not in the function library")
        return f

    # -- running ------------------------------------------------------------------------------------------
    def call(self, name, inputs, depth=0):
        """The outputs (a list) of library function `name` applied to `inputs`, built in the current graph."""
        if depth > MAX_CALL_DEPTH:
            raise Invalid(f"function '{name}': calls nest more than {MAX_CALL_DEPTH} deep")
        with self._lock:
            if name in self._active:
                raise Invalid(f"function '{name}' calls itself (directly or through other functions): recursive "
                              f"functions cannot be imported")
            self._active.add(name)
            try:
                return self._inline(name, inputs, depth)
            finally:
                self._active.discard(name)

    def shared(self, name, inputs, depth, finish=None):
        """Library function `name` as a sub-graph shared by every control-flow op that runs it on inputs of
        the same kinds: `inputs` are tensors or TensorSpecs (they become its parameters) and other values
        (variables, passed through as they are). `finish(outputs)` may post-process the outputs (a loop
        condition's truth value). Converted once per (name, finish, dtypes and shapes, other inputs)."""
        key = (name, finish, tuple(_kind(v) for v in inputs))
        with self._lock:
            hit = self._shared.get(key)
            if hit is None:
                hit = self._shared[key] = self._convert_shared(name, inputs, depth, finish)
            return hit

    def _convert_shared(self, name, inputs, depth, finish):
        from ...core.tensor import Tensor
        from ...function.control_flow import SubGraph, internal, isolated_tapes
        from ...function.tracing import FuncGraph
        g = FuncGraph(f"{name[:64]}_shared")  # not nested: it captures only variables and eager values
        with isolated_tapes(), g.as_default():
            params = [g.placeholder(v.dtype, v.shape, name=f"arg{i}") for i, v in enumerate(inputs) if _spec(v)]
            it = iter(params)
            outputs = self.call(name, [next(it) if _spec(v) else v for v in inputs], depth + 1)
            if finish is not None:
                outputs = finish(outputs)
            pattern = [None if isinstance(v, Tensor) else v for v in outputs]
            tensors = [internal(g, v) for v in outputs if isinstance(v, Tensor)]
        return Shared(SubGraph(g, params, tensors), pattern, [v for v in inputs if not _spec(v)])

    def _inline(self, name, inputs, depth):
        from .convert import CONVERTERS
        f = self._function(name)
        sig = f.signature
        if len(inputs) != len(sig.input_arg):
            raise Invalid(f"function '{name}' takes {len(sig.input_arg)} inputs, called with {len(inputs)}")
        _typed(sig.input_arg, inputs, f"function '{name}': argument")
        env = {a.name: [v] for a, v in zip(sig.input_arg, inputs)}
        args = {a.name for a in sig.input_arg}
        outputs = {}  # node name -> {output arg name: (offset, count)}
        order = self._order(name, f, args)
        self._budget -= len(order)
        if self._budget < 0:
            raise Invalid(f"function '{name}': the library's functions, inlined where they are called, come to "
                          f"more nodes than this reader converts for a library of this size (calls that fan out "
                          f"level after level?)")
        for node in order:
            where = f"node '{node.name}' ({node.op}) in function '{name}'"
            values = [_fold(self._ref(r, env, outputs, args, where)) for r in node.input if not r.startswith("^")]
            attrs = self._attrs(node, where)
            if node.op in self.functions:
                result = self.call(node.op, values, depth + 1)
                outputs[node.name] = _arg_offsets(self._function(node.op).signature.output_arg, {}, where)
            else:
                op_def = self.op_defs.get(node.op)
                if op_def is not None:
                    opdefs.check(op_def, attrs, values, where)
                try:
                    result = CONVERTERS[node.op](_Ctx(self, depth, where), values, attrs)
                except (Invalid, NotFoundError, UnimplementedError):
                    raise
                except (ValueError, TypeError, IndexError, KeyError) as e:
                    raise Invalid(f"{where} is not valid: {e}") from None
                except NotImplementedError as e:  # rivulet's op cannot do what this node asks (yet)
                    raise UnimplementedError(None, None, f"{where}: {e}") from None
            env[node.name] = result if isinstance(result, list) else [result]
            if node.op not in self.functions:
                outputs[node.name] = self._offsets(node.op, attrs, len(env[node.name]), where)
        ret = []
        for a in sig.output_arg:
            if a.name not in f.ret:
                raise Invalid(f"function '{name}' does not say what its output '{a.name}' is")
            ret.append(self._ref(f.ret[a.name], env, outputs, args, f"output '{a.name}' of function '{name}'"))
        _typed(sig.output_arg, ret, f"function '{name}': output")
        return ret

    def _order(self, name, f, args):
        """The function's nodes, each after the nodes it reads (data and control inputs)."""
        from ...graph.graph_util import topological
        order = self._order_cache.get(name)
        if order is None:
            by_name = {}
            for n in f.node_def:
                if n.name in by_name or n.name in args:
                    raise Invalid(f"function '{name}': node '{n.name}' is defined twice")
                by_name[n.name] = n
            try:  # references are "node:output_arg:index" or "^node"
                order = topological(by_name, lambda n: [r.lstrip("^").split(":", 1)[0] for r in n.input])
            except ValueError as e:
                raise Invalid(f"function '{name}': {e}") from None
            self._order_cache[name] = order
        return order

    def _attrs(self, node, where):
        attrs = {}
        op_def = self.op_defs.get(node.op)
        if op_def is not None:  # defaults TensorFlow stripped when it wrote the file
            for a in op_def.attr:
                if a.HasField("default_value"):
                    attrs[a.name] = attr_value(a.default_value, where)
        for k, av in node.attr.items():
            if not k.startswith(_SKIPPED_ATTRS):
                attrs[k] = attr_value(av, f"{where}, attr '{k}'")
        return attrs

    def _offsets(self, op, attrs, n, where):
        op_def = self.op_defs.get(op)
        if op_def is not None:
            return _arg_offsets(op_def.output_arg, attrs, where)
        # The file's op list need not cover ops used only inside functions: TensorFlow's output names.
        names = _OUTPUT_NAMES.get(op)
        if names is None:
            return {None: (0, n)}  # one output (or one list of them), whatever the reference calls it
        if len(names) == 1:
            return {names[0]: (0, n)}
        return {name: (i, 1) for i, name in enumerate(names)}

    @staticmethod
    def _ref(ref, env, outputs, args, where):
        """The value an input reference names: an argument `x`, or `node:output_arg:index`."""
        parts = ref.split(":")
        if len(parts) == 1:
            if ref not in args:
                raise Invalid(f"{where}: unknown input '{ref}'")
            return env[ref][0]
        if len(parts) != 3 or not parts[2].isdigit() or parts[0] not in outputs:
            raise Invalid(f"{where}: bad input reference '{ref}'")
        spans = outputs[parts[0]]
        span = spans.get(parts[1], spans.get(None))
        i = int(parts[2])
        if span is None or i >= span[1]:
            raise Invalid(f"{where}: node '{parts[0]}' has no output '{parts[1]}:{i}'")
        values = env[parts[0]]
        if span[0] + i >= len(values):
            raise Invalid(f"{where}: node '{parts[0]}' gave fewer outputs than its op declares")
        return values[span[0] + i]


class Shared:
    """A library function converted once for control flow: `sub` takes its tensor inputs as parameters and
    returns its tensor results; `pattern` lists its results, None for each tensor (in order) and the value
    itself for anything else (a variable passed through); `keep` holds the non-tensor inputs of the key."""
    __slots__ = ("sub", "pattern", "keep")

    def __init__(self, sub, pattern, keep):
        self.sub, self.pattern, self.keep = sub, pattern, keep


def _spec(v):
    """Whether `v` becomes a parameter of a shared sub-graph (a tensor or a TensorSpec)."""
    from ...core.tensor import Tensor
    from ...shape import TensorSpec
    return isinstance(v, (Tensor, TensorSpec))


def _kind(v):
    """What converting a function depends on about one input: a tensor's dtype and shape, another value's
    identity (the variables a function reads are part of its graph)."""
    if _spec(v):
        return v.dtype, None if v.shape.rank is None else tuple(v.shape.as_list())
    return id(v)


_OUTPUT_NAMES = {op: names.split() for op, names in {
    "FusedBatchNorm": "y batch_mean batch_variance reserve_space_1 reserve_space_2",
    "FusedBatchNormV2": "y batch_mean batch_variance reserve_space_1 reserve_space_2",
    "FusedBatchNormV3": "y batch_mean batch_variance reserve_space_1 reserve_space_2 reserve_space_3",
    "Unique": "y idx", "TopKV2": "values indices"}.items()}


def _fold(v):
    """A small int tensor whose value the graph already determines (a perm or shape that TensorFlow's graph
    computes as ConcatV2/Pack of constants and known dims) as a constant, for ops that need it statically."""
    op = getattr(v, "op", None)
    if op is None or op.type == "Const" or v.dtype not in (_dt.int32, _dt.int64) or v.shape.rank not in (0, 1):
        return v
    from ...ops.array_ops import partial_value
    p = partial_value(v)
    if p is None or isinstance(p, list) and None in p:
        return v
    from . import ops_api as tf
    return tf.constant(np.array(p, v.dtype.as_numpy_dtype))


def _typed(arg_defs, values, what):
    """Values of a function's arguments or results are of the types its signature declares: TensorFlow refuses
    the call otherwise (InvalidArgumentError). A DT_RESOURCE value is a variable."""
    for a, v in zip(arg_defs, values):
        if not a.type or a.number_attr or a.type_list_attr or a.type_attr:
            continue  # polymorphic: the instantiating attrs say (library functions do not use these)
        want = proto.dtype(a.type, f"{what} '{a.name}'")
        got = _dt.resource if getattr(v, "_is_resource", False) else getattr(v, "dtype", None)
        if got != want:
            got = got.name if isinstance(got, _dt.DType) else type(v).__name__
            raise proto.InvalidGraph(f"{what} '{a.name}' is declared {want.name} but is {got}")


def _arg_offsets(output_args, attrs, where):
    """{output arg name: (first flat index, count)} from an OpDef's (or signature's) output args."""
    out, at = {}, 0
    for a in output_args:
        if a.number_attr:
            n = attrs.get(a.number_attr)
        elif a.type_list_attr:
            n = attrs.get(a.type_list_attr)
            n = len(n) if isinstance(n, tuple) else None
        else:
            n = 1
        if not isinstance(n, int) or n < 0:
            raise Invalid(f"{where}: cannot tell how many '{a.name}' outputs there are")
        out[a.name] = (at, n)
        at += n
    return out


class _Ctx:
    """What a converter may use besides its inputs and attrs: the library (for branch and body functions)."""
    __slots__ = ("library", "depth", "where")

    def __init__(self, library, depth, where):
        self.library, self.depth, self.where = library, depth, where

    def call(self, func, inputs):
        return self.library.call(self._name(func), list(inputs), self.depth + 1)

    def shared(self, func, inputs, finish=None):
        """`func` converted for control flow (Library.shared)."""
        return self.library.shared(self._name(func), list(inputs), self.depth, finish)

    def _name(self, func):
        if not isinstance(func, FuncRef):
            raise Invalid(f"{self.where}: expected a function attr, got {func!r}")
        return func.name
