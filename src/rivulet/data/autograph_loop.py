"""AutoGraph's `for x in dataset` (or an iterator of one) inside a graph: data/ registers the lowering into
autograph/operators/control_flow.py when it loads (AutoGraph knows no datasets)."""
import numpy as np

from .. import nest
from ..autograph.operators import control_flow as _cf
from ..autograph.operators.logical import and_
from ..core.tensor import Tensor, convert_to_tensor
from ..shape import TensorShape
from ..ops import math_ops
from . import graph_ops


def _is_dataset_or_iterator(iter_):
    """A dataset, or an iterator of one that graph_ops.iterator_tensor can read (iter(dataset), eagerly or
    inside the function); other iterators with an element_spec (a distributed dataset's) lower themselves."""
    return hasattr(iter_, "_make_iter") or isinstance(iter_, graph_ops.GraphIterator) or (
        hasattr(iter_, "_res") and hasattr(iter_, "element_spec") and hasattr(iter_, "__next__"))


def dataset_for_loop(ds, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over a tf.data.Dataset (or an iterator of one) inside a graph: a While that pulls each element
    from an iterator made when the function runs, or from the given one (data/graph_ops.py); the hidden loop
    variable counts iterations.

    As TensorFlow's (which runs the loop as Dataset.reduce), a loop variable whose shape the body changes is
    relaxed to the most specific shape covering both (`() -> <unknown>`), and the body traced again."""
    it = graph_ops.iterator_tensor(ds)
    init = tuple(get_state())
    after = []

    def test(i):
        more = graph_ops.has_next(it)
        if extra_test is None:
            return more
        return and_(lambda: extra_test(), lambda: more)

    def step(i):
        body(graph_ops.get_next(it, ds.element_spec))
        after[:] = [tuple(get_state())]
        return math_ops.add(i, 1)

    invariants = list(opts.get("shape_invariants", ()))
    while True:
        try:
            _cf.graph_loop(test, step, get_state, set_state, symbol_names, dict(opts, shape_invariants=invariants),
                           index=convert_to_tensor(0))
            return
        except ValueError:
            relaxed = _relaxed(init, after[0] if after else None, invariants)
            if not relaxed:
                raise
            invariants = invariants + relaxed
            after.clear()
            set_state(init)


def _relaxed(init, after, invariants):
    """[(initial leaf, relaxed shape)] for the loop variables whose shape after one iteration is not that
    before it (nothing if none, or if they do not keep their structure)."""
    if after is None:
        return []
    try:
        before_leaves = [x for v in init for x in nest.flatten(v)]
        after_leaves = [x for v in after for x in nest.flatten(v)]
    except (TypeError, ValueError):
        return []
    if len(before_leaves) != len(after_leaves):
        return []
    known = {id(o): TensorShape(s) for o, s in invariants}
    out = []
    for b, a in zip(before_leaves, after_leaves):
        if not isinstance(a, Tensor) or hasattr(b, "_with_flow"):
            continue
        try:
            shape = known.get(id(b), TensorShape(b.shape if isinstance(b, Tensor) else np.shape(b)))
        except (TypeError, ValueError):
            continue
        if not a.shape.is_subtype_of(shape):
            out.append((b, shape.most_specific_compatible_shape(a.shape)))
    return out


_cf.register_for_loop(_is_dataset_or_iterator, dataset_for_loop)
