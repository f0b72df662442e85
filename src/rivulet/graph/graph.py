"""Graph and Operation: the data structure tracing builds and the optimiser and executor consume."""
import contextlib
import inspect
import itertools
import re
import sys
import threading

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.op import get_op
from .node_kinds import CONST, PLACEHOLDER
from ..core.tensor import EagerTensor, SymbolicTensor, Tensor
from ..shape import TensorShape

_graph_ids = itertools.count(1)
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")


class Operation:
    """A node: an op type applied to input tensors with attributes, producing output tensors."""
    __slots__ = ("graph", "name", "type", "opdef", "_inputs", "outputs", "attrs", "control_inputs", "_id",
                 "user_frame", "_device", "__weakref__")

    def __init__(self, graph, opdef, name, inputs, attrs, control_inputs=()):
        self.graph, self.opdef, self.name, self.type = graph, opdef, name, opdef.name
        self._inputs = tuple(inputs)
        self.attrs = attrs
        self.control_inputs = list(control_inputs)
        self.outputs = []
        self._id = len(graph._ops)
        self.user_frame = None

    @property
    def inputs(self):
        return self._inputs

    @property
    def device(self):
        """The device string the op was created under (tf.device), '' if none."""
        try:
            return self._device
        except AttributeError:
            return ""

    @property
    def node_def(self):
        from .graph_def import node_def_of
        return node_def_of(self)

    def get_attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None

    @property
    def values(self):
        return tuple(self.outputs)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class Graph:
    """A dataflow graph: Operations in creation order plus the bookkeeping tracing needs.

    `inputs` are the placeholders a caller feeds (arguments, then captures); `captures` maps each captured
    outside value (an eager tensor, a variable or an outer graph's tensor) to its placeholder here.
    """

    def __init__(self, name=None, outer_graph=None):
        self._ops = []
        self._by_name = {}
        self._name_counts = {}
        self._scope = ""
        self.name = name or f"graph_{next(_graph_ids)}"
        self.outer_graph = outer_graph
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.captures = []  # [(outside value, placeholder)] in capture order
        self._capture_ids = {}
        self.control_outputs = []  # stateful ops, in program order
        self._last_stateful = None
        self._control_stack = []
        self.variables = []
        self.seed = None
        self._seed_offset = 0
        self._scalars = {}  # (NumPy scalar type, bytes, name scope) -> Const output (see scalar_constant)

    # -- building ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph(self)

    def unique_name(self, name, mark_as_used=True):
        if self._scope:
            name = self._scope + "/" + name
        key = name.lower()
        n = self._name_counts.get(key, 0)
        if n:
            base = name
            while True:
                name = f"{base}_{n}"
                n += 1
                if name.lower() not in self._name_counts:
                    break
            if mark_as_used:
                self._name_counts[key] = n
                self._name_counts[name.lower()] = 1
        elif mark_as_used:
            self._name_counts[key] = 1
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        old = self._scope
        if name:
            if name.endswith("/"):
                self._scope = name[:-1]
            else:
                full = self.unique_name(name)
                self._scope = full
        try:
            yield (self._scope + "/") if self._scope else ""
        finally:
            self._scope = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            if isinstance(c, Operation):
                ops.append(c)
            elif isinstance(c, SymbolicTensor):
                ops.append(c.op)
            elif c is not None and not isinstance(c, EagerTensor):
                raise TypeError(f"Control input must be an Operation or a Tensor, got {c!r}")
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def encloses(self, graph):
        """Whether `graph` is one of the graphs this one is built inside (its outer graph, theirs ...)."""
        g = self.outer_graph
        while g is not None and g is not graph:
            g = g.outer_graph
        return g is not None

    def _internal(self, t):
        """Brings a tensor from outside (eager value or outer graph) in as a captured placeholder."""
        if isinstance(t, SymbolicTensor):
            if t._op.graph is self:
                return t
            if not self.encloses(t._op.graph):
                raise TypeError(f"{t!r} is out of scope and cannot be used here. Use return values, explicit "
                                "Python locals or TensorFlow collections to access it.")
            return self.capture(t)
        if isinstance(t, EagerTensor) or getattr(t, "_is_resource", False):
            return self.capture(t)
        raise TypeError(f"Expected a Tensor, got {t!r}")

    def capture(self, value, name=None):
        """Placeholder standing for an outside value; the caller feeds the value on every call."""
        key = id(value)
        hit = self._capture_ids.get(key)
        if hit is not None:
            return hit
        if isinstance(value, SymbolicTensor) and self.outer_graph is not None and value._op.graph is not self.outer_graph:
            value = self.outer_graph._internal(value)  # capture through the intermediate graphs
        if getattr(value, "_is_resource", False):
            # A variable (or other stateful resource): the placeholder is fed the object itself, and
            # ReadVariableOp / AssignVariableOp kernels act on it. Captured by reference, never by value.
            ph = self.placeholder(_dt.resource, (), name=name or getattr(value, "_capture_name", "resource"))
            self.variables.append(value)
        else:
            ph = self.placeholder(value.dtype, value.shape, name=name or "Const")
        self.captures.append((value, ph))
        self._capture_ids[key] = ph
        self._capture_ids[id(ph)] = ph
        self._keep = getattr(self, "_keep", [])
        self._keep.append(value)  # ids stay unique while captured
        return ph

    def create_op(self, opdef, inputs, attrs, name=None, user_frame=None):
        inputs = [t if (t.__class__ is SymbolicTensor and t._op.graph is self) else self._internal(t)
                  for t in inputs]
        res = opdef.infer(*inputs, **attrs)
        if opdef.same or opdef.allowed is not None:
            opdef.check_dtypes([t._dtype for t in inputs], eager=False)
        name = self.unique_name(name or opdef.name)
        ctrl = [c for group in self._control_stack for c in group] if self._control_stack else ()
        op = Operation(self, opdef, name, inputs, attrs, ctrl)
        if isinstance(res, tuple) and len(res) == 2 and isinstance(res[1], _dt.DType):  # one output
            shape = res[0]
            op.outputs = [SymbolicTensor(op, 0, shape if isinstance(shape, TensorShape) else TensorShape(shape),
                                         res[1])]
        else:
            op.outputs = [SymbolicTensor(op, i, shape if isinstance(shape, TensorShape) else TensorShape(shape), dt)
                          for i, (shape, dt) in enumerate(res)]
        op.user_frame = user_frame or _user_frame()
        if opdef.stateful:
            # Automatic control dependencies: stateful ops run in program order, and all of them run.
            if self._last_stateful is not None:
                op.control_inputs.append(self._last_stateful)
            self._last_stateful = op
            self.control_outputs.append(op)
        self._ops.append(op)
        self._by_name[name] = op
        return op

    def clone_op(self, op, inputs, control_inputs=()):
        """Copies `op` onto inputs of the same shapes and dtypes as its own: the rules' results are known,
        so nothing is re-inferred (used by graph rewrites)."""
        name = op.name if op.name not in self._by_name else self.unique_name(op.name)
        new = Operation(self, op.opdef, name, inputs, op.attrs, control_inputs)
        new.outputs = [SymbolicTensor(new, i, t._shape, t._dtype) for i, t in enumerate(op.outputs)]
        new.user_frame = op.user_frame
        if hasattr(op, "_device"):
            new._device = op._device
        if op.opdef.stateful:
            if self._last_stateful is not None and self._last_stateful not in new.control_inputs:
                new.control_inputs.append(self._last_stateful)
            self._last_stateful = new
            self.control_outputs.append(new)
        self._ops.append(new)
        self._by_name[name] = new
        self._name_counts.setdefault(name.lower(), 1)
        return new

    def constant(self, value, name=None):
        """A Const op. Built directly: its shape and dtype are the value's own, there is nothing to infer."""
        dt = _dt.from_numpy(value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype)
        name = self.unique_name(name or "Const")
        ctrl = [c for group in self._control_stack for c in group] if self._control_stack else ()
        op = Operation(self, CONST, name, (), {"value": value, "dtype": dt}, ctrl)
        op.outputs = [SymbolicTensor(op, 0, TensorShape._known(np.shape(value)), dt)]
        op.user_frame = _user_frame()
        self._ops.append(op)
        self._by_name[name] = op
        return op.outputs[0]

    def scalar_constant(self, value):
        """The Const of a NumPy scalar converted from a Python number an op reads (x * 2.0): one per value,
        dtype and name scope (while no control dependencies are open), shared by the ops that read it, as
        common subexpression elimination would merge them anyway; a traced loop of `x * 1.0001 + 0.5` makes
        two constants, not two per step."""
        if self._control_stack:
            return self.constant(value)
        x = value.item()
        if x.__class__ is not int and not (x.__class__ is float and x):  # 0.0 and -0.0 are equal: their bytes
            x = value.tobytes()  # (and those of complex numbers, long doubles)
        key = (value.__class__, x, self._scope)
        t = self._scalars.get(key)
        if t is None:
            t = self._scalars[key] = self.constant(value)
        return t

    def placeholder(self, dtype, shape, name=None):
        op = self.create_op(PLACEHOLDER, (), {"dtype": _dt.as_dtype(dtype), "shape": TensorShape(shape)},
                            name or "Placeholder")
        return op.outputs[0]

    # -- inspection ---------------------------------------------------------------------------
    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name):
        op_name, _, idx = name.rpartition(":")
        if not op_name or not idx.isdigit():
            raise ValueError(f"The name '{name}' looks a like an Operation name, not a Tensor name.")
        op = self.get_operation_by_name(op_name)
        try:
            return op.outputs[int(idx)]
        except IndexError:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist.") from None

    def as_graph_def(self, add_shapes=False):
        from .graph_def import graph_to_graph_def
        return graph_to_graph_def(self, add_shapes=add_shapes)

    @property
    def internal_captures(self):
        return [ph for _, ph in self.captures]

    @property
    def external_captures(self):
        return [v for v, _ in self.captures]

    def __repr__(self):
        return f"<rivulet Graph {self.name!r} with {len(self._ops)} ops>"


_PKG_DIR = __file__.rsplit("/", 2)[0]


_INTERNAL = {}  # code object -> defined inside rivulet (or generated by it)?
_FRAMES = threading.local()  # .cache while a function is traced: {rivulet frame: the user frame above it}
_NOT_CACHED = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR  # resumed from anywhere
_CACHE_UP_TO = 512
_EPHEMERAL = 3


@contextlib.contextmanager
def frame_cache():
    """While a function is traced (function/polymorphic.py), the walk from each new op up to the user's frame
    stops at a rivulet frame it passed before: a running frame's callers are fixed while it runs, so the
    user frame above it is too (Keras ops sit under a dozen rivulet frames up to the user's `fit`). The
    frames are let go when the outermost trace ends."""
    if getattr(_FRAMES, "cache", None) is not None:
        yield
        return
    _FRAMES.cache = {}
    try:
        yield
    finally:
        _FRAMES.cache = None


def _user_frame():
    """The innermost stack frame outside rivulet: where the user's code created this op."""
    f = sys._getframe(2)
    internal = _INTERNAL
    cache = getattr(_FRAMES, "cache", None)
    passed = []
    depth = 0  # rivulet frames passed: the innermost few (bind, the op's function) end with the op, not kept
    user = None
    while f is not None:
        if cache is not None:
            user = cache.get(f)
            if user is not None:
                break
        code = f.f_code
        inside = internal.get(code)
        if inside is None:
            fn = code.co_filename
            inside = internal[code] = fn.startswith(_PKG_DIR) or fn.startswith("<rivulet")
        if not inside:
            user = f
            break
        depth += 1
        if depth > _EPHEMERAL and not code.co_flags & _NOT_CACHED:
            passed.append(f)
        f = f.f_back
    if user is None:
        return None
    if cache is not None and passed:
        if len(cache) > _CACHE_UP_TO:
            cache.clear()
        for p in passed:
            cache[p] = user
    code = user.f_code
    return (code.co_filename, user.f_lineno, code.co_name)


def get_default_graph():
    g = context.current_graph()
    if g is None:
        global _GLOBAL
        try:
            return _GLOBAL
        except NameError:
            _GLOBAL = Graph("global")
            return _GLOBAL
    return g
