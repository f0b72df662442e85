"""tf.distribute's cross-device reductions: CrossDeviceOps, ReductionToOneDevice, NcclAllReduce and
HierarchicalCopyAllReduce (MirroredStrategy's `cross_device_ops=`).

rivulet's replicas share one process and one variable store, so every algorithm is the same sum of the
replicas' values on the one device that holds them; the classes keep TensorFlow's interface (`reduce`,
`batch_reduce`, `broadcast`), argument checks and, for ReductionToOneDevice, its `accumulation_fn`, which
a MirroredStrategy given one uses to sum its replicas' gradients.
"""
from ..core.tensor import Tensor, convert_to_tensor
from .values import PerReplica, ReduceOp, as_reduce_op


def _check_destinations(destinations):
    if not (isinstance(destinations, (str, Tensor, PerReplica)) or getattr(destinations, "_is_resource", False)):
        raise ValueError("destinations must be one of a `DistributedValues` object, a tf.Variable object, or a "
                         "device string.")
    if isinstance(destinations, (str, PerReplica)) and not destinations:
        raise ValueError("destinations can not be empty")


class CrossDeviceOps:
    """tf.distribute.CrossDeviceOps: how per-replica values are reduced and broadcast across devices."""

    def _accumulate(self, values):
        """The sum of the replicas' tensors (one device holds them all here)."""
        from ..ops.math_ops import add_n
        return add_n(values) if len(values) > 1 else values[0]

    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """Reduces a PerReplica value (or one tensor, as a single replica's) to `destinations`."""
        op = as_reduce_op(reduce_op)
        _check_destinations(destinations)
        return self.reduce_implementation(op, per_replica_value, destinations, options)

    def reduce_implementation(self, reduce_op, per_replica_value, destinations, options):
        parts = [convert_to_tensor(v) for v in (per_replica_value if isinstance(per_replica_value, PerReplica)
                                                else (per_replica_value,))]
        total = self._accumulate(parts)
        if reduce_op is ReduceOp.MEAN and len(parts) > 1:
            from ..ops.math_ops import cast
            total = total / cast(len(parts), total.dtype)
        return total

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        """reduce() for each (value, destinations) pair."""
        op = as_reduce_op(reduce_op)
        if not isinstance(value_destination_pairs, (list, tuple)):
            raise ValueError("`value_destination_pairs` should be a list or tuple")
        for pair in value_destination_pairs:
            if not isinstance(pair, tuple):
                raise ValueError("Each element of `value_destination_pairs` should be a tuple.")
            if len(pair) != 2:
                raise ValueError("Each element of `value_destination_pairs` should be a tuple of size 2.")
            _check_destinations(pair[1])
        return self.batch_reduce_implementation(op, value_destination_pairs, options)

    def batch_reduce_implementation(self, reduce_op, value_destination_pairs, options):
        return [self.reduce_implementation(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor, destinations):
        """The tensor, mirrored to `destinations` (the one place every replica reads from here)."""
        _check_destinations(destinations)
        return self.broadcast_implementation(tensor, destinations)

    def broadcast_implementation(self, tensor, destinations):
        return convert_to_tensor(tensor)


class ReductionToOneDevice(CrossDeviceOps):
    """Copies the values to one device (`reduce_to_device`, default the first destination), sums them there
    with `accumulation_fn` (default tf.math.add_n) and copies the result back."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        if accumulation_fn is not None and not callable(accumulation_fn):
            raise TypeError(f"accumulation_fn must be callable, got {accumulation_fn!r}")
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn

    def _accumulate(self, values):
        if self.accumulation_fn is None:
            return super()._accumulate(values)
        return convert_to_tensor(self.accumulation_fn(list(values)))


class AllReduceCrossDeviceOps(CrossDeviceOps):
    """An all-reduce over the replicas' devices (`all_reduce_alg` 'nccl' or 'hierarchical_copy'), its
    tensors packed into `num_packs` groups."""

    def __init__(self, all_reduce_alg="nccl", num_packs=1):
        self._all_reduce_alg = all_reduce_alg
        self._num_packs = num_packs


class NcclAllReduce(AllReduceCrossDeviceOps):
    """tf.distribute.NcclAllReduce: NVIDIA's all-reduce between GPUs (the same sum here)."""

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        super().__init__("nccl", num_packs)


class HierarchicalCopyAllReduce(AllReduceCrossDeviceOps):
    """tf.distribute.HierarchicalCopyAllReduce: the all-reduce for DGX-1-like GPU topologies (the same sum
    here)."""

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified")
        super().__init__("hierarchical_copy", num_packs)
