"""The one-op LSTM and GRU steps of training loops (ops/rnn_ops.py): their values and gradients equal
the cells' own ops, and they are used only while a tape records (tests/keras/test_rnn_fused_higher_order.py:
eagerly too, and under nested tapes)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.keras.layers import recurrent
from rivulet.ops import rnn_ops


def _cell(kind, dtype, **kw):
    cell = tf.keras.layers.LSTMCell(5, dtype=dtype, **kw) if kind == "lstm" else \
        tf.keras.layers.GRUCell(5, dtype=dtype, **kw)
    cell.build((3, 2))
    rng = np.random.default_rng(7)
    for v in cell.weights:  # big enough weights that the gates saturate on some entries
        v.assign(rng.standard_normal(v.shape) * 2.0)
    return cell


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_step_equals_the_cell_ops_with_gradients(kind, dtype):
    cell = _cell(kind, dtype)
    rng = np.random.default_rng(8)
    n = 4 if kind == "lstm" else 3
    xp = tf.constant((rng.standard_normal((3, n * 5)) * 3).astype(dtype))
    states = [tf.constant(rng.standard_normal((3, 5)).astype(dtype)) for _ in cell._state_names()]
    consts = cell._loop_constants()
    step = cell._fused_step(xp.dtype)
    assert step is not None

    def run(fn):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([xp] + states + ([consts] if consts is not None else []))
            out, new = fn(xp, states, consts)
            loss = tf.reduce_sum(tf.sin(out) + 2 * tf.cos(new[-1]))
        grads = tape.gradient(loss, [xp] + states + ([consts] if consts is not None else []) +
                              list(cell.trainable_weights))
        return [out.numpy()] + [s.numpy() for s in new] + [g.numpy() for g in grads if g is not None]

    got, want = run(step), run(cell._call_projected)
    # out, states; the gradients of xp, the states, (GRU: the recurrent bias,) the recurrent kernel
    assert len(got) == len(want) == (3 + 4 if kind == "lstm" else 2 + 4)
    tol = 5e-6 if dtype == "float32" else 1e-12
    for a, b in zip(got, want):
        assert a.dtype == np.dtype(dtype)
        np.testing.assert_allclose(a, b, rtol=tol * 4, atol=tol)


def test_one_op_steps_and_sequences_only_under_a_tape():
    layer = tf.keras.layers.LSTM(4)
    gru = tf.keras.layers.GRU(4)
    x = tf.constant(np.ones((2, 3, 2), np.float32))
    mask = tf.constant([[True, True, False], [True, False, True]])

    def ops(fn):
        """The op types of fn's graph, and of its loop bodies."""
        g = tf.function(fn).get_concrete_function().graph
        loops = [op.attrs["body"] for op in g.get_operations() if op.type in ("While", "StatelessWhile")]
        return {op.type for op in g.get_operations()}, [{op.type for op in lb.body.graph.get_operations()}
                                                        for lb in loops]

    def trained(mask=None, init=False):
        s = tf.ones([2, 4])
        with tf.GradientTape() as tape:
            y = layer(x, mask=mask, initial_state=[s, s] if init else None) + \
                gru(x, mask=mask, initial_state=[s] if init else None)
        return tape.gradient(y, layer.trainable_weights + gru.trainable_weights)
    for m in (None, mask):  # no loop, one op over the whole sequence each
        outer, bodies = ops(lambda: trained(m))
        assert not bodies and {"_LSTMSequence", "_LSTMSequenceGrad", "_GRUSequence", "_GRUSequenceGrad"} <= outer
    outer, bodies = ops(lambda: trained(mask, init=True))  # masked from given states too
    assert not bodies and {"_LSTMSequence", "_GRUSequence"} <= outer
    for m in (None, mask):  # predict, export: the cells' ordinary ops in a loop
        outer, bodies = ops(lambda: layer(x, mask=m) + gru(x, mask=m))
        assert not outer & {"_LSTMSequence", "_GRUSequence"}
        for body in bodies:
            assert "Sigmoid" in body and not body & {"_LSTMStep", "_GRUStep"}


@pytest.mark.parametrize("make,dtype", [
    (lambda: tf.keras.layers.LSTM(4, recurrent_activation="hard_sigmoid"), tf.float32),
    (lambda: tf.keras.layers.GRU(4, reset_after=False), tf.float32),
    (lambda: tf.keras.layers.GRU(4, use_bias=False), tf.float32),
    (lambda: tf.keras.layers.LSTM(4), tf.float16),
])
def test_other_cells_keep_their_ops(make, dtype):
    layer = make()
    layer.build((2, 3, 2))
    assert layer.cell._fused_step(dtype) is None


def test_fit_with_fused_steps_equals_fit_without(monkeypatch):
    rng = np.random.default_rng(9)
    x = rng.integers(1, 50, (16, 6)).astype(np.int32)
    y = rng.integers(0, 2, (16, 1)).astype(np.float32)

    def fit():
        tf.keras.utils.set_random_seed(3)
        model = tf.keras.Sequential([tf.keras.Input(shape=(6,), dtype="int32"), tf.keras.layers.Embedding(50, 4),
                                     tf.keras.layers.LSTM(5, return_sequences=True), tf.keras.layers.GRU(3),
                                     tf.keras.layers.Dense(1, activation="sigmoid")])
        model.compile(loss="binary_crossentropy", optimizer="adam")
        hist = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        return hist.history["loss"], [w.numpy() for w in model.weights]
    got = fit()
    for cls in (recurrent.LSTMCell, recurrent.GRUCell):  # before: the cells' ops in the loop
        monkeypatch.setattr(cls, "_fused_step", recurrent._Cell._fused_step)
    want = fit()
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    for a, b in zip(got[1], want[1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_saved_trained_model_loads_without_keras(tmp_path):
    """A saved model of a trained LSTM holds its train function's graph (with _LSTMSequence): the ops are
    registered when rivulet loads, before any Keras module."""
    import subprocess
    import sys
    code = ("import rivulet.core.op as o, rivulet\n"
            "print(sorted(k for k in o.REGISTRY if k.startswith(('_LSTM', '_GRU'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ("['_GRUSequence', '_GRUSequenceGrad', '_GRUStep', '_GRUStepGrad', '_LSTMSequence', "
                           "'_LSTMSequenceGrad', '_LSTMStep', '_LSTMStepGrad']")
    model = tf.keras.Sequential([tf.keras.Input(shape=(5,), dtype="int32"), tf.keras.layers.Embedding(20, 4),
                                 tf.keras.layers.LSTM(3), tf.keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="adam")
    x = np.random.default_rng(0).integers(0, 20, (8, 5)).astype(np.int32)
    model.fit(x, np.zeros((8, 1), np.float32), epochs=1, verbose=0)
    model.save(tmp_path / "m")
    assert "_LSTMSequence" in (tmp_path / "m" / "saved_model.json").read_text()
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path / "m"))(x).numpy(), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_step_ops_check_their_operands():
    with pytest.raises(ValueError, match="takes matrices"):
        tf.function(lambda: rnn_ops.lstm_step(tf.ones([4]), tf.ones([1, 1]), tf.ones([1, 1]),
                                              tf.ones([1, 4]))).get_concrete_function()
    with pytest.raises(TypeError, match="of one dtype"):
        tf.function(lambda: rnn_ops.gru_step(tf.ones([1, 3]), tf.ones([1, 1], tf.float64), tf.ones([1, 3]),
                                             tf.ones([3]))).get_concrete_function()


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("steps,chunk_rows", [(7, 1024), (7, 4), (1, 4)])
def test_sequence_op_equals_the_cell_ops_loop(kind, steps, chunk_rows, monkeypatch):
    """float64, every output used (sequences, final states) and given initial states: the one-op sequence's
    values and gradients (inputs, initial states, all weights) equal the loop of the cells' ordinary ops, with
    the projections and weight gradients in one chunk or in chunks of 2 time steps on the worker thread."""
    monkeypatch.setattr(rnn_ops, "_CHUNK_ROWS", chunk_rows)
    tf.keras.utils.set_random_seed(5)
    make = tf.keras.layers.LSTM if kind == "lstm" else tf.keras.layers.GRU
    layer = make(4, return_sequences=True, return_state=True, dtype="float64")
    rng = np.random.default_rng(6)
    x = tf.constant(rng.standard_normal((3, steps, 2)) * 2)
    init = [tf.constant(rng.standard_normal((3, 4))) for _ in range(2 if kind == "lstm" else 1)]
    layer(x, initial_state=init)
    for v in layer.weights:
        v.assign(rng.standard_normal(v.shape))

    @tf.function
    def run(x, init):
        with tf.GradientTape() as tape:
            tape.watch([x] + init)
            outs = layer(x, initial_state=init)
            loss = tf.reduce_sum(tf.sin(outs[0]) * 1.5) + sum(tf.reduce_sum(tf.cos(s) * (i + 2))
                                                              for i, s in enumerate(outs[1:]))
        return outs, tape.gradient(loss, [x] + init + layer.trainable_weights)

    def values(fn_run):
        outs, grads = fn_run(x, init)
        return [o.numpy() for o in outs] + [g.numpy() for g in grads]
    got = values(run)
    graph = run.get_concrete_function(x, init).graph
    assert ("_LSTMSequence" if kind == "lstm" else "_GRUSequence") in {op.type for op in graph.get_operations()}
    monkeypatch.setattr(type(layer.cell), "_fused_step", recurrent._Cell._fused_step)
    want = values(tf.function(run.python_function))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_sequence_op_in_a_forked_child(monkeypatch):
    """The chunk worker made before a fork has no thread in the child: the child makes its own (no hang)."""
    monkeypatch.setattr(rnn_ops, "_CHUNK_ROWS", 8)  # several chunks
    import os
    import signal
    x = tf.constant(np.ones((2, 40, 3), np.float32))
    layer = tf.keras.layers.GRU(4)

    @tf.function
    def grads(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(layer(x))
        return tape.gradient(y, x)
    before = grads(x).numpy()
    assert rnn_ops._pools
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 when its result equals the parent's (killed after 30 s if it hangs)
        ok = False
        try:
            signal.alarm(30)
            ok = np.array_equal(grads(x).numpy(), before)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_jobs_the_worker_has_not_started_run_in_the_walk(monkeypatch):
    """A chunk job still queued when the walk needs it (the worker waiting for a core) is taken back and run by
    the walk: same values, no wait."""
    import threading
    gate = threading.Event()
    blocker = rnn_ops._worker().submit(gate.wait)  # the worker is busy: every job stays queued
    release = threading.Timer(10, gate.set)  # (were the walk to wait for the worker, it would go on after 10 s)
    release.start()
    monkeypatch.setattr(rnn_ops, "_CHUNK_ROWS", 4)
    rng = np.random.default_rng(2)
    x, h = rng.standard_normal((9, 2, 3)), rng.standard_normal((2, 4))
    w_in, w, b = rng.standard_normal((3, 12)), rng.standard_normal((4, 12)), rng.standard_normal(12)
    try:
        out = rnn_ops._gru_seq_kernel(x, h, w_in, b, w, b, True)
        grads = rnn_ops._gru_seq_grad_kernel(np.ones((2, 4)), x, *out[1:], w_in, w, True)
        assert not gate.is_set() and not blocker.done()  # all of it ran here
    finally:
        gate.set()
        release.cancel()
    want = rnn_ops._gru_seq_grad_kernel(np.ones((2, 4)), x, *rnn_ops._gru_seq_kernel(x, h, w_in, b, w, b, True)[1:],
                                       w_in, w, True)
    for a, c in zip(list(out) + list(grads), list(rnn_ops._gru_seq_kernel(x, h, w_in, b, w, b, True)) + list(want)):
        np.testing.assert_allclose(a, c, rtol=1e-12)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize("zero_output", [False, True])
@pytest.mark.parametrize("go_backwards,init", [(False, False), (True, False), (False, True)])
def test_masked_sequence_op_equals_the_cell_ops_loop(kind, zero_output, go_backwards, init, monkeypatch):
    """float64 under a mask (leading, inner and trailing steps dropped, one row all dropped), from zero or given
    states: the one-op sequence keeps the states and repeats (or zeroes) the outputs as the loop of the cells'
    ordinary ops, gradients too."""
    monkeypatch.setattr(rnn_ops, "_CHUNK_ROWS", 8)  # chunks of 2 steps for the batch of 4
    tf.keras.utils.set_random_seed(6)
    make = tf.keras.layers.LSTM if kind == "lstm" else tf.keras.layers.GRU
    layer = make(3, return_sequences=True, return_state=True, dtype="float64", go_backwards=go_backwards)
    layer.zero_output_for_mask = zero_output
    rng = np.random.default_rng(7)
    x = tf.constant(rng.standard_normal((4, 6, 2)) * 2)
    mask = tf.constant([[True] * 6, [False, False, True, True, False, True], [False] * 6,
                        [True, False, True, True, True, False]])
    states = [tf.constant(rng.standard_normal((4, 3))) for _ in range(2 if kind == "lstm" else 1)] if init else None
    layer(x, mask=mask, initial_state=states)
    for v in layer.weights:
        v.assign(rng.standard_normal(v.shape))

    def run(x, *given):
        with tf.GradientTape() as tape:
            tape.watch([x, *given])
            outs = layer(x, mask=mask, initial_state=list(given) or None)
            loss = tf.reduce_sum(tf.sin(outs[0]) * 1.5) + sum(tf.reduce_sum(tf.cos(s) * (i + 2))
                                                              for i, s in enumerate(outs[1:]))
        return list(outs) + tape.gradient(loss, [x, *given] + layer.trainable_weights)
    f = tf.function(run)
    args = [x] + (states or [])
    got = [t.numpy() for t in f(*args)]
    graph = f.get_concrete_function(*args).graph
    assert ("_LSTMSequence" if kind == "lstm" else "_GRUSequence") in {op.type for op in graph.get_operations()}
    monkeypatch.setattr(type(layer.cell), "_fused_step", recurrent._Cell._fused_step)
    want = [t.numpy() for t in tf.function(run)(*args)]
    n_states = 2 if kind == "lstm" else 1
    assert len(got) == len(want) == 1 + n_states + 4 + (n_states if init else 0)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


# TensorFlow 2.21 (tf.keras) on the model below with the same weights: the loss, and per trainable weight
# (sum of its gradient, sum of its gradient times a fixed random array)
_TF_MASKED_LOSS = 0.7574389576911926
_TF_MASKED_GRADS = [
    (-0.043438600481749745, 0.030343938990507725), (0.012948470495757647, 0.04621152735348587),
    (0.02278579489211552, 0.10041792129917083), (-0.14021896000485867, 0.03986105717728211),
    (0.05589055146265309, 0.1465994044955163), (-0.0076256910408574186, -0.006746359445441275),
    (-0.2712364340768545, 0.15410010751988978), (0.02897522927924001, -0.17180928610217971),
    (0.11314265037071891, 0.02818331793758141), (2.2197621278464794, 0.08321668934229627),
    (-0.05857253074645996, -0.3124807354423749), (-0.9086400866508484, 0.27935034394248165)]


def test_masked_bidirectional_training_gradients_equal_tensorflows():
    """Embedding(mask_zero) -> Bidirectional(LSTM, return_sequences) -> GRU -> Dense, padded rows (one all
    padding, one with an inner zero): one training step's loss and gradients as TensorFlow 2.21's."""
    rng = np.random.default_rng(0)
    x = rng.integers(1, 30, (5, 7)).astype(np.int32)
    x[1, 4:] = 0
    x[2, :] = 0
    x[3, 2] = 0
    y = rng.standard_normal((5, 1)).astype(np.float32)
    layers = tf.keras.layers
    model = tf.keras.Sequential([layers.Embedding(30, 3, mask_zero=True),
                                 layers.Bidirectional(layers.LSTM(4, return_sequences=True)), layers.GRU(3),
                                 layers.Dense(1)])
    model(x)
    model.set_weights([np.random.default_rng(i).standard_normal(v.shape).astype(np.float32) * 0.5
                       for i, v in enumerate(model.weights)])

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        return loss, tape.gradient(loss, model.trainable_weights)
    loss, grads = step(x, y)
    graph = step.get_concrete_function(x, y).graph
    assert {"_LSTMSequence", "_GRUSequence"} <= {op.type for op in graph.get_operations()}
    np.testing.assert_allclose(loss.numpy(), _TF_MASKED_LOSS, rtol=1e-6)
    assert len(grads) == len(_TF_MASKED_GRADS)
    for i, (g, (total, mixed)) in enumerate(zip(grads, _TF_MASKED_GRADS)):
        g = tf.convert_to_tensor(g).numpy().astype(np.float64)
        r = np.random.default_rng(100 + i).standard_normal(g.shape)
        np.testing.assert_allclose([g.sum(), (g * r).sum()], [total, mixed], rtol=1e-5, atol=1e-7)
