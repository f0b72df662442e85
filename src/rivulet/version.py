"""tf.version: the TensorFlow API version rivulet implements, and rivulet's own version.

Programs and libraries gate features on `tf.__version__` / `tf.version.VERSION`, so these report the
TensorFlow release whose observable behaviour rivulet matches. rivulet's own release is `RIVULET_VERSION`
(the same string as the package metadata, `importlib.metadata.version("rivulet")`).
"""

VERSION = "2.21.0"  # the TensorFlow API version (tf.version.VERSION, tf.__version__)
# TensorFlow fills these from its build; rivulet is not built from TensorFlow's tree, and says so as
# TensorFlow does when the build knows no git revision or compiler.
GIT_VERSION = "unknown"
COMPILER_VERSION = "unknown"
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

RIVULET_VERSION = "0.1.0"  # keep equal to pyproject.toml's [project] version

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER"]
