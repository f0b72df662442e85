"""Small top-level helpers TensorFlow has: tf.inside_function, tf.is_symbolic_tensor, tf.get_current_name_scope,
tf.guarantee_const, tf.grad_pass_through, tf.recompute_grad and tf.hessians."""
import functools

from ..core import context
from ..core.tensor import SymbolicTensor, convert_to_tensor
from ..ops import array_ops as _a
from ..state import naming
from .backprop import gradients
from .custom_gradient import custom_gradient


def inside_function():
    """Whether code runs while a graph (a tf.function) is being built."""
    return context.current_graph() is not None


def is_symbolic_tensor(tensor):
    """Whether `tensor` is a graph tensor (not an eager value)."""
    return isinstance(tensor, SymbolicTensor)


def get_current_name_scope():
    """The current name scope ('outer/inner', '' at the top), of the graph being built or the eager one."""
    g = context.current_graph()
    scope = getattr(g, "_scope", "") if g is not None else naming.eager_prefix()
    return scope[:-1] if scope.endswith("/") else scope


def guarantee_const(input, name=None):  # noqa: A002
    """Deprecated in TensorFlow: the input (a promise that it is constant)."""
    return _a.identity(convert_to_tensor(input), name=name)


def grad_pass_through(f):
    """f in the forward pass, the identity in the backward one (the gradient skips f)."""
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        @custom_gradient
        def _f(*xs):
            y = f(*xs, **kwargs)

            def grad(*dys, **unused):
                return dys[0] if len(xs) == 1 else [dys[0]] * len(xs)
            return y, grad
        return _f(*args)
    return wrapped


def recompute_grad(f):
    """f, whose gradient TensorFlow computes by running f again in the backward pass (values as without it)."""
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapped


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of sum(ys) for each of xs (shape x.shape + x.shape), in a graph (tf.gradients's rule)."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    grads = gradients(ys, xs)
    out = []
    for x, g in zip(xs, grads):
        shape = x.shape
        if not shape.is_fully_defined():
            raise ValueError(f"rivulet's tf.hessians needs x's shape known when traced, got {shape}")
        flat = _a.reshape(g, [-1])
        n = int(shape.num_elements())
        rows = [gradients(flat[i], x)[0] for i in range(n)]
        rows = [_a.zeros_like(x) if r is None else r for r in rows]
        out.append(_a.reshape(_a.stack(rows), shape.as_list() + shape.as_list()))
    return out



# ---------------------------------------------------------------- convolution backprops as public functions
def _vjp(fn, wrt, other, dy):
    """The gradient of sum(fn(...) * dy) with respect to `wrt` (a GradientTape over one call)."""
    from .tape import GradientTape
    from ..ops import math_ops as _m
    with GradientTape() as tape:
        tape.watch(wrt)
        y = fn(wrt, other)
        loss = _m.reduce_sum(_m.multiply(y, dy))
    return tape.gradient(loss, wrt)


def _zeros_of(sizes, dtype):
    return _a.zeros(convert_to_tensor(sizes), dtype=dtype)


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                    data_format="NHWC", dilations=None, name=None):
    """The gradient of depthwise_conv2d with respect to its input (of shape input_sizes)."""
    from ..ops.conv_ops import depthwise_conv2d
    w, dy = convert_to_tensor(filter), convert_to_tensor(out_backprop)
    return _vjp(lambda x, f: depthwise_conv2d(x, f, [1] + list(_pair4(strides))[1:3] + [1], padding, data_format,
                                              dilations), _zeros_of(input_sizes, dy.dtype), w, dy)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                     data_format="NHWC", dilations=None, name=None):
    """The gradient of depthwise_conv2d with respect to its filter (of shape filter_sizes)."""
    from ..ops.conv_ops import depthwise_conv2d
    x, dy = convert_to_tensor(input), convert_to_tensor(out_backprop)
    return _vjp(lambda f, v: depthwise_conv2d(v, f, [1] + list(_pair4(strides))[1:3] + [1], padding, data_format,
                                              dilations), _zeros_of(filter_sizes, dy.dtype), x, dy)


def _pair4(strides):
    import numpy as np
    s = [int(v) for v in np.ravel(strides)]
    if len(s) == 1:
        return (1, s[0], s[0], 1)
    if len(s) == 2:
        return (1, s[0], s[1], 1)
    return tuple(s)


class AggregationMethod:
    """tf.AggregationMethod: how gradients of one tensor are summed (all add them up here)."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) making input_shape + base_paddings divisible by block_shape, as space_to_batch_nd needs."""
    import numpy as np
    shape = np.asarray(input_shape if not hasattr(input_shape, "numpy") else input_shape.numpy()).reshape(-1)
    block = np.asarray(block_shape if not hasattr(block_shape, "numpy") else block_shape.numpy()).reshape(-1)
    base = np.zeros((len(block), 2), np.int64) if base_paddings is None else np.asarray(
        base_paddings if not hasattr(base_paddings, "numpy") else base_paddings.numpy()).reshape(-1, 2)
    start, end = base[:, 0], base[:, 1]
    full = shape + start + end
    pad_end_extra = (block - full % block) % block
    pads = np.stack([start, end + pad_end_extra], 1).astype(np.int32)
    crops = np.stack([np.zeros_like(pad_end_extra), pad_end_extra], 1).astype(np.int32)
    return convert_to_tensor(pads), convert_to_tensor(crops)
