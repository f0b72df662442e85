"""tf.distribute.experimental names."""
from .strategy import CentralStorageStrategy, ValueContext  # noqa: F401
from .values import PerReplica  # noqa: F401
from .multi_worker import (CollectiveCommunication, CommunicationImplementation, CommunicationOptions,  # noqa: F401
                           MultiWorkerMirroredStrategy)
