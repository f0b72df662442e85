"""tf.distribute.MultiWorkerMirroredStrategy: synchronous data parallelism over worker processes.

As in TensorFlow, every worker runs the same program; here `RayClusterResolver.run(fn)` starts the workers
and runs fn on each. Every worker holds one replica and a full copy of the variables; gradients are summed
across workers through the collectives in collective.py, so the copies receive the same updates and stay
identical. Without a communicator (a plain process, TF_CONFIG naming one worker or none) it is a
single-worker strategy with one replica, as TensorFlow's is.
"""
import enum

from . import collective
from .cluster_resolver import RayClusterResolver, TFConfigClusterResolver
from .replica import ReplicaContext
from .strategy import Strategy, StrategyExtended


class CommunicationImplementation(enum.Enum):
    """tf.distribute.experimental.CommunicationImplementation: which collective implementation to use (rivulet's
    workers always exchange through Ray's object store; the choice is kept)."""
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation  # TensorFlow's deprecated name for it


class CommunicationOptions:
    """tf.distribute.experimental.CommunicationOptions: `timeout_seconds` limits each collective's wait for
    the other workers (None: collective.DEFAULT_TIMEOUT); the others are checked as TensorFlow checks them and
    kept (the transport is Ray's object store)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        if timeout_seconds is not None and (isinstance(timeout_seconds, bool) or
                                            not isinstance(timeout_seconds, (int, float)) or
                                            not 0 < timeout_seconds < float("inf")):
            raise ValueError(f"timeout_seconds must be a positive number of seconds or None, got {timeout_seconds!r}")
        if implementation is None:
            implementation = CommunicationImplementation.AUTO
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("Argument `implementation` must be instance of "
                             "`tf.distribute.experimental.CommunicationImplementation`.")
        self.bytes_per_pack, self.timeout_seconds, self.implementation = bytes_per_pack, timeout_seconds, implementation

    def merge(self, options):
        """These options with those `options` sets to other than their defaults taking precedence."""
        merged = CommunicationOptions(self.bytes_per_pack, self.timeout_seconds, self.implementation)
        if options is None:
            return merged
        if options.bytes_per_pack != 0:
            merged.bytes_per_pack = options.bytes_per_pack
        if options.timeout_seconds is not None:
            merged.timeout_seconds = options.timeout_seconds
        if options.implementation != CommunicationImplementation.AUTO:
            merged.implementation = options.implementation
        return merged

    def __str__(self):
        return (f"Options(bytes_per_pack={self.bytes_per_pack},timeout_seconds={self.timeout_seconds}, "
                f"implementation={self.implementation})")


class MultiWorkerMirroredStrategy(Strategy):
    _mirrors_variables = True

    def __init__(self, cluster_resolver=None, communication_options=None):
        resolver = cluster_resolver if cluster_resolver is not None else TFConfigClusterResolver()
        comm = collective.current()
        if comm is not None:
            rank, size = comm.rank, comm.size
            timeout = getattr(communication_options, "timeout_seconds", None)
            comm.timeout = collective.DEFAULT_TIMEOUT if timeout is None else float(timeout)
        else:
            if isinstance(resolver, RayClusterResolver):
                raise RuntimeError(
                    "MultiWorkerMirroredStrategy with a RayClusterResolver is made inside the function that "
                    "`resolver.run(fn)` runs on each Ray worker (every worker runs the same program, as with "
                    "TF_CONFIG); it was made in the driver")
            spec = resolver.cluster_spec().as_dict()
            workers = sum(len(spec.get(job, [])) for job in ("chief", "worker"))
            if workers > 1:
                raise ValueError(
                    f"TF_CONFIG describes {workers} workers; rivulet's workers exchange gradients through Ray: "
                    f"use tf.distribute.cluster_resolver.RayClusterResolver(num_workers={workers}).run(fn)")
            rank, size = 0, 1
        self._rank, self._size = rank, size
        self._cluster_resolver = resolver
        self._communication_options = communication_options
        self._extended = StrategyExtended(self, [f"/job:worker/replica:0/task:{rank}/device:CPU:0"])
        self._default_replica_context = ReplicaContext(self, rank)

    cluster_resolver = property(lambda self: self._cluster_resolver)

    @property
    def num_replicas_in_sync(self):
        return self._size

    @property
    def _local_replica_ids(self):
        return (self._rank,)

    @property
    def task_type(self):
        return "worker"

    @property
    def task_id(self):
        return self._rank

    def _variable_creator(self):
        """Variables start equal on every worker, as TensorFlow's: each takes worker 0's initial value
        (workers create their variables in the same order, running the same program)."""
        if self._size == 1:
            return None

        def creator(next_creator, **kwargs):
            from ..core.context import init_scope
            v = next_creator(**kwargs)
            with init_scope():
                v.assign(collective.current().broadcast(v.numpy()))
            return v
        return creator

    def _cross_worker_sum(self, tensors):
        return collective.all_reduce_sum(tensors) if self._size > 1 else list(tensors)

    def _cross_worker_gather(self, tensor, axis):
        return collective.all_gather(tensor, axis) if self._size > 1 else tensor

    @property
    def _is_chief(self):
        return self._rank == 0
