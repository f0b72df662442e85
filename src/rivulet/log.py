"""The loggers, a base module every layer may use: rivulet's own ("rivulet": retraces, AutoGraph's notes,
device placement) and TensorFlow's ("tensorflow", tf.get_logger), which prints 'WARNING:tensorflow:...' to
stderr as TensorFlow does."""
import logging
import sys

logger = logging.getLogger("rivulet")


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time (so redirected or captured stderr sees it)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _):
        pass


def get_logger():
    """tf.get_logger: the 'tensorflow' logger, printing 'WARNING:tensorflow:...' to stderr."""
    tf_logger = logging.getLogger("tensorflow")
    if not tf_logger.handlers:
        h = _StderrHandler()
        h.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        tf_logger.addHandler(h)
        tf_logger.propagate = False
    return tf_logger
