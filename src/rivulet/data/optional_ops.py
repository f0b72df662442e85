"""tf.experimental.Optional and iterator.get_next_as_optional(): the next element, or nothing at the end.

Eagerly an Optional holds its value (or none). Inside a tf.function, `get_next_as_optional()` asks the iterator
whether it has an element (IteratorHasNext) and takes it under a tf.cond (IteratorGetNext runs only when there
is one; the other branch gives empty tensors of the element's dtypes), so the element is consumed when the
optional is made, as in TensorFlow; `get_value()` of an empty optional fails when the function runs.
"""
from .. import nest
from ..core import context
from ..errors import InvalidArgumentError
from . import structure

_NO_VALUE = "The given optional does not have a value."


class Optional:
    """tf.experimental.Optional: a value that may be missing (`has_value()`), as get_next_as_optional gives."""

    def __init__(self, has_value, value, element_spec):
        self._has_value, self._value, self._element_spec = has_value, value, element_spec

    element_spec = property(lambda self: self._element_spec)

    @staticmethod
    def from_value(value):
        """An optional holding `value` (a structure of tensors)."""
        from ..core.tensor import convert_to_tensor
        from ..ops.constant_op import constant
        value = nest.map_structure(convert_to_tensor, value)
        spec = nest.map_structure(lambda t: structure.TensorSpec(t.shape, t.dtype), value)
        return Optional(constant(True), value, spec)

    @staticmethod
    def empty(element_spec):
        """An optional with no value, for elements of `element_spec`."""
        from ..ops.constant_op import constant
        return Optional(constant(False), None, element_spec)

    def has_value(self, name=None):
        """A boolean scalar tensor: whether this optional holds a value."""
        return self._has_value

    def get_value(self, name=None):
        """The value; InvalidArgumentError if there is none (when the function runs, inside a tf.function)."""
        if context.current_graph() is None:
            if self._value is None or not bool(self._has_value):
                raise InvalidArgumentError(f"{_NO_VALUE} [Op:OptionalGetValue]")
            return self._value
        if self._value is None:
            raise InvalidArgumentError(_NO_VALUE)
        from ..ops.logging_ops import Assert
        Assert(self._has_value, [_NO_VALUE], name="OptionalGetValue")
        return self._value

    @property
    def _type_spec(self):
        return OptionalSpec(self._element_spec)

    def __repr__(self):
        return f"<rivulet.data.ops.optional_ops._OptionalImpl object at 0x{id(self):x}>"


class OptionalSpec:
    """tf.OptionalSpec(element_spec): the type of an Optional of elements of `element_spec`."""

    def __init__(self, element_spec):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)
    value_type = property(lambda self: Optional)

    @staticmethod
    def from_value(value):
        return OptionalSpec(value.element_spec)

    def __eq__(self, other):
        return isinstance(other, OptionalSpec) and structure._hashable(self._element_spec) == \
            structure._hashable(other._element_spec)

    def __hash__(self):
        return hash(structure._hashable(self._element_spec))

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"


def get_next_as_optional(iterator):
    """An Optional holding the iterator's next element, or an empty one at the end of the data."""
    spec = iterator.element_spec
    if context.current_graph() is None:
        try:
            value = next(iterator)
        except StopIteration:
            return Optional.empty(spec)
        from ..ops.constant_op import constant
        return Optional(constant(True), value, spec)
    from ..function.control_flow import cond
    from . import composites, graph_ops
    leaves = structure.flat_specs(spec)
    if any(not isinstance(s, structure.TensorSpec) and not composites.is_composite_spec(s) for s in leaves):
        raise NotImplementedError("rivulet's get_next_as_optional inside a tf.function takes elements of tensors; "
                                  f"this iterator's are {spec}")
    # the cond carries tensors: a composite leaf (SparseTensor) goes through as its components
    parts = [list(s._component_specs) if composites.is_composite_spec(s) else [s] for s in leaves]
    flat = [c for p in parts for c in p]
    it = graph_ops.iterator_tensor(iterator)
    has = graph_ops.has_next(it)

    def taken():
        out = []
        for s, v in zip(leaves, nest.flatten(graph_ops.get_next(it, spec))):
            out.extend(v._to_components() if composites.is_composite_spec(s) else [v])
        return out

    def empty():  # the other branch: empty tensors (unknown dims 0) of the element's dtypes
        import numpy as np
        from .. import dtypes
        from ..ops.constant_op import constant
        out = []
        for s in flat:
            shape = [0 if d is None else d for d in s.shape.as_list()] if s.shape.rank is not None else [0]
            a = np.full(shape, b"", dtype=object) if s.dtype is dtypes.string else np.zeros(shape, s.dtype.as_numpy_dtype)
            out.append(constant(a, dtype=s.dtype))
        return out
    values = cond(has, taken, empty)
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    rebuilt, i = [], 0
    for s, p in zip(leaves, parts):
        rebuilt.append(s._from_components(values[i:i + len(p)]) if composites.is_composite_spec(s) else values[i])
        i += len(p)
    value = nest.pack_sequence_as(spec, rebuilt) if nest.is_nested(spec) else rebuilt[0]
    return Optional(has, value, spec)
