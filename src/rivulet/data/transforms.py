"""Transformations that run in the consumer's thread (map and prefetch on threads are in threads.py)."""
import itertools
import os
import threading

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..errors import InvalidArgumentError
from ..shape import TensorShape, TensorSpec
from . import composites, structure
from .dataset import DatasetV2, INFINITE, UNKNOWN
from .functions import StructuredFunction, eager_call
from .sources import Randomized, TensorSliceDataset, _rng

_END = object()


def _count(v, what):
    v = getattr(v, "_v", v)
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be an integer, got {v!r}") from None
    if n != v:
        raise TypeError(f"`{what}` must be an integer, got {v!r}")
    return n


class _Unary(DatasetV2):
    def __init__(self, input_dataset, spec=None):
        if not isinstance(input_dataset, DatasetV2):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset).__name__}")
        super().__init__(input_dataset.element_spec if spec is None else spec, (input_dataset,))
        self._input = input_dataset

    def _card(self):
        return self._input._card()


class MapDataset(_Unary):
    _tf_name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        fn = StructuredFunction(map_func, (input_dataset.element_spec,), _fn_name(map_func, "map"))
        super().__init__(input_dataset, fn.output_spec)
        self._fn = fn

    def _make_iter(self):
        fn = self._fn
        return (fn(e) for e in self._input._make_iter())


def _fn_name(fn, default):
    n = getattr(fn, "__name__", default)
    return default if n == "<lambda>" else n


class _Predicated(_Unary):
    """A dataset with a traced predicate (filter, take_while): it must return a scalar bool."""

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = StructuredFunction(predicate, (input_dataset.element_spec,), _fn_name(predicate, "predicate"))
        self._fn.check_output("bool", "predicate")


class FilterDataset(_Predicated):
    _tf_name = "_FilterDataset"

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        fn = self._fn
        return (e for e in self._input._make_iter() if fn(e)[0])


_stack = composites.stack


def _batch_source(ds):
    """Datasets that can hand out whole batches by indexing (no per-element Python): (source, order) where
    order is None (in order) or a callable giving this epoch's index permutation."""
    if any(composites.is_composite_spec(s) for s in structure.flat_specs(ds.element_spec)):
        return None, None  # composite components batch by their kind's rule, element by element
    if isinstance(ds, (TensorSliceDataset,)) or hasattr(ds, "_slices") and ds._card() >= 0:
        return ds, None
    if isinstance(ds, ShuffleDataset):
        return ds._full_permutation_source()
    return None, None


def _vectorized_map(ds):
    """(batched fn, source, order) when ds is a map of an element-wise function over a batchable source."""
    fn = getattr(ds, "_fn", None)
    if not isinstance(ds, MapDataset) and type(ds).__name__ != "ParallelMapDataset" or fn is None:
        return None
    src, order = _batch_source(ds._input)
    if src is None:
        return None
    if not hasattr(fn, "_batched"):
        from .functions import vectorize
        fn._batched = vectorize(fn)
    if fn._batched is None:
        return None
    return fn._batched, src, order


class BatchDataset(_Unary):
    _tf_name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        n = _count(batch_size, "batch_size")
        if n <= 0:
            raise InvalidArgumentError("Batch size must be greater than zero.")
        drop = bool(getattr(drop_remainder, "_v", drop_remainder))
        super().__init__(input_dataset, structure.batched(input_dataset.element_spec, n if drop else None))
        self._n, self._drop = n, drop

    def _card(self):
        c = self._input._card()
        if c < 0:
            return c
        return c // self._n if self._drop else -(-c // self._n)

    def _make_iter(self):
        src, order = _batch_source(self._input)
        if src is not None:
            return self._sliced(src, order)
        mapped = _vectorized_map(self._input)
        if mapped is not None:
            fn, src, order = mapped
            return (fn(b) for b in self._sliced(src, order))
        batches = getattr(self._input, "_record_batches", None)  # a file reader: records batched at once
        if batches is not None:
            return batches(self._n, self._drop)
        return self._stacked()

    def _sliced(self, src, order, start=0):
        """Batches `start`, `start` + 1 ... of an indexable source."""
        total, n = src._card(), self._n
        perm = order() if order is not None else None
        stop = total - total % n if self._drop else total
        for lo in range(start * n, stop, n):
            idx = slice(lo, lo + n) if perm is None else perm[lo:lo + n]
            yield src._slices(idx)

    def _stacked(self, it=None):
        n, drop = self._n, self._drop
        it = self._input._make_iter() if it is None else it
        while True:
            chunk = list(itertools.islice(it, n))
            if not chunk or drop and len(chunk) < n:
                return
            yield tuple(_stack(list(parts)) for parts in zip(*chunk))


class PaddedBatchDataset(_Unary):
    _tf_name = "_PaddedBatchDataset"

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        n = _count(batch_size, "batch_size")
        if n <= 0:
            raise InvalidArgumentError("Batch size must be greater than zero.")
        flat = structure.flat_specs(spec)
        for s in flat:
            if not isinstance(s, TensorSpec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce tensor elements but "
                                f"type spec of elements in the input dataset is not a subclass of TensorSpec: `{s}`.")
        if padded_shapes is None:
            shapes = [s.shape for s in flat]
            for s in shapes:
                if s.rank is None:
                    raise ValueError("You must provide `padded_shapes` argument because component has unknown "
                                     "rank.")
            shapes = [TensorShape([None] * s.rank) for s in shapes]
        else:
            shapes = _up_to(spec, padded_shapes, "padded_shapes")  # a shape (tuple of dims) is one leaf
            shapes = [TensorShape(getattr(s, "_v", s).tolist() if hasattr(s, "_v") else s) for s in shapes]
            for s, want in zip(flat, shapes):
                if not s.shape.is_compatible_with(TensorShape([None] * (want.rank or 0))) and want.rank is not None \
                        and s.shape.rank is not None and s.shape.rank != want.rank:
                    raise ValueError(f"The padded shape {want} is not compatible with the shape {s.shape} of the "
                                     f"corresponding input component.")
        if padding_values is None:
            pads = [b"" if s.dtype is _dt.string else 0 for s in flat]
        else:
            pads = [getattr(p, "_v", p) for p in _up_to(spec, padding_values, "padding_values")]
        drop = bool(drop_remainder)
        out = [TensorSpec(TensorShape([n if drop else None]).concatenate(
            TensorShape([w if w is not None else d for w, d in zip(sh.as_list(), s.shape.as_list())])
            if s.shape.rank is not None else sh), s.dtype) for s, sh in zip(flat, shapes)]
        super().__init__(input_dataset, nest.pack_sequence_as(spec, out) if nest.is_nested(spec) else out[0])
        self._n, self._drop, self._shapes, self._pads, self._flat = n, drop, shapes, pads, flat

    _card = BatchDataset._card

    def _make_iter(self):
        it = self._input._make_iter()
        n = self._n
        while True:
            chunk = list(itertools.islice(it, n))
            if not chunk or self._drop and len(chunk) < n:
                return
            yield tuple(self._pad(list(parts), k) for k, parts in enumerate(zip(*chunk)))

    def _pad(self, parts, k):
        want, s = self._shapes[k], self._flat[k]
        parts = [np.asarray(p) if not isinstance(p, np.ndarray) else p for p in parts]
        dims = [max(p.shape[i] for p in parts) for i in range(parts[0].ndim)]
        target = [w if w is not None else d for w, d in zip(want.as_list(), dims)] if want.rank else dims
        for p in parts:
            if any(a > b for a, b in zip(p.shape, target)):
                raise InvalidArgumentError(f"Attempted to pad to a smaller size than the input element.")
        out = np.full([len(parts)] + target, self._pads[k], dtype=parts[0].dtype)
        for i, p in enumerate(parts):
            out[(i,) + tuple(slice(0, d) for d in p.shape)] = p
        return out


def _up_to(spec, value, what):
    """padded_shapes / padding_values: one entry per component of spec, matched by structure (dict keys)."""
    try:
        return structure.flatten_up_to(spec, value)
    except ValueError as e:
        raise ValueError(f"`{what}` must have the structure of the dataset's elements {spec}: {e}.") from None


class UnbatchDataset(_Unary):
    _tf_name = "_UnbatchDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset, structure.unbatched(input_dataset.element_spec))

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        for e in self._input._make_iter():
            e = [composites.rows(c) for c in e]
            n = len(e[0])
            for c in e[1:]:
                if len(c) != n:
                    raise InvalidArgumentError(f"Input element must have the same batch size in each component. "
                                               f"Component 0 had size {n} but component had size {len(c)}.")
            if len(e) == 1:
                c = e[0]
                for i in range(n):
                    yield (c[i],)
            else:
                for i in range(n):
                    yield tuple([c[i] for c in e])


class RebatchDataset(_Unary):
    _tf_name = "_RebatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        self._inner = BatchDataset(UnbatchDataset(input_dataset), batch_size, drop_remainder)
        super().__init__(input_dataset, self._inner.element_spec)

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        return self._inner._make_iter()


class ShuffleDataset(_Unary, Randomized):
    """TensorFlow's shuffle buffer: fill `buffer_size` elements, emit a random one, refill its slot. Seeded
    (op seed or global seed): each iteration's order is reproducible; `reshuffle_each_iteration` gives
    every new iteration (epoch) a different order."""
    _tf_name = "_ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        super().__init__(input_dataset)
        b = _count(buffer_size, "buffer_size")
        if b == -1:
            b = 1 << 62  # AUTOTUNE: as large as the input
        if b <= 0:
            raise InvalidArgumentError("buffer_size must be greater than zero.")
        self._buffer, self._reshuffle = b, bool(reshuffle)
        self._init_random(seed)

    def _next_rng(self):
        epoch = self._next_epoch()
        return _rng(self._seeds, epoch if self._reshuffle else 0)

    def _full_permutation_source(self):
        """Over an indexable input of known size, the order a shuffle emits depends only on the random
        numbers: compute it on indices, then gather elements (or whole batches) from the source directly.
        A buffer holding the whole input gives a uniform permutation."""
        src = self._input
        if not hasattr(src, "_slices") or src._card() < 0:
            return None, None
        n = src._card()
        if n <= self._buffer:
            return src, lambda: self._next_rng().permutation(n)
        return src, lambda: np.fromiter(self._buffered(iter(range(n))), dtype=np.int64, count=n)

    def _make_iter(self):
        src, order = self._full_permutation_source()
        if src is not None:
            return self._permuted(src, order())
        return self._buffered()

    def _permuted(self, src, perm):
        comps = src._slices(perm)
        if len(comps) == 1:
            (c,) = comps
            return ((c[i],) for i in range(len(perm)))
        return (tuple([c[i] for c in comps]) for i in range(len(perm)))

    def _buffered(self, it=None):
        rng = self._next_rng()
        it = self._input._make_iter() if it is None else it
        buf = list(itertools.islice(it, min(self._buffer, 1 << 20)))
        rand = rng.random(1024).tolist()  # (Python floats: the same products, cheaper one at a time)
        k = 0
        while buf:
            if k == 1024:
                rand, k = rng.random(1024).tolist(), 0
            j = int(rand[k] * len(buf))
            k += 1
            x = buf[j]
            nxt = next(it, _END)
            if nxt is _END:
                buf[j] = buf[-1]
                buf.pop()
            else:
                buf[j] = nxt
            yield x


class RepeatDataset(_Unary):
    _tf_name = "_RepeatDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else _count(count, "count")

    def _card(self):
        c = self._input._card()
        if self._count < 0:
            return 0 if c == 0 else INFINITE
        if c < 0:
            return c
        return c * self._count

    def _make_iter(self):
        k = 0
        while self._count < 0 or k < self._count:
            empty = True
            for e in self._input._make_iter():
                empty = False
                yield e
            k += 1
            if empty:
                return


class TakeDataset(_Unary):
    _tf_name = "_TakeDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "count")

    def _card(self):
        c = self._input._card()
        if self._count < 0:
            return c
        if c == INFINITE:
            return self._count
        if c == UNKNOWN:
            return UNKNOWN
        return min(c, self._count)

    def _make_iter(self):
        if self._count < 0:
            return self._input._make_iter()
        return itertools.islice(self._input._make_iter(), self._count)


class SkipDataset(_Unary):
    _tf_name = "_SkipDataset"

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count(count, "count")

    def _card(self):
        c = self._input._card()
        if c < 0:
            return c
        return 0 if self._count < 0 else max(0, c - self._count)

    def _make_iter(self):
        it = self._input._make_iter()
        if self._count < 0:
            for _ in it:
                pass
            return iter(())
        return itertools.islice(it, self._count, None)


class ShardDataset(_Unary):
    _tf_name = "_ShardDataset"

    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        n, i = _count(num_shards, "num_shards"), _count(index, "index")
        if n <= 0:
            raise InvalidArgumentError("Number of shards must be greater than zero.")
        if not 0 <= i < n:
            raise InvalidArgumentError("Index must be between 0 and number of shards - 1.")
        self._n, self._i = n, i

    def _card(self):
        c = self._input._card()
        if c < 0:
            return c
        return c // self._n + (1 if c % self._n > self._i else 0)

    def _make_iter(self):
        return itertools.islice(self._input._make_iter(), self._i, None, self._n)


class CacheDataset(_Unary):
    """cache(): the first complete iteration fills the cache (memory, or files at `filename`), later ones
    replay it. An iteration abandoned midway leaves the cache empty, as in TensorFlow."""
    _tf_name = "CacheDataset"

    def __init__(self, input_dataset, filename=""):
        super().__init__(input_dataset)
        self._filename = str(getattr(filename, "_v", filename).decode() if isinstance(
            getattr(filename, "_v", filename), bytes) else getattr(filename, "numpy", lambda: filename)())
        if isinstance(self._filename, bytes):
            self._filename = self._filename.decode()
        self._cache = None
        self._lock = threading.Lock()

    def _make_iter(self):
        if self._filename:
            from .readers import file_cache_iter
            return file_cache_iter(self._input, self._filename, self.element_spec)
        cached = self._cache
        if cached is not None:
            return iter(cached)
        return self._filling()

    def _filling(self):
        got = []
        for e in self._input._make_iter():
            got.append(e)
            yield e
        with self._lock:
            if self._cache is None:
                self._cache = got


class FlatMapDataset(_Unary):
    _tf_name = "_FlatMapDataset"

    def __init__(self, input_dataset, map_func):
        self._func = map_func
        out = _dataset_fn_spec(map_func, input_dataset.element_spec, "flat_map")
        super().__init__(input_dataset, out)

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        spec = self._input.element_spec
        for e in self._input._make_iter():
            yield from _returned_dataset(eager_call(self._func, spec, e), self.element_spec)._make_iter()


def _dataset_fn_spec(fn, spec, what):
    """The element spec of the datasets fn returns: fn runs once on a stand-in element (zeros) to see it.
    (TensorFlow traces fn into a graph; rivulet runs these dataset-returning functions eagerly per element.)"""
    flat = [np.zeros([d or 0 for d in s.shape.as_list()], dtype=s.dtype._np) if isinstance(s, TensorSpec) and
            s.dtype is not _dt.string and s.shape.rank is not None else
            (np.zeros([d or 0 for d in s.shape.as_list()], dtype=object) if isinstance(s, TensorSpec) and
             s.shape.rank is not None else _empty_dataset(s))
            for s in structure.flat_specs(spec)]
    if any(isinstance(s, TensorSpec) and s.dtype is _dt.string for s in structure.flat_specs(spec)):
        flat = [np.full(a.shape, b"", dtype=object) if isinstance(a, np.ndarray) and a.dtype == object else a
                for a in flat]
    try:
        out = eager_call(fn, spec, tuple(flat))
    except Exception:  # the function cannot run on zeros: wait for the first real element
        return None
    if not isinstance(out, DatasetV2):
        raise TypeError(f"The `map_func` argument of `{what}` must return a `Dataset` object, got "
                        f"{type(out).__name__}.")
    return out.element_spec


def _empty_dataset(spec):
    if isinstance(spec, structure.DatasetSpec):
        return TensorSliceDataset(nest.map_structure(
            lambda s: np.zeros([0] + [d or 0 for d in s.shape.as_list()], dtype=s.dtype._np), spec.element_spec))
    return None


def _returned_dataset(d, spec):
    if not isinstance(d, DatasetV2):
        raise TypeError(f"The `map_func` must return a `Dataset` object, got {type(d).__name__}.")
    return d


class InterleaveDataset(_Unary):
    _tf_name = "_InterleaveDataset"

    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        self._func = map_func
        super().__init__(input_dataset, _dataset_fn_spec(map_func, input_dataset.element_spec, "interleave"))
        cl = -1 if cycle_length is None else _count(cycle_length, "cycle_length")
        self._cycle = (os.cpu_count() or 1) if cl == -1 else cl
        self._block = 1 if block_length is None else _count(block_length, "block_length")
        if self._cycle <= 0 or self._block <= 0:
            raise InvalidArgumentError("cycle_length and block_length must be greater than zero.")

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        """TensorFlow's order: visit the cycle's slots in turn, taking up to `block_length` elements from
        each; an empty slot opens the next input element's dataset when visited; an exhausted one is
        cleared and the cycle moves on."""
        spec = self._input.element_spec
        inputs = self._input._make_iter()
        slots = [None] * self._cycle
        cur, exhausted = 0, False
        while True:
            if slots[cur] is None and not exhausted:
                e = next(inputs, _END)
                if e is _END:
                    exhausted = True
                else:
                    slots[cur] = _returned_dataset(eager_call(self._func, spec, e), None)._make_iter()
            it = slots[cur]
            if it is None:
                if exhausted and all(x is None for x in slots):
                    return
            else:
                for _ in range(self._block):
                    x = next(it, _END)
                    if x is _END:
                        slots[cur] = None
                        break
                    yield x
            cur = (cur + 1) % self._cycle


class WindowDataset(_Unary):
    _tf_name = "_WindowDataset"

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        size = _count(size, "size")
        shift = size if shift is None else _count(shift, "shift")
        stride = _count(stride, "stride")
        if size <= 0 or shift <= 0 or stride <= 0:
            raise InvalidArgumentError("Window size, shift and stride must be greater than zero.")
        spec = nest.map_structure(lambda s: structure.DatasetSpec(s, []), input_dataset.element_spec)
        super().__init__(input_dataset, spec)
        self._size, self._shift, self._stride, self._drop = size, shift, stride, bool(drop_remainder)

    def _card(self):
        c = self._input._card()
        if c < 0:
            return c
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return max(0, (c - span) // self._shift + 1) if c >= span else 0
        return -(-c // self._shift)

    def _make_iter(self):
        """Windows start every `shift` elements and take every `stride`-th of the next `span`; only the
        elements a window still needs are kept."""
        it = self._input._make_iter()
        specs = structure.flat_specs(self._input.element_spec)
        n_comps = len(specs)
        span = (self._size - 1) * self._stride + 1
        buf, start, pos = [], 0, 0  # buf[0] is input element `start`; the next window starts at `pos`
        while True:
            while start + len(buf) < pos + span:
                e = next(it, _END)
                if e is _END:
                    break
                buf.append(e)
            w = buf[pos - start:pos - start + span:self._stride]
            if not w or self._drop and len(w) < self._size:
                return
            yield tuple(_window_part(w, k, specs[k]) for k in range(n_comps))
            pos += self._shift
            k = min(pos - start, len(buf))
            del buf[:k]
            start += k


def _window_part(window, k, spec):
    """Component k of a window's elements as a dataset: sliceable when dense, a list of elements otherwise."""
    if composites.is_composite_spec(spec):
        from .sources import ElementsDataset
        return ElementsDataset([(e[k],) for e in window], spec)
    return TensorSliceDataset(_stack([e[k] for e in window]))


class ScanDataset(_Unary):
    _tf_name = "_ScanDataset"

    def __init__(self, input_dataset, initial_state, scan_func):
        from .dataset import _check_state
        state_spec, state = structure.normalize(initial_state)
        fn = StructuredFunction(scan_func, (state_spec, input_dataset.element_spec), "scan_func", unpack=False)
        out = fn.output_spec
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"The scan function must return a pair comprising the new state and the output "
                            f"value, got {out}.")
        _check_state(state_spec, out[0], "scan_func")
        super().__init__(input_dataset, out[1])
        self._fn, self._state, self._n_state = fn, tuple(state), len(state)

    def _make_iter(self):
        state, k, fn = self._state, self._n_state, self._fn
        for e in self._input._make_iter():
            out = fn(state + e)
            state = out[:k]
            yield out[k:]


class TakeWhileDataset(_Predicated):
    _tf_name = "_TakeWhileDataset"

    def _card(self):
        return UNKNOWN

    def _make_iter(self):
        fn = self._fn
        return itertools.takewhile(lambda e: fn(e)[0], self._input._make_iter())


class UniqueDataset(_Unary):
    _tf_name = "_UniqueDataset"

    def __init__(self, input_dataset):
        s = input_dataset.element_spec
        if not isinstance(s, TensorSpec) or s.shape.rank != 0 or not (s.dtype.is_integer or s.dtype is _dt.string):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {s}: it requires scalar elements "
                            "of tf.int32, tf.int64 or tf.string.")
        super().__init__(input_dataset)

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _make_iter(self):
        seen = set()
        for e in self._input._make_iter():
            k = e[0].item() if hasattr(e[0], "item") else e[0]
            if k not in seen:
                seen.add(k)
                yield e


class GroupByWindowDataset(_Unary):
    _tf_name = "_GroupByWindowDataset"

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        spec = input_dataset.element_spec
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        self._key = StructuredFunction(key_func, (spec,), "key_func")
        ks = self._key.output_spec
        if not isinstance(ks, TensorSpec) or ks.dtype is not _dt.int64 or ks.shape.rank not in (0, None):
            raise ValueError(f"Invalid `key_func`. `key_func` must return a single tf.int64 scalar tensor but its "
                             f"return type is {ks}.")
        self._wsize = None if window_size is None else _count(window_size, "window_size")
        self._wsize_fn = None if window_size_func is None else \
            StructuredFunction(window_size_func, (TensorSpec([], _dt.int64),), "window_size_func")
        self._reduce = reduce_func
        from ..core.tensor import EagerTensor
        probe = reduce_func(EagerTensor(np.int64(0)), _empty_dataset(structure.DatasetSpec(spec)))
        super().__init__(input_dataset, _returned_dataset(probe, None).element_spec)

    def _card(self):
        return INFINITE if self._input._card() == INFINITE else UNKNOWN

    def _window_size(self, key):
        if self._wsize is not None:
            return self._wsize
        return int(self._wsize_fn((np.int64(key),))[0])

    def _emit(self, key, items):
        from ..core.tensor import EagerTensor
        from .sources import ElementsDataset
        window = ElementsDataset(items, self._input.element_spec)
        yield from _returned_dataset(self._reduce(EagerTensor(np.int64(key)), window), None)._make_iter()

    def _make_iter(self):
        groups = {}
        for e in self._input._make_iter():
            key = int(self._key(e)[0])
            g = groups.setdefault(key, [])
            g.append(e)
            if len(g) >= self._window_size(key):
                del groups[key]
                yield from self._emit(key, g)
        for key, g in list(groups.items()):
            yield from self._emit(key, g)


def bucket_by_sequence_length(ds, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
                              padding_values, pad_to_bucket_boundary, no_padding, drop_remainder):
    bounds = list(bucket_boundaries)
    sizes = list(bucket_batch_sizes)
    if len(sizes) != len(bounds) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(sizes)}` and `len(bucket_boundaries)={len(bounds)}`.")
    length_fn = StructuredFunction(element_length_func, (ds.element_spec,), "element_length_func")
    edges = np.array(bounds, dtype=np.int64)

    def key_of(flat):
        n = int(length_fn(flat)[0])
        return np.int64(np.searchsorted(edges, n, side="right"))

    def reduce(key, window):
        k = int(key.numpy())
        if no_padding:
            return window.batch(sizes[k], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if k >= len(bounds):
                raise InvalidArgumentError("When pad_to_bucket_boundary=True, elements must have length < "
                                           "bucket_boundaries[-1].")
            bound = bounds[k] - 1
            shapes = nest.map_structure(lambda s: TensorShape([bound] + [None] * (s.shape.rank - 1)),
                                        ds.element_spec)
        return window.padded_batch(sizes[k], shapes, padding_values, drop_remainder=drop_remainder)

    return _KeyedGroup(ds, key_of, reduce, lambda k: sizes[int(k)])


class _KeyedGroup(GroupByWindowDataset):
    """group_by_window with Python key/size functions (bucket_by_sequence_length builds it)."""

    def __init__(self, input_dataset, key_of, reduce, size_of):
        _Unary.__init__(self, input_dataset)
        self._key = lambda e: (key_of(e),)
        self._reduce = reduce
        self._wsize, self._size_of = None, size_of
        from ..core.tensor import EagerTensor
        probe = reduce(EagerTensor(np.int64(0)), _empty_dataset(structure.DatasetSpec(input_dataset.element_spec)))
        self._element_spec = nest.map_structure(lambda s: TensorSpec([None] + s.shape.as_list()[1:], s.dtype),
                                                probe.element_spec)

    def _window_size(self, key):
        return self._size_of(key)


class OptionsDataset(_Unary):
    _tf_name = "_OptionsDataset"

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._options_obj = options

    def _make_iter(self):
        return self._input._make_iter()


class IgnoreErrorsDataset(_Unary):
    _tf_name = "_IgnoreErrorsDataset"

    def _card(self):
        return UNKNOWN

    def _make_iter(self):
        """Elements whose map function fails are dropped and iteration goes on (TensorFlow's semantics);
        an error from anything else ends the input, so iteration ends there."""
        src = self._input
        if isinstance(src, MapDataset) or type(src).__name__ == "ParallelMapDataset":
            fn = src._fn
            for e in src._input._make_iter():
                try:
                    yield fn(e)
                except InvalidArgumentError:
                    continue
            return
        it = src._make_iter()
        while True:
            try:
                yield next(it)
            except StopIteration:
                return
            except InvalidArgumentError:
                return
