"""tf.distribute.experimental names."""
from .strategy import ValueContext  # noqa: F401
from .values import PerReplica  # noqa: F401
