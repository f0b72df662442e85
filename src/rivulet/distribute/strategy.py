"""tf.distribute strategies on one process: the default strategy, OneDeviceStrategy and MirroredStrategy.

Every replica of a MirroredStrategy lives in this process and reads and writes the same variables, so
"mirrored" variables are identical by construction; what the strategy must get right is that per-replica
work is split, that gradients are summed across replicas, and that each update is applied once (see
replica.py).
"""
import contextlib
import math
import weakref

from ..core.tensor import convert_to_tensor as _convert_to_tensor
from ..function.polymorphic import PolymorphicFunction as _PolymorphicFunction
from ..ops.array_ops import concat as _concat, shape as _shape
from ..ops.constant_op import constant as _constant
from ..ops.math_ops import add_n as _add_n, cast as _cast, reduce_sum as _reduce_sum
from . import context as _ctx
from .cross_device_ops import CrossDeviceOps
from .replica import ReplicaContext, call_for_each_replica
from .values import PerReplica, ReduceOp, as_reduce_op, local_results, map_values, mark_mirrored

def canonical_device(name):
    """'/cpu:1' -> '/job:localhost/replica:0/task:0/device:CPU:1', as TensorFlow spells local devices
    (parsed as tf.device parses; ValueError for a malformed or non-local device)."""
    from ..devices import LOCAL_JOB, parse_name, full_name
    job, replica, task, device_type, index = parse_name(name)
    if job not in (None, LOCAL_JOB) or replica not in (None, 0) or task not in (None, 0) or device_type is None:
        raise ValueError(f"Unknown device {name!r}: expected a local device such as '/cpu:0' or "
                         f"'/job:localhost/replica:0/task:0/device:CPU:1'")
    return full_name(device_type, index or 0)


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
        """Only the chief (worker 0) of a multi-worker strategy writes checkpoints."""
        return getattr(self._strategy, "_is_chief", True)

    should_save_summary = should_checkpoint


def _checking_creator(strategy, inner):
    """Wraps a strategy's variable creator (or None) with TensorFlow's checks of distributed variables, and
    makes ON_READ variables of an in-process strategy per replica (sync_on_read.py)."""
    def creator(next_creator, **kwargs):
        make = (lambda **kw: inner(next_creator, **kw)) if inner is not None else next_creator
        v = None
        if len(strategy._local_replica_ids) == strategy.num_replicas_in_sync:
            from . import sync_on_read
            v = sync_on_read.make(strategy, make, kwargs)
        if v is None:
            v = make(**kwargs)
            if len(strategy._local_replica_ids) == strategy.num_replicas_in_sync:
                mark_mirrored(v, strategy)  # experimental_local_results: one copy per replica
        if getattr(v.aggregation, "name", None) == "MEAN" and not v.dtype.is_floating:
            raise ValueError("creating distributed tf.Variable with aggregation=MEAN and a non-floating dtype is not "
                             "supported, please use a different aggregation or dtype")
        return v
    return creator


class Strategy:
    """The tf.distribute.Strategy interface, for strategies whose replicas all live in this process."""

    # run(tf_function) traces the function's Python in replica context, even with one replica (TensorFlow's
    # mirrored strategies); the default strategy and OneDeviceStrategy call the tf.function as it is
    _runs_tf_function_python = True
    # variables made in scope are distributed ones (MirroredVariable, SyncOnReadVariable) even with one
    # replica, as TensorFlow's MirroredStrategy and MultiWorkerMirroredStrategy make them
    _mirrors_variables = False

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
        creator = self._variable_creator()
        if self.num_replicas_in_sync > 1 or self._mirrors_variables:
            creator = _checking_creator(self, creator)
        try:
            if creator is None:
                yield self
            else:
                from ..state.creation import variable_creator_scope
                with variable_creator_scope(creator):
                    yield self
        finally:
            _ctx.pop()

    def _variable_creator(self):
        """A variable creator this strategy needs while variables are made for it (None: none)."""
        return None

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
        if isinstance(fn, _PolymorphicFunction) and (len(self._local_replica_ids) > 1 or self._runs_tf_function_python):
            return self._per_replica_function(fn)(*args, **dict(kwargs or {}))
        _ctx.push(self, None)
        try:
            return call_for_each_replica(self, fn, args, dict(kwargs or {}))
        finally:
            _ctx.pop()

    def _per_replica_function(self, fn):
        """`strategy.run(tf_function)`, as TensorFlow runs it: one tf.function whose trace runs the Python
        function once per replica (each replica traces its own ops, and merges such as an optimizer step
        join them inside that graph), instead of every replica calling one trace that replica 0 made."""
        cache = self.__dict__.setdefault("_run_functions", weakref.WeakKeyDictionary())
        wrapped = cache.get(fn)
        if wrapped is None:
            ref = weakref.ref(fn)

            def run_replicas(*args, **kwargs):
                python = ref()._python_to_run()  # (AutoGraph-converted, where the tf.function converts)
                _ctx.push(self, None)
                try:
                    return call_for_each_replica(self, python, args, kwargs)
                finally:
                    _ctx.pop()
            run_replicas.__name__ = fn._name
            wrapped = cache[fn] = _PolymorphicFunction(run_replicas, name=fn._name, autograph=False,
                                                       reduce_retracing=fn._reduce_retracing,
                                                       jit_compile=fn._jit_compile)
        return wrapped

    @property
    def _local_replica_ids(self):
        """The global ids of the replicas this process runs (all of them, for a one-process strategy)."""
        return tuple(range(self.num_replicas_in_sync))

    def _cross_worker_sum(self, tensors):
        """Sums each tensor over the workers (identity with one worker; see multi_worker.py)."""
        return list(tensors)

    def _cross_worker_gather(self, tensor, axis):
        return tensor

    def reduce(self, reduce_op, value, axis=None):
        """Combines a per-replica value across replicas (and along `axis` of each component if given)."""
        op = as_reduce_op(reduce_op)
        self._require_cross_replica("reduce")
        return self._reduce_structure(op, value, axis)

    def _reduce_structure(self, op, value, axis):
        leaves = []
        map_values(leaves.append, value)
        sums, counts = [], []
        for v in leaves:
            if not isinstance(v, PerReplica) and op is ReduceOp.SUM and self.num_replicas_in_sync > 1:
                raise ValueError(f"A non-DistributedValues value {v} cannot be reduced with the given reduce op "
                                 f"{op}.")
            parts = [_convert_to_tensor(p) for p in (v if isinstance(v, PerReplica) else [v])]
            if axis is not None:
                counts.append(_add_n([_cast(_shape(p)[axis], parts[0].dtype) for p in parts]))
                parts = [_reduce_sum(p, axis=axis) for p in parts]
            else:
                counts.append(_constant(len(parts), parts[0].dtype))  # a plain value counts once a process
            sums.append(self._local_sum(parts))
        totals = self._cross_worker_sum(sums + (counts if op is ReduceOp.MEAN else []))
        if op is ReduceOp.MEAN:
            totals = [t / c for t, c in zip(totals[:len(sums)], totals[len(sums):])]
        it = iter(totals)
        return map_values(lambda _: next(it), value)

    def _local_sum(self, parts):
        """The sum of this process's replicas' tensors: by the strategy's cross-device ops where it has them
        (a ReductionToOneDevice's accumulation_fn), else tf.math.add_n."""
        ops = getattr(self, "_cross_device_ops", None)
        if isinstance(ops, CrossDeviceOps):
            return ops._accumulate(parts)
        return _add_n(parts) if len(parts) > 1 else parts[0]

    def _sum_across_replicas(self, values):
        """The optimizer's all-reduce: each gradient (PerReplica, a tensor, or None) summed over every
        replica, in one cross-worker exchange for all of them."""
        local = [v if v is None else (self._local_sum(list(v)) if isinstance(v, PerReplica) else v) for v in values]
        present = [i for i, v in enumerate(local) if v is not None]
        summed = self._cross_worker_sum([local[i] for i in present])
        for i, v in zip(present, summed):
            local[i] = v
        return local

    def experimental_local_results(self, value):
        return local_results(value)

    def gather(self, value, axis):
        """Concatenates each per-replica value's components along `axis`, across all replicas."""
        return map_values(lambda v: self._cross_worker_gather(_concat(list(v), axis) if isinstance(v, PerReplica)
                                                              else _convert_to_tensor(v), axis), value)

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

    _runs_tf_function_python = False

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
    _runs_tf_function_python = False

    def __init__(self, device):
        super().__init__([device])


class MirroredStrategy(Strategy):
    """tf.distribute.MirroredStrategy: synchronous data parallelism over local devices, one replica each.

    Without `devices` it uses the local GPUs, of which rivulet has none, so, as TensorFlow does on a CPU-only
    machine, every logical CPU: one replica, or two after `tf.config.set_logical_device_configuration(cpu,
    [LogicalDeviceConfiguration()] * 2)`; `MirroredStrategy(["/cpu:0", "/cpu:1"])` names them."""

    _mirrors_variables = True

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            from ..config_devices import list_logical_devices
            devices = [d.name for d in list_logical_devices("CPU")] or ["/cpu:0"]
        elif isinstance(devices, str):
            devices = [devices]
        super().__init__(list(devices))
        self._cross_device_ops = self._extended._cross_device_ops = cross_device_ops


class CentralStorageStrategy(MirroredStrategy):
    """tf.distribute.experimental.CentralStorageStrategy: variables in one place (`parameter_device`), the
    computation replicated on `compute_devices`, gradients summed before each update is applied once.

    That is how rivulet runs every in-process strategy (one variable store), so it is a MirroredStrategy
    with TensorFlow's defaults: the local GPUs, of which rivulet has none, else the CPU (one replica, even
    with several logical CPUs; name them in `compute_devices` for more); the parameter device is the
    compute device when there is one, else the CPU."""
    _mirrors_variables = False  # (one replica: plain variables, as TensorFlow's)

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices is None:
            compute_devices = ["/cpu:0"]
        elif isinstance(compute_devices, str):
            compute_devices = [compute_devices]
        super().__init__(list(compute_devices))
        ext = self._extended
        ext.worker_devices = list(ext.worker_devices)  # TensorFlow's CentralStorageStrategy keeps a list
        if parameter_device is None:
            parameter_device = ext.worker_devices[0] if len(ext.worker_devices) == 1 else "/device:CPU:0"
        ext.parameter_devices = (parameter_device,)


def split_batch(value, n, index):
    """The `index`-th of `n` slices of a batch along its first dimension (ceil-sized slices first)."""
    t = _convert_to_tensor(value)
    size = t.shape[0] if t.shape.rank else None
    per = math.ceil(size / n) if size is not None else (_shape(t)[0] + n - 1) // n  # known here, or at run time
    return t[index * per:(index + 1) * per]
