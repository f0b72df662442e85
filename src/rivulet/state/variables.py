"""tf.Variable: a named, mutable array that ops read and assign through a resource handle.

Eagerly a variable is just `_value` (a NumPy value, replaced on every assign, never written into).
Reads build a ReadVariableOp only when someone must see them (a graph being built, a tape recording);
otherwise `_as_tensor` wraps the current array directly, which is what keeps eager training loops fast.
"""
import enum
import itertools
import threading

import numpy as np

from .. import dtypes as _dt
from ..core import context
from ..core.dispatch import bind
from ..core.tensor import EagerTensor, SymbolicTensor, numpy_text, Ref, convert_to_tensor, static_value
from ..errors import InvalidArgumentError
from ..shape import TensorShape
from . import creation as _creator
from . import naming
from . import resource_ops as _r

_SLOW = context.SLOW
_E = EagerTensor
_uids = itertools.count(1)


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


_PARAMS = ("initial_value", "trainable", "validate_shape", "caching_device", "name", "variable_def", "dtype",
           "import_scope", "constraint", "synchronization", "aggregation", "shape",
           "experimental_enable_variable_lifting")
_DEFAULTS = dict(initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE, shape=None,
                 experimental_enable_variable_lifting=True)


class _VariableMeta(type):
    """`tf.Variable(...)` builds a ResourceVariable, through the active variable creator scopes if any."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable:
            cls = ResourceVariable
        if not _creator.active():
            return type.__call__(cls, *args, **kwargs)
        if len(args) > len(_PARAMS):
            raise TypeError(f"Variable() takes at most {len(_PARAMS)} positional arguments")
        full = dict(_DEFAULTS)
        full.update(zip(_PARAMS, args))
        full.update(kwargs)
        return _creator.create(lambda **kw: type.__call__(cls, **kw), full)


class Variable(metaclass=_VariableMeta):
    """tf.Variable(initial_value, trainable=None, name=None, dtype=None, shape=None, ...)."""
    _is_resource = True  # Graph.capture feeds the object itself to ReadVariableOp / Assign*VariableOp
    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE, shape=None,
                 experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are not "
                             "providing a `variable_def`. You provided neither.")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"The `name` of a tf.Variable must be a string, got {name!r} of type {type(name)}")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"The `constraint` argument must be a callable. Received: {constraint}")
        synchronization = VariableSynchronization(synchronization)
        if trainable is None:
            trainable = synchronization is not VariableSynchronization.ON_READ
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
        with context.init_scope():  # initializers run eagerly, even while a function is being traced
            value = _initial_value(initial_value, dtype)
        self._value = value
        self._dtype = _dt.from_numpy(np.asarray(value).dtype)
        static = TensorShape(np.shape(value))
        if shape is not None:
            declared = TensorShape(shape)
            if not declared.is_compatible_with(static):
                raise ValueError(f"The initial value's shape ({static}) is not compatible with the explicitly "
                                 f"supplied `shape` argument ({declared}).")
            static = declared
        elif not validate_shape:
            static = TensorShape(None)
        self._shape = static
        self._trainable = bool(trainable)
        self._name = naming.eager_prefix() + (name or "Variable") + ":0"
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = VariableAggregation(aggregation)
        if context.state.device is not None:  # made under tf.device: remember where
            from ..devices import current_eager_device
            self._device = current_eager_device()
        self._unique_id = next(_uids)
        self._res = self  # the variable that owns the storage (an UnreadVariable points at its parent)
        self._lock = threading.Lock()  # serialises this variable's updates (eager, and in compiled graphs)
        self._read_attrs = {"dtype": self._dtype, "shape": self._shape}

    # -- reading ---------------------------------------------------------------------------
    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        """convert_to_tensor(variable): the current value (a ReadVariableOp when a graph or tape needs one)."""
        if not _SLOW[0]:
            return _E(self._value)
        return self._read()

    def _read(self):
        return bind(_r.READ, (self._res,), self._read_attrs)

    def value(self):
        return self._as_tensor()

    def read_value(self):
        return self._as_tensor()

    def numpy(self):
        if context.current_graph() is not None:
            raise NotImplementedError("numpy() is only available when eager execution is enabled.")
        return _E(self._value).numpy()

    # -- writing ---------------------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._update(_r.ASSIGN, value, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update(_r.ASSIGN_ADD, delta, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update(_r.ASSIGN_SUB, delta, name, read_value)

    def _update(self, op, value, name, read_value):
        res = self._res
        if _REPLICA_UPDATE and res._aggregation is not _AGG_NONE:
            if _REPLICA_UPDATE[0](self, op, value, name):  # aggregated across a strategy's replicas, applied once
                return _unread(res) if read_value else None
        if op is not _r.ASSIGN and (self._dtype is _dt.string or self._dtype is _dt.bool):
            raise InvalidArgumentError(f"{op.name} is not defined for a {self._dtype.name} variable "
                                       f"('{res._name}'): only numeric variables can be added to or subtracted from")
        t = convert_to_tensor(value, dtype=self._dtype)
        if op is _r.ASSIGN:
            if not res._shape.is_compatible_with(t.shape):
                raise ValueError(f"Cannot assign value to variable ' {res._name}': Shape mismatch.The variable "
                                 f"shape {res._shape}, and the assigned value shape {t.shape} are incompatible.")
        g = context.current_graph() if _SLOW[0] else None
        if g is None:
            v = t._v
            if op is _r.ASSIGN:
                if v is value:  # a NumPy array the caller may still mutate
                    v = np.copy(v)
                with res._lock:
                    res._value = v
            else:
                with res._lock:  # read-modify-write: atomic per variable, as TensorFlow's resource updates
                    old = res._value
                    if np.shape(old) != np.shape(v):
                        raise InvalidArgumentError(_r.update_shape_error(np.shape(old), np.shape(v)) +
                                                   f" [Op:{op.name}]")
                    res._value = (np.add if op is _r.ASSIGN_ADD else np.subtract)(old, v)
        else:
            if op is not _r.ASSIGN and not (res._shape.is_compatible_with(t.shape) and
                                            res._shape.rank == t.shape.rank):
                raise ValueError(_r.update_shape_error(res._shape, t.shape))
            bind(op, (res, t), {"dtype": self._dtype}, name=name)
        if read_value:
            return _unread(res)
        return None if g is None else g._ops[-1]

    # -- properties ------------------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    trainable = property(lambda self: self._trainable)
    constraint = property(lambda self: self._constraint)
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)
    device = property(lambda self: getattr(self, "_device", None) or "/job:localhost/replica:0/task:0/device:CPU:0")

    @property
    def initial_value(self):
        """TensorFlow 2's eager variables keep no initial value (a model's loaded or trained weights would hold
        their initializer's arrays too): its RuntimeError."""
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    _shared_name = property(lambda self: self._name[:-2])

    def get_shape(self):
        return self._shape

    def ref(self):
        return Ref(self)

    def experimental_ref(self):
        return self.ref()

    # -- Python protocol ---------------------------------------------------------------------
    def __repr__(self):
        head = f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}"
        if context.current_graph() is not None:
            return head + ">"
        return f"{head}, numpy={numpy_text(self._value, True)}>"

    __str__ = __repr__

    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._value)
        return v if dtype is None else v.astype(dtype)

    def __bool__(self):
        return bool(self._as_tensor())

    def __int__(self):
        return int(self._as_tensor())

    def __float__(self):
        return float(self._as_tensor())

    def __index__(self):
        return self._as_tensor().__index__()

    def __iter__(self):
        return iter(self._as_tensor())

    def __deepcopy__(self, memo):
        return Variable(np.copy(self._value), trainable=self._trainable, name=self._name[:-2],
                        constraint=self._constraint, synchronization=self._synchronization,
                        aggregation=self._aggregation, shape=self._shape)

    def __copy__(self):
        return self

    def __getstate__(self):  # pickling: the lock is the process's own
        d = self.__dict__.copy()
        d.pop("_lock", None)
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._lock = threading.Lock()


class ResourceVariable(Variable):
    """The concrete class of `tf.Variable(...)`, named as in TensorFlow."""


class _UnreadVariable(ResourceVariable):
    """What `assign*` returns: the variable itself, under the name 'UnreadVariable'. Reading it later
    gives the variable's value at that time, as in TensorFlow."""
    _value = property(lambda self: self._res._value, lambda self, v: setattr(self._res, "_value", v))


def _unread(res):
    u = object.__new__(_UnreadVariable)
    d = res.__dict__.copy()
    del d["_value"]
    d["_name"] = "UnreadVariable"
    u.__dict__ = d
    return u


_AGG_NONE = VariableAggregation.NONE
_REPLICA_UPDATE = []  # fn(var, op, value, name): distribute/ gives it (strategies sit above state)


def register_replica_update(fn):
    """An update of a variable whose aggregation is not NONE goes to fn first, which returns True when it
    applied the update itself (in a replica of a multi-replica strategy: the replicas' values reduced by the
    variable's aggregation and applied once), False when the update is the variable's to apply."""
    _REPLICA_UPDATE[:] = [fn]


_LIFT = []  # eager_value(t): t's value in the call being traced; function/ gives it (tracing sits above state)


def register_lift(fn):
    _LIFT[:] = [fn]


def _initial_value(init, dtype):
    """The NumPy value of an initial value (a callable is called first), of `dtype` when given."""
    if callable(init):
        init = init()
    try:
        t = convert_to_tensor(init, dtype=dtype)
    except ValueError as e:
        raise ValueError(f"initial_value: {e}") from None
    if isinstance(t, SymbolicTensor):
        v = static_value(t)
        if v is not None:
            return v
        # Computed in the function being traced: lifted out of it (tf.init_scope), it is computed now,
        # from the values of this call's arguments and captures.
        v = _LIFT[0](t) if _LIFT else None
        if v is None:
            raise ValueError(
                f"Unable to lift tensor {t!r}: the initial value of a tf.Variable created inside a tf.function "
                "depends on the function's arguments, which have no values while tracing for a signature: pass "
                "a constant or a callable "
                "(`tf.Variable(lambda: ...)`), or create the variable outside the function.")
        return v._v
    v = t._v
    if v is init or (isinstance(init, np.ndarray) and isinstance(v, np.ndarray) and np.shares_memory(v, init)):
        v = np.copy(v)  # the caller's array stays theirs
    return v
