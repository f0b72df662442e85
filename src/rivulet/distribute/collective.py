"""Cross-worker collectives as ops: their kernels exchange arrays with the other workers through this
process's communicator, so they run the same eagerly and inside compiled graphs.

The communicator is installed by the process that runs a worker (ray_runtime.py); its `all_reduce_sum`
and `all_gather` take and return NumPy arrays, and every worker must make the same calls in the same order.
A call that cannot complete raises a rivulet.errors exception: UnavailableError (another worker has finished
or died), DeadlineExceededError (past the communicator's `timeout`).
"""
import threading

import numpy as np

from ..core.dispatch import bind
from ..core.op import defop
from ..core.tensor import convert_to_tensor
from ..shape import TensorShape

_current = [None]
# Seconds a worker waits in a collective for the others before it fails with DeadlineExceededError (TF waits
# forever by default; a worker that finished or died fails the wait at once, so this only ends real hangs).
# tf.distribute.experimental.CommunicationOptions(timeout_seconds=...) sets another.
DEFAULT_TIMEOUT = 600.0


def set_communicator(communicator):
    _current[0] = communicator


def current():
    """This process's communicator, or None outside a worker."""
    return _current[0]


def _communicator():
    c = _current[0]
    if c is None:
        raise RuntimeError("No cross-worker communicator in this process: collectives run inside the function "
                           "that tf.distribute.cluster_resolver.RayClusterResolver.run runs on each worker")
    return c


def _all_reduce_kernel(*xs, n):
    out = _communicator().all_reduce_sum([np.asarray(x) for x in xs])
    return tuple(np.asarray(o, dtype=np.asarray(x).dtype) for o, x in zip(out, xs))


def _all_reduce_infer(*xs, n):
    return [(x.shape, x.dtype) for x in xs]


def _all_reduce_grad(op, *dys):
    # d(sum over workers)/dx: every worker's upstream gradient, summed the same way
    from ..ops.array_ops import zeros_like
    return tuple(all_reduce_sum([zeros_like(o) if dy is None else dy for dy, o in zip(dys, op.outputs)]))


ALL_REDUCE = defop("_CollectiveAllReduceSum", _all_reduce_kernel, _all_reduce_infer, grad=_all_reduce_grad,
                   num_outputs=lambda attrs: attrs["n"], stateful=True)


def _all_gather_kernel(x, axis):
    parts = _communicator().all_gather(np.asarray(x))
    return np.concatenate(parts, axis=axis)


def _all_gather_infer(x, axis):
    if x.shape.rank is None:
        return TensorShape(None), x.dtype
    dims = list(x.shape.as_list())
    dims[axis] = None  # how much each worker holds is known only when the workers meet
    return TensorShape(dims), x.dtype


ALL_GATHER = defop("_CollectiveAllGather", _all_gather_kernel, _all_gather_infer, stateful=True)


def all_reduce_sum(tensors):
    """Each tensor summed elementwise over all workers (one exchange for the whole list)."""
    tensors = [convert_to_tensor(t) for t in tensors]
    if not tensors:
        return []
    return list(bind(ALL_REDUCE, tuple(tensors), {"n": len(tensors)}, name="CollectiveAllReduceSum"))


def all_gather(tensor, axis=0):
    """The workers' tensors concatenated along `axis`, in worker order."""
    t = convert_to_tensor(tensor)
    rank = t.shape.rank
    axis = int(axis)
    if rank is not None and not -rank <= axis < max(rank, 1):
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    if rank:
        axis %= rank
    return bind(ALL_GATHER, (t,), {"axis": axis}, name="CollectiveAllGather")


class SequencedCommunicator:
    """Numbers this worker's collective calls so the workers' n-th calls meet; `exchange(kind, seq, value)`
    is the transport (one call per collective, returning the combined value)."""

    def __init__(self, rank, size, exchange):
        self.rank, self.size = rank, size
        self.timeout = DEFAULT_TIMEOUT  # the transport's limit on one collective's wait (seconds)
        self._exchange = exchange
        self._seq = 0
        self._lock = threading.Lock()

    def _call(self, kind, value):
        with self._lock:  # one collective at a time, in program order
            self._seq += 1
            return self._exchange(kind, self._seq, value)

    def all_reduce_sum(self, arrays):
        return self._call("sum", arrays)

    def all_gather(self, array):
        return self._call("gather", array)

    def broadcast(self, array):
        """Worker 0's array, on every worker."""
        return self._call("broadcast", array)
