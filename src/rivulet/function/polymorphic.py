"""tf.function: a PolymorphicFunction traces its Python function once per input signature and keeps one
ConcreteFunction per signature in a bounded LRU cache.

Hot path: a call whose arguments are all eager tensors or Python scalars builds a flat key of
(numpy dtype, shape) / value and finds the compiled function in one dict lookup. Everything else (kwargs,
nested structures, input_signature, reduce_retracing) takes the general path through trace types.
"""
import collections
import functools
import gc
import inspect
import logging
import sys
import threading
import weakref

from .. import nest
from ..core import context
from ..core.tensor import EagerTensor, Tensor
from ..graph.graph import frame_cache
from ..shape import TensorSpec
from .concrete import ConcreteFunction
from .trace_type import (Literal, describe, explain_change, generalize, is_composite_spec, is_subtype, type_of)
from .tracing import FuncGraph, finalize_outputs, placeholders_for

try:
    from ..state.variables import ResourceVariable as _Var  # variables take the fast path too
except ImportError:  # the state layer is optional for tracing plain tensor code
    _Var = None
logger = logging.getLogger("rivulet")
DEFAULT_CACHE_SIZE = 128
_FAST_SCALARS = (int, float, bool, str, type(None))
_SLOW = context.SLOW
_state = context.state
_eager_flag = context._run_functions_eagerly
_FREQUENT = 5


class PolymorphicFunction:
    """What `tf.function` returns: a callable that dispatches to traced ConcreteFunctions."""

    def __init__(self, python_function, name=None, input_signature=None, autograph=True,
                 reduce_retracing=False, jit_compile=None, cache_size=None):
        if not callable(python_function):
            raise TypeError(f"tf.function expects a callable, got {python_function!r}")
        self._python_function = python_function
        fn_for_sig = python_function
        if not (inspect.isfunction(python_function) or inspect.ismethod(python_function)) and \
                hasattr(python_function, "__call__") and not inspect.isbuiltin(python_function):
            fn_for_sig = python_function.__call__
        self._name = name or getattr(python_function, "__name__", type(python_function).__name__)
        try:
            self._sig = inspect.signature(fn_for_sig)
        except (TypeError, ValueError):
            self._sig = None
        self._has_var_positional = self._sig is not None and any(
            p.kind == inspect.Parameter.VAR_POSITIONAL for p in self._sig.parameters.values())
        self._autograph = autograph
        self._converted = None
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._input_signature = self._signature_types = None
        if input_signature is not None:
            if not isinstance(input_signature, (tuple, list)):
                raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
            self._input_signature = tuple(input_signature)  # the user's specs, as TensorFlow shows them
            self._signature_types = tuple(_check_spec(s) for s in input_signature)  # what calls bind to
        self._cache = collections.OrderedDict()  # trace types -> ConcreteFunction (LRU order)
        self._inline_specs = {}  # calls traced inline into another function's graph, not traced here yet
        self._fast = {}  # flat fast key -> ConcreteFunction
        self.cache_size = cache_size or DEFAULT_CACHE_SIZE
        self._lock = threading.RLock()
        self._trace_count = 0
        self._recent = _TraceHistory()
        self._hits = 0  # cached calls since the last trace (folded into _recent when the next trace happens)
        self._bound = weakref.WeakKeyDictionary()
        self._created_variables = False
        # Keras' step functions trace every tensor argument with its leading (batch) dimension unknown, as
        # TensorFlow's fit does (its batches come from a dataset whose batch dimension is None): one graph
        # serves all batch sizes.
        self._unknown_batch = False
        functools.update_wrapper(self, python_function, updated=())

    # -- public API -------------------------------------------------------------------------------------
    python_function = property(lambda self: self._python_function)
    input_signature = property(lambda self: self._input_signature)
    function_spec = property(lambda self: self._sig)

    def experimental_get_tracing_count(self):
        return self._trace_count

    def clear_cache(self):
        with self._lock:
            self._cache.clear()
            self._fast = {}

    def set_cache_size(self, n):
        if n < 1:
            raise ValueError(f"cache size must be >= 1, got {n}")
        with self._lock:
            self.cache_size = n
            self._evict()

    def get_concrete_function(self, *args, **kwargs):
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        with self._lock:
            params, types, values = self._types(args, kwargs, for_specs=True)
            cf = self._lookup(types)
            if cf is None:
                cf = self._trace(params, types, values)
            return cf

    def pretty_printed_concrete_signatures(self, verbose=True):
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._cache.values())

    def _list_all_concrete_functions(self):
        pending, self._inline_specs = self._inline_specs, {}
        for args, kwargs in pending.values():
            try:
                self.get_concrete_function(*args, **kwargs)
            except Exception:  # a call that only traces inside its caller's graph: nothing to save for it
                pass
        return list(self._cache.values())

    def _note_inline_call(self, args, kwargs):
        """Keeps the specs of a call traced inline (tensors as TensorSpecs, Python scalars and strings as they
        are); other arguments (variables, objects) make the call one that is not kept."""
        if len(self._inline_specs) >= self.cache_size:
            return

        def spec(v):
            if isinstance(v, Tensor):
                return TensorSpec(v.shape, v.dtype)
            if v is None or isinstance(v, (bool, int, float, str)):
                return v
            raise TypeError
        try:
            args, kwargs = nest.map_structure(spec, (tuple(args), dict(kwargs)))
            key = repr((args, sorted(kwargs.items())))
        except (TypeError, ValueError):
            return
        self._inline_specs.setdefault(key, (args, kwargs))

    def __repr__(self):
        return f"<rivulet.function.PolymorphicFunction {self._name} at 0x{id(self):x}>"

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            return self._bound[instance]
        except (KeyError, TypeError):
            pass
        bound = PolymorphicFunction(self._python_function.__get__(instance, owner), self._name,
                                    self._input_signature, self._autograph, self._reduce_retracing,
                                    self._jit_compile, self.cache_size)
        try:
            self._bound[instance] = bound
        except TypeError:
            pass
        return bound

    # -- calling -------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _eager_flag[0]:
            return self._python_function(*args, **kwargs)
        if not _SLOW[0] and not kwargs and _call_device.name is None:
            key = []
            for a in args:
                c = a.__class__
                if c is EagerTensor:
                    v = a._v
                    key.append((v.dtype, v.shape))
                elif c in _FAST_SCALARS:
                    key.append((c is str, a))
                elif c is _Var:
                    key.append(_variable_key(a, args))
                else:
                    break
            else:
                cf = self._fast.get(tuple(key))
                if cf is not None:
                    self._hits += 1
                    return cf._build_output(cf._fast_call(args))
        try:
            return self._call_slow(args, kwargs)
        except Exception as e:
            if getattr(e, "_rivulet_noted", False):  # a tracing error: show the user's frames only
                raise user_facing(e, self._name) from e.__cause__
            raise

    def _call_slow(self, args, kwargs):
        g = context.current_graph()
        if g is not None:
            # Called while another function is being traced: trace inline into that graph. The call's specs are
            # kept, so that saving gives this function the concrete function TensorFlow's cache would hold
            # (a tf.Module's __call__ traced only through a signature that calls it).
            self._note_inline_call(args, kwargs)
            return self._python_to_run()(*args, **kwargs)
        with self._lock:
            params, types, values = self._types(args, kwargs)
            device = _call_device.name
            if device is not None:  # a replica of a tf.distribute strategy: a trace of its own
                types = types + (_Device(device),)
            cf = self._lookup(types)
            traced = cf is None
            if traced:
                cf = self._trace(params, types, values)
            if traced:
                self._recent.traced(self._hits)
                self._hits = 0
                self._warn_if_frequent()
            else:
                self._hits += 1
            fast_key = (_fast_key(args) if not kwargs and self._input_signature is None and device is None
                        else None)
            if fast_key is not None and _fast_key_matches(cf, args):
                self._fast[fast_key] = cf
                cf._prepare_fast(args)
        flat = cf.flat_args(tuple(values[n] for n, _ in params if _kind(params, n) != inspect.Parameter.KEYWORD_ONLY),
                            {n: values[n] for n, k in params if k == inspect.Parameter.KEYWORD_ONLY})
        return cf._build_output(cf._call_flat(flat))

    def _python_to_run(self):
        if self._autograph and self._converted is None:
            self._converted = _AUTOGRAPH[0](self._python_function) if _AUTOGRAPH else self._python_function
        return self._converted if self._autograph else self._python_function

    # -- signatures ------------------------------------------------------------------------------------
    def _types(self, args, kwargs, for_specs=False):
        """Binds the call to parameters; returns ([(name, kind)], trace types, {name: value})."""
        if self._sig is None:
            raise TypeError(f"Cannot inspect the signature of {self._python_function!r}")
        if self._input_signature is not None:
            return self._bind_input_signature(args, kwargs)
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. Received args: {args!r} and "
                            f"kwargs: {kwargs!r} for signature: {self._sig}.") from None
        bound.apply_defaults()
        params, types, values = [], [], {}
        extra_names = None
        aliases = {}  # variables met so far in this call: their alias ids
        for name, value in bound.arguments.items():
            kind = self._sig.parameters[name].kind
            if kind == inspect.Parameter.VAR_POSITIONAL:
                for i, v in enumerate(value):
                    n = f"{name}_{i}"
                    params.append((n, inspect.Parameter.POSITIONAL_ONLY))
                    types.append(type_of(v, aliases))
                    values[n] = v
                continue
            if kind == inspect.Parameter.VAR_KEYWORD:
                for k in sorted(value):  # keyword order does not matter, as in TensorFlow
                    params.append((k, inspect.Parameter.KEYWORD_ONLY))
                    types.append(type_of(value[k], aliases))
                    values[k] = value[k]
                extra_names = _KeywordNames(tuple(sorted(value)))
                continue
            # (before a *args, TensorFlow's signature makes every positional parameter positional-only)
            params.append((name, inspect.Parameter.POSITIONAL_ONLY if kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
                           and self._has_var_positional else kind))
            types.append(type_of(value, aliases))
            values[name] = value
        if extra_names is not None:
            # **kwargs' names select a graph too: f(x, a=1) and f(x, b=1) are different calls. The extra
            # entry has no parameter of its own (zips over the parameters stop before it).
            types.append(extra_names)
        types = tuple(types)
        if self._unknown_batch:
            types = tuple(_unknown_batch(t) for t in types)
        if self._reduce_retracing and not for_specs:
            types = self._relaxed(types)
        return params, types, values

    def _bind_input_signature(self, args, kwargs):
        names = [n for n, p in self._sig.parameters.items()
                 if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        specs = self._signature_types
        var = [n for n, p in self._sig.parameters.items() if p.kind == inspect.Parameter.VAR_POSITIONAL]
        if var and len(specs) > len(names):
            names += [f"{var[0]}_{i}" for i in range(len(specs) - len(names))]
        defaults = {n: p.default for n, p in self._sig.parameters.items() if p.default is not inspect.Parameter.empty}
        sig_text = "(" + ", ".join(f"{n}: {describe(s)}" + (" = <captured_default_value>" if n in defaults else "")
                                   for n, s in zip(names, specs)) + ")"
        if len(args) > len(specs):
            raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. "
                            f"Received args: {args!r} and kwargs: {kwargs!r} for signature: {sig_text}.")
        values = dict(zip(names, args))
        unexpected = [k for k in kwargs if k not in names[:len(specs)]]
        values.update((k, v) for k, v in kwargs.items() if k not in unexpected)
        for n in names[:len(specs)]:  # as Python binds: a missing argument is named first
            if n not in values and n in defaults:  # a default is passed as given, conformed to its spec
                values[n] = defaults[n]
            if n not in values:
                raise TypeError(f"Binding inputs to tf.function failed due to `missing a required argument: "
                                f"'{n}'`. Received args: {args!r} and kwargs: {kwargs!r} for signature: "
                                f"{sig_text}.")
        if unexpected:
            raise TypeError(f"Binding inputs to tf.function failed due to `got an unexpected keyword "
                            f"argument '{unexpected[0]}'`. Received args: {args!r} and kwargs: {kwargs!r} for "
                            f"signature: {sig_text}.")
        params, types = [], []
        for n, spec in zip(names, specs):
            v = values[n]
            leaves = nest.flatten(v)
            if leaves and all(isinstance(x, TensorSpec) or is_composite_spec(x) for x in leaves):
                # specs (get_concrete_function(), which passes the signature itself): they must fit it
                if not is_subtype(type_of(v), spec):
                    raise TypeError(f"Binding inputs to tf.function failed due to `{describe(type_of(v))} is "
                                    f"not compatible with {describe(spec)}`. Received args: {args!r} and "
                                    f"kwargs: {kwargs!r} for signature: {sig_text}.")
            else:
                from .concrete import _flatten_checked
                holder = []
                try:
                    _flatten_checked(v, spec, n, holder, _Named(self._name))
                except TypeError as e:
                    reason = str(e).split("`")[1] if "`" in str(e) else str(e)
                    raise TypeError(f"Binding inputs to tf.function failed due to `{reason}`. Received args: "
                                    f"{args!r} and kwargs: {kwargs!r} for signature: {sig_text}.") from None
                values[n] = holder[0] if len(holder) == 1 and isinstance(spec, TensorSpec) else v
            params.append((n, inspect.Parameter.POSITIONAL_ONLY if var else inspect.Parameter.POSITIONAL_OR_KEYWORD))
            types.append(spec)
        return params, tuple(types), values

    def _relaxed(self, types):
        """reduce_retracing: widen dims (then rank) that differ from an existing trace with the same structure."""
        for old in reversed(self._cache):
            if len(old) != len(types) or all(is_subtype(t, o) for t, o in zip(types, old)):
                continue
            merged = tuple(generalize(o, t) for o, t in zip(old, types))
            if all(m is not None for m in merged):
                return merged
        return types

    def _lookup(self, types):
        cf = self._cache.get(types)
        if cf is not None:
            self._cache.move_to_end(types)
            return cf
        best = None
        for k, c in self._cache.items():
            if len(k) == len(types) and all(is_subtype(t, s) for t, s in zip(types, k)):
                if best is None or all(is_subtype(a, b) for a, b in zip(k, best[0])):
                    best = (k, c)
        if best is not None:
            self._cache.move_to_end(best[0])
            return best[1]
        return None

    # -- tracing ---------------------------------------------------------------------------------------
    def _trace(self, params, types, values):
        # Tracing allocates thousands of small objects, none of them garbage: pausing the cyclic collector
        # keeps it from rescanning them again and again (about a third of a large trace's time).
        paused = gc.isenabled()
        gc.disable()
        try:
            with frame_cache():  # each op's user frame found without walking the whole stack (graph.py)
                return self._trace_unpaused(params, types, values)
        finally:
            if paused:
                gc.enable()

    def _trace_unpaused(self, params, types, values):
        if self._trace_count and self._cache:
            self._explain_retrace(types)
        first = not self._trace_count
        g = self._trace_graph(params, types, values, first)
        self._trace_count += 1
        if first and self._created_variables:
            # As TensorFlow: a first trace that created variables is traced again with creation forbidden,
            # so a function that creates a variable on every call fails now, on its first call. The second
            # graph is the one kept (the first may hold the variables' initialisation).
            g = self._trace_graph(params, types, values, False)
            self._trace_count += 1
        # The cache key may end in the **kwargs names; the function's own types are its parameters'.
        cf = ConcreteFunction(g, params, types[:len(params)], self._name, self._python_function)
        cf._jit = self._jit_compile if self._jit_compile is not None else _config_jit()
        cf._compile()  # optimise and compile while the collector is paused
        self._cache[types] = cf
        self._evict()
        return cf

    def _trace_graph(self, params, types, values, allow_variables):
        """Runs the Python function once on placeholders; returns its FuncGraph with outputs set."""
        fn = self._python_to_run()
        g = FuncGraph(self._name)
        try:
            from ..state.creation import function_variable_scope
        except ImportError:  # the state layer is optional for tracing plain tensor code
            function_variable_scope = _no_scope
        with g.as_default():
            args, kwargs = [], {}
            for (name, kind), t in zip(params, types):
                v = placeholders_for(g, values[name], t, name)
                if kind == inspect.Parameter.KEYWORD_ONLY:
                    kwargs[name] = v
                else:
                    args.append(v)
            with function_variable_scope(self, allow_variables):
                try:
                    result = fn(*args, **kwargs)
                except Exception as e:
                    raise user_facing(e, self._name) from e.__cause__
                finally:
                    g.end_trace()  # the first call's values are not kept alive by its graph
        return finalize_outputs(g, result)

    def _evict(self):
        evicted = False
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
            evicted = True
        if evicted:
            self._fast = {}

    def _explain_retrace(self, types):
        old = next(reversed(self._cache))
        names = [n for n, _ in self._cache[old]._params]
        reasons = []
        devices = [t[-1] if t and isinstance(t[-1], _Device) else None for t in (old, types)]
        old, types = [t[:-1] if d is not None else t for t, d in zip((old, types), devices)]
        for i, (o, n) in enumerate(zip(old, types)):
            if isinstance(o, _KeywordNames) or isinstance(n, _KeywordNames):
                if o != n and isinstance(o, _KeywordNames) and isinstance(n, _KeywordNames):
                    reasons.append(f"keyword arguments {o!r} -> {n!r}")
            elif o != n and not is_subtype(n, o):
                reasons.append(explain_change(o, n, names[i] if i < len(names) else f"arg {i}"))
        if len(old) != len(types):
            reasons.append(f"number of arguments {len(old)} -> {len(types)}")
        if devices[0] != devices[1]:
            reasons.append(f"the calling replica's device {devices[0]!r} -> {devices[1]!r}")
        frame = _caller_frame()
        where = f" (called from {frame[0]}:{frame[1]})" if frame else ""
        # With reduce_retracing the retrace is the widening the user asked for: say so quietly. Once the
        # frequent-retracing warning has fired, a retrace in a loop is no news: every explanation still goes
        # to the logger at INFO, and one in _RETRACE_EVERY is a warning.
        level = logging.INFO if self._reduce_retracing else logging.WARNING
        note = ""
        h = self._recent
        if h.warnings and level == logging.WARNING:
            h.quiet += 1
            if h.quiet < _RETRACE_EVERY:
                level = logging.INFO
            else:
                note = (f" ({h.quiet - 1} retraces since the last such warning were logged at INFO; retrace "
                        f"warnings of this function repeat once per {_RETRACE_EVERY} traces)")
                h.quiet = 0
        logger.log(level, "tf.function '%s' is retracing (trace #%d)%s because %s.%s", self._name,
                   self._trace_count + 1, where, "; ".join(reasons) or "no cached graph accepts the inputs", note)

    def _warn_if_frequent(self):
        h = self._recent
        traces = len(h.groups)
        if traces >= _FREQUENT and h.warnings < _MAX_WARNINGS:
            h.warnings += 1
            calls = h.calls
            logger.warning(
                "%d out of the last %d calls to %r triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, "
                "(2) passing tensors with different shapes, (3) passing Python objects instead of tensors. For "
                "(1), please define your @tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
                "the tf.function guide's section on controlling retracing.", traces, calls, self._python_function)


_MAX_WARNINGS = 2  # frequent-retracing warnings per function, as in TensorFlow
# After a frequent-retracing warning, per-retrace warnings are said once per this many traces (the others are
# logged at INFO).
_RETRACE_EVERY = 50
_HISTORY = 10  # calls the frequent-retracing warning looks back over


class _TraceHistory:
    """The recent calls, grouped: each trace starts a group, calls served from the cache join the latest
    one. Whole groups are forgotten from the oldest while the rest still spans more than _HISTORY calls
    (TensorFlow's accounting, so "N out of the last M calls" reads the same)."""
    __slots__ = ("groups", "calls", "warnings", "quiet")

    def __init__(self):
        self.groups = collections.deque()
        self.calls = 0
        self.warnings = 0
        self.quiet = 0  # retraces logged at INFO since the last retrace warning

    def traced(self, hits):
        """A trace, after `hits` calls served from the cache since the previous one."""
        if hits and self.groups:
            self.groups[-1] += hits
            self.calls += hits
        self.groups.append(1)
        self.calls += 1
        while self.groups and self.calls - self.groups[0] > _HISTORY:
            self.calls -= self.groups.popleft()


class _CallDevice(threading.local):
    name = None


# The device of the strategy replica the calling thread runs (None: not a replica of a multi-replica
# strategy). Part of the trace key, as TensorFlow's function cache keys on the device: a tf.function that
# each replica calls is traced once per replica, with that replica's id, variables and random streams.
_call_device = _CallDevice()


def set_call_device(name):
    """Called by tf.distribute in a replica's thread; returns the previous device (to restore)."""
    old, _call_device.name = _call_device.name, name
    return old


class _Device(Literal):
    """The calling replica's device: part of the trace key."""
    __slots__ = ()

    def __repr__(self):
        return repr(self.value)


class _KeywordNames(Literal):
    """The names a **kwargs parameter received (sorted): part of the trace key."""
    __slots__ = ()

    def __repr__(self):
        return "(" + ", ".join(self.value) + ")"


class _no_scope:
    def __init__(self, fn, allow):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Named:
    def __init__(self, name):
        self._name = name


def _unknown_batch(t):
    if isinstance(t, TensorSpec):
        if t.shape.rank:
            return TensorSpec([None] + t.shape.as_list()[1:], t.dtype, t.name)
        return t
    if isinstance(t, tuple) and t and t[0] in ("list", "tuple"):
        return (t[0], tuple(_unknown_batch(x) for x in t[1]))
    if isinstance(t, tuple) and t and t[0] == "dict":
        return ("dict", tuple((k, _unknown_batch(x)) for k, x in t[1]))
    return t


def _kind(params, name):
    for n, k in params:
        if n == name:
            return k
    return None


def _fast_key(args):
    key = []
    for a in args:
        c = a.__class__
        if c is EagerTensor:
            key.append((a._v.dtype, a._v.shape))
        elif c in _FAST_SCALARS:
            key.append((c is str, a))
        elif c is _Var:
            key.append(_variable_key(a, args))
        else:
            return None
    return tuple(key)


def _variable_key(v, args):
    """A variable's part of the fast key: its spec, and the first argument passing the same variable (the
    aliasing the trace key holds)."""
    r = v._res
    for i, x in enumerate(args):
        if x.__class__ is _Var and x._res is r:
            return v._dtype, v._shape, v._trainable, i


def _fast_key_matches(cf, args):
    """The fast path passes positional args straight through: only when each maps to one parameter."""
    return len(args) == len(cf._params) and all(
        k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) for _, k in cf._params)


def user_facing(exc, fname):
    """Drops rivulet's own frames from a tracing error's traceback and notes the user's line, so the error
    reads as coming from the user's code (TensorFlow filters its tracebacks the same way)."""
    tb, kept = exc.__traceback__, []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PKG):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    if kept:
        kept[-1].tb_next = None
        last = kept[-1]
        code = last.tb_frame.f_code
        if not getattr(exc, "_rivulet_noted", False):
            exc.add_note(f"(raised while tracing tf.function '{fname}', in user code:\n"
                         f'  File "{code.co_filename}", line {last.tb_lineno}, in {code.co_name})')
            exc._rivulet_noted = True
        return exc.with_traceback(kept[0])
    return exc


def _check_spec(s):
    """One input_signature entry -> its trace type (dicts in tf.nest's sorted-key order, as type_of)."""
    if isinstance(s, TensorSpec) or is_composite_spec(s):
        return s
    if isinstance(s, dict):
        return ("dict", tuple((k, _check_spec(s[k])) for k in nest._sorted_keys(s)))
    if nest._is_namedtuple(s):
        return ("namedtuple", type(s).__name__, tuple(s._fields), tuple(_check_spec(x) for x in s))
    if isinstance(s, (list, tuple)):
        return (type(s).__name__, tuple(_check_spec(x) for x in s))
    raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got {s!r}")


_PKG = __file__.rsplit("/", 2)[0]


def _caller_frame():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else None


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None,
             experimental_attributes=None, experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, name=None):
    """tf.function, as a decorator (with or without arguments) or a call."""
    relax = reduce_retracing or bool(experimental_relax_shapes)

    def wrap(f):
        return PolymorphicFunction(f, name=name, input_signature=input_signature, autograph=autograph,
                                   reduce_retracing=relax, jit_compile=jit_compile)
    if func is None:
        return wrap
    return wrap(func)


Function = PolymorphicFunction


# AutoGraph's converter, given by the face (rivulet/__init__.py), which loads autograph/ on first use
_AUTOGRAPH = []


def register_autograph(convert):
    _AUTOGRAPH[:] = [convert]


_JIT_DEFAULT = [""]  # tf.config.optimizer.set_jit: "autoclustering" compiles functions not saying jit_compile=False


def set_jit_default(mode):
    _JIT_DEFAULT[0] = mode


def get_jit_default():
    return _JIT_DEFAULT[0]


def _config_jit():
    return _JIT_DEFAULT[0] != ""
