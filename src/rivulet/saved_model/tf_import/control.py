"""Converters for calls, control flow, resource variables and TensorLists.

Calls are inlined. If/Case/While become rivulet's cond/switch_case/while_loop, whose branch and body
callables replay the named library functions. A DT_RESOURCE value is the restored rivulet Variable itself:
it is passed to branches and bodies unchanged (TensorFlow's loops only ever pass handles through), and
ReadVariableOp/AssignVariableOp become reads and assigns of that variable. TensorList* ops are the ops
rivulet's graph-mode TensorArray is built from (a variant flow tensor).
"""
import rivulet as tf

from ... import dtypes as _dt
from ...core.dispatch import bind
from ...ops import tensor_array_ops as ta
from ...ops.array_ops import partial_value
from ...shape import TensorShape
from ..format import Invalid
from .convert import _dtype, converter


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


@converter("If", "StatelessIf")
def _if(ctx, inputs, attrs):
    then_f, else_f = _func(attrs, "then_branch"), _func(attrs, "else_branch")
    args = list(inputs[1:])
    return _outputs(tf.cond(_pred(inputs[0]), lambda: ctx.call(then_f, args), lambda: ctx.call(else_f, args)))


@converter("Case", "StatelessCase")
def _case(ctx, inputs, attrs):
    from .functions import FuncRef
    branches = attrs.get("branches")
    if not isinstance(branches, tuple) or not branches or not all(isinstance(f, FuncRef) for f in branches):
        raise Invalid("a Case without branch functions")
    args = list(inputs[1:])
    fns = [lambda f=f: ctx.call(f, args) for f in branches]
    return _outputs(tf.switch_case(inputs[0], fns))


# ---------------------------------------------------------------------- loops
@converter("While", "StatelessWhile")
def _while(ctx, inputs, attrs):
    """Only tensors are rivulet loop variables; resource handles ride along unchanged."""
    cond_f, body_f = _func(attrs, "cond"), _func(attrs, "body")
    fixed = list(inputs)
    idx = [i for i, v in enumerate(inputs) if isinstance(v, tf.Tensor)]
    if not idx:
        raise Invalid("a While loop without tensor loop variables")

    def full(values):
        out = list(fixed)
        for i, v in zip(idx, values):
            out[i] = v
        return out

    def cond(*values):
        return _pred(ctx.call(cond_f, full(values))[0])

    def body(*values):
        out = ctx.call(body_f, full(values))
        if len(out) != len(fixed):
            raise Invalid(f"the body of a While loop returns {len(out)} values for {len(fixed)} loop variables")
        return [out[i] for i in idx]

    shapes = attrs.get("output_shapes") or ()
    invariants = None
    if len(shapes) == len(inputs) and all(isinstance(s, TensorShape) for s in shapes):
        invariants = [shapes[i] if inputs[i].shape.is_subtype_of(shapes[i]) else TensorShape(None) for i in idx]
    iterations = attrs.get("parallel_iterations", 10)
    iterations = iterations if isinstance(iterations, int) and not isinstance(iterations, bool) and \
        iterations > 0 else 10
    out = tf.while_loop(cond, body, [inputs[i] for i in idx], shape_invariants=invariants,
                        parallel_iterations=iterations)
    return full(_outputs(out))


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


def _list_attrs(attrs, shape_input):
    return {"element_dtype": _dtype(attrs, "element_dtype"), "element_shape": _element_shape(shape_input)}


@converter("TensorListReserve")
def _reserve(ctx, inputs, attrs):
    return bind(ta.RESERVE, [tf.cast(inputs[1], _dt.int32)], _list_attrs(attrs, inputs[0]))


@converter("TensorListFromTensor")
def _from_tensor(ctx, inputs, attrs):
    return bind(ta.FROM_TENSOR, [inputs[0]])


@converter("TensorListStack")
def _stack(ctx, inputs, attrs):
    return bind(ta.STACK, [inputs[0]], _list_attrs(attrs, inputs[1]))


@converter("TensorListGetItem")
def _get_item(ctx, inputs, attrs):
    return bind(ta.GET_ITEM, [inputs[0], inputs[1]], _list_attrs(attrs, inputs[2]))


@converter("TensorListSetItem")
def _set_item(ctx, inputs, attrs):
    return bind(ta.SET_ITEM, [inputs[0], inputs[1], inputs[2]],
                {"resize": bool(attrs.get("resize_if_index_out_of_bounds", False))})


@converter("TensorListLength")
def _length(ctx, inputs, attrs):
    return bind(ta.LENGTH, [inputs[0]])


@converter("TensorListGather")
def _gather(ctx, inputs, attrs):
    return bind(ta.GATHER, [inputs[0], inputs[1]], _list_attrs(attrs, inputs[2]))


@converter("Assert")
def _assert(ctx, inputs, attrs):
    tf.debugging.Assert(inputs[0], list(inputs[1:]), summarize=attrs.get("summarize", 3))
    return []

