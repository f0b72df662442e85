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

