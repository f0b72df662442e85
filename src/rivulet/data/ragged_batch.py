"""Dataset.ragged_batch / tf.data.experimental.dense_to_ragged_batch: a batch whose components of varying
shape become RaggedTensors instead of needing padding. As in TensorFlow, a tensor component whose shape is not
fully known is first seen as a RaggedTensor row (ragged up to its last unknown dimension), then batched; fully
known components batch as usual, and RaggedTensor components gain a ragged dimension."""
import numpy as np

from .. import nest
from ..shape import TensorSpec
from . import composites, structure
from .ragged_elements import RaggedKind
from .transforms import BatchDataset, _Unary

_KIND = RaggedKind()


def _ragged_rank(shape):
    """The ragged_rank a row of this (not fully known) shape takes: up to its last unknown dimension."""
    if shape.rank is None:
        raise ValueError("ragged_batch needs components of known rank")
    return max(i for i, d in enumerate(shape.as_list()) if d is None)


class _DenseToRaggedDataset(_Unary):
    _tf_name = "_DenseToRaggedDataset"

    def __init__(self, input_dataset):
        spec_class = _KIND.value_class()._type_spec_class
        flat = structure.flat_specs(input_dataset.element_spec)
        self._ranks = []
        out = []
        for s in flat:
            if isinstance(s, TensorSpec) and s.shape.rank and not s.shape.is_fully_defined():
                r = _ragged_rank(s.shape)
                self._ranks.append(r)
                out.append(spec_class(s.shape, s.dtype, r))
            else:
                self._ranks.append(None)
                out.append(s)
        spec = input_dataset.element_spec
        super().__init__(input_dataset, nest.pack_sequence_as(spec, out) if nest.is_nested(spec) else out[0])

    def _make_iter(self):
        ranks = self._ranks
        return (tuple(v if r is None else _as_ragged(np.asarray(v), r) for v, r in zip(e, ranks))
                for e in self._input._make_iter())


def _as_ragged(a, r):
    """A dense array as the components of a RaggedTensor row of ragged_rank r (uniform rows at each level)."""
    splits, rows = [], a.shape[0]
    for k in range(1, r + 1):
        splits.append(np.arange(rows + 1, dtype=np.int64) * a.shape[k])
        rows *= a.shape[k]
    return composites.CompositeValue(_KIND, [a.reshape((rows,) + a.shape[r + 1:])] + splits)


def ragged_batch(dataset, batch_size, drop_remainder=False, row_splits_dtype=None):
    return BatchDataset(_DenseToRaggedDataset(dataset), batch_size, drop_remainder)
