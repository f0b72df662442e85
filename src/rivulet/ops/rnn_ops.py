"""Keras LSTM and GRU training as one op per layer or per time step (keras/layers/recurrent.py uses them).

While a gradient tape records a recurrent layer (`fit`, a custom training step; eagerly or traced, under one
tape or several), a default LSTMCell (tanh, sigmoid) or GRUCell (reset_after=True, with bias) over a sequence,
masked or not, is ONE op, `_LSTMSequence` / `_GRUSequence` (see "whole sequences" below). Its gradient is one
op too, `_LSTMSequenceGrad` / `_GRUSequenceGrad`, which has no gradient: where a recording tape would record
the gradient (a gradient penalty, a Hessian), it is built from differentiable ops instead ("gradients a tape
records" below). A single step on projected inputs is one op too, `_LSTMStep` / `_GRUStep` (a While
loop body: the training loops of earlier versions, whose saved graphs hold them), whose NumPy kernel computes
the cell in place on the recurrent product's buffer, and whose gradient is one `_LSTMStepGrad` /
`_GRUStepGrad` op plus the recurrent kernel's `h^T @ dz` (a MatMul with transpose_a, which the While gradient
stacks and multiplies once after the loop, function/control_flow.py). The extra outputs of the forward op are
what its gradient reads (the gate activations), kept by the While's stash.

The gates' sigmoid is 0.5 * tanh(0.5 * x) + 0.5 (within 1.2e-7 of 1 / (1 + exp(-x)) in float32, half the
time on NumPy). Graphs without a tape (predict, export, the ONNX and TFLite converters) keep the
cells' ordinary ops. The ops live here, registered when rivulet loads, because a saved model of a trained
Keras model holds its train function's graphs.
"""
import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..core import context
from ..core.dispatch import bind
from ..core.op import defop
from ..execute import blas_threads, memory
from .array_ops import concat, expand_dims, reshape, shape, split, stack, transpose, zeros_like
from .math_ops import cast, matmul, reduce_sum, sigmoid, tanh
from .tensor_array_ops import TensorArray


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
# idea), input projection included: the kernel loops in Python over preallocated [time, ...] buffers; the
# gradient walks them backwards writing each step's gradient into place. The recurrence works transposed,
# on [units, batch] states and [gates, batch] products (W^T @ h^T), so that every gate is a contiguous row
# block: NumPy's ufuncs on [64, 64] column views of [64, 256] rows took 2-3 times as long. The big GEMMs (the
# input projection, the input's and both kernels' gradients) run in chunks of time steps on a worker thread,
# pipelined with the walk: BLAS releases the GIL, so on a quiet machine they cost the walk nothing, and a busy
# one just shares its cores (nothing spins). No While loop, stash lists or per-step dispatch. Chunks are summed
# in a fixed order: the results do not depend on the timing.
_CHUNK_ROWS = 1024  # rows of a chunk GEMM (16 steps of a batch of 64)
_pool_lock = threading.Lock()
_pools = {}  # pid -> the worker (a process forked after it was made has no thread behind it: a new one)


def _worker():
    pid = os.getpid()
    pool = _pools.get(pid)
    if pool is None:
        with _pool_lock:
            pool = _pools.get(pid)
            if pool is None:
                _pools.clear()
                pool = _pools[pid] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rivulet-rnn")
    return pool


def _chunks(steps, batch):
    """The [t0, t1) chunks of the time steps: the first a quarter of the others, as it is the one not
    overlapped (projected before the forward walk starts, its gradients made after the backward walk ends)."""
    every = max(1, -(-_CHUNK_ROWS // max(1, batch)))
    first = min(steps, max(1, every // 4))
    return [(0, first)] * (steps > 0) + [(t0, min(t0 + every, steps)) for t0 in range(first, steps, every)]


def _small_gemms(b, u, n):
    """`with` this around a loop of [b, u] @ [u, n] products: one BLAS thread where they are small."""
    return blas_threads.one_thread() if blas_threads._small(b * u * n) else contextlib.nullcontext()


def _project(dst, x, w, b):
    """dst <- (x @ w + b) transposed over a chunk of time steps: dst [n, gates, batch] (the recurrence works on
    [units, batch] blocks: each gate a contiguous row block), as one w^T @ x[t]^T per step (no copies)."""
    np.matmul(w.T, x.transpose(0, 2, 1), out=dst)
    dst += b[:, None]


def _result(job):
    """A worker job's result; run here when the worker has not started it yet (on a busy machine the worker
    may wait for a core: the walk then does the job itself rather than wait for it)."""
    future, fn, args = job
    if future.cancel():
        return fn(*args)
    return future.result()


class _Pipeline:
    """Chunk jobs on the worker, one ahead of the walk that needs (forward) or makes (backward) them."""

    def __init__(self):
        self.jobs = []

    def submit(self, fn, *args):
        self.jobs.append((_worker().submit(fn, *args), fn, args))

    def results(self):
        return [_result(job) for job in self.jobs]


def _projected(steps, batch, x, w_in, b, dst):
    """Yields each time step once its chunk of dst = x @ w_in + b is ready (the next chunk is projected
    meanwhile)."""
    chunks = _chunks(steps, batch)
    pending = None
    for k, (t0, t1) in enumerate(chunks):
        if k == 0:
            _project(dst[t0:t1], x[t0:t1], w_in, b)
        else:
            _result(pending)
        if k + 1 < len(chunks):
            n0, n1 = chunks[k + 1]
            args = (dst[n0:n1], x[n0:n1], w_in, b)
            pending = (_worker().submit(_project, *args), _project, args)
        yield from range(t0, t1)


def _sum_chunks(parts, shapes, dtype):
    """The chunk results summed in order (zeros where there were none)."""
    out = [np.zeros(s, dtype) for s in shapes]
    for part in parts:
        for o, p in zip(out, part):
            o += p
    return out


def _masks(keep, steps):
    """(keep as 0/1 [time, batch], its complement, which steps drop some entry) of a [time, batch] mask, or
    None for a scalar (no mask)."""
    if np.ndim(keep) != 2:
        return None
    keep = np.asarray(keep, bool)
    if keep.shape[0] != steps:
        raise ValueError(f"the mask has {keep.shape[0]} time steps, the inputs {steps}")
    return keep, ~keep, (~keep).any(axis=1)


def _lstm_seq_kernel(x, h0, c0, w_in, b, w, keep):
    """(h_T, c_T, and transposed, [.., units or gates, batch]: H = h_0..h_T, the gates' sigmoids S, the cell
    inputs G, tanh(c_t) TC, C = c_0..c_T) of an LSTM over inputs x [time, batch, features]. Where `keep`
    ([time, batch] bool; a scalar: none) is False the step keeps the previous states."""
    memory.retain_heap()  # the [time, ...] buffers of every step: reuse their memory, not fault it in anew
    steps, bt = x.shape[0], x.shape[1]
    u = h0.shape[-1]
    dt = h0.dtype
    x, w_in, b, w = (np.asarray(a, dt) for a in (x, w_in, b, w))
    masks = _masks(keep, steps)
    hs, cs = np.empty((steps + 1, u, bt), dt), np.empty((steps + 1, u, bt), dt)
    hs[0], cs[0] = h0.T, c0.T
    ss, gs, tcs = np.empty((steps, 4 * u, bt), dt), np.empty((steps, u, bt), dt), np.empty((steps, u, bt), dt)
    ig, rec = np.empty((u, bt), dt), np.empty((4 * u, bt), dt)
    wt = w.T
    with _small_gemms(bt, u, 4 * u):
        for t in _projected(steps, bt, x, w_in, b, ss):
            s = ss[t]
            np.dot(wt, hs[t], out=rec)
            s += rec
            g = gs[t]
            np.tanh(s[2 * u:3 * u], out=g)
            _sigmoid_(s)
            c2 = cs[t + 1]
            np.multiply(s[u:2 * u], cs[t], out=c2)
            np.multiply(s[:u], g, out=ig)
            c2 += ig
            np.tanh(c2, out=tcs[t])
            np.multiply(s[3 * u:], tcs[t], out=hs[t + 1])
            if masks is not None and masks[2][t]:
                np.copyto(c2, cs[t], where=masks[1][t])
                np.copyto(hs[t + 1], hs[t], where=masks[1][t])
    return hs[steps].T.copy(), cs[steps].T.copy(), hs, ss, gs, tcs, cs


def _seq_shape(n, shape, extra=0):
    """[n + extra] + shape (n None: unknown)."""
    return shape[:0].concatenate([None if n is None else n + extra]).concatenate(shape)


def _check_seq(name, x, h0, w_in, b, w, gates):
    _check(name, h0, w_in, w)
    if x.shape.rank not in (None, 3) or x.dtype is not h0.dtype or b.shape.rank not in (None, 1) or \
            b.dtype is not h0.dtype:
        raise ValueError(f"{name} takes [time, batch, features] inputs and a bias vector of its state's dtype, "
                         f"got {x.dtype.name} {x.shape} and {b.dtype.name} {b.shape}")
    return x.shape[0] if x.shape.rank == 3 else None


def _check_keep(name, keep):
    if keep.dtype.name != "bool" or keep.shape.rank not in (None, 0, 2):
        raise ValueError(f"{name} takes a [time, batch] bool mask or a scalar, got {keep.dtype.name} {keep.shape}")


def _lstm_seq_infer(x, h0, c0, w_in, b, w, keep):
    _check_keep("_LSTMSequence", keep)
    n = _check_seq("_LSTMSequence", x, h0, w_in, b, w, 4)
    _check("_LSTMSequence", h0, c0)
    ub = h0.shape[::-1]  # [units, batch]
    seq, one = _seq_shape(n, ub, 1), _seq_shape(n, ub)
    gates = _seq_shape(n, w.shape[-1:].concatenate(h0.shape[:1]))
    return [(h0.shape, h0.dtype), (c0.shape, c0.dtype), (seq, h0.dtype), (gates, h0.dtype), (one, h0.dtype),
            (one, h0.dtype), (seq, h0.dtype)]


def _input_grads(x, w_in, hs, t0, t1, *pairs):
    """A chunk's weight and input gradients from its transposed step gradients d [n, gates, batch], with no
    copies: (sum_t (d_in[t] @ x[t])^T, row sums of d_in, sum_t hs[t] @ d_rec[t]^T[, row sums of d_rec]) and
    dx[t] <- d_in[t]^T @ w_in^T in place; pairs: (d_in, dx) then optionally d_rec (else d_rec is d_in)."""
    d_in, dx = pairs[0], pairs[1]
    din = d_in[t0:t1]
    out = [np.matmul(din, x[t0:t1]).sum(axis=0).T, din.sum(axis=(0, 2))]
    np.matmul(din.transpose(0, 2, 1), w_in.T, out=dx[t0:t1])
    drec = din if len(pairs) < 3 else pairs[2][t0:t1]
    out.append(np.matmul(hs[t0:t1], drec.transpose(0, 2, 1)).sum(axis=0))
    if len(pairs) == 3:
        out.append(drec.sum(axis=(0, 2)))
    return out


def _lstm_seq_grad_kernel(dh, dc, x, hs, ss, gs, tcs, cs, w_in, w, keep, *dhs):
    """(d x, d h_0, d c_0, d w_in, d b, d w) given the gradients of h_T, c_T (and of H, and of C, transposed:
    `dhs` is (dH,) or (dH, dC))."""
    steps, u, bt = gs.shape
    masks = _masks(keep, steps)
    dt = ss.dtype
    x, w_in, w = (np.asarray(a, dt) for a in (x, w_in, w))
    dz_all, dx = np.empty_like(ss), np.empty(x.shape, dt)
    dh = np.array(np.asarray(dh).T, dtype=dt, order="C")  # (own [units, batch] buffers: updated in place)
    dc = np.array(np.asarray(dc).T, dtype=dt, order="C")
    dcs = dhs[1] if len(dhs) > 1 else None
    dhs = dhs[0] if dhs else None
    if dhs is not None:
        dh += dhs[steps]
    if dcs is not None:
        dc += dcs[steps]
    dct, d, dg = np.empty((u, bt), dt), np.empty((4 * u, bt), dt), np.empty((u, bt), dt)
    jobs = _Pipeline()
    with _small_gemms(bt, 4 * u, u):
        for t0, t1 in reversed(_chunks(steps, bt)):
            for t in range(t1 - 1, t0 - 1, -1):
                s, g, tc = ss[t], gs[t], tcs[t]
                dz = dz_all[t]
                held = masks is not None and masks[2][t]
                if held:  # dropped entries: the states' gradients pass the step unchanged, none enters it
                    held_h, held_c = dh * masks[1][t], dc * masks[1][t]
                    dh *= masks[0][t]
                    dc *= masks[0][t]
                np.multiply(tc, tc, out=dct)
                np.subtract(1, dct, out=dct)
                dct *= s[3 * u:]
                dct *= dh
                dct += dc  # the gradient of c_t in all
                np.multiply(dct, g, out=dz[:u])
                np.multiply(dct, cs[t], out=dz[u:2 * u])
                np.multiply(dh, tc, out=dz[3 * u:])
                np.subtract(1, s, out=d)
                d *= s  # sigmoid' = s (1 - s)
                dz *= d
                np.multiply(g, g, out=dg)
                np.subtract(1, dg, out=dg)  # the cell input's tanh' = 1 - g^2
                dg *= dct
                np.multiply(dg, s[:u], out=dz[2 * u:3 * u])
                np.multiply(dct, s[u:2 * u], out=dc)
                np.dot(w, dz, out=dh)
                if held:
                    dh += held_h
                    dc += held_c
                if dhs is not None:
                    dh += dhs[t]
                if dcs is not None:
                    dc += dcs[t]
            jobs.submit(_input_grads, x, w_in, hs, t0, t1, dz_all, dx)
        parts = jobs.results()  # (inside the region: the BLAS thread count changes only with no GEMM running)
    dwi, db, dw = _sum_chunks(parts, [w_in.shape, w.shape[-1:], w.shape], dt)
    return dx, dh.T.copy(), dc.T.copy(), dwi, db, dw


def _lstm_seq_grad_infer(dh, dc, x, hs, ss, gs, tcs, cs, w_in, w, keep, *dhs):
    return [(x.shape, x.dtype), (dh.shape, dh.dtype), (dc.shape, dc.dtype), (w_in.shape, w_in.dtype),
            (w.shape[-1:], w.dtype), (w.shape, w.dtype)]


def _lstm_seq_grad(op, dh, dc, dhs, dss=None, dgs=None, dtcs=None, dcs=None):
    x, h0, c0, w_in, b, w, keep = op.inputs
    h2, c2, hs, ss, gs, tcs, cs = op.outputs
    if all(d is None for d in (dh, dc, dhs, dcs)):
        return [None] * 7
    if _as_ops(op, (dh, dc, dhs, dcs)):
        return _lstm_seq_grad_as_ops(op, dh, dc, dhs, dcs)
    extra = [] if dhs is None and dcs is None else [_or_zeros(dhs, hs)] if dcs is None else \
        [_or_zeros(dhs, hs), dcs]
    ins = [_or_zeros(dh, h2), _or_zeros(dc, c2), x, hs, ss, gs, tcs, cs, w_in, w, keep] + extra
    return list(bind(LSTM_SEQUENCE_GRAD, ins)) + [None]


_lstm_seq_grad.takes_none = True  # unused outputs (the gate stashes; H, C, h_T without return_sequences ...): None


# --------------------------------------------------------------- gradients a tape records: ops again
# `_LSTMSequenceGrad` / `_GRUSequenceGrad` have no gradient. Where a recording tape watches what the gradient
# reads (a gradient penalty, a Hessian: the gradient's own gradient will be taken), the sequence's gradient is
# built instead from differentiable ops, decided per gradient from what the tapes watch: the gates again from
# the op's inputs and its stacked states (batched: one GEMM each, no recurrence), then the backward walk, which
# is linear in the state gradients, as a loop of a few ops per step (a While loop in a graph, whose gradient
# stacks the weights' products; a Python loop eagerly), then the inputs' and weights' gradients (batched).
# Its gradient reaches the stacked states H (and C: the LSTM's), which the sequence op's gradient takes in.
_loops = []  # [tf.while_loop]: the function layer's, given by keras/layers/recurrent.py when it loads


def register_while_loop(fn):
    """The graph loop (tf.while_loop) of the gradients built as ops; without it a graph's gradient stays the
    fused op (not differentiable: as before)."""
    _loops[:] = [fn]


def _as_ops(op, dys):
    """Whether a recording tape (of the graph being built now) watches a tensor the sequence's gradient reads:
    then it records that gradient, whose own gradient may follow, so the gradient must be differentiable."""
    tapes = context.state.tapes
    if not tapes:
        return False
    g = context.current_graph()
    if g is not None and not _loops:
        return False
    ids = [id(t) for t in (*op.inputs, *op.outputs, *dys) if t is not None]
    for tape in tapes:
        w = getattr(tape, "_watched", None)
        if w and getattr(tape, "_graph", None) is g and any(i in w for i in ids):
            return True
    return False


def _flat(t):
    """[time, batch, n] -> [time * batch, n]."""
    n = t.shape[-1]
    return reshape(t, [-1, n] if n is not None else stack([-1, shape(t)[-1]]))


def _unflat(t, like):
    """[time * batch, n] -> [time, batch, n], time and batch those of `like`."""
    lead, n = like.shape[:2], t.shape[-1]
    if lead.is_fully_defined() and n is not None:
        return reshape(t, lead.as_list() + [n])
    return reshape(t, concat([shape(like)[:2], shape(t)[-1:]], 0))


def _keep_rows(keep, x):
    """The mask as 0/1 [time, batch, 1] of x's dtype, or None (a scalar: no mask)."""
    if keep.shape.rank == 0:
        return None
    k = cast(keep, x.dtype)
    if keep.shape.rank != 2:  # (unknown rank: a graph read from a file)
        k = k + zeros_like(x[:, :, 0])
    return expand_dims(k, -1)


def _walk_back(steps, init, step, row_shape, dtype):
    """For t = steps - 1 .. 0: (row_t, *state) = step(t, *state); returns (the rows stacked in time order,
    the final state): a Python loop eagerly, a While loop in a graph."""
    if context.current_graph() is None:
        rows, st = [None] * steps, list(init)
        for t in range(steps - 1, -1, -1):
            rows[t], *st = step(t, *st)
        if not rows:
            return None, st
        return stack(rows), st
    n = shape(steps)[0] if not isinstance(steps, int) else steps
    ta = TensorArray(dtype, size=n, element_shape=row_shape)

    def body(k, ta, *st):
        row, *st = step(k - 1, *st)
        return (k - 1, ta.write(k - 1, row), *st)
    out = _loops[0](lambda k, *_: k > 0, body, (n, ta, *init))
    return out[1].stack(), list(out[2:])


def _steps(x):
    return x.shape[0] if context.current_graph() is None else x


def _lstm_seq_grad_as_ops(op, dh, dc, dhs, dcs):
    x, h0, c0, w_in, b, w, keep = op.inputs
    h2, c2, hs, ss, gs, tcs, cs = op.outputs
    hp, cp = _flat(_time_major(hs[:-1])), _flat(_time_major(cs[:-1]))  # h_t, c_t entering each step
    x2 = _flat(x)
    zi, zf, zg, zo = split(matmul(x2, w_in) + b + matmul(hp, w), 4, axis=1)
    i, f, g, o = sigmoid(zi), sigmoid(zf), tanh(zg), sigmoid(zo)
    tc = tanh(f * cp + i * g)
    a = _unflat(o * (1 - tc * tc), x)  # d c_t' = d c + d h * a
    p = _unflat(concat([g * i * (1 - i), cp * f * (1 - f), i * (1 - g * g), tc * o * (1 - o)], 1), x)
    f = _unflat(f, x)
    keep = _keep_rows(keep, x)
    dH = _time_major(dhs) if dhs is not None else None
    dC = _time_major(dcs) if dcs is not None else None
    dh = _or_zeros(dh, h2) if dH is None else dH[-1] if dh is None else dh + dH[-1]
    dc = _or_zeros(dc, c2) if dC is None else dC[-1] if dc is None else dc + dC[-1]

    def step(t, dh, dc):
        if keep is not None:
            k = keep[t]
            held_h, held_c = dh * (1 - k), dc * (1 - k)
            dh, dc = dh * k, dc * k
        dct = dc + dh * a[t]
        dz = concat([dct, dct, dct, dh], 1) * p[t]
        dh, dc = matmul(dz, w, transpose_b=True), dct * f[t]
        if keep is not None:
            dh, dc = dh + held_h, dc + held_c
        if dH is not None:
            dh = dh + dH[t]
        if dC is not None:
            dc = dc + dC[t]
        return dz, dh, dc
    dzs, (dh0, dc0) = _walk_back(_steps(x), [dh, dc], step, h2.shape[:1].concatenate(w.shape[1:]), x.dtype)
    if dzs is None:  # no time steps
        return [zeros_like(x), dh0, dc0, zeros_like(w_in), zeros_like(b), zeros_like(w), None]
    dz2 = _flat(dzs)
    dx = _unflat(matmul(dz2, w_in, transpose_b=True), x)
    return [dx, dh0, dc0, matmul(x2, dz2, transpose_a=True), reduce_sum(dz2, 0),
            matmul(hp, dz2, transpose_a=True), None]


def _time_major(t):
    """[time, units, batch] (the sequence ops' layout of stacked states) -> [time, batch, units]."""
    return transpose(t, [0, 2, 1])


LSTM_SEQUENCE = defop("_LSTMSequence", _lstm_seq_kernel, _lstm_seq_infer, grad=_lstm_seq_grad, num_outputs=7)
LSTM_SEQUENCE_GRAD = defop("_LSTMSequenceGrad", _lstm_seq_grad_kernel, _lstm_seq_grad_infer, num_outputs=6)


def lstm_sequence(x, h, c, w_in, b, w, keep):
    """(h_T, c_T, H = h_0..h_T transposed: [time + 1, units, batch]) of a default LSTMCell (kernel w_in, bias b,
    recurrent kernel w) over inputs x [time, batch, features]; where `keep` ([time, batch] bool, or a scalar
    for none) is False a step keeps the previous states."""
    out = bind(LSTM_SEQUENCE, [x, h, c, w_in, b, w, keep])
    return out[0], out[1], out[2]


def _gru_seq_kernel(x, h0, w_in, b_in, w, b, keep):
    """(h_T, and transposed, [.., units, batch]: H = h_0..h_T, [z, r] ZR, candidates HH, recurrent candidate
    terms RH) of a GRU (reset_after) over inputs x [time, batch, features]."""
    memory.retain_heap()
    steps, bt = x.shape[0], x.shape[1]
    u = h0.shape[-1]
    dt = h0.dtype
    x, w_in, b_in, w, b = (np.asarray(a, dt) for a in (x, w_in, b_in, w, b))
    masks = _masks(keep, steps)
    hs = np.empty((steps + 1, u, bt), dt)
    hs[0] = h0.T
    xps = np.empty((steps, 3 * u, bt), dt)
    zrs, hhs, rhs = np.empty((steps, 2 * u, bt), dt), np.empty((steps, u, bt), dt), np.empty((steps, u, bt), dt)
    mh = np.empty((3 * u, bt), dt)
    wt, bc = w.T, b.reshape(-1, 1)
    with _small_gemms(bt, u, 3 * u):
        for t in _projected(steps, bt, x, w_in, b_in, xps):
            xp = xps[t]
            np.dot(wt, hs[t], out=mh)
            mh += bc
            zr = zrs[t]
            np.add(xp[:2 * u], mh[:2 * u], out=zr)
            _sigmoid_(zr)
            rh, hh = rhs[t], hhs[t]
            rh[...] = mh[2 * u:]
            np.multiply(zr[u:], rh, out=hh)
            hh += xp[2 * u:]
            np.tanh(hh, out=hh)
            h2 = hs[t + 1]
            np.subtract(hs[t], hh, out=h2)
            h2 *= zr[:u]
            h2 += hh
            if masks is not None and masks[2][t]:
                np.copyto(h2, hs[t], where=masks[1][t])
    return hs[steps].T.copy(), hs, zrs, hhs, rhs


def _gru_seq_infer(x, h0, w_in, b_in, w, b, keep):
    _check_keep("_GRUSequence", keep)
    n = _check_seq("_GRUSequence", x, h0, w_in, b_in, w, 3)
    _gru_infer(h0, h0, w, b)
    ub = h0.shape[::-1]  # [units, batch]
    two = ub[:0].concatenate([None if ub[0] is None else 2 * ub[0]]).concatenate(ub[1:])
    return [(h0.shape, h0.dtype), (_seq_shape(n, ub, 1), h0.dtype), (_seq_shape(n, two), h0.dtype),
            (_seq_shape(n, ub), h0.dtype), (_seq_shape(n, ub), h0.dtype)]


def _gru_seq_grad_kernel(dh, x, hs, zrs, hhs, rhs, w_in, w, keep, *dhs):
    """(d x, d h_0, d w_in, d b_in, d w, d b) given the gradient of h_T (and of H, transposed)."""
    steps, u, bt = hhs.shape
    masks = _masks(keep, steps)
    dt = hhs.dtype
    x, w_in, w = (np.asarray(a, dt) for a in (x, w_in, w))
    dxp, dms, dx = np.empty((steps, 3 * u, bt), dt), np.empty((steps, 3 * u, bt), dt), np.empty(x.shape, dt)
    dh = np.array(np.asarray(dh).T, dtype=dt, order="C")
    dhs = dhs[0] if dhs else None
    if dhs is not None:
        dh += dhs[steps]
    q, d, tmp = np.empty((u, bt), dt), np.empty((2 * u, bt), dt), np.empty((u, bt), dt)
    jobs = _Pipeline()
    with _small_gemms(bt, 3 * u, u):
        for t0, t1 in reversed(_chunks(steps, bt)):
            for t in range(t1 - 1, t0 - 1, -1):
                zr, hh, rh, h = zrs[t], hhs[t], rhs[t], hs[t]
                z, r = zr[:u], zr[u:]
                held = masks is not None and masks[2][t]
                if held:  # dropped entries: the state's gradient passes the step unchanged, none enters it
                    held_h = dh * masks[1][t]
                    dh *= masks[0][t]
                dxt, dm = dxp[t], dms[t]
                dzp, drp, dah = dxt[:u], dxt[u:2 * u], dxt[2 * u:]
                np.subtract(h, hh, out=dzp)
                dzp *= dh
                np.subtract(1, z, out=dah)
                dah *= dh  # d hh
                np.multiply(hh, hh, out=q)
                np.subtract(1, q, out=q)
                dah *= q
                np.multiply(dah, rh, out=drp)
                np.subtract(1, zr, out=d)
                d *= zr
                dxt[:2 * u] *= d
                dm[:2 * u] = dxt[:2 * u]
                np.multiply(dah, r, out=dm[2 * u:])
                np.multiply(dh, z, out=tmp)
                np.dot(w, dm, out=dh)
                dh += tmp
                if held:
                    dh += held_h
                if dhs is not None:
                    dh += dhs[t]
            jobs.submit(_input_grads, x, w_in, hs, t0, t1, dxp, dx, dms)
        parts = jobs.results()
    dwi, dbi, dw, db = _sum_chunks(parts, [w_in.shape, w_in.shape[-1:], w.shape, w.shape[-1:]], dt)
    return dx, dh.T.copy(), dwi, dbi, dw, db


def _gru_seq_grad_infer(dh, x, hs, zrs, hhs, rhs, w_in, w, keep, *dhs):
    return [(x.shape, x.dtype), (dh.shape, dh.dtype), (w_in.shape, w_in.dtype), (w_in.shape[-1:], w_in.dtype),
            (w.shape, w.dtype), (w.shape[-1:], w.dtype)]


def _gru_seq_grad(op, dh, dhs, *_):
    x, h0, w_in, b_in, w, b, keep = op.inputs
    h2, hs, zrs, hhs, rhs = op.outputs
    if dh is None and dhs is None:
        return [None] * 7
    if _as_ops(op, (dh, dhs)):
        return _gru_seq_grad_as_ops(op, dh, dhs)
    ins = [_or_zeros(dh, h2), x, hs, zrs, hhs, rhs, w_in, w, keep] + ([dhs] if dhs is not None else [])
    return list(bind(GRU_SEQUENCE_GRAD, ins)) + [None]


_gru_seq_grad.takes_none = True


def _gru_seq_grad_as_ops(op, dh, dhs):
    x, h0, w_in, b_in, w, b, keep = op.inputs
    h2, hs, zrs, hhs, rhs = op.outputs
    hp = _flat(_time_major(hs[:-1]))  # h_t entering each step
    x2 = _flat(x)
    xz, xr, xh = split(matmul(x2, w_in) + b_in, 3, axis=1)
    mz, mr, rh = split(matmul(hp, w) + b, 3, axis=1)
    z, r = sigmoid(xz + mz), sigmoid(xr + mr)
    hh = tanh(xh + r * rh)
    qz, qh = (hp - hh) * z * (1 - z), (1 - z) * (1 - hh * hh)  # d zp = d h * qz, d hh's preactivation = d h * qh
    qr = qh * rh * r * (1 - r)
    q_in = concat([qz, qr, qh], 1)  # d (x @ w_in + b_in) = [d h] * 3 * q_in
    q_rec = _unflat(concat([qz, qr, qh * r], 1), x)  # d (h @ w + b) = [d h] * 3 * q_rec
    z = _unflat(z, x)
    keep = _keep_rows(keep, x)
    dH = _time_major(dhs) if dhs is not None else None
    dh = _or_zeros(dh, h2) if dH is None else dH[-1] if dh is None else dh + dH[-1]

    def step(t, dh):
        if keep is not None:
            k = keep[t]
            held = dh * (1 - k)
            dh = dh * k
        dm = concat([dh, dh, dh], 1) * q_rec[t]
        out = dh
        dh = matmul(dm, w, transpose_b=True) + dh * z[t]
        if keep is not None:
            dh = dh + held
        if dH is not None:
            dh = dh + dH[t]
        return out, dh
    dhk, (dh0,) = _walk_back(_steps(x), [dh], step, h2.shape, x.dtype)
    if dhk is None:  # no time steps
        return [zeros_like(x), dh0, zeros_like(w_in), zeros_like(b_in), zeros_like(w), zeros_like(b), None]
    d3 = _flat(concat([dhk, dhk, dhk], 2))
    dxp, dm = d3 * q_in, d3 * _flat(q_rec)
    dx = _unflat(matmul(dxp, w_in, transpose_b=True), x)
    return [dx, dh0, matmul(x2, dxp, transpose_a=True), reduce_sum(dxp, 0), matmul(hp, dm, transpose_a=True),
            reduce_sum(dm, 0), None]


GRU_SEQUENCE = defop("_GRUSequence", _gru_seq_kernel, _gru_seq_infer, grad=_gru_seq_grad, num_outputs=5)
GRU_SEQUENCE_GRAD = defop("_GRUSequenceGrad", _gru_seq_grad_kernel, _gru_seq_grad_infer, num_outputs=6)


def gru_sequence(x, h, w_in, b_in, w, b, keep):
    """(h_T, H = h_0..h_T transposed: [time + 1, units, batch]) of a default GRUCell (reset_after; kernel w_in,
    input bias b_in, recurrent kernel w and bias b) over inputs x [time, batch, features]; where `keep`
    ([time, batch] bool, or a scalar for none) is False a step keeps the previous state."""
    out = bind(GRU_SEQUENCE, [x, h, w_in, b_in, w, b, keep])
    return out[0], out[1]
