"""Stateful logging and checking ops: tf.print (PrintV2), tf.Assert and the tf.debugging asserts,
check_numerics; and tf.get_logger.

PrintV2 and Assert are stateful: inside a function they always run, in program order. Eagerly they
act at once. Text is formatted as TensorFlow's kernels do (`[1 2 ... 9]`, floats in %g style).
"""
import pprint
import re
import sys

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.op import FLOATS, defop
from ..core.tensor import Tensor, convert_to_tensor
from ..errors import InvalidArgumentError
from .. import nest
from ._rules import same_shape, to_tensor


# ----------------------------------------------------------------------------- formatting values
def _fmt_float(v, np_type, short, full):
    """Shortest of %.{short}g / %.{full}g that reads back as the same value, like TensorFlow's StrCat."""
    s = "%.*g" % (short, v)
    if np.isnan(v) or np.isinf(v) or np_type(float(s)) == np_type(v):
        return s
    return "%.*g" % (full, v)


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
            ord("\\"): "\\\\"}


def _c_escape(b):
    """C-style escapes for control characters and quotes; bytes >= 0x80 stay as they are (UTF-8 text)."""
    out = bytearray()
    for c in b:
        e = _ESCAPES.get(c)
        if e is not None:
            out += e.encode()
        elif c < 0x20 or c == 0x7F:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return out.decode("utf-8", errors="replace")


def _fmt_scalar(x):
    if isinstance(x, bytes):
        return '"' + _c_escape(x) + '"'
    kind = x.dtype.kind
    if kind == "b":
        return "1" if x else "0"
    if kind in "iu":
        return str(int(x))
    if kind == "f":
        if x.dtype == np.float64:
            return _fmt_float(float(x), np.float64, 15, 17)
        return _fmt_float(float(x), np.float32, 6, 9)  # half is printed through float, as TensorFlow does
    return "?"  # complex: TensorFlow's summary does not print it either


def format_value(v, summarize=3):
    """A tensor's value as tf.print and tf.strings.format show it (TensorFlow's print_v2 summary): `summarize`
    elements at each end of every dimension (-1: all of them)."""
    a = np.asarray(v)
    if a.ndim == 0:
        return _fmt_scalar(a[()] if a.dtype != object else a.item())
    ends = a.size if summarize < 0 else min(summarize, a.size)
    return _summarize(a, ends, 0, a.ndim)


def _spacing(depth, ndim):
    return " " if depth == ndim - 1 else "\n" * (ndim - depth - 1) + " " * (depth + 1)


def _summarize(a, ends, depth, ndim):
    """One dimension: `ends` entries at each end, then "..." after a spacing even when no entry precedes it
    (a summary of 0 entries: `[ ...]`)."""
    n = a.shape[0]
    sub = (lambda i: _fmt_scalar(a[i])) if a.ndim == 1 else (lambda i: _summarize(a[i], ends, depth + 1, ndim))
    sp = _spacing(depth, ndim)
    out = sp.join(sub(i) for i in range(min(ends, n)))
    if n > 2 * ends:
        out += sp + "..."
    for i in range(max(ends, n - ends), n):
        out += sp + sub(i)
    return "[" + out + "]"


# ----------------------------------------------------------------------------- tf.print
def _stream_name(stream):
    if stream is None or stream is sys.stderr or stream is sys.__stderr__:
        return "stderr"
    if stream is sys.stdout or stream is sys.__stdout__:
        return "stdout"
    if isinstance(stream, str) and stream.startswith("file://"):
        return stream
    raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. Supported streams are "
                     "sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. File needs "
                     "to be in the form of 'file://<filepath>'.")


def _write(stream, text):
    if stream == "stdout":
        sys.stdout.write(text)
    elif stream == "stderr":
        sys.stderr.write(text)
    else:
        with open(stream[len("file://"):], "a") as f:
            f.write(text)


def _print_kernel(*values, template, output_stream, summarize):
    parts = []
    for p in template:
        if p.__class__ is str:
            parts.append(p)
        elif p < 0:  # a lone scalar string tensor prints as its text
            v = values[~p]
            parts.append(v.item().decode("utf-8", errors="replace") if hasattr(v, "item") else str(v))
        else:
            parts.append(format_value(values[p], summarize))
    _write(output_stream, "".join(parts))
    return ()


PRINT = defop("PrintV2", _print_kernel, lambda *xs, **attrs: [], num_outputs=0, stateful=True)


class _Slot:
    """Stands for a tensor inside a Python structure while pprint lays the structure out."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i

    def __repr__(self):
        return f"\x00{self.i}\x00"


_SLOT = re.compile("\x00(\\d+)\x00")


def _is_tensorlike(x):
    return isinstance(x, Tensor) or getattr(x, "_is_resource", False)


def print_v2(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):
    """tf.print: prints tensors (summarized) and Python values, at run time inside functions.
    Python strings print as they are; other Python structures as pprint lays them out."""
    stream = _stream_name(output_stream)
    summarize = 3 if summarize is None else int(summarize)
    tensors, template = [], []
    if len(inputs) == 1 and _is_tensorlike(inputs[0]):
        t = convert_to_tensor(inputs[0])
        if t.dtype is _dt.string and t.shape.rank == 0:
            inputs, tensors, template = (), [t], [~0]
    for i, x in enumerate(inputs):
        if i:
            template.append(sep)
        if isinstance(x, str):
            template.append(x)
        elif _is_tensorlike(x):
            template.append(len(tensors))
            tensors.append(convert_to_tensor(x))
        else:
            slots = []
            for leaf in nest.flatten(x):
                if _is_tensorlike(leaf):
                    slots.append(_Slot(len(tensors)))
                    tensors.append(convert_to_tensor(leaf))
                else:
                    slots.append(leaf)
            text = pprint.pformat(nest.pack_sequence_as(x, slots))
            for j, piece in enumerate(_SLOT.split(text)):
                template.append(piece if j % 2 == 0 else int(piece))
    template.append(end)
    template = tuple(p for p in template if p != "")
    bind(PRINT, tensors, {"template": template, "output_stream": stream, "summarize": summarize}, name=name)
    return _graph_op()


def _graph_op():
    """Inside a graph a stateful op with no outputs is returned as its Operation (for control
    dependencies); eagerly there is nothing to return."""
    g = context.current_graph()
    return None if g is None else g._ops[-1]


# ----------------------------------------------------------------------------- Assert
def _assert_kernel(condition, *data, summarize):
    if not np.all(condition):
        shown = " ".join(f"[{_summary(np.asarray(d), summarize)}]" for d in data)
        raise InvalidArgumentError("assertion failed: " + shown)
    return ()


def _summary(a, limit):
    """A graph Assert's view of one value (TensorFlow's older summary, not tf.print's): the first `limit`
    elements in row-major order, rows in brackets, '...' where elements were left out; strings bare."""
    flat = a.reshape(-1)
    limit = flat.size if limit < 0 else min(limit, flat.size)
    out, pos = [], [0]

    def elem(x):
        return x.decode("utf-8", errors="replace") if isinstance(x, bytes) else _fmt_scalar(x)

    def dim(d):
        if pos[0] >= limit:
            return
        n = a.shape[d]
        if d == a.ndim - 1:
            for i in range(n):
                if pos[0] >= limit:
                    if d:
                        out.append("...")
                    return
                if i:
                    out.append(" ")
                out.append(elem(flat[pos[0]]))
                pos[0] += 1
            return
        for _ in range(n):
            opened = pos[0] < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if opened:
                out.append("]")

    if a.ndim == 0:
        return elem(a.item() if a.dtype == object else a[()])
    dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


ASSERT = defop("Assert", _assert_kernel, lambda *xs, **attrs: [], num_outputs=0, stateful=True)


def _summarize_eager(t, summarize):
    """One data item of an eager tf.Assert failure: its first elements, comma separated."""
    v = t.numpy()
    if np.ndim(v):
        flat = np.reshape(v, -1)
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return ", ".join(items)
    return str(v) if summarize else ""


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TensorFlow's name)
    """tf.Assert: raises InvalidArgumentError with `data` summarized when `condition` is false."""
    summarize = 3 if summarize is None else int(summarize)
    data = [convert_to_tensor(d) for d in data]
    if context.current_graph() is None:
        c = condition.numpy() if isinstance(condition, Tensor) else condition
        if not np.all(c):
            n = summarize if summarize >= 0 else max([int(np.size(d.numpy())) for d in data] + [0])
            raise InvalidArgumentError(f"Expected '{condition!s}' to be true. Summarized data: " +
                                       "\n".join(_summarize_eager(d, n) for d in data))
        return None
    with context.current_graph().name_scope(name or "Assert"):
        bind(ASSERT, [to_tensor(condition)] + data, {"summarize": summarize}, name="Assert")
    return _graph_op()


# ----------------------------------------------------------------------------- tf.debugging asserts
def _pretty(item, summarize):
    if isinstance(item, Tensor):
        v = item.numpy()
        if np.ndim(v) == 0:
            return str(v)
        flat = np.reshape(v, -1)
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _binary_assert(sym, cmp, x, y, message, summarize, data=None, name=None):
    from ._rules import binary_args
    g = context.current_graph()
    if g is not None:
        with g.name_scope(name):
            x, y = binary_args(x, y)
            if data is None:
                data = [message or "", f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x,
                        f"y ({y.name}) = ", y]
            return Assert(cmp(x, y), data, summarize=summarize)
    x, y = binary_args(x, y)
    t = cmp(x, y).numpy()
    if np.all(t):
        return None
    summarize = 3 if summarize is None else (summarize if summarize >= 0 else 10 ** 9)
    if data is None:
        data = _comparison_report(sym, x.numpy(), y.numpy(), t, summarize)
        if message is not None:
            data = [message] + data
    raise InvalidArgumentError("\n".join(_pretty(d, summarize) for d in data))


def _comparison_report(sym, xv, yv, test, summarize):
    data = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        if np.shape(xv) == np.shape(yv) and np.ndim(xv):
            bad = ~np.asarray(test)
            idx = np.argwhere(bad)
            n = min(summarize, idx.shape[0])
            data += [f"Indices of first {n} different values:", idx[:n],
                     "Corresponding x values:", np.asarray(xv)[bad].reshape(-1)[:n],
                     "Corresponding y values:", np.asarray(yv)[bad].reshape(-1)[:n]]
        xf, yf = np.reshape(xv, -1), np.reshape(yv, -1)
        nx, ny = min(xf.size, summarize), min(yf.size, summarize)
        data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return data


def _cmp(name):
    def cmp(x, y):
        from . import math_ops
        return getattr(math_ops, name)(x, y)
    return cmp


def assert_equal(x, y, message=None, summarize=None, name=None):
    name = name or "assert_equal"
    return _binary_assert("==", _cmp("equal"), x, y, message, summarize, name=name)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    name = name or "assert_none_equal"
    return _binary_assert("!=", _cmp("not_equal"), x, y, message, summarize, name=name)


def assert_less(x, y, message=None, summarize=None, name=None):
    name = name or "assert_less"
    return _binary_assert("<", _cmp("less"), x, y, message, summarize, name=name)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    name = name or "assert_less_equal"
    return _binary_assert("<=", _cmp("less_equal"), x, y, message, summarize, name=name)


def assert_greater(x, y, message=None, summarize=None, name=None):
    name = name or "assert_greater"
    return _binary_assert(">", _cmp("greater"), x, y, message, summarize, name=name)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    name = name or "assert_greater_equal"
    return _binary_assert(">=", _cmp("greater_equal"), x, y, message, summarize, name=name)


def _sign_assert(sym, cmp, zero_first, default_name):
    def check(x, message=None, summarize=None, name=None):
        x = to_tensor(x)
        where = f"shape={x.shape} dtype={x.dtype.name}" if context.current_graph() is None else x.name
        data = [message or "", f"Condition x {sym} 0 did not hold element-wise:", f"x ({where}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return _binary_assert(sym, _cmp(cmp), a, b, None, summarize, data=data, name=name or default_name)
    check.__name__ = default_name
    return check


assert_positive = _sign_assert(">", "less", True, "assert_positive")
assert_non_negative = _sign_assert(">=", "less_equal", True, "assert_non_negative")
assert_negative = _sign_assert("<", "less", False, "assert_negative")
assert_non_positive = _sign_assert("<=", "less_equal", False, "assert_non_positive")


def assert_rank(x, rank, message=None, name=None):
    """Raises ValueError (static ranks) when x does not have rank `rank`."""
    x = to_tensor(x)
    rank = int(rank)
    if x.shape.rank is not None and x.shape.rank != rank:
        name = "" if context.current_graph() is None else x.name
        shape = tuple(x.shape.as_list())
        raise ValueError(f"{message or ''}Tensor {name} must have rank {rank}.  Received rank {x.shape.rank}, "
                         f"shape {shape}")
    return None


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (defaults: 10 * eps of the dtype)."""
    from ._rules import binary_args
    x, y = binary_args(x, y)
    eps = np.finfo(x.dtype.as_numpy_dtype).eps if x.dtype.is_floating else 0
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype=x.dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype=x.dtype)
    from . import math_ops as m
    diff = m.abs(m.subtract(x, y))
    test = m.less_equal(diff, m.add(atol, m.multiply(rtol, m.abs(y))))
    eager = context.current_graph() is None
    data = [message or "", f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({_where(x, eager)}) = ", x, f"y ({_where(y, eager)}) = ", y]
    return Assert(test if not eager else convert_to_tensor(bool(np.all(test.numpy()))), data,
                  summarize=summarize, name=name)


def _where(t, eager):
    return f"shape={t.shape} dtype={t.dtype.name}" if eager else t.name


# ----------------------------------------------------------------------------- check_numerics
def _check_numerics_kernel(x, message):
    if np.isnan(x).any():
        raise InvalidArgumentError(f"{message} : Tensor had NaN values")
    if np.isinf(x).any():
        raise InvalidArgumentError(f"{message} : Tensor had Inf values")
    return x


CHECK_NUMERICS = defop("CheckNumerics", _check_numerics_kernel, lambda x, message: same_shape(x),
                       grad=lambda op, dy: (dy,), allowed=FLOATS, stateful=True)


def check_numerics(tensor, message, name=None):
    """The tensor itself; raises InvalidArgumentError naming `message` if it holds NaN or Inf."""
    x = to_tensor(tensor)
    try:
        return bind(CHECK_NUMERICS, (x,), {"message": message}, name=name or "CheckNumerics")
    except InvalidArgumentError as e:
        if context.current_graph() is not None or "[Op:" in str(e):
            raise
        raise InvalidArgumentError(f"{e} [Op:CheckNumerics]") from None


# ----------------------------------------------------------------------------- assert_type, all_finite, shapes
def assert_type(tensor, tf_type, message=None, name=None):
    """Raises TypeError unless `tensor` has dtype `tf_type` (a static check: nothing is added to graphs)."""
    dtype = _dt.as_dtype(tf_type)
    t = tensor if isinstance(tensor, Tensor) else to_tensor(tensor)
    if t.dtype is not dtype:
        raise TypeError(f"{message + ' ' if message else ''}tensor must be of type {dtype!r}; got {t.dtype!r}")
    return None


def assert_all_finite(x, message, name=None):
    """x itself; raises InvalidArgumentError naming `message` when x holds NaN or Inf (tf.check_numerics)."""
    return check_numerics(x, message, name=name)


def _spec_dims(spec):
    if isinstance(spec, str):
        spec = tuple(spec)  # "NQ" names one dimension per character
    spec = tuple(spec)
    if any(s == "*" for s in spec[1:]):
        raise ValueError("`*` is only allowed as the first entry of a shape specification")
    return spec


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks that tensors' shapes match specifications sharing symbolic dimensions.

    `shapes` is a list of (tensor, spec) pairs (or a dict keyed by tensor.ref()); a spec is a sequence of
    ints (that size), strings (a symbol: every use must have one size), `None` or "." (any size), and an
    optional leading "*" (any number of leading dimensions). Statically known violations raise ValueError;
    dimensions known only at run time are checked by assertions (InvalidArgumentError when they fail)."""
    from . import array_ops, math_ops
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    pairs = [(t.deref() if hasattr(t, "deref") else t, s) for t, s in pairs]
    prefix = f"{message} " if message else ""
    symbols = {}  # symbol -> (size or tensor, description of where it was fixed)
    for x, spec in pairs:
        x = to_tensor(x)
        spec = _spec_dims(spec)
        anyprefix = bool(spec) and spec[0] == "*"
        dims = spec[1:] if anyprefix else spec
        rank = x.shape.rank
        if rank is None:
            raise ValueError(f"{prefix}Tensor {x.name if context.current_graph() is not None else ''} "
                             "must have a known rank to check its shape")
        if (rank < len(dims)) if anyprefix else (rank != len(dims)):
            want = f"at least {len(dims)}" if anyprefix else f"{len(dims)}"
            raise ValueError(f"{prefix}Tensor must have rank {want}.  Received rank {rank}, shape "
                             f"{tuple(x.shape.as_list())}")
        where = f"shape={x.shape} dtype={x.dtype.name}"
        for j, d in enumerate(dims):
            axis = rank - len(dims) + j
            if d is None or d == ".":
                continue
            size = x.shape[axis]
            if isinstance(d, str):
                if d not in symbols:
                    symbols[d] = (size if size is not None else array_ops.shape(x)[axis],
                                  f"Specified by tensor {where} dimension {axis - rank if anyprefix else axis}")
                    continue
                expected, origin = symbols[d]
            else:
                expected, origin = int(d), "Specified explicitly"
            if size is not None and not isinstance(expected, Tensor):
                if size != expected:
                    raise ValueError(f"{prefix}{origin}.  Tensor {where} dimension {axis} must have size "
                                     f"{expected}.  Received size {size}, shape {tuple(x.shape.as_list())}")
            else:
                actual = array_ops.shape(x)[axis] if size is None else to_tensor(size)
                exp = expected if isinstance(expected, Tensor) else to_tensor(int(expected))
                assert_equal(actual, math_ops.cast(exp, actual.dtype),
                             message=f"{prefix}{origin}. Tensor dimension {axis} has the wrong size")
    return None
