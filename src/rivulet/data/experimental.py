"""tf.data.experimental: the names TensorFlow's guides use."""
from .dataset import AUTOTUNE, INFINITE as INFINITE_CARDINALITY, UNKNOWN as UNKNOWN_CARDINALITY  # noqa: F401
from .csv_data import CsvDatasetV2 as CsvDataset, make_csv_dataset  # noqa: F401
from .options import (AutoShardPolicy, AutotuneOptions as AutotuneOptions,  # noqa: F401
                      DistributeOptions, ExternalStatePolicy, OptimizationOptions, ThreadingOptions)


def cardinality(dataset):
    return dataset.cardinality()


def assert_cardinality(expected_cardinality):
    def apply(ds):
        from .transforms import _Unary
        n = int(getattr(expected_cardinality, "_v", expected_cardinality))

        class _Asserted(_Unary):
            _tf_name = "_AssertCardinalityDataset"

            def _card(self):
                return n

            def _make_iter(self):
                from ..errors import FailedPreconditionError
                k = 0
                for e in self._input._make_iter():
                    k += 1
                    if n >= 0 and k > n:
                        raise FailedPreconditionError(f"Input dataset was expected to contain {n} elements but "
                                                      f"contained at least {k} elements.")
                    yield e
                if n >= 0 and k < n:
                    raise FailedPreconditionError(f"Input dataset was expected to contain {n} elements but "
                                                  f"contained only {k} elements.")
        return _Asserted(ds)
    return apply


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    from .dataset import Dataset
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    from .dataset import Dataset
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def enumerate_dataset(start=0):
    return lambda ds: ds.enumerate(start)


def ignore_errors(log_warning=False):
    return lambda ds: ds.ignore_errors()


def get_single_element(dataset):
    return dataset.get_single_element()


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    return lambda ds: ds.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                                                   padded_shapes, padding_values, pad_to_bucket_boundary,
                                                   no_padding, drop_remainder)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


def unbatch():
    return lambda ds: ds.unbatch()


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """Deprecated in TensorFlow for `tf.data.Dataset.ragged_batch`; the same batches."""
    from .ragged_batch import ragged_batch
    return lambda ds: ragged_batch(ds, batch_size, drop_remainder, row_splits_dtype)


def Counter(start=0, step=1, dtype=None):  # noqa: N802 - TensorFlow's name
    """Deprecated in TensorFlow for `tf.data.Dataset.counter`; the same dataset."""
    from .dataset import Dataset
    return Dataset.counter(start, step, dtype)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    return lambda ds: ds.rejection_resample(class_func, target_dist, initial_dist, seed)


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """Deprecated in TensorFlow for `tf.data.Dataset.snapshot`; the same dataset."""
    return lambda ds: ds.snapshot(path, compression, reader_func, shard_func)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Deprecated in TensorFlow for `tf.data.Dataset.save`."""
    return dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    """Deprecated in TensorFlow for `tf.data.Dataset.load`."""
    from .dataset import Dataset
    return Dataset.load(path, element_spec, compression, reader_func)


def get_next_as_optional(iterator):
    """Deprecated in TensorFlow for `tf.data.Iterator.get_next_as_optional()`; the same Optional."""
    return iterator.get_next_as_optional()


def __getattr__(name):
    if name == "Optional":  # tf.data.experimental.Optional: tf.experimental.Optional
        from .optional_ops import Optional
        return Optional
    raise AttributeError(f"module 'rivulet.data.experimental' has no attribute '{name}'")
