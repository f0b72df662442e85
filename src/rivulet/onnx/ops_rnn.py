"""Keras recurrent loops as ONNX's fused LSTM, GRU and RNN ops.

A Keras SimpleRNN/LSTM/GRU layer traced in a function is a While loop (keras/layers/recurrent.py,
`_loop_graph`) whose input projections were hoisted before it: xp = reshape(seq_flat @ kernel + bias), one GEMM
over every timestep. When a While op is exactly that loop (a counter from 0 to xp's number of steps; the step
reading xp[t]; the cell's gates from xp[t] and h @ recurrent_kernel with activations ONNX names; the outputs
buffer filled row by row or untouched), it becomes one LSTM / GRU / RNN node fed the un-projected sequence and
the weights in ONNX's layouts: [gates*units, features] matrices, LSTM gates reordered from Keras's i, f, c, o
to ONNX's i, o, f, c, GRU's reset_after as linear_before_reset=1. onnxruntime runs those as one kernel
instead of a Loop of small sub-graph runs. Anything else (masks, dropout, cells of one's own, activations
ONNX does not name) is not matched and stays a Loop.

A model that asks for it (`Model.rnn_as_scan`: the compiled tier's) gets an LSTM or a GRU as a Scan
instead: per step, two small GEMMs per gate (x @ W_k, h @ R_k; onnxruntime fuses
the activation into the second) and the gates' elementwise ops. onnxruntime's GRU kernel with
linear_before_reset=1 took 2.4x the CPU time of that Scan at batch 1024 (49 against 20 ms for 80 steps of
GRU(64) on 32 features) and 1.2x at batch 64; its LSTM kernel 1.4x at batch 1024 (38 against 26.5 ms) and
the same at 64. Fed by an embedding lookup of constant weights, a step gathers its rows of the folded table
E @ W_k + b_k instead of multiplying x by W_k (_Loop._embedded).
"""
import numpy as np

from onnx import TensorProto, helper

from .. import dtypes as _dt
from ..graph.graph_util import data_ancestors
from ..ops.array_ops import partial_value
from .builder import Ctx, Scope, onnx_type
from .convert import convert_ops

_ACTIVATIONS = {"Sigmoid": "Sigmoid", "Tanh": "Tanh", "Relu": "Relu"}
_LSTM_ORDER = (0, 3, 1, 2)  # ONNX's i, o, f, c from Keras's i, f, c, o
_MAX_TABLE = 1 << 24  # elements of a folded embedding table (64 MiB of float32): see _Loop._embedded


class _NoMatch(Exception):
    pass


def _need(ok):
    if not ok:
        raise _NoMatch


def _op(t, *types):
    op = t.op
    _need(op.type in types)
    return op


def _either(op, fn):
    """fn(a, b) on a binary op's inputs in either order (its first success)."""
    a, b = op.inputs
    try:
        return fn(a, b)
    except _NoMatch:
        return fn(b, a)


def _act(t, split_out=None, kind=None):
    """(activation, its input) of t = activation(x); x must be `split_out` and the kind `kind` when given."""
    op = t.op
    _need(op.type in _ACTIVATIONS and (kind is None or op.type == kind))
    _need(split_out is None or op.inputs[0] is split_out)
    return op.type, op.inputs[0]


def _const_one(t):
    _need(t.op.type == "Const" and np.all(np.asarray(t.op.attrs["value"]) == 1))


def _gru_blend(inner, g, pre, z, h):
    """h' = hh + z * (h - hh), hh = g(pre): Keras's z * h + (1 - z) * hh."""
    hh = inner.node(_ACTIVATIONS[g], [pre])
    return [inner.node("Add", [hh, inner.node("Mul", [z, inner.node("Sub", [h, hh])])])]


def fuse(ctx, op, ins):
    """The While op as a fused recurrent node (its outputs' values), or None where it is not such a loop."""
    try:
        return _Loop(ctx, op, ins).emit()
    except Exception:  # noqa: BLE001  (not such a loop, or one shaped otherwise: the Loop form serves it)
        return None


class _Loop:
    def __init__(self, ctx, op, ins):
        self.ctx, self.op, self.ins = ctx, op, ins
        lb = self.lb = op.attrs["body"]
        body = self.body = lb.body
        n = self.n = lb.n_vars
        _need(n >= 2 and len(body.outputs) == n)
        self.params = body.params
        caps = body.inputs[n:]
        self.cap_in = {id(ph): i for ph, i in zip(caps, lb.body_feed)}  # capture placeholder -> While input
        # The loop variables' roles are found, not assumed from their order: the counter (the condition's
        # operand), the state h (the one multiplied by the recurrent kernel), the LSTM's c (from the cell),
        # the previous output (h again), the outputs buffer; nothing else.
        self.index = index = {id(p): k for k, p in enumerate(self.params)}
        hs = {index[id(o.inputs[0])] for o in body.graph.get_operations()
              if o.type == "MatMul" and id(o.inputs[0]) in index}
        _need(len(hs) == 1)
        self.i_h = hs.pop()
        self.h = self.params[self.i_h]
        _need(op.inputs[self.i_h].dtype is _dt.float32 and self.h.shape.rank == 2)
        for sub in (body, lb.cond):  # nothing but the computation matched below (variable reads at most)
            _need(all(c.type == "ReadVariableOp" for c in sub.graph.control_outputs))

    # -- what every recurrent loop shares ------------------------------------------------------------------
    def _counter(self):
        """t from 0 by 1 while t < steps; returns steps' value (the final count) and the outer steps tensor."""
        op, lb = self.op, self.lb
        cond = lb.cond
        less = _op(cond.outputs[0], "Less")
        i_t = next((k for k, p in enumerate(cond.params) if p is less.inputs[0]), None)
        _need(i_t is not None)
        self.i_t = i_t
        p0 = self.params[i_t]
        _need(partial_value(op.inputs[i_t]) == 0)
        _either(_op(self.body.outputs[i_t], "AddV2"), lambda a, b: (_need(a is p0), _const_one(b)))
        caps = cond.inputs[lb.n_vars:]
        j = next((k for k, ph in enumerate(caps) if ph is less.inputs[1]), None)
        _need(j is not None)
        i = lb.cond_feed[j]
        return self.ins[i], op.inputs[i]

    def _step_input(self, t):
        """xp[t]: the projected inputs' row of this step; returns the capture placeholder of xp."""
        sl = _op(t, "StridedSlice")
        _need(sl.attrs["spec"] == (("i", "?"),) and len(sl.inputs) == 2 and sl.inputs[1] is self.params[self.i_t])
        xp_ph = sl.inputs[0]
        _need(id(xp_ph) in self.cap_in)
        return xp_ph

    def _recurrent(self, t):
        """h @ R with R loop-invariant; returns R (a body tensor)."""
        mm = _op(t, "MatMul")
        _need(not mm.attrs.get("transpose_a") and not mm.attrs.get("transpose_b") and
              not mm.attrs.get("adjoint_a") and not mm.attrs.get("adjoint_b"))
        _need(mm.inputs[0] is self.h)
        return mm.inputs[1]

    def _invariant(self, t):
        """The ONNX value of a loop-invariant body tensor (a variable read, a slice of one), emitted outside."""
        params = {id(p) for p in self.params}
        ops = data_ancestors(self.body.graph, [t])
        _need(not any(id(o) in params for a in ops for o in a.outputs))
        feeds = {id(ph): self.ins[self.cap_in[id(ph)]] for ph in self.body.inputs[self.n:]}
        return convert_ops(self.ctx.scope, self.body.graph, feeds, [t], ops=ops)[0]

    def _projection(self, xp_ph, steps_outer, n_gates, units):
        """xp = reshape(reshape(seq, [-1, features]) @ kernel (+ bias)) outside the loop: (seq, kernel, bias)
        as ONNX values (bias None when there is none)."""
        xp = self.op.inputs[self.cap_in[id(xp_ph)]]
        values = self.ctx.scope.values
        prod = _op(xp, "Reshape").inputs[0]
        bias = None
        p = prod.op
        if p.type == "BiasAdd":
            prod, bias = p.inputs
            p = prod.op
        _need(p.type in ("_FusedMatMul", "MatMul"))
        if p.type == "_FusedMatMul":
            _need(p.attrs.get("activation") is None and bias is None)
            flat, kernel = p.inputs[:2]
            bias = p.inputs[2] if len(p.inputs) > 2 else None
        else:
            _need(not any(p.attrs.get(k) for k in ("transpose_a", "transpose_b", "adjoint_a", "adjoint_b")))
            flat, kernel = p.inputs
        seq = _op(flat, "Reshape").inputs[0]
        s, f, x = seq.shape, flat.shape, xp.shape
        _need(s.rank == 3 and f.rank == 2 and x.rank == 3 and seq.dtype is _dt.float32)
        _need(s[2] is not None and f[1] == s[2] and kernel.shape.as_list() == [s[2], n_gates * units])
        _need(x[2] == n_gates * units and (x[0] is not None and x[0] == s[0] or x[1] is not None and x[1] == s[1]
                                           or self._first_two_dims_of(xp, seq)))
        _need(bias is None or bias.shape.as_list() == [n_gates * units])
        self.features, self.seq_t = s[2], seq
        # the loop runs over all of xp's steps: steps is xp's static length or tf.shape(xp)[0]
        st = steps_outer.op
        if st.type == "StridedSlice":
            _need(st.attrs["spec"] == (("i", 0),) and len(st.inputs) == 1)
            _need(_op(st.inputs[0], "Shape").inputs[0] is xp)
        else:
            _need(x[0] is not None and partial_value(steps_outer) == x[0])
        return values[id(seq)], values[id(kernel)], (None if bias is None else values[id(bias)])

    @staticmethod
    def _first_two_dims_of(xp, seq):
        """xp = reshape(..., concat([tf.shape(seq)[:2], [n]])): the form `_project` gives with both unknown."""
        r = xp.op
        _need(len(r.inputs) == 2)
        cat = _op(r.inputs[1], "ConcatV2")
        _need(cat.attrs.get("axis") == 0 and len(cat.inputs) == 2)
        sl = _op(cat.inputs[0], "StridedSlice")
        _need(sl.attrs["spec"] in ((("s", None, 2, None),), (("s", 0, 2, None),), (("s", 0, 2, 1),)) and
              len(sl.inputs) == 1 and _op(sl.inputs[0], "Shape").inputs[0] is seq)
        _need(partial_value(cat.inputs[1]) == [xp.shape[2]])
        return True

    def _outputs(self, h_new, y, y_h, y_c=None, c_new=None, i_c=None, h_last=None, c_last=None):
        """The While's outputs, by role: the final count, h (as a state and as the previous output), c, the
        outputs buffer filled row by row, loop-invariant values passed through. y/y_h: the fused node's
        ([steps, 1, batch, units], [1, batch, units]); h_last given: y is already [steps, batch, units] and
        c_last the final c."""
        ctx, body, p = self.ctx, self.body, self.params
        squeeze_y = h_last is None
        if h_last is None:
            h_last = ctx.squeeze(y_h, [0])
        outs = []
        for j, out in enumerate(body.outputs):
            if j == self.i_t:
                outs.append(self.steps)
            elif out is h_new:
                outs.append(h_last)
            elif j == i_c:
                _need(out is c_new)
                outs.append(ctx.squeeze(y_c, [0]) if squeeze_y else c_last)
            elif out is p[j]:
                outs.append(self.ins[j])
            else:
                up = _op(out, "TensorScatterUpdate")
                _need(up.inputs[0] is p[j])
                idx = _op(up.inputs[1], "Reshape")
                _need(idx.inputs[0] is p[self.i_t] and up.inputs[1].shape.as_list() == [1, 1])
                ex = _op(up.inputs[2], "ExpandDims")
                _need(ex.inputs[0] is h_new and up.inputs[2].shape.rank == 3 and ex.attrs.get("axis") in (0, -3))
                outs.append(ctx.squeeze(y, [1]) if squeeze_y else y)
        return outs

    def _needs_sequence(self, h_new, i_c=None):
        """Whether the loop fills an outputs buffer (return_sequences): a body output that is neither the
        counter, h, c (i_c) nor a value passed through."""
        p = self.params
        return any(j != self.i_t and out is not h_new and out is not p[j] and j != i_c
                   for j, out in enumerate(self.body.outputs))

    # -- the three cells -------------------------------------------------------------------------------------
    def emit(self):
        steps, steps_outer = self._counter()
        self.steps = steps
        h_new = self.body.outputs[self.i_h]
        if h_new.op.type == "Mul":
            return self._lstm(steps, steps_outer, h_new)
        if h_new.op.type == "AddV2":
            return self._gru(steps, steps_outer, h_new)
        return self._simple(steps, steps_outer, h_new)

    def _simple(self, steps, steps_outer, h_new):
        g, z = _act(h_new)
        x_t, r = [], []
        _either(_op(z, "AddV2"), lambda a, b: (x_t.append(self._step_input(a)), r.append(self._recurrent(b))))
        units = self.h.shape[1]
        _need(units is not None)
        seq, kernel, bias = self._projection(x_t[-1], steps_outer, 1, units)
        w, rr = self._w(kernel, 1, None), self._w(self._invariant(r[-1]), 1, None)
        b = self._b([bias, None], 1, units, None)
        y, y_h = self.ctx.node("RNN", [seq, w, rr, b, "", self.ctx.unsqueeze(self.ins[self.i_h], [0])], n_out=2,
                               hidden_size=units, activations=[_ACTIVATIONS[g]])
        return self._outputs(h_new, y, y_h)

    def _lstm(self, steps, steps_outer, h_new):
        def out_gate(a, b):  # h' = fa(o) * g(c')
            fa, o = _act(a)
            g, c = _act(b)
            _need(c.op.type == "AddV2")
            return fa, g, o, c
        fa, g, o, c_new = _either(_op(h_new, "Mul"), out_gate)
        i_c = []
        split = o.op
        _need(split.type == "Split" and split.attrs.get("num_split") == 4 and split.attrs.get("axis") in (1, -1)
              and o is split.outputs[3])
        s = split.outputs

        def forget(a, b):
            _need(id(b) in self.index and b is not self.h)
            _act(a, s[1], fa)
            i_c.append(self.index[id(b)])

        def inner(a, b):
            _act(a, s[0], fa)
            _act(b, s[2], g)
        _either(_op(c_new, "AddV2"), lambda a, b: (_either(_op(a, "Mul"), forget), _either(_op(b, "Mul"), inner)))
        x_t, r = [], []
        _either(_op(split.inputs[0], "AddV2"),
                lambda a, b: (x_t.append(self._step_input(a)), r.append(self._recurrent(b))))
        units = self.h.shape[1]
        _need(units is not None)
        seq, kernel, bias = self._projection(x_t[-1], steps_outer, 4, units)
        if getattr(self.ctx.model, "rnn_as_scan", False):
            return self._lstm_scan(h_new, c_new, i_c[-1], seq, kernel, bias, self._invariant(r[-1]), fa, g, units)
        w, rr = self._w(kernel, 4, _LSTM_ORDER), self._w(self._invariant(r[-1]), 4, _LSTM_ORDER)
        b = self._b([bias, None], 4, units, _LSTM_ORDER)
        ctx = self.ctx
        y, y_h, y_c = ctx.node("LSTM", [seq, w, rr, b, "", ctx.unsqueeze(self.ins[self.i_h], [0]),
                                        ctx.unsqueeze(self.ins[i_c[-1]], [0])], n_out=3, hidden_size=units,
                               activations=[_ACTIVATIONS[fa], _ACTIVATIONS[g], _ACTIVATIONS[g]])
        return self._outputs(h_new, y, y_h, y_c, c_new, i_c[-1])

    def _gru(self, steps, steps_outer, h_new):
        h = self.h
        found = {}

        def blend(a, b):  # h' = z * h + (1 - z) * hh
            def keep(x, y):
                _need(y is h)
                return x
            z = _either(_op(a, "Mul"), keep)

            def new(x, y):
                sub = _op(x, "Sub")
                _const_one(sub.inputs[0])
                _need(sub.inputs[1] is z)
                return y
            return z, _either(_op(b, "Mul"), new)
        z, hh = _either(_op(h_new, "AddV2"), blend)
        fa, z_in = _act(z)
        g, hh_in = _act(hh)

        def x_part(t, k):  # the k-th third of xp[t]
            sp = t.op
            _need(sp.type == "Split" and sp.attrs.get("num_split") == 3 and sp.attrs.get("axis") in (1, -1)
                  and t is sp.outputs[k])
            xp_ph = self._step_input(sp.inputs[0])
            _need(found.setdefault("xp", xp_ph) is xp_ph)

        def gate(t, k):  # x_k + (h @ R)_k: returns the recurrent part's tensor
            parts = []
            _either(_op(t, "AddV2"), lambda a, b: (x_part(a, k), parts.append(b)))
            return parts[-1]
        hz = gate(z_in, 0)
        r_pre = []

        def reset_after(a, b):  # x_h + r * (h @ Rh + rb_h)
            x_part(a, 2)
            m = _op(b, "Mul")

            def rh(x, y):
                _, r_in = _act(x, None, fa)
                r_pre.append(r_in)
                return y
            return _either(m, rh)
        try:
            hh_rec = _either(_op(hh_in, "AddV2"), reset_after)
            linear_before_reset = 1
        except _NoMatch:
            linear_before_reset = 0
            r_pre.clear()

            def reset_before(a, b):  # x_h + (r * h) @ Rh
                x_part(a, 2)
                mm = _op(b, "MatMul")
                _need(not any(mm.attrs.get(k) for k in ("transpose_a", "transpose_b", "adjoint_a", "adjoint_b")))

                def rh(x, y):
                    _need(y is h)
                    _, r_in = _act(x, None, fa)
                    r_pre.append(r_in)
                _either(_op(mm.inputs[0], "Mul"), rh)
                return mm.inputs[1]
            hh_rec = _either(_op(hh_in, "AddV2"), reset_before)
        hr = gate(r_pre[-1], 1)
        units = h.shape[1]
        _need(units is not None)
        seq, kernel, bias = self._projection(found["xp"], steps_outer, 3, units)
        if linear_before_reset:
            # the recurrent parts are thirds of one h @ R (+ rb)
            def third(t, k):
                sp = t.op
                _need(sp.type == "Split" and sp.attrs.get("num_split") == 3 and sp.attrs.get("axis") in (1, -1)
                      and t is sp.outputs[k])
                return sp.inputs[0]
            mh = third(hz, 0)
            _need(third(hr, 1) is mh and third(hh_rec, 2) is mh)
            rb = None
            if mh.op.type == "BiasAdd":
                mh, rb = mh.op.inputs
            elif mh.op.type == "AddV2" and mh.op.inputs[1].shape.rank == 1:
                mh, rb = mh.op.inputs
            r_full = self._invariant(self._recurrent(mh))
            rb = None if rb is None else self._invariant(rb)
            if getattr(self.ctx.model, "rnn_as_scan", False):
                return self._gru_scan(h_new, seq, kernel, bias, self._parts(r_full, 3, 1), self._parts(rb, 3, 0),
                                      fa, g, units, True)
        else:
            parts = [self._invariant(self._recurrent(hz)), self._invariant(self._recurrent(hr)),
                     self._invariant(hh_rec)]
            if getattr(self.ctx.model, "rnn_as_scan", False):
                return self._gru_scan(h_new, seq, kernel, bias, parts, [None] * 3, fa, g, units, False)
            r_full = self.ctx.node("Concat", parts, axis=1)
            rb = None
        w, rr = self._w(kernel, 3, None), self._w(r_full, 3, None)
        b = self._b([bias, rb], 3, units, None)
        ctx = self.ctx
        y, y_h = ctx.node("GRU", [seq, w, rr, b, "", ctx.unsqueeze(self.ins[self.i_h], [0])], n_out=2,
                          hidden_size=units, activations=[_ACTIVATIONS[fa], _ACTIVATIONS[g]],
                          linear_before_reset=linear_before_reset)
        return self._outputs(h_new, y, y_h)

    def _scan(self, h_new, seq, states, step, units, c_new=None, i_c=None, ids=None):
        """A Scan over the sequence's steps x ([batch, features]; with `ids`, the embedding's indices [batch]
        of that dtype) from `states` (h, and c for an LSTM): step(ctx, x, h, c, gemm) emits one step's nodes
        and returns the new states; the While's outputs."""
        ctx, m = self.ctx, self.ctx.model
        inner = Ctx(Scope(m, f"{ctx.scope.prefix}{self.op.name}/scan/"), self.op)
        names = [m.fresh(f"{inner.scope.prefix}{n}") for n in ("h", "c")[:len(states)] + ("x",)]

        def gemm(a, w, c):
            return inner.node("Gemm", [a, w] + ([] if c is None else [c]))
        outs = list(step(inner, names[-1], *names[:-1], gemm))
        sequence = self._needs_sequence(h_new, i_c)
        if sequence:
            outs.append(inner.node("Identity", [outs[0]]))

        def info(name, width):
            return helper.make_tensor_value_info(name, TensorProto.FLOAT, [None, width])
        x_info = info(names[-1], self.features) if ids is None else \
            helper.make_tensor_value_info(names[-1], ids, [None])
        body = helper.make_graph(inner.scope.nodes, m.fresh(f"{self.op.name}/scan_body"),
                                 [info(n, units) for n in names[:-1]] + [x_info],
                                 [info(n, units) for n in outs])
        res = ctx.node("Scan", list(states) + [seq], n_out=len(outs), body=body, num_scan_inputs=1)
        res = [res] if isinstance(res, str) else res
        return self._outputs(h_new, res[-1] if sequence else None, None, c_new=c_new, i_c=i_c, h_last=res[0],
                             c_last=res[1] if len(states) > 1 else None)

    def _parts(self, t, n, axis):
        return [None] * n if t is None else self.ctx.split(t, None, axis, n)

    def _gru_scan(self, h_new, seq, kernel, bias, rs, rbs, fa, g, units, reset_after):
        """The GRU as a Scan; per step, with W_k, R_k, b_k, rb_k the gate's thirds of the kernels and biases
        (rs, rbs: the recurrent ones): z = fa([x, h] @ [W_z; R_z] + b_z + rb_z), r likewise, hh = g(x @ W_h + b_h
        + r * (h @ R_h + rb_h)) (reset_before: g((r * h) @ R_h + (x @ W_h + b_h))), h' = hh + z * (h - hh)
        (Keras's z * h + (1 - z) * hh). The input projections run inside the step (on data in cache):
        projecting the whole sequence first, as Keras's loop does, wrote [steps * batch, units] three times
        and took 1.6x the CPU time at batch 1024."""
        ctx = self.ctx
        ws, bs, rbs = self._parts(kernel, 3, 1), self._parts(bias, 3, 0), list(rbs)
        for k in (0, 1):  # z's and r's two biases add up
            if bs[k] is not None and rbs[k] is not None:
                bs[k], rbs[k] = ctx.node("Add", [bs[k], rbs[k]]), None
            elif bs[k] is None:
                bs[k], rbs[k] = rbs[k], None

        emb = self._embedded(kernel, bias, 3 * units)
        if emb is not None:  # x @ W_k + b_k as rows of a table (see _embedded)
            tables = [self._table(emb[0], ws[k], bs[k]) for k in range(3)]

            def step(inner, ids, h, gemm):
                xs = [inner.node("Gather", [tab, ids], axis=0) for tab in tables]
                z, r = (inner.node(_ACTIVATIONS[fa], [gemm(h, rs[k], xs[k])]) for k in (0, 1))
                if reset_after:
                    pre = inner.node("Add", [xs[2], inner.node("Mul", [r, gemm(h, rs[2], rbs[2])])])
                else:
                    pre = gemm(inner.node("Mul", [r, h]), rs[2], xs[2])
                return _gru_blend(inner, g, pre, z, h)
            return self._scan(h_new, emb[1], [self.ins[self.i_h]], step, units, ids=emb[2])

        wrs = [ctx.node("Concat", [ws[k], rs[k]], axis=0) for k in (0, 1)]

        def step(inner, x, h, gemm):
            xh = inner.node("Concat", [x, h], axis=1)
            z, r = (inner.node(_ACTIVATIONS[fa], [gemm(xh, wrs[k], bs[k])]) for k in (0, 1))
            if reset_after:
                pre = inner.node("Add", [gemm(x, ws[2], bs[2]), inner.node("Mul", [r, gemm(h, rs[2], rbs[2])])])
            else:
                pre = gemm(inner.node("Mul", [r, h]), rs[2], gemm(x, ws[2], bs[2]))
            return _gru_blend(inner, g, pre, z, h)
        return self._scan(h_new, seq, [self.ins[self.i_h]], step, units)

    def _lstm_scan(self, h_new, c_new, i_c, seq, kernel, bias, r, fa, g, units):
        """The LSTM as a Scan; per step, with W_k, R_k, b_k Keras's gate quarters (i, f, c, o):
        gate_k = [x, h] @ [W_k; R_k] + b_k (one GEMM on the concatenated step: 7% faster than x @ W_k and h @ R_k
        at batch 64 and 1024), c' = fa(f) * c + fa(i) * g(c~), h' = fa(o) * g(c'). onnxruntime's LSTM kernel
        took 1.5x its CPU time at batch 1024 and 1.2x at 128 (the same at 64)."""
        ws, bs, rs = self._parts(kernel, 4, 1), self._parts(bias, 4, 0), self._parts(r, 4, 1)
        acts = [_ACTIVATIONS[fa if k != 2 else g] for k in range(4)]

        def cell(inner, gates, c):
            i, f, cc, o = gates
            c2 = inner.node("Add", [inner.node("Mul", [f, c]), inner.node("Mul", [i, cc])])
            return [inner.node("Mul", [o, inner.node(_ACTIVATIONS[g], [c2])]), c2]
        emb = self._embedded(kernel, bias, 4 * units)
        if emb is not None:  # x @ W_k + b_k as rows of a table (see _embedded)
            tables = [self._table(emb[0], ws[k], bs[k]) for k in range(4)]

            def step(inner, ids, h, c, gemm):
                xs = [inner.node("Gather", [tab, ids], axis=0) for tab in tables]
                return cell(inner, [inner.node(acts[k], [gemm(h, rs[k], xs[k])]) for k in range(4)], c)
            return self._scan(h_new, emb[1], [self.ins[self.i_h], self.ins[i_c]], step, units, c_new, i_c, emb[2])

        wrs = [self.ctx.node("Concat", [w, r], axis=0) for w, r in zip(ws, rs)]

        def step(inner, x, h, c, gemm):
            xh = inner.node("Concat", [x, h], axis=1)
            return cell(inner, [inner.node(acts[k], [gemm(xh, wrs[k], bs[k])]) for k in range(4)], c)
        return self._scan(h_new, seq, [self.ins[self.i_h], self.ins[i_c]], step, units, c_new, i_c)

    def _embedded(self, kernel, bias, width):
        """(table, time-major ids, their ONNX type) when the sequence is an embedding lookup, transpose(gather(E,
        ids), [1, 0, 2]) with E, the kernel and the bias constants of the model (frozen variables): then a step's
        x @ W_k + b_k is row ids[t] of the table E @ W_k + b_k, which onnxruntime computes once, when it
        loads the model (folding constants). The step gathers its rows of that table instead of multiplying:
        a third less of the LSTM's GEMM work at 32 features and 64 units, and no [steps, batch, features]
        embedding copy, then transposed. None otherwise (or where the table would be too big:
        _MAX_TABLE elements)."""
        try:
            tr = _op(self.seq_t, "Transpose")
            _need(list(tr.attrs.get("perm") or ()) == [1, 0, 2])
            ga = _op(tr.inputs[0], "GatherV2")
            _need(ga.attrs.get("axis") == 0 and not ga.attrs.get("batch_dims"))
            params, ids = ga.inputs
            _need(params.shape.rank == 2 and params.shape[0] is not None and ids.shape.rank == 2)
            _need(params.shape[0] * width <= _MAX_TABLE and params.dtype is _dt.float32)
            values = self.ctx.scope.values
            table = values[id(params)]
            _need(self._constants([table, kernel, bias]))
            return table, self.ctx.node("Transpose", [values[id(ids)]], perm=[1, 0]), onnx_type(ids.dtype)
        except (_NoMatch, KeyError, AttributeError):
            return None

    def _constants(self, names):
        """Whether the ONNX values are constants: initializers, or computed from them alone."""
        model, scope = self.ctx.model, self.ctx.scope
        known = {t.name for t in model.initializers}
        made = {o: n for n in scope.nodes for o in n.output}
        todo = [v for v in names if v is not None]
        while todo:
            v = todo.pop()
            if not isinstance(v, str):
                return False
            if v in known or v == "":
                continue
            node = made.get(v)
            if node is None or node.op_type in ("Scan", "Loop", "If"):
                return False
            known.add(v)
            todo.extend(node.input)
        return True

    def _table(self, emb, w, b):
        return self.ctx.node("Gemm", [emb, w] + ([] if b is None else [b]))

    # -- weights in ONNX's layouts ---------------------------------------------------------------------------
    def _reorder(self, x, n, order, axis):
        if order is None:
            return x
        parts = self.ctx.split(x, None, axis, n)
        return self.ctx.node("Concat", [parts[i] for i in order], axis=axis)

    def _w(self, k, n, order):
        """Keras's [rows, n*units] weight -> ONNX's [1, n*units, rows], gates in ONNX's order."""
        t = self.ctx.node("Transpose", [k], perm=[1, 0])
        return self.ctx.unsqueeze(self._reorder(t, n, order, 0), [0])

    def _b(self, biases, n, units, order):
        """[1, 2*n*units]: the input bias then the recurrent one (zeros where there is none); '' for none."""
        if all(b is None for b in biases):
            return ""
        zeros = self.ctx.const(np.zeros(n * units, np.float32))
        parts = [zeros if b is None else self._reorder(b, n, order, 0) for b in biases]
        return self.ctx.unsqueeze(self.ctx.node("Concat", parts, axis=0), [0])
