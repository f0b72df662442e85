"""TFOpLambda: a tf.* function or a Python operator applied to KerasTensors in a functional model.

tf_keras wraps `inputs * 2 + 1`, `tf.concat([a, b], -1)`, `tf.expand_dims(x, -1)` ... on KerasTensors in a
layer that replays the call: the layer is named after the function's public name (`tf.math.multiply`,
`tf.__operators__.add`, `tf.concat`, numbered `_1`, `_2` when used again) and shows in `summary()` as
`tf.math.multiply (TFOpLambda)`. Here the KerasTensor's operators make such layers, and the public op functions
reach them through the composite-tensor table (`rivulet.ops.composite`): a KerasTensor argument hands the call
to `op_layer_call`, which records the node. Every other public function TensorFlow lets dispatch
(`tf_op_lambda_names.py`: tf.math.argmax, tf.nn.softmax, tf.image.resize ...) is wrapped in the face's
namespaces when the first KerasTensor is made (`install_face_dispatch`): as TensorFlow's dispatcher, the
wrapper calls the function and, only when it raised on a KerasTensor found anywhere in the arguments
(positional, keyword, nested), records a TFOpLambda instead; eager calls pay no check, only the wrapper's
call. The layer's config names its function by its canonical name; loading looks the name up in rivulet's
own namespaces (never evaluates it).
"""
import functools
import inspect
import sys

import rivulet as tf
from rivulet import nest
from rivulet.ops import composite as _composite

from .. import backend
from .base import Layer
from .input_layer import KerasTensor, call_symbolic
from .tf_op_lambda_names import NAMES as _NAMES


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


def _getitem(tensor, slice_spec):
    """tensor[slice_spec] (TensorFlow's parameter name); a list spec from a config is a tuple of dimensions."""
    if isinstance(slice_spec, list):
        slice_spec = tuple(slice_spec)
    return tensor[slice_spec]


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
    for canonical, paths in _canonical_paths():
        for path in paths:
            fn = _resolve(path)
            if _is_function(fn):
                table[canonical] = fn
                break
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


# ------------------------------------------------------------------------------------------ every dispatching API
def _canonical_paths():
    """(canonical name, its public paths, itself first) for each function TensorFlow 2.21 dispatches."""
    for token in _NAMES.split():
        paths = token.split(":")
        yield paths[0], paths


def _resolve(path):
    """The rivulet object at a public path ('math.argmax'), else None (attribute lookups only)."""
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _is_function(obj):
    return callable(obj) and not isinstance(obj, type) and not inspect.ismodule(obj)


def has_keras_tensor(args, kwargs):
    """Whether a KerasTensor is among a call's arguments (positional, keyword, nested in lists/tuples/dicts)."""
    return any(isinstance(t, KerasTensor) for t in nest.flatten([list(args), dict(kwargs)]))


def _dispatching(fn, symbol):
    """fn, or a TFOpLambda layer of it when it raised on KerasTensor arguments (TensorFlow's fallback dispatch:
    nothing is looked at until fn raises)."""
    @functools.wraps(fn)
    def keras_dispatch(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, AttributeError):
            if not has_keras_tensor(args, kwargs):
                raise
        return op_layer_call(symbol, fn, *args, **kwargs)
    keras_dispatch._keras_dispatch = symbol
    return keras_dispatch


# the face's namespaces whose functions dispatch (tf.*, tf.math, tf.nn ...)
_FACE = ("rivulet", "rivulet.math", "rivulet.nn", "rivulet.linalg", "rivulet.strings", "rivulet.image",
         "rivulet.signal", "rivulet.random", "rivulet.bitwise", "rivulet.dtypes", "rivulet.debugging",
         "rivulet.ragged", "rivulet.sparse", "rivulet.io")
_COMPOSITE_SYMBOL = {}  # composite table name ('add') -> canonical name ('math.add')


def _loaded(path):
    """The object at a public path in the namespaces already loaded, else None (loads nothing: the lazy
    namespaces, tf.image, tf.signal, tf.ragged ..., get their wrappers when they load)."""
    obj = tf
    for part in path.split("."):
        if not inspect.ismodule(obj):
            return None
        obj = vars(obj).get(part)
        if obj is None:
            return None
    return obj


_WRAPPERS = {}  # id(bare function) -> its dispatching wrapper


def install_face_dispatch():
    """Puts a dispatching wrapper in place of each function TensorFlow dispatches, in every loaded face namespace
    that holds it (tf.argmax and tf.math.argmax get the same wrapper); the functions the composite table already
    wraps keep their wrapper, whose fallback (registered below) makes the layer. Run again when a namespace
    loads later (the face's lazy loading calls `composite.namespace_loaded`)."""
    symbols = {}  # id(bare function) -> (function, canonical name)
    for canonical, paths in _canonical_paths():
        for path in paths:
            fn = _loaded(path)
            fn = getattr(fn, "__wrapped__", fn) if getattr(fn, "_keras_dispatch", None) is not None else fn
            if _is_function(fn) and id(fn) not in symbols:
                symbols[id(fn)] = (fn, canonical)
    for mname in _FACE:
        mod = sys.modules.get(mname)
        if mod is None:
            continue
        d = vars(mod)
        for attr, value in list(d.items()):
            entry = symbols.get(id(value))
            if entry is None or entry[0] is not value:
                continue
            name = getattr(value, "_composite_dispatch", None)
            if name is not None:
                _COMPOSITE_SYMBOL.setdefault(name, entry[1])
                continue
            w = _WRAPPERS.get(id(value))
            if w is None:
                w = _WRAPPERS[id(value)] = _dispatching(value, entry[1])
            d[attr] = w
    _FUNCTIONS.clear()


def _composite_fallback(name, fn, args, kwargs):
    return op_layer_call(_COMPOSITE_SYMBOL.get(name) or public_name(name), fn, *args, **kwargs)


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
        self._already_warned = False
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

    def _check_variables(self, args, kwargs):
        """tf_keras's warning, once per layer, when the call reads variables the layer does not track (here: the
        variables among its arguments)."""
        used = [v for v in nest.flatten([list(args), dict(kwargs)]) if isinstance(v, tf.Variable)]
        if used:
            variable_str = "\n".join(f"  {v}" for v in used)
            tf.get_logger().warning(
                f"The following Variables were used in a Lambda layer's call ({self.name}), but are not present in "
                f"its tracked objects: {variable_str}. This is a strong indication that the Lambda layer should "
                "be rewritten as a subclassed Layer.")
            self._already_warned = True

    def _invoke(self, args, kwargs):
        if not self._already_warned:
            self._check_variables(args, kwargs)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
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

    @staticmethod
    def _node_config(node, ref):
        """One inbound node as tf_keras writes an op layer's (its input structure kept): the first argument's
        structure, each KerasTensor in it [layer, node, tensor, kwargs] and any other value
        ['_CONSTANT_VALUE', -1, value, kwargs]; in kwargs a KerasTensor is its [layer, node, tensor] reference,
        a tensor or array a nested list, a dtype its name (an argument JSON cannot hold is left out)."""
        kwargs = {}
        for k, v in node.kwargs.items():
            try:
                kwargs[k] = _arg_config(v, ref)
            except TypeError:
                continue

        def first(v):
            if isinstance(v, KerasTensor):
                return ref(v) + [kwargs]
            if isinstance(v, (list, tuple)):
                return [first(x) for x in v]
            try:
                return [_CONSTANT, -1, _arg_config(v, ref), kwargs]
            except TypeError:
                return [_CONSTANT, -1, None, kwargs]
        return first(node.inputs)

    @staticmethod
    def _node_from_config(node, tensors):
        """(first argument, kwargs) back from `_node_config`'s form (KeyError while a tensor it names is not
        computed yet)."""
        found = []

        def first(v):
            if isinstance(v, list) and len(v) in (3, 4) and isinstance(v[0], str) and type(v[1]) is int:
                found.append(v[3] if len(v) == 4 and isinstance(v[3], dict) else {})
                if v[0] == _CONSTANT:
                    return v[2]
                return tensors[(v[0], v[1], v[2])]
            if isinstance(v, list):
                return [first(x) for x in v]
            return v
        inputs = first(node)
        kwargs = found[0] if found else {}
        return inputs, {k: _arg_from_config(v, tensors) for k, v in kwargs.items()}


class SlicingOpLambda(TFOpLambda):
    """`x[...]` on a KerasTensor (tf_keras's layer for tf.__operators__.getitem): its config writes each slice
    as {'start', 'stop', 'step'} and an Ellipsis as {'class_name': '__ellipsis__'}."""

    @staticmethod
    def _node_from_config(node, tensors):
        inputs, kwargs = TFOpLambda._node_from_config(node, tensors)  # (the slices stay dicts until called)
        return inputs, {k: _ellipsis_back(v) for k, v in kwargs.items()}

    def _invoke(self, args, kwargs):
        return super()._invoke(tuple(_slices_back(a) for a in args), {k: _slices_back(v) for k, v in kwargs.items()})

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        return cls(config.pop("function"), **config)


_CONSTANT = "_CONSTANT_VALUE"  # tf_keras's mark of a non-KerasTensor value in an op layer's input structure


def _arg_config(v, ref):
    if isinstance(v, KerasTensor):
        return ref(v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_arg_config(x, ref) for x in v]
    if isinstance(v, slice):
        return {"start": _arg_config(v.start, ref), "stop": _arg_config(v.stop, ref),
                "step": _arg_config(v.step, ref)}
    if v is Ellipsis:
        return {"class_name": "__ellipsis__"}
    if isinstance(v, dict):
        return {str(k): _arg_config(x, ref) for k, x in v.items()}
    if isinstance(v, tf.DType):
        return v.name
    if isinstance(v, tf.TensorShape):
        return v.as_list() if v.rank is not None else None
    if isinstance(v, tf.Tensor) and tf.executing_eagerly():
        return v.numpy().tolist()
    if hasattr(v, "tolist") and hasattr(v, "dtype"):  # NumPy arrays and scalars
        return v.tolist()
    raise TypeError(f"not JSON-serializable: {type(v).__name__}")


def _slices_back(v):
    """tf_keras's slice dicts back to slices (in a list too), its Ellipsis mark back to Ellipsis."""
    if isinstance(v, dict) and set(v) == {"start", "stop", "step"}:
        return slice(v["start"], v["stop"], v["step"])
    if isinstance(v, dict) and v == {"class_name": "__ellipsis__"}:
        return Ellipsis
    if isinstance(v, (list, tuple)):
        return type(v)(_slices_back(x) for x in v)
    return v


def _ellipsis_back(v):
    if isinstance(v, dict) and v == {"class_name": "__ellipsis__"}:
        return Ellipsis
    if isinstance(v, list):
        return [_ellipsis_back(x) for x in v]
    return v


def _is_ref(v):
    return (isinstance(v, list) and len(v) == 3 and isinstance(v[0], str) and type(v[1]) is int
            and type(v[2]) is int)


def _arg_from_config(v, tensors):
    if _is_ref(v):
        return tensors[tuple(v)]
    if isinstance(v, list):
        return [_arg_from_config(x, tensors) for x in v]
    if isinstance(v, dict):
        return {k: _arg_from_config(x, tensors) for k, x in v.items()}
    return v


def op_layer_call(symbol, fn, *args, _layer_class=None, **kwargs):
    """fn(*args, **kwargs) with KerasTensors among the arguments: a new TFOpLambda's output KerasTensor(s).
    As tf_keras records the call, the first argument is the node's input and every other one a keyword
    argument (`tf.math.multiply(x, 0.5)` -> input x, {'y': 0.5}), so a model's config keeps them."""
    try:
        params = inspect.signature(fn).parameters
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return (_layer_class or TFOpLambda)(fn, symbol=symbol)(*args, **kwargs)
    if all(params[n].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for n in bound.arguments):
        # The node's input: the first argument holding a KerasTensor (`2 * x` is multiply(2, x): input x,
        # {'x': 2}); the call is replayed by binding it to the first parameter the keywords leave free.
        first = next((n for n in bound.arguments
                      if any(isinstance(t, KerasTensor) for t in nest.flatten(bound.arguments[n]))), None)
        if first is not None:
            rest = {n: v for n, v in bound.arguments.items() if n != first}
            return (_layer_class or TFOpLambda)(fn, symbol=symbol)(bound.arguments[first], **rest)
    return (_layer_class or TFOpLambda)(fn, symbol=symbol)(*bound.args, **bound.kwargs)


def _table_handler(op_name):
    def handler(fn, *args, **kwargs):
        return op_layer_call(_COMPOSITE_SYMBOL.get(op_name) or public_name(op_name), fn, *args, **kwargs)
    return handler


def register_dispatch():
    """The public tf.* functions of the composite table make TFOpLambda layers when given KerasTensors."""
    names = (_composite.UNARY + _composite.BINARY + _composite.REDUCE + _composite.STRING_UNARY
             + _composite.LISTS + _composite.FIRST)
    for n in names:
        _composite.register(KerasTensor, n, _table_handler(n))
    _composite.register_fallback(has_keras_tensor, _composite_fallback)


# ------------------------------------------------------------------------------------------ operators
def _binary(symbol, fn, reflected=False):
    def op(self, other):
        return op_layer_call(symbol, fn, other, self) if reflected else op_layer_call(symbol, fn, self, other)
    return op


def _slice_to_dict(x):
    return {"start": x.start, "stop": x.stop, "step": x.step} if isinstance(x, slice) else x


def _slicing(self, slice_spec):
    """x[...]: a SlicingOpLambda; as tf_keras, slices travel as dicts (KerasTensors in them are arguments too)."""
    if isinstance(slice_spec, (list, tuple)):
        slice_spec = type(slice_spec)(_slice_to_dict(x) for x in slice_spec)
    else:
        slice_spec = _slice_to_dict(slice_spec)
    return op_layer_call("__operators__.getitem", _getitem, self, slice_spec, _layer_class=SlicingOpLambda)


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
    cls.__getitem__ = _slicing
    cls.__array_ufunc__ = None  # NumPy scalars and arrays defer to the reflected operators


_REFUSED = ("You are passing {}, an intermediate TF-Keras symbolic input/output, to a TF API that does not allow "
            "registering custom dispatchers, such as `tf.cond`, `tf.function`, gradient tapes, or `tf.map_fn`. "
            "TF-Keras Functional model construction only supports TF API calls that *do* support dispatching, such "
            "as `tf.math.add` or `tf.reshape`. Other APIs cannot be called directly on symbolic Keras"
            "inputs/outputs. You can work around this limitation by putting the operation in a custom TF-Keras "
            "layer `call` and calling that layer on this symbolic input/output.")


def _refuse_array(self, dtype=None, copy=None):
    raise TypeError(_REFUSED.format(self))


def _iterate(self):
    """As a tensor of known first dimension: its rows (x[0], x[1] ...), each a TFOpLambda output."""
    dims = self.shape.as_list() if self.shape.rank is not None else None
    if dims is None:
        raise TypeError("Cannot iterate over a Tensor with unknown shape.")
    if not dims:
        raise TypeError("Cannot iterate over a scalar.")
    if dims[0] is None:
        raise TypeError("Cannot iterate over a Tensor with unknown first dimension.")
    return (self[i] for i in range(dims[0]))


def _refuse_len(self):
    raise TypeError("Keras symbolic inputs/outputs do not implement `__len__`. You may be trying to pass TF-Keras "
                    "symbolic inputs/outputs to a TF API that does not register dispatching, preventing TF-Keras "
                    "from automatically converting the API call to a lambda layer in the Functional Model. This "
                    "error will also get raised if you try asserting a symbolic input/output directly.")


install_operators(KerasTensor)
KerasTensor.__array__ = _refuse_array  # an API that does not dispatch (tf.map_fn, tf.sparse.to_dense): TF's error
KerasTensor.__len__ = _refuse_len
KerasTensor.__iter__ = _iterate
register_dispatch()


def _install_on_first_keras_tensor():
    """The face's wrappers go in when the first KerasTensor is made (an Input): eager programs that load Keras
    only for its losses, optimizers or subclassed models keep calling the bare functions."""
    original = KerasTensor.__init__

    def first_init(self, *args, **kwargs):
        KerasTensor.__init__ = original
        install_face_dispatch()
        _composite.register_namespace_hook(install_face_dispatch)
        original(self, *args, **kwargs)
    KerasTensor.__init__ = first_init


_install_on_first_keras_tensor()
