"""bind(): the single entry point of every op. Eager context -> run the kernel now; graph -> add a node."""
from ..errors import InvalidArgumentError, OpError, with_op_name_suffix
from . import context
from .tensor import EagerTensor, SymbolicTensor
from .. import dtypes as _dt
from numpy import ndarray as _ndarray

_state = context.state
_SLOW = context.SLOW
_from_np = _dt._BY_NP.__getitem__
_E = EagerTensor
EMPTY = {}


def bind(op, inputs, attrs=EMPTY, name=None):
    """Applies `op` to `inputs` (tensors) with `attrs`; returns a tensor, or a list for multi-output ops."""
    if not _SLOW[0]:  # no graph being built, no tape recording, no device placing, in any thread: run it now
        return _run(op, inputs, attrs)
    st = _state
    if st.graphs and not st.init_scope:
        g = st.graphs[-1]
        node = g.create_op(op, inputs, attrs, name)
        if st.device is not None:
            node._device = st.device.graph_string
        outs = node.outputs
    else:
        g = None
        out = _run(op, inputs, attrs)
        outs = [out] if op.num_outputs == 1 else out
        if st.device is not None:
            from ..devices import place
            place(outs, st.device)
    if st.tapes and not st.stop_recording:
        for tape in st.tapes:
            tape._record(op, inputs, attrs, outs, g)
    return outs[0] if op.num_outputs == 1 else outs


def execute(op, inputs, attrs):
    """Runs one op eagerly; returns the list of output EagerTensors."""
    out = _run(op, inputs, attrs)
    return [out] if op.num_outputs == 1 else out


def _run(op, inputs, attrs):
    """Runs one op eagerly: its output EagerTensor, or the list of them for a multi-output op."""
    n = len(inputs)
    if n == 2:  # most ops: unpacked without a loop
        x, y = inputs
        vals = (x._v, y._v) if x.__class__ is _E and y.__class__ is _E else _values(op, inputs)
    elif n == 1:
        x = inputs[0]
        vals = (x._v,) if x.__class__ is _E else _values(op, inputs)
    else:
        vals = _values(op, inputs)
    if op.same or op._allowed_np is not None:
        op.check_values(vals)
    inner = op._quiet_inner
    try:
        if inner is None:
            out = op._kernel(*vals, **attrs) if attrs else op._kernel(*vals)
        else:  # what the quiet kernel itself does (context.run_quiet), without its two calls
            try:
                out = _state.quiet(inner, *vals, **attrs) if attrs else _state.quiet(inner, *vals)
            except RuntimeError as e:  # raised on entry: this thread is inside its quiet context already
                if "already entered" not in str(e):
                    raise
                out = inner(*vals, **attrs)
    except OpError as e:
        if "[Op:" not in e.message:  # TensorFlow's eager errors end with the op's name
            e.message = with_op_name_suffix(f"{e.message} [Op:{op.name}]")
            e.args = (e.message,)
        raise
    except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError, OverflowError) as e:
        raise InvalidArgumentError(eager_error_message(op, inputs, attrs, e)) from None
    if op.num_outputs == 1:
        return _E(out if out.__class__ is _ndarray or hasattr(out, "dtype") else _as_value(out))
    return [_E(o if hasattr(o, "dtype") else _as_value(o)) for o in out]


def _values(op, inputs):
    """The kernel's arguments: eager tensors' values; resources (variables) as themselves, as in graphs."""
    vals = []
    for t in inputs:
        if t.__class__ is _E:
            vals.append(t._v)
        elif getattr(t, "_is_resource", False):
            vals.append(t)
        elif isinstance(t, _E):  # a subclass: tnp's weakly typed tensors (ops/np_behavior.py)
            vals.append(t._v)
        else:
            _not_eager(t, op)
    return vals


def _as_value(x):
    """Object-dtype kernels on 0-d inputs give bare Python objects (bytes): make them 0-d arrays again."""
    import numpy as np
    if isinstance(x, (bytes, str)):
        return np.array(x.encode() if isinstance(x, str) else x, dtype=object)
    return np.asarray(x)


def eager_error_message(op, inputs, attrs, exc):
    """The shape rule explains most failures best (it names shapes); else NumPy's own words."""
    msg = None
    try:
        op.infer(*inputs, **attrs)
    except (ValueError, TypeError) as e:
        msg = str(e)
    except Exception:  # the rule itself could not judge these inputs: fall back to NumPy's message
        msg = None
    if msg is None:
        shapes = ", ".join(str(list(t.shape)) for t in inputs)
        msg = f"{exc} (input shapes: {shapes})" if inputs else str(exc)
    return f"{msg} [Op:{op.name}]"


def _not_eager(t, op):
    if isinstance(t, SymbolicTensor):
        raise TypeError(
            f"An op outside of the function building code is being passed a Graph tensor ({t.name}). It is "
            "possible to have Graph tensors leak out of the function building context by including a "
            "tf.init_scope in your function building code. The graph tensor is out of scope here: return it "
            f"from the function instead. [Op:{op.name}]")
    raise TypeError(f"Op {op.name} expected a Tensor input, got {type(t).__name__}: {t!r}")
