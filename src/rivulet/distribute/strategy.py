"""tf.distribute strategies on one process: the default strategy, OneDeviceStrategy and MirroredStrategy.

Every replica of a MirroredStrategy lives in this process and reads and writes the same variables, so
"mirrored" variables are identical by construction; what the strategy must get right is that per-replica
work is split, that gradients are summed across replicas, and that each update is applied once (see
replica.py).
"""
import contextlib
import math
import re

from .. import nest
from . import context as _ctx
from .replica import ReplicaContext, call_for_each_replica
from .values import PerReplica, ReduceOp, as_reduce_op, local_results, map_values

_DEVICE = re.compile(r"^(?:/job:localhost/replica:0/task:0)?/?(?:device:)?(cpu|gpu|tpu):(\d+)$", re.I)


def canonical_device(name):
    """'/cpu:1' -> '/job:localhost/replica:0/task:0/device:CPU:1', as TensorFlow spells local devices."""
    if not isinstance(name, str):
        raise ValueError(f"A device must be a string such as '/cpu:0', got {name!r}")
    m = _DEVICE.match(name.strip())
    if not m:
        raise ValueError(f"Unknown device {name!r}: expected a local device such as '/cpu:0' or "
                         f"'/job:localhost/replica:0/task:0/device:CPU:1'")
    return f"/job:localhost/replica:0/task:0/device:{m.group(1).upper()}:{int(m.group(2))}"


class InputContext:
    """tf.distribute.InputContext: what a dataset function learns about the input pipeline it builds."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync!r} ")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: " \
               f"{self._num_input_pipelines})"


class ValueContext:
    """tf.distribute.experimental.ValueContext, given to experimental_distribute_values_from_function."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class StrategyExtended:
    def __init__(self, strategy, devices):
        self._strategy = strategy
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)

    @property
    def experimental_between_graph(self):
        return False

    @property
    def should_checkpoint(self):
        return True


class Strategy:
    """The tf.distribute.Strategy interface, for strategies whose replicas all live in this process."""

    def __init__(self, devices):
        devices = [canonical_device(d) for d in devices]
        if not devices:
            raise ValueError("Got an empty `devices` list and no devices were found.")
        if len(set(devices)) != len(devices):
            raise ValueError(f"No duplicates allowed in `devices` argument: {devices}")
        self._extended = StrategyExtended(self, devices)
        self._default_replica_context = ReplicaContext(self, 0)

    extended = property(lambda self: self._extended)

    @property
    def num_replicas_in_sync(self):
        return len(self._extended.worker_devices)

    @contextlib.contextmanager
    def scope(self):
        """Variables, models and optimizers made inside belong to this strategy (cross-replica context)."""
        current = _ctx.entries()
        if current and current[-1][0] is not self:
            raise ValueError(f"Mixing different tf.distribute.Strategy objects: {self!r} is not {current[-1][0]!r}")
        _ctx.push(self, None)
        try:
            yield self
        finally:
            _ctx.pop()

    def _require_cross_replica(self, what):
        if _ctx.has_strategy() and not _ctx.in_cross_replica_context():
            raise RuntimeError(f"`{what}` must be called in cross-replica context (outside `strategy.run`); in a "
                               f"replica use `tf.distribute.get_replica_context().merge_call()` or all_reduce")

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs fn once per replica, each given its own component of every PerReplica argument; returns
        the results as PerReplica values (a value every replica returned as the same object stays whole)."""
        if not callable(fn):
            raise TypeError(f"strategy.run expects a callable, got {fn!r}")
        self._require_cross_replica("run")
        args = tuple(args) if isinstance(args, (list, tuple)) else (args,)
        _ctx.push(self, None)
        try:
            return call_for_each_replica(self, fn, args, dict(kwargs or {}))
        finally:
            _ctx.pop()

    def reduce(self, reduce_op, value, axis=None):
        """Combines a per-replica value across replicas (and along `axis` of each component if given)."""
        import rivulet as tf
        op = as_reduce_op(reduce_op)
        self._require_cross_replica("reduce")

        def one(v):
            parts = list(v) if isinstance(v, PerReplica) else [v]
            if not isinstance(v, PerReplica) and op is ReduceOp.SUM and self.num_replicas_in_sync > 1:
                raise ValueError(f"A non-DistributedValues value {v} cannot be reduced with the given reduce op "
                                 f"{op}.")
            parts = [tf.convert_to_tensor(p) for p in parts]
            if axis is None:
                total = tf.add_n(parts) if len(parts) > 1 else parts[0]
                return total / len(parts) if op is ReduceOp.MEAN and len(parts) > 1 else total
            sums = [tf.reduce_sum(p, axis=axis) for p in parts]
            total = tf.add_n(sums) if len(sums) > 1 else sums[0]
            if op is ReduceOp.SUM:
                return total
            count = tf.add_n([tf.cast(tf.shape(p)[axis], total.dtype) for p in parts])
            return total / count
        return map_values(one, value)

    def experimental_local_results(self, value):
        return local_results(value)

    def gather(self, value, axis):
        import rivulet as tf
        self._require_cross_replica("gather")
        return map_values(lambda v: tf.concat(list(v), axis) if isinstance(v, PerReplica) else v, value)

    def experimental_distribute_dataset(self, dataset, options=None):
        """Each global batch the dataset yields is split along its first dimension, one slice a replica."""
        from .input_lib import DistributedDataset
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """dataset_fn(InputContext) builds per-replica batches; replicas take consecutive elements."""
        from .input_lib import DistributedDatasetsFromFunction
        if not callable(dataset_fn):
            raise TypeError(f"dataset_fn must be callable, got {dataset_fn!r}")
        return DistributedDatasetsFromFunction(self, dataset_fn(InputContext(1, 0, self.num_replicas_in_sync)))

    def experimental_distribute_values_from_function(self, value_fn):
        n = self.num_replicas_in_sync
        vals = [value_fn(ValueContext(i, n)) for i in range(n)]
        return vals[0] if n == 1 else PerReplica(vals)

    def __deepcopy__(self, memo):
        raise RuntimeError("Must only deepcopy DistributionStrategy.")


class _DefaultStrategy(Strategy):
    """What tf.distribute.get_strategy() returns outside every scope: one replica, no synchronisation."""

    def __init__(self):
        super().__init__(["/cpu:0"])

    @contextlib.contextmanager
    def scope(self):
        yield self


_DEFAULT = []


def default_strategy():
    if not _DEFAULT:
        _DEFAULT.append(_DefaultStrategy())
    return _DEFAULT[0]


class OneDeviceStrategy(Strategy):
    """tf.distribute.OneDeviceStrategy: one replica on one device."""

    def __init__(self, device):
        super().__init__([device])


class MirroredStrategy(Strategy):
    """tf.distribute.MirroredStrategy: synchronous data parallelism over local devices, one replica each.

    Without `devices` it uses the local GPUs, of which rivulet has none, so one replica on the CPU, as
    TensorFlow does on a CPU-only machine; `MirroredStrategy(["/cpu:0", "/cpu:1"])` gives two replicas."""

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            devices = ["/cpu:0"]
        elif isinstance(devices, str):
            devices = [devices]
        super().__init__(list(devices))
        self._cross_device_ops = cross_device_ops


def split_batch(value, n, index):
    """The `index`-th of `n` slices of a batch along its first dimension (ceil-sized slices first)."""
    import rivulet as tf
    t = tf.convert_to_tensor(value)
    size = t.shape[0] if t.shape.rank else None
    if size is not None:
        per = int(math.ceil(size / n))
        return t[index * per:(index + 1) * per]
    b = tf.shape(t)[0]
    per = (b + n - 1) // n
    return t[index * per:(index + 1) * per]
