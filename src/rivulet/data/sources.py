"""Datasets that start a pipeline: tensors, slices, ranges, generators, and those combining datasets."""
import threading

import numpy as np

from .. import dtypes as _dt
from .. import nest
from ..errors import InvalidArgumentError
from ..shape import TensorShape, TensorSpec
from . import composites, structure
from .dataset import DatasetV2, INFINITE, UNKNOWN


class TensorDataset(DatasetV2):
    _tf_name = "_TensorDataset"

    def __init__(self, tensors):
        spec, self._flat = structure.normalize(tensors)
        super().__init__(spec)
        self._flat = tuple(self._flat)

    def _make_iter(self):
        yield self._flat

    def _card(self):
        return 1


class TensorSliceDataset(DatasetV2):
    """from_tensor_slices: element i is component[i] of each component. Supports whole-batch reads
    (`_slices`), so a batch of it is one NumPy slice per component, not a Python loop."""
    _tf_name = "_TensorSliceDataset"

    def __init__(self, tensors):
        spec, flat = structure.normalize(tensors)
        if not flat:
            raise ValueError("Invalid `tensors`: the structure has no components.")
        sizes = set()
        flat = [composites.object_rows(a.kind.slices(a)) if isinstance(a, composites.CompositeValue) else a
                for a in flat]  # a composite component: its rows, as an object array
        for a in flat:
            if a.ndim == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1, got a scalar component "
                                 f"of {TensorSpec(a.shape, _dt.from_numpy(a.dtype))}.")
            sizes.add(a.shape[0])
        if len(sizes) > 1:
            raise InvalidArgumentError(f"All components of `tensors` must have the same size in the 0th dimension; "
                                       f"got sizes {sorted(sizes)}.")
        super().__init__(structure.unbatched(spec))
        self._comps = tuple(flat)
        self._n = sizes.pop()

    def _card(self):
        return self._n

    def _make_iter(self):
        comps = self._comps
        if len(comps) == 1:
            (c,) = comps
            return ((c[i],) for i in range(self._n))
        return (tuple([c[i] for c in comps]) for i in range(self._n))

    def _slices(self, index):
        """The components gathered at `index` (a slice or an index array): a batch in one step."""
        return tuple(c[index] for c in self._comps)


class RangeDataset(DatasetV2):
    _tf_name = "_RangeDataset"

    def __init__(self, *args, output_type=None):
        if not args or len(args) > 3:
            raise ValueError(f"Invalid arguments to range: {args}")
        vals = [int(np.asarray(getattr(a, "_v", a))) for a in args]
        start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals + [1])[:3]
        if step == 0:
            raise InvalidArgumentError("step must be a non-zero integer.")
        self._range = range(start, stop, step)
        dt = _dt.as_dtype(output_type) if output_type is not None else _dt.int64
        self._np = dt._np
        super().__init__(TensorSpec([], dt))

    def _card(self):
        return len(self._range)

    def _make_iter(self):
        t = self._np.type
        return ((t(i),) for i in self._range)

    def _slices(self, index):
        """Elements at `index` (a slice or an index array), computed without the whole range."""
        r = self._range
        if isinstance(index, slice):
            part = r[index]
            return (np.arange(part.start, part.stop, part.step, dtype=np.int64).astype(self._np, copy=False),)
        idx = np.asarray(index, dtype=np.int64)
        return ((r.start + idx * r.step).astype(self._np, copy=False),)


class GeneratorDataset(DatasetV2):
    """from_generator: calls the generator afresh per iteration; each value is checked against the
    declared signature (TypeError/InvalidArgumentError as in TensorFlow); an exception the generator raises
    ends iteration with that exception."""
    _tf_name = "_FlatMapDataset"

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments cannot be used together with "
                                "the `output_signature` argument.")
            spec = structure.spec_from_signature(output_signature)
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either the "
                                "`output_signature` argument or the `output_types` argument.")
            spec = _specs_of(output_types, output_shapes)
        super().__init__(spec)
        self._gen = generator
        self._args = tuple(args) if args is not None else ()

    def _make_iter(self):
        spec = self.element_spec
        specs = structure.flat_specs(spec)
        args = tuple(a.numpy() if hasattr(a, "numpy") else a for a in self._args)
        for value in self._gen(*args):
            try:
                flat = structure.flatten_up_to(spec, value)
            except ValueError:
                raise InvalidArgumentError(f"`generator` yielded an element that did not match the expected structure. The "
                                f"expected structure was {spec}, but the yielded element was {value}.") from None
            out = []
            for s, v in zip(specs, flat):
                kind = composites.kind_of_spec(s)
                if kind is not None:  # a composite (SparseTensor) is yielded as one
                    if not kind.matches_value(v) or not s.is_compatible_with(kind.spec_of(v)):
                        raise InvalidArgumentError(
                            f"`generator` yielded an element that did not match the expected type. The expected "
                            f"type was {s}, but the yielded element was {v}.")
                    out.append(kind.to_stored(v))
                    continue
                try:
                    a = structure.to_numpy(v, s.dtype)
                except (TypeError, ValueError, OverflowError) as e:
                    raise InvalidArgumentError(
                        f"`generator` yielded an element that could not be converted to the expected type. The "
                        f"expected type was {s.dtype.name}, but the yielded element was {v}.") from e
                if not isinstance(a, np.ndarray) and not isinstance(a, np.generic):
                    a = np.asarray(a)
                if a.dtype != s.dtype._np and s.dtype is not _dt.string:
                    a = np.asarray(a).astype(s.dtype._np)
                if not s.shape.is_compatible_with(TensorShape(np.shape(a))):
                    raise InvalidArgumentError(
                        f"`generator` yielded an element of shape {TensorShape(np.shape(a))} where an element of "
                        f"shape {s.shape} was expected.")
                out.append(a)
            yield tuple(out)


def _specs_of(types, shapes):
    """output_types/output_shapes -> TensorSpecs; a shape (a tuple of dims) is a leaf at each type's place.
    Containers are rebuilt by tf.nest (dict subclasses and namedtuples kept; a list of types is a tuple)."""
    if not isinstance(types, (dict, tuple, list)):
        return TensorSpec(TensorShape(shapes), _dt.as_dtype(types))
    children = nest._children(types)
    try:
        shapes = [None] * len(children) if shapes is None else _shapes_like(types, shapes)
    except ValueError as e:
        raise ValueError(f"`output_shapes` must have the structure of `output_types` {types!r}: {e}") from None
    specs = [_specs_of(t, s) for t, s in zip(children, shapes)]
    return tuple(specs) if type(types) is list else nest._rebuild(types, specs)


def _shapes_like(types, shapes):
    """output_shapes' entries for types' children, in tf.nest order (dicts by key)."""
    if isinstance(types, dict):
        if not isinstance(shapes, dict) or set(shapes) != set(types):
            raise ValueError(f"expected a dict with keys {nest._sorted_keys(types)}, got {shapes!r}")
        return nest._children(shapes)
    if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
        raise ValueError(f"expected a sequence of {len(types)} shapes, got {shapes!r}")
    return list(shapes)


class ZipDataset(DatasetV2):
    _tf_name = "_ZipDataset"

    def __init__(self, datasets):
        leaves = nest.flatten(datasets)
        for d in leaves:
            if not isinstance(d, DatasetV2):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects, got {type(d).__name__}.")
        if isinstance(datasets, list):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                            "`tuple` instead.")
        self._datasets = leaves
        spec = nest.pack_sequence_as(datasets, [d.element_spec for d in leaves]) if nest.is_nested(datasets) \
            else leaves[0].element_spec
        super().__init__(spec, leaves)

    def _card(self):
        cards = [d._card() for d in self._datasets]
        finite = [c for c in cards if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in cards else INFINITE

    def _make_iter(self):
        its = [d._make_iter() for d in self._datasets]
        while True:
            out = []
            for it in its:
                try:
                    out.extend(next(it))
                except StopIteration:
                    return
            yield tuple(out)


class ConcatenateDataset(DatasetV2):
    _tf_name = "_ConcatenateDataset"

    def __init__(self, a, b):
        if not isinstance(b, DatasetV2):
            raise TypeError(f"Invalid `dataset`: expected a `tf.data.Dataset`, got {type(b).__name__}.")
        if not structure.same_structure(a.element_spec, b.element_spec):
            raise TypeError(f"Incompatible dataset elements:\n  {a.element_spec} vs.   {b.element_spec}")
        spec = structure.compatible(a.element_spec, b.element_spec)
        if spec is None:
            raise TypeError(f"Incompatible dataset elements:\n  {a.element_spec} vs.   {b.element_spec}")
        super().__init__(spec, (a, b))
        self._a, self._b = a, b

    def _card(self):
        x, y = self._a._card(), self._b._card()
        if INFINITE in (x, y):
            return INFINITE
        if UNKNOWN in (x, y):
            return UNKNOWN
        return x + y

    def _make_iter(self):
        yield from self._a._make_iter()
        yield from self._b._make_iter()


def _seeded_rng(seed):
    from ..ops.random_ops import op_seeds
    s1, s2 = op_seeds(seed)
    if not s1 and not s2:
        return None
    return (s1, s2)


def _rng(seeds, epoch):
    return np.random.Generator(np.random.PCG64([seeds[0] & 0xFFFFFFFFFFFFFFFF, seeds[1] & 0xFFFFFFFFFFFFFFFF,
                                                epoch]))


# An IteratorResource making or pulling its first elements sets TAKING.record (this thread's): each random
# stage's first draw for it is what it really took (another iterator may have drawn since it was made).
TAKING = threading.local()


class Randomized:
    """A dataset drawing random numbers per iteration (shuffle, sample_from_datasets, rejection_resample): the
    n-th iteration's generator derives from (seeds, n) alone. Without an op or global seed the seeds are drawn
    once, when the dataset is made (as TensorFlow fixes a random seed per dataset). So an iterator's randomness
    is reproducible from the seeds and the iteration count, which an iterator checkpoint records."""

    def _init_random(self, seed):
        seeds = _seeded_rng(seed)
        self._seeded = seeds is not None  # (a snapshot's fingerprint leaves out seeds drawn here)
        if seeds is None:
            seeds = tuple(int(x) for x in np.random.SeedSequence().generate_state(2, np.uint64) >> np.uint64(1))
        self._seeds = seeds
        self._epoch = 0
        self._epoch_lock = threading.Lock()

    def _next_epoch(self):
        with self._epoch_lock:
            e = self._epoch
            self._epoch += 1
            taken = (int(self._seeds[0]), int(self._seeds[1]), e)
        record = getattr(TAKING, "record", None)  # the iterator pulling in this thread notes what it took
        if record is not None:
            record(self, taken)
        return e

    def _random_state(self):
        return (int(self._seeds[0]), int(self._seeds[1]), int(self._epoch))

    def _set_random_state(self, state):
        with self._epoch_lock:
            self._seeds, self._epoch = (int(state[0]), int(state[1])), int(state[2])


class SampleDataset(DatasetV2, Randomized):
    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, weights, seed, stop_on_empty):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            spec = structure.compatible(spec, d.element_spec)
            if spec is None:
                raise TypeError("Incompatible dataset elements in `datasets`.")
        super().__init__(spec, datasets)
        self._datasets = datasets
        w = np.full(len(datasets), 1.0 / len(datasets)) if weights is None else \
            np.asarray(getattr(weights, "_v", weights), dtype=np.float64)
        self._weights = w / w.sum()
        self._init_random(seed)
        self._stop = stop_on_empty

    def _make_iter(self):
        rng = _rng(self._seeds, self._next_epoch() + 1)
        its = [d._make_iter() for d in self._datasets]
        w = self._weights.copy()
        while w.sum() > 0:
            i = int(rng.choice(len(its), p=w / w.sum()))
            try:
                yield next(its[i])
            except StopIteration:
                if self._stop:
                    return
                w[i] = 0


class ChooseDataset(DatasetV2):
    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, datasets, choice, stop_on_empty):
        datasets = list(datasets)
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            spec = structure.compatible(spec, d.element_spec)
            if spec is None:
                raise TypeError("Incompatible dataset elements in `datasets`.")
        cs = choice.element_spec
        if not isinstance(cs, TensorSpec) or cs.dtype is not _dt.int64 or cs.shape.rank != 0:
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar of "
                            f"`tf.int64` dtype, but got {cs}.")
        super().__init__(spec, datasets + [choice])
        self._datasets, self._choice, self._stop = datasets, choice, stop_on_empty

    def _make_iter(self):
        its = [d._make_iter() for d in self._datasets]
        done = set()
        for (c,) in self._choice._make_iter():
            c = int(c)
            if not 0 <= c < len(its):
                raise InvalidArgumentError(f"Selector index out of range: {c} >= {len(its)}")
            if c in done:
                continue
            try:
                yield next(its[c])
            except StopIteration:
                if self._stop:
                    return
                done.add(c)


class ElementsDataset(DatasetV2):
    """A dataset of given flat elements (group_by_window's windows; their shapes may differ)."""
    _tf_name = "_TensorSliceDataset"

    def __init__(self, elements, spec):
        super().__init__(spec)
        self._elements = list(elements)

    def _card(self):
        return len(self._elements)

    def _make_iter(self):
        return iter(self._elements)


class CounterDataset(DatasetV2):
    """Dataset.counter / tf.data.experimental.Counter: start, start + step, ... without end (TensorFlow builds
    it as a scan, and prints it so)."""
    _tf_name = "_ScanDataset"

    def __init__(self, start=0, step=1, dtype=None):
        dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
        if not dt.is_integer and not dt.is_floating:
            raise TypeError(f"Invalid `dtype` for a counter: {dt.name}; use an integer or floating type.")
        self._start = np.asarray(getattr(start, "_v", start)).astype(dt._np)[()]
        self._step = np.asarray(getattr(step, "_v", step)).astype(dt._np)[()]
        super().__init__(TensorSpec([], dt))

    def _card(self):
        return INFINITE

    def _make_iter(self):
        v, step = self._start, self._step
        while True:
            yield (v,)
            v = v + step
