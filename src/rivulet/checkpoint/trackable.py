"""Which objects a checkpoint holds, and under which names: the trackable children of each object.

TensorFlow names every saved value by the path of attribute names from the root object
(`model/layer_with_weights-0/kernel`). The children protocol gives each object's [(local name, child)]:
- tf.Variable: a leaf with one value, VARIABLE_VALUE;
- an object with `_checkpoint_children()` answers it (tf.train.Checkpoint here; Keras layers, models and
  optimizers in keras/saving/checkpoint_names.py, which holds tf_keras's naming rules), and may add
  `_checkpoint_restore_aliases()`, names it also answers to when restoring;
- tf.Module and other objects: their attributes holding trackables, in the order they were set (lists,
  tuples and dicts become nodes whose children are named "0", "1" ... or by key).
"""
from ..state.module import UNTRACKED_ATTRIBUTES, Module
from ..state.variables import Variable


def is_variable(x):
    return isinstance(x, Variable)


class Sequence:
    """A list/tuple/dict attribute as a checkpoint node (TensorFlow's ListWrapper/_DictWrapper)."""
    __slots__ = ("items", "owner", "synthetic", "__weakref__")

    def __init__(self, items, owner, synthetic=False):
        self.items, self.owner = items, owner  # owner: the real object whose attribute this is
        self.synthetic = synthetic  # built from a property (optimizer._variables), not a stored list


class ListWrapper(list):
    """A list assigned to a tf.train.Checkpoint attribute (TensorFlow's ListWrapper): tracked even while empty,
    and what is added to it later receives the values a restore kept waiting for it."""
    __slots__ = ("_owner",)

    def __init__(self, items=(), owner=None):
        super().__init__(items)
        self._owner = owner

    def _changed(self):
        if self._owner is not None:
            from .checkpoint import apply_deferred
            apply_deferred(self._owner)

    def append(self, value):
        super().append(value)
        self._changed()

    def extend(self, values):
        super().extend(values)
        self._changed()

    def insert(self, index, value):
        super().insert(index, value)
        self._changed()

    def __setitem__(self, index, value):
        super().__setitem__(index, value)
        self._changed()

    def __iadd__(self, values):
        self.extend(values)
        return self

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"


def is_trackable(x, depth=0):
    if isinstance(x, (Variable, Module, Sequence)) or getattr(x, "_is_checkpoint_root", False):
        return True
    if callable(getattr(type(x), "_checkpoint_children", None)):  # the children protocol (Keras layers ...)
        return True
    if depth < 8 and isinstance(x, (list, tuple)):
        return any(is_trackable(v, depth + 1) for v in x)
    if depth < 8 and isinstance(x, dict):
        return any(isinstance(k, str) and is_trackable(v, depth + 1) for k, v in x.items())
    return False


def wrap(value, owner):
    if isinstance(value, (list, tuple, dict)):
        return Sequence(value, owner)
    return value


def attribute_children(obj, skip=frozenset(), start=()):
    out = list(start)
    taken = {name for name, _ in out}
    for name, value in vars(obj).items():
        if name in UNTRACKED_ATTRIBUTES or name in skip or name in taken or name.startswith("__"):
            continue
        if is_trackable(value):
            out.append((name, wrap(value, obj)))
    return out


def restore_aliases(obj):
    """Extra names an object answers to when restoring (a Keras optimizer's legacy `iter` and `learning_rate`,
    whose slots come as the checkpoint's slot_variables): its `_checkpoint_restore_aliases()`, if any."""
    hook = getattr(obj, "_checkpoint_restore_aliases", None)
    return hook() if hook is not None else []


def children(obj):
    """[(local name, child)] of one object, in TensorFlow's order."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, Sequence):
        items = obj.items
        if isinstance(items, dict):
            return [(k, wrap(v, obj.owner)) for k, v in items.items() if isinstance(k, str) and is_trackable(v)]
        return [(str(i), wrap(v, obj.owner)) for i, v in enumerate(items) if is_trackable(v)]
    hook = getattr(obj, "_checkpoint_children", None)
    if hook is not None:
        return hook()
    return attribute_children(obj)


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
