"""Starting an iteration at element k (an iterator restored from a checkpoint, data/iterator_state.py).

`iter_from(ds, k)` gives what `ds._make_iter()` gives after k elements, with every random stage drawing the
same numbers. Stages that can, get there without making the skipped elements: slices and ranges index, maps
and batches ask their input for the matching position, a repeat of a known cardinality skips whole epochs
(advancing the iteration count of the random stages inside, as those epochs would have), and so does a repeat
of an epoch of unknown length without random stages (counted once), a shuffle over an
indexable input cuts its permutation. Any other stage replays: its elements are made and dropped.
"""
import itertools

import numpy as np

from .dataset import UNKNOWN

_END = object()
_SEEKERS = {}


def iter_from(ds, k):
    """An iterator over `ds` from element k on, or None if `ds` ends before k."""
    if k == 0:
        return ds._make_iter()
    card = ds._card()
    if card >= 0 and k > card:
        return None
    for cls in type(ds).__mro__:
        f = _SEEKERS.get(cls.__name__)
        if f is not None:
            it = f(ds, k)
            if it is not None:
                return it
            break
    return _replay(ds._make_iter(), k)


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
    src, order = ds._full_permutation_source()
    if src is None:
        return None
    return ds._permuted(src, order()[k:])


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
# epochs over them by counting (their random stages would not advance as counted).
_NOT_ONCE = frozenset(["RepeatDataset", "FlatMapDataset", "InterleaveDataset", "GroupByWindowDataset",
                       "_KeyedGroup", "RejectionResampleDataset", "CacheDataset", "SnapshotDataset"])


@_seeker("RepeatDataset")
def _repeat(ds, k):
    from .graph_ops import random_stages
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
