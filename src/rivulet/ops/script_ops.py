"""tf.py_function and tf.numpy_function: ops whose kernel is a Python function, called when the op runs.

Eagerly that is at once; in a tf.function it is each time the compiled graph runs (the op is stateful: never
folded or pruned, run in program order). py_function's function gets and returns eager tensors and is
differentiable (its gradient re-runs the function under a GradientTape); numpy_function's gets and returns
NumPy arrays and has no gradient. A graph holding one cannot be saved (the Python function is not data).
"""
import contextlib
import functools

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import EagerTensor, Tensor, convert_to_tensor
from ..errors import InvalidArgumentError, OpError, OutOfRangeError, UnknownError
from ..shape import TensorShape


@contextlib.contextmanager
def _plain_eager():
    """The Python function runs eagerly, unseen by the caller's tapes and device scope."""
    st = context.state
    saved = st.tapes, st.stop_recording, st.device
    st.tapes, st.stop_recording, st.device = [], 0, None
    try:
        yield
    finally:
        st.tapes, st.stop_recording, st.device = saved


def _call(func, args, token):
    try:
        with _plain_eager():
            return func(*args)
    except OpError:
        raise
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(f"{type(e).__name__}: {e}") from e
    except StopIteration as e:
        raise OutOfRangeError(f"{type(e).__name__}: {e}") from e
    except Exception as e:  # TensorFlow reports any other exception of the function as UnknownError
        raise UnknownError(f"{type(e).__name__}: {e}") from e


def _as_list(ret, n, single):
    if single:
        return [ret]
    if ret is None and n == 0:
        return []
    if not isinstance(ret, (list, tuple)) or len(ret) != n:
        raise InvalidArgumentError(f"The Python function returned {ret!r}, but {n} values were expected")
    return list(ret)


def _out_value(v, dtype, token, i, strict):
    if strict:  # py_function: converted as tf.convert_to_tensor(v, dtype) would
        try:
            t = convert_to_tensor(v, dtype=dtype)
        except (ValueError, TypeError) as e:
            raise InvalidArgumentError(f"{type(e).__name__}: {e}") from None
        return t._v
    a = np.asarray(v, dtype=object) if dtype is _dt.string else np.asarray(v)
    got = _dt.from_numpy(a.dtype) if a.dtype != object else _dt.string
    if got is not dtype:
        raise InvalidArgumentError(f"{i}-th value returned by {token} is {got.name}, but expects {dtype.name}")
    return a


def _py_kernel(*vals, func, tout, single, eager_args, token):
    args = [EagerTensor(v) for v in vals] if eager_args else [
        v.copy() if isinstance(v, np.ndarray) else np.asarray(v) for v in vals]
    ret = _call(func, args, token)
    rets = _as_list(ret, len(tout), single)
    return tuple(_out_value(v, d, token, i, eager_args) for i, (v, d) in enumerate(zip(rets, tout)))


def _py_infer(*inputs, func, tout, single, eager_args, token):
    return [(TensorShape(None), d) for d in tout]


def _py_grad(op, *dys):
    """d(outputs)/d(inputs): the function re-run under a tape, seeded with the output gradients."""
    a = op.attrs
    xs = list(op.inputs)
    wrt = tuple(i for i, x in enumerate(xs) if x.dtype.is_floating or x.dtype.is_complex)
    if not wrt:
        return [None] * len(xs)
    dys = [d if d is not None else _zeros_like(o) for d, o in zip(dys, op.outputs)]
    grads = bind(EAGER_PY_FUNC_GRAD, xs + dys, {"func": a["func"], "single": a["single"], "wrt": wrt,
                                                "n_in": len(xs), "tin": tuple(x.dtype for x in xs)})
    out = [None] * len(xs)
    for i, g in zip(wrt, grads):
        out[i] = g
    return out


def _zeros_like(t):
    from .array_ops import zeros_like
    return zeros_like(t)


_TAPE = []  # tf.GradientTape, given by autodiff/tape.py when it loads (autodiff sits above the ops)


def register_tape(cls):
    _TAPE[:] = [cls]


def _grad_kernel(*vals, func, single, wrt, n_in, tin):
    GradientTape = _TAPE[0]  # noqa: N806
    xs = [EagerTensor(v) for v in vals[:n_in]]
    dys = [EagerTensor(v) for v in vals[n_in:]]
    with _plain_eager():
        with GradientTape() as tape:
            for i in wrt:
                tape.watch(xs[i])
            ys = func(*xs)
        ys = [ys] if single else list(ys)
        keep = [(y, d) for y, d in zip(ys, dys) if isinstance(y, Tensor) and y.dtype.is_floating]
        grads = tape.gradient([y for y, _ in keep], [xs[i] for i in wrt],
                              output_gradients=[d for _, d in keep]) if keep else [None] * len(wrt)
    return tuple(np.zeros_like(xs[i]._v) if g is None else np.asarray(g.numpy(), dtype=xs[i]._v.dtype)
                 for i, g in zip(wrt, grads))


def _grad_infer(*inputs, func, single, wrt, n_in, tin):
    return [(inputs[i].shape, inputs[i].dtype) for i in wrt]


EAGER_PY_FUNC = defop("EagerPyFunc", _py_kernel, _py_infer, grad=_py_grad, stateful=True,
                      num_outputs=lambda attrs: len(attrs["tout"]))
EAGER_PY_FUNC_GRAD = defop("EagerPyFuncGrad", _grad_kernel, _grad_infer, stateful=True,
                           num_outputs=lambda attrs: len(attrs["wrt"]))
PY_FUNC = defop("PyFunc", _py_kernel, _py_infer, stateful=True, num_outputs=lambda attrs: len(attrs["tout"]))

_tokens = iter(range(1 << 62))


def _wrap(op, func, inp, Tout, name, eager_args):
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func!r} of type {type(func)}")
    single = not isinstance(Tout, (list, tuple))
    tout = (_dt.as_dtype(Tout),) if single else tuple(_dt.as_dtype(d) for d in Tout)
    inputs = [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in (inp or [])]
    attrs = {"func": func, "tout": tout, "single": single, "eager_args": eager_args,
             "token": f"pyfunc_{next(_tokens)}"}
    outs = bind(op, inputs, attrs, name=name)  # a list: the op's output count depends on its attrs
    return outs[0] if single else list(outs)


def _decorator_or_check(op_name, make, func, inp, Tout):
    """TF 2.x's two spellings: `op(func, inp, Tout)`, or `@op(Tout=...)` above a function (func and inp left
    out), which gives a function running `op(f, args, Tout)` on the arguments of each call. Returns the
    decorator, or None when called the first way."""
    if Tout is None:
        raise TypeError(f"Missing required argument: 'Tout'\n  If using {op_name} as a decorator, set `Tout`\n"
                        f"  **by name** above the function:\n  `@{op_name}(Tout=tout)`")
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {op_name} as a decorator (`func=None`).")

        def decorator(f):
            @functools.wraps(f)
            def wrapper(*args):
                return make(f, list(args))
            return wrapper
        return decorator
    if inp is None:
        raise TypeError(f"Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to "
                        f"the\n  function), unless you use `{op_name}` as a decorator(`func=None`).")
    return None


def py_function(func=None, inp=None, Tout=None, name=None):
    """Wraps a Python function (taking and returning eager tensors) as an op; differentiable. With only
    `Tout` (and `name`) given it is a decorator: `@tf.py_function(Tout=tf.float32)`."""
    def make(f, args):
        return _wrap(EAGER_PY_FUNC, f, args, Tout, name or "EagerPyFunc", eager_args=True)
    decorator = _decorator_or_check("tf.py_function", make, func, inp, Tout)
    return decorator if decorator is not None else make(func, inp)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Wraps a Python function taking and returning NumPy arrays as an op (no gradient); a decorator when
    only `Tout` (`stateful`, `name`) is given."""
    def make(f, args):
        return _wrap(PY_FUNC, f, args, Tout, name or "PyFunc", eager_args=False)
    decorator = _decorator_or_check("tf.numpy_function", make, func, inp, Tout)
    return decorator if decorator is not None else make(func, inp)
