"""ReplicaContext and `strategy.run`: each replica's function runs in a thread of its own.

The replica threads take turns, one at a time, like TensorFlow's MirroredStrategy builds its replicas:
replica 0 runs until it finishes or calls `merge_call`, then replica 1, and so on. When every replica waits
in `merge_call`, the merge function runs once in the calling thread, in cross-replica context, with the
replicas' arguments joined into PerReplica values; then the replicas resume in turn with its result. Since
one thread runs at a time, replicas can trace into one graph and share one variable store, and a merged
update (an optimizer step) is applied exactly once.
"""
import contextlib
import threading

from ..core import context as _core
from ..function.polymorphic import set_call_device as _set_call_device
from ..state import creation as _creation, naming as _naming
from . import context as _ctx
from .values import as_reduce_op, mark_mirrored, regroup, select_replica


class _Aborted(BaseException):
    """Unwinds a replica thread whose sibling failed (BaseException: user code should not catch it)."""


class ReplicaContext:
    """tf.distribute.ReplicaContext: what a function run by `strategy.run` sees of its replica."""

    def __init__(self, strategy, replica_id, replica=None):
        self._strategy = strategy
        self._replica_id = replica_id
        self._replica = replica  # the _Replica thread, None for a strategy of one replica

    strategy = property(lambda self: self._strategy)
    num_replicas_in_sync = property(lambda self: self._strategy.num_replicas_in_sync)

    @property
    def replica_id_in_sync_group(self):
        from .. import dtypes
        from ..ops.constant_op import constant
        return constant(self._replica_id, dtypes.int32)

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Runs merge_fn(strategy, *args, **kwargs) once for all replicas, in cross-replica context, with
        each argument that differs between replicas given as a PerReplica; returns its result to every
        replica (PerReplica results give each replica its own component)."""
        kwargs = dict(kwargs or {})
        if self._replica is None:
            _ctx.push(self._strategy, None)
            try:
                return merge_fn(self._strategy, *args, **kwargs)
            finally:
                _ctx.pop()
        if _core.current_graph() is not self._replica.base_graph:
            # the replica is tracing a tf.function of its own (TensorFlow's error, word for word)
            raise RuntimeError(
                "`merge_call` called while defining a new graph or a tf.function. This can often happen if the "
                "function `fn` passed to `strategy.run()` contains a nested `@tf.function`, and the nested "
                "`@tf.function` contains a synchronization point, such as aggregating gradients (e.g, "
                "optimizer.apply_gradients), or if the function `fn` uses a control flow statement which "
                "contains a synchronization point in the body. Such behaviors are not yet supported. Instead, "
                "please avoid nested `tf.function`s or control flow statements that may potentially cross a "
                "synchronization boundary, for example, wrap the `fn` passed to `strategy.run` or the entire "
                "`strategy.run` inside a `tf.function` or move the control flow out of `fn`. If you are "
                "subclassing a `tf.keras.Model`, please avoid decorating overridden methods `test_step` and "
                "`train_step` in `tf.function`.")
        return self._replica.wait_for_merge(merge_fn, args, kwargs)

    def all_reduce(self, reduce_op, value, options=None):
        """Reduces `value` (a tensor or a structure of them) across all replicas; every replica gets the
        result."""
        op = as_reduce_op(reduce_op)
        return self.merge_call(lambda strategy, v: strategy._reduce_structure(op, v, None), args=(value,))

    def all_gather(self, value, axis, options=None):
        """Concatenates every replica's `value` along `axis`, in replica order; every replica gets it."""
        return self.merge_call(lambda strategy, v: strategy.gather(v, axis), args=(value,))

    def __repr__(self):
        return f"<ReplicaContext replica {self._replica_id} of {self.num_replicas_in_sync}>"


def _snapshot():
    """The calling thread's tracing/naming/creator state, for a replica thread to continue from."""
    st = _core.state
    return dict(graphs=list(st.graphs), tapes=list(st.tapes), init_scope=st.init_scope,
                stop_recording=st.stop_recording, prefix=_naming._eager.prefix,
                creators=_creation._stack.creators, dist=_ctx.entries())


def _restore(snap):
    st = _core.state
    st.graphs, st.tapes = snap["graphs"], snap["tapes"]
    st.init_scope, st.stop_recording = snap["init_scope"], snap["stop_recording"]
    _naming._eager.prefix = snap["prefix"]
    _creation._stack.creators = snap["creators"]
    _ctx.set_entries(snap["dist"])


class _Replica(threading.Thread):
    def __init__(self, run, index, replica_id, fn, args, kwargs, snap):
        # not named "rivulet-...": the parallel executor treats such threads as its own pool workers
        super().__init__(name=f"replica-{replica_id}", daemon=True)
        self._run, self.index, self.replica_id = run, index, replica_id
        self._call = (fn, args, kwargs)
        self._snap = snap
        graphs = snap["graphs"]  # the graph the caller builds (None: eager), which merges build into
        self.base_graph = graphs[-1] if graphs and not snap["init_scope"] else None
        self.go, self.paused = threading.Event(), threading.Event()
        self.done, self.result, self.error = False, None, None
        self.merge = None  # (merge_fn, args, kwargs) while waiting in merge_call
        self.merge_result = None

    def run(self):
        self.go.wait()
        self.go.clear()
        try:
            if self._run.aborted:
                return
            _restore(self._snap)
            # a tf.function this replica calls is traced for its device, as in TensorFlow (polymorphic.py)
            _set_call_device(self._run.strategy.extended.worker_devices[self.replica_id])
            _ctx.push(self._run.strategy, ReplicaContext(self._run.strategy, self.replica_id, self))
            fn, args, kwargs = self._call
            with _creation.variable_creator_scope(self._run.creator(self.index)):
                self.result = fn(*args, **kwargs)
        except _Aborted:
            pass
        except BaseException as e:  # handed to the calling thread, which re-raises it
            self.error = e
        finally:
            self.done = True
            self.paused.set()

    def wait_for_merge(self, merge_fn, args, kwargs):
        self.merge = (merge_fn, args, kwargs)
        self.paused.set()
        self.go.wait()
        self.go.clear()
        self.merge = None
        if self._run.aborted:
            raise _Aborted()
        return self.merge_result

    def step(self):
        """Lets this replica run until it finishes or reaches merge_call (called by the calling thread)."""
        self.paused.clear()
        self.go.set()
        self.paused.wait()


class _Run:
    """One `strategy.run` over several replicas."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.aborted = False
        self._created = []  # variables replica 0 created, in order: the other replicas get the same ones

    def creator(self, index):
        count = [0]

        def creator(next_creator, **kwargs):
            k = count[0]
            count[0] += 1
            if index == 0 or k >= len(self._created):
                v = next_creator(**kwargs)
                if index == 0:
                    self._created.append(mark_mirrored(v, self.strategy))
                return v
            return self._created[k]  # one logical variable, shared by every replica
        return creator

    def __call__(self, fn, args, kwargs):
        ids = self.strategy._local_replica_ids
        n = len(ids)
        snap = _snapshot()
        replicas = [_Replica(self, pos, gid, fn, select_replica(gid, args), select_replica(gid, kwargs), snap)
                    for pos, gid in enumerate(ids)]
        for r in replicas:
            r.start()
        try:
            while True:
                for r in replicas:
                    if not r.done:
                        r.step()
                    if r.error is not None:
                        raise r.error
                waiting = [r for r in replicas if not r.done]
                if not waiting:
                    return regroup([r.result for r in replicas])
                if len(waiting) != n:
                    raise RuntimeError(
                        f"merge_call was called by {len(waiting)} of {n} replicas: every replica must make the same "
                        f"merge_call/all_reduce calls (an optimizer step or all_reduce under a condition that "
                        f"differs between replicas?)")
                self._merge(replicas)
        finally:
            self.aborted = any(not r.done for r in replicas)
            for r in replicas:
                if not r.done:
                    r.go.set()
            for r in replicas:
                r.join()

    def _merge(self, replicas):
        merge_fn = replicas[0].merge[0]
        args = regroup([r.merge[1] for r in replicas])
        kwargs = regroup([r.merge[2] for r in replicas])
        _ctx.push(self.strategy, None)
        try:
            result = merge_fn(self.strategy, *args, **kwargs)
        finally:
            _ctx.pop()
        for r in replicas:
            r.merge_result = select_replica(r.index, result)  # PerReplica results hold local replicas


def call_for_each_replica(strategy, fn, args, kwargs):
    """Runs fn for each of this process's replicas (all of them, or one per worker of a multi-worker
    strategy); returns their results regrouped."""
    ids = strategy._local_replica_ids
    if len(ids) == 1:
        _ctx.push(strategy, ReplicaContext(strategy, ids[0]))
        creator = strategy._variable_creator()  # layers built on their first step get the chief's values too
        try:
            with _creation.variable_creator_scope(creator) if creator is not None else contextlib.nullcontext():
                out = fn(*select_replica(ids[0], args), **select_replica(ids[0], kwargs))
            return regroup([out], wrap=True) if strategy.num_replicas_in_sync > 1 else out
        finally:
            _ctx.pop()
    return _Run(strategy)(fn, args, kwargs)
