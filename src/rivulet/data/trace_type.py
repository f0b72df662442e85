"""A tf.data.Dataset as a tf.function argument: its trace type, which datasets give through
`__tf_tracing_type__` (function/ knows no datasets)."""
from . import graph_ops, structure


class DatasetTraceType:
    """A tf.data.Dataset argument: traced by its element_spec (another dataset with the same spec reuses the
    graph), and fed to the graph by reference on each call (data/graph_ops.py)."""
    __slots__ = ("element_spec", "_key")

    def __init__(self, element_spec):
        self.element_spec = element_spec
        self._key = structure._hashable(element_spec)

    def __eq__(self, other):
        return isinstance(other, DatasetTraceType) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, TensorShape([]))"

    def _placeholder_for(self, g, value, name):
        return graph_ops.dataset_argument(g, self.element_spec, name)

    def _flat_arg(self, value, path):
        if not (hasattr(value, "_make_iter") and hasattr(value, "element_spec")) or \
                DatasetTraceType(value.element_spec) != self:
            raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' was traced for {self!r}, got "
                            f"{value!r}.")
        return graph_ops.handle_of(value)


class IteratorTraceType:
    """A tf.data iterator argument (`iter(dataset)`, TensorFlow's IteratorSpec): traced by its element_spec,
    so a new iterator over the same kind of data reuses the graph (a training step called with each epoch's
    iterator traces once), and fed by reference: the graph reads the iterator it is given on each call."""
    __slots__ = ("element_spec", "_key")

    def __init__(self, element_spec):
        self.element_spec = element_spec
        self._key = ("iterator", structure._hashable(element_spec))

    def __eq__(self, other):
        return isinstance(other, IteratorTraceType) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"IteratorSpec({self.element_spec!r},)"

    def _placeholder_for(self, g, value, name):
        ph = g.placeholder(graph_ops._dt.resource, [], name=name)
        g.arg_placeholders.append(ph)
        return ArgumentIterator(ph, self.element_spec)

    def _flat_arg(self, value, path):
        res = getattr(value, "_res", None)
        if res is None or not hasattr(value, "element_spec") or IteratorTraceType(value.element_spec) != self:
            raise TypeError(f"Binding inputs to tf.function failed: argument '{path}' was traced for {self!r}, got "
                            f"{value!r}.")
        return res


class ArgumentIterator(graph_ops.GraphIterator):
    """What a tf.function's body sees for an iterator argument: next() reads the iterator the call is given."""

    def __init__(self, placeholder, element_spec):  # (not GraphIterator's: no dataset, no new iterator)
        self._tensor = placeholder
        self.element_spec = element_spec

    def get_next_as_optional(self):
        from .optional_ops import get_next_as_optional
        return get_next_as_optional(self)

    def __tf_tracing_type__(self, context):  # passed on to another tf.function
        return IteratorTraceType(self.element_spec)
