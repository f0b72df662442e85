"""Recurrent layers: SimpleRNN, LSTM and GRU (with their cells and the generic RNN), Bidirectional.

Weights use Keras 2's layouts, so they interchange with tf_keras: LSTM gates i, f, c, o and GRU gates z, r, h
concatenated along the last axis of `kernel` [in, n*units] and `recurrent_kernel` [units, n*units]; GRU's
bias is [2, 3*units] with reset_after=True (TensorFlow 2's default). Eagerly the time loop is a Python loop;
while tracing a function it is a tf.while_loop over a TensorArray (as Keras's backend.rnn), unless `unroll`.
Masked timesteps keep the previous state and repeat the previous output (zeros with zero_output_for_mask).
Without dropout and unless `unroll`, the input side of every timestep (x @ kernel + input bias) is one stacked
GEMM before the loop (`_Cell._project`), and the cell steps on it (`_call_projected`). While a gradient tape
records (eagerly or traced, one tape or nested ones), a default LSTM or GRU without dropout is one op over the
whole sequence instead (ops/rnn_ops.py), whose gradient is differentiable where a tape records it.
"""
import rivulet as tf

from .. import activations, initializers
from . import _config
from .base import InputSpec, Layer
from ...core.context import executing_eagerly, state as _context_state
from ...ops import rnn_ops


class _Cell(Layer):
    """Shared weight creation and config of the three cells; `n_gates` blocks of `units` per weight."""
    n_gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, got "
                             f"{units}.")
        self.units = units
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        _config.init_settings(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        _config.init_settings(self, "recurrent", None, recurrent_regularizer, recurrent_constraint)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        _config.init_settings(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def build(self, input_shape):
        last = tf.TensorShape(input_shape)[-1]
        n = self.n_gates * self.units
        self.kernel = _config.add_weight(self, "kernel", "kernel", (last, n))
        self.recurrent_kernel = _config.add_weight(self, "recurrent", "recurrent_kernel", (self.units, n))
        self.bias = _config.add_weight(self, "bias", "bias", self._bias_shape(), initializer=self._bias_init()) \
            if self.use_bias else None
        self.built = True

    def _bias_shape(self):
        return (self.n_gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        batch = batch_size if batch_size is not None else tf.shape(inputs)[0]
        zeros = tf.zeros(tf.stack([batch, self.units]) if not isinstance(batch, int) else [batch, self.units],
                         dtype=dtype or self.dtype)
        return [zeros] * len(self._state_names())

    def _state_names(self):
        return ["h"]

    def _dropout_masks(self, inputs, states, training):
        """Keras draws one dropout mask per gate per batch (inputs) and per gate (recurrent state)."""
        drop = rec = None
        if training and 0 < self.dropout < 1:
            ones = tf.ones_like(inputs[:, 0] if inputs.shape.rank == 3 else inputs)
            drop = [tf.nn.dropout(ones, self.dropout) for _ in range(self.n_gates)]
        if training and 0 < self.recurrent_dropout < 1:
            ones = tf.ones_like(states[0])
            rec = [tf.nn.dropout(ones, self.recurrent_dropout) for _ in range(self.n_gates)]
        return drop, rec

    def _project(self, seq):
        """The input side of every timestep at once, [time, batch, features] -> [time, batch, n_gates*units]:
        one stacked GEMM (and the input bias) instead of one per step. None where the cell cannot split
        its step so (a subclass with its own `call`)."""
        if type(self).call is not _PROJECTED_CALL.get(type(self)):
            return None
        flat = tf.reshape(seq, [-1, seq.shape[-1]])
        proj = tf.matmul(flat, self.kernel)
        bias = self._input_bias()
        if bias is not None:
            proj = tf.nn.bias_add(proj, bias)
        n = self.n_gates * self.units
        steps, batch = seq.shape[0], seq.shape[1]
        if steps is not None or batch is not None:  # one unknown dimension: no shape arithmetic
            proj = tf.reshape(proj, [steps if steps is not None else -1, -1 if steps is not None else batch, n])
        else:
            proj = tf.reshape(proj, tf.concat([tf.shape(seq)[:2], [n]], 0))
        proj.set_shape(seq.shape[:2].concatenate([n]))
        return proj

    def _input_bias(self):
        return self.bias

    def _loop_constants(self):
        """What `_call_projected` takes from outside the time loop (computed once, before it)."""
        return None

    def _fused_step(self, dtype):
        """The one-op step (ops/rnn_ops.py) equal to this cell's projected step, with `.sequence(seq, states,
        keep)`, the one op over a whole sequence that a traced layer runs while a gradient tape records; or
        None: only the default activations of an LSTMCell or GRUCell whose step is not overridden, in float32
        or float64."""
        return None

    def _default_step(self, cls, dtype):
        return (type(self)._call_projected is cls._call_projected and self.activation is activations.tanh and
                self.recurrent_activation is activations.sigmoid and dtype in (tf.float32, tf.float64) and
                self.recurrent_kernel.dtype == dtype)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "activation": _config.activation(self.activation),
                "recurrent_activation": _config.activation(self.recurrent_activation), "use_bias": self.use_bias,
                **_config.settings(self, "kernel", "recurrent", "bias"), "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout}


def _dot(x, w, mask=None):
    return tf.matmul(x * mask if mask is not None else x, w)


class SimpleRNNCell(_Cell):
    """h' = activation(x @ kernel + h @ recurrent_kernel + bias)."""

    def __init__(self, units, activation="tanh", **kwargs):
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def call(self, inputs, states, training=None, masks=(None, None)):
        drop, rec = masks
        h = _dot(inputs, self.kernel, drop and drop[0])
        if self.bias is not None:
            h = tf.nn.bias_add(h, self.bias)
        out = self.activation(h + _dot(states[0], self.recurrent_kernel, rec and rec[0]))
        return out, [out]

    def _call_projected(self, xp, states, consts=None):
        """The step given its input side `xp` (x @ kernel + bias, from `_project`)."""
        out = self.activation(xp + tf.matmul(states[0], self.recurrent_kernel))
        return out, [out]

    def get_config(self):
        config = super().get_config()
        config.pop("recurrent_activation")
        return config


class LSTMCell(_Cell):
    """Long short-term memory step; gates i, f, c, o in that order along the weights' last axis."""
    n_gates = 4

    def __init__(self, units, unit_forget_bias=True, **kwargs):
        self.unit_forget_bias = unit_forget_bias
        super().__init__(units, **kwargs)

    def _state_names(self):
        return ["h", "c"]

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def init(shape, dtype=None, **kwargs):
            return tf.concat([base((units,), dtype=dtype), tf.ones((units,), dtype=dtype or "float32"),
                              base((units * 2,), dtype=dtype)], 0)
        return init

    def call(self, inputs, states, training=None, masks=(None, None)):
        h_prev, c_prev = states
        drop, rec = masks
        u = self.units
        if drop is None and rec is None:
            z = tf.matmul(inputs, self.kernel) + tf.matmul(h_prev, self.recurrent_kernel)
            if self.bias is not None:
                z = tf.nn.bias_add(z, self.bias)
            zi, zf, zc, zo = tf.split(z, 4, axis=1)
        else:
            parts = []
            for g in range(4):
                zg = _dot(inputs, self.kernel[:, g * u:(g + 1) * u], drop and drop[g]) + \
                    _dot(h_prev, self.recurrent_kernel[:, g * u:(g + 1) * u], rec and rec[g])
                if self.bias is not None:
                    zg = zg + self.bias[g * u:(g + 1) * u]
                parts.append(zg)
            zi, zf, zc, zo = parts
        return self._gates(zi, zf, zc, zo, c_prev)

    def _gates(self, zi, zf, zc, zo, c_prev):
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = f * c_prev + i * self.activation(zc)
        o = self.recurrent_activation(zo)
        h = o * self.activation(c)
        return h, [h, c]

    def _call_projected(self, xp, states, consts=None):
        h_prev, c_prev = states
        zi, zf, zc, zo = tf.split(xp + tf.matmul(h_prev, self.recurrent_kernel), 4, axis=1)
        return self._gates(zi, zf, zc, zo, c_prev)

    def _fused_step(self, dtype):
        if not (self._default_step(LSTMCell, dtype) and type(self)._gates is LSTMCell._gates):
            return None

        def step(xp, states, consts=None):
            h, c = rnn_ops.lstm_step(xp, states[0], states[1], tf.convert_to_tensor(self.recurrent_kernel))
            return h, [h, c]

        def sequence(seq, states, keep):
            bias = tf.convert_to_tensor(self.bias) if self.bias is not None else \
                tf.zeros([4 * self.units], seq.dtype)
            h, c, hs = rnn_ops.lstm_sequence(seq, states[0], states[1], tf.convert_to_tensor(self.kernel), bias,
                                             tf.convert_to_tensor(self.recurrent_kernel), keep)
            return h, hs, [h, c]
        step.sequence = sequence
        return step

    def get_config(self):
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


class GRUCell(_Cell):
    """Gated recurrent unit step; gates z, r, h along the weights' last axis (reset_after=True: TF 2)."""
    n_gates = 3

    def __init__(self, units, reset_after=True, **kwargs):
        self.reset_after = reset_after
        super().__init__(units, **kwargs)

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs, states, training=None, masks=(None, None)):
        h_prev = states[0]
        drop, rec = masks
        u = self.units
        if self.bias is not None:
            in_bias, rec_bias = (self.bias[0], self.bias[1]) if self.reset_after else (self.bias, None)
        else:
            in_bias = rec_bias = None
        if drop is None and rec is None and self.reset_after:  # no dropout: one matmul per weight, then split
            mx = tf.matmul(inputs, self.kernel)
            mh = tf.matmul(h_prev, self.recurrent_kernel)
            if in_bias is not None:
                mx, mh = tf.nn.bias_add(mx, in_bias), tf.nn.bias_add(mh, rec_bias)
            x_z, x_r, x_h = tf.split(mx, 3, axis=1)
            h_z, h_r, h_h = tf.split(mh, 3, axis=1)
            z = self.recurrent_activation(x_z + h_z)
            r = self.recurrent_activation(x_r + h_r)
            h = z * h_prev + (1 - z) * self.activation(x_h + r * h_h)
            return h, [h]
        xs = [_dot(inputs, self.kernel[:, g * u:(g + 1) * u], drop and drop[g]) for g in range(3)]
        if in_bias is not None:
            xs = [x + in_bias[g * u:(g + 1) * u] for g, x in enumerate(xs)]
        hs = [h_prev * rec[g] if rec else h_prev for g in range(3)]
        if self.reset_after:
            inner = [tf.matmul(hs[g], self.recurrent_kernel[:, g * u:(g + 1) * u]) for g in range(3)]
            if rec_bias is not None:
                inner = [r + rec_bias[g * u:(g + 1) * u] for g, r in enumerate(inner)]
            z = self.recurrent_activation(xs[0] + inner[0])
            r = self.recurrent_activation(xs[1] + inner[1])
            hh = self.activation(xs[2] + r * inner[2])
        else:
            z = self.recurrent_activation(xs[0] + tf.matmul(hs[0], self.recurrent_kernel[:, :u]))
            r = self.recurrent_activation(xs[1] + tf.matmul(hs[1], self.recurrent_kernel[:, u:2 * u]))
            hh = self.activation(xs[2] + tf.matmul(r * hs[2], self.recurrent_kernel[:, 2 * u:]))
        h = z * h_prev + (1 - z) * hh
        return h, [h]

    def _input_bias(self):
        if self.bias is None:
            return None
        return self.bias[0] if self.reset_after else self.bias

    def _loop_constants(self):
        return self.bias[1] if self.reset_after and self.bias is not None else None  # the recurrent bias

    def _fused_step(self, dtype):
        if not (self.reset_after and self.bias is not None and self._default_step(GRUCell, dtype)):
            return None

        def step(xp, states, consts=None):
            h = rnn_ops.gru_step(xp, states[0], tf.convert_to_tensor(self.recurrent_kernel),
                                 self.bias[1] if consts is None else consts)
            return h, [h]

        def sequence(seq, states, keep):
            bias = tf.convert_to_tensor(self.bias)
            h, hs = rnn_ops.gru_sequence(seq, states[0], tf.convert_to_tensor(self.kernel), bias[0],
                                         tf.convert_to_tensor(self.recurrent_kernel), bias[1], keep)
            return h, hs, [h]
        step.sequence = sequence
        return step

    def _call_projected(self, xp, states, consts=None):
        h_prev = states[0]
        u = self.units
        x_z, x_r, x_h = tf.split(xp, 3, axis=1)
        if self.reset_after:
            mh = tf.matmul(h_prev, self.recurrent_kernel)
            if self.bias is not None:
                mh = tf.nn.bias_add(mh, self.bias[1] if consts is None else consts)
            h_z, h_r, h_h = tf.split(mh, 3, axis=1)
            z = self.recurrent_activation(x_z + h_z)
            r = self.recurrent_activation(x_r + h_r)
            hh = self.activation(x_h + r * h_h)
        else:
            z = self.recurrent_activation(x_z + tf.matmul(h_prev, self.recurrent_kernel[:, :u]))
            r = self.recurrent_activation(x_r + tf.matmul(h_prev, self.recurrent_kernel[:, u:2 * u]))
            hh = self.activation(x_h + tf.matmul(r * h_prev, self.recurrent_kernel[:, 2 * u:]))
        h = z * h_prev + (1 - z) * hh
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}


rnn_ops.register_while_loop(tf.while_loop)  # (the sequence ops' gradient built as ops: a loop in a graph)

# The cells whose `call` is the one `_call_projected` splits (a subclass overriding `call` is run as written).
_PROJECTED_CALL = {c: c.call for c in (SimpleRNNCell, LSTMCell, GRUCell)}


class _Projected:
    """`masks` of a loop over projected inputs (x @ kernel + bias of every step), with the cell's loop
    constants (`_loop_constants`, read once outside the loop)."""
    __slots__ = ("consts",)

    def __init__(self, consts):
        self.consts = consts


class RNN(Layer):
    """Runs a cell over the time axis of [batch, time, features] inputs."""

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, time_major=False, zero_output_for_mask=False, **kwargs):
        if stateful:
            raise NotImplementedError("rivulet's recurrent layers do not support stateful=True")
        if time_major:
            raise NotImplementedError("rivulet's recurrent layers take batch-major inputs only (time_major=False)")
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll, self.time_major = go_backwards, stateful, unroll, time_major
        self.zero_output_for_mask = zero_output_for_mask
        self.input_spec = InputSpec(ndim=3)
        self.supports_masking = True

    @property
    def units(self):
        return self.cell.units

    def build(self, input_shape):
        shape = tf.TensorShape(input_shape)
        if shape.rank != 3:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=3, "
                             f"found ndim={shape.rank}. Full shape received: {shape}")
        if not self.cell.built:
            with tf.name_scope(self.name):
                self.cell.build(shape[:1].concatenate(shape[2:]))
            self.cell.built = True
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * len(self.cell._state_names())
        return out

    def call(self, inputs, mask=None, training=None, initial_state=None):
        cell = self.cell
        if inputs.dtype is not self._dtype:
            inputs = tf.cast(inputs, self._dtype)
        if initial_state is None:
            states = cell.get_initial_state(inputs, dtype=inputs.dtype)
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(states) != len(cell._state_names()):
                raise ValueError(f"An `initial_state` was passed that is not compatible with `cell.state_size`. "
                                 f"Received `state_spec`={len(states)} states; however `cell.state_size` is "
                                 f"{cell.state_size}")
        masks = cell._dropout_masks(inputs, states, training)
        seq = tf.transpose(inputs, [1, 0, 2])  # [time, batch, features]
        m = None
        if mask is not None:
            m = tf.transpose(tf.cast(mask, tf.bool), [1, 0])
        if self.go_backwards:
            seq = tf.reverse(seq, [0])
            m = tf.reverse(m, [0]) if m is not None else None
        steps = inputs.shape[1]
        unrolled = self.unroll and steps is not None
        fused = None
        # (while a tape records, eagerly or traced, unrolled or not: the gradient will be taken. Under nested
        # tapes a gradient of the gradient may follow: where a tape records the op's gradient, the gradient is
        # built from differentiable ops, ops/rnn_ops.py)
        if masks == (None, None) and _context_state.tapes and type(cell).call is _PROJECTED_CALL.get(type(cell)):
            fused = cell._fused_step(seq.dtype)
        if fused is not None:  # training: the whole loop, projection included, as one op
            last, hs, states = fused.sequence(seq, states, m if m is not None else tf.constant(True))
            outputs = None
            if self.return_sequences:  # (the op's states are [time + 1, units, batch])
                outputs = tf.transpose(hs[1:], [0, 2, 1])
                outputs.set_shape(tf.TensorShape([seq.shape[0]]).concatenate(last.shape))
            if m is not None:  # a masked step's output: zeros, or the previous output (zeros before the first
                # kept step, where the held state is the initial one)
                shown = m if self.zero_output_for_mask else \
                    tf.cast(tf.cumsum(tf.cast(m, tf.int32), axis=0), tf.bool) if initial_state is not None else None
                if shown is not None:
                    if outputs is not None:
                        outputs = tf.where(tf.expand_dims(shown, -1), outputs, tf.zeros_like(outputs))
                    last = tf.where(tf.expand_dims(shown[-1], -1), last, tf.zeros_like(last))
        else:
            if masks == (None, None) and not unrolled:
                # no dropout: the input projections of all timesteps as one GEMM before the loop
                xp = cell._project(seq)
                if xp is not None:
                    seq, masks = xp, _Projected(cell._loop_constants())
            if executing_eagerly() or unrolled:
                last, outputs, states = self._loop_python(seq, m, states, steps if steps is not None
                                                          else int(tf.shape(inputs)[1]), training, masks)
            else:
                last, outputs, states = self._loop_graph(seq, m, states, training, masks)
        out = tf.transpose(outputs, [1, 0, 2]) if self.return_sequences else last
        if self.return_state:
            return [out] + list(states)
        return out

    def _step(self, x, m_t, states, prev_out, training, masks):
        if isinstance(masks, _Projected):
            out, new_states = self.cell._call_projected(x, states, masks.consts)
        else:
            out, new_states = self.cell.call(x, states, training=training, masks=masks)
        if m_t is not None:
            keep = tf.expand_dims(m_t, -1)
            new_states = [tf.where(keep, n, s) for n, s in zip(new_states, states)]
            out = tf.where(keep, out, tf.zeros_like(out) if self.zero_output_for_mask else prev_out)
        return out, new_states

    def _loop_python(self, seq, m, states, steps, training, masks):
        outs = []
        prev = tf.zeros_like(states[0])
        for t in range(steps):
            prev, states = self._step(seq[t], None if m is None else m[t], states, prev, training, masks)
            outs.append(prev)
        if not outs:
            raise ValueError("Recurrent layers need at least one timestep")
        return prev, (tf.stack(outs) if self.return_sequences else None), states

    def _loop_graph(self, seq, m, states, training, masks):
        """A tf.while_loop over the time steps. With return_sequences the outputs are kept in a loop variable:
        while a gradient tape records (the loop's gradient will be taken: `fit`), a TensorArray written once
        per step, as Keras's backend.rnn (its gradient, a gradient list, costs O(1) per step too); otherwise a
        [time, batch, units] buffer updated with tensor_scatter_nd_update (a copy per step), the form the ONNX
        and TFLite converters fuse into one RNN node. Loop variables carry only what is needed: no outputs
        without return_sequences, and no previous output where it is the first state anyway (a built-in cell
        on projected inputs, no mask, timesteps known)."""
        steps = tf.shape(seq)[0]
        n = len(states)
        keep_prev = not (m is None and isinstance(masks, _Projected) and seq.shape[0] is not None and
                         seq.shape[0] > 0)
        init = [tf.constant(0)] + list(states)
        if keep_prev:
            init.append(tf.zeros_like(states[0]))
        as_list = self.return_sequences and bool(_context_state.tapes)
        if as_list:
            init.append(tf.TensorArray(states[0].dtype, size=steps, element_shape=states[0].shape))
        elif self.return_sequences:
            init.append(tf.zeros(tf.concat([[steps], tf.shape(states[0])], 0), states[0].dtype))

        def cond(t, *_):
            return t < steps

        def body(t, *rest):
            st = list(rest[:n])
            prev = rest[n] if keep_prev else None
            out, new = self._step(seq[t], None if m is None else m[t], st, prev, training, masks)
            extra = [out] if keep_prev else []
            if as_list:
                extra.append(rest[-1].write(t, out))
            elif self.return_sequences:
                buf = tf.tensor_scatter_nd_update(rest[-1], tf.reshape(t, [1, 1]), tf.expand_dims(out, 0))
                extra.append(buf)
            return (t + 1, *new, *extra)
        result = tf.while_loop(cond, body, tuple(init))
        states = list(result[1:n + 1])
        last = result[n + 1] if keep_prev else states[0]
        outputs = result[-1].stack() if as_list else result[-1] if self.return_sequences else None
        if self.return_sequences:
            outputs.set_shape(tf.TensorShape([seq.shape[0]]).concatenate(last.shape))
        return last, outputs, states

    @classmethod
    def from_config(cls, config):
        if cls is RNN:  # the generic layer stores its cell's spec
            return _config.wrapper_from_config(cls, config, "cell")
        return cls(**config)

    def get_config(self):
        config = {**super().get_config(), "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards, "stateful": self.stateful,
                  "unroll": self.unroll, "time_major": self.time_major}
        if type(self) is not RNN:
            config["activity_regularizer"] = _config.serialize(self.activity_regularizer)
            if type(self) is not SimpleRNN:
                config["implementation"] = 2
        if type(self) is RNN:
            config["cell"] = {"class_name": type(self.cell).__name__, "config": self.cell.get_config()}
        else:
            cell = self.cell.get_config()
            for k in ("name", "trainable", "dtype"):
                cell.pop(k, None)
            config.update(cell)
        return config


_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "time_major", "name",
             "trainable", "dtype", "input_shape", "batch_input_shape", "batch_size", "input_dim",
             "activity_regularizer", "zero_output_for_mask", "weights", "input_length")


def _split(kwargs):
    layer = {k: kwargs.pop(k) for k in list(kwargs) if k in _RNN_KEYS}
    if "input_length" in layer:
        n = layer.pop("input_length")
        if "input_dim" in layer:
            layer["input_shape"] = (n, layer.pop("input_dim"))
    elif "input_dim" in layer:
        layer["input_shape"] = (None, layer.pop("input_dim"))
    return layer, kwargs


class SimpleRNN(RNN):
    def __init__(self, units, activation="tanh", **kwargs):
        layer, cell = _split(dict(kwargs))
        super().__init__(SimpleRNNCell(units, activation=activation, name="simple_rnn_cell", dtype=layer.get("dtype"),
                                       **cell), **layer)


class LSTM(RNN):
    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", **kwargs):
        layer, cell = _split(dict(kwargs))
        super().__init__(LSTMCell(units, activation=activation, recurrent_activation=recurrent_activation,
                                  name="lstm_cell", dtype=layer.get("dtype"), **cell), **layer)


class GRU(RNN):
    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", **kwargs):
        layer, cell = _split(dict(kwargs))
        super().__init__(GRUCell(units, activation=activation, recurrent_activation=recurrent_activation,
                                 name="gru_cell", dtype=layer.get("dtype"), **cell), **layer)


class Bidirectional(Layer):
    """Runs `layer` forwards and a copy backwards over time and merges their outputs ("concat" by default)."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, RNN):
            raise ValueError(f"Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             f"{{\"sum\", \"mul\", \"ave\", \"concat\", None}}")
        super().__init__(**kwargs)
        config = layer.get_config()
        self.forward_layer = layer
        self._backward_given = backward_layer is not None
        if backward_layer is None:
            cls = type(layer)
            cfg = {k: v for k, v in config.items() if k not in ("name", "batch_input_shape")}
            for k in ("kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
                      "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
                      "bias_constraint"):
                cfg[k] = getattr(layer.cell, k)
            for k in ("kernel_initializer", "recurrent_initializer", "bias_initializer"):
                # a fresh initializer from the same config, as tf_keras rebuilds the backward layer from config
                init = cfg[k]
                if isinstance(init, initializers.Initializer):
                    cfg[k] = type(init).from_config(init.get_config())
            cfg["go_backwards"] = not layer.go_backwards
            units = cfg.pop("units")
            backward_layer = cls(units, name="backward_" + layer.name, **cfg)
        self.backward_layer = backward_layer
        self.forward_layer._name = "forward_" + layer.name
        self.forward_layer.zero_output_for_mask = self.backward_layer.zero_output_for_mask = \
            layer.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state
        self.supports_masking = True
        self._initial_weights_bi = weights

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            n = 2 * len(self.forward_layer.cell._state_names())
            return ([out] if self.merge_mode is not None else [out, out]) + [None] * n
        return out if self.merge_mode is not None else [out, out]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        fw_state = bw_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_state, bw_state = initial_state[:half], initial_state[half:]
        fw = self.forward_layer(inputs, mask=mask, training=training, initial_state=fw_state)
        bw = self.backward_layer(inputs, mask=mask, training=training, initial_state=bw_state)
        states = []
        if self.return_state:
            fw, states_f = fw[0], fw[1:]
            bw, states_b = bw[0], bw[1:]
            states = list(states_f) + list(states_b)
        if self.return_sequences:
            bw = tf.reverse(bw, [1])
        if self.merge_mode == "concat":
            out = tf.concat([fw, bw], -1)
        elif self.merge_mode == "sum":
            out = fw + bw
        elif self.merge_mode == "ave":
            out = (fw + bw) / 2
        elif self.merge_mode == "mul":
            out = fw * bw
        else:
            out = [fw, bw]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + states
        return out

    @classmethod
    def from_config(cls, config):
        return _config.wrapper_from_config(cls, config, "layer")

    def get_config(self):
        # tf_keras's keys: no `weights`, and `backward_layer` only when one was given
        config = {k: v for k, v in super().get_config().items() if k not in ("weights", "backward_layer")}
        config.update(merge_mode=self.merge_mode,
                      layer={"class_name": type(self.forward_layer).__name__,
                             "config": {**self.forward_layer.get_config(), "name": self.forward_layer.name[8:]}})
        if self._backward_given:
            config["backward_layer"] = {"class_name": type(self.backward_layer).__name__,
                                        "config": self.backward_layer.get_config()}
        return config
