"""AutoGraph's `for x in dataset` (or an iterator of one) inside a graph: data/ registers the lowering into
autograph/operators/control_flow.py when it loads (AutoGraph knows no datasets)."""
from ..autograph.operators import control_flow as _cf
from ..autograph.operators.logical import and_
from ..core.tensor import convert_to_tensor
from ..ops import math_ops
from . import graph_ops


def _is_dataset_or_iterator(iter_):
    return hasattr(iter_, "_make_iter") or hasattr(iter_, "element_spec") and hasattr(iter_, "__next__")


def dataset_for_loop(ds, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over a tf.data.Dataset (or an iterator of one) inside a graph: a While that pulls each element
    from an iterator made when the function runs, or from the given one (data/graph_ops.py); the hidden loop
    variable counts iterations."""
    it = graph_ops.iterator_tensor(ds)

    def test(i):
        more = graph_ops.has_next(it)
        if extra_test is None:
            return more
        return and_(lambda: extra_test(), lambda: more)

    def step(i):
        body(graph_ops.get_next(it, ds.element_spec))
        return math_ops.add(i, 1)

    _cf.graph_loop(test, step, get_state, set_state, symbol_names, opts, index=convert_to_tensor(0))


_cf.register_for_loop(_is_dataset_or_iterator, dataset_for_loop)
