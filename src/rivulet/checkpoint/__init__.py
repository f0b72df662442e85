"""TensorFlow's checkpoint format: the tensor bundle (bundle.py) over LevelDB's table (table.py)."""
from .bundle import BundleReader, BundleWriter, read_bundle, write_bundle  # noqa: F401
