"""TensorFlow's checkpoint format: the tensor bundle (bundle.py) over LevelDB's table (table.py), the
object graph (object_graph.py, trackable.py), tf.train.Checkpoint (checkpoint.py) and its management."""
from .bundle import BundleReader, BundleWriter, read_bundle, write_bundle  # noqa: F401
from .checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointOptions, apply_deferred  # noqa: F401
from .management import (CheckpointManager, CheckpointReader, get_checkpoint_state,  # noqa: F401
                         latest_checkpoint, list_variables, load_checkpoint, update_checkpoint_state)
