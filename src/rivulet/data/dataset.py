"""tf.data.Dataset: the base class (properties, iteration, the transformation methods) and its iterators.

A dataset is a recipe: `_make_iter()` returns a fresh Python iterator over flat element tuples (NumPy
values, one per leaf of `element_spec`), `_card()` its cardinality. Subclasses live in sources.py,
transforms.py, readers.py and threads.py; the methods here only build them.
"""

import numpy as np

from .. import nest
from ..errors import next_or_end_of_sequence
from ..core import context
from ..core.tensor import EagerTensor
from . import structure

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1


class DatasetV2:
    """Base of every dataset. TensorFlow prints each by its class name (`_TensorSliceDataset` ...)."""
    _tf_name = "DatasetV2"

    def __init__(self, element_spec, inputs=()):
        self._element_spec = element_spec
        self._inputs = tuple(inputs)
        self._options_obj = None

    def __tf_tracing_type__(self, context):
        """A tf.function argument: traced by element_spec, fed by reference (data/trace_type.py)."""
        from .trace_type import DatasetTraceType
        return DatasetTraceType(self.element_spec)

    # -- to implement ---------------------------------------------------------------------------------
    def _make_iter(self):
        raise NotImplementedError

    def _card(self):
        return UNKNOWN

    # -- properties ---------------------------------------------------------------------------------------
    @property
    def element_spec(self):
        return self._element_spec

    def cardinality(self):
        return EagerTensor(np.int64(self._card()))

    def __len__(self):
        if not context.executing_eagerly():
            raise TypeError("`tf.data.Dataset` only supports `len` in eager mode. Use "
                            "`tf.data.Dataset.cardinality()` instead.")
        n = self._card()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<{self._tf_name} element_spec={self.element_spec!r}>"

    def __iter__(self):
        if context.current_graph() is not None:  # inside a traced function: an iterator made at run time
            from .graph_ops import GraphIterator
            return GraphIterator(self)
        return OwnedIterator(self)

    def as_numpy_iterator(self):
        for s in structure.flat_specs(self.element_spec):
            if isinstance(s, structure.DatasetSpec):
                raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets that produce values "
                                f"of type {structure.DatasetSpec.__name__}")
        return NumpyIterator(OwnedIterator(self))

    def options(self):
        from .options import Options
        o = Options()
        for d in self._lineage():
            if d._options_obj is not None:
                o = o.merge(d._options_obj)
        return o

    def _lineage(self):
        out, todo = [], [self]
        while todo:
            d = todo.pop()
            out.append(d)
            todo.extend(d._inputs)
        return out[::-1]

    # -- sources ----------------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        from .sources import TensorSliceDataset
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        from .sources import TensorDataset
        return TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=None, name=None):
        from .sources import RangeDataset
        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def counter(start=0, step=1, dtype=None, name=None):
        from .sources import CounterDataset
        return CounterDataset(start, step, dtype)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        from .sources import GeneratorDataset
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*datasets, name=None):
        from .sources import ZipDataset
        if len(datasets) == 1:
            datasets = datasets[0]
        return ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        from .readers import list_files
        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize_each_iteration=None):
        from .sources import SampleDataset
        return SampleDataset(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        from .sources import ChooseDataset
        return ChooseDataset(datasets, choice_dataset, stop_on_empty_dataset)

    # -- transformations --------------------------------------------------------------------------------
    def concatenate(self, dataset, name=None):
        from .sources import ConcatenateDataset
        return ConcatenateDataset(self, dataset)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        from . import transforms, threads
        if num_parallel_calls is None:
            return transforms.MapDataset(self, map_func)
        return threads.ParallelMapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        from .transforms import FilterDataset
        return FilterDataset(self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        from .transforms import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        from .transforms import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None):
        from .ragged_batch import ragged_batch
        return ragged_batch(self, batch_size, drop_remainder, row_splits_dtype)

    def unbatch(self, name=None):
        from .transforms import UnbatchDataset
        return UnbatchDataset(self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        from .transforms import RebatchDataset
        return RebatchDataset(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        from .transforms import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed, True if reshuffle_each_iteration is None
                              else reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        from .transforms import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count, name=None):
        from .transforms import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count, name=None):
        from .transforms import SkipDataset
        return SkipDataset(self, count)

    def shard(self, num_shards, index, name=None):
        from .transforms import ShardDataset
        return ShardDataset(self, num_shards, index)

    def prefetch(self, buffer_size, name=None):
        from .threads import PrefetchDataset
        return PrefetchDataset(self, buffer_size)

    def cache(self, filename="", name=None):
        from .transforms import CacheDataset
        return CacheDataset(self, filename)

    def enumerate(self, start=0, name=None):
        from .sources import RangeDataset, ZipDataset
        return ZipDataset((RangeDataset(start, np.iinfo(np.int64).max), self))

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        from .snapshot import snapshot
        return snapshot(self, path, compression, reader_func, shard_func)

    def flat_map(self, map_func, name=None):
        from .transforms import FlatMapDataset
        return FlatMapDataset(self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        from .transforms import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        from .transforms import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        from .transforms import ScanDataset
        return ScanDataset(self, initial_state, scan_func)

    def take_while(self, predicate, name=None):
        from .transforms import TakeWhileDataset
        return TakeWhileDataset(self, predicate)

    def unique(self, name=None):
        from .transforms import UniqueDataset
        return UniqueDataset(self)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        from .transforms import GroupByWindowDataset
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        from .transforms import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                         padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                         drop_remainder)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        from .resample import rejection_resample
        return rejection_resample(self, class_func, target_dist, initial_dist, seed)

    def apply(self, transformation_func):
        out = transformation_func(self)
        if not isinstance(out, DatasetV2):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(out)}.")
        return out

    def with_options(self, options, name=None):
        from .transforms import OptionsDataset
        return OptionsDataset(self, options)

    def ignore_errors(self, log_warning=False, name=None):
        from .transforms import IgnoreErrorsDataset
        return IgnoreErrorsDataset(self)

    def reduce(self, initial_state, reduce_func, name=None):
        if context.current_graph() is not None:  # inside a traced function: a loop in the graph
            from .graph_ops import graph_reduce
            return graph_reduce(self, initial_state, reduce_func)
        from .functions import StructuredFunction
        state_spec, state = structure.normalize(initial_state)
        fn = StructuredFunction(reduce_func, (state_spec, self.element_spec), "reduce_func", unpack=False)
        fn.output_spec = _check_state(state_spec, fn.output_spec, "reduce_func")
        state = tuple(state)
        for e in self._make_iter():
            state = fn(state + e)
        return structure.pack(state_spec if not nest.is_nested(fn.output_spec) else fn.output_spec, state)

    def get_single_element(self, name=None):
        it = self._make_iter()
        try:
            first = next(it)
        except StopIteration:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("Dataset was empty.") from None
        for _ in it:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("Dataset had more than one element.")
        return structure.pack(self.element_spec, first)

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Writes the elements under `path` in rivulet's own format (data/save_load.py); Dataset.load reads it."""
        from .save_load import save
        save(self, path, compression)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None):
        from .save_load import load
        return load(path, element_spec, compression, reader_func)


def _check_state(state_spec, out_spec, what):
    """reduce/scan: the new state keeps the initial state's structure and dtypes."""
    if not structure.same_structure(state_spec, out_spec):
        raise TypeError(f"The element types for the new state must match the initial state. Expected "
                        f"{state_spec}; got {out_spec}.")
    for a, b in zip(structure.flat_specs(state_spec), structure.flat_specs(out_spec)):
        if a.dtype != b.dtype:
            raise TypeError(f"The element types for the new state must match the initial state. Expected "
                            f"{state_spec}; got {out_spec}.")
    return out_spec


Dataset = DatasetV2


class OwnedIterator:
    """What iter(dataset) returns: next() gives the element as tensors; StopIteration at the end. Inside a
    tf.function, next(it) (or `for x in it`) pulls from this same iterator when the function runs."""

    def __init__(self, dataset):
        from .graph_ops import IteratorResource
        self._dataset = dataset
        self._spec = dataset.element_spec
        self._res = IteratorResource(dataset)  # thread-safe: several threads may pull from one iterator
        spec = self._spec
        if isinstance(spec, tuple) and type(spec) is tuple and all(type(s) is structure.TensorSpec for s in spec):
            self._pack = _pack_flat_tuple
        else:
            self._pack = lambda flat: structure.pack(spec, flat)

    element_spec = property(lambda self: self._spec)

    def __tf_tracing_type__(self, context):
        """A tf.function argument: traced by element_spec, fed by reference (data/trace_type.py)."""
        from .trace_type import IteratorTraceType
        return IteratorTraceType(self._spec)

    def __iter__(self):
        return self

    def __next__(self):
        if context.current_graph() is not None:
            from . import graph_ops
            return graph_ops.get_next(context.current_graph().capture(self._res), self._spec)
        flat = self._res.next_flat()
        if flat is None:
            raise StopIteration
        return self._pack(flat)

    def next(self):  # (TensorFlow's Python 2 spelling, which the extension_type guide calls)
        return self.__next__()

    def get_next(self):
        return next_or_end_of_sequence(self)

    def get_next_as_optional(self):
        """A tf.experimental.Optional holding the next element, or none at the end (data/optional_ops.py)."""
        from .optional_ops import get_next_as_optional
        return get_next_as_optional(self)

    def __repr__(self):
        return f"<rivulet.data.ops.iterator_ops.OwnedIterator object at 0x{id(self):x}>"

    # -- a trackable of tf.train.Checkpoint: its state is one value, ITERATOR_STATE (data/iterator_state.py)
    _checkpoint_attribute = "ITERATOR"  # TensorFlow's name in the object graph; the value is ITERATOR_STATE

    def _checkpoint_children(self):
        return []

    def _serialize_to_tensors(self):
        from . import iterator_state
        return {iterator_state.ATTRIBUTE: iterator_state.encode(self._res, self._spec)}

    def _check_restore(self, tensors):
        """Raises if the checkpointed values cannot be restored (before a checkpoint assigns anything)."""
        from . import iterator_state
        from .graph_ops import random_stages
        iterator_state.decode(tensors[iterator_state.ATTRIBUTE], self._spec, len(random_stages(self._dataset)),
                              self._res.tracked(), self._res._shuffle)

    def _restore_from_tensors(self, tensors):
        from . import iterator_state
        iterator_state.restore(self._res, self._spec, tensors[iterator_state.ATTRIBUTE])


def _pack_flat_tuple(flat):
    return tuple(EagerTensor(v) if not isinstance(v, bytes) else structure._leaf(v) for v in flat)


class NumpyIterator:
    def __init__(self, it):
        self._iterator = it

    def __iter__(self):
        return self

    def __next__(self):
        flat = self._iterator._res.next_flat()
        if flat is None:
            raise StopIteration
        vals = [_numpy_value(v) for v in flat]
        spec = self._iterator._spec
        return vals[0] if not nest.is_nested(spec) else nest.pack_sequence_as(spec, vals)

    next = __next__

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator!r})"


def _numpy_value(v):
    if isinstance(v, structure.composites.CompositeValue):
        return v.kind.to_numpy_value(v)
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v
