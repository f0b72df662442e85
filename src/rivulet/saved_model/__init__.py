"""tf.saved_model: save an object's variables and traced functions to a directory, load them back without
the code that defined them. The format is docs/SAVED_MODEL_FORMAT.md."""
from .format import SavedModelError  # noqa: F401
from .restore import load  # noqa: F401
from .save import DEFAULT_SIGNATURE as DEFAULT_SERVING_SIGNATURE_DEF_KEY, save  # noqa: F401
from .options import LoadOptions, SaveOptions  # noqa: F401

SERVING = "serve"
