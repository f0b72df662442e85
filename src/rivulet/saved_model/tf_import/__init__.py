"""Loading SavedModels written by TensorFlow (saved_model.pb + variables/ bundle) without TensorFlow.

`tf.saved_model.load` comes here when a directory holds `saved_model.pb` rather than rivulet's own format.
The protobufs are read with the `protobuf` library and the message classes `tensorboard` ships (the
`tf-interop` extra); the function library is replayed into rivulet graphs op by op (functions.py,
convert.py, control.py); the object tree is rebuilt by objects.py. Nothing read is executed: a hostile
or broken file raises SavedModelError naming the file (InvalidGraphError, also an InvalidArgumentError,
where TensorFlow refuses the graph), an op rivulet lacks NotFoundError naming the op and the function that
uses it.
"""
import os

from ...errors import INVALID_ARGUMENT, InvalidArgumentError
from ..format import Invalid, SavedModelError

SAVED_MODEL_PB = "saved_model.pb"
MAX_FILE_BYTES = 1 << 31  # protobuf's own limit on one message


class InvalidGraphError(SavedModelError, InvalidArgumentError):
    """A SavedModel whose graph TensorFlow refuses with InvalidArgumentError (a constant that is not of its
    dtype, say): raised as both, so code written for either error catches it."""
    error_code = INVALID_ARGUMENT


def error(path, e):
    """The error to raise for the Invalid `e` found in the file at `path`."""
    from .proto import InvalidGraph
    return (InvalidGraphError if isinstance(e, InvalidGraph) else SavedModelError)(path, str(e))


def is_tf_saved_model(export_dir):
    return os.path.isfile(os.path.join(export_dir, SAVED_MODEL_PB))


def read_meta_graph(export_dir, tags=None):
    """The MetaGraphDef of saved_model.pb whose tags are `tags` (by default the only one, or 'serve')."""
    from . import proto
    path = os.path.join(export_dir, SAVED_MODEL_PB)
    proto.modules()  # ImportError naming the extra before anything is read
    if os.path.getsize(path) >= MAX_FILE_BYTES:
        raise SavedModelError(path, "file is larger than a protocol buffer can be")
    with open(path, "rb") as f:
        data = f.read()
    try:
        sm = proto.read_saved_model(data)
        if not sm.meta_graphs:
            raise Invalid("no MetaGraphDef in the file")
        return _pick(sm.meta_graphs, tags), path
    except Invalid as e:
        raise SavedModelError(path, str(e)) from None


def _pick(meta_graphs, tags):
    if tags is None:
        if len(meta_graphs) == 1:
            return meta_graphs[0]
        tags = ["serve"]
    want = {tags} if isinstance(tags, str) else set(tags)
    for mg in meta_graphs:
        if set(mg.meta_info_def.tags) == want:
            return mg
    have = [sorted(mg.meta_info_def.tags) for mg in meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(want)} could not be found in SavedModel, "
                       f"with available tags '{have}'.")


def load(export_dir, tags=None):
    """The restored root object of the TensorFlow SavedModel in export_dir."""
    from .objects import Loader
    meta_graph, path = read_meta_graph(export_dir, tags)
    try:
        return Loader(meta_graph, export_dir, path).root
    except Invalid as e:
        raise error(path, e) from None
    except RecursionError:
        raise SavedModelError(path, "the model is nested too deeply") from None
    except (ValueError, TypeError, IndexError, KeyError) as e:  # values the file gives that rules refuse
        raise SavedModelError(path, f"{type(e).__name__}: {e}") from None
