"""if_stmt / while_stmt / for_stmt: run Python when the condition (or iterable) is a Python value or an eager
tensor; stage an If / While op when it is a graph tensor.

The statement's variables move through get_state()/set_state(). Staging runs each branch (or the loop body)
once from the same starting state, traced into its own graph, and checks what TensorFlow checks: a variable
must be defined on every path, and keep its nested structure and dtype (and, in loops, shape).
"""
from ... import nest
from ...core import context
from ...core.tensor import EagerTensor, SymbolicTensor, Tensor, convert_to_tensor
from ...function import control_flow as cf
from ...shape import TensorShape
from .variables import Undefined, UndefinedReturnValue

_BRANCH = ("main", "else")


# ----------------------------------------------------------------------------- if

def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    if isinstance(cond, SymbolicTensor):
        return _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    if cond:
        body()
    else:
        orelse()


def _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    init = get_state()

    def branch(fn):
        def run():
            set_state(init)
            fn()
            return tuple(get_state())
        return run

    def verify(results):
        _verify_branches(results, symbol_names)

    if cond.dtype.name != "bool":
        from ...ops.math_ops import cast
        cond = cast(cond, "bool")
    out = cf.build_branches(cond, [branch(body), branch(orelse)], name="cond", verify=verify)
    set_state(out)


def _verify_branches(results, names):
    main, other = results
    for name, a, b in zip(names, main, other):
        if isinstance(a, UndefinedReturnValue) != isinstance(b, UndefinedReturnValue):
            missing = "else" if isinstance(b, UndefinedReturnValue) else "main"
            raise ValueError(f"the {missing} branch must also have a return statement.")
        if isinstance(a, Undefined) != isinstance(b, Undefined):
            missing = "else" if isinstance(b, Undefined) else "main"
            raise ValueError(f"'{name}' must also be initialized in the {missing} branch")
        try:
            nest.assert_same_structure(a, b)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' must have the same nested structure in the main and else branches:\n\n{e}") \
                from None
        for x, y in zip(nest.flatten(a), nest.flatten(b)):
            dx, dy = _dtype(x), _dtype(y)
            if dx is not None and dy is not None and dx is not dy:
                raise TypeError(f"'{name}' has dtype {dx.name} in the main branch, but dtype {dy.name} in the else "
                                f"branch")


def _dtype(x):
    """The dtype x has as a tensor, or None for values that stay Python objects."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, (bool, int, float, complex)) or hasattr(x, "dtype") and not hasattr(x, "_with_flow"):
        try:
            with context.init_scope():
                return convert_to_tensor(x).dtype
        except (TypeError, ValueError):
            return None
    return None


# ----------------------------------------------------------------------------- while / for

def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    cond = test()
    if isinstance(cond, SymbolicTensor):
        return graph_loop(lambda: test(), lambda: body(), get_state, set_state, symbol_names, opts)
    while cond:
        body()
        cond = test()


# Iterables with a graph loop of their own, registered by their packages (tf.data: data/autograph_loop.py):
# [(matches(iter_), lowering(iter_, extra_test, body, get_state, set_state, symbol_names, opts))].
_FOR_LOWERINGS = []


def register_for_loop(matches, lowering):
    _FOR_LOWERINGS.append((matches, lowering))


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    if _FOR_LOWERINGS and context.current_graph() is not None:
        for matches, lowering in _FOR_LOWERINGS:
            if matches(iter_):
                return lowering(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    if isinstance(iter_, SymbolicTensor):
        return _tf_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    if isinstance(iter_, EagerTensor) and iter_.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    for target in iter_:
        if extra_test is not None and not extra_test():
            break
        body(target)


def _tf_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """A loop over a graph tensor's first dimension: a While whose first loop variable is the index."""
    from ...ops import array_ops, math_ops
    if iter_.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    n = iter_.shape[0] if iter_.shape.rank is not None and iter_.shape[0] is not None else \
        array_ops.shape(iter_)[0]
    range_args = _range_inputs(iter_)

    def item(i):
        if range_args is not None:  # tf.range: compute the element instead of gathering it
            start, _, delta = range_args
            return math_ops.add(start, math_ops.multiply(math_ops.cast(i, start.dtype), delta))
        return array_ops.gather(iter_, i)

    def test(i):
        more = math_ops.less(i, n)
        if extra_test is None:
            return more
        from .logical import and_
        return and_(lambda: more, extra_test)

    def step(i):
        body(item(i))
        return math_ops.add(i, 1)

    graph_loop(test, step, get_state, set_state, symbol_names, opts, index=convert_to_tensor(0))


def _range_inputs(t):
    op = getattr(t, "op", None)
    if op is not None and op.type == "Range":
        return op.inputs
    return None


def _undefined(v):
    return v is None or isinstance(v, (Undefined, UndefinedReturnValue))


def graph_loop(test, body, get_state, set_state, names, opts, index=None):
    """Stages a While over the statement's variables; `index`, when given, is a hidden first loop variable
    passed to test(index) and body(index) (which returns its next value)."""
    init = list(get_state())
    names = list(names)
    undefined = [i for i, v in enumerate(init) if _undefined(v)]
    if any(isinstance(init[i], UndefinedReturnValue) for i in undefined):
        raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may "
                                  "happen if a return statement depends on a static Python condition such as a "
                                  "hyperparameter")
    known_shapes = {}
    if undefined:
        init = _first_iteration_values(init, undefined, names, test, body, get_state, set_state, index,
                                       known_shapes)
    originals = init
    init = [nest.map_structure(lambda x, n=n: _loop_value(x, n), v) for n, v in zip(names, init)]
    sizes = [len(_leaves(v)) for v in init]
    n_extra = 0 if index is None else 1
    flat = ([index] if n_extra else []) + [x for v in init for x in _leaves(v)]
    leaf_names = ["<index>"] * n_extra + [n for n, k in zip(names, sizes) for _ in range(k)]
    invariants = {id(v): TensorShape(s) for v, s in opts.get("shape_invariants", ())}
    shapes = [TensorShape([]) if _is_composite(x) else
              known_shapes.get(id(x), invariants.get(id(o), x.shape))
              for x, o in zip(flat, ([index] if n_extra else []) + [y for v in originals for y in _leaves(v)])]

    def unpack(args):
        vals, k = [], n_extra
        for v, m in zip(init, sizes):
            vals.append(_pack_leaves(v, list(args[k:k + m])))
            k += m
        return args[:n_extra], vals

    def cond_fn(*args):
        extra, vals = unpack(args)
        set_state(vals)
        return test(*extra)

    def body_fn(*args):
        extra, vals = unpack(args)
        set_state(vals)
        nxt = body(*extra)
        out = list(get_state())
        for name, before, after in zip(names, init, out):
            if _undefined(after):
                raise ValueError(f"'{name}' must be defined before the loop.")
            try:
                nest.assert_same_structure(before, after)
            except (ValueError, TypeError) as e:
                raise TypeError(f"'{name}' does not keep its nested structure across iterations:\n\n{e}") from None
        leaves = [y for n, v in zip(names, out) for x in nest.flatten(v) for y in _leaves(_loop_value(x, n))]
        return ([nxt] if n_extra else []) + leaves

    max_iter = opts.get("maximum_iterations")
    if max_iter is not None:
        from ...ops import math_ops
        limit = convert_to_tensor(max_iter)
        count = convert_to_tensor(0, dtype=limit.dtype)
        c0, b0 = cond_fn, body_fn
        cond_fn = (lambda k, *a: math_ops.logical_and(math_ops.less(k, limit), c0(*a)))
        body_fn = (lambda k, *a: [math_ops.add(k, 1)] + b0(*a))
        flat, shapes, leaf_names = [count] + flat, [TensorShape([])] + shapes, ["<count>"] + leaf_names
    out = cf.build_while(cond_fn, body_fn, flat, list(flat), shapes, names=leaf_names,
                         must_iterate=[names[i] for i in undefined])
    if max_iter is not None:
        out = out[1:]
    set_state(unpack(out)[1])


def _is_composite(x):
    return hasattr(x, "_with_flow")


def _leaves(v):
    """A loop variable's leaves: composite tensors (tf.experimental.ExtensionType) as their component tensors."""
    flat = nest.flatten(v)
    if not any(cf._expandable(x) for x in flat):
        return flat
    return [y for x in flat for y in (x._to_components() if cf._expandable(x) else [x])]


def _pack_leaves(v, args):
    flat = nest.flatten(v)
    if not any(cf._expandable(x) for x in flat):
        return nest.pack_sequence_as(v, args) if nest.is_nested(v) else args[0]
    it = iter(args)
    out = []
    for x in flat:
        if cf._expandable(x):
            n = len(x._to_components())
            out.append(type(x).__tf_tracing_type__(x, None)._from_components([next(it) for _ in range(n)]))
        else:
            out.append(next(it))
    return nest.pack_sequence_as(v, out) if nest.is_nested(v) else out[0]


def _loop_value(x, name):
    """A loop variable's leaf as a tensor (Python numbers convert; composites stay as they are)."""
    if isinstance(x, Tensor) or _is_composite(x) or cf._expandable(x):
        return x
    try:
        return convert_to_tensor(x)
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' is a loop variable of a loop over tensors, so it must be a tensor or a value "
                        f"convertible to one, got {type(x).__name__}: {x!r}") from None


def _first_iteration_values(init, undefined, names, test, body, get_state, set_state, index, known_shapes):
    """Variables first defined inside the loop: trace the body once in a scratch graph to learn their
    dtype and shape, and start them from zeros of that type (the While then insists on one iteration)."""
    from ...function.tracing import FuncGraph
    from ...ops.array_ops import zeros
    g = FuncGraph("loop_probe", outer_graph=context.current_graph())
    with cf.isolated_tapes(), g.as_default():
        set_state(init)
        body(*([] if index is None else [index]))
        after = list(get_state())
    set_state(init)
    out = list(init)
    for i in undefined:
        v = after[i]
        if _undefined(v):
            raise ValueError(f"'{names[i]}' must be defined before the loop.")
        with g.as_default():
            v = nest.map_structure(lambda x: _loop_value(x, names[i]), v)

        def start(x):
            if _is_composite(x):
                raise ValueError(f"'{names[i]}' must be defined before the loop.")
            z = zeros([d or 0 for d in x.shape.as_list()] if x.shape.rank is not None else [], x.dtype)
            known_shapes[id(z)] = x.shape
            return z
        out[i] = nest.map_structure(start, v)
    return out
