"""tf.distribute: strategies for data-parallel training (see strategy.py and replica.py)."""
from .context import get_replica_context, get_strategy, has_strategy, in_cross_replica_context
from .replica import ReplicaContext
from .strategy import InputContext, MirroredStrategy, OneDeviceStrategy, Strategy, StrategyExtended
from .multi_worker import MultiWorkerMirroredStrategy
from .cross_device_ops import CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce, ReductionToOneDevice
from . import cluster_resolver
from .values import PerReplica, ReduceOp
from . import experimental
from . import aggregation as _aggregation  # noqa: F401  (registers the replica-update hook)

__all__ = ["get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context", "ReplicaContext",
           "InputContext", "MirroredStrategy", "CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce",
           "ReductionToOneDevice", "MultiWorkerMirroredStrategy", "cluster_resolver", "OneDeviceStrategy", "Strategy", "StrategyExtended", "ReduceOp",
           "experimental", "experimental_set_strategy"]


def experimental_set_strategy(strategy):
    """Makes `strategy` current for this thread until called again (None restores the default)."""
    from . import context
    context.set_entries([] if strategy is None else [(strategy, None)])
