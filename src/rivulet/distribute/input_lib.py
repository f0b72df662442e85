"""Distributed datasets: global batches split among replicas, or one element per replica."""
from .. import nest
from ..shape import TensorShape, TensorSpec
from .strategy import split_batch
from .values import PerReplica, PerReplicaSpec


def split_element(strategy, element):
    """A global batch (a structure of tensors; None leaves stay None) as per-replica slices."""
    n = strategy.num_replicas_in_sync
    if n == 1:
        return element
    return nest.map_structure(
        lambda v: v if v is None else PerReplica([split_batch(v, n, i) for i in range(n)]), element)


def _unknown_batch(spec):
    shape = spec.shape
    if shape.rank:
        shape = TensorShape([None] + shape.as_list()[1:])
    return TensorSpec(shape, spec.dtype, getattr(spec, "name", None))


class DistributedDataset:
    """strategy.experimental_distribute_dataset(ds): iterating gives each global batch as per-replica slices."""

    def __init__(self, strategy, dataset):
        try:
            iter(dataset)
        except TypeError:
            raise TypeError(f"experimental_distribute_dataset expects a tf.data.Dataset (or an iterable of "
                            f"batches), got {dataset!r}") from None
        self._strategy, self._dataset = strategy, dataset

    @property
    def element_spec(self):
        """The dataset's element_spec; with several replicas each spec becomes a PerReplicaSpec of the replicas'
        (their batch dimension unknown), as TensorFlow gives it."""
        spec = getattr(self._dataset, "element_spec", None)
        n = self._strategy.num_replicas_in_sync
        if spec is None or n == 1:
            return spec
        return nest.map_structure(lambda s: PerReplicaSpec([_unknown_batch(s)] * n), spec)

    def __iter__(self):
        for element in self._dataset:
            yield split_element(self._strategy, element)


class DistributedDatasetsFromFunction:
    """strategy.distribute_datasets_from_function(fn): replicas take consecutive elements of fn's dataset."""

    def __init__(self, strategy, dataset):
        self._strategy, self._dataset = strategy, dataset

    def __iter__(self):
        n = self._strategy.num_replicas_in_sync
        it = iter(self._dataset)
        while True:
            group = []
            for _ in range(n):
                try:
                    group.append(next(it))
                except StopIteration:
                    break
            if not group:
                return
            # a short last round: the replicas left without an element get an empty batch
            group += [nest.map_structure(lambda v: v[:0], group[-1])] * (n - len(group))
            yield group[0] if n == 1 else nest.map_structure(lambda *xs: PerReplica(xs), *group)
            if len(group) < n:
                return
