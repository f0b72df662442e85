"""tf.train: the Example protocol messages (io/example_proto.py)."""
from .io.example_proto import BytesList, Example, Feature, Features, FloatList, Int64List  # noqa: F401
