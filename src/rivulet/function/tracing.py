"""Tracing: run Python once with placeholders standing for tensor arguments, recording ops into a Graph."""
import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..core.tensor import EagerTensor, SymbolicTensor, Tensor
from ..graph.graph import Graph
from ..shape import TensorSpec
from .trace_type import VariableSpec


class FuncGraph(Graph):
    """The graph of one traced function. `inputs` = argument placeholders then capture placeholders."""

    def __init__(self, name, outer_graph=None):
        super().__init__(name, outer_graph)
        self.arg_placeholders = []
        self.arg_values = {}  # id(argument placeholder) -> the value it stands for in the call being traced
        self.arg_resources = []  # ids of the variables passed in, resolved to their placeholders while tracing

    def end_trace(self):
        """Forgets the traced call's values: the graph keeps no argument (variable or tensor) alive, and
        the ids of the variables passed in no longer resolve to their placeholders."""
        self.arg_values = {}
        for key in self.arg_resources:
            self._capture_ids.pop(key, None)
        self.arg_resources = []


def eager_value(t):
    """The value a tensor of a graph being traced has in the call being traced, computed eagerly now: the
    trace's arguments and captures give its inputs (tf.init_scope lifting a variable's initial value out of
    the function). None when it depends on something with no value yet (a get_concrete_function spec)."""
    from ..core import context
    from ..execute.plan import needed_ops
    from ..execute.replay import replay
    g = t.op.graph
    phs, values = [], []
    captured = {id(ph): v for v, ph in g.captures}
    for op in needed_ops(g, [t], keep_stateful=False):
        if op.type != "Placeholder":
            continue
        ph = op.outputs[0]
        if id(ph) in captured:
            v = captured[id(ph)]
            if isinstance(v, SymbolicTensor):  # a tensor of an enclosing graph being traced
                v = eager_value(v)
        else:
            v = getattr(g, "arg_values", {}).get(id(ph))
            if isinstance(v, SymbolicTensor):  # a nested function's argument: a tensor of its caller
                v = eager_value(v)
            elif v is not None and not isinstance(v, EagerTensor) and not getattr(v, "_is_resource", False):
                from ..core.tensor import convert_to_tensor
                try:
                    v = convert_to_tensor(v, dtype=ph.dtype)
                except (TypeError, ValueError):
                    v = None
        if v is None:
            return None
        phs.append(ph)
        values.append(v)
    with context.init_scope():
        return replay(g, phs, [t], values, keep_stateful=False)[0]


def placeholders_for(g, value, spec, name):
    """Structure of `value` with each tensor leaf replaced by a placeholder shaped by its trace type."""
    if isinstance(spec, TensorSpec):
        ph = g.placeholder(spec.dtype, spec.shape, name=spec.name or name)
        g.arg_placeholders.append(ph)
        if not isinstance(value, TensorSpec) and value is not None:
            g.arg_values[id(ph)] = value
        return ph
    hook = getattr(spec, "_placeholder_for", None)  # trace types fed by reference (a dataset argument)
    if hook is not None:
        return hook(g, value, name)
    if isinstance(spec, VariableSpec) and getattr(value, "_is_resource", False):
        return _variable_input(g, value, name)
    if getattr(value, "_is_resource", False):
        return value
    comps = getattr(spec, "_component_specs", None)
    if comps is not None:  # a composite (tf.SparseTensor): one placeholder per component tensor
        vals = value._to_components() if hasattr(value, "_to_components") else [None] * len(comps)
        return spec._from_components([placeholders_for(g, v, s, name) for v, s in zip(vals, comps)])
    if isinstance(spec, tuple) and isinstance(value, (list, tuple, dict)):
        if spec[0] == "dict":
            # Placeholders in the trace type's (sorted-key) order, which is the order the flat arguments
            # are fed in; the function sees the dict in the caller's own key order and type.
            return nest._rebuild(value, [placeholders_for(g, value[k], s, f"{name}_{k}") for k, s in spec[1]])
        items = spec[3] if spec[0] == "namedtuple" else spec[1]
        vals = [placeholders_for(g, v, s, f"{name}_{i}") for i, (v, s) in enumerate(zip(value, items))]
        if spec[0] == "namedtuple":
            return type(value)(*vals)
        return type(value)(vals)
    return value


def _variable_input(g, var, name):
    """A variable argument is a resource input of the graph, fed the variable passed on each call (one
    graph serves every variable of the same spec). The trace sees the variable itself: its reads and writes,
    and those of a closure over the same variable, resolve to the placeholder, as in TensorFlow. The same
    variable passed twice (an alias) is served by its first placeholder; the second stays unused."""
    ph = g.placeholder(_dt.resource, (), name=name)
    g.arg_placeholders.append(ph)
    res = getattr(var, "_res", var)
    g.arg_values[id(ph)] = res
    if id(res) not in g._capture_ids:
        g._capture_ids[id(res)] = ph
        g.arg_resources.append(id(res))
    return var


_CONSTANTS = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def _is_tensor_array(x):
    from ..ops.tensor_array_ops import TensorArray
    return isinstance(x, TensorArray)


def finalize_outputs(g, result):
    """Flattens the Python result; each tensor leaf goes through an Identity (TensorFlow's output nodes)."""
    from ..ops.array_ops import identity
    flat = nest.flatten(result)
    outs = []
    structured = []
    with g.as_default():
        for leaf in flat:
            conv = getattr(leaf, "_as_tensor", None)
            if conv is not None and not isinstance(leaf, Tensor):
                leaf = conv()
            if isinstance(leaf, (SymbolicTensor, EagerTensor)):
                t = identity(leaf)
                outs.append(t)
                structured.append(t)
            elif hasattr(leaf, "_to_components"):  # a composite (SparseTensor, RaggedTensor): its components
                parts = [identity(c) for c in leaf._to_components()]
                outs.extend(parts)
                structured.append(leaf.__tf_tracing_type__(None)._from_components(parts))
            elif isinstance(leaf, _CONSTANTS):
                # Python scalars, strings and arrays come back as tensors, as in TensorFlow.
                from ..ops.constant_op import constant
                t = identity(constant(leaf))
                outs.append(t)
                structured.append(t)
            elif leaf is None or _is_tensor_array(leaf):
                structured.append(leaf)
            else:
                raise TypeError("To be compatible with tf.function, Python functions must return zero or more "
                                f"Tensors or None values; in compilation of {g.name}, found return value of "
                                f"type {type(leaf).__name__}, which is not a Tensor.")
    g.outputs = outs
    g.structured_outputs = nest.pack_sequence_as(result, structured) if nest.is_nested(result) else structured[0]
    return g
