"""One-op time steps of Keras LSTM and GRU cells for training loops (keras/layers/recurrent.py uses them).

While a gradient tape records a traced recurrent layer (`fit`), a step of a default LSTMCell (tanh, sigmoid)
or GRUCell (reset_after=True, with bias) on its projected inputs is ONE op, `_LSTMStep` / `_GRUStep`, whose
NumPy kernel computes the cell in place on the recurrent product's buffer, and whose gradient is one
`_LSTMStepGrad` / `_GRUStepGrad` op plus the recurrent kernel's `h^T @ dz` (a MatMul with transpose_a, which
the While gradient stacks and multiplies once after the loop, function/control_flow.py). The loop body and
its compiled gradient are then a few lines each instead of some 15 and 35 ops per time step. The extra
outputs of the forward op are what its gradient reads (the gate activations), kept by the While's stash.

The gates' sigmoid is 0.5 * tanh(0.5 * x) + 0.5 (within 1.2e-7 of 1 / (1 + exp(-x)) in float32, half the
time on NumPy). Graphs without a tape (predict, export, the ONNX and TFLite converters) keep the
cells' ordinary ops. The ops live here, registered when rivulet loads, because a saved model of a trained
Keras model holds its train function's graphs.
"""
import numpy as np

from ..core.dispatch import bind
from ..core.op import defop
from .array_ops import zeros_like
from .math_ops import matmul, reduce_sum


def _check(name, *xs):
    """The rule's check of a step's operands: matrices of one floating dtype (a graph read from a file may
    hold anything)."""
    for x in xs:
        if x.shape.rank not in (None, 2):
            raise ValueError(f"{name} takes matrices, got an operand of shape {x.shape}")
        if x.dtype is not xs[0].dtype or not x.dtype.is_floating:
            raise TypeError(f"{name} takes float32 or float64 operands of one dtype, got {x.dtype.name} and "
                            f"{xs[0].dtype.name}")


def _sigmoid_(x):
    """x <- sigmoid(x), in place."""
    x *= 0.5
    np.tanh(x, out=x)
    x *= 0.5
    x += 0.5
    return x


# ------------------------------------------------------------------------------------------------ LSTM
def _lstm_kernel(xp, h, c, w):
    """(h', c', the gates' sigmoids [i, f, -, o] as [batch, 4*units], the cell input g, tanh(c')) of one LSTM
    step on projected inputs xp."""
    u = c.shape[-1]
    s = np.dot(h, w)
    s += xp
    g = np.tanh(s[:, 2 * u:3 * u])
    _sigmoid_(s)  # (the g block's sigmoid is not used)
    c2 = s[:, u:2 * u] * c
    ig = s[:, :u] * g
    c2 += ig
    tc = np.tanh(c2)
    h2 = s[:, 3 * u:] * tc
    return h2, c2, s, g, tc


def _lstm_infer(xp, h, c, w):
    _check("_LSTMStep", xp, h, c, w)
    return [(h.shape, h.dtype), (c.shape, c.dtype), (xp.shape, xp.dtype), (c.shape, c.dtype), (c.shape, c.dtype)]


def _lstm_grad_kernel(dh, dc, s, g, tc, c, w):
    """(d xp, d h, d c) of one LSTM step given the gradients of h' and c'."""
    u = c.shape[-1]
    i, f, o = s[:, :u], s[:, u:2 * u], s[:, 3 * u:]
    dct = np.multiply(tc, tc)
    np.subtract(1, dct, out=dct)
    dct *= o
    dct *= dh
    dct += dc  # the gradient of c' in all
    dz = np.empty_like(s)
    np.multiply(dct, g, out=dz[:, :u])
    np.multiply(dct, c, out=dz[:, u:2 * u])
    np.multiply(dh, tc, out=dz[:, 3 * u:])
    d = np.subtract(1, s)
    d *= s  # sigmoid' = s (1 - s)
    dz *= d
    dg = np.multiply(g, g)
    np.subtract(1, dg, out=dg)  # the cell input's tanh' = 1 - g^2
    dg *= dct
    np.multiply(dg, i, out=dz[:, 2 * u:3 * u])
    dct *= f
    return dz, np.dot(dz, w.T), dct


def _lstm_grad_infer(dh, dc, s, g, tc, c, w):
    _check("_LSTMStepGrad", dh, dc, s, g, tc, c, w)
    return [(s.shape, s.dtype), (dh.shape, dh.dtype), (c.shape, c.dtype)]


def _or_zeros(dy, like):
    return dy if dy is not None else zeros_like(like)


def _lstm_grad(op, dh, dc, *_):
    xp, h, c, w = op.inputs
    h2, c2, s, g, tc = op.outputs
    dz, dh0, dc0 = bind(LSTM_STEP_GRAD, [_or_zeros(dh, h2), _or_zeros(dc, c2), s, g, tc, c, w])
    return [dz, dh0, dc0, matmul(h, dz, transpose_a=True)]


LSTM_STEP = defop("_LSTMStep", _lstm_kernel, _lstm_infer, grad=_lstm_grad, num_outputs=5)
LSTM_STEP_GRAD = defop("_LSTMStepGrad", _lstm_grad_kernel, _lstm_grad_infer, num_outputs=3)


def lstm_step(xp, h, c, w):
    """(h', c') of a default LSTMCell step on its projected inputs xp = x @ kernel + bias."""
    h2, c2, _, _, _ = bind(LSTM_STEP, [xp, h, c, w])
    return h2, c2


# ------------------------------------------------------------------------------------------------- GRU
def _gru_kernel(xp, h, w, b):
    """(h', [z, r] as [batch, 2*units], the candidate hh, the recurrent candidate term h @ w_h + b_h) of one
    GRU step (reset_after=True) on projected inputs xp."""
    u = h.shape[-1]
    mh = np.dot(h, w)
    mh += b
    zr = np.add(xp[:, :2 * u], mh[:, :2 * u])
    _sigmoid_(zr)
    rh = mh[:, 2 * u:]
    hh = np.multiply(zr[:, u:], rh)
    hh += xp[:, 2 * u:]
    np.tanh(hh, out=hh)
    h2 = np.subtract(h, hh)
    h2 *= zr[:, :u]
    h2 += hh  # z h + (1 - z) hh
    return h2, zr, hh, rh


def _gru_infer(xp, h, w, b):
    _check("_GRUStep", xp, h, w)
    if b.shape.rank not in (None, 1) or b.dtype is not h.dtype:
        raise ValueError(f"_GRUStep takes a bias vector of the operands' dtype, got {b.dtype.name} {b.shape}")
    two = h.shape[:-1].concatenate([None if h.shape[-1] is None else 2 * h.shape[-1]])
    return [(h.shape, h.dtype), (two, h.dtype), (h.shape, h.dtype), (h.shape, h.dtype)]


def _gru_grad_kernel(dh, zr, hh, rh, h, w):
    """(d xp, d of the recurrent product mh, d h) of one GRU step given the gradient of h'."""
    u = h.shape[-1]
    z, r = zr[:, :u], zr[:, u:]
    dx = np.empty(hh.shape[:-1] + (3 * u,), hh.dtype)
    dzp, drp, dah = dx[:, :u], dx[:, u:2 * u], dx[:, 2 * u:]
    np.subtract(h, hh, out=dzp)
    dzp *= dh
    np.subtract(1, z, out=dah)
    dah *= dh  # d hh
    q = np.multiply(hh, hh)
    np.subtract(1, q, out=q)
    dah *= q
    np.multiply(dah, rh, out=drp)
    d = np.subtract(1, zr)
    d *= zr
    dx[:, :2 * u] *= d
    dm = dx.copy()
    dm[:, 2 * u:] *= r
    dh0 = np.dot(dm, w.T)
    q = np.multiply(dh, z, out=q)
    dh0 += q
    return dx, dm, dh0


def _gru_grad_infer(dh, zr, hh, rh, h, w):
    _check("_GRUStepGrad", dh, zr, hh, rh, h, w)
    three = h.shape[:-1].concatenate([None if h.shape[-1] is None else 3 * h.shape[-1]])
    return [(three, h.dtype), (three, h.dtype), (h.shape, h.dtype)]


def _gru_grad(op, dh, *_):
    xp, h, w, b = op.inputs
    h2, zr, hh, rh = op.outputs
    dx, dm, dh0 = bind(GRU_STEP_GRAD, [_or_zeros(dh, h2), zr, hh, rh, h, w])
    return [dx, dh0, matmul(h, dm, transpose_a=True), reduce_sum(dm, 0)]


GRU_STEP = defop("_GRUStep", _gru_kernel, _gru_infer, grad=_gru_grad, num_outputs=4)
GRU_STEP_GRAD = defop("_GRUStepGrad", _gru_grad_kernel, _gru_grad_infer, num_outputs=3)


def gru_step(xp, h, w, b):
    """h' of a default GRUCell step (reset_after=True) on its projected inputs xp = x @ kernel + input bias,
    with the recurrent bias b."""
    return bind(GRU_STEP, [xp, h, w, b])[0]
