"""tf.GradientTape: records the ops that touch watched tensors, then runs them backwards.

bind() calls `_record` on every recording tape after each op. A tape keeps only ops of the graph it
was opened in (None: eager) that have a watched input; their floating outputs become watched in turn.
Tensors are watched by identity; a variable is watched as itself (the resource input of its reads).
"""
import contextlib

import numpy as np

from ..core import context
from ..core.tensor import EagerTensor as _E, Tensor, convert_to_tensor
from ..ops import script_ops
from .. import dtypes as _dtypes
from .. import nest
from ..state.resource_ops import READ
from ..state.variables import Variable
from .backprop import UnconnectedGradients, backprop, tape_no_grad_message, unconnected_mode

_USED = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
_warned = {"persistent": 0, "dtype": 0}


# Whether an eager output of this NumPy dtype is watched in turn (its DType floating, complex or variant).
_TRACKED = {np_dtype: dt._kind in "fcv" for np_dtype, dt in _dtypes._BY_NP.items()}


class _Record:
    """An eager op as recorded: the `op` a gradient function receives (.inputs, .outputs, .attrs)."""
    __slots__ = ("opdef", "inputs", "outputs", "attrs")
    graph = None

    def __init__(self, opdef, inputs, outputs, attrs):
        self.opdef, self.inputs, self.outputs, self.attrs = opdef, inputs, outputs, attrs

    type = name = property(lambda self: self.opdef.name)

    def get_attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.") from None


class GradientTape:
    """Records operations for automatic differentiation (tf.GradientTape)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._recording = False
        self._records = None  # None: never entered, or spent (non-persistent, after one gradient)
        self._watched = {}  # id -> tensor or variable; holding them keeps the ids unique
        self._variables = {}  # id -> watched variable, in watch order
        self._graph = None

    # -- recording -------------------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, typ, value, tb):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        if self._records is None:
            self._records = []
            self._watched, self._variables = {}, {}
        self._graph = context.current_graph()
        context.push_tape(self)
        self._recording = True

    def _pop(self):
        context.pop_tape(self)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside are not recorded on this tape."""
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forgets everything recorded so far (and what was watched); keeps recording if it was."""
        recording = self._recording
        if recording:
            self._pop()
        self._records = None
        if recording:
            self._push()

    def watch(self, tensor):
        """Watches tensors (floating ones) and variables: gradients can then be taken with respect to them."""
        for t in ((tensor,) if tensor.__class__ is _E else nest.flatten(tensor, expand_composites=True)):
            if isinstance(t, Variable):
                self._watch_variable(t._res)
            elif isinstance(t, Tensor):
                dt = t.dtype
                if not (dt.is_floating or dt.is_complex or dt._kind == "v"):
                    _warn("dtype", 5, f"The dtype of the watched tensor must be floating (e.g. tf.float32), got "
                                      f"{dt!r}")
                    continue
                t = self._local(t)
                self._watched[id(t)] = t
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")

    def _watch_variable(self, var):
        self._variables[id(var)] = var
        key = self._key(var)
        self._watched[id(key)] = key

    def _local(self, t):
        """A tensor of a graph enclosing this tape's (a tape inside a loop body watching the function's input),
        as the tape's graph sees it: its capture there, which the body's ops read."""
        g = self._graph
        if g is not None and isinstance(t, _E):  # a value the function closes over: its capture, which the
            return g.capture(t)                  # ops reading it read
        src = getattr(getattr(t, "_op", None), "graph", None)
        if g is None or src is None or src is g:
            return t
        return g.capture(t) if g.encloses(src) else t

    def _key(self, var):
        """What a variable's reads take as input here: the variable, or its placeholder in the tape's graph."""
        return var if self._graph is None else self._graph.capture(var)

    def watched_variables(self):
        return tuple(self._variables.values())

    def _record(self, op, inputs, attrs, outs, graph):
        if graph is not self._graph or not outs:
            return
        if self._watch_accessed_variables:
            # Any op given a trainable variable's resource accesses it: a read, and also a control-flow
            # op whose branches or body read it inside their sub-graphs.
            for var in inputs:
                if var.__class__ is not _E and getattr(var, "_is_resource", False) and \
                        getattr(var, "trainable", False) and id(var) not in self._variables:
                    self._watch_variable(var)
        w = self._watched
        ins = inputs if graph is None else outs[0].op.inputs
        for t in ins:
            if id(t) in w:
                break
        else:
            return
        if graph is None:
            self._records.append(_Record(op, ins, outs, attrs))
            for o in outs:
                if _TRACKED[o._v.dtype]:  # o.dtype's kind, from the NumPy dtype without making the DType
                    w[id(o)] = o
            return
        self._records.append(outs[0].op)
        for o in outs:
            if o.dtype._kind in "fcv":  # variant: a TensorList, whose gradient is a list of its items' ones
                w[id(o)] = o

    # -- differentiation ---------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources), shaped like `sources`; `output_gradients` weight the targets."""
        records = self._take()
        mode = unconnected_mode(unconnected_gradients)
        targets = nest.flatten(target)
        seeds = [None] * len(targets) if output_gradients is None else nest.flatten(output_gradients)
        if len(seeds) != len(targets):
            raise ValueError(f"Got {len(seeds)} output_gradients for {len(targets)} targets")
        flat_sources = nest.flatten(sources)
        grads = self._backprop(records, targets, seeds, flat_sources)
        return nest.pack_sequence_as(sources, _fill(grads, flat_sources, mode))

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """For each source, d(target[i...])/d(source[j...]), of shape target.shape + source.shape."""
        records = self._take()
        mode = unconnected_mode(unconnected_gradients)
        y = convert_to_tensor(target)
        flat_sources = nest.flatten(sources)
        n = _static_size(y, "target")
        rows = [[] for _ in flat_sources]
        for i in range(n):
            seed = np.zeros(n, y.dtype.as_numpy_dtype)
            seed[i] = 1
            for row, g in zip(rows, self._backprop(records, [y], [seed.reshape(y.shape.as_list())], flat_sources)):
                row.append(g)
        out = [_assemble(row, list(y.shape), s, mode, axis=0) for row, s in zip(rows, flat_sources)]
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """d(target[b, i...])/d(source[b, j...]) for each batch row b: shape [B] + target.shape[1:] +
        source.shape[1:]. Rows must not depend on each other, as in TensorFlow."""
        y = convert_to_tensor(target)
        for what, t in (("target", y), ("source", source)):
            rank = getattr(getattr(t, "shape", None), "rank", None)
            if rank is not None and rank < 2:
                raise ValueError(f"batch_jacobian: {what} shape {t.shape} must have rank at least 2 "
                                 f"([batch, ...])")
        records = self._take()
        mode = unconnected_mode(unconnected_gradients)
        if y.shape.rank is None or y.shape.rank < 1:
            raise ValueError(f"Need first dimension of target shape ({y.shape}) and source shape to match.")
        _static_size(y, "target")
        batch, inner = y.shape[0], y.shape[1:].as_list()
        m = int(np.prod(inner))
        row = []
        for j in range(m):
            seed = np.zeros((batch, m), y.dtype.as_numpy_dtype)
            seed[:, j] = 1
            row.append(self._backprop(records, [y], [seed.reshape([batch] + inner)], [source])[0])
        return _assemble(row, [batch] + inner, source, mode, axis=1)

    def _take(self):
        """The records to differentiate; a non-persistent tape gives them up (and stops recording)."""
        records = self._records
        if records is None:
            raise RuntimeError(_USED)
        if self._recording:
            if not self._persistent:
                self._pop()
            else:
                _warn("persistent", 1, "Calling GradientTape.gradient on a persistent tape inside its context is "
                      "significantly less efficient than calling it outside the context (it causes the gradient "
                      "ops to be recorded on the tape, leading to increased CPU and memory usage). Only call "
                      "GradientTape.gradient inside the context if you actually want to trace the gradient in "
                      "order to compute higher order derivatives.")
        if not self._persistent:
            self._records = None
        return records

    def _backprop(self, records, targets, seeds, sources):
        tgts, keys = [], []
        for i, t in enumerate(targets):
            if isinstance(t, Variable):  # differentiating a variable itself: seed its resource
                if seeds[i] is None:
                    from ..ops.array_ops import ones_like
                    seeds[i] = ones_like(t)
                t = self._key(t._res)
            elif not isinstance(t, Tensor):
                if isinstance(t, (str, bytes)):
                    raise TypeError(f"GradientTape.gradient: target {t!r} is a {type(t).__name__}, not a Tensor "
                                    f"or Variable")
                t = convert_to_tensor(t)
            tgts.append(t)
        seeds = [_ones_like(t) if s is None else convert_to_tensor(s, dtype=t.dtype) for t, s in zip(tgts, seeds)]
        for s in sources:
            if not isinstance(s, (Tensor, Variable)) and hasattr(type(s), "_tf_extension_type_fields"):
                raise ValueError(f"Type {type(s).__name__} is not supported as a gradient source or gradient "
                                 "target.")  # (TensorFlow 2.21's refusal of an ExtensionType source)
            if not isinstance(s, (Tensor, Variable)):
                raise TypeError(f"GradientTape.gradient: sources must be Tensors or Variables; got {s!r} "
                                f"({type(s).__name__})")
            key = self._key(s._res) if isinstance(s, Variable) else self._local(s)
            # a source the tape never watched (nor computed from a watched one) has no gradient, even where a
            # recorded op read it (y = x * w with only w watched: dy/dx is None, as in TensorFlow)
            keys.append(key if id(key) in self._watched else object())
        return backprop(records, tgts, seeds, keys, tape_no_grad_message)


def _ones_like(t):
    from ..ops.array_ops import ones_like
    return ones_like(t)


def _fill(grads, sources, mode):
    if mode is UnconnectedGradients.NONE:
        return grads
    from ..ops.array_ops import zeros_like
    return [zeros_like(s) if g is None else g for g, s in zip(grads, sources)]


def _static_size(y, what):
    n = y.shape.num_elements()
    if n is None:
        raise ValueError(f"The {what} of a jacobian needs a fully known shape here, got {y.shape}")
    return n


def _assemble(row, lead_dims, source, mode, axis):
    """Stacks per-element gradients (None: unconnected) into one tensor of shape lead_dims + source dims."""
    from ..ops.array_ops import reshape, stack, zeros
    src_dims = source.shape.as_list() if axis == 0 else source.shape[1:].as_list()
    if all(g is None for g in row):
        if mode is UnconnectedGradients.NONE:
            return None
        return zeros(lead_dims + src_dims, dtype=source.dtype)
    if any(g is None for g in row):
        from ..ops.array_ops import zeros_like
        like = next(g for g in row if g is not None)
        row = [zeros_like(like) if g is None else g for g in row]
    return reshape(stack(row, axis=axis), lead_dims + src_dims)


def _warn(kind, limit, message):
    """TensorFlow's logging.log_first_n: the first `limit` times only."""
    if _warned[kind] < limit:
        _warned[kind] += 1
        from ..log import get_logger
        get_logger().warning(message)


script_ops.register_tape(GradientTape)  # py_function's gradient differentiates the Python function with a tape
