"""Composite tensors (RaggedTensor, and the next kind) at the public op functions: one table.

The face wraps the names below once, when it builds its namespaces (math.py, array.py, strings.py); a wrapper
looks its arguments up in the table and hands a composite to the handler its kind registered (ragged/ registers
RaggedTensor's when it loads), else calls the op function. Until a kind registers, a wrapper costs one check.

Ops that build composite results (tf.strings.split gives a RaggedTensor) get the kind's class from `kind`,
which loads it through the loader the face registered: the ops sit below the composite kinds.
"""
import functools
import inspect

UNARY = ["abs", "negative", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "sin", "cos", "tan", "tanh",
         "sigmoid", "round", "floor", "ceil", "sign", "logical_not", "reciprocal", "is_nan", "is_inf",
         "is_finite", "cast", "saturate_cast", "zeros_like", "ones_like", "identity"]
BINARY = ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "maximum",
          "minimum", "pow", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
          "logical_or", "logical_xor", "squared_difference"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all"]
STRING_UNARY = ["length", "lower", "upper", "to_number", "substr", "regex_replace", "regex_full_match",
                "as_string", "unicode_script", "strip"]
LISTS = ["concat", "stack"]  # the first argument is a list of values
FIRST = ["tile", "expand_dims", "reshape", "squeeze", "transpose", "gather", "one_hot"]  # dispatched on their first
#                                                                                          argument
# more tf.* / tf.nn.* / tf.strings.* functions composites take (not TFOpLambda layers): the shape ops take a
# composite shape (DynamicRaggedShape) as their first argument, reshape and embedding_lookup look at their
# second one too, strings.join at the members of its list
ARRAY_MORE = ["reverse", "shape", "fill", "zeros", "ones", "size", "rank", "where"]
NN_MORE = ["embedding_lookup"]
STRING_MORE = ["to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "join"]

_BINARY = frozenset(BINARY)
_LISTS = frozenset(LISTS + ["join"])
_SECOND = frozenset(["reshape", "embedding_lookup"])
_CLASSES = [()]  # the registered composite classes, for one isinstance check
_HANDLERS = {}  # (class, op name) -> handler(fn, *args, **kwargs)
_LOADERS = {}  # kind name -> loader() returning its class (given by the face)
_FALLBACK = [None]  # (claims(args, kwargs), handler(name, fn, args, kwargs)): for an op that raised on its arguments


def register(cls, name, handler):
    """`handler(fn, *args, **kwargs)` computes op `name` when an argument is a `cls` (fn: the op function)."""
    _HANDLERS[(cls, name)] = handler
    if cls not in _CLASSES[0]:
        _CLASSES[0] = _CLASSES[0] + (cls,)


def register_fallback(claims, handler):
    """When op `name` raised TypeError/ValueError/AttributeError on its arguments and `claims(args, kwargs)`
    (Keras's symbolic tensors among them, which no op converts), `handler(name, fn, args, kwargs)` gives the
    result; else the error stands. A wrapper pays nothing for it until an op raises (a try costs nothing when
    nothing is raised)."""
    _FALLBACK[0] = (claims, handler)


_NAMESPACE_HOOKS = []  # called when the face loads a namespace on first use (tf.image, tf.signal ...)


def register_namespace_hook(hook):
    if hook not in _NAMESPACE_HOOKS:
        _NAMESPACE_HOOKS.append(hook)


def namespace_loaded():
    """The face loaded a namespace (tf.image ...): the hooks wrap its functions as they wrapped the others'."""
    for hook in _NAMESPACE_HOOKS:
        hook()


def register_loader(kind_name, loader):
    _LOADERS[kind_name] = loader


def kind(kind_name):
    """The class of a composite kind ("ragged"), loaded on first use."""
    return _LOADERS[kind_name]()


def is_kind(x, kind_name):
    """Whether x is of a kind, without loading the kind (an instance exists only once its class loaded)."""
    return any(isinstance(x, c) and getattr(c, "_composite_kind", None) == kind_name for c in _CLASSES[0])


def wrap(name, fn):
    """The op function `fn`, consulting the table first."""
    params = list(inspect.signature(fn).parameters)
    first = params[0] if params else None
    second = params[1] if (name in _BINARY or name in _SECOND) and len(params) > 1 else None
    listed = name in _LISTS

    @functools.wraps(fn)
    def dispatching(*args, **kwargs):
        classes = _CLASSES[0]
        if classes:
            a = args[0] if args else kwargs.get(first)
            cands = (a if isinstance(a, (list, tuple)) else ()) if listed else (a,)
            if second is not None:
                cands = (a, args[1] if len(args) > 1 else kwargs.get(second))
            for c in cands:
                if isinstance(c, classes):
                    handler = _HANDLERS.get((type(c), name))
                    if handler is None:  # a kind registered for a base class (tf.experimental.ExtensionType)
                        handler = _base_handler(type(c), name)
                    if handler is not None:
                        return handler(fn, *args, **kwargs)
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, AttributeError):
            fallback = _FALLBACK[0]
            if fallback is None or not fallback[0](args, kwargs):
                raise
        return fallback[1](name, fn, args, kwargs)
    dispatching._composite_dispatch = name
    return dispatching


def _base_handler(cls, name):
    for base in cls.__mro__[1:]:
        handler = _HANDLERS.get((base, name))
        if handler is not None:
            return handler
    return None


def wrap_namespace(ns, names):
    """Wraps each of `names` that the namespace dict `ns` holds (a face module's globals())."""
    for n in names:
        fn = ns.get(n)
        if callable(fn) and not hasattr(fn, "_composite_dispatch"):
            ns[n] = wrap(n, fn)
