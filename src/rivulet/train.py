"""tf.train: checkpoints in TensorFlow's format, the Example protocol messages (io/example_proto.py) and
ClusterSpec (distribute/cluster_resolver.py, loaded on first use)."""
from .checkpoint import (Checkpoint, CheckpointManager, CheckpointOptions, get_checkpoint_state,  # noqa: F401
                         latest_checkpoint, list_variables, load_checkpoint, load_variable)
from .checkpoint.management import CheckpointState, update_checkpoint_state  # noqa: F401
from .io.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401
from .io.sequence_example import FeatureList, FeatureLists, SequenceExample  # noqa: F401


def __getattr__(name):
    if name == "ClusterSpec":  # tf.distribute's cluster description, loaded with it
        from .distribute.cluster_resolver import ClusterSpec
        return ClusterSpec
    raise AttributeError(f"module 'rivulet.train' has no attribute '{name}'")
