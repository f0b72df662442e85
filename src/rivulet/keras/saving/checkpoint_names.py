"""How Keras objects appear in checkpoints: the children each answers through the children protocol
(`_checkpoint_children`, checkpoint/trackable.py), under tf_keras 2.x's names:
- layers and subclassed models: their `add_weight` variables first (named as in add_weight), then their
  attributes holding trackables, in the order they were set;
- Sequential and functional models: `layer-i` for each of `model.layers`, `layer_with_weights-j` for those
  with weights, and `optimizer` once compiled;
- optimizers: `_variables` (iterations, then each variable's slots), `_iterations`, `_learning_rate` and one
  list per kind of slot (tf_keras 2.11+'s layout); restoring also answers to the legacy `iter` and
  `learning_rate` (slots then come as the checkpoint's slot_variables).
"""
import weakref

from ...checkpoint import trackable as tr

_wrappers = weakref.WeakKeyDictionary()  # optimizer -> {name: its list nodes}, stable across calls


def _variable_local_name(layer, var):
    name = var.name[:-2] if var.name.endswith(":0") else var.name
    prefix = layer.name + "/"
    return name[len(prefix):] if name.startswith(prefix) else name.rsplit("/", 1)[-1]


def layer_children(layer):
    start = [(_variable_local_name(layer, v), v) for v in layer._trainable_weights + layer._non_trainable_weights]
    skip = layer._UNTRACKED
    return tr.attribute_children(layer, skip, start)


def model_children(model):
    if getattr(model, "_is_graph_network", False) or type(model).__name__ == "Sequential" and \
            hasattr(model, "_stack"):
        out, j = [], 0
        for i, layer in enumerate(model.layers):
            if layer.weights:
                out.append((f"layer_with_weights-{j}", layer))
                j += 1
            out.append((f"layer-{i}", layer))
        # variables added to the model itself (rare) keep their attribute names
        out += [(n, v) for n, v in layer_children(model) if tr.is_variable(v)]
    else:
        out = layer_children(model)
    opt = getattr(model, "optimizer", None)
    if opt is not None and tr.is_trackable(opt):
        out.append(("optimizer", opt))
    return out


# tf_keras 2.11+ optimizers also list each kind of slot under its own attribute
_SLOT_LISTS = {
    "SGD": {"momentum": "momentums"},
    "Adam": {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"},
    "Nadam": {"m": "_momentums", "v": "_velocities"},
    "RMSprop": {"rms": "_velocities", "momentum": "_momentums", "mg": "_average_gradients"},
    "Adagrad": {"accumulator": "_accumulators"},
    "Adadelta": {"accumulated_grad": "_accumulated_grads", "accumulated_delta_var": "_accumulated_delta_vars"},
    "Adamax": {"m": "_m", "u": "_u"},
    "Ftrl": {"accumulator": "_accumulators", "linear": "_linears"},
}


# tf_keras's Nadam keeps a `_u_product` variable at `_variables/1`, which rivulet's Nadam computes instead:
# its `_variables` positions would not line up, so only the named slot lists are written and matched.
_NO_VARIABLES_LIST = frozenset(["Nadam"])


def optimizer_children(opt):
    nodes = _wrappers.get(opt)
    if nodes is None:
        nodes = _wrappers[opt] = {}

    def node(name, items):
        n = nodes.get(name)
        if n is None:
            n = nodes[name] = tr.Sequence(None, opt, synthetic=True)
        n.items = items
        return n
    out = [("_iterations", opt._iterations), ("_learning_rate", opt._lr)]
    if type(opt).__name__ not in _NO_VARIABLES_LIST:
        out.insert(0, ("_variables", node("_variables", list(opt.variables))))
    lists = _SLOT_LISTS.get(type(opt).__name__, {})
    for slot in opt._SLOTS:
        if slot in lists:
            out.append((lists[slot], node(lists[slot], [opt._slots[k][slot] for k in opt._slot_order])))
    return out


def optimizer_restore_aliases(opt):
    return [("iter", opt._iterations), ("learning_rate", opt._lr)]
