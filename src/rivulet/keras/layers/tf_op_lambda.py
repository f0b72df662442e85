"""TFOpLambda: a tf.* function or a Python operator applied to KerasTensors in a functional model.

tf_keras wraps `inputs * 2 + 1`, `tf.concat([a, b], -1)`, `tf.expand_dims(x, -1)` ... on KerasTensors in a
layer that replays the call: the layer is named after the function's public name (`tf.math.multiply`,
`tf.__operators__.add`, `tf.concat`, numbered `_1`, `_2` when used again) and shows in `summary()` as
`tf.math.multiply (TFOpLambda)`. Here the KerasTensor's operators make such layers, and the public op functions
reach them through the composite-tensor table (`rivulet.ops.composite`): a KerasTensor argument hands the call
to `op_layer_call`, which records the node. The layer's config names its function by its public name; loading
looks the name up in rivulet's own namespaces (never evaluates it).
"""
import inspect

import rivulet as tf
from rivulet import nest
from rivulet.ops import composite as _composite

from .. import backend
from .base import Layer
from .input_layer import KerasTensor, call_symbolic


# ------------------------------------------------------------------------------------------ names
# The public name tf_keras gives each function (TensorFlow's canonical API name): math ops live in tf.math.
_TOP = {"identity", "zeros_like", "ones_like", "cast", "concat", "tile", "expand_dims", "reshape", "squeeze",
        "transpose", "stack", "gather", "one_hot", "where", "split", "unstack", "broadcast_to", "pad", "repeat",
        "shape", "size", "rank", "reverse", "roll", "boolean_mask", "clip_by_value"}
_RENAMED = {"mod": "math.floormod", "saturate_cast": "dtypes.saturate_cast", "matmul": "linalg.matmul"}
_STRINGS = set(_composite.STRING_UNARY) - {"as_string"}


def public_name(op_name):
    """'multiply' -> 'math.multiply', 'concat' -> 'concat' (the tf.* path after `tf.`)."""
    if op_name in _RENAMED:
        return _RENAMED[op_name]
    if op_name in _TOP:
        return op_name
    if op_name in _STRINGS:
        return f"strings.{op_name}"
    if op_name == "as_string":
        return "strings.as_string"
    return f"math.{op_name}"


def _getitem(tensor, key):
    return tensor[key]


_OPERATORS = {"__operators__.add": tf.math.add, "__operators__.getitem": _getitem}


def _registry():
    """The functions a TFOpLambda config may name: the tf.* functions this module dispatches on and the
    operators' functions, by public name (a config naming anything else is refused: no other code is reached)."""
    names = (_composite.UNARY + _composite.BINARY + _composite.REDUCE + _composite.STRING_UNARY
             + _composite.LISTS + _composite.FIRST)
    table = dict(_OPERATORS)
    for n in names:
        symbol = public_name(n)
        obj = tf
        for part in symbol.split("."):
            obj = getattr(obj, part, None)
        if callable(obj):
            table[symbol] = obj
    for symbol in ("math.subtract", "math.multiply", "math.truediv", "math.floordiv", "math.floormod",
                   "math.pow", "math.negative", "math.abs", "math.less", "math.less_equal", "math.greater",
                   "math.greater_equal", "math.logical_and", "math.logical_or", "math.logical_xor",
                   "math.logical_not"):
        table[symbol] = getattr(tf.math, symbol[5:])
    table["linalg.matmul"] = tf.linalg.matmul
    return table


_FUNCTIONS = {}


def function_for(symbol):
    """The function a config's `function` names, from the registry above; anything else is a ValueError."""
    if not _FUNCTIONS:
        _FUNCTIONS.update(_registry())
    fn = _FUNCTIONS.get(symbol) if isinstance(symbol, str) else None
    if fn is None:
        raise ValueError(f"Unknown TFOpLambda function: {symbol!r} (rivulet reloads TFOpLambda layers of these "
                         f"functions only: {sorted(_FUNCTIONS)})")
    return fn


# ------------------------------------------------------------------------------------------ the layer
class TFOpLambda(Layer):
    """Replays one tf.* call (its non-KerasTensor arguments kept) on the values of its KerasTensor arguments."""

    def __init__(self, function, **kwargs):
        if isinstance(function, str):
            symbol, function = function, function_for(function)
        else:
            symbol = kwargs.pop("symbol", None) or getattr(function, "__name__", "lambda")
        if "name" not in kwargs or kwargs["name"] is None:
            kwargs["name"] = backend.unique_name(f"tf.{symbol}")
        kwargs.pop("symbol", None)
        super().__init__(**kwargs)
        self.function, self.symbol = function, symbol
        self.built = True

    def __call__(self, *args, **kwargs):
        if any(isinstance(t, KerasTensor) for t in nest.flatten([list(args), dict(kwargs)])):
            return call_symbolic(self, args[0] if args else None, tuple(args[1:]), kwargs)
        return self._invoke(args, kwargs)

    def _call_general(self, args, kwargs):  # the scratch-graph call that finds the output shapes
        if args and args[0] is None and len(args) == 1:
            args = ()
        return self._invoke(args, kwargs)

    def call(self, *args, **kwargs):
        return self._invoke(args, kwargs)

    def _invoke(self, args, kwargs):
        """function(*args, **kwargs); when the keywords already name the leading parameters (`{'x': 2}` of
        `2 * x`), the positional values fill the parameters left free, in order."""
        if args and kwargs:
            try:
                names = list(inspect.signature(self.function).parameters)
            except (TypeError, ValueError):
                names = []
            if names and names[0] in kwargs:
                free = [n for n in names if n not in kwargs]
                full = dict(kwargs)
                full.update(zip(free, args))
                return self.function(**full)
        return self.function(*args, **kwargs)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype, "function": self.symbol}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        return cls(config.pop("function"), **config)


def op_layer_call(symbol, fn, *args, **kwargs):
    """fn(*args, **kwargs) with KerasTensors among the arguments: a new TFOpLambda's output KerasTensor(s).
    As tf_keras records the call, the first argument is the node's input and every other one a keyword
    argument (`tf.math.multiply(x, 0.5)` -> input x, {'y': 0.5}), so a model's config keeps them."""
    try:
        params = inspect.signature(fn).parameters
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return TFOpLambda(fn, symbol=symbol)(*args, **kwargs)
    if all(params[n].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for n in bound.arguments):
        # The node's input: the first argument holding a KerasTensor (`2 * x` is multiply(2, x): input x,
        # {'x': 2}); the call is replayed by binding it to the first parameter the keywords leave free.
        first = next((n for n in bound.arguments
                      if any(isinstance(t, KerasTensor) for t in nest.flatten(bound.arguments[n]))), None)
        if first is not None:
            rest = {n: v for n, v in bound.arguments.items() if n != first}
            return TFOpLambda(fn, symbol=symbol)(bound.arguments[first], **rest)
    return TFOpLambda(fn, symbol=symbol)(*bound.args, **bound.kwargs)


def _table_handler(op_name):
    symbol = public_name(op_name)

    def handler(fn, *args, **kwargs):
        return op_layer_call(symbol, fn, *args, **kwargs)
    return handler


def register_dispatch():
    """The public tf.* functions of the composite table make TFOpLambda layers when given KerasTensors."""
    names = (_composite.UNARY + _composite.BINARY + _composite.REDUCE + _composite.STRING_UNARY
             + _composite.LISTS + _composite.FIRST)
    for n in names:
        _composite.register(KerasTensor, n, _table_handler(n))


# ------------------------------------------------------------------------------------------ operators
def _binary(symbol, fn, reflected=False):
    def op(self, other):
        return op_layer_call(symbol, fn, other, self) if reflected else op_layer_call(symbol, fn, self, other)
    return op


def _unary(symbol, fn):
    def op(self):
        return op_layer_call(symbol, fn, self)
    return op


def install_operators(cls):
    """KerasTensor's Python operators, each a TFOpLambda named as tf_keras names it."""
    m = tf.math
    table = {"add": ("__operators__.add", m.add), "sub": ("math.subtract", m.subtract),
             "mul": ("math.multiply", m.multiply), "truediv": ("math.truediv", m.truediv),
             "floordiv": ("math.floordiv", m.floordiv), "mod": ("math.floormod", m.floormod),
             "pow": ("math.pow", m.pow), "matmul": ("linalg.matmul", tf.linalg.matmul),
             "and": ("math.logical_and", m.logical_and), "or": ("math.logical_or", m.logical_or),
             "xor": ("math.logical_xor", m.logical_xor)}
    for name, (symbol, fn) in table.items():
        setattr(cls, f"__{name}__", _binary(symbol, fn))
        setattr(cls, f"__r{name}__", _binary(symbol, fn, reflected=True))
    for name, symbol, fn in (("lt", "math.less", m.less), ("le", "math.less_equal", m.less_equal),
                             ("gt", "math.greater", m.greater), ("ge", "math.greater_equal", m.greater_equal)):
        setattr(cls, f"__{name}__", _binary(symbol, fn))
    cls.__neg__ = _unary("math.negative", m.negative)
    cls.__abs__ = _unary("math.abs", m.abs)
    cls.__invert__ = _unary("math.logical_not", m.logical_not)
    cls.__getitem__ = _binary("__operators__.getitem", _getitem)
    cls.__array_ufunc__ = None  # NumPy scalars and arrays defer to the reflected operators


install_operators(KerasTensor)
register_dispatch()
