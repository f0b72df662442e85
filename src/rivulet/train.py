"""tf.train: checkpoints in TensorFlow's format. (One import line per feature: others add theirs.)"""
from .checkpoint import (Checkpoint, CheckpointManager, CheckpointOptions, get_checkpoint_state,  # noqa: F401
                         latest_checkpoint, list_variables, load_checkpoint)
from .checkpoint.management import CheckpointState, update_checkpoint_state  # noqa: F401
