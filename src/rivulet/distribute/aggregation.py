"""Updates of aggregated variables made in a replica: what `v.assign(x)` means under a strategy.

Every replica of an in-process strategy shares one variable, so an update each replica applied itself
would count once per replica. TensorFlow's MirroredVariable with aggregation SUM, MEAN or ONLY_FIRST_REPLICA
instead joins the replicas in a merge call: the replicas' values are summed, averaged, or replica 0's is
taken, and the result is assigned (added, subtracted) once, so every replica then reads the same value.
`state/variables.py` hands such updates here through `register_replica_update`.
"""
from ..core.tensor import convert_to_tensor
from ..state.variables import VariableAggregation, VariableSynchronization, register_replica_update
from . import context as _ctx
from .values import PerReplica, ReduceOp


def _replica_update(var, op, value, name):
    rc = _ctx.multi_replica_context()
    if rc is None or var.synchronization is VariableSynchronization.ON_READ:
        return False
    res = var._res
    agg = res._aggregation

    def merge(strategy, value):
        ids = strategy._local_replica_ids
        if len(ids) == 1:  # this worker's one replica of a multi-worker strategy: the others cross workers
            value = convert_to_tensor(value, dtype=res.dtype)
            if agg is VariableAggregation.ONLY_FIRST_REPLICA:  # worker 0's value, to every worker
                from ..ops.array_ops import zeros_like
                value = strategy._cross_worker_sum([value if ids[0] == 0 else zeros_like(value)])[0]
            else:
                value = strategy._reduce_structure(ReduceOp[agg.name], PerReplica([value]), None)
        elif agg is VariableAggregation.ONLY_FIRST_REPLICA:
            value = value[0] if isinstance(value, PerReplica) else value
        elif isinstance(value, PerReplica):
            value = PerReplica([convert_to_tensor(v, dtype=res.dtype) for v in value])
            value = strategy._reduce_structure(ReduceOp[agg.name], value, None)
        elif agg is VariableAggregation.SUM:  # one value for every replica: TensorFlow will not sum it
            raise ValueError(f"A non-DistributedValues value {value} cannot be reduced with the given reduce op "
                             f"{ReduceOp.SUM}.")
        res._update(op, value, name, False)  # cross-replica context here: applied as it is

    rc.merge_call(merge, args=(value,))
    return True


register_replica_update(_replica_update)
