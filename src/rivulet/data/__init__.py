"""tf.data: input pipelines. See dataset.py for the design (flat NumPy elements, traced user functions)."""
from . import experimental  # noqa: F401
from .dataset import AUTOTUNE, INFINITE as INFINITE_CARDINALITY, UNKNOWN as UNKNOWN_CARDINALITY  # noqa: F401
from .dataset import Dataset, DatasetV2, NumpyIterator, OwnedIterator as Iterator  # noqa: F401
from .options import Options, ThreadingOptions  # noqa: F401
from .readers import FixedLengthRecordDatasetV2 as FixedLengthRecordDataset  # noqa: F401
from .readers import TextLineDatasetV2 as TextLineDataset, TFRecordDatasetV2 as TFRecordDataset  # noqa: F401
from .structure import DatasetSpec  # noqa: F401
from . import autograph_loop  # noqa: F401  (registers `for x in dataset` into AutoGraph)
