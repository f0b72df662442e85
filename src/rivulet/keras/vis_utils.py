"""tf.keras.utils.plot_model and model_to_dot: a model's layers as a Graphviz graph, drawn with pydot.

pydot (the `plot` extra, `pip install pydot`) builds the graph; Graphviz's `dot` program renders it. As in
tf_keras 2.21: without either, plot_model prints its message and returns None inside IPython/Jupyter and
raises ImportError elsewhere; model_to_dot needs pydot only. Each layer is a record node (`name|Class`,
with `input:|output:` shapes when show_shapes), each connection an edge.
"""
import os
import sys

_GRAPHVIZ_MESSAGE = ("You must install pydot (`pip install pydot`) and install graphviz (see instructions at "
                     "https://graphviz.gitlab.io/download/) for plot_model to work.")


def _pydot():
    """pydot_ng, pydotplus or pydot (the first that imports, as tf_keras looks for them), else None."""
    for name in ("pydot_ng", "pydotplus", "pydot"):
        try:
            return __import__(name)
        except ImportError:
            continue
    return None


def check_pydot():
    """Whether pydot is available."""
    return _pydot() is not None


def check_graphviz():
    """Whether pydot and Graphviz both work: renders an empty graph."""
    pydot = _pydot()
    if pydot is None:
        return False
    try:
        pydot.Dot.create(pydot.Dot())
        return True
    except (OSError, FileNotFoundError):
        return False
    except Exception as e:  # pydot_ng's InvocationException, pydot's own errors when `dot` is missing
        if type(e).__name__ == "InvocationException" or isinstance(e, (AssertionError, RuntimeError)):
            return False
        raise


def _require_built(model):
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling `build()` or by "
                         "calling the model on a batch of data.")


def _format_shape(shape):
    return str(shape).replace(str(None), "None").replace("{", r"\{").replace("}", r"\}")


def _shape_of(structure):
    from .layers.input_layer import KerasTensor, _shape_tuple
    from rivulet import nest
    flat = [t for t in nest.flatten(structure) if isinstance(t, KerasTensor)]
    shapes = [_shape_tuple(t.shape) for t in flat]
    if not shapes:
        return "?"
    return shapes[0] if len(shapes) == 1 and not isinstance(structure, (list, tuple)) else shapes


def _graph(model):
    """(layers in order, {id(layer): node in this model}, edges as (from layer, to layer)) of a graph model."""
    from .layers.input_layer import InputLayer
    nodes = list(getattr(model, "_nodes", None) or [])
    layers = []
    inputs = model.inputs or []
    for kt in inputs:
        if kt.node is not None and isinstance(kt.node.layer, InputLayer):
            layers.append(kt.node.layer)
    node_of = {id(kt.node.layer): kt.node for kt in inputs if kt.node is not None}
    if hasattr(model, "_stack"):  # a Sequential: its layers' nodes from its input on
        nodes = [kt.node for kt in (model._outputs_kt[1:] if getattr(model, "_outputs_kt", None) else [])]
    for node in nodes:
        if id(node.layer) not in node_of:
            layers.append(node.layer)
            node_of[id(node.layer)] = node
    edges = []
    for node in nodes:
        for parent in node.parents:
            pair = (parent.layer, node.layer)
            if all(not (a is pair[0] and b is pair[1]) for a, b in edges):
                edges.append(pair)
    return layers, node_of, edges


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=96, subgraph=False, layer_range=None, show_layer_activations=False,
                 show_trainable=False):
    """The model as a `pydot.Dot` (a `pydot.Cluster` with subgraph=True): one record node per layer."""
    _require_built(model)
    pydot = _pydot()
    if pydot is None:
        raise ImportError("You must install pydot (`pip install pydot`) for model_to_dot to work.")
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set_node_defaults(shape="record")
    if not getattr(model, "_is_graph_network", False) and not hasattr(model, "_stack"):
        dot.add_node(pydot.Node(str(id(model)), label=model.name))
        return dot
    if hasattr(model, "_stack") and model.inputs is None:
        dot.add_node(pydot.Node(str(id(model)), label=model.name))
        return dot
    layers, node_of, edges = _graph(model)
    if layer_range is not None:
        if len(layer_range) != 2:
            raise ValueError(f"layer_range must be of shape (2,). Received: layer_range = {layer_range} of length "
                             f"{len(layer_range)}")
        if not all(isinstance(n, str) for n in layer_range):
            raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
        names = [l.name for l in layers]
        import re
        starts = [i for i, n in enumerate(names) if re.match(layer_range[0], n)]
        ends = [i for i, n in enumerate(names) if re.match(layer_range[1], n)]
        if not starts or not ends:
            raise ValueError(f"Passed layer_range does not match to model layers. Received: {layer_range}")
        keep = {id(l) for l in layers[starts[0]:ends[-1] + 1]}
        layers = [l for l in layers if id(l) in keep]
        edges = [(a, b) for a, b in edges if id(a) in keep and id(b) in keep]
    for layer in layers:
        class_name = type(layer).__name__
        layer_name = layer.name
        inner = getattr(layer, "layer", None)
        if inner is not None and hasattr(inner, "name"):  # a Wrapper: Bidirectional(LSTM)
            layer_name = f"{layer_name}({inner.name})"
            class_name = f"{class_name}({type(inner).__name__})"
        label = class_name
        activation = getattr(layer, "activation", None) if show_layer_activations else None
        if activation is not None:
            act = getattr(activation, "name", None) or getattr(activation, "__name__", None) or str(activation)
            label = "{%s|%s}" % (label, act)
        if show_layer_names:
            label = f"{layer_name}|{label}"
        if show_dtype:
            label = f"{label}|{layer.dtype if layer.dtype is not None else '?'}"
        if show_shapes:
            node = node_of.get(id(layer))
            if node is None:
                inputs = outputs = "?"
            elif not node.parents and not node.keras_inputs():  # an InputLayer: its input is its output
                inputs = outputs = _format_shape([_shape_of(node.outputs)])
            else:
                inputs = _format_shape(_shape_of(node.inputs if node.inputs is not None else node.args))
                outputs = _format_shape(_shape_of(node.outputs))
            label = "{%s}|{input:|output:}|{{%s}|{%s}}" % (label, inputs, outputs)
        if show_trainable:
            label = f"{'T' if layer.trainable else 'NT'}|{label}"
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    for src, dst in edges:
        if not dot.get_edge(str(id(src)), str(id(dst))):
            dot.add_edge(pydot.Edge(str(id(src)), str(id(dst))))
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
               expand_nested=False, dpi=96, layer_range=None, show_layer_activations=False, show_trainable=False):
    """Draws the model to `to_file` (format from its extension, png when none); returns an IPython Image
    when IPython is installed (not for pdf). Without pydot and Graphviz: tf_keras' message, printed in
    IPython (and None returned), an ImportError elsewhere."""
    _require_built(model)
    if not check_graphviz():
        if "IPython.core.magics.namespace" in sys.modules:
            print(_GRAPHVIZ_MESSAGE)
            return None
        raise ImportError(_GRAPHVIZ_MESSAGE)
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype, show_layer_names=show_layer_names,
                       rankdir=rankdir, expand_nested=expand_nested, dpi=dpi, layer_range=layer_range,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    to_file = os.fspath(to_file)
    if dot is None:
        return None
    _, extension = os.path.splitext(to_file)
    extension = extension[1:] if extension else "png"
    dot.write(to_file, format=extension)
    if extension != "pdf":
        try:
            from IPython import display
        except ImportError:
            return None
        return display.Image(filename=to_file)
    return None
