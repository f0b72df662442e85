"""tf.train: checkpoints in TensorFlow's format. (One import line per feature: others add theirs.)"""
from .checkpoint import (Checkpoint, CheckpointManager, get_checkpoint_state, latest_checkpoint,  # noqa: F401
                         list_variables, load_checkpoint)
from .checkpoint.management import CheckpointState, update_checkpoint_state  # noqa: F401
