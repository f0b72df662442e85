"""tf.experimental.dispatch_for_api, dispatch_for_unary_elementwise_apis, dispatch_for_binary_elementwise_apis and
unregister_dispatch_for: an op called with an ExtensionType argument runs the function registered for it.

The public op functions that composite tensors already dispatch through (ops/composite.py's table: tf.add,
tf.abs, tf.stack, tf.ones_like ...) get one handler for ExtensionType, which looks here; any other API
(tf.matmul) is wrapped when a dispatcher is first registered for it, and the wrapper takes its place in the
face's namespaces (`tf.matmul`, `tf.linalg.matmul`). A wrapper costs one isinstance check per argument until
an ExtensionType is passed; eager ops on tensors alone never reach this module.
"""
import collections.abc
import functools
import inspect
import sys
import typing

from ..core.tensor import Tensor
from ..ops import composite as _composite
from . import fields as _f
from .base import ExtensionType

_FACE = ("rivulet", "rivulet.math", "rivulet.linalg", "rivulet.nn", "rivulet.array", "rivulet.strings",
         "rivulet.bitwise", "rivulet.debugging", "rivulet.control_flow", "rivulet.image", "rivulet.signal",
         "rivulet.random", "rivulet.sparse", "rivulet.ragged")

# TensorFlow's other unary / binary elementwise APIs, wrapped (in the face's namespaces) once an elementwise
# dispatcher is registered: (face module, names)
_MORE_UNARY = (("rivulet.math", ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "digamma",
                                 "erf", "erfc", "erfinv", "expm1", "lgamma", "log_sigmoid", "ndtri", "rint",
                                 "reciprocal_no_nan", "softplus", "conj", "real", "imag", "angle", "bessel_i0",
                                 "bessel_i0e", "bessel_i1", "bessel_i1e", "softsign")),
               ("rivulet.nn", ("relu", "relu6", "elu", "selu", "gelu", "silu", "softsign", "leaky_relu", "sigmoid",
                               "tanh", "swish")),
               ("rivulet.bitwise", ("invert",)))
_MORE_BINARY = (("rivulet.math", ("atan2", "xdivy", "xlogy", "xlog1py", "divide_no_nan", "truncatediv",
                                  "truncatemod", "igamma", "igammac", "zeta", "multiply_no_nan", "polygamma",
                                  "nextafter")),
                ("rivulet.bitwise", ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")))
_ASSERTS = (("rivulet.debugging", ("assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
                                    "assert_greater", "assert_greater_equal")),)
_ELEMENTWISE = {}  # key of a wrapped API -> "unary" / "binary" / "assert"
_ASSERT = []  # [(checker_x, checker_y, handler)] for the binary elementwise assertions

_API = {}  # key -> [(checker, handler)] registered for one API, latest last
_UNARY = []  # [(checker, handler)] for every unary elementwise API
_BINARY = []  # [(checker_x, checker_y, handler)] for every binary elementwise API
_REGISTERED = {}  # handler -> where it is registered (for unregister_dispatch_for)
_WRAPPED = {}  # id(original api) -> wrapper


# ------------------------------------------------------------------------------------------------ type checks


def _checker(t):
    """A predicate for a dispatch annotation: ExtensionType classes, tf.Tensor, List/Sequence/Tuple[X],
    Union/Optional; None (no annotation): anything."""
    if t is None or t is inspect.Parameter.empty or t is typing.Any:
        return None
    if t is Tensor:
        return lambda v: isinstance(v, Tensor)
    if isinstance(t, type):
        return lambda v: isinstance(v, t)
    origin, args = typing.get_origin(t), typing.get_args(t)
    if _f.is_union_type(t):
        checks = [_checker(a) for a in args]
        if any(c is None for c in checks):
            return None
        return lambda v: any(c(v) for c in checks)
    if origin in (list, tuple, collections.abc.Sequence, collections.abc.Iterable):
        elem = _checker(args[0]) if args else None
        if elem is None:
            return lambda v: isinstance(v, (list, tuple))
        return lambda v: isinstance(v, (list, tuple)) and all(elem(x) for x in v)
    raise TypeError(f"Type annotation {t!r} is not supported for dispatch.")


def _has_extension(v):
    return isinstance(v, ExtensionType) or (isinstance(v, (list, tuple)) and any(isinstance(x, ExtensionType)
                                                                                  for x in v))


def _bind(api, args, kwargs):
    try:
        sig = inspect.signature(api)
    except (TypeError, ValueError):
        return None
    try:
        return sig.bind(*args, **kwargs)
    except TypeError:
        return None


def _api_checks(api, handler):
    """{parameter: predicate} from the handler's annotations (its parameters must be the API's)."""
    try:
        api_params = list(inspect.signature(api).parameters)
    except (TypeError, ValueError):
        api_params = None
    hparams = inspect.signature(handler).parameters
    unknown = [n for n, p in hparams.items() if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
               p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and n not in (api_params or hparams)]
    if unknown:
        raise ValueError(f"Dispatch function's signature {inspect.signature(handler)} does not match API's "
                         f"signature {inspect.signature(api)}.")
    try:
        hints = typing.get_type_hints(handler)
    except Exception:  # noqa: BLE001  (an annotation naming something not importable: taken as written)
        hints = {n: p.annotation for n, p in hparams.items()}
    checks = {n: _checker(t) for n, t in hints.items() if n != "return"}
    checks = {n: c for n, c in checks.items() if c is not None}
    if not checks:
        raise ValueError(f"Dispatch function {handler.__name__} has no type annotations naming the types it "
                         "dispatches on.")
    return checks


def _matches(checks, bound):
    args = bound.arguments
    hit = False
    for name, check in checks.items():
        if name not in args:
            return False
        v = args[name]
        if not check(v):
            return False
        hit = hit or _has_extension(v)
    return hit


# ------------------------------------------------------------------------------------------------ the handlers


def _composite_name(api):
    return getattr(api, "_composite_dispatch", None)


def _run(key, api, fn, args, kwargs):
    """The registered function for this call of `api` (key: its table key), or fn's own result."""
    for checks, handler in reversed(_API.get(key, ())):
        bound = _bind(api, args, kwargs)
        if bound is not None and _matches(checks, bound):
            return handler(*args, **kwargs)
    name = key[1] if key[0] == "c" else None
    kind = _ELEMENTWISE.get(key) or ("unary" if name in _composite.UNARY else "binary" if name in
                                     _composite.BINARY else None)
    if kind == "unary" and _UNARY:
        bound = _bind(fn, args, kwargs)
        if bound is not None:
            params = list(bound.arguments)
            x = bound.arguments[params[0]]
            rest = {k: v for k, v in bound.arguments.items() if k != params[0]}
            for check, handler in reversed(_UNARY):
                if check(x):
                    return handler(functools.partial(fn, **rest) if rest else fn, x)
    table = _BINARY if kind == "binary" else _ASSERT if kind == "assert" else None
    if table:  # the binary elementwise APIs and the binary assertions dispatch alike, from their own tables
        bound = _bind(fn, args, kwargs)
        if bound is not None and len(bound.arguments) >= 2:
            params = list(bound.arguments)
            x, y = bound.arguments[params[0]], bound.arguments[params[1]]
            rest = {k: v for k, v in bound.arguments.items() if k not in params[:2]}
            for cx, cy, handler in reversed(table):
                if cx(x) and cy(y) and (isinstance(x, ExtensionType) or isinstance(y, ExtensionType)):
                    return handler(functools.partial(fn, **rest) if rest else fn, x, y)
    return fn(*args, **kwargs)


def _wrap_more(table, kind):
    for mname, names in table:
        mod = sys.modules.get(mname)
        if mod is None:
            import importlib
            mod = importlib.import_module(mname)
        for n in names:
            fn = getattr(mod, n, None)
            if not callable(fn) or getattr(fn, "_composite_dispatch", None) is not None:
                continue
            w = fn if hasattr(fn, "_extension_dispatch") else _wrap(fn)
            _ELEMENTWISE[w._extension_dispatch] = kind


def _composite_handler(name):
    def handler(fn, *args, **kwargs):
        return _run(("c", name), fn, fn, args, kwargs)
    return handler


def _install_composite(name):
    _composite.register(ExtensionType, name, _composite_handler(name))


def _wrap(api):
    """A wrapper of an API composites do not dispatch through, put in its place in the face's namespaces."""
    w = _WRAPPED.get(id(api))
    if w is not None:
        return w
    key = ("e", id(api))

    @functools.wraps(api)
    def dispatching(*args, **kwargs):
        for v in args:
            if isinstance(v, ExtensionType) or (type(v) in (list, tuple) and _has_extension(v)):
                return _run(key, api, api, args, kwargs)
        for v in kwargs.values():
            if isinstance(v, ExtensionType) or (type(v) in (list, tuple) and _has_extension(v)):
                return _run(key, api, api, args, kwargs)
        return api(*args, **kwargs)
    dispatching._extension_dispatch = key
    _WRAPPED[id(api)] = dispatching
    for mname in _FACE:
        mod = sys.modules.get(mname)
        if mod is None:
            continue
        d = vars(mod)
        for n, v in list(d.items()):
            if v is api:
                d[n] = dispatching
    return dispatching


def _key_of(api):
    name = _composite_name(api)
    if name is not None:
        _install_composite(name)
        return ("c", name), api
    key = getattr(api, "_extension_dispatch", None)
    if key is not None:
        return key, api
    if not callable(api):
        raise TypeError(f"{api!r} is not a TensorFlow API that supports dispatch.")
    w = _wrap(api)
    return w._extension_dispatch, w


# ------------------------------------------------------------------------------------------------ public API


def dispatch_for_api(api, *signatures):
    """Decorator: `@dispatch_for_api(tf.stack)` runs the decorated function when tf.stack is called with
    arguments matching its type annotations (or the given signatures: {param: type})."""
    key, public = _key_of(api)

    def decorator(handler):
        if signatures:
            entries = [{n: _checker(t) for n, t in s.items()} for s in signatures]
        else:
            entries = [_api_checks(public, handler)]
        for checks in entries:
            _API.setdefault(key, []).append((checks, handler))
        _REGISTERED.setdefault(handler, []).append(("api", key))
        return handler
    return decorator


def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: `handler(api_func, x)` runs for every unary elementwise API (tf.abs, tf.math.exp, tf.ones_like
    ...) called with an `x` of x_type (api_func: the API with its other arguments bound)."""
    check = _checker(x_type)
    for name in _composite.UNARY:
        _install_composite(name)
    _wrap_more(_MORE_UNARY, "unary")

    def decorator(handler):
        _UNARY.append((check, handler))
        _REGISTERED.setdefault(handler, []).append(("unary", None))
        return handler
    return decorator


def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: `handler(api_func, x, y)` runs for every binary elementwise API (tf.math.add, tf.maximum,
    tf.equal ...) called with x of x_type and y of y_type (one of them an ExtensionType)."""
    cx, cy = _checker(x_type) or (lambda v: True), _checker(y_type) or (lambda v: True)
    for name in _composite.BINARY:
        _install_composite(name)
    _wrap_more(_MORE_BINARY, "binary")

    def decorator(handler):
        _BINARY.append((cx, cy, handler))
        _REGISTERED.setdefault(handler, []).append(("binary", None))
        return handler
    return decorator


def dispatch_for_binary_elementwise_assert_apis(x_type, y_type):
    """Decorator: `handler(assert_func, x, y)` runs for the binary elementwise assertions (tf.debugging.assert_equal,
    assert_less ...) called with x of x_type and y of y_type (one of them an ExtensionType)."""
    cx, cy = _checker(x_type) or (lambda v: True), _checker(y_type) or (lambda v: True)
    _wrap_more(_ASSERTS, "assert")

    def decorator(handler):
        _ASSERT.append((cx, cy, handler))
        _REGISTERED.setdefault(handler, []).append(("assert", None))
        return handler
    return decorator


def unregister_dispatch_for(dispatch_target):
    """Removes every registration of `dispatch_target` (ValueError if it was never registered)."""
    where = _REGISTERED.pop(dispatch_target, None)
    if not where:
        raise ValueError(f"Function {dispatch_target} was not registered using a `@dispatch_for_*` decorator.")
    for kind, key in where:
        if kind == "api":
            _API[key] = [e for e in _API.get(key, []) if e[1] is not dispatch_target]
        elif kind == "unary":
            _UNARY[:] = [e for e in _UNARY if e[1] is not dispatch_target]
        elif kind == "assert":
            _ASSERT[:] = [e for e in _ASSERT if e[2] is not dispatch_target]
        else:
            _BINARY[:] = [e for e in _BINARY if e[2] is not dispatch_target]
