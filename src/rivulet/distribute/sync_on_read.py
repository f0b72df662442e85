"""SyncOnReadVariable: a variable made with `synchronization=ON_READ` under a strategy of several replicas.

As in TensorFlow, each replica has a component of its own: inside `strategy.run` a replica reads and updates
only its component (no merge, no synchronisation: what per-replica accumulators such as metrics' totals
need), and a read in cross-replica context combines the components by the variable's aggregation (SUM adds
them, MEAN averages them, ONLY_FIRST_REPLICA takes replica 0's, NONE refuses). An assign in cross-replica
context sets every component (SUM divides the value among them); assign_add/assign_sub there update every
component (refused for SUM, as TensorFlow refuses them).
"""
import numpy as np

from ..core import context as _core
from ..core.dispatch import bind
from ..core.tensor import EagerTensor, convert_to_tensor
from ..state import resource_ops as _r
from ..state.variables import ResourceVariable, VariableAggregation, VariableSynchronization
from . import context as _ctx
from .values import distributed_repr

_SLOW = _core.SLOW


def _reduce_error(aggregation):
    return ValueError(f"Could not convert from `tf.VariableAggregation` VariableAggregationV2.{aggregation.name} "
                      f"to`tf.distribute.ReduceOp` type")


class SyncOnReadVariable(ResourceVariable):
    """One component variable per replica (`_replica_components`), read as described in the module."""

    # -- which component ----------------------------------------------------------------------------------
    def _component(self):
        """The calling replica's component, or None in cross-replica context (and outside the strategy)."""
        entries = _ctx.entries()
        if entries:
            strategy, rc = entries[-1]
            if rc is not None and strategy is self._strategy:
                # (a tf.function each replica calls is traced per replica: polymorphic.set_call_device)
                return self._replica_components[rc._replica_id]
        return None

    @property
    def _res(self):  # the storage ops read and write: the replica's own (the primary one across replicas)
        c = self._component()
        return self._replica_components[0] if c is None else c

    @property
    def _value(self):
        c = self._component()
        if c is not None:
            return c._value
        values = [c._value for c in self._replica_components]
        agg = self._aggregation
        if agg is VariableAggregation.NONE:
            raise _reduce_error(agg)
        if agg is VariableAggregation.ONLY_FIRST_REPLICA:
            return values[0]
        total = values[0]
        for v in values[1:]:
            total = np.add(total, v)
        if agg is VariableAggregation.MEAN:
            total = np.true_divide(total, len(values))
        return np.asarray(total, dtype=np.asarray(values[0]).dtype)[()]

    @_value.setter
    def _value(self, value):  # (a checkpoint restoring it): as an assign in cross-replica context
        self._update(_r.ASSIGN, value, None, False)

    # -- reading ------------------------------------------------------------------------------------------
    def _as_tensor(self, dtype=None, name=None, as_ref=False):
        if not _SLOW[0]:
            return EagerTensor(self._value)
        return self._read()

    def _read(self):
        c = self._component()
        if c is not None:
            return c._read()
        agg = self._aggregation
        if agg is VariableAggregation.NONE:
            raise _reduce_error(agg)
        reads = [bind(_r.READ, (c,), c._read_attrs) for c in self._replica_components]
        if agg is VariableAggregation.ONLY_FIRST_REPLICA:
            return reads[0]
        from ..ops.math_ops import add_n, cast
        total = add_n(reads)
        if agg is VariableAggregation.MEAN:  # (floating only: MEAN of integers is refused when it is made)
            total = cast(total / len(reads), self._dtype)
        return total

    # -- writing ------------------------------------------------------------------------------------------
    def _update(self, op, value, name, read_value):
        c = self._component()
        if c is not None:
            return c._update(op, value, name, read_value)
        agg = self._aggregation
        if op is not _r.ASSIGN and agg is VariableAggregation.SUM:
            method = "assign_add" if op is _r.ASSIGN_ADD else "assign_sub"
            raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                             f"aggregation is set to `tf.VariableAggregation.SUM`.")
        if op is _r.ASSIGN and agg is VariableAggregation.SUM:
            from ..ops.math_ops import cast
            t = convert_to_tensor(value, dtype=self._dtype)
            value = cast(t / len(self._replica_components), self._dtype)
        for c in self._replica_components:
            c._update(op, value, name, False)
        if agg is VariableAggregation.NONE and read_value:
            raise _reduce_error(agg)  # (assigned; reading the result back is what fails, as in TensorFlow)
        return self if read_value else None

    # -- Python protocol ----------------------------------------------------------------------------------
    def __repr__(self):
        return distributed_repr("SyncOnReadVariable", self._replica_components)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        raise NotImplementedError("deepcopy of a SyncOnReadVariable is not supported")


def make(strategy, next_creator, kwargs):
    """The variable `tf.Variable(**kwargs)` makes under `strategy` (several replicas in this process):
    a SyncOnReadVariable for synchronization ON_READ, None for the others."""
    sync = kwargs.get("synchronization")
    if sync is None or VariableSynchronization(sync) is not VariableSynchronization.ON_READ:
        return None
    first = next_creator(**kwargs)
    base = first.name[:-2]
    comps = [first] + [next_creator(**dict(kwargs, name=f"{base}/replica_{i}"))
                       for i in range(1, strategy.num_replicas_in_sync)]
    for i, c in enumerate(comps[1:], 1):  # every replica starts from the first one's value (an initializer
        c._value = np.copy(first._value)     # may be random), named as TensorFlow names them
        c._name = f"{base}/replica_{i}:0"
    v = object.__new__(SyncOnReadVariable)
    d = first.__dict__.copy()
    for k in ("_value", "_res"):
        d.pop(k, None)
    v.__dict__.update(d)
    v._replica_components = comps
    v._strategy = strategy
    return v
