"""Converting functions: convert(fn) (what tf.function runs), converted_call (how converted code calls),
to_code / to_graph, do_not_convert.

A function's source is parsed, run through the converter pipeline and compiled under the function's own
file name, with the user's line numbers, so tracebacks and errors point at the user's code. It is loaded
with the function's globals, defaults and closure cells, so it sees what the original sees.
"""
import ast
import functools
import inspect
import sys
import types
import weakref

from ..log import logger
from .converters import PIPELINE
from .converters.base import Context
from .pyct import naming, parser

_DO_NOT_CONVERT = "__ag_do_not_convert__"
_converted = weakref.WeakKeyDictionary()  # original function -> converted function
_factories = {}  # code object -> (converted ast, factory function): conversion happens once per code object
_LIBRARY = ("rivulet", "numpy", "builtins")
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


class ConversionError(Exception):
    pass


def do_not_convert(func=None):
    """Marks a function to run as written, even when called from converted code."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    setattr(wrapper, _DO_NOT_CONVERT, True)
    return wrapper


def is_library_code(fn):
    """Functions AutoGraph leaves alone: rivulet's own, NumPy's, the standard library's, builtins."""
    # The module that defined it: a function's globals name it even when functools.wraps copied the
    # wrapped function's __module__ onto a library wrapper (tf.custom_gradient's).
    glob = getattr(fn, "__globals__", None)
    module = (glob.get("__name__") if isinstance(glob, dict) else None) or getattr(fn, "__module__", None) or ""
    if getattr(sys.modules.get(module), "__autograph_user_code__", False):
        return False  # a module of ours written as user code (the tour)
    top = module.split(".")[0]
    return top in _LIBRARY or top in _STDLIB or (top.startswith("_") and top != "__main__")


def _transform(fn, user_requested):
    node, filename = parser.parse_function(fn)
    ctx = Context(fn.__name__ if fn.__name__ != "<lambda>" else "lam", naming.Namer(node), user_requested)
    for converter in PIPELINE:
        node = converter.transform(node, ctx)
    node.decorator_list = []
    return ast.fix_missing_locations(node), filename


def _factory(fn, user_requested):
    """Compiles the converted function inside `outer_factory`, whose locals stand for fn's closure cells."""
    code = fn.__code__
    hit = _factories.get(code)
    if hit is not None:
        return hit
    node, filename = _transform(fn, user_requested)
    _drop_definition_time_expressions(node)
    freevars = list(code.co_freevars)
    inner = ast.FunctionDef(name="inner_factory", args=_args(["ag__"]), body=[node, ast.Return(
        ast.Name(node.name, ast.Load()))], decorator_list=[], returns=None, type_params=[])
    outer_body = [ast.Assign([ast.Name(v, ast.Store())], ast.Constant(None)) for v in freevars]
    outer = ast.FunctionDef(name="outer_factory", args=_args([]), body=outer_body + [inner, ast.Return(
        ast.Name("inner_factory", ast.Load()))], decorator_list=[], returns=None, type_params=[])
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    ns = {}
    exec(compile(module, filename, "exec"), ns)
    hit = _factories[code] = (node, ns["outer_factory"]())
    return hit


def _drop_definition_time_expressions(node):
    """Defaults and annotations are evaluated where the user's `def` ran (`def step(w=w)` names a local of
    the enclosing function, unknown to the factory): the converted def gets placeholders instead, and
    _instantiate gives it the original function's own default values."""
    a = node.args
    a.defaults = [ast.Constant(None) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(None) for d in a.kw_defaults]
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    node.returns = None


def _args(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _instantiate(fn, inner_factory):
    from . import operators
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[v] for v in inner_factory.__code__.co_freevars)
    factory = types.FunctionType(inner_factory.__code__, fn.__globals__, "inner_factory", None, closure or None)
    new = factory(operators)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = dict(getattr(fn, "__annotations__", None) or {})
    new.__wrapped__ = fn
    new.__name__, new.__qualname__ = fn.__name__, getattr(fn, "__qualname__", fn.__name__)
    # tracebacks through converted code name the user's function, not the generated tf__ one
    new.__code__ = new.__code__.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    new.__doc__ = fn.__doc__
    return new


def _convert_function(fn, user_requested):
    hit = _converted.get(fn)
    if hit is None:
        hit = _instantiate(fn, _factory(fn, user_requested)[1])
        _converted[fn] = hit
    return hit


def convert(fn, user_requested=True):
    """The converted version of `fn` (a function, bound method or callable object); `fn` itself when it
    cannot be converted (no source, library code, marked do_not_convert), with a warning when conversion
    itself failed."""
    if getattr(fn, _DO_NOT_CONVERT, False):
        return fn
    if inspect.ismethod(fn):
        conv = convert(fn.__func__, user_requested)
        return fn if conv is fn.__func__ else types.MethodType(conv, fn.__self__)
    if not inspect.isfunction(fn):
        call = getattr(type(fn), "__call__", None)
        if inspect.isfunction(call) and not is_library_code(call) and not inspect.isclass(fn):
            conv = convert(call, user_requested)
            return fn if conv is call else types.MethodType(conv, fn)
        return fn
    if is_library_code(fn) or inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        return fn
    try:
        return _convert_function(fn, user_requested)
    except parser.SourceUnavailable:
        return fn
    except (NotImplementedError, SyntaxError, ConversionError) as e:
        logger.warning("AutoGraph could not transform %s and will run it as-is.\nCause: %s", fn, e)
        return fn


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """How converted code calls anything: builtins with a tensor meaning are swapped, user functions are
    converted first, everything else is called as it is."""
    from .operators.py_builtins import OVERRIDES
    kwargs = kwargs or {}
    try:
        override = OVERRIDES.get(f)
    except TypeError:  # unhashable callables
        override = None
    if override is not None:
        return override(*args, **kwargs)
    if inspect.isclass(f) or inspect.isbuiltin(f) or getattr(f, "_python_to_run", None) is not None:
        return f(*args, **kwargs)  # classes, builtins, and tf.functions (which convert themselves)
    return convert(f, user_requested=False)(*args, **kwargs)


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """tf.autograph.to_graph: the converted function (it builds graph ops when called inside a graph)."""
    conv = convert(entity)
    if conv is entity and not getattr(entity, _DO_NOT_CONVERT, False):
        _transform(_function_of(entity), True)  # raises the reason it cannot be converted
    return conv


def to_code(entity, recursive=True, experimental_optional_features=None):
    """tf.autograph.to_code: the source of the converted function."""
    fn = _function_of(entity)
    try:
        node, _ = _transform(fn, True)
    except parser.SourceUnavailable as e:
        raise ConversionError(f"Unable to locate the source code of {entity!r}: {e}") from None
    return ast.unparse(node) + "\n"


def _function_of(entity):
    if inspect.ismethod(entity):
        return entity.__func__
    python_function = getattr(entity, "python_function", None)  # a tf.function
    if python_function is not None:
        return _function_of(python_function)
    return entity
