"""Iterating a dataset inside a traced function: `for x in ds:` becomes a While loop whose condition asks a
dataset iterator for its next element and whose body takes it.

    it = AnonymousIteratorV3(dataset)        (a fresh iterator on every call of the function)
    while IteratorHasNext(it): x = IteratorGetNext(it); body(x)

The dataset reaches the graph as a captured resource (the Python dataset object itself, never copied or
serialized); the iterator is a resource produced at run time. All three ops are stateful, so they are never
folded, deduplicated or reordered.
"""
import threading

import numpy as np

from .. import dtypes as _dt
from ..core.dispatch import bind
from ..core.op import defop
from ..shape import TensorShape
from . import composites, structure


class DatasetResource:
    """The handle a graph captures for a dataset (fed the handle itself, like a variable)."""
    _is_resource = True
    trainable = False
    dtype = _dt.resource
    shape = TensorShape([])
    _capture_name = "dataset"

    def __init__(self, dataset):
        self.dataset = dataset


    @property
    def _v(self):  # a ConcreteFunction call feeds flat arguments' `_v`: the handle itself
        return self


class GraphDataset:
    """What a tf.function's body sees for a dataset argument: its element_spec and the graph input that
    will hold the dataset when the function runs. It can be iterated (`for x in ds`), not transformed."""

    def __init__(self, placeholder, element_spec):
        self._graph_input = placeholder
        self.element_spec = element_spec

    def __tf_tracing_type__(self, context):  # passed on to another tf.function
        from .trace_type import DatasetTraceType
        return DatasetTraceType(self.element_spec)

    def _make_iter(self):
        raise NotImplementedError("rivulet cannot transform a dataset argument inside a tf.function: apply the "
                                  "transformations outside the function and pass the resulting dataset.")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        self._make_iter()

    def reduce(self, initial_state, reduce_func, name=None):
        return graph_reduce(self, initial_state, reduce_func)

    def __repr__(self):
        return f"<GraphDataset element_spec={self.element_spec!r}>"


def dataset_argument(g, element_spec, name):
    ph = g.placeholder(_dt.resource, [], name=name)
    g.arg_placeholders.append(ph)
    return GraphDataset(ph, element_spec)


class IteratorResource:
    """A running iterator. `peek` buffers the next element so the loop's condition and body share it.
    It counts the elements it gave (`position`) and keeps the random state its dataset's random stages had
    when it started (`random_state`): together they are its checkpointed state (data/iterator_state.py)."""
    _is_resource = True
    trainable = False

    def __init__(self, dataset):
        from .seek import saved_shuffle, tracked_repeat
        self._dataset = dataset
        self._lock = threading.Lock()
        self._track = tracked_repeat(dataset)  # (its repeat of random epochs of unknown length, path) or None
        self._cursor = None  # that repeat's EpochCursor in this iteration
        # (its shuffle whose buffer a checkpoint saves, path, elements held ahead) or None; this iteration's
        # SavedShuffleIterator's tracking
        self._shuffle = saved_shuffle(dataset) if self._track is None else None
        self._shuffle_t = None
        self._start(None)

    def tracked(self):
        return self._track is not None

    def epoch_position(self):
        """(epoch, position inside it) of the tracked repeat at this iterator's position (None without one).
        Called under the lock."""
        if self._cursor is None:
            return None
        if self.position == 0:  # where a new iteration starts (under a skip, before the skip has run)
            return 0, 0
        from .seek import repeat_position
        where = self._cursor.locate(repeat_position(self._track[1], self.position))
        if where is None:  # (cannot be: the starts from the iterator's position on are kept)
            from ..errors import InternalError
            raise InternalError(None, None, "Iterator checkpoint: the epoch of the iterator's position is unknown.")
        return where

    def shuffle_state(self):
        """None without a saved shuffle; else its (buffer, elements given, its input's repeat's epoch and position
        or None) at this iterator's position, or False before its first pull. Called under the lock."""
        if self._shuffle is None:
            return None
        from .seek import repeat_position
        t = self._shuffle_t
        if t is None or t.iter is None:  # (a stage above made its iteration anew: the position alone is saved)
            return False if self.position == 0 else None
        return t.iter.state_at(repeat_position(self._shuffle[1], self.position)) or False

    def _iter_at(self, position, hint):
        """The pipeline's iterator from `position` (a new one at 0; hint: see seek.tracking, or with a saved
        shuffle seek._ShuffleTracking)."""
        from .seek import _ShuffleTracking, iter_from, tracking
        if self._shuffle is not None:
            with _ShuffleTracking(self._shuffle[0], hint, self._shuffle[2], self._shuffle[3]) as t:
                it = iter_from(self._dataset, position)
            self._shuffle_t = t
            return it
        if self._track is None:
            return self._dataset._make_iter() if position == 0 and hint is None else \
                iter_from(self._dataset, position)
        with tracking(*self._track, hint) as t:
            it = iter_from(self._dataset, position)
        self._cursor = t.cursor
        return it

    def _start(self, random_state, make=True):
        """(Re)starts at the first element; random_state: the random stages' states to start from (None: as
        the dataset's stages are now)."""
        stages = random_stages(self._dataset)
        if random_state is not None:
            for d, st in zip(stages, random_state):
                d._set_random_state(st)
        self.random_state = [d._random_state() for d in stages]
        # the stages not drawn from yet: their first draws (which may come at a later pull, or after another
        # iterator of the same dataset drew) are recorded as they happen (_pull)
        self._pending = {id(d): i for i, d in enumerate(stages)} or None
        self._cursor = self._shuffle_t = None
        self._it = self._pull(self._iter_at, 0, None) if make else None
        self._next = None
        self.position = 0

    def _pull(self, fn, *args):
        from .sources import TAKING
        old, TAKING.record = getattr(TAKING, "record", None), self._took
        try:
            return fn(*args)
        finally:
            TAKING.record = old

    def _took(self, stage, state):
        pending = self._pending
        i = pending.pop(id(stage), None) if pending else None
        if i is not None:
            self.random_state[i] = state
            if not pending:
                self._pending = None

    def restart_at(self, position, random_state, where=None):
        """Goes back to `position` elements after the start with the random stages in `random_state`
        (data/seek.py: indexing where the stages allow, replaying the pipeline elsewhere); `where`: the
        tracked repeat's (epoch, position in it). False if the dataset ends first. An error leaves the
        iterator and the random stages as they were."""
        with self._lock:
            stages = random_stages(self._dataset)
            before = (self._it, self._next, self.position, self.random_state, self._pending, self._cursor,
                      [d._random_state() for d in stages], self._shuffle_t)
            self._start(random_state, make=False)
            self._pending = None  # the state is the one restored (seeking may draw past it)
            try:
                hint = None if position == 0 or self._track is None and self._shuffle is None else \
                    where or ("first",)
                it = self._iter_at(position, hint)
            except BaseException:
                (self._it, self._next, self.position, self.random_state, self._pending, self._cursor, states,
                 self._shuffle_t) = before
                for d, st in zip(stages, states):
                    d._set_random_state(st)
                raise
            if it is None:
                self._it = iter(())
                return False
            self._it, self.position = it, position
            if self._cursor is not None:
                self._cursor.floor = position
            return True

    def has_next(self):
        with self._lock:
            if self._next is None:
                self._next = next(self._it, None) if self._pending is None else self._pull(next, self._it, None)
            return self._next is not None

    def next_flat(self):
        """The next flat element, or None at the end (the eager path: one lock, no peek)."""
        with self._lock:
            e, self._next = self._next, None
            if e is None:
                e = next(self._it, None) if self._pending is None else self._pull(next, self._it, None)
            if e is not None:
                self.position += 1
                if self._cursor is not None:
                    self._cursor.floor = self.position
            return e

    def take(self):
        e = self.next_flat()  # the element has_next buffered, or (a bare next(it)) the next one
        if e is None:
            from ..errors import OutOfRangeError
            raise OutOfRangeError("End of sequence")
        return e


def random_stages(dataset):
    """The stages of a pipeline that draw random numbers per iteration, in lineage order."""
    return [d for d in dataset._lineage() if hasattr(d, "_random_state")]


class GraphIterator:
    """iter(dataset) inside a traced function: an iterator made each time the function runs."""

    def __init__(self, dataset):
        self.element_spec = dataset.element_spec
        self._tensor = make_iterator(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        return get_next(self._tensor, self.element_spec)

    get_next = __next__


def iterator_tensor(iterable):
    """The graph tensor of the iterator a `for` loop inside a traced function reads: a fresh one for a
    dataset, the given one for an iterator (an eager OwnedIterator is captured and shared across calls)."""
    from ..core import context
    if isinstance(iterable, GraphIterator):
        return iterable._tensor
    res = getattr(iterable, "_res", None)
    if res is not None:
        return context.current_graph().capture(res)
    return make_iterator(iterable)


def handle_of(dataset):
    h = getattr(dataset, "_graph_handle", None)
    if h is None:
        h = dataset._graph_handle = DatasetResource(dataset)
    return h


def _unwrap(x):
    return x.item() if isinstance(x, np.ndarray) and x.dtype == object and x.ndim == 0 else x


def _make_iterator(handle):
    return np.array(IteratorResource(_unwrap(handle).dataset), dtype=object)


def _has_next(it):
    return np.bool_(_unwrap(it).has_next())


def _get_next(it, specs):
    e = _unwrap(it).take()
    if any(isinstance(v, composites.CompositeValue) for v in e):  # composites leave as their components
        return tuple(c for v in e for c in (v.kind.components(v) if isinstance(v, composites.CompositeValue)
                                             else (v,)))
    # a callable num_outputs: always a tuple, even of one; a scalar string as a 0-d object array, as kernels
    # take strings (bare bytes would make `s + x` bytes concatenation, leaving the string dtype)
    return tuple(_as_string_array(v) if isinstance(v, bytes) else v for v in e)


def _as_string_array(b):
    a = np.empty((), dtype=object)
    a[()] = b
    return a


MAKE_ITERATOR = defop("AnonymousIteratorV3", _make_iterator, lambda h: (TensorShape([]), _dt.resource),
                      stateful=True)
HAS_NEXT = defop("IteratorHasNext", _has_next, lambda it: (TensorShape([]), _dt.bool), stateful=True)
GET_NEXT = defop("IteratorGetNext", _get_next, lambda it, specs: [(s, d) for d, s in specs], stateful=True,
                 num_outputs=lambda a: len(a["specs"]))


def make_iterator(dataset):
    from ..core import context
    g = context.current_graph()
    if isinstance(dataset, GraphDataset):
        return bind(MAKE_ITERATOR, [dataset._graph_input])
    if any(isinstance(d, GraphDataset) for d in dataset._lineage()):
        raise NotImplementedError("rivulet cannot transform a dataset argument inside a tf.function: apply the "
                                  "transformations outside the function and pass the resulting dataset.")
    return bind(MAKE_ITERATOR, [g.capture(handle_of(dataset))])


def has_next(it):
    return bind(HAS_NEXT, [it])


def get_next(it, element_spec):
    flat = structure.flat_specs(element_spec)
    for s in flat:
        if isinstance(s, structure.DatasetSpec):
            raise NotImplementedError("rivulet cannot iterate a dataset of datasets (window) inside a "
                                      "tf.function; iterate it eagerly or use flat_map.")
    parts = [s._component_specs if composites.is_composite_spec(s) else (s,) for s in flat]
    specs = tuple((c.dtype, c.shape) for p in parts for c in p)
    outs = bind(GET_NEXT, [it], {"specs": specs})
    outs = outs if isinstance(outs, list) else [outs]
    if len(specs) != len(flat):  # rebuild the composites from their components
        rebuilt, i = [], 0
        for s, p in zip(flat, parts):
            rebuilt.append(s._from_components(outs[i:i + len(p)]) if composites.is_composite_spec(s) else outs[i])
            i += len(p)
        outs = rebuilt
    return structure.nest.pack_sequence_as(element_spec, outs) if structure.nest.is_nested(element_spec) \
        else outs[0]


def graph_reduce(dataset, initial_state, reduce_func):
    """Dataset.reduce inside a traced function: a While loop over the dataset whose loop variable is the
    state (the function is traced into the loop body, with AutoGraph)."""
    from ..autograph.impl import convert
    from ..autograph.operators.control_flow import for_stmt
    from ..core.tensor import convert_to_tensor
    fn = convert(reduce_func)
    box = [structure.nest.map_structure(convert_to_tensor, initial_state)]

    def body(x):
        box[0] = fn(box[0], x)

    def set_state(v):
        box[0] = v[0]
    for_stmt(dataset, None, body, lambda: (box[0],), set_state, ("state",), {})
    return box[0]
