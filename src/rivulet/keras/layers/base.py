"""tf.keras.layers.Layer: lazy build on the first call, weights, `training` propagation, name numbering.

The eager hot path of `__call__` is one flag test, one isinstance and one dtype compare before `call`:
no name scopes and no bookkeeping, so a Dense layer costs about its matmul, bias add and activation.
"""
import functools
import inspect
import threading

import rivulet as tf
from rivulet import errors, nest
from rivulet.checkpoint.checkpoint import apply_deferred
from rivulet.core.context import SLOW as _SLOW, current_graph
from rivulet.core.tensor import Tensor

from .. import backend, initializers, regularizers

_MISSING = object()


class _CallState(threading.local):
    depth = 0  # nesting of layer calls on this thread (the outermost call clears call-time losses)


_CALL_STATE = _CallState()
_LOSSES_USED = [False]  # set once any layer adds a loss in `call`: until then no call pays for clearing
_ALLOWED_KWARGS = frozenset(["input_shape", "batch_input_shape", "batch_size", "input_dim", "weights",
                             "activity_regularizer", "autocast", "implementation", "dynamic"])


class _CallSpec:
    """What a `call` accepts, read once per function: `training` (and where), `mask`."""
    __slots__ = ("takes_training", "training_pos", "takes_mask", "training_default", "training_required")

    def __init__(self, fn):
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            params = []
        names = [p.name for p in params]
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        self.takes_training = "training" in names or var_kw
        self.takes_mask = "mask" in names
        self.training_pos = None
        self.training_default = None
        self.training_required = False  # `def call(self, x, training)`: tf_keras passes it, None when unknown
        if "training" in names:
            p = params[names.index("training")]
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                self.training_pos = names.index("training")  # position among call's args (self excluded)
            if p.default is not inspect.Parameter.empty:
                self.training_default = p.default
            else:
                self.training_required = True


_SPECS = {}


def call_spec(fn):
    key = getattr(fn, "__func__", fn)
    spec = _SPECS.get(key)
    if spec is None:
        spec = _SPECS[key] = _CallSpec(fn)
    return spec


def _is_variable(v):
    var = getattr(tf, "Variable", None)
    return var is not None and isinstance(v, var)


class InputSpec:
    """What a layer accepts: `ndim`, `min_ndim`, `max_ndim`, and `axes` ({axis: size})."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None):
        self.dtype, self.name = dtype, name
        self.shape = tuple(shape) if shape is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim, self.min_ndim = max_ndim, min_ndim
        self.axes = dict(axes or {})

    def incompatibility(self, shape):
        """Why `shape` does not fit (Keras's wording), or None."""
        rank = shape.rank
        if rank is None:
            return None
        full = tuple(shape.as_list())
        if self.ndim is not None and rank != self.ndim:
            return f"expected ndim={self.ndim}, found ndim={rank}. Full shape received: {full}"
        if self.max_ndim is not None and rank > self.max_ndim:
            return f"expected max_ndim={self.max_ndim}, found ndim={rank}"
        if self.min_ndim is not None and rank < self.min_ndim:
            return f"expected min_ndim={self.min_ndim}, found ndim={rank}. Full shape received: {full}"
        for axis, size in self.axes.items():
            if -rank <= axis < rank and size is not None and full[axis] not in (None, size):
                return (f"expected axis {axis} of input shape to have value {size}, but received input with "
                        f"shape {full}")
        if self.shape is not None:
            for want, got in zip(self.shape, full):
                if want is not None and got is not None and want != got:
                    return f"expected shape={self.shape}, found shape={full}"
        return None

    def __repr__(self):
        return f"InputSpec(ndim={self.ndim}, min_ndim={self.min_ndim}, axes={self.axes})"


class Layer:
    """Base class of all layers. Subclasses define `build(input_shape)` (create weights) and `call(inputs)`."""

    # Attributes never searched for sublayers or variables (they hold bookkeeping, not children).
    _UNTRACKED = frozenset(["_trainable_weights", "_non_trainable_weights", "_inbound", "_callable_losses",
                            "_added_metrics",
                            "_losses", "_nodes", "_input_layers", "_output_tensors", "_input_tensors",
                            "compiled_loss", "compiled_metrics", "optimizer", "history", "_train_fn",
                            "_eval_fn", "_predict_fn", "stop_training", "_keras_input"])

    def _checkpoint_children(self):  # checkpoints' children protocol (checkpoint/trackable.py)
        from ..saving.checkpoint_names import layer_children
        return layer_children(self)

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        for k in kwargs:
            if k not in _ALLOWED_KWARGS:
                raise TypeError("Keyword argument not understood:", k)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be a string, got {name!r}")
        self._name = name or backend.unique_name(backend.to_snake_case(type(self).__name__))
        self._trainable = trainable
        self._set_dtype_policy(dtype)
        self._autocast = kwargs.get("autocast", True)
        self.dynamic = dynamic
        self.built = False
        self._plain = False  # set after build: call takes neither `training` nor `mask`
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._callable_losses = []
        self._losses = []
        self._inbound = []  # KerasTensor nodes this layer produced (functional API)
        self._out_shape = None
        self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
        batch_input_shape = kwargs.get("batch_input_shape")
        if batch_input_shape is None and ("input_shape" in kwargs or "input_dim" in kwargs):
            shape = kwargs["input_shape"] if "input_shape" in kwargs else (kwargs["input_dim"],)
            batch_input_shape = (kwargs.get("batch_size"),) + tuple(shape)
        self._batch_input_shape = tuple(batch_input_shape) if batch_input_shape is not None else None
        self._initial_weights = kwargs.get("weights")

    # -- identity ---------------------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    def _set_dtype_policy(self, dtype):
        """The layer's dtype policy (mixed_precision.Policy) from its `dtype=` argument or the global policy:
        `_dtype` is the compute dtype (inputs are cast to it), `_variable_dtype` the weights' dtype."""
        from ..mixed_precision import policy
        self._dtype_policy = policy.get_policy(dtype)
        try:
            self._dtype = tf.as_dtype(self._dtype_policy.compute_dtype)
            self._variable_dtype = tf.as_dtype(self._dtype_policy.variable_dtype)
        except TypeError:
            raise TypeError(f"Layer '{self._name}': the dtype policy '{self._dtype_policy.name}' computes in "
                            f"{self._dtype_policy.compute_dtype}, which rivulet does not have (NumPy has no "
                            f"bfloat16): use 'mixed_float16' or 'float32'") from None
        # Under a mixed policy, calls read the float variables in the compute dtype (AutoCastVariable).
        self._autocast_dtype = self._dtype if self._variable_dtype is not self._dtype else None

    @property
    def dtype_policy(self):
        return self._dtype_policy

    @property
    def dtype(self):
        """The variable dtype (as tf_keras: for a 'mixed_float16' layer, 'float32')."""
        return self._variable_dtype.name

    @property
    def compute_dtype(self):
        return self._dtype.name

    @property
    def variable_dtype(self):
        return self._variable_dtype.name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        for layer in self._flatten_layers():
            layer._trainable = bool(value)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object at 0x{id(self):x}>"

    # -- calling ----------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # (Once any layer has added a loss while called, calls take the general path, which keeps each
        # outermost call's losses together.)
        if self._plain and not kwargs and not _LOSSES_USED[0]:
            x = args[0]
            if isinstance(x, Tensor) and x.dtype is self._dtype:
                try:
                    if _SLOW[0] and current_graph() is not None:
                        return self._graph_call()(*args)
                    return self.call(*args)
                except Exception as e:
                    if isinstance(e, (ValueError, errors.InvalidArgumentError)):
                        self._check_input_spec(x)
                    _add_call_info(self, e, args, kwargs)
                    raise
        try:
            return self._call_general(args, dict(kwargs))
        except Exception as e:
            if args and isinstance(e, (ValueError, errors.InvalidArgumentError)):
                self._check_input_spec(args[0])
            _add_call_info(self, e, args, kwargs)
            raise

    def _check_input_spec(self, inputs):
        """After `call` failed: a ValueError naming the layer if the inputs do not fit its `input_spec`.
        (Checked only on failure, so the eager hot path pays nothing.)"""
        spec = self.input_spec
        if spec is None or nest.is_nested(inputs):
            return
        shape = getattr(inputs, "shape", None)
        if shape is None:
            return
        try:
            shape = tf.TensorShape(shape)
        except (TypeError, ValueError):
            return
        message = spec.incompatibility(shape)
        if message:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: {message}")

    def _graph_call(self):
        """`call` as graphs need it: converted by AutoGraph (TensorFlow converts a layer's call too), so a
        tensor `if` in a user's layer becomes graph control flow. Library layers come back unchanged."""
        call = self.call
        cached = self.__dict__.get("_autograph_call")
        if cached is not None and cached[0] == call:
            return cached[1]
        from ...autograph.impl import convert
        converted = convert(call)
        self.__dict__["_autograph_call"] = (call, converted)
        return converted

    input_spec = None

    def _call_general(self, args, kwargs):
        if _LOSSES_USED[0] and not _CALL_STATE.depth:
            self._clear_call_losses()
        _CALL_STATE.depth += 1
        try:
            return self._call_general_inner(args, kwargs)
        finally:
            _CALL_STATE.depth -= 1

    def _call_general_inner(self, args, kwargs):
        if args:
            inputs, args = args[0], args[1:]
        elif "inputs" in kwargs:
            inputs = kwargs.pop("inputs")
        else:
            raise ValueError("The first argument to `Layer.call` must always be passed.")
        from .input_layer import KerasTensor, call_symbolic
        if any(isinstance(t, KerasTensor) for t in nest.flatten(inputs)):
            return call_symbolic(self, inputs, args, kwargs)
        inputs = self._convert_inputs(inputs)
        if not self.built:
            self._maybe_build(inputs)
        call = self.call
        spec = call_spec(call)
        if _SLOW[0] and current_graph() is not None:
            call = self._graph_call()
        training = kwargs.pop("training", _MISSING) if "training" in kwargs else _MISSING
        positional = spec.training_pos is not None and len(args) >= spec.training_pos
        if positional:
            training = args[spec.training_pos - 1]
        explicit = training is not _MISSING
        if not explicit:
            training = backend.CALL_TRAINING[0]
        if spec.takes_training and not positional and (training is not None or spec.training_required):
            kwargs["training"] = training
        mask = self._incoming_mask(inputs, kwargs, spec)
        if self._autocast_dtype is not None:
            call = _autocasting(call, self._autocast_dtype)
        if not explicit:
            return self._set_mask(inputs, mask, self._finish(call(inputs, *args, **kwargs)))
        saved = backend.CALL_TRAINING[0]
        backend.CALL_TRAINING[0] = training
        try:
            return self._set_mask(inputs, mask, self._finish(call(inputs, *args, **kwargs)))
        finally:
            backend.CALL_TRAINING[0] = saved

    # -- masks (Keras 2's: a layer whose call takes `mask` gets its input's; compute_mask gives the output's) --
    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        return mask if self.supports_masking else None

    def _incoming_mask(self, inputs, kwargs, spec):
        from .masking import get_mask
        mask = kwargs.get("mask")
        if mask is None:
            flat = nest.flatten(inputs)
            masks = [get_mask(t) for t in flat]
            if any(m is not None for m in masks):
                mask = masks[0] if len(flat) == 1 else masks
                if spec.takes_mask:
                    kwargs["mask"] = mask
        return mask

    def _set_mask(self, inputs, mask, outputs):
        if mask is None and type(self).compute_mask is Layer.compute_mask:
            return outputs
        out_mask = self.compute_mask(inputs, mask)
        if out_mask is not None:
            from .masking import set_mask
            for o, m in zip(nest.flatten(outputs), out_mask if isinstance(out_mask, (list, tuple))
                            else [out_mask] * len(nest.flatten(outputs))):
                if m is not None:
                    set_mask(o, m)
        return outputs

    def _finish(self, outputs):
        if self.activity_regularizer is not None:
            self._losses = [self.activity_regularizer(o) / tf.cast(tf.shape(o)[0], o.dtype)
                            for o in nest.flatten(outputs)]
        return outputs

    def _convert_inputs(self, inputs):
        """NumPy/Python inputs become tensors; floating inputs are cast to the layer's dtype (autocast)."""
        def conv(x):
            if isinstance(x, Tensor) or _is_variable(x):
                if self._autocast and x.dtype is not self._dtype and x.dtype.is_floating and \
                        self._dtype.is_floating:
                    return tf.cast(x, self._dtype)
                return x
            if hasattr(x, "__array__") or isinstance(x, (float, int)):
                t = tf.convert_to_tensor(x)
                return conv(t)
            return x
        if isinstance(inputs, (list, tuple, dict)):
            return nest.map_structure(conv, inputs)
        return conv(inputs)

    def _maybe_build(self, inputs):
        if not self.built:
            for x in nest.flatten(inputs):
                if not hasattr(x, "shape"):
                    raise ValueError(f"Inputs to a layer should be tensors. Got {x!r} (of type {type(x)}) as input "
                                     f"for layer '{self.name}'.")
            shapes = nest.map_structure(lambda t: t.shape, inputs) if nest.is_nested(inputs) else inputs.shape
            # Weights are created eagerly even when the first call is being traced by tf.function.
            with tf.init_scope():
                self.build(shapes)
            self.built = True
            self._built_input_shape = _shape_config(shapes)
            apply_deferred(self)  # values a checkpoint restored before these weights existed
            if self._initial_weights is not None:
                self.set_weights(self._initial_weights)
                self._initial_weights = None
        self._set_plain()

    def _set_plain(self):
        """Whether calls may skip the general path: `call` takes neither `training` nor `mask`, and nothing
        runs around it (masks, activity regularisers, a subclass's _finish)."""
        spec = call_spec(type(self).call.__get__(self))
        self._plain = self._autocast_dtype is None and not (spec.takes_training or spec.takes_mask) and \
            type(self)._finish is Layer._finish \
            and self.activity_regularizer is None and type(self).compute_mask is Layer.compute_mask \
            and not self.supports_masking

    def build(self, input_shape):
        self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement compute_output_shape.")

    # -- weights ----------------------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                   constraint=None, synchronization=None, aggregation=None, **kwargs):
        """Creates a variable owned by this layer (trainable unless told otherwise)."""
        shape = () if shape is None else tuple(shape)
        if not all(hasattr(d, "__index__") and not isinstance(d, bool) and 0 <= d.__index__() < 1 << 63 for d in shape):
            # (a layer built from a config with units 2**64 or -1): TensorFlow's dimensions are int64
            raise ValueError(f"Layer '{self.name}': the shape {shape} of weight '{name}' must be non-negative "
                             f"integers below 2**63")
        dtype = tf.as_dtype(getattr(dtype, "name", dtype) or self._variable_dtype)
        autocast = kwargs.pop("experimental_autocast", True) and self._autocast_dtype is not None and \
            dtype.is_floating
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        trainable = True if trainable is None else bool(trainable)
        with tf.init_scope():
            value = init(shape, dtype=dtype)
            if tuple(getattr(value, "shape", shape)) != shape:  # an op that took the shape as int32 and wrapped
                raise ValueError(f"Layer '{self.name}': the initializer of weight '{name}' gave shape "
                                 f"{tuple(value.shape)}, not {shape}")
            make = tf.Variable
            if autocast:
                from ..mixed_precision.autocast_variable import AutoCastVariable as make
            var = make(value, trainable=trainable, name=f"{self._name}/{name}" if name else self._name,
                       dtype=dtype)
        var._keras_constraint = constraint
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        reg = regularizers.get(regularizer)
        if reg is not None:
            self._callable_losses.append(lambda: reg(var))
        return var

    def _flatten_layers(self, include_self=True, recursive=True):
        """This layer and its sublayers found in attributes (also inside lists, tuples, dicts), in order."""
        seen = set()
        out = []

        def visit(layer):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            if recursive or layer is self:
                for child in layer._direct_children():
                    visit(child)
        if include_self:
            visit(self)
        else:
            seen.add(id(self))
            for child in self._direct_children():
                visit(child)
        return out

    def _direct_children(self):
        found = []
        for key, value in self.__dict__.items():
            if key not in self._UNTRACKED:
                _collect(value, Layer, found, 0)
        return found

    def _own_weights(self):
        """Weights created here: by add_weight, or variables assigned to attributes directly."""
        trainable, non_trainable = list(self._trainable_weights), list(self._non_trainable_weights)
        if getattr(tf, "Variable", None) is not None:
            known = {id(v) for v in trainable + non_trainable}
            found = []
            for key, value in self.__dict__.items():
                if key not in self._UNTRACKED:
                    _collect(value, tf.Variable, found, 0)
            for v in found:
                if id(v) not in known:
                    known.add(id(v))
                    (trainable if v.trainable else non_trainable).append(v)
        return trainable, non_trainable

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        out = []
        for layer in self._flatten_layers():
            if layer._trainable:
                out.extend(layer._own_weights()[0])
        return _dedup(out)

    @property
    def non_trainable_weights(self):
        out = []
        for layer in self._flatten_layers():
            t, nt = layer._own_weights()
            if not layer._trainable or not self._trainable:
                out.extend(t)
            out.extend(nt)
        # Frozen layers' trainable weights come first, as their own weights do in Keras.
        return _dedup(out)

    @property
    def weights(self):
        return _dedup(self.trainable_weights + self.non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def submodules(self):
        return tuple(self._flatten_layers(include_self=False))

    @property
    def losses(self):
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._losses)
            out.extend(fn() for fn in layer._callable_losses)
        return out

    def add_loss(self, loss):
        if callable(loss):
            self._callable_losses.append(loss)
        else:
            # A loss added while calling: it belongs to that call. The outermost call clears the previous
            # ones (as Keras), so this layer takes the general call path from now on.
            self._losses.append(loss)
            self._plain = False
            _LOSSES_USED[0] = True

    def add_metric(self, value, name=None, aggregation=None, **kwargs):
        """Tracks the running mean of `value` (a tensor computed in `call`) as the metric `name`; a model's
        fit/evaluate report it next to the compiled metrics."""
        if aggregation not in (None, "mean"):
            raise ValueError(f"We currently support only `mean` sample-wise metric aggregation. You provided "
                             f"aggregation=`{aggregation}`")
        if name is None:
            raise ValueError("Please provide a name for your metric like `self.add_metric(tf.reduce_sum(inputs), "
                             "name='mean_activation')`")
        tracked = self.__dict__.setdefault("_added_metrics", {})
        metric = tracked.get(name)
        if metric is None:
            from ..metrics import Mean
            with tf.init_scope():
                metric = tracked[name] = Mean(name=name)
        self._plain = False
        metric.update_state(value)

    @property
    def metrics(self):
        """Metrics added with add_metric, by this layer and its sublayers."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer.__dict__.get("_added_metrics", {}).values())
        return out

    def _clear_call_losses(self):
        for layer in self._flatten_layers():
            if layer._losses:
                layer._losses = []

    def get_weights(self):
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(params)} weights. Provided "
                             f"weights: {str(weights)[:50]}...")
        for p, w in zip(params, weights):
            w = getattr(w, "numpy", lambda w=w: w)()
            if tuple(p.shape) != tuple(getattr(w, "shape", ())):
                raise ValueError(f"Layer {self.name} weight shape {tuple(p.shape)} is not compatible with provided "
                                 f"weight shape {tuple(getattr(w, 'shape', ()))}.")
            p.assign(w)

    def count_params(self):
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the layer isn't built. "
                             f"You can build it manually via: `{self.name}.build(batch_input_shape)`.")
        return int(sum(_size(w) for w in self.weights))

    # -- shapes (known once called on symbolic inputs) -----------------------------------------------------
    @property
    def output_shape(self):
        if self._out_shape is None:
            raise AttributeError(f"The layer \"{self.name}\" has never been called and thus has no defined output "
                                 f"shape.")
        return self._out_shape

    @property
    def input(self):
        if not self._inbound:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        return self._inbound[0].inputs

    @property
    def output(self):
        if not self._inbound:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self._inbound[0].outputs

    # -- config -----------------------------------------------------------------------------------------
    def __init_subclass__(cls, **kwargs):
        """Every layer class's __init__ records the arguments it was called with (the outermost call only),
        so `get_config` works for any layer, including new ones that define no get_config of their own."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records_args", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            if "_init_call" not in self.__dict__:
                self.__dict__["_init_call"] = (init, args, kw)
            init(self, *args, **kw)
        __init__._records_args = True
        cls.__init__ = __init__

    def _init_arguments(self):
        """{argument: value} of the outermost __init__ call, defaults included, **kwargs spread out."""
        call = self.__dict__.get("_init_call")
        if call is None:
            return {}
        init, args, kw = call
        try:
            bound = inspect.signature(init).bind(self, *args, **kw)
        except TypeError:
            return {}
        bound.apply_defaults()
        out = {}
        for name, param in list(inspect.signature(init).parameters.items())[1:]:
            if param.kind is inspect.Parameter.VAR_KEYWORD:  # base-layer keywords are config of their own
                out.update((k, v) for k, v in bound.arguments.get(name, {}).items() if k not in _NOT_CONFIG)
            elif param.kind is not inspect.Parameter.VAR_POSITIONAL:
                out[name] = bound.arguments.get(name)
        return out

    def get_config(self):
        """name, trainable, dtype (and batch_input_shape), then the constructor's arguments. A user's layer
        that defines its own get_config gets only the first part from `super().get_config()`, as in Keras 2;
        rivulet's layers, and user layers without a get_config, get the arguments too."""
        from ..saving.serialization import serialize_keras_object
        from ..mixed_precision.policy import serialize
        config = {"name": self.name, "trainable": self.trainable, "dtype": serialize(self._dtype_policy)}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        if not type(self).get_config.__module__.startswith("rivulet."):
            return config
        for k, v in self._init_arguments().items():
            if k not in config:
                config[k] = serialize_keras_object(v)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ..saving.serialization import deserialize_nested
        return cls(**deserialize_nested(dict(config), custom_objects))

    def _build_config(self):
        shape = self.__dict__.get("_built_input_shape")
        return {"input_shape": shape} if self.built and shape is not None else None

    def build_from_config(self, config):
        """Creates the weights for `config["input_shape"]` (what `get_build_config` recorded)."""
        shape = config.get("input_shape") if isinstance(config, dict) else None
        if shape is None or self.built:
            return
        shapes = [tf.TensorShape(x) for x in shape] if shape and isinstance(shape[0], list) else \
            tf.TensorShape(shape)
        with tf.init_scope():
            self.build(shapes)
        self.built = True
        self._built_input_shape = shape
        apply_deferred(self)

    def get_build_config(self):
        return self._build_config()


_NOT_CONFIG = frozenset(["input_shape", "input_dim", "batch_size", "weights", "batch_input_shape", "name",
                         "trainable", "dtype", "dynamic", "autocast"])


def _autocasting(call, dtype):
    """`call` with the layer's AutoCastVariables read in its compute dtype."""
    from ..mixed_precision.autocast_variable import enable_auto_cast_variables

    def run(*args, **kwargs):
        with enable_auto_cast_variables(dtype):
            return call(*args, **kwargs)
    return run


def _shape_config(shapes):
    """A (structure of) TensorShape as JSON lists, for build_config."""
    def one(s):
        try:
            s = tf.TensorShape(s)
        except (TypeError, ValueError):  # not one shape (a layer called on a nested Python list): nothing to record
            return None
        return s.as_list() if s.rank is not None else None
    if isinstance(shapes, (list, tuple)) and shapes and not isinstance(shapes[0], (int, type(None))):
        return [one(s) for s in shapes]
    if isinstance(shapes, dict):
        return None
    return one(shapes)


def _add_call_info(layer, e, args, kwargs):
    """As tf_keras does, the innermost failing layer prefixes the error with its name and appends the call
    arguments it received; the exception keeps its type (its message is rewritten in place)."""
    if getattr(e, "_keras_call_info_injected", False) or not e.args or not isinstance(e.args[0], str):
        return
    try:
        bound = inspect.signature(layer.call).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        bound = {}
    who = f"layer '{layer.name}' (type {type(layer).__name__})"
    lines = [f"  \u2022 {k}={_format_argument(v)}" for k, v in bound.items()]
    message = f"Exception encountered when calling {who}.\n\n{e.args[0]}\n\nCall arguments received by {who}:\n" + \
        "\n".join(lines)
    try:
        e.args = (message,) + e.args[1:]
        if isinstance(e, errors.OpError):
            e.message = message
        e._keras_call_info_injected = True
    except (AttributeError, TypeError):  # exceptions with read-only state keep their own message
        pass


def _format_argument(value):
    if isinstance(value, Tensor):
        return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
    return repr(value)


def _collect(value, cls, out, depth):
    if isinstance(value, cls):
        out.append(value)
    elif depth < 8 and isinstance(value, (list, tuple)):
        for v in value:
            _collect(v, cls, out, depth + 1)
    elif depth < 8 and isinstance(value, dict):
        for v in value.values():
            _collect(v, cls, out, depth + 1)


def _dedup(weights):
    seen = set()
    out = []
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out


def _size(w):
    n = 1
    for d in w.shape:
        n *= d
    return n
