"""The one-op LSTM and GRU sequences (ops/rnn_ops.py) under nested tapes: the layers use them whenever a tape
records, eagerly and traced, and where a tape records their gradient (a gradient penalty, a Hessian) that
gradient is built from differentiable ops, so first and second order gradients equal the cells' own ops."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.layers import recurrent
from rivulet.ops import rnn_ops


def _cells_ops(monkeypatch):
    """From now on the layers run the cells' ordinary ops (the path before the one-op sequences)."""
    for cls in (recurrent.LSTMCell, recurrent.GRUCell):
        monkeypatch.setattr(cls, "_fused_step", recurrent._Cell._fused_step)


@pytest.fixture
def sequence_calls(monkeypatch):
    """The kinds of one-op sequences the layers build ("lstm", "gru"), in order."""
    calls = []
    for name in ("lstm", "gru"):
        real = getattr(rnn_ops, name + "_sequence")
        monkeypatch.setattr(rnn_ops, name + "_sequence", lambda *a, real=real, name=name: calls.append(name) or
                            real(*a))
    return calls


def _graph_ops(fn, *args):
    return {op.type for op in fn.get_concrete_function(*args).graph.get_operations()}


def _loops(types):
    return types & {"While", "StatelessWhile"}


def _close(got, want, tol):
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if b is None:
            assert a is None
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _values(xs):
    return [None if v is None else tf.convert_to_tensor(v).numpy() for v in xs]


_VARIANTS = {  # layer keywords, mask, initial states
    "last": ({}, False, False),
    "sequences": ({"return_sequences": True}, False, False),
    "states": ({"return_sequences": True, "return_state": True}, False, True),
    "backwards-masked": ({"go_backwards": True, "return_state": True}, True, False),
    "masked-zeros": ({"return_sequences": True, "zero_output_for_mask": True}, True, True),
    "unrolled": ({"unroll": True, "return_sequences": True}, False, False),
}


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("variant", sorted(_VARIANTS))
@pytest.mark.parametrize("traced", [False, True])
def test_second_order_gradients_equal_the_cells_ops(kind, variant, traced, sequence_calls, monkeypatch):
    """float64: the outputs, d(out)/d(inputs, states) and the gradient of its squared norm with respect to the
    inputs, initial states and weights, as the loop of the cells' ordinary ops gives them."""
    kw, masked, init = _VARIANTS[variant]
    tf.keras.utils.set_random_seed(4)
    make = tf.keras.layers.LSTM if kind == "lstm" else tf.keras.layers.GRU
    layer = make(3, dtype="float64", **kw)
    rng = np.random.default_rng(11)
    x = tf.constant(rng.standard_normal((4, 5, 2)))
    mask = tf.constant([[True] * 5, [False, True, True, False, True], [False] * 5, [True, True, False, True, False]])
    n_states = 2 if kind == "lstm" else 1
    states = [tf.constant(rng.standard_normal((4, 3))) for _ in range(n_states)] if init else []
    layer(x, mask=mask if masked else None, initial_state=states or None)
    for v in layer.weights:
        v.assign(rng.standard_normal(v.shape) * 0.8)
    def run(x, *states):
        sources = [x, *states]
        with tf.GradientTape() as t2:
            t2.watch(sources)
            with tf.GradientTape() as t1:
                t1.watch(sources)
                outs = layer(x, mask=mask if masked else None, initial_state=list(states) or None)
                outs = outs if isinstance(outs, list) else [outs]
                y = sum(tf.reduce_sum(tf.sin(o) * (i + 1)) for i, o in enumerate(outs))
            g = t1.gradient(y, sources)
            p = sum(tf.reduce_sum(d * d) for d in g)
        return outs + g + [p] + t2.gradient(p, sources + layer.trainable_weights)
    f = tf.function(run) if traced else run
    got = _values(f(x, *states))
    assert sequence_calls == [kind]  # the one-op sequence ran
    if traced:
        types = _graph_ops(f, x, *states)
        assert ("_LSTMSequence" if kind == "lstm" else "_GRUSequence") in types
    _cells_ops(monkeypatch)
    want = _values((tf.function(run) if traced else run)(x, *states))
    assert len(got) == len(want) and all(v is not None for v in want[-4:])
    _close(got, want, 1e-10)


@pytest.mark.parametrize("traced", [False, True])
def test_float32_hessian_of_a_stack(traced, sequence_calls, monkeypatch):
    """float32, LSTM(return_sequences) -> GRU: the Hessian of a scalar in the inputs, as with the cells' ops
    (within float32 rounding: the one-op sequence's sigmoid is 0.5 tanh(x/2) + 0.5)."""
    tf.keras.utils.set_random_seed(2)
    model = tf.keras.Sequential([tf.keras.Input((4, 2)), tf.keras.layers.LSTM(3, return_sequences=True),
                                 tf.keras.layers.GRU(2)])
    x = tf.constant(np.random.default_rng(3).standard_normal((2, 4, 2)).astype(np.float32))

    def run(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.reduce_sum(tf.tanh(model(x, training=True)))
            g = t1.gradient(y, x)
        return y, g, t2.jacobian(g, x)
    f = tf.function(run) if traced else run
    got = _values(f(x))
    assert sequence_calls == ["lstm", "gru"]
    if traced:
        assert {"_LSTMSequence", "_GRUSequence"} <= _graph_ops(f, x)
    _cells_ops(monkeypatch)
    want = _values((tf.function(run) if traced else run)(x))
    assert got[2].shape == (2, 4, 2, 2, 4, 2)
    _close(got, want, 2e-5)


# TensorFlow 2.21 (tf.keras) on test_gradient_penalty_of_a_keras_rnn's critic (tests/autodiff/
# test_second_order_loops.py): the penalty and the sums of its gradients (kernel, recurrent kernel, bias, Dense
# kernel); the last bias has none
_TF_PENALTIES = {"LSTM": (0.9097, [0.10164, -0.04588, 0.05825, -1.26263]),
                 "GRU": (0.81972, [0.08186, -0.05468, -0.0248, 0.57761])}


@pytest.mark.parametrize("layer", sorted(_TF_PENALTIES))
@pytest.mark.parametrize("traced", [False, True])
def test_gradient_penalty_uses_the_sequence_op_and_equals_tensorflows(layer, traced, sequence_calls):
    penalty, sums = _TF_PENALTIES[layer]
    model = tf.keras.Sequential([tf.keras.Input((5, 3)), getattr(tf.keras.layers, layer)(4), tf.keras.layers.Dense(1)])
    model.set_weights([np.linspace(-0.5, 0.5, w.size, dtype=np.float32).reshape(w.shape) for w in model.get_weights()])
    x = tf.constant(np.linspace(-1, 1, 30, dtype=np.float32).reshape(2, 5, 3))

    def step():
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = model(x, training=True)
            g = t1.gradient(y, x)
            p = tf.reduce_mean((tf.norm(tf.reshape(g, [2, -1]), axis=1) - 1.0) ** 2)
        return p, t2.gradient(p, model.trainable_variables)
    f = tf.function(step) if traced else step
    p, grads = f()
    assert sequence_calls == [layer.lower()]
    if traced:
        assert f"_{layer}Sequence" in _graph_ops(f)
    np.testing.assert_allclose(float(p), penalty, rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose([float(tf.reduce_sum(v)) for v in grads[:4]], sums, rtol=2e-4, atol=2e-4)
    assert grads[4] is None


def _gan():
    tf.keras.utils.set_random_seed(8)
    gen = tf.keras.Sequential([tf.keras.Input((6, 3)), tf.keras.layers.LSTM(5, return_sequences=True),
                               tf.keras.layers.Dense(2)])
    disc = tf.keras.Sequential([tf.keras.Input((6, 2)), tf.keras.layers.GRU(4), tf.keras.layers.Dense(1)])
    rng = np.random.default_rng(9)
    noise = tf.constant(rng.standard_normal((8, 6, 3)).astype(np.float32))
    real = tf.constant(rng.standard_normal((8, 6, 2)).astype(np.float32))
    opt_g, opt_d = tf.keras.optimizers.Adam(1e-2), tf.keras.optimizers.Adam(1e-2)
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    def step(noise, real):  # the two-tape step of TensorFlow's DCGAN tutorial
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            fake = gen(noise, training=True)
            real_out, fake_out = disc(real, training=True), disc(fake, training=True)
            gen_loss = bce(tf.ones_like(fake_out), fake_out)
            disc_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
        opt_g.apply_gradients(zip(gen_tape.gradient(gen_loss, gen.trainable_variables), gen.trainable_variables))
        opt_d.apply_gradients(zip(disc_tape.gradient(disc_loss, disc.trainable_variables), disc.trainable_variables))
        return gen_loss, disc_loss
    return gen, disc, noise, real, step


@pytest.mark.parametrize("traced", [False, True])
def test_two_tape_gan_steps_use_the_fused_gradients(traced, sequence_calls, monkeypatch):
    """Generator and critic recurrent, one tape each (both record the whole step): the sequences and their
    gradients are the fused ops, no loop anywhere, and three steps train as the cells' ops do."""
    def train():
        gen, disc, noise, real, step = _gan()
        f = tf.function(step) if traced else step
        losses = [_values(f(noise, real)) for _ in range(3)]
        return f, (noise, real), losses, _values(gen.weights + disc.weights)
    f, args, losses, weights = train()
    assert sequence_calls[:3] == ["lstm", "gru", "gru"]
    if traced:
        types = _graph_ops(f, *args)
        assert {"_LSTMSequence", "_LSTMSequenceGrad", "_GRUSequence", "_GRUSequenceGrad"} <= types
        assert not _loops(types)
    _cells_ops(monkeypatch)
    _, _, want_losses, want_weights = train()
    np.testing.assert_allclose(np.array(losses, np.float64), np.array(want_losses, np.float64), rtol=1e-5)
    _close(weights, want_weights, 1e-5)


def test_the_gradient_is_ops_only_where_a_tape_records_it():
    """Decided per gradient from what the recording tapes watch, not from how many there are: an outer tape
    that watches nothing the sequence's gradient reads leaves it the fused op; one that does gets ops (a loop).
    (A tape watching the variables it sees read watches the weights: it could differentiate the gradient.)"""
    layer = tf.keras.layers.LSTM(3)
    x = tf.constant(np.ones((2, 4, 2), np.float32))
    z = tf.constant(1.0)
    layer(x)

    @tf.function
    def unrelated():
        with tf.GradientTape(watch_accessed_variables=False) as outer:
            outer.watch(z)
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(layer(x))
            g = inner.gradient(y, layer.trainable_weights)
        return g, outer.gradient(z * z, z)

    @tf.function
    def penalty():
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(layer(x))
            g = inner.gradient(y, x)
            p = tf.reduce_sum(g * g)
        return outer.gradient(p, layer.trainable_weights)
    types = _graph_ops(unrelated)
    assert {"_LSTMSequence", "_LSTMSequenceGrad"} <= types and not _loops(types)
    types = _graph_ops(penalty)
    assert {"_LSTMSequence", "_LSTMSequenceGrad"} <= types and _loops(types)  # (the gradient's walk: a loop)


def test_fused_gradient_takes_the_cell_states_gradient():
    """_LSTMSequenceGrad given the gradients of H and of C (the stacked states a gradient built as ops reads)
    equals the gradient of sum(H * a) + sum(C * b) through the cells' ops."""
    rng = np.random.default_rng(5)
    t, bt, u, n = 4, 3, 2, 3
    x, h0, c0 = rng.standard_normal((t, bt, n)), rng.standard_normal((bt, u)), rng.standard_normal((bt, u))
    w_in, b, w = rng.standard_normal((n, 4 * u)), rng.standard_normal(4 * u), rng.standard_normal((u, 4 * u))
    a, c = rng.standard_normal((t + 1, u, bt)), rng.standard_normal((t + 1, u, bt))
    keep = np.array([[True] * bt, [True, False, True], [False, True, True], [True] * bt])
    out = rnn_ops._lstm_seq_kernel(x, h0, c0, w_in, b, w, keep)
    got = rnn_ops._lstm_seq_grad_kernel(np.zeros((bt, u)), np.zeros((bt, u)), x, *out[2:], w_in, w, keep, a, c)
    args = [tf.constant(v) for v in (x, h0, c0, w_in, b, w)]
    with tf.GradientTape() as tape:
        tape.watch(args)
        xs, h, cc = args[0], args[1], args[2]
        hs, cs = [h], [cc]
        for i in range(t):
            z = tf.matmul(xs[i], args[3]) + args[4] + tf.matmul(h, args[5])
            zi, zf, zg, zo = tf.split(z, 4, axis=1)
            c2 = tf.sigmoid(zf) * cc + tf.sigmoid(zi) * tf.tanh(zg)
            h2 = tf.sigmoid(zo) * tf.tanh(c2)
            k = tf.constant(keep[i][:, None])
            h, cc = tf.where(k, h2, h), tf.where(k, c2, cc)
            hs.append(h)
            cs.append(cc)
        loss = tf.reduce_sum(tf.transpose(tf.stack(hs), [0, 2, 1]) * a) + \
            tf.reduce_sum(tf.transpose(tf.stack(cs), [0, 2, 1]) * c)
    want = _values(tape.gradient(loss, args))
    order = [0, 1, 2, 3, 4, 5]  # the kernel's results: dx, dh0, dc0, dw_in, db, dw
    _close([got[i] for i in order], want, 1e-10)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_third_order_gradients_equal_the_cells_ops(kind, sequence_calls, monkeypatch):
    """Three nested tapes (traced): the gradient built as ops is itself recorded, so the sequence op's gradient
    given the stacked states' gradients is built as ops again; values as the cells' ops give them."""
    tf.keras.utils.set_random_seed(1)
    layer = (tf.keras.layers.LSTM if kind == "lstm" else tf.keras.layers.GRU)(3, dtype="float64")
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 4, 2)))
    layer(x)

    def run():
        with tf.GradientTape() as t3:
            with tf.GradientTape() as t2:
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = tf.reduce_sum(tf.sin(layer(x)))
                g = t1.gradient(y, x)
                p = tf.reduce_sum(g * g)
            g2 = t2.gradient(p, layer.trainable_weights[1])
            q = tf.reduce_sum(g2 * g2)
        return [y, p, q] + t3.gradient(q, layer.trainable_weights)
    got = _values(tf.function(run)())
    assert sequence_calls == [kind]
    _cells_ops(monkeypatch)
    _close(got, _values(tf.function(run)()), 1e-10)
