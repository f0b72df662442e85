"""tf.train: checkpoints in TensorFlow's format, and the Example protocol messages (io/example_proto.py)."""
from .checkpoint import (Checkpoint, CheckpointManager, CheckpointOptions, get_checkpoint_state,  # noqa: F401
                         latest_checkpoint, list_variables, load_checkpoint)
from .checkpoint.management import CheckpointState, update_checkpoint_state  # noqa: F401
from .io.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401
