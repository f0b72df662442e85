"""Checks an Op's gradient function against central finite differences of its kernel.

    check_op_grad(OP, [x, y], attrs={"axis": (1,)})

Uses TensorFlow's convention: for L = Re(sum(conj(dy) * f(x))), the gradient of a real x is dL/dx and of a
complex x is dL/d(re x) + i dL/d(im x). Inputs are used as given (use float64/complex128 for tight
tolerances); integer inputs are not differentiated. The cotangent dy is random, with a fixed seed.
"""
import numpy as np

from rivulet.core.tensor import EagerTensor


class OpRecord:
    """Stands in for the Operation a tape records: the grad function reads .inputs, .outputs and .attrs."""

    def __init__(self, inputs, outputs, attrs):
        self.inputs, self.outputs, self.attrs = inputs, outputs, attrs

    def get_attr(self, name):
        return self.attrs[name]


def _outputs(OP, xs, attrs):
    out = OP.kernel(*xs, **attrs)
    n = OP.n_outputs(attrs)
    return [np.asarray(o) for o in (out if n != 1 else [out])]


def _random_like(rng, a):
    r = rng.standard_normal(a.shape)
    if a.dtype.kind == "c":
        r = r + 1j * rng.standard_normal(a.shape)
    return r.astype(a.dtype)


def analytic_grads(OP, inputs, attrs=None, out_index=0, dy=None, seed=0):
    """(dy, grads): the op's gradient function applied to a random cotangent of output `out_index`."""
    attrs = dict(attrs or {})
    xs = [np.asarray(x) for x in inputs]
    outs = _outputs(OP, xs, attrs)
    rng = np.random.default_rng(seed)
    if dy is None:
        dy = _random_like(rng, outs[out_index])
    dys = [EagerTensor(dy if i == out_index else np.zeros_like(o)) for i, o in enumerate(outs)]
    record = OpRecord([EagerTensor(x) for x in xs], [EagerTensor(o) for o in outs], attrs)
    grads = OP.grad(record, *dys)
    return dy, [None if g is None else np.asarray(g.numpy()) for g in grads]


def numeric_grad(OP, inputs, index, dy, attrs=None, out_index=0, eps=1e-6):
    """Central differences of L = Re(sum(conj(dy) * f)) with respect to input `index`."""
    attrs = dict(attrs or {})
    xs = [np.array(x, copy=True) for x in inputs]
    x = xs[index]
    complex_in = x.dtype.kind == "c"
    grad = np.zeros(x.shape, dtype=x.dtype)
    flat, gflat = x.reshape(-1), grad.reshape(-1)

    def loss():
        out = _outputs(OP, xs, attrs)[out_index]
        return float(np.real(np.sum(np.conj(dy) * out)))

    for i in range(flat.size):
        for step in ((1, 1j) if complex_in else (1,)):
            orig = flat[i]
            flat[i] = orig + eps * step
            up = loss()
            flat[i] = orig - eps * step
            down = loss()
            flat[i] = orig
            gflat[i] += (up - down) / (2 * eps) * (1 if step == 1 else 1j)
    return grad


def check_op_grad(OP, inputs, attrs=None, out_index=0, atol=1e-6, rtol=1e-5, eps=1e-6, seed=0):
    """Asserts that OP.grad matches finite differences for every floating-point input; returns the grads."""
    xs = [np.asarray(x) for x in inputs]
    dy, grads = analytic_grads(OP, xs, attrs, out_index, seed=seed)
    assert len(grads) == len(xs), f"{OP.name}: {len(grads)} gradients for {len(xs)} inputs"
    for i, (x, g) in enumerate(zip(xs, grads)):
        if x.dtype.kind not in "fc":
            continue
        expected = numeric_grad(OP, xs, i, dy, attrs, out_index, eps)
        if g is None:
            g = np.zeros_like(expected)
        assert g.shape == x.shape, f"{OP.name}: gradient {i} has shape {g.shape}, input has {x.shape}"
        np.testing.assert_allclose(g, expected, atol=atol, rtol=rtol, err_msg=f"{OP.name}: gradient of input {i}")
    return grads


def _tape():
    import rivulet as tf
    tape = getattr(tf, "GradientTape", None)
    if tape is None:  # before the top-level name exists
        from rivulet.autodiff.tape import GradientTape as tape
    return tape


def check_fn_grad(fn, inputs, atol=1e-6, rtol=1e-5, eps=1e-6, seed=0):
    """Like check_op_grad for a composite function of tensors, differentiated with tf.GradientTape."""
    xs = [np.asarray(x) for x in inputs]
    ts = [EagerTensor(x) for x in xs]
    with _tape()() as tape:
        for t in ts:
            tape.watch(t)
        y = fn(*ts)
    dy = _random_like(np.random.default_rng(seed), np.asarray(y.numpy()))
    grads = tape.gradient(y, ts, output_gradients=EagerTensor(dy))
    for i, (x, g) in enumerate(zip(xs, grads)):
        if x.dtype.kind not in "fc":
            continue
        expected = numeric_grad(_FnAsOp(fn), xs, i, dy, eps=eps)
        got = np.zeros_like(expected) if g is None else np.asarray(g.numpy())
        np.testing.assert_allclose(got, expected, atol=atol, rtol=rtol, err_msg=f"gradient of input {i}")


class _FnAsOp:
    """Lets numeric_grad evaluate a composite function as it does a kernel."""

    def __init__(self, fn):
        self.fn = fn

    def kernel(self, *xs):
        return self.fn(*[EagerTensor(x) for x in xs]).numpy()

    def n_outputs(self, attrs):
        return 1
