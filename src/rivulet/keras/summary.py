"""Model.summary(): the Keras 2 table (one row per layer: name (class), output shape, parameter count)."""
from rivulet import nest

from .layers.input_layer import KerasTensor


def _row(fields, positions):
    line = ""
    for i, field in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line += str(field)
        line = line[:positions[i]]
        line += " " * (positions[i] - len(line))
    return line


def _output_shape(layer):
    if len(layer._inbound) > 1:
        return "multiple"
    try:
        return layer.output_shape
    except AttributeError:
        return "multiple"


def _params(layer):
    return layer.count_params() if layer.built else 0


def _is_chain(model):
    if not model._is_graph_network or type(model).__name__ == "Sequential":
        return True
    previous = nest.flatten(model._input_tensors)
    if len(previous) != 1:
        return False
    for node in model._nodes:
        ins = [t for t in nest.flatten(node.inputs) if isinstance(t, KerasTensor)]
        if len(ins) != 1 or ins[0] is not previous[0] or len(node.layer._inbound) != 1:
            return False
        previous = nest.flatten(node.outputs)
    return True


def _connections(layer):
    names = []
    for node in layer._inbound:
        for t in nest.flatten(node.inputs):
            if isinstance(t, KerasTensor) and t.node is not None:
                src = t.node.layer
                names.append(f"{src.name}[{src._inbound.index(t.node)}]"
                             f"[{[id(o) for o in nest.flatten(t.node.outputs)].index(id(t))}]")
    return names


def print_summary(model, line_length=None, positions=None, print_fn=None):
    print_fn = print_fn or print
    chain = _is_chain(model)
    if chain:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_fn(_row(headers, positions))
    print_fn("=" * line_length)
    layers = model.layers
    for i, layer in enumerate(layers):
        fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), _params(layer)]
        if chain:
            print_fn(_row(fields, positions))
        else:
            links = _connections(layer)
            print_fn(_row(fields + [links[0] if links else ""], positions))
            for link in links[1:]:
                print_fn(_row(["", "", "", link], positions))
        print_fn("=" * line_length if i == len(layers) - 1 else "_" * line_length)
    if not layers:
        print_fn("=" * line_length)
    trainable = sum(_size(w) for w in model.trainable_weights)
    non_trainable = sum(_size(w) for w in model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)


def _size(w):
    n = 1
    for d in w.shape:
        n *= d
    return int(n)
