"""Converters for calls, control flow, resource variables and TensorLists.

Calls are inlined. If/Case/While become the If/Case/While ops rivulet's cond, switch_case and while_loop
stage, built here around the library's shared sub-graphs (functions.Library.shared): the tensors a branch
or loop takes are its parameters, so one converted function serves every op that runs it. A DT_RESOURCE
value is the restored rivulet Variable itself: it is passed to branches and bodies unchanged (TensorFlow's
loops only ever pass handles through), and ReadVariableOp/AssignVariableOp become reads and assigns of that
variable. TensorList* ops are the ops rivulet's graph-mode TensorArray is built from (a variant flow tensor).
"""
from ... import dtypes as _dt
from ...core.dispatch import bind
from ...function import control_flow as cf
from ...ops import tensor_array_ops as ta
from ...ops.array_ops import partial_value
from ...shape import TensorShape, TensorSpec
from ..format import Invalid
from .convert import _dtype, converter
from .proto import InvalidGraph
from . import ops_api as tf  # the ops TF's graph is rebuilt with


def _func(attrs, key):
    from .functions import FuncRef
    f = attrs.get(key)
    if not isinstance(f, FuncRef):
        raise Invalid(f"attr '{key}' should name a function")
    return f


def _outputs(out):
    if isinstance(out, (list, tuple)):
        return list(out)
    return [] if out is None else [out]


# ---------------------------------------------------------------------- calls
@converter("StatefulPartitionedCall", "PartitionedCall")
def _call(ctx, inputs, attrs):
    return ctx.call(_func(attrs, "f"), inputs)


# ---------------------------------------------------------------------- conditionals
def _pred(p):
    """TensorFlow's If takes any scalar: non-zero numbers and non-empty strings are true."""
    if not isinstance(p, tf.Tensor):
        raise Invalid("the condition of an If is not a tensor")
    if p.dtype == _dt.bool:
        return p
    if p.dtype == _dt.string:
        return tf.strings.length(p) > 0
    return tf.not_equal(p, tf.zeros_like(p))


def _declared(attrs, key, values, what):
    """Values agree with the list of dtypes in attr `key` (Tin, Tout, T), where the node gives one: TensorFlow
    refuses the node otherwise (InvalidArgumentError). A variable is DT_RESOURCE."""
    types = attrs.get(key)
    if types is None:
        return values
    got = [_dt.resource if getattr(v, "_is_resource", False) else getattr(v, "dtype", None) for v in values]
    if not isinstance(types, tuple) or list(types) != got:
        raise InvalidGraph(f"{what} are {[getattr(t, 'name', t) for t in got]} but attr '{key}' says "
                           f"{[getattr(t, 'name', t) for t in types] if isinstance(types, tuple) else types}")
    return values


@converter("If", "StatelessIf")
def _if(ctx, inputs, attrs):
    funcs = [_func(attrs, "then_branch"), _func(attrs, "else_branch")]
    args = _declared(attrs, "Tin", list(inputs[1:]), "the inputs of an If")
    return _declared(attrs, "Tout", _branches(ctx, _pred(inputs[0]), funcs, args, case=False), "the outputs of an If")


@converter("Case", "StatelessCase")
def _case(ctx, inputs, attrs):
    """Out of range, TensorFlow's Case runs its last branch, as rivulet's Case op does."""
    from .functions import FuncRef
    branches = attrs.get("branches")
    if not isinstance(branches, tuple) or not branches or not all(isinstance(f, FuncRef) for f in branches):
        raise Invalid("a Case without branch functions")
    index = inputs[0]
    if not isinstance(index, tf.Tensor) or index.dtype != _dt.int32:
        raise Invalid("the branch index of a Case is not an int32 tensor")
    args = _declared(attrs, "Tin", list(inputs[1:]), "the inputs of a Case")
    return _declared(attrs, "Tout", _branches(ctx, index, list(branches), args, case=True), "the outputs of a Case")


def _branches(ctx, selector, funcs, args, case):
    """One If (or Case) op choosing among the shared sub-graphs of `funcs`, all applied to `args`."""
    shared = [ctx.shared(f, args) for f in funcs]
    pattern = shared[0].pattern
    for s in shared[1:]:  # what is not a tensor (a variable) must be the same object in every branch
        if len(s.pattern) != len(pattern) or any((a is None) != (b is None) or a is not b
                                                 for a, b in zip(s.pattern, pattern)):
            raise Invalid("the branches return different kinds of values")
    subs = [s.sub for s in shared]
    specs = []
    for ts in zip(*(sub.outputs for sub in subs)):
        if len({t.dtype for t in ts}) > 1:
            raise Invalid(f"the branches return {' and '.join(sorted({t.dtype.name for t in ts}))} for one output")
        shape = ts[0].shape
        for t in ts[1:]:
            shape = shape.most_specific_compatible_shape(t.shape)
        specs.append((shape, ts[0].dtype))
    tensors = [a for a in args if isinstance(a, tf.Tensor)]
    outer, captures = cf._feeds(subs, 1 + len(tensors))  # op inputs: selector, parameters, captures
    params = tuple(range(1, 1 + len(tensors)))
    stateful = any(sub.stateful for sub in subs)
    op = (cf.CASE if stateful else cf.STATELESS_CASE) if case else (cf.IF if stateful else cf.STATELESS_IF)
    res = iter(bind(op, [selector] + tensors + outer,
                    {"branches": cf.Branches(subs, [params + c for c in captures], tuple(specs))},
                    name="case" if case else "cond"))
    return [next(res) if p is None else p for p in pattern]


# ---------------------------------------------------------------------- loops
def _truth(outputs):
    """A loop condition's result as the scalar bool rivulet's While takes."""
    if not outputs:
        raise Invalid("the condition of a While loop returns nothing")
    return [_pred(outputs[0])]


@converter("While", "StatelessWhile")
def _while(ctx, inputs, attrs):
    """Only tensors are rivulet loop variables; resource handles ride along unchanged."""
    cond_f, body_f = _func(attrs, "cond"), _func(attrs, "body")
    _declared(attrs, "T", inputs, "the loop variables of a While")
    idx = [i for i, v in enumerate(inputs) if isinstance(v, tf.Tensor)]
    if not idx:
        raise Invalid("a While loop without tensor loop variables")
    shapes = attrs.get("output_shapes") or ()
    invariants = [inputs[i].shape for i in idx]  # TensorFlow's output_shapes may relax them
    if len(shapes) == len(inputs) and all(isinstance(s, TensorShape) for s in shapes):
        invariants = [shapes[i] if inputs[i].shape.is_subtype_of(shapes[i]) else TensorShape(None) for i in idx]
    specs = {i: TensorSpec(s, inputs[i].dtype) for i, s in zip(idx, invariants)}
    args = [specs.get(i, v) for i, v in enumerate(inputs)]
    cond, body = ctx.shared(cond_f, args, _truth), ctx.shared(body_f, args)
    if len(body.pattern) != len(inputs) or any((p is None) != (i in specs) or p is not None and p is not inputs[i]
                                               for i, p in enumerate(body.pattern)):
        raise Invalid(f"the body of a While loop does not return its {len(inputs)} loop variables as they came")
    for i, t, shape in zip(idx, body.sub.outputs, invariants):
        cf._check_iteration(inputs[i], t, shape, None)
    outer, feeds = cf._feeds([cond.sub, body.sub], len(idx))
    stateful = cond.sub.stateful or body.sub.stateful
    loop = cf.LoopBody(cond.sub, body.sub, len(idx), feeds, tuple((s, inputs[i].dtype) for i, s in
                                                                  zip(idx, invariants)))
    res = bind(cf.WHILE if stateful else cf.STATELESS_WHILE, [inputs[i] for i in idx] + outer, {"body": loop},
               name="while")
    out = list(inputs)
    for i, v in zip(idx, res if isinstance(res, list) else [res]):
        out[i] = v
    return out


# ---------------------------------------------------------------------- variables
def _variable(v):
    if not getattr(v, "_is_resource", False):
        raise Invalid("a resource input is not a restored variable")
    return v


@converter("ReadVariableOp")
def _read(ctx, inputs, attrs):
    v = _variable(inputs[0])
    want = attrs.get("dtype")
    if want is not None and want != v.dtype:
        raise Invalid(f"reads variable '{v.name}' of dtype {v.dtype.name} as {getattr(want, 'name', want)}")
    return v.value()


@converter("AssignVariableOp")
def _assign(ctx, inputs, attrs):
    _variable(inputs[0]).assign(inputs[1], read_value=False)
    return []


@converter("AssignAddVariableOp")
def _assign_add(ctx, inputs, attrs):
    _variable(inputs[0]).assign_add(inputs[1], read_value=False)
    return []


@converter("AssignSubVariableOp")
def _assign_sub(ctx, inputs, attrs):
    _variable(inputs[0]).assign_sub(inputs[1], read_value=False)
    return []


@converter("ResourceGather")
def _resource_gather(ctx, inputs, attrs):
    bd = attrs.get("batch_dims", 0)
    return tf.gather(_variable(inputs[0]).value(), inputs[1], batch_dims=bd if isinstance(bd, int) else 0)


@converter("VarIsInitializedOp")
def _initialized(ctx, inputs, attrs):
    _variable(inputs[0])
    return tf.constant(True)


# ---------------------------------------------------------------------- TensorLists (TensorArray)
def _element_shape(t):
    """The element_shape input of a TensorList op (-1: unknown rank; -1 dims unknown) as a TensorShape."""
    p = partial_value(t)
    if isinstance(p, list):
        return TensorShape([None if d is None or d < 0 else d for d in p])
    return TensorShape(None)


def _list(t):
    """A TensorList input: a variant tensor (TensorFlow refuses any other dtype there)."""
    if not isinstance(t, tf.Tensor) or t.dtype != _dt.variant:
        raise InvalidGraph(f"a TensorList op is given {getattr(getattr(t, 'dtype', None), 'name', type(t).__name__)} "
                           f"where a TensorList (variant) goes")
    return t


def _list_attrs(attrs, shape_input):
    return {"element_dtype": _dtype(attrs, "element_dtype"), "element_shape": _element_shape(shape_input)}


@converter("TensorListReserve")
def _reserve(ctx, inputs, attrs):
    return bind(ta.RESERVE, [tf.cast(inputs[1], _dt.int32)], _list_attrs(attrs, inputs[0]))


def _element(t, attrs):
    """A tensor going into a TensorList: of the node's element_dtype, as TensorFlow's op requires."""
    want = _dtype(attrs, "element_dtype")
    if not isinstance(t, tf.Tensor) or t.dtype != want:
        raise InvalidGraph(f"a TensorList of {want.name} is given "
                           f"{getattr(getattr(t, 'dtype', None), 'name', type(t).__name__)}")
    return t


@converter("TensorListFromTensor")
def _from_tensor(ctx, inputs, attrs):
    return bind(ta.FROM_TENSOR, [_element(inputs[0], attrs)])


@converter("TensorListStack")
def _stack(ctx, inputs, attrs):
    return bind(ta.STACK, [_list(inputs[0])], _list_attrs(attrs, inputs[1]))


@converter("TensorListGetItem")
def _get_item(ctx, inputs, attrs):
    return bind(ta.GET_ITEM, [_list(inputs[0]), inputs[1]], _list_attrs(attrs, inputs[2]))


@converter("TensorListSetItem")
def _set_item(ctx, inputs, attrs):
    return bind(ta.SET_ITEM, [_list(inputs[0]), inputs[1], _element(inputs[2], attrs)],
                {"resize": bool(attrs.get("resize_if_index_out_of_bounds", False))})


@converter("TensorListLength")
def _length(ctx, inputs, attrs):
    return bind(ta.LENGTH, [_list(inputs[0])])


@converter("TensorListGather")
def _gather(ctx, inputs, attrs):
    return bind(ta.GATHER, [_list(inputs[0]), inputs[1]], _list_attrs(attrs, inputs[2]))


@converter("Assert")
def _assert(ctx, inputs, attrs):
    tf.debugging.Assert(inputs[0], list(inputs[1:]), summarize=attrs.get("summarize", 3))
    return []

