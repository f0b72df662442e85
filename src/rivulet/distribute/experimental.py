"""tf.distribute.experimental names."""
from .strategy import ValueContext  # noqa: F401
from .values import PerReplica  # noqa: F401
from .multi_worker import CommunicationOptions, MultiWorkerMirroredStrategy  # noqa: F401
