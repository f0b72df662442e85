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
