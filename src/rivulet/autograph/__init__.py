"""tf.autograph: converts Python control flow on tensors into graph ops.

impl.convert(fn) is what tf.function runs; to_code shows the converted source. See converters/ for the
pipeline and operators/ for the runtime the converted code calls.
"""
import logging as _logging

from . import experimental  # noqa: F401
from .impl import to_code, to_graph  # noqa: F401

_verbosity = [0]


def set_verbosity(level, alsologtostdout=False):
    """Sets AutoGraph's logging verbosity (higher: more details about conversion)."""
    _verbosity[0] = int(level)
    _logging.getLogger("rivulet").setLevel(_logging.DEBUG if level > 0 else _logging.WARNING)


def get_verbosity():
    return _verbosity[0]


def trace(*args):
    """tf.autograph.trace: prints its arguments (at trace time when in a graph)."""
    print(*args)
