"""Starting an iteration at element k (an iterator restored from a checkpoint, data/iterator_state.py).

`iter_from(ds, k)` gives what `ds._make_iter()` gives after k elements, with every random stage drawing the
same numbers. Stages that can, get there without making the skipped elements: slices and ranges index, maps
and batches ask their input for the matching position, a repeat of a known cardinality skips whole epochs
(advancing the iteration count of the random stages inside, as those epochs would have), and so does a repeat
of an epoch of unknown length without random stages (counted once), a shuffle over an
indexable input cuts its permutation. Any other stage replays: its elements are made and dropped.

A repeat whose epochs have unknown length and draw random numbers (a shuffle before a filter) has epochs of
lengths only making them tells. When it is the iterator's own (`tracked_repeat`: reached from the top through
maps, prefetches, batches, takes and skips), the iterator keeps an `EpochCursor` of where each epoch began and
its checkpoint records the epoch and the position inside it: restoring sets the random stages to that epoch
(each epoch's numbers derive from the seeds and the epoch index alone) and remakes at most that one epoch's
elements; a position past the epoch's end is InvalidArgumentError.

A shuffle whose input cannot be indexed (an endless repeat: its buffer holds what came before) reached from the
top the same way (`saved_shuffle`) runs as a `SavedShuffleIterator`: the iterator's checkpoint holds its buffer,
and restoring moves its generator (PCG64.advance) and its input (seeking, as above) to the saved place: the work
is the buffer's size, never a replay to the position. When that shuffle's input is itself a repeat of random
epochs of unknown length, its input is built under `tracking` too: the state says that repeat's epoch and the
position in it, so at most one epoch of the input is remade.

A shuffle of an endless input anywhere else (below a filter, zip, interleave...: `replayed_shuffle`) has no saved
buffer and is replayed: a position past OLD_REPLAY_LIMIT there is refused (at save too, iterator_state.py), unless
a stage of known length above it bounds the replay (`_TRACK.bounded`).
"""
import bisect
import collections
import itertools
import threading

import numpy as np

from .dataset import INFINITE, UNKNOWN

_END = object()
_SEEKERS = {}
_TRACK = threading.local()  # the tracked repeat of the iteration being built in this thread, and its hint


def iter_from(ds, k):
    """An iterator over `ds` from element k on, or None if `ds` ends before k."""
    if k == 0 and getattr(_TRACK, "repeat", None) is None and getattr(_TRACK, "shuffle", None) is None:
        return ds._make_iter()
    card = ds._card()
    if card >= 0 and k > card:
        return None
    if card >= 0 and not getattr(_TRACK, "bounded", False):  # its length bounds the positions below it
        _TRACK.bounded = True
        try:
            return _iter_from(ds, k)
        finally:
            _TRACK.bounded = False
    return _iter_from(ds, k)


def _iter_from(ds, k):
    for cls in type(ds).__mro__:
        f = _SEEKERS.get(cls.__name__)
        if f is not None:
            it = f(ds, k)
            if it is not None:
                return it
            break
    if k > OLD_REPLAY_LIMIT and not getattr(_TRACK, "bounded", False) and \
            replayed_shuffle(ds, stop=None) is not None:
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(
            f"Iterator checkpoint: position {k} of {type(ds).__name__.lstrip('_')} over a shuffle of an endless "
            f"input is reached by replaying the pipeline, and positions past {OLD_REPLAY_LIMIT} are refused (a "
            "shuffle's buffer is saved only where the stages above it are maps, batches, prefetches, takes and "
            "skips).")
    return _replay(ds._make_iter(), k)


def replayed_shuffle(ds, stop=None):
    """A shuffle of an endless input in `ds`, other than `stop` (the iterator's saved shuffle), reached without
    passing a stage of known cardinality: a position past OLD_REPLAY_LIMIT there is refused, at save and at
    restore (its buffer is not saved: restoring replays it, and a hostile position would have no bound)."""
    todo, seen = [ds], set()
    while todo:
        d = todo.pop()
        if id(d) in seen or d is stop:
            continue
        seen.add(id(d))
        if d._card() >= 0:  # its length bounds the positions
            continue
        if any(c.__name__ == "ShuffleDataset" for c in type(d).__mro__):
            if d._input._card() == INFINITE and d._full_permutation_source()[0] is None:
                return d
        todo.extend(d._inputs)
    return None


def _replay(it, k):
    for _ in range(k):
        if next(it, _END) is _END:
            return None
    return it


def _seeker(*names):
    def register(f):
        for n in names:
            _SEEKERS[n] = f
        return f
    return register


@_seeker("TensorSliceDataset")
def _slices(ds, k):
    comps, n = ds._comps, ds._n
    if len(comps) == 1:
        (c,) = comps
        return ((c[i],) for i in range(k, n))
    return (tuple([c[i] for c in comps]) for i in range(k, n))


@_seeker("RangeDataset")
def _range(ds, k):
    t = ds._np.type
    return ((t(i),) for i in ds._range[k:])


@_seeker("CounterDataset")
def _counter(ds, k):
    def gen(v, step):
        while True:
            yield (v,)
            v = v + step
    start = (np.asarray(ds._start) + np.asarray(ds._step) * np.asarray(k, ds._start.dtype)).astype(ds._start.dtype)
    return gen(start[()], ds._step)


@_seeker("MapDataset")
def _map(ds, k):
    inner = iter_from(ds._input, k)
    if inner is None:
        return None
    fn = ds._fn
    return (fn(e) for e in inner)


@_seeker("ParallelMapDataset")
def _parallel_map(ds, k):
    from .threads import _ParallelMapIterator, autotune_parallelism
    from .dataset import AUTOTUNE
    n = ds._parallel
    if n == AUTOTUNE:
        if ds._cheap is None:  # not measured yet: as a new iterator, measure on the first elements
            inner = iter_from(ds._input, k)
            return None if inner is None else ds._autotuned(inner)
        n = 1 if ds._cheap is not False else autotune_parallelism()
    if n == 1:
        return _map(ds, k)  # one call at a time: a plain map's iterator
    inner = iter_from(ds._input, k)
    return None if inner is None else _ParallelMapIterator(ds._fn, inner, n)


@_seeker("PrefetchDataset")
def _prefetch(ds, k):
    from .threads import _PrefetchIterator, autotune_parallelism
    from .dataset import AUTOTUNE
    inner = iter_from(ds._input, k)
    if inner is None or ds._size == 0:
        return inner
    return _PrefetchIterator(inner, ds._size if ds._size != AUTOTUNE else 2 * autotune_parallelism())


@_seeker("OptionsDataset")
def _options(ds, k):
    return iter_from(ds._input, k)


@_seeker("BatchDataset")
def _batch(ds, k):
    from .transforms import _batch_source, _vectorized_map
    src, order = _batch_source(ds._input)
    if src is not None:
        return ds._sliced(src, order, k)
    mapped = _vectorized_map(ds._input)
    if mapped is not None:
        fn, src, order = mapped
        return (fn(b) for b in ds._sliced(src, order, k))
    inner = iter_from(ds._input, k * ds._n)
    return None if inner is None else ds._stacked(inner)


@_seeker("ShuffleDataset")
def _shuffle(ds, k):
    if getattr(_TRACK, "shuffle", None) is ds:
        return _anchored_shuffle(ds, k)
    src, order = ds._full_permutation_source()
    if src is None:
        return None
    return ds._permuted(src, order()[k:])


@_seeker("FilterDataset")
def _filter(ds, k):
    """A filter right over an endless repeat of epochs that draw no random numbers keeps as many of each epoch
    (counted once): whole epochs are skipped, at most one epoch is filtered, instead of remaking every element
    before the position (an old or a hostile checkpoint of repeat().filter())."""
    from .graph_ops import random_stages
    rep = ds._input
    if type(rep).__name__ != "RepeatDataset" or rep._count >= 0:
        return None
    inner = rep._input
    if inner._card() == INFINITE or random_stages(inner):
        return None
    fn = ds._fn
    c = m = 0
    for e in inner._make_iter():
        c += 1
        m += bool(fn(e)[0])
    if c == 0:
        return iter(())
    if m == 0:
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(f"Iterator checkpoint: position {k} of a filter that keeps no element of its "
                                   "repeat's epochs.")
    epochs, rest = divmod(k, m)
    it = iter_from(rep, epochs * c)

    def gen():
        dropped = 0
        for e in it:
            if fn(e)[0]:
                if dropped == rest:
                    yield e
                    break
                dropped += 1
        yield from (e for e in it if fn(e)[0])
    return gen()


@_seeker("TakeDataset")
def _take(ds, k):
    inner = iter_from(ds._input, k)
    if inner is None or ds._count < 0:
        return inner
    return itertools.islice(inner, max(0, ds._count - k))


@_seeker("SkipDataset")
def _skip(ds, k):
    if ds._count < 0:
        return None
    return iter_from(ds._input, k + ds._count)


@_seeker("ZipDataset")
def _zip(ds, k):
    its = [iter_from(d, k) for d in ds._datasets]
    if any(it is None for it in its):
        return None

    def gen():
        while True:
            out = []
            for it in its:
                e = next(it, _END)
                if e is _END:
                    return
                out.extend(e)
            yield tuple(out)
    return gen()


@_seeker("ConcatenateDataset")
def _concatenate(ds, k):
    ca = ds._a._card()
    if ca < 0:
        return None
    if k < ca:
        head = iter_from(ds._a, k)
        return None if head is None else itertools.chain(head, _lazy(ds._b))
    return iter_from(ds._b, k - ca)


def _lazy(ds):
    yield from ds._make_iter()


# Stages that call their input's _make_iter other than once per iteration of their own: a repeat cannot skip
# epochs over them by counting (their random stages would not advance as counted). flat_map and interleave call
# it once (the datasets their function makes are new each time, outside the lineage), so they may be skipped over.
_NOT_ONCE = frozenset(["RepeatDataset", "GroupByWindowDataset", "_KeyedGroup", "RejectionResampleDataset",
                       "CacheDataset", "SnapshotDataset"])


@_seeker("RepeatDataset")
def _repeat(ds, k):
    from .graph_ops import random_stages
    if getattr(_TRACK, "repeat", None) is ds:
        return _tracked(ds, k)
    inner, count = ds._input, ds._count
    c = inner._card()
    stages = random_stages(inner)
    if c == UNKNOWN and not stages:
        # An epoch of unknown length that draws no random numbers has the same length every time: counted once,
        # so a position far past it (an old or a hostile checkpoint of an endless repeat) skips whole epochs
        # instead of remaking every element before it.
        c = 0
        for _ in inner._make_iter():
            c += 1
            if c > k:
                return None  # the position is in the first epoch: replayed
        if c == 0:
            return iter(())
    if c <= 0 or c == UNKNOWN:
        return None
    if stages and any(type(d).__name__ in _NOT_ONCE for d in inner._lineage()):
        return None
    epochs, rest = divmod(k, c)
    if count >= 0 and epochs >= count:
        return iter(()) if k == count * c else None  # past the end: the replay finds it (count * c elements)
    for d in stages:  # the skipped epochs' iterations of the random stages inside
        with d._epoch_lock:
            d._epoch += epochs

    def gen():
        first = iter_from(inner, rest)
        if first is not None:
            yield from first
        e = epochs + 1
        while count < 0 or e < count:
            yield from inner._make_iter()
            e += 1
    return gen()


# ---- the iterator's own repeat of random epochs of unknown length ------------------------------------------------

_CHAIN = {"MapDataset", "ParallelMapDataset", "PrefetchDataset", "OptionsDataset", "BatchDataset", "TakeDataset",
          "SkipDataset"}


def _down_to(ds, stop):
    """(the first stage of class `stop` reached from `ds` through _CHAIN stages (a skip of a known count), those
    stages [(kind, stage)] from the top down, and their [(stage kind, n)] path: batches and skips), or None."""
    passed = []
    while True:
        names = [c.__name__ for c in type(ds).__mro__]
        if stop in names:
            path = [(kind, d._n if kind == "BatchDataset" else d._count) for kind, d in passed
                    if kind in ("BatchDataset", "SkipDataset")]
            return ds, passed, path
        kind = next((n for n in names if n in _CHAIN), None)
        if kind is None or kind == "SkipDataset" and ds._count < 0:
            return None
        passed.append((kind, ds))
        ds = ds._input


def tracked_repeat(ds):
    """(the repeat, [(stage kind, n)] from the top down) when an iterator of `ds` needs an EpochCursor (see the
    module docstring), else None."""
    from .graph_ops import random_stages
    found = _down_to(ds, "RepeatDataset")
    if found is None:
        return None
    ds, _, path = found
    inner = ds._input
    if inner._card() != UNKNOWN or not random_stages(inner) or \
            any(type(d).__name__ in _NOT_ONCE for d in inner._lineage()):
        return None
    return ds, path


def repeat_position(path, position):
    """The element of the tracked repeat that the iterator's `position` follows."""
    k = position
    for kind, n in path:
        k = k * n if kind == "BatchDataset" else k + n
    return k


class EpochCursor:
    """Where the epochs of one iteration of a tracked repeat began (in the repeat's elements). The repeat may run
    ahead of the iterator (a prefetch), so the starts after the iterator's position are kept: the iterator
    notes its position in `floor`, and the starts before it (all but the last) are dropped as epochs begin."""

    def __init__(self, path):
        self._lock = threading.Lock()
        self._starts = collections.deque()  # (first element, epoch index), ascending
        self._path = path
        self.floor = 0  # the iterator's position: no save asks for an element before it
        self.floor_of = None  # or a function giving the repeat's first element a save may ask for
        self.total = None  # the repeat's element count once it ended

    def begin(self, start, epoch):
        with self._lock:
            starts = self._starts
            starts.append((start, epoch))
            if len(starts) > 64:
                k = repeat_position(self._path, self.floor) if self.floor_of is None else self.floor_of()
                while len(starts) > 1 and starts[1][0] <= k:
                    starts.popleft()

    def end(self, total):
        self.total = total

    def locate(self, k):
        """(epoch, position inside it) of the repeat's element k, or None if that epoch's start was dropped
        (k before the floor)."""
        with self._lock:
            starts = list(self._starts)
        if self.total is not None:
            k = min(k, self.total)
        i = bisect.bisect_right(starts, (k, float("inf"))) - 1
        if i < 0:
            return None
        start, epoch = starts[i]
        return epoch, k - start


class tracking:
    """`with tracking(repeat, path, hint) as t: iter_from(...)` builds an iteration whose tracked repeat records its
    epochs in `t.cursor`. hint: None (a new iteration), ("first", ) (a position counted from the start: an
    older checkpoint), or (epoch, position inside it)."""

    def __init__(self, repeat, path, hint):
        self.repeat, self.path, self.hint, self.cursor = repeat, path, hint, None

    def __enter__(self):
        self._old = getattr(_TRACK, "repeat", None), getattr(_TRACK, "state", None)
        _TRACK.repeat, _TRACK.state = self.repeat, self
        return self

    def __exit__(self, *exc):
        _TRACK.repeat, _TRACK.state = self._old


def _tracked(ds, k):
    from ..errors import InvalidArgumentError, OutOfRangeError
    from .graph_ops import random_stages
    t = _TRACK.state
    _TRACK.repeat = None  # the stages below build as usual
    inner, count = ds._input, ds._count
    hint = t.hint
    if hint is None:  # a new iteration (k > 0 under a skip: its elements are made and dropped, as a skip's)
        epoch, offset = 0, 0
    else:
        epoch, offset = (0, k) if hint == ("first",) else hint
    if hint is not None and (offset > k or k - offset < epoch):  # every epoch before holds an element (an empty one ends the repeat)
        raise InvalidArgumentError(f"Iterator checkpoint: epoch {epoch} and position {offset} in it do not fit "
                                   f"the position {k} of the repeat.")
    if count >= 0 and epoch >= count:
        raise OutOfRangeError(f"Iterator checkpoint: the dataset ended before the saved position (epoch {epoch} "
                              f"of a repeat of {count}).")
    for d in random_stages(inner):  # the epochs before this one: each drew once per random stage
        with d._epoch_lock:
            d._epoch += epoch
    cursor = t.cursor = EpochCursor(t.path)
    first = None
    if hint is not None:  # restoring: remake this epoch's first `offset` elements now (errors at restore)
        first = inner._make_iter()
        for i in range(offset):
            if next(first, _END) is _END:
                older = " (a checkpoint without its epoch, of an older rivulet, is read as epoch 0)" \
                    if hint == ("first",) else ""
                raise InvalidArgumentError(f"Iterator checkpoint: position {offset} in epoch {epoch} of the "
                                           f"repeat is past that epoch's end ({i} elements){older}.")
    base = k - offset if hint is not None else 0  # the repeat's elements before this epoch
    cursor.begin(base, epoch)

    def gen():
        n, e, it, m = base, epoch, first, offset  # elements before epoch e; its iterator; made of it
        while True:
            if it is None:
                if 0 <= count <= e:
                    break
                cursor.begin(n, e)
                it, m = inner._make_iter(), 0
            for x in it:
                m += 1
                yield x
            if m == 0:  # an empty epoch ends the repeat, as RepeatDataset's
                break
            n, e, it = n + m, e + 1, None
        cursor.end(n)
    return gen() if hint is not None or k == 0 else itertools.islice(gen(), k, None)


# ---- the iterator's own shuffle over an endless (or unindexable) input: its buffer is saved ---------------------

OLD_REPLAY_LIMIT = 1 << 16  # an older state of such a pipeline (no buffer saved) is replayed up to this position


def saved_shuffle(ds):
    """(the shuffle, [(stage kind, n)] from the top down, how many of its elements the stages above may hold
    ahead of the iterator) when an iterator of `ds` saves that shuffle's buffer (a shuffle reached from the top
    through maps, prefetches, batches, takes and skips, whose input cannot be indexed: replaying it to a far
    position would have no bound), else None."""
    from .dataset import AUTOTUNE
    from .threads import _ParallelMapIterator, autotune_parallelism
    found = _down_to(ds, "ShuffleDataset")
    if found is None:
        return None
    ds, passed, path = found
    held = [1]  # each level's elements held ahead (the iterator's peek: one)
    for kind, d in passed:
        if kind == "BatchDataset":
            held.append(1)
            held = [h * d._n for h in held]
        elif kind == "PrefetchDataset":
            held.append(d._size + 2 if d._size != AUTOTUNE else 2 * autotune_parallelism() + 2)
        elif kind == "ParallelMapDataset":  # up to 2n chunks in flight, and one given out (threads.py)
            n = d._parallel if d._parallel != AUTOTUNE else autotune_parallelism()
            held.append((2 * n + 2) * _ParallelMapIterator.CHUNK)
    if ds._full_permutation_source()[0] is not None:
        return None  # cut from its permutation (seek: _shuffle)
    # its input's own repeat of random epochs of unknown length (shuffle -> filter -> repeat -> shuffle): placed
    # by that repeat's epoch and the position in it, saved with the buffer
    return ds, path, sum(held) + 16, tracked_repeat(ds._input)


class _ShuffleTracking:
    """`with _ShuffleTracking(shuffle, hint): iter_from(...)`: the anchored shuffle's iterator lands in `.iter`.
    hint: None (a new iteration), ("first",) (an older state: replayed), or (buffer, count, where) (its saved
    buffer; where: its input's repeat's (epoch, position in it), or None); inner: tracked_repeat of its input."""

    def __init__(self, shuffle, hint, ahead, inner=None):
        self.shuffle, self.hint, self.ahead, self.inner, self.iter = shuffle, hint, ahead, inner, None

    def __enter__(self):
        self._old = getattr(_TRACK, "shuffle", None), getattr(_TRACK, "shuffle_state", None)
        _TRACK.shuffle, _TRACK.shuffle_state = self.shuffle, self
        return self

    def __exit__(self, *exc):
        _TRACK.shuffle, _TRACK.shuffle_state = self._old


class SavedShuffleIterator:
    """A shuffle's iteration whose state can be saved: its buffer, how many random numbers it drew (as many as it
    gave elements; its generator is moved there with PCG64.advance), and so its input's position (elements given +
    buffered). The stages above may hold elements ahead of the iterator (prefetch, batch, the iterator's peek):
    the last `ahead` steps are kept to be undone when saving. The same order as ShuffleDataset._buffered."""

    def __init__(self, ds, ahead, inner=None):
        self._ds, self._lock = ds, threading.Lock()
        self._inner, self._cursor = inner, None  # its input's tracked repeat (repeat, path), that repeat's EpochCursor
        self._log = collections.deque(maxlen=ahead)  # (slot, element given, element put there or None: popped)
        self._buf = None  # not started: filled at the first pull, as the generator is
        self.count = 0  # elements given

    def __iter__(self):
        return self

    def __next__(self):
        lock = self._lock
        lock.acquire()  # (not `with`: half the cost, on every element)
        try:
            buf = self._buf
            if buf is None:
                buf = self._start()
            if not buf:
                raise StopIteration
            k = self._k
            if k == 1024:
                self._rand, k = self._rng.random(1024).tolist(), 0  # (as floats: the same products)
            j = int(self._rand[k] * len(buf))
            self._k = k + 1
            x = buf[j]
            nxt = _END if self._ended else next(self._it, _END)
            if nxt is _END:
                self._ended = True
                buf[j] = buf[-1]
                buf.pop()
                self._log.append((j, x, None))
            else:
                buf[j] = nxt
                self._log.append((j, x, nxt))
            self.count += 1
            return x
        finally:
            lock.release()

    def _start(self):
        ds = self._ds
        rng = ds._next_rng()
        it = self._input_at(0, None)
        self._rng, self._it, self._ended, self.count = rng, it, False, 0
        self._buf = list(itertools.islice(it, min(ds._buffer, 1 << 20)))
        self._rand, self._k = rng.random(1024).tolist(), 0
        return self._buf

    def _input_at(self, k, where):
        """The input from its element k on (where: its tracked repeat's (epoch, position in it), or None)."""
        if self._inner is None:
            return self._ds._input._make_iter() if k == 0 else iter_from(self._ds._input, k)
        with tracking(*self._inner, where) as t:
            it = iter_from(self._ds._input, k)
        cursor = self._cursor = t.cursor
        if cursor is not None:  # the input's first element a save may ask for: `ahead` steps back, + the buffer
            cap, log = min(self._ds._buffer, 1 << 20), self._log
            cursor.floor_of = lambda: max(0, self.count - log.maxlen) + cap
        return it

    def state_at(self, target):
        """(buffer, elements given, where) at `target` elements given (at most `ahead` back), or None if not
        started; where: the input's tracked repeat's (epoch, position in it) at its element given + buffered, or
        None without one."""
        with self._lock:
            if self._buf is None:
                return None
            target = min(target, self.count)  # (a last, partial batch above)
            back = self.count - target
            if back > len(self._log):
                from ..errors import InternalError
                raise InternalError(None, None, f"Iterator checkpoint: the shuffle ran {back} elements ahead of "
                                    f"the iterator, more than the {len(self._log)} kept.")
            buf, log = list(self._buf), list(self._log)
        for j, x, put in reversed(log[len(log) - back:]):
            if put is None:
                if j == len(buf):
                    buf.append(x)
                else:
                    buf.append(buf[j])
                    buf[j] = x
            else:
                buf[j] = x
        where = None
        if self._cursor is not None:
            where = (0, 0) if target + len(buf) == 0 else self._cursor.locate(target + len(buf))
            if where is None:  # (cannot be: the starts from `ahead` back on are kept)
                from ..errors import InternalError
                raise InternalError(None, None, "Iterator checkpoint: the epoch of the shuffle's input is unknown.")
        return buf, target, where

    def restore(self, buf, count, where=None):
        """Starts from a saved buffer after `count` elements given: the generator moved past `count` numbers,
        the input at its element count + len(buf) (where: its tracked repeat's (epoch, position in it); without
        it, an older state, that repeat is replayed up to OLD_REPLAY_LIMIT elements)."""
        from ..errors import InvalidArgumentError
        ds = self._ds
        rng = ds._next_rng()
        if not buf:  # it gave every element of its input (the position may be past them: a last, partial batch)
            if ds._input._card() == INFINITE:
                raise InvalidArgumentError("Iterator checkpoint: an empty buffer of a shuffle over an endless input.")
            self._rng, self._it, self._ended, self.count, self._buf = rng, iter(()), True, count, []
            return self
        k = count + len(buf)
        if self._inner is not None and where is None and k > OLD_REPLAY_LIMIT:
            raise InvalidArgumentError(
                f"Iterator checkpoint: it was written by an older rivulet, which did not save the epoch of the "
                f"shuffle's input, and its position ({k} elements of that input) is past the {OLD_REPLAY_LIMIT} "
                "that are replayed; save the iterator again with this version.")
        inner = self._input_at(k, where)
        if inner is None:
            raise InvalidArgumentError(f"Iterator checkpoint: the shuffle's input ends before its saved position "
                                       f"{count + len(buf)}.")
        cap = min(ds._buffer, 1 << 20)
        ended = False
        if len(buf) < cap:  # a buffer not full: its input had ended
            if next(inner, _END) is not _END:
                raise InvalidArgumentError(f"Iterator checkpoint: the shuffle's saved buffer holds {len(buf)} "
                                           f"elements of {cap}, but its input has more.")
            ended = True
        blocks, k = divmod(count, 1024)
        rng.bit_generator.advance(blocks * 1024)
        self._rng, self._it, self._ended, self.count, self._buf = rng, inner, ended, count, list(buf)
        self._rand, self._k = rng.random(1024).tolist(), k
        return self


def _anchored_shuffle(ds, k):
    t = _TRACK.shuffle_state
    _TRACK.shuffle = None  # the stages below build as usual
    it = t.iter = SavedShuffleIterator(ds, t.ahead, t.inner)
    hint = t.hint
    if hint is None:
        return it if k == 0 else itertools.islice(it, k, None)  # (k > 0 under a skip: made and dropped)
    if hint == ("first",):  # an older state (no buffer saved): replayed, to a bounded position
        if k > OLD_REPLAY_LIMIT:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError(
                f"Iterator checkpoint: it was written by an older rivulet, which did not save the shuffle's buffer, "
                f"and its position ({k} elements of the shuffle) is past the {OLD_REPLAY_LIMIT} that are replayed; "
                "save the iterator again with this version.")
        return _replay(it, k)
    buf, count, where = hint
    if count != k and not (count < k and not buf):
        from ..errors import InvalidArgumentError
        raise InvalidArgumentError(f"Iterator checkpoint: the shuffle's saved state is after {count} elements, "
                                   f"the iterator's position is at its element {k}.")
    return it.restore(buf, count, where)
