"""tf.keras.utils.plot_model. rivulet draws no model graphs; it behaves as tf_keras does where pydot and graphviz
are missing: in a notebook it prints how to get them and returns None, elsewhere it raises ImportError."""
import sys

_MESSAGE = ("You must install pydot (`pip install pydot`) and install graphviz (see instructions at "
            "https://graphviz.gitlab.io/download/) for plot_model to work.")


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=True,
               rankdir="TB", expand_nested=False, dpi=96, layer_range=None, show_layer_activations=False,
               show_trainable=False):
    if not getattr(model, "built", True):
        raise ValueError("This model has not yet been built. Build the model first by calling `build()` or by "
                         "calling the model on a batch of data.")
    message = _MESSAGE + " (rivulet does not draw models itself.)"
    if "IPython.core.magics.namespace" in sys.modules:  # a notebook: tf_keras prints instead of failing the cell
        sys.stdout.write(message + "\n")
        return None
    raise ImportError(message)
