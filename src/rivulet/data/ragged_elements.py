"""tf.RaggedTensor as dataset elements (a composite kind of data/composites.py).

A RaggedTensor element travels as its components: the flat values, then the row splits of each ragged
dimension (outermost first). As in TensorFlow, a RaggedTensorSpec of ragged_rank 0 describes a row of a
RaggedTensor (from_tensor_slices, unbatch): its values are plain tensors, yet batching them makes a
RaggedTensor of ragged_rank 1; batching any ragged element adds a ragged dimension (rows of different lengths
batch without padding), and unbatch / from_tensor_slices take the rows apart again."""
import numpy as np

from ..core.tensor import EagerTensor
from ..shape import TensorShape
from .composites import CompositeValue, ElementKind


class RaggedKind(ElementKind):
    name = "ragged"

    def matches_spec(self, spec):
        return type(spec).__name__ == "RaggedTensorSpec" and super().matches_spec(spec)

    def to_value(self, cv):
        flat, *splits = cv.comps
        if not splits:
            return EagerTensor(flat)
        return self.value_class().from_nested_row_splits(EagerTensor(flat), [EagerTensor(s) for s in splits],
                                                         validate=False)

    def check(self, comps):
        flat, *splits = (np.asarray(c) for c in comps)
        if splits and flat.ndim < 1:
            return f"flat values of shape {flat.shape}"
        for level, sp in enumerate(splits):
            inner = len(splits[level + 1]) - 1 if level + 1 < len(splits) else len(flat)
            if sp.ndim != 1 or len(sp) < 1 or sp[0] != 0 or (np.diff(sp) < 0).any() or sp[-1] != inner:
                return (f"row splits {sp.tolist()[:20]} at level {level} (they must start at 0, never decrease "
                        f"and end at {inner})")
        return None

    def batched_spec(self, spec, size):
        return type(spec)(TensorShape([size]).concatenate(spec.shape), spec.dtype, spec.ragged_rank + 1)

    def unbatched_spec(self, spec):
        if spec.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        inner = spec.shape[1:] if spec.shape.rank is not None else TensorShape(None)
        return type(spec)(inner, spec.dtype, max(spec.ragged_rank - 1, 0))

    def stack(self, parts):
        """Elements (of one ragged_rank) -> one RaggedTensor with a ragged dimension more: each element a row."""
        ranks = {len(p.comps) for p in parts}
        if len(ranks) > 1:
            raise ValueError("Cannot batch RaggedTensors of different ragged ranks")
        rank = ranks.pop() - 1
        nrows = [len(p.comps[1]) - 1 if rank else len(p.comps[0]) for p in parts]
        splits = [np.concatenate([[0], np.cumsum(nrows)]).astype(np.int64)]
        for level in range(1, rank + 1):  # each level's splits, shifted by the values before them
            pieces, offset = [np.zeros(1, np.int64)], 0
            for p in parts:
                s = np.asarray(p.comps[level], np.int64)
                pieces.append(s[1:] + offset)
                offset += int(s[-1]) if len(s) else 0
            splits.append(np.concatenate(pieces))
        flat = np.concatenate([np.asarray(p.comps[0]) for p in parts])
        return CompositeValue(self, [flat] + splits)

    def split(self, cv):
        """One batch -> its rows (each with a ragged dimension fewer; plain values for ragged_rank 1)."""
        flat, *splits = cv.comps
        if not splits:
            return [CompositeValue(self, [flat[i]]) for i in range(len(flat))]
        out = []
        outer = splits[0]
        for i in range(len(outer) - 1):
            lo, hi = int(outer[i]), int(outer[i + 1])
            row = []
            for s in splits[1:]:  # the row's own splits at each deeper level, starting from 0
                s = np.asarray(s)
                row.append(s[lo:hi + 1] - s[lo])
                lo, hi = int(s[lo]), int(s[hi])
            out.append(CompositeValue(self, [flat[lo:hi]] + row))
        return out

