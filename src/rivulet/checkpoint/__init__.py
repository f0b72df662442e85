"""TensorFlow's checkpoints: which objects they hold (trackable.py), tf.train.Checkpoint (checkpoint.py) and
its management; the files themselves (the tensor bundle over an sstable, the object graph message) are
formats/bundle.py and formats/object_graph.py."""
from ..formats import bundle, object_graph  # noqa: F401  (the tensor bundle and object graph formats)
from ..formats.bundle import BundleReader, BundleWriter, read_bundle, write_bundle  # noqa: F401
from .checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointOptions, apply_deferred  # noqa: F401
from .management import (CheckpointManager, CheckpointReader, get_checkpoint_state,  # noqa: F401
                         latest_checkpoint, list_variables, load_checkpoint, load_variable,
                         update_checkpoint_state)
