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
import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..core.dispatch import bind
from ..core.op import defop
from ..execute import blas_threads
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


# ------------------------------------------------------------------------------------- whole sequences
# Without a mask the training loop of a default cell is one op over all time steps (TensorFlow's BlockLSTM
# idea): the kernel loops in Python over preallocated [time, ...] buffers, the gradient walks them backwards
# writing each step's input gradient into place, and the recurrent kernel's gradient is one GEMM over the
# stacked states it already holds. No While loop, stash lists or per-step op dispatch.
class _Products:
    """sum_t H[t]^T @ D[t] over a backward walk of the time steps, as a few chunk GEMMs of [rows, u]^T @
    [rows, n] run on a worker thread while the walk goes on (BLAS releases the GIL: on a quiet machine the
    weight gradient costs the walk nothing; a busy one just shares its cores, nothing spins). Chunks are
    summed in a fixed order: the result does not depend on the timing."""
    _pool = None
    _lock = threading.Lock()

    def __init__(self, hs, ds, steps):
        self.hs, self.ds, self.steps = hs, ds, steps
        self.every = max(1, -(-_CHUNK_ROWS // max(1, ds.shape[1])))  # time steps per chunk
        self.end = steps
        self.parts = []

    def done(self, t):
        """Steps t..end-1 of ds are final: multiply them once there are enough."""
        if self.end - t >= self.every or t == 0 and self.end > 0:
            self.parts.append(self._submit(self.hs[t:self.end], self.ds[t:self.end]))
            self.end = t

    def _submit(self, h, d):
        pool = _Products._pool
        if pool is None:
            with _Products._lock:
                if _Products._pool is None:
                    _Products._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rivulet-rnn")
                pool = _Products._pool
        return pool.submit(np.dot, h.reshape(-1, h.shape[-1]).T, d.reshape(-1, d.shape[-1]))

    def result(self, shape, dtype):
        out = None
        for f in self.parts:
            p = f.result()
            out = p if out is None else np.add(out, p, out=out)
        return out if out is not None else np.zeros(shape, dtype)


_CHUNK_ROWS = 1024  # rows of a chunk GEMM (16 steps of a batch of 64)


def _small_gemms(b, u, n):
    """`with` this around a loop of [b, u] @ [u, n] products: one BLAS thread where they are small."""
    return blas_threads.one_thread() if blas_threads._small(b * u * n) else contextlib.nullcontext()


def _lstm_seq_kernel(xp, h0, c0, w):
    """(h_T, c_T, H = h_0..h_T, the gates' sigmoids S, the cell inputs G, tanh(c_t) TC, C = c_0..c_T) of an
    LSTM over projected inputs xp [time, batch, 4*units]."""
    steps, (b, u) = xp.shape[0], h0.shape
    dt = np.result_type(xp, h0)
    hs, cs = np.empty((steps + 1, b, u), dt), np.empty((steps + 1, b, u), dt)
    hs[0], cs[0] = h0, c0
    ss, gs, tcs = np.empty((steps, b, 4 * u), dt), np.empty((steps, b, u), dt), np.empty((steps, b, u), dt)
    ig = np.empty((b, u), dt)
    with _small_gemms(b, u, 4 * u):
        for t in range(steps):
            s = ss[t]
            np.dot(hs[t], w, out=s)
            s += xp[t]
            g = gs[t]
            np.tanh(s[:, 2 * u:3 * u], out=g)
            _sigmoid_(s)
            c2 = cs[t + 1]
            np.multiply(s[:, u:2 * u], cs[t], out=c2)
            np.multiply(s[:, :u], g, out=ig)
            c2 += ig
            np.tanh(c2, out=tcs[t])
            np.multiply(s[:, 3 * u:], tcs[t], out=hs[t + 1])
    return hs[steps], cs[steps], hs, ss, gs, tcs, cs


def _seq_shape(n, shape, extra=0):
    """[n + extra] + shape (n None: unknown)."""
    return shape[:0].concatenate([None if n is None else n + extra]).concatenate(shape)


def _lstm_seq_infer(xp, h0, c0, w):
    _check("_LSTMSequence", h0, c0, w)
    if xp.shape.rank not in (None, 3) or xp.dtype is not h0.dtype:
        raise ValueError(f"_LSTMSequence takes [time, batch, 4*units] inputs of its states' dtype, got "
                         f"{xp.dtype.name} {xp.shape}")
    n = xp.shape[0] if xp.shape.rank == 3 else None
    seq = _seq_shape(n, h0.shape, 1)
    return [(h0.shape, h0.dtype), (c0.shape, c0.dtype), (seq, h0.dtype), (xp.shape, xp.dtype),
            (_seq_shape(n, h0.shape), h0.dtype), (_seq_shape(n, h0.shape), h0.dtype), (seq, h0.dtype)]


def _lstm_seq_grad_kernel(dh, dc, hs, ss, gs, tcs, cs, w, *dhs):
    """(d xp [time, batch, 4*units], d h_0, d c_0, d w) given the gradients of h_T, c_T (and of H)."""
    steps, b, u = gs.shape
    dxp = np.empty_like(ss)
    dh = np.array(dh, dtype=ss.dtype)  # (own buffers: updated in place)
    dc = np.array(dc, dtype=ss.dtype)
    dhs = dhs[0] if dhs else None
    if dhs is not None:
        dh += dhs[steps]
    dct, d, dg = np.empty((b, u), ss.dtype), np.empty((b, 4 * u), ss.dtype), np.empty((b, u), ss.dtype)
    wt = w.T
    dw = _Products(hs, dxp, steps)
    with _small_gemms(b, 4 * u, u):
        for t in range(steps - 1, -1, -1):
            s, g, tc, c = ss[t], gs[t], tcs[t], cs[t]
            dz = dxp[t]
            np.multiply(tc, tc, out=dct)
            np.subtract(1, dct, out=dct)
            dct *= s[:, 3 * u:]
            dct *= dh
            dct += dc
            np.multiply(dct, g, out=dz[:, :u])
            np.multiply(dct, c, out=dz[:, u:2 * u])
            np.multiply(dh, tc, out=dz[:, 3 * u:])
            np.subtract(1, s, out=d)
            d *= s
            dz *= d
            np.multiply(g, g, out=dg)
            np.subtract(1, dg, out=dg)
            dg *= dct
            np.multiply(dg, s[:, :u], out=dz[:, 2 * u:3 * u])
            np.multiply(dct, s[:, u:2 * u], out=dc)
            dw.done(t)
            np.dot(dz, wt, out=dh)
            if dhs is not None:
                dh += dhs[t]
    return dxp, dh, dc, dw.result(w.shape, ss.dtype)


def _lstm_seq_grad_infer(dh, dc, hs, ss, gs, tcs, cs, w, *dhs):
    return [(ss.shape, ss.dtype), (dh.shape, dh.dtype), (dc.shape, dc.dtype), (w.shape, w.dtype)]


def _lstm_seq_grad(op, dh, dc, dhs, *_):
    xp, h0, c0, w = op.inputs
    h2, c2, hs, ss, gs, tcs, cs = op.outputs
    ins = [_or_zeros(dh, h2), _or_zeros(dc, c2), hs, ss, gs, tcs, cs, w] + ([dhs] if dhs is not None else [])
    dxp, dh0, dc0, dw = bind(LSTM_SEQUENCE_GRAD, ins)
    return [dxp, dh0, dc0, dw]


LSTM_SEQUENCE = defop("_LSTMSequence", _lstm_seq_kernel, _lstm_seq_infer, grad=_lstm_seq_grad, num_outputs=7)
LSTM_SEQUENCE_GRAD = defop("_LSTMSequenceGrad", _lstm_seq_grad_kernel, _lstm_seq_grad_infer, num_outputs=4)


def lstm_sequence(xp, h, c, w):
    """(h_T, c_T, H = h_0..h_T [time + 1, batch, units]) of a default LSTMCell over projected inputs
    xp [time, batch, 4*units]."""
    out = bind(LSTM_SEQUENCE, [xp, h, c, w])
    return out[0], out[1], out[2]


def _gru_seq_kernel(xp, h0, w, b):
    """(h_T, H = h_0..h_T, [z, r] ZR, candidates HH, recurrent candidate terms RH) of a GRU (reset_after)
    over projected inputs xp [time, batch, 3*units]."""
    steps, (bt, u) = xp.shape[0], h0.shape
    dt = np.result_type(xp, h0)
    hs = np.empty((steps + 1, bt, u), dt)
    hs[0] = h0
    zrs, hhs, rhs = np.empty((steps, bt, 2 * u), dt), np.empty((steps, bt, u), dt), np.empty((steps, bt, u), dt)
    mh = np.empty((bt, 3 * u), dt)
    with _small_gemms(bt, u, 3 * u):
        for t in range(steps):
            x = xp[t]
            np.dot(hs[t], w, out=mh)
            mh += b
            zr = zrs[t]
            np.add(x[:, :2 * u], mh[:, :2 * u], out=zr)
            _sigmoid_(zr)
            rh, hh = rhs[t], hhs[t]
            rh[...] = mh[:, 2 * u:]
            np.multiply(zr[:, u:], rh, out=hh)
            hh += x[:, 2 * u:]
            np.tanh(hh, out=hh)
            h2 = hs[t + 1]
            np.subtract(hs[t], hh, out=h2)
            h2 *= zr[:, :u]
            h2 += hh
    return hs[steps], hs, zrs, hhs, rhs


def _gru_seq_infer(xp, h0, w, b):
    _gru_infer(h0, h0, w, b)
    if xp.shape.rank not in (None, 3) or xp.dtype is not h0.dtype:
        raise ValueError(f"_GRUSequence takes [time, batch, 3*units] inputs of its state's dtype, got "
                         f"{xp.dtype.name} {xp.shape}")
    n = xp.shape[0] if xp.shape.rank == 3 else None
    two = h0.shape[:-1].concatenate([None if h0.shape[-1] is None else 2 * h0.shape[-1]])
    return [(h0.shape, h0.dtype), (_seq_shape(n, h0.shape, 1), h0.dtype), (_seq_shape(n, two), h0.dtype),
            (_seq_shape(n, h0.shape), h0.dtype), (_seq_shape(n, h0.shape), h0.dtype)]


def _gru_seq_grad_kernel(dh, hs, zrs, hhs, rhs, w, *dhs):
    """(d xp, d h_0, d w, d b) given the gradient of h_T (and of H)."""
    steps, bt, u = hhs.shape
    dt = hhs.dtype
    dxp = np.empty((steps, bt, 3 * u), dt)
    dms = np.empty((steps, bt, 3 * u), dt)
    dh = np.array(dh, dtype=dt)
    dhs = dhs[0] if dhs else None
    if dhs is not None:
        dh += dhs[steps]
    q, d, tmp = np.empty((bt, u), dt), np.empty((bt, 2 * u), dt), np.empty((bt, u), dt)
    wt = w.T
    dw = _Products(hs, dms, steps)
    with _small_gemms(bt, 3 * u, u):
        for t in range(steps - 1, -1, -1):
            zr, hh, rh, h = zrs[t], hhs[t], rhs[t], hs[t]
            z, r = zr[:, :u], zr[:, u:]
            dx, dm = dxp[t], dms[t]
            dzp, drp, dah = dx[:, :u], dx[:, u:2 * u], dx[:, 2 * u:]
            np.subtract(h, hh, out=dzp)
            dzp *= dh
            np.subtract(1, z, out=dah)
            dah *= dh
            np.multiply(hh, hh, out=q)
            np.subtract(1, q, out=q)
            dah *= q
            np.multiply(dah, rh, out=drp)
            np.subtract(1, zr, out=d)
            d *= zr
            dx[:, :2 * u] *= d
            dm[:, :2 * u] = dx[:, :2 * u]
            np.multiply(dah, r, out=dm[:, 2 * u:])
            dw.done(t)
            np.multiply(dh, z, out=tmp)
            np.dot(dm, wt, out=dh)
            dh += tmp
            if dhs is not None:
                dh += dhs[t]
    flat = dms.reshape(-1, 3 * u)
    db = np.dot(np.ones(flat.shape[0], dt), flat) if steps else np.zeros(w.shape[-1:], dt)
    return dxp, dh, dw.result(w.shape, dt), db


def _gru_seq_grad_infer(dh, hs, zrs, hhs, rhs, w, *dhs):
    return [(hhs.shape[:2].concatenate(w.shape[-1:]), dh.dtype), (dh.shape, dh.dtype), (w.shape, w.dtype),
            (w.shape[-1:], w.dtype)]


def _gru_seq_grad(op, dh, dhs, *_):
    xp, h0, w, b = op.inputs
    h2, hs, zrs, hhs, rhs = op.outputs
    ins = [_or_zeros(dh, h2), hs, zrs, hhs, rhs, w] + ([dhs] if dhs is not None else [])
    return list(bind(GRU_SEQUENCE_GRAD, ins))


GRU_SEQUENCE = defop("_GRUSequence", _gru_seq_kernel, _gru_seq_infer, grad=_gru_seq_grad, num_outputs=5)
GRU_SEQUENCE_GRAD = defop("_GRUSequenceGrad", _gru_seq_grad_kernel, _gru_seq_grad_infer, num_outputs=4)


def gru_sequence(xp, h, w, b):
    """(h_T, H = h_0..h_T) of a default GRUCell (reset_after) over projected inputs xp [time, batch, 3*units]
    with the recurrent bias b."""
    out = bind(GRU_SEQUENCE, [xp, h, w, b])
    return out[0], out[1]
