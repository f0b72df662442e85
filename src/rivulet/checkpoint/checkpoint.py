"""tf.train.Checkpoint: object-based checkpoints in TensorFlow's format.

Saving numbers every object reachable from the root breadth first (trackable.py), writes each variable's
value under its path (`net/l1/.ATTRIBUTES/VARIABLE_VALUE`) and the object graph under
`_CHECKPOINTABLE_OBJECT_GRAPH`. Restoring walks the checkpoint's graph and the live objects together,
matching children by name; a value whose object does not exist yet (a layer not built, optimizer slots
not created) waits on its parent and is applied when that parent creates it (deferred restoration).
Each restore reads and checks all its values first (a dtype other than the variable's: InvalidArgumentError,
never a cast; another shape: ValueError) and assigns them only if all pass.
"""
import os
import threading
import weakref

import numpy as np

from .. import dtypes as _dt
from ..core.context import init_scope
from ..core.tensor import EagerTensor
from ..state.module import register_setattr_hook
from ..errors import DataLossError, NotFoundError, UnimplementedError
from ..formats import object_graph as og
from . import trackable as tr
from ..formats.bundle import BundleReader, BundleWriter

register_setattr_hook(lambda module: apply_deferred(module))  # tf.Module attributes set after a restore

__all__ = ["Checkpoint", "CheckpointOptions", "CheckpointLoadStatus", "InitializationOnlyStatus",
           "NameBasedSaverStatus", "save_object", "restore_object", "apply_deferred"]

_lock = threading.RLock()


# ------------------------------------------------------------------------------------------ saving
def serialize(root):
    """({key: value} in TensorFlow's write order, object graph bytes) for everything reachable from root."""
    nodes, paths, edges = tr.breadth_first(root)
    graph = [og.Node(children=[(cid, name) for name, cid in edges[i]]) for i in range(len(nodes))]
    tensors = {}
    for i, obj in enumerate(nodes):
        if tr.is_variable(obj):
            key = og.checkpoint_key(paths[i])
            name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
            graph[i].attributes.append(("VARIABLE_VALUE", name, key))
            tensors[key] = _snapshot(obj)
        elif callable(getattr(obj, "_serialize_to_tensors", None)):
            _serialize_other(obj, paths[i], graph[i], tensors)
    # a node has values if it or anything below it does (children have larger ids in a BFS tree)
    for i in reversed(range(len(nodes))):
        g = graph[i]
        g.has_values = bool(g.attributes) or any(graph[c].has_values for c, _ in g.children if c > i)
    return tensors, og.encode(graph)


def _serialize_other(obj, path, node, tensors):
    """A trackable that is not a variable (a dataset iterator) saves what `_serialize_to_tensors()` gives,
    {name: NumPy value}, under `path/.ATTRIBUTES/name`; the object graph names the attribute
    `_checkpoint_attribute` when the object has one (TensorFlow's iterator: ITERATOR, its value ITERATOR_STATE)."""
    attr = getattr(obj, "_checkpoint_attribute", None)
    for name, value in obj._serialize_to_tensors().items():
        a = attr or name
        entry = (a, "", og.checkpoint_key(path, a))
        if entry not in node.attributes:
            node.attributes.append(entry)
        tensors[og.checkpoint_key(path, name)] = value


def _snapshot(var):
    """The variable's value to write. Eagerly a variable's array is replaced on every assign and never written
    into (state/variables.py), so the array itself is a consistent snapshot: no copy of a 100 MB model."""
    value = getattr(var, "_value", None)
    if isinstance(value, np.ndarray) and type(var).numpy is tr.Variable.numpy:
        return value
    return var.numpy()


def save_object(root, prefix):
    """Writes `root`'s object graph and variables as the bundle `prefix`; returns prefix."""
    prefix = os.fspath(prefix)
    with _lock:
        tensors, graph = serialize(root)
        w = BundleWriter(prefix)
        for k, v in tensors.items():
            w.add(k, v)
        w.add(og.OBJECT_GRAPH_KEY, np.array(graph, dtype=object))
        w.finish()
    return prefix


# ------------------------------------------------------------------------------------------ restoring
_pending = weakref.WeakKeyDictionary()  # live object -> [(restore session, checkpoint node id)]


def apply_deferred(obj):
    """Called by objects that just created children (a layer after build, an optimizer after creating
    slots, a Module or Checkpoint given a new attribute): restores values a checkpoint had for them."""
    if not _pending:
        return
    with _lock:
        try:
            waiting = _pending.pop(obj, None)
        except TypeError:  # not weakly referenceable: nothing can be waiting on it
            return
        if waiting:
            with init_scope():  # assign eagerly, even when the layer is built while a graph is traced
                for session, nid in waiting:
                    session.match(nid, obj)


class _Session:
    """One restore: the checkpoint's graph, and which of its nodes are bound to which live objects."""

    def __init__(self, reader, nodes, root):
        self.reader, self.nodes = reader, nodes
        self.matched = {}  # node id -> live object
        self.restored = set()  # node ids whose values were assigned
        self.root = weakref.ref(root) if _weakrefable(root) else (lambda r=root: r)
        self.errors = []

    def match(self, nid, obj):
        """Binds checkpoint node `nid` to `obj` and what lies below both, then restores every value found,
        all or nothing (as TensorFlow reads a restore's tensors in one op before assigning any): a bad value
        leaves the variables, and this session, as they were."""
        matched, restored = dict(self.matched), set(self.restored)
        plan, waits = [], []
        try:
            self._walk(nid, obj, plan, waits)
            _assign_all(self.reader, plan)
        except BaseException:
            self.matched, self.restored = matched, restored
            raise
        for anchor, anchor_nid in waits:
            _pending.setdefault(anchor, []).append((self, anchor_nid))

    def _walk(self, nid, obj, plan, waits):
        # Depth first with an explicit stack (no recursion limit on deep graphs), visiting each node once.
        # A node's slot variables are looked at after its children, whose variables they belong to.
        seen = set()
        stack = [("node", nid, obj, None)]
        while stack:
            item = stack.pop()
            if item[0] == "slots":
                self._slots(*item[1:], stack, waits)
                continue
            _, nid, obj, anchor = item
            if nid in seen:
                continue
            seen.add(nid)
            prior = self.matched.get(nid)
            if prior is not None and prior is not obj and not isinstance(obj, tr.Sequence):
                continue  # the checkpoint's node is already bound to another object
            self.matched[nid] = obj
            node = self.nodes[nid]
            if tr.is_variable(obj) and nid not in self.restored:
                keys = [key for name, _, key in node.attributes if name == "VARIABLE_VALUE"]
                if keys:
                    self.restored.add(nid)
                    plan.append((obj, keys[-1]))
            elif node.attributes and nid not in self.restored and callable(getattr(obj, "_restore_from_tensors", None)):
                self.restored.add(nid)
                plan.append((obj, node.attributes))
            if not isinstance(obj, tr.Sequence):
                anchor = (obj, nid)
            if not node.children and not node.slot_variables:
                continue
            live = {}
            for name, child in tr.children(obj) + tr.restore_aliases(obj):
                live.setdefault(name, child)
            missing = False
            below = []
            for cid, name in node.children:
                child = live.get(name)
                if child is None:
                    missing = missing or self.nodes[cid].has_values
                else:
                    below.append(("node", cid, child, anchor))
            stack.append(("slots", node, obj, anchor, missing))
            stack.extend(reversed(below))  # popped in the checkpoint's order

    def _slots(self, node, obj, anchor, missing, stack, waits):
        for orig, slot_name, sid in node.slot_variables:  # TF 1.x / legacy Keras optimizers' slots
            var = self.matched.get(orig)
            slot = _legacy_slot(obj, var, slot_name) if var is not None else None
            if slot is None:
                missing = True
            else:
                stack.append(("node", sid, slot, anchor))
        if missing and anchor is not None and _can_wait(anchor[0]):
            waits.append(anchor)

    # -- for the status object
    def unresolved(self):
        """Checkpoint nodes holding values that no live object took (as TensorFlow: nodes with attributes)."""
        return [i for i, n in enumerate(self.nodes) if i not in self.matched and n.attributes]

    def path_of(self, nid):
        """The names leading from the root to node `nid` (breadth first, each node once: a cycle in the graph
        cannot loop), or a note that the root does not reach it."""
        parent = {0: None}  # node -> (its parent, its name there): one entry per node, not a path per node
        queue = [0]
        for i in queue:  # grows while iterated: a breadth-first walk
            if nid in parent:
                break
            for c, name in self.nodes[i].children:
                if c not in parent:
                    parent[c] = (i, name)
                    queue.append(c)
        if nid not in parent:
            return f"(node {nid}, not reachable from the root)"
        names = []
        while parent[nid] is not None:
            nid, name = parent[nid]
            names.append(name)
        return ".".join(["(root)"] + names[::-1])


def _can_wait(obj):
    """Whether values may wait on `obj` to create its missing children; never a variable (it has none, and
    is not hashable), only a weakly referenceable, hashable object."""
    if tr.is_variable(obj) or not _weakrefable(obj):
        return False
    try:
        hash(obj)
        return True
    except TypeError:
        return False


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _legacy_slot(opt, var, slot_name):
    """A legacy optimizer's slot by name (rivulet's slots carry the legacy names: m, v, momentum, rms ...)."""
    slots = getattr(opt, "_slots", None)
    if not isinstance(slots, dict):
        return None
    return slots.get(id(var), {}).get(slot_name)


def _assign_all(reader, plan):
    """Restores [(variable, checkpoint key)]: every value is read and checked (dtype: InvalidArgumentError,
    as TensorFlow's RestoreV2; shape: ValueError, as its variables' restore) before any is assigned."""
    values = []
    for var, key in plan:
        if not isinstance(key, str):  # a trackable restoring from tensors: read them all, let it check them
            values.append(_read_other(reader, var, key))
            continue
        reader.check_dtype(key, var.dtype, var.name)  # before reading: a wrong dtype is never cast
        value = reader.get_tensor(key)
        shape = tuple(var.shape)
        if tuple(value.shape) != shape:
            raise ValueError(f"Received incompatible tensor with shape {tuple(value.shape)} when attempting to "
                             f"restore variable with shape {shape} and name {var.name}.")
        values.append(value)
    # trackables restoring from tensors first (a dataset iterator may still refuse its state while seeking to
    # it): a refusal leaves every variable as it was
    for (var, key), value in zip(plan, values):
        if not isinstance(key, str):
            var._restore_from_tensors(value)
    for (var, key), value in zip(plan, values):
        if isinstance(key, str):
            var.assign(EagerTensor(value))  # as a tensor: the array just read is the variable's, not copied again


def _read_other(reader, obj, attributes):
    """{name: value} for a trackable's `_restore_from_tensors`: the names its `_serialize_to_tensors` gives,
    read beside its object graph attribute; `_check_restore(values)` may refuse them before anything is
    assigned."""
    name, _, key = attributes[0]
    prefix = key[:-len(name)] if key.endswith(name) else key + "_"
    values = {}
    for n in obj._serialize_to_tensors():
        if prefix + n not in reader:
            raise NotFoundError(None, None, f"Key {prefix + n} not found in checkpoint")
        try:
            values[n] = reader.get_tensor(prefix + n)
        except UnimplementedError as e:  # TensorFlow's iterator state is a variant, its kernels' own encoding
            raise UnimplementedError(None, None, f"{e.message}: {prefix + n} was written by TensorFlow for "
                                     f"{type(obj).__name__}; rivulet cannot restore that state.") from None
    check = getattr(obj, "_check_restore", None)
    if check is not None:
        check(values)
    return values


def restore_object(root, save_path):
    """Restores `root` from the checkpoint at `save_path`; returns the CheckpointLoadStatus."""
    save_path = os.fspath(save_path)
    reader = BundleReader(save_path)
    if og.OBJECT_GRAPH_KEY not in reader:
        return _restore_by_name(root, reader)
    graph = reader.get_tensor(og.OBJECT_GRAPH_KEY)
    if graph.dtype != object or graph.size != 1:  # TensorFlow writes one serialized proto, a string scalar
        raise DataLossError(None, None, f"Checkpoint {save_path!r} is corrupted: its object graph "
                            f"({og.OBJECT_GRAPH_KEY}) is not a string scalar but {_dtype_name(graph)} of shape "
                            f"{list(graph.shape)}")
    try:
        nodes = og.decode(graph.reshape(-1)[0])
    except DataLossError as e:
        raise DataLossError(None, None, f"Checkpoint {save_path!r} is corrupted: its object graph: "
                            f"{e.message}") from None
    if not nodes:
        raise NotFoundError(None, None, f"The checkpoint at {save_path} has an empty object graph.")
    session = _Session(reader, nodes, root)
    with init_scope(), _lock:
        session.match(0, root)
    return CheckpointLoadStatus(session, root)


def _dtype_name(arr):
    return "string" if arr.dtype == object else arr.dtype.name


def _restore_by_name(root, reader):
    """A TF1-style checkpoint (tf.compat.v1.train.Saver: keys are variable names, no object graph): each
    variable reachable from root takes the value saved under its own name."""
    plan, unmatched = [], []
    counter = getattr(root, "_save_counter", None)  # made by restore itself; TF1 files have none
    with init_scope(), _lock:
        for obj in tr.breadth_first(root)[0]:
            if tr.is_variable(obj) and obj is not counter:
                key = obj.name[:-2] if obj.name.endswith(":0") else obj.name
                if key in reader:
                    plan.append((obj, key))
                else:
                    unmatched.append(obj)
        _assign_all(reader, plan)
    return NameBasedSaverStatus([v for v, _ in plan], unmatched)


# ------------------------------------------------------------------------------------------ statuses
class _Status:
    def expect_partial(self):
        """Silences nothing here (rivulet does not warn about partial restores); kept for TF's API."""
        return self

    def run_restore_ops(self, session=None):
        pass  # eager: values were assigned by restore itself

    def initialize_or_restore(self, session=None):
        pass


class CheckpointLoadStatus(_Status):
    """What `restore` returns: assertions about how well the checkpoint matched the objects."""

    def __init__(self, session, root):
        self._session = session
        self._root = root

    def assert_consumed(self):
        """Every value in the checkpoint was restored, and every variable reachable from the root got one."""
        self._check_live()
        s = self._session
        missing = s.unresolved()
        if missing:
            raise AssertionError(f"Unresolved object in checkpoint {s.path_of(missing[0])}: "
                                 f"{str(s.nodes[missing[0]].attributes)[:1000]}")
        return self

    def assert_existing_objects_matched(self):
        """Every variable that exists now, reachable from the root, got a value from the checkpoint."""
        self._check_live()
        return self

    def _check_live(self):
        bound = {id(o) for o in self._session.matched.values()}
        bound.add(id(getattr(self._root, "_save_counter", None)))  # created by restore; may be absent from files
        unbound = [o for o in tr.breadth_first(self._root)[0] if tr.is_variable(o) and id(o) not in bound]
        if unbound:
            raise AssertionError(f"Found {len(unbound)} Python objects that were not bound to checkpointed values, "
                                 "likely due to changes in the Python program. Showing "
                                 f"{min(len(unbound), 10)} of {len(unbound)} unmatched objects: {unbound[:10]}")

    def unrestored(self, variables):
        """Those of `variables` (a wrapper counts as its inner `_variable`) that took no value from the checkpoint,
        deferred ones included: what a load that must restore every weight refuses."""
        bound = {id(o) for o in self._session.matched.values()}
        return [v for v in variables if id(v) not in bound and id(getattr(v, "_variable", None)) not in bound]

    def assert_nontrivial_match(self):
        if len(self._session.matched) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this "
                                 "means that the checkpoint does not match the Python program.")
        return self


class NameBasedSaverStatus(_Status):
    """What restoring a name-based (TF1 Saver) checkpoint returns: variables were matched by name."""

    def __init__(self, restored, unmatched):
        self._restored, self._unmatched = restored, unmatched

    def assert_consumed(self):
        if self._unmatched:
            raise AssertionError(f"Found {len(self._unmatched)} Python objects that were not bound to checkpointed "
                                 f"values (restoring a name-based checkpoint matches variables by name): "
                                 f"{self._unmatched[:10]}")
        return self

    assert_existing_objects_matched = assert_consumed

    def assert_nontrivial_match(self):
        if not self._restored:
            raise AssertionError("No variable was restored: no variable's name is a key of this name-based "
                                 "checkpoint.")
        return self


class InitializationOnlyStatus(_Status):
    """What `restore(None)` returns: nothing was restored; variables keep their initial values."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed


# ------------------------------------------------------------------------------------------ tf.train.Checkpoint
class CheckpointOptions:
    """tf.train.CheckpointOptions: accepted for compatibility; rivulet has one device and writes
    synchronously, so none of the options changes what is written."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(enable_async or experimental_enable_async_checkpoint)
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


class Checkpoint:
    """tf.train.Checkpoint(root=None, **objects): save/write/read/restore the objects' variables."""
    _is_checkpoint_root = True

    def __init__(self, root=None, **kwargs):
        deps = {}
        for k, v in sorted(kwargs.items(), key=lambda kv: kv[0]):
            if not tr.is_trackable(v) or isinstance(v, (list, tuple, dict)) and not v:
                raise ValueError(f"`Checkpoint` was expecting {k} to be a trackable object (an object derived from "
                                 f"`Trackable`), got {v}.")
            deps[k] = v
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_deps", deps)
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_lock", threading.RLock())

    def __setattr__(self, name, value):
        if type(value) is list and not name.startswith("_"):
            value = tr.ListWrapper(value, owner=self)  # tracked while empty; appends restore what waits for them
        if (tr.is_trackable(value) or isinstance(value, tr.ListWrapper)) and not name.startswith("_"):
            self._deps[name] = value
        object.__setattr__(self, name, value)
        apply_deferred(self)  # a restore that ran before this attribute existed

    def __getattr__(self, name):
        deps = self.__dict__.get("_deps", {})
        if name in deps:
            return deps[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def _checkpoint_children(self):
        out = list(tr.children(self._root)) if self._root is not None else []
        out += [(k, tr.wrap(v, self)) for k, v in self._deps.items()]
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    @property
    def save_counter(self):
        """An int64 variable counting `save` calls (created on first use)."""
        self._make_save_counter()
        return self._save_counter

    def _make_save_counter(self):
        with self._lock:
            if self._save_counter is None:
                from ..state.variables import Variable
                with init_scope():
                    object.__setattr__(self, "_save_counter",
                                       Variable(0, dtype=_dt.int64, trainable=False, name="save_counter"))

    def write(self, file_prefix, options=None):
        """Writes a checkpoint at exactly `file_prefix` (no numbering, no `checkpoint` file)."""
        return save_object(self, file_prefix)

    def save(self, file_prefix, options=None):
        """Writes `file_prefix-N` (N: the save counter after incrementing it) and records it in the
        directory's `checkpoint` file; returns the path."""
        from .management import update_checkpoint_state
        file_prefix = os.fspath(file_prefix)
        with self._lock:
            self._make_save_counter()
            n = int(self._save_counter.assign_add(1).numpy())
            path = self.write(f"{file_prefix}-{n}")
            update_checkpoint_state(os.path.dirname(file_prefix), path, [path])
        return path

    def read(self, save_path, options=None):
        """Restores from `save_path`; returns a CheckpointLoadStatus."""
        return restore_object(self, save_path)

    def restore(self, save_path, options=None):
        """Like `read`; `restore(None)` restores nothing and returns an InitializationOnlyStatus. A directory
        restores its latest checkpoint."""
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path):
            from .management import latest_checkpoint
            latest = latest_checkpoint(save_path)
            if latest is None:
                raise NotFoundError(None, None, f"No checkpoint found in directory {save_path}")
            save_path = latest
        self._make_save_counter()
        return self.read(save_path)
