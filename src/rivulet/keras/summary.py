"""Model.summary(): the Keras 2 table (one row per layer: name (class), output shape, parameter count)."""
from rivulet import nest

from .layers.input_layer import KerasTensor


_BREAKS = ("),", "},", "],", "',")


def _row(fields, positions, nested=0):
    """One table row as tf_keras 2.x prints it: a leading space, each field wrapped within its column (2 spaces
    between columns; long fields continue on the next lines, preferably after a '),' / '],' / "'," break).
    Rows of an expanded nested model are framed by `nested` bars on each side."""
    left = [str(f) for f in fields]
    lines = []
    last = len(positions) - 1
    while any(left):
        line = ""
        for col, text in enumerate(left):
            start = positions[col - 1] if col else 0
            space = 2 if col != last else 0
            cutoff = positions[col] - start - space - (1 if col != last else 0) - (nested if col == 0 else 0)
            fit = text[:cutoff]
            cuts = [fit.find(b) + len(b) for b in _BREAKS if fit.find(b) >= 0]
            if cuts:
                cutoff = min(cuts)
                fit = fit[:cutoff]
            if col == 0:
                line += "|" * nested + " "
            line += fit + " " * space
            left[col] = text[cutoff:]
            line += " " * (positions[col] - len(line) - (nested if col == last else 0))
        lines.append(line + "|" * nested)
    return lines


def _readable_size(n_bytes):
    size = float(n_bytes)
    for unit in ("Byte", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _output_shape(layer):
    # Several calls show one shape when they all gave the same (as Keras's Layer.output_shape).
    shapes = {repr(nest.map_structure(lambda t: t.shape.as_list(), n.outputs)) for n in layer._inbound}
    if len(shapes) > 1:
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
        ins = node.keras_inputs()
        if len(ins) != 1 or ins[0] is not previous[0] or len(node.layer._inbound) != 1:
            return False
        previous = nest.flatten(node.outputs)
    return True


def _connections(layer, relevant):
    """The inputs of this layer's calls that belong to the model summarised (calls made for other models, and
    the layers of an expanded nested model, list none)."""
    names = []
    for node in layer._inbound:
        if id(node) not in relevant:
            continue
        for t in node.keras_inputs():
            if t.node is not None:
                src = t.node.layer
                names.append(f"{src.name}[{src._inbound.index(t.node)}]"
                             f"[{[id(o) for o in nest.flatten(t.node.outputs)].index(id(t))}]")
    return names


def print_summary(model, line_length=None, positions=None, print_fn=None, show_trainable=False,
                  expand_nested=False):
    print_fn = print_fn or print
    chain = _is_chain(model)
    relevant = {id(n) for n in getattr(model, "_nodes", ())}
    if chain:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:  # one more column, 11 wide: Y or N
        line_length += 11
        positions = list(positions) + [line_length]
        headers = headers + ["Trainable"]

    def emit(fields, nested=0):
        for line in _row(fields, positions, nested):
            print_fn(line)

    def layer_rows(layer, nested=0, last=False):
        fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), _params(layer)]
        fields = fields if chain else fields + [_connections(layer, relevant)]
        emit(fields + ["Y" if layer.trainable else "N"] if show_trainable else fields, nested)
        inner = getattr(layer, "layers", None) if expand_nested else None
        if inner:  # the nested model's rows, framed (no blank row after the frame, as tf_keras)
            bars = "|" * (nested + 1)
            print_fn(bars + "\u00af" * (line_length - 2 * nested - 2) + bars)
            for i, sub in enumerate(inner):
                layer_rows(sub, nested + 1, i == len(inner) - 1)
            print_fn("|" * nested + "\u00af" * (line_length - 2 * nested) + "|" * nested)
        elif not last:
            print_fn("|" * nested + " " * (line_length - 2 * nested) + "|" * nested)

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    emit(headers)
    print_fn("=" * line_length)
    for layer in model.layers:
        layer_rows(layer)
    print_fn("=" * line_length)
    trainable = _unique(model.trainable_weights)
    non_trainable = _unique(model.non_trainable_weights)
    t_count, n_count = sum(_size(w) for w in trainable), sum(_size(w) for w in non_trainable)
    t_bytes, n_bytes = sum(_bytes(w) for w in trainable), sum(_bytes(w) for w in non_trainable)
    print_fn(f"Total params: {t_count + n_count} ({_readable_size(t_bytes + n_bytes)})")
    print_fn(f"Trainable params: {t_count} ({_readable_size(t_bytes)})")
    print_fn(f"Non-trainable params: {n_count} ({_readable_size(n_bytes)})")
    print_fn("_" * line_length)


def _unique(weights):
    seen, out = set(), []
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            out.append(w)
    return out


def _size(w):
    n = 1
    for d in w.shape:
        n *= d
    return int(n)


def _bytes(w):
    return _size(w) * w.dtype.size
