"""Distributed values: PerReplica (one value per replica) and the helpers that split and join them."""
import enum

from .. import nest
from ..core.context import current_graph
from ..core.tensor import convert_to_tensor, numpy_text
from ..state.variables import ResourceVariable


class ReduceOp(enum.Enum):
    """tf.distribute.ReduceOp: how values from replicas are combined."""
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        name = getattr(aggregation, "name", str(aggregation))
        if name in ("SUM", "MEAN"):
            return ReduceOp[name]
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to `tf.distribute.ReduceOp` "
                         f"type")


def as_reduce_op(op):
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str) and op.upper() in ("SUM", "MEAN"):
        return ReduceOp[op.upper()]
    raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or 'SUM'/'MEAN'), got {op!r}")


class PerReplica(tuple):
    """A value that differs per replica: one component per replica, in replica order.

    A tuple subclass on purpose: tf.nest flattens it into its components, so a tf.function that takes one
    traces on the components' specs and rebuilds a PerReplica on the way out."""
    __slots__ = ()

    @property
    def values(self):
        return tuple(self)

    def _text(self, fmt):
        return "PerReplica:{\n" + ",\n".join(f"  {i}: {fmt(v)}" for i, v in enumerate(self)) + "\n}"

    def __repr__(self):
        return self._text(repr)

    def __str__(self):
        return self._text(str)


class PerReplicaSpec(PerReplica):
    """The spec of a PerReplica value: one spec per replica (`DistributedDataset.element_spec`). A PerReplica
    itself, so a tf.function whose input_signature holds one gets its arguments rebuilt as per-replica values."""
    __slots__ = ()

    def __repr__(self):
        return f"PerReplicaSpec({', '.join(map(repr, self))})"

    __str__ = __repr__


def map_values(fn, structure):
    """Applies fn to each leaf of a structure, a PerReplica counting as one leaf (tf.nest would descend
    into it)."""
    if isinstance(structure, PerReplica):
        return fn(structure)
    if isinstance(structure, dict):
        return type(structure)((k, map_values(fn, v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*[map_values(fn, v) for v in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_values(fn, v) for v in structure)
    return fn(structure)


def select_replica(i, structure):
    """The structure as replica `i` sees it: each PerReplica replaced by its i-th component."""
    return map_values(lambda v: v[i] if isinstance(v, PerReplica) else v, structure)


def regroup(per_replica, wrap=False):
    """Joins a list of per-replica structures into one structure of PerReplica leaves. A leaf that is the
    same non-tensor object on every replica (a variable, None, a Python value) stays that object; tensors
    stay per replica even when equal, as in TensorFlow. With `wrap`, one replica's tensors are PerReplica
    too (this process's part of a multi-worker strategy's replicas)."""
    from ..core.tensor import Tensor
    first = per_replica[0]
    if len(per_replica) == 1 and not wrap:
        return first
    for other in per_replica[1:]:
        nest.assert_same_structure(first, other, check_types=False)
    flats = [nest.flatten(s) for s in per_replica]
    leaves = [xs[0] if not isinstance(xs[0], Tensor) and all(x is xs[0] for x in xs) else PerReplica(xs)
              for xs in zip(*flats)]
    return nest.pack_sequence_as(first, leaves)


def local_results(value):
    """strategy.experimental_local_results: the per-replica components, or (value,) for a plain value."""
    if isinstance(value, PerReplica):
        return tuple(value)
    comps = getattr(value, "_replica_components", None)  # a SyncOnReadVariable: one variable per replica
    if comps is not None:
        return tuple(comps)
    strategy = getattr(value, "_mirrored_by", None)  # a mirrored variable: one copy per local replica
    if strategy is not None and hasattr(value, "_res"):
        devices = strategy.extended.worker_devices
        return (value,) + tuple(_replica_copy(value, i, devices[i]) for i in range(1, len(devices)))
    return (value,)


def distributed_repr(kind, components):
    """How TensorFlow prints a distributed variable: its kind, then each replica's component (without
    values inside a graph)."""
    def one(c):
        head = f"<tf.Variable '{c.name}' shape={c.shape} dtype={c.dtype.name}"
        return head + ">" if current_graph() is not None else f"{head}, numpy={numpy_text(c._value, True)}>"
    return kind + ":{\n" + ",\n".join(f"  {i}: {one(c)}" for i, c in enumerate(components)) + "\n}"


class MirroredVariable(ResourceVariable):
    """The class a mirrored variable takes (see mark_mirrored): a ResourceVariable that prints, and names its
    type, as TensorFlow's MirroredVariable does."""

    def __repr__(self):
        return distributed_repr("MirroredVariable", local_results(self))

    __str__ = __repr__


def mark_mirrored(variable, strategy):
    """Records that `variable` (an ON_WRITE variable made for `strategy`, whose replicas all live in this
    process) stands for TensorFlow's MirroredVariable: experimental_local_results gives one copy per replica,
    and a plain ResourceVariable becomes a MirroredVariable (printed as TensorFlow prints it)."""
    if getattr(variable, "_replica_components", None) is None and hasattr(variable, "_res"):
        variable._mirrored_by = strategy
        if type(variable) is ResourceVariable and strategy._mirrors_variables:  # (not CentralStorageStrategy's)
            variable.__class__ = MirroredVariable
    return variable


class _ReplicaCopy(ResourceVariable):
    """Replica `_copy_index`'s copy of a mirrored variable, named and placed as TensorFlow's ('w/replica_1:0').
    The replicas share the variable here, so the copy reads it (a tf.random.Generator's state: that replica's
    own copy of it, `_replica_value`); updating a copy alone is refused, where TensorFlow would let it drift."""

    @property
    def _value(self):
        own = getattr(self._res, "_replica_value", None)
        return self._res._value if own is None else own(self._copy_index)

    def _read(self):
        if getattr(self._res, "_replica_value", None) is None:
            return super()._read()
        if current_graph() is not None:
            raise NotImplementedError(f"reading replica {self._copy_index}'s copy of the tf.random.Generator state "
                                      f"'{self._res.name}' inside a tf.function is not supported")
        return convert_to_tensor(self._value)

    def _update(self, op, value, name, read_value):
        raise NotImplementedError(
            f"updating replica {self._copy_index}'s copy '{self.name}' of a mirrored variable alone is not "
            f"supported: rivulet's replicas share one variable (update '{self._res.name}' itself)")


_ReplicaCopy.__name__ = _ReplicaCopy.__qualname__ = "ResourceVariable"  # (TensorFlow's components' type)


def _replica_copy(var, index, device):
    copy = object.__new__(_ReplicaCopy)
    d = var.__dict__.copy()
    for k in ("_value", "_mirrored_by"):
        d.pop(k, None)
    d.update(_name=f"{var.name[:-2]}/replica_{index}:0", _device=device, _copy_index=index)
    copy.__dict__ = d
    return copy
