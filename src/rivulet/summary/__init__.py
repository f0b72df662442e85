"""tf.summary: TensorBoard event files (scalars, text, histograms, images, graphs, function traces) written
without TensorFlow."""
import types as _types

from .writer import (SummaryWriter, create_file_writer, flush, graph, histogram, image, scalar, text,  # noqa: F401
                     trace_export, trace_off, trace_on, write)
from . import writer as _writer

experimental = _types.SimpleNamespace(set_step=_writer.set_step, get_step=_writer.get_step)
