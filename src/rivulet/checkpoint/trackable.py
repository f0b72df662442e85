"""Which objects a checkpoint holds, and under which names: the trackable children of each object.

TensorFlow names every saved value by the path of attribute names from the root object
(`model/layer_with_weights-0/kernel`). These rules give the same names for rivulet's objects:
- tf.Variable: a leaf with one value, VARIABLE_VALUE;
- tf.Module, custom Keras layers and subclassed models: their attributes holding trackables, in the
  order they were set (lists, tuples and dicts become nodes whose children are named "0", "1" ... or by key);
  a layer's `add_weight` variables come first, named as in add_weight;
- Sequential and functional models: `layer-i` for each of `model.layers`, `layer_with_weights-j` for those
  with weights, and `optimizer` once compiled (as tf_keras 2.x names them);
- Keras optimizers: `_variables` (iterations, then each variable's slots), `_iterations`, `_learning_rate`
  and one list per kind of slot (tf_keras 2.11+'s optimizer layout); restoring also reads the legacy
  layout (`iter`, `learning_rate`, slots as the graph's slot_variables).
"""
import weakref

from ..state.module import _IGNORED, Module
from ..state.variables import Variable


def is_variable(x):
    return isinstance(x, Variable)


class Sequence:
    """A list/tuple/dict attribute as a checkpoint node (TensorFlow's ListWrapper/_DictWrapper)."""
    __slots__ = ("items", "owner", "synthetic", "__weakref__")

    def __init__(self, items, owner, synthetic=False):
        self.items, self.owner = items, owner  # owner: the real object whose attribute this is
        self.synthetic = synthetic  # built from a property (optimizer._variables), not a stored list


_wrappers = weakref.WeakKeyDictionary()  # optimizer -> {name: its list nodes}, stable across calls


def _keras():
    import sys
    return sys.modules.get("rivulet.keras.layers.base"), sys.modules.get("rivulet.keras.optimizers")


def is_trackable(x, depth=0):
    if isinstance(x, (Variable, Module, Sequence)) or getattr(x, "_is_checkpoint_root", False):
        return True
    base, opt = _keras()
    if base is not None and isinstance(x, base.Layer):
        return True
    if opt is not None and isinstance(x, opt.Optimizer):
        return True
    if depth < 8 and isinstance(x, (list, tuple)):
        return any(is_trackable(v, depth + 1) for v in x)
    if depth < 8 and isinstance(x, dict):
        return any(isinstance(k, str) and is_trackable(v, depth + 1) for k, v in x.items())
    return False


def _wrap(value, owner):
    if isinstance(value, (list, tuple, dict)):
        return Sequence(value, owner)
    return value


def _attribute_children(obj, skip=frozenset(), start=()):
    out = list(start)
    taken = {name for name, _ in out}
    for name, value in vars(obj).items():
        if name in _IGNORED or name in skip or name in taken or name.startswith("__"):
            continue
        if is_trackable(value):
            out.append((name, _wrap(value, obj)))
    return out


def _variable_local_name(layer, var):
    name = var.name[:-2] if var.name.endswith(":0") else var.name
    prefix = layer.name + "/"
    return name[len(prefix):] if name.startswith(prefix) else name.rsplit("/", 1)[-1]


def _layer_children(layer):
    start = [(_variable_local_name(layer, v), v) for v in layer._trainable_weights + layer._non_trainable_weights]
    skip = layer._UNTRACKED
    return _attribute_children(layer, skip, start)


def _model_children(model):
    if getattr(model, "_is_graph_network", False) or type(model).__name__ == "Sequential" and \
            hasattr(model, "_stack"):
        out, j = [], 0
        for i, layer in enumerate(model.layers):
            if layer.weights:
                out.append((f"layer_with_weights-{j}", layer))
                j += 1
            out.append((f"layer-{i}", layer))
        # variables added to the model itself (rare) keep their attribute names
        out += [(n, v) for n, v in _layer_children(model) if is_variable(v)]
    else:
        out = _layer_children(model)
    opt = getattr(model, "optimizer", None)
    if opt is not None and is_trackable(opt):
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


def _optimizer_children(opt):
    nodes = _wrappers.get(opt)
    if nodes is None:
        nodes = _wrappers[opt] = {}

    def node(name, items):
        n = nodes.get(name)
        if n is None:
            n = nodes[name] = Sequence(None, opt, synthetic=True)
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


def restore_aliases(obj):
    """Extra names an object answers to when restoring: the legacy (pre-2.11) Keras optimizers' `iter` and
    `learning_rate`, whose slots come as the checkpoint's slot_variables."""
    _, opt = _keras()
    if opt is not None and isinstance(obj, opt.Optimizer):
        return [("iter", obj._iterations), ("learning_rate", obj._lr)]
    return []


def children(obj):
    """[(local name, child)] of one object, in TensorFlow's order."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Sequence):
        items = obj.items
        if isinstance(items, dict):
            return [(k, _wrap(v, obj.owner)) for k, v in items.items() if isinstance(k, str) and is_trackable(v)]
        return [(str(i), _wrap(v, obj.owner)) for i, v in enumerate(items) if is_trackable(v)]
    hook = getattr(obj, "_checkpoint_children", None)
    if hook is not None:
        return hook()
    base, opt = _keras()
    if opt is not None and isinstance(obj, opt.Optimizer):
        return _optimizer_children(obj)
    if base is not None and isinstance(obj, base.Layer):
        from ..keras.models import Model
        return _model_children(obj) if isinstance(obj, Model) else _layer_children(obj)
    return _attribute_children(obj)


def breadth_first(root):
    """(nodes, paths, edges): every object reachable from root, numbered in breadth-first order (as
    TensorFlow numbers them), the first path of names to each, and each node's [(name, child id)]."""
    nodes, ids, paths, edges = [root], {id(root): 0}, [()], [None]
    i = 0
    while i < len(nodes):
        obj = nodes[i]
        out = []
        for name, child in children(obj):
            key = _identity(child)
            if key not in ids:
                ids[key] = len(nodes)
                nodes.append(child)
                paths.append(paths[i] + (name,))
                edges.append(None)
            out.append((name, ids[key]))
        edges[i] = out
        i += 1
    return nodes, paths, edges


def _identity(obj):
    # a list attribute seen through two owners is still one node: key it by the list itself
    return id(obj.items) if isinstance(obj, Sequence) and not obj.synthetic else id(obj)
