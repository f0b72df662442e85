"""The one-op LSTM and GRU steps of training loops (ops/rnn_ops.py): their values and gradients equal
the cells' own ops, and they are used only while a tape records a traced layer."""
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


def test_the_step_is_one_op_only_under_a_tape():
    layer = tf.keras.layers.LSTM(4)
    gru = tf.keras.layers.GRU(4)
    x = tf.constant(np.ones((2, 3, 2), np.float32))

    def body_ops(fn):
        g = tf.function(fn).get_concrete_function().graph
        loops = [op.attrs["body"] for op in g.get_operations() if op.type in ("While", "StatelessWhile")]
        return [{op.type for op in lb.body.graph.get_operations()} for lb in loops]

    def trained():
        with tf.GradientTape() as tape:
            y = layer(x) + gru(x)
        return tape.gradient(y, layer.trainable_weights + gru.trainable_weights)
    types = body_ops(trained)
    assert "_LSTMStep" in types[0] and "_GRUStep" in types[1]
    assert "Sigmoid" not in types[0] | types[1]
    for ops in body_ops(lambda: layer(x) + gru(x)):  # predict, export: the cells' ordinary ops
        assert "Sigmoid" in ops and not ops & {"_LSTMStep", "_GRUStep"}


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
    """A saved model of a trained LSTM holds its train function's loop (with _LSTMStep): the ops are registered
    when rivulet loads, before any Keras module."""
    import subprocess
    import sys
    code = "import rivulet.core.op as o, rivulet; print(sorted(k for k in o.REGISTRY if k.startswith(('_LSTM', '_GRU'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['_GRUStep', '_GRUStepGrad', '_LSTMStep', '_LSTMStepGrad']"
    model = tf.keras.Sequential([tf.keras.Input(shape=(5,), dtype="int32"), tf.keras.layers.Embedding(20, 4),
                                 tf.keras.layers.LSTM(3), tf.keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="adam")
    x = np.random.default_rng(0).integers(0, 20, (8, 5)).astype(np.int32)
    model.fit(x, np.zeros((8, 1), np.float32), epochs=1, verbose=0)
    model.save(tmp_path / "m")
    assert "_LSTMStep" in (tmp_path / "m" / "saved_model.json").read_text()
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path / "m"))(x).numpy(), model.predict(x, verbose=0),
                               rtol=1e-6)


def test_step_ops_check_their_operands():
    with pytest.raises(ValueError, match="takes matrices"):
        tf.function(lambda: rnn_ops.lstm_step(tf.ones([4]), tf.ones([1, 1]), tf.ones([1, 1]),
                                              tf.ones([1, 4]))).get_concrete_function()
    with pytest.raises(TypeError, match="of one dtype"):
        tf.function(lambda: rnn_ops.gru_step(tf.ones([1, 3]), tf.ones([1, 1], tf.float64), tf.ones([1, 3]),
                                             tf.ones([3]))).get_concrete_function()
