"""ConcreteFunction: one traced graph, compiled once to straight-line Python, callable like a function."""
import inspect

from .. import nest
from ..core import context
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor
from ..execute import blas_threads
from ..shape import TensorSpec
from .trace_type import Literal, VariableSpec, describe, type_of, is_subtype


# Callables told of every ConcreteFunction call (tf.summary.trace_on records the graphs that ran).
_call_observers = []


def add_call_observer(fn):
    """fn(concrete_function) runs on every call of any ConcreteFunction, cached fast path included."""
    _call_observers.append(fn)


def remove_call_observer(fn):
    if fn in _call_observers:
        _call_observers.remove(fn)


# rivulet.jit's wrap (the compiled tier), given by the face (rivulet/__init__.py), which loads jit/ on first use
_JIT_WRAP = []


def register_jit(wrap):
    _JIT_WRAP[:] = [wrap]


class ConcreteFunction:
    _jit = False  # set (before compiling) for jit_compile=True: see rivulet.jit
    def __init__(self, graph, params, arg_types, name, python_function=None):
        self.graph = graph
        self._params = params  # [(name, inspect kind)]
        self._arg_types = arg_types  # trace type per parameter
        self._name = name
        self._python_function = python_function
        self._compiled = None
        self._fast = None
        self._backward = None

    # -- inspection -------------------------------------------------------------------------------
    name = property(lambda self: self._name)
    inputs = property(lambda self: self.graph.arg_placeholders + self.graph.internal_captures)
    outputs = property(lambda self: list(self.graph.outputs))
    structured_outputs = property(lambda self: self.graph.structured_outputs)
    captured_inputs = property(lambda self: self.graph.external_captures)

    @property
    def variables(self):
        return list(self.graph.variables)

    @property
    def trainable_variables(self):
        return [v for v in self.graph.variables if getattr(v, "trainable", True)]

    @property
    def structured_input_signature(self):
        args, kwargs = [], {}
        for (pname, kind), t in zip(self._params, self._arg_types):
            v = _spec_value(t, pname)
            if kind == inspect.Parameter.KEYWORD_ONLY:
                kwargs[pname] = v
            else:
                args.append(v)
        return tuple(args), kwargs

    @property
    def inference_fn(self):
        """The traced graph as a callable taking every parameter (TensorFlow's AtomicFunction)."""
        return AtomicFunction(self)

    @property
    def function_type(self):
        return FunctionType(self)

    def _output_description(self):
        return describe(_out_type(self.graph.structured_outputs))

    def _param_lines(self):
        return [f"  {n} ({k.name}): {describe(t)}" for (n, k), t in zip(self._params, self._arg_types)]

    def pretty_printed_signature(self, verbose=True):
        caps = self.graph.captures
        lines = ["Input Parameters:"] + self._param_lines() + ["Output Type:", "  " + self._output_description(),
                                                                "Captures:"]
        if caps:
            lines += [f"  {id(v)}: {TensorSpec(ph.shape, ph.dtype)}" for v, ph in caps]
        else:
            lines.append("  None")
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self):
        params = ", ".join(f"{n}: {describe(t)}" for (n, _), t in zip(self._params, self._arg_types))
        return f"<ConcreteFunction ({params}) -> {self._output_description()} at 0x{id(self):X}>"

    # -- execution ----------------------------------------------------------------------------------
    def _compile(self):
        if self._compiled is None:
            g = self.graph
            from ..optimize.pipeline import lower
            # (jit_compile lowers the optimised graph again: the optimiser's own copy, never the traced one)
            graph, inputs, outputs, self._compiled = lower(g, name=self._name, wrap=EagerTensor, as_is=not self._jit)
            self._optimized_graph = graph
            blas_threads.limit(self._compiled, graph.get_operations(), inputs)
            self._capture_values = [_capture_value(v) for v in g.external_captures]
            if self._jit:  # jit_compile=True: the same graph, tiered onto onnxruntime (rivulet.jit)
                self._jit_function = _JIT_WRAP[0](self._compiled, self._name, graph, inputs, outputs,
                                              g.external_captures, len(g.arg_placeholders))
        return self._compiled

    def _call_flat(self, tensors):
        """Runs the graph on flat argument tensors (captures are added here); returns flat EagerTensors."""
        cg = self._compiled or self._compile()
        st = context.state
        if st.tapes and not st.stop_recording:
            # A tape is recording: replay the graph op by op so the tape sees every step (variable
            # reads included) and can differentiate through the call. Python is not re-run.
            from ..execute.replay import replay
            g = self.graph
            return replay(g, g.arg_placeholders + g.internal_captures, g.outputs, list(tensors) +
                          g.external_captures)
        return context.run_quiet(cg.fn, *[_arg_value(t) for t in tensors], *self._capture_values)

    def _prepare_fast(self, args):
        """Generates the cached-call entry for one argument layout: tensors' arrays straight into the graph."""
        cg = self._compiled or self._compile()
        caps = [f"c{i}" for i in range(len(self._capture_values))]
        # Tensors give their arrays; a variable argument feeds its resource input with itself.
        call_args = [f"args[{i}]._v" if a.__class__ is EagerTensor else f"args[{i}]._res"
                     for i, a in enumerate(args)
                     if a.__class__ is EagerTensor or getattr(a, "_is_resource", False)] + caps
        # The graph runs in the shared quiet context (NumPy's NaN/inf warnings off, as TensorFlow is silent).
        # Entering it fails, before anything ran, only while another thread (or this one, further up) is
        # inside it: then the thread's own quiet context serves.
        a = ", ".join(call_args)
        jf = getattr(self, "_jit_function", None)
        if jf is not None:  # jit_compile=True: the arguments alone (the tier holds the captures; see rivulet.jit)
            src = f"def fast(args):\n    return call({', '.join(call_args[:len(call_args) - len(caps)])})\n"
            ns = {"call": jf.call_args}
            exec(compile(src, f"<rivulet-call {self._name}>", "exec"), ns)
            self._fast_call = ns["fast"]
            return
        src = (f"def fast(args):\n    try:\n        return _sq(fn, {a})\n    except RuntimeError as e:\n"
               f"        if 'already entered' not in str(e):\n            raise\n    return _rq(fn, {a})\n")
        ns = {"fn": cg.fn, "_sq": context.shared_quiet, "_rq": context.run_quiet}
        ns.update(zip(caps, self._capture_values))
        exec(compile(src, f"<rivulet-call {self._name}>", "exec"), ns)
        self._fast_call = ns["fast"]

    def _build_output(self, flat):
        # Every way of calling a ConcreteFunction ends here: the observers' one hook.
        if _call_observers:
            for observe in list(_call_observers):
                observe(self)
        so = self.graph.structured_outputs
        outs = self.graph.outputs
        if len(outs) == 1 and so is outs[0]:
            return flat[0]
        it = iter(flat)
        leaves = [next(it) if isinstance(leaf, Tensor) else _composite_output(leaf, it)
                  if hasattr(leaf, "_to_components") else leaf for leaf in nest.flatten(so)]
        return nest.pack_sequence_as(so, leaves) if nest.is_nested(so) else leaves[0]

    def flat_args(self, args, kwargs):
        """Validates a call against this function's signature; returns the flat tensor arguments.

        As in TensorFlow, a call that does not bind to the structured signature is tried against the flat
        one: the tensor parameters alone (a Python object the function was traced for is left out, it is
        part of the graph), each given a tensor; a tensor of another dtype is then refused when the graph
        would run, with InvalidArgumentError."""
        try:
            return self._structured_args(args, kwargs)
        except TypeError as e:
            flat = self._flat_signature_args(args, kwargs, e)
            if flat is None:
                raise
            return flat

    def _flat_signature_args(self, args, kwargs, error):
        """The flat-signature binding (see flat_args): None where this function has no flat signature (a
        nested or composite tensor parameter), the original error where the shapes do not fit."""
        names, specs = [], []
        for (pname, kind), t in zip(self._params, self._arg_types):
            if isinstance(t, TensorSpec):
                names.append(pname)
                specs.append(t)
            elif isinstance(t, tuple) or _has_tensors(t):  # a container, variable or composite: no flat form
                return None
        sig = f"{self._name}({', '.join(names)})"

        def fail(reason):
            raise TypeError(f"{error}\nFallback to flat signature also failed due to: {sig}{reason}") from None

        if len(args) > len(names):
            fail(f" takes {len(names)} positional arguments, got {len(args)}.")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                fail(f" got an unexpected keyword argument '{k}'." if k not in names else
                     f" got multiple values for argument '{k}'.")
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            fail(f" missing required arguments: {', '.join(missing)}.")
        flat = []
        for i, (n, spec) in enumerate(zip(names, specs)):
            x = values[n]
            if not isinstance(x, Tensor):
                fail(f": expected argument #{i}(zero-based) to be a Tensor; got {type(x).__name__} ({x!r}).")
            if x.dtype != spec.dtype:
                from ..core.op import cpp_dtype_name
                from ..errors import InvalidArgumentError
                op = self._name if self._name.startswith("__inference_") else f"__inference_{self._name}"
                msg = (f"cannot compute {op} as input #{i}(zero-based) was expected to be a "
                       f"{cpp_dtype_name(spec.dtype)} tensor but is a {cpp_dtype_name(x.dtype)} tensor [Op:{op}]")
                err = InvalidArgumentError(None, None, msg[:-1])
                err.message, err.args = msg, (msg,)  # TensorFlow's text: no " name:" suffix here
                raise err
            if not x.shape.is_subtype_of(spec.shape):
                raise error  # the graph was built for this shape (TensorFlow would run it regardless)
            flat.append(x)
        return flat

    def _structured_args(self, args, kwargs):
        if len(args) > len(self._params):
            raise TypeError(f"{self._name}() takes {len(self._params)} positional arguments but {len(args)} "
                            f"were given. Expected signature: {self._signature_text()}")
        values = {}
        for (pname, kind), a in zip(self._params, args):
            values[pname] = a
        for k, v in kwargs.items():
            if k not in {n for n, _ in self._params}:
                raise TypeError(f"{self._name}() got an unexpected keyword argument '{k}'. Expected signature: "
                                f"{self._signature_text()}")
            if k in values:
                raise TypeError(f"{self._name}() got multiple values for argument '{k}'")
            values[k] = v
        flat = []
        for (pname, _), t in zip(self._params, self._arg_types):
            if pname not in values:
                if isinstance(t, Literal) or not _has_tensors(t):
                    continue
                raise TypeError(f"{self._name}() missing required argument '{pname}'. Expected signature: "
                                f"{self._signature_text()}")
            _flatten_checked(values[pname], t, pname, flat, self)
        return flat

    def _signature_text(self):
        return "(" + ", ".join(f"{n}: {describe(t)}" for (n, _), t in zip(self._params, self._arg_types)) + ")"

    def __call__(self, *args, **kwargs):
        flat = self.flat_args(args, kwargs)
        g = context.current_graph()
        if g is not None:
            from ..execute.replay import replay
            outs = replay(self.graph, self.graph.arg_placeholders + self.graph.internal_captures,
                          self.graph.outputs, flat + self.graph.external_captures)
            return self._build_output(outs)
        return self._build_output(self._call_flat(flat))


def _has_tensors(t):
    if isinstance(t, (TensorSpec, VariableSpec)) or hasattr(t, "_flat_arg") or hasattr(t, "_component_specs"):
        return True
    if isinstance(t, tuple):
        return any(_has_tensors(x) for x in (t[3] if t[0] == "namedtuple" else t[1]) if not isinstance(x, str))
    return False


def _flatten_checked(value, t, path, flat, cf):
    if isinstance(t, TensorSpec):
        try:
            x = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=t.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Argument '{path}' of "
                            f"{cf._name} expects {t}.") from None
        if x.dtype != t.dtype or not x.shape.is_subtype_of(t.shape):
            raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast "
                            f"{TensorSpec(x.shape, x.dtype)} to {t}`. Argument '{path}' of {cf._name} "
                            f"expects {t}.")
        flat.append(x)
        return
    if isinstance(t, VariableSpec):
        if not (getattr(value, "_is_resource", False) and value.dtype == t.dtype and
                value.shape.is_subtype_of(t.shape)):
            got = describe(type_of(value)) if not getattr(value, "_is_resource", False) else \
                f"a {value.dtype.name} variable of shape {value.shape}"
            raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' of {cf._name} expects "
                            f"a tf.Variable matching {t}, got {got}.")
        flat.append(getattr(value, "_res", value))  # the variable itself feeds its resource input
        return
    hook = getattr(t, "_flat_arg", None)  # trace types fed by reference (a dataset argument)
    if hook is not None:
        flat.append(hook(value, path))
        return
    comps = getattr(t, "_component_specs", None)
    if comps is not None and hasattr(value, "_to_components"):  # a composite: its component tensors
        if not is_subtype(type_of(value), t):
            raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' of {cf._name} expects "
                            f"{describe(t)}, got {describe(type_of(value))}.")
        for v, s in zip(value._to_components(), comps):
            _flatten_checked(v, s, path, flat, cf)
        return
    # A container must hold exactly what the graph was traced for: a missing or extra dict key or item would
    # shift every later flat argument onto the wrong placeholder.
    # lists, tuples and their subclasses (tagged with the class name, e.g. tf.distribute's PerReplica)
    if isinstance(t, tuple) and t[0] not in ("dict", "namedtuple") and isinstance(value, (list, tuple)):
        if len(value) != len(t[1]):
            raise _structure_error(value, t, path, cf)
        for i, (v, s) in enumerate(zip(value, t[1])):
            _flatten_checked(v, s, f"{path}[{i}]", flat, cf)
        return
    if isinstance(t, tuple) and t[0] == "namedtuple":
        if not isinstance(value, tuple) or len(value) != len(t[3]):
            raise _structure_error(value, t, path, cf)
        for i, (v, s) in enumerate(zip(value, t[3])):
            _flatten_checked(v, s, f"{path}.{t[2][i]}", flat, cf)
        return
    if isinstance(t, tuple) and t[0] == "dict" and isinstance(value, dict):
        if set(value) != {k for k, _ in t[1]}:
            raise _structure_error(value, t, path, cf)
        for k, s in t[1]:
            _flatten_checked(value[k], s, f"{path}[{k!r}]", flat, cf)
        return
    vt = type_of(value)
    if not is_subtype(vt, t):
        raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' of {cf._name} was traced for "
                        f"{describe(t)}, got {describe(vt)}.")


def _structure_error(value, t, path, cf):
    try:
        got = describe(type_of(value))
    except TypeError:  # an unhashable leaf: its type says enough
        got = type(value).__name__
    return TypeError(f"Binding inputs to tf.function failed: argument '{path}' of {cf._name} was traced for "
                     f"{describe(t)}, got {got}.")


def _spec_value(t, name):
    if isinstance(t, TensorSpec):
        return TensorSpec(t.shape, t.dtype, t.name or name)
    if isinstance(t, Literal):
        return t.value
    if isinstance(t, tuple):
        if t[0] in ("list", "tuple"):
            vals = [_spec_value(x, f"{name}_{i}") for i, x in enumerate(t[1])]
            return vals if t[0] == "list" else tuple(vals)
        if t[0] == "dict":
            return {k: _spec_value(x, f"{name}_{k}") for k, x in t[1]}
        if t[0] == "namedtuple":  # the trace type keeps the class's name and fields, not the class
            return tuple(_spec_value(x, f"{name}_{f}") for f, x in zip(t[2], t[3]))
    return t


def _composite_output(leaf, it):
    """A composite output (SparseTensor, RaggedTensor) rebuilt from its next flat component tensors."""
    return leaf.__tf_tracing_type__(None)._from_components([next(it) for _ in leaf._to_components()])


def _out_type(so):
    if isinstance(so, Tensor):
        return TensorSpec(so.shape, so.dtype)
    if hasattr(so, "_to_components"):
        return so.__tf_tracing_type__(None)
    if isinstance(so, tuple) and hasattr(so, "_fields"):
        return ("namedtuple", type(so).__name__, tuple(so._fields), tuple(_out_type(v) for v in so))
    if isinstance(so, (list, tuple)):
        return (type(so).__name__, tuple(_out_type(v) for v in so))
    if isinstance(so, dict):
        return ("dict", tuple((k, _out_type(so[k])) for k in nest._sorted_keys(so)))
    return Literal(so)


def _arg_value(t):
    """What a graph input is fed for a flat argument: a tensor's array, or a variable itself."""
    return t if getattr(t, "_is_resource", False) else t._v


def _capture_value(v):
    if isinstance(v, EagerTensor):
        return v._v
    return v  # resources (variables) are passed as themselves


class AtomicFunction:
    """ConcreteFunction.inference_fn: the forward graph, called with all of its parameters (Python ones too)."""

    def __init__(self, cf):
        self._cf = cf
        self.graph, self.function_type = cf.graph, cf.function_type
        self.name = f"__inference_{cf.name}".encode()

    def __call__(self, *args, **kwargs):
        names = [n for n, _ in self._cf._params]
        for n in names[len(args):]:
            if n not in kwargs:
                raise TypeError(f"missing a required argument: '{n}'")
        return self._cf(*args, **kwargs)

    def call_flat(self, *tensors):
        return self._cf._call_flat(list(tensors))

    def __repr__(self):
        return f"<AtomicFunction> {self.name.decode()}{self.function_type!r}"


class FunctionType:
    """The signature of a ConcreteFunction: parameters with their trace types, and the output type."""

    def __init__(self, cf):
        self._cf = cf
        self.parameters = {n: t for (n, _), t in zip(cf._params, cf._arg_types)}
        self.output = _out_type(cf.graph.structured_outputs)

    def __repr__(self):
        return f"{self._cf._signature_text()} -> {describe(self.output)}"

    __str__ = __repr__


def signature_output_names(graph):
    """The output names a signature gives a traced graph's outputs: the keys of a dict of tensors (each output
    named by its key); else output_0, output_1 ... (exporters name their outputs so)."""
    so = graph.structured_outputs
    if isinstance(so, dict) and all(isinstance(k, str) for k in so) and all(isinstance(v, Tensor) for v in so.values()):
        index = {id(t): i for i, t in enumerate(graph.outputs)}
        names = [None] * len(graph.outputs)
        for k in sorted(so):
            if id(so[k]) in index:
                names[index[id(so[k])]] = k
        if None not in names:
            return names
    return [f"output_{i}" for i in range(len([x for x in nest.flatten(so) if isinstance(x, Tensor)]))]
