"""Dataset.rejection_resample: elements paired with their class, resampled towards a target class
distribution by TensorFlow's rule.

With the initial distribution p (given, or estimated from the classes seen so far) and the target t:
ratio = t / p, m = min(ratio) is the probability of taking the next element of the input as it is, and
otherwise an element of class c is accepted with probability (ratio[c] - m) / (max(ratio) - m) from a
second pass over the input. As in TensorFlow, the two passes are separate iterations of the input, and the
result ends when either does; m = 1 gives the input unchanged, m = 0 the filtered pass alone.
"""
import numpy as np

from ..errors import InvalidArgumentError
from ..shape import TensorSpec
from .dataset import DatasetV2, UNKNOWN
from .functions import StructuredFunction
from .sources import Randomized, _rng


def _dist(v, what):
    a = np.asarray(getattr(v, "_v", v), dtype=np.float32)
    if a.ndim != 1:
        raise ValueError(f"`{what}` must be a 1-D list of class probabilities, got shape {a.shape}.")
    if np.any(a < 0):
        raise InvalidArgumentError(f"`{what}` must be nonnegative, got {a.tolist()}.")
    return a


def _acceptance(initial, target):
    ratio = target / (initial + np.finfo(np.float32).tiny)
    hi, lo = ratio.max(), ratio.min()
    with np.errstate(divide="ignore", invalid="ignore"):
        accept = (ratio - lo) / (hi - lo)
    return accept, float(lo)


class RejectionResampleDataset(DatasetV2, Randomized):
    _tf_name = "_DirectedInterleaveDataset"

    def __init__(self, input_dataset, class_func, target_dist, initial_dist, seed):
        spec = input_dataset.element_spec
        self._class_fn = StructuredFunction(class_func, (spec,), "class_func")
        cs = self._class_fn.output_spec
        if isinstance(cs, TensorSpec) and cs.dtype.name not in ("uint8", "int8", "int32", "int64"):
            raise TypeError(f"Value passed to parameter 'indices' has DataType {cs.dtype.name} not in list of "
                            f"allowed values: uint8, int8, int32, int64")  # TensorFlow's, from its gather
        if not isinstance(cs, TensorSpec) or cs.shape.rank not in (0, None):
            raise ValueError(f"Invalid `class_func`: it must return a scalar integer tensor, but its return type is "
                             f"{cs}.")
        self._target = _dist(target_dist, "target_dist")
        self._initial = None if initial_dist is None else _dist(initial_dist, "initial_dist")
        if self._initial is not None and self._initial.shape != self._target.shape:
            raise ValueError(f"`initial_dist` and `target_dist` must have the same number of classes, got "
                             f"{self._initial.shape[0]} and {self._target.shape[0]}.")
        self._input = input_dataset
        self._init_random(seed)
        elem = spec[0] if type(spec) is tuple and len(spec) == 1 else spec
        super().__init__((cs, elem), (input_dataset,))
        m = self._static_original()  # TensorFlow's result: the input mapped, the filtered pass (prefetched), or both
        self._tf_name = "_MapDataset" if m == 1 else "_PrefetchDataset" if m == 0 else "_DirectedInterleaveDataset"

    def _static_original(self):
        if self._initial is None:
            return None
        return _acceptance(self._initial, self._target)[1]

    def _card(self):
        return self._input._card() if self._static_original() == 1 else UNKNOWN

    def _classes(self, it):
        fn, n = self._class_fn, len(self._target)
        for e in it:
            c = int(fn(e)[0])
            if not 0 <= c < n:
                raise InvalidArgumentError(f"class_func returned class {c}, outside [0, {n}) of target_dist.")
            yield c, e

    def _make_iter(self):
        rng = _rng(self._seeds, self._next_epoch() + 1)
        m = self._static_original()
        original = self._classes(self._input._make_iter())
        if m == 1:
            for c, e in original:
                yield self._out(c, e)
            return
        filtered = self._classes(self._input._make_iter())
        counts = np.zeros(len(self._target), np.int64)

        def dist():
            if self._initial is not None:
                return self._initial
            return (counts / max(1, counts.sum())).astype(np.float32)
        while True:
            if m is None or 0 < m < 1:
                accept, p_orig = _acceptance(dist(), self._target)
                if rng.random() < p_orig:
                    nxt = next(original, None)
                    if nxt is None:
                        return
                    counts[nxt[0]] += 1
                    yield self._out(*nxt)
                    continue
            for c, e in filtered:
                counts[c] += 1
                accept, _ = _acceptance(dist(), self._target)
                if rng.random() < accept[c]:
                    yield self._out(c, e)
                    break
            else:
                return

    def _out(self, c, e):
        return (np.asarray(c).astype(self._class_fn.output_spec.dtype._np)[()],) + tuple(e)


def rejection_resample(dataset, class_func, target_dist, initial_dist, seed):
    return RejectionResampleDataset(dataset, class_func, target_dist, initial_dist, seed)
