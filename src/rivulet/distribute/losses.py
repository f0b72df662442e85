"""tf.nn.compute_average_loss and tf.nn.scale_regularization_loss: losses scaled for summed gradients.

Under a strategy the replicas' gradients are summed, so each replica divides its loss by the global batch
size (not its own) and a regularisation loss by the number of replicas."""
from ..core.tensor import convert_to_tensor
from ..ops.array_ops import shape
from ..ops.constant_op import constant
from ..ops.math_ops import add_n, cast, reduce_sum

from . import context


def _replicas():
    rc = context.get_replica_context()
    return 1 if rc is None else rc.num_replicas_in_sync


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """Sum of the (weighted) per-example losses over the global batch size (this replica's batch size
    times the number of replicas when not given)."""
    loss = convert_to_tensor(per_example_loss)
    if not loss.dtype.is_floating:
        raise TypeError(f"per_example_loss must be a floating point tensor, got {loss.dtype.name}")
    if sample_weight is not None:
        loss = loss * cast(sample_weight, loss.dtype)
    total = reduce_sum(loss)
    if global_batch_size is None:
        per_replica = shape(loss)[0] if loss.shape.rank else constant(1)
        size = cast(per_replica * _replicas(), loss.dtype)
    else:
        if isinstance(global_batch_size, (int, float)) and global_batch_size <= 0:
            raise ValueError(f"global_batch_size must be positive. Got {global_batch_size}.")
        size = cast(global_batch_size, loss.dtype)
    return total / size


def scale_regularization_loss(regularization_loss):
    loss = add_n(regularization_loss) if isinstance(regularization_loss, (list, tuple)) else regularization_loss
    loss = convert_to_tensor(loss)
    return loss / cast(_replicas(), loss.dtype)
