"""Distributed datasets: global batches split among replicas, or one element per replica.

Inside a tf.function, `for x in dist_dataset` (or a distributed iterator) is the tf.data loop over the
dataset beneath (a While that reads it when the function runs), each element split among the replicas as
the body takes it: registered with AutoGraph below."""
from .. import nest
from ..errors import next_or_end_of_sequence
from ..function.trace_type import object_type
from ..autograph.operators import control_flow as _cf
from ..shape import TensorShape, TensorSpec
from .strategy import split_batch
from .values import PerReplica, PerReplicaSpec


class DistributedIteratorSpec:
    """The trace type of a distributed iterator over a tf.data iterator (TensorFlow's DistributedIteratorSpec):
    the iterator's kind, its strategy and the tf.data iterator's own trace type, so a step function called
    with a new iterator of each epoch traces once; the graph reads the iterator each call is given. An
    iterator over a Python iterable keeps the plain object's rule (it is read while tracing)."""
    __slots__ = ("kind", "strategy", "inner", "element_spec")

    def __init__(self, kind, strategy, inner, element_spec):
        self.kind, self.strategy, self.inner, self.element_spec = kind, strategy, inner, element_spec

    def __eq__(self, other):
        return (isinstance(other, DistributedIteratorSpec) and self.kind is other.kind
                and self.strategy is other.strategy and self.inner == other.inner)

    def __hash__(self):
        return hash((self.kind, id(self.strategy), self.inner))

    def __repr__(self):
        return f"{self.kind.__name__}Spec({self.element_spec!r})"  # (which kind: a retrace names it)

    def _placeholder_for(self, g, value, name):
        inner = self.inner._placeholder_for(g, getattr(value, "_iterator", None), name)
        return self.kind(self.strategy, inner, self.element_spec)

    def _flat_arg(self, value, path):
        if type(value) is not self.kind or value._strategy is not self.strategy:
            raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' was traced for {self!r}, got "
                            f"{value!r}.")
        return self.inner._flat_arg(value._iterator, path)


def _iterator_trace_type(it, context):
    inner = getattr(type(it._iterator), "__tf_tracing_type__", None)
    if inner is None:
        return object_type(it)
    return DistributedIteratorSpec(type(it), it._strategy, inner(it._iterator, context), it._element_spec)


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
        return DistributedIterator(self._strategy, iter(self._dataset), self.element_spec)


class DistributedIterator:
    """iter(distributed dataset): next() / get_next() give a global batch split among the replicas;
    get_next_as_optional() gives it as an Optional, also inside a tf.function (the iterator passed in as an
    argument), where it reads the dataset's iterator when the function runs."""

    def __init__(self, strategy, iterator, element_spec):
        self._strategy, self._iterator, self._element_spec = strategy, iterator, element_spec

    __tf_tracing_type__ = _iterator_trace_type

    element_spec = property(lambda self: self._element_spec)

    def __iter__(self):
        return self

    def __next__(self):
        return split_element(self._strategy, next(self._iterator))

    def get_next(self):
        return next_or_end_of_sequence(self)

    def get_next_as_optional(self):
        """The next global batch, split among the replicas, as an Optional (empty at the end of the data)."""
        get = getattr(self._iterator, "get_next_as_optional", None)
        if get is not None:  # a tf.data iterator: eagerly, or inside a tf.function
            return DistributedOptional(self._element_spec, inner=get(),
                                       split=lambda v: split_element(self._strategy, v))
        from ..core import context
        if context.current_graph() is not None:
            raise TypeError("get_next_as_optional inside a tf.function needs a distributed tf.data.Dataset; this "
                            "one distributes a Python iterable, which is read when the function is traced")
        return self._read_optional()

    def _read_optional(self):
        """The next element, read now, as an Optional (empty at the end of the data)."""
        try:
            value = next(self)
        except StopIteration:
            return DistributedOptional(self._element_spec)
        return DistributedOptional(self._element_spec, value=value)

    def __repr__(self):
        return f"<rivulet.distribute.input_lib.DistributedIterator object at 0x{id(self):x}>"


class DistributedOptional:
    """What DistributedIterator.get_next_as_optional gives (a tf.experimental.Optional): has_value(), and
    get_value() as per-replica values. Wraps the dataset iterator's Optional (`inner`, its value split by
    `split`), or holds an eagerly read `value` (None: no value)."""

    def __init__(self, element_spec, inner=None, split=None, value=None):
        self._inner, self._split, self._value, self._element_spec = inner, split, value, element_spec

    element_spec = property(lambda self: self._element_spec)

    def has_value(self, name=None):
        if self._inner is not None:
            return self._inner.has_value()
        from ..ops.constant_op import constant
        return constant(self._value is not None)

    def get_value(self, name=None):
        if self._inner is not None:
            return self._split(self._inner.get_value())
        if self._value is None:
            from ..errors import InvalidArgumentError
            raise InvalidArgumentError("The given optional does not have a value. [Op:OptionalGetValue]")
        return self._value

    def __repr__(self):
        return f"<rivulet.data.ops.optional_ops._OptionalImpl object at 0x{id(self):x}>"


class DistributedDatasetsFromFunction:
    """strategy.distribute_datasets_from_function(fn): replicas take consecutive elements of fn's dataset."""

    def __init__(self, strategy, dataset):
        self._strategy, self._dataset = strategy, dataset

    @property
    def element_spec(self):
        spec = getattr(self._dataset, "element_spec", None)
        n = self._strategy.num_replicas_in_sync
        if spec is None or n == 1:
            return spec
        return nest.map_structure(lambda s: PerReplicaSpec([s] * n), spec)

    def __iter__(self):
        # the dataset's iterator is made here, eagerly: an iterator passed to a tf.function step
        # (multi_worker_with_ctl's train_step(iterator)) is read when the function runs
        return DatasetsFromFunctionIterator(self._strategy, iter(self._dataset), self.element_spec)


class DatasetsFromFunctionIterator(DistributedIterator):
    """iter(distribute_datasets_from_function(...)): each replica takes the next element of the dataset."""

    def __init__(self, strategy, iterator, element_spec):
        super().__init__(strategy, iterator, element_spec)
        self._done = False

    def __next__(self):
        n = self._strategy.num_replicas_in_sync
        if n == 1:
            return next(self._iterator)
        if self._done:
            raise StopIteration
        group = []
        for _ in range(n):
            try:
                group.append(next(self._iterator))
            except StopIteration:
                break
        if not group:
            raise StopIteration
        if len(group) < n:  # a short last round: the replicas left without an element get an empty batch
            self._done = True
            group += [nest.map_structure(lambda v: v[:0], group[-1])] * (n - len(group))
        return nest.map_structure(lambda *xs: PerReplica(xs), *group)

    def get_next_as_optional(self):
        get = getattr(self._iterator, "get_next_as_optional", None)
        if self._strategy.num_replicas_in_sync == 1 and get is not None:
            return DistributedOptional(self._element_spec, inner=get(), split=lambda v: v)
        return self._read_optional()


def _is_distributed(iter_):  # (DatasetsFromFunctionIterator is a DistributedIterator)
    return isinstance(iter_, (DistributedDataset, DistributedIterator, DistributedDatasetsFromFunction))


def _distributed_for_loop(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for x in dist_dataset` in a graph: the loop over the dataset (or iterator) beneath, whose body gets
    each element split among the replicas; a distributed Python iterable is unrolled as Python iterates it."""
    strategy = iter_._strategy
    if isinstance(iter_, (DistributedDatasetsFromFunction, DatasetsFromFunctionIterator)):
        if strategy.num_replicas_in_sync > 1:
            raise NotImplementedError(
                "rivulet iterates a dataset made by distribute_datasets_from_function inside a tf.function only "
                "with one replica: iterate it outside the function and pass each element to a tf.function step")
        inner = iter_._dataset if isinstance(iter_, DistributedDatasetsFromFunction) else iter_._iterator
        return _cf.for_stmt(inner, extra_test, body, get_state, set_state, symbol_names, opts)
    inner = iter_._dataset if isinstance(iter_, DistributedDataset) else iter_._iterator
    return _cf.for_stmt(inner, extra_test, lambda x: body(split_element(strategy, x)), get_state, set_state,
                        symbol_names, opts)


_cf.register_for_loop(_is_distributed, _distributed_for_loop)
