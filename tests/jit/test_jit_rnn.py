"""Keras SimpleRNN/LSTM/GRU under jit_compile=True: their loops lower to ONNX's fused RNN/LSTM/GRU nodes and
give the NumPy executor's results; what cannot be fused (masks) is an ONNX Loop; side effects in a loop stay
on NumPy; without onnxruntime everything runs on NumPy."""
import sys
import warnings

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.usefixtures("compile_at_once")  # tests/jit/conftest.py

layers = tf.keras.layers


def model_of(make, x_shape, seed=0, mask=False):
    """A functional model around one recurrent layer, every weight random (biases and gate order matter)."""
    rs = np.random.default_rng(seed)
    inp = tf.keras.Input(shape=x_shape)
    out = make()(layers.Masking(0.0)(inp) if mask else inp)
    m = tf.keras.Model(inp, out)
    m.set_weights([rs.standard_normal(w.shape).astype(np.float32) * 0.5 for w in m.get_weights()])
    return m


def node_types(fn, x):
    """The node types of the ONNX model the function's graph lowers to (the jit tier's converters)."""
    from rivulet.onnx import export
    report = export(tf.function(fn).get_concrete_function(x))
    return {n.op_type for n in report.model.graph.node}


def jit_equals_numpy(m, x, rtol=1e-5, atol=1e-6):
    plain = tf.function(lambda a: m(a))
    jit = tf.function(lambda a: m(a), jit_compile=True)
    want = tf.nest.flatten(plain(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing falls back
        got = tf.nest.flatten(jit(x))
    assert tf.jit.tier_of(jit) == ["onnxruntime"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.abs(w.numpy()).max() > 0.05  # a real result, not zeros
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)
    return jit


CASES = {
    "lstm": (lambda: layers.LSTM(5), "LSTM"),
    "lstm_sequences_state": (lambda: layers.LSTM(5, return_sequences=True, return_state=True), "LSTM"),
    "lstm_backwards_relu": (lambda: layers.LSTM(5, go_backwards=True, activation="relu"), "LSTM"),
    "lstm_no_bias": (lambda: layers.LSTM(5, use_bias=False, return_sequences=True), "LSTM"),
    "gru": (lambda: layers.GRU(5), "GRU"),
    "gru_sequences_state": (lambda: layers.GRU(5, return_sequences=True, return_state=True), "GRU"),
    "gru_reset_before": (lambda: layers.GRU(5, reset_after=False, return_sequences=True), "GRU"),
    "gru_no_bias": (lambda: layers.GRU(5, use_bias=False), "GRU"),
    "simple_rnn": (lambda: layers.SimpleRNN(5, return_sequences=True), "RNN"),
    "simple_rnn_relu_state": (lambda: layers.SimpleRNN(5, activation="relu", return_state=True), "RNN"),
    "bidirectional": (lambda: layers.Bidirectional(layers.LSTM(5, return_sequences=True)), "LSTM"),
    "inference_dropout": (lambda: layers.GRU(5, dropout=0.3, recurrent_dropout=0.3), "GRU"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_recurrent_layers_fuse_and_equal_numpy(case):
    make, fused = CASES[case]
    x = tf.constant(np.random.default_rng(1).standard_normal((3, 6, 4)).astype(np.float32))
    m = model_of(make, (6, 4))
    jit_equals_numpy(m, x)
    types = node_types(lambda a: m(a), x)
    assert fused in types and "Loop" not in types


def test_unknown_time_steps_fuse_too():
    m = model_of(lambda: layers.LSTM(5, return_sequences=True), (None, 4))
    spec = tf.TensorSpec([None, None, 4], tf.float32)
    f = tf.function(lambda a: m(a), input_signature=[spec])
    from rivulet.onnx import export
    assert "LSTM" in {n.op_type for n in export(f).model.graph.node}
    x = tf.constant(np.random.default_rng(2).standard_normal((2, 7, 4)).astype(np.float32))
    jit_equals_numpy(m, x)


def test_exported_fused_model_runs_in_onnxruntime():
    import onnxruntime as ort
    from rivulet.onnx import export
    m = model_of(lambda: layers.GRU(5, return_sequences=True), (6, 4))
    x = np.random.default_rng(3).standard_normal((2, 6, 4)).astype(np.float32)
    report = export(tf.function(lambda a: m(a)).get_concrete_function(tf.constant(x)))
    sess = ort.InferenceSession(report.model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, m(x).numpy(), rtol=1e-5, atol=1e-6)


def test_masked_steps_are_not_fused_but_still_compiled():
    x = np.random.default_rng(4).standard_normal((3, 6, 4)).astype(np.float32)
    x[:, -2:] = 0.0
    x[1, 1] = 0.0  # a masked step in the middle: ONNX's sequence_lens cannot say it
    m = model_of(lambda: layers.LSTM(5, return_sequences=True), (6, 4), mask=True)
    x = tf.constant(x)
    jit_equals_numpy(m, x)
    types = node_types(lambda a: m(a), x)
    assert "Loop" in types and "LSTM" not in types


def test_keras_predict_with_jit_compile_and_changed_weights():
    rs = np.random.default_rng(5)
    x = rs.integers(1, 50, (40, 12)).astype(np.int32)

    def build(jit):
        tf.keras.utils.set_random_seed(3)
        m = tf.keras.Sequential([tf.keras.Input((12,), dtype="int32"), layers.Embedding(50, 8), layers.LSTM(6),
                                 layers.Dense(1, activation="sigmoid")])
        m.compile(loss="binary_crossentropy", optimizer="adam", jit_compile=jit)
        return m
    plain, jit = build(False), build(True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(jit.predict(x, batch_size=16, verbose=0),
                                   plain.predict(x, batch_size=16, verbose=0), rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(jit.make_predict_function()) == ["onnxruntime"]
    # the frozen weights change: the step is compiled again with them as inputs
    new = [w + 0.1 for w in plain.get_weights()]
    plain.set_weights(new)
    jit.set_weights(new)
    np.testing.assert_allclose(jit.predict(x, batch_size=16, verbose=0),
                               plain.predict(x, batch_size=16, verbose=0), rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(jit.make_predict_function()) == ["onnxruntime"]


def test_a_loop_with_a_side_effect_stays_on_numpy():
    from rivulet.jit import tier
    tier._said.clear()
    v = tf.Variable(2.0)

    @tf.function(jit_compile=True)
    def f(x):
        for i in tf.range(3):
            x = x * v + tf.random.uniform([])
        return x

    with pytest.warns(RuntimeWarning, match="runs on the NumPy executor.*side effect"):
        f(tf.constant(1.0))
    assert tf.jit.tier_of(f) == ["fallback"]


def test_a_loop_reading_variables_compiles():
    v = tf.Variable(np.float32(1.5))

    @tf.function(jit_compile=True)
    def f(x):
        for i in tf.range(4):
            x = x * v + 1.0
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(f(tf.constant(2.0)).numpy(), ((((2 * 1.5 + 1) * 1.5 + 1) * 1.5 + 1) * 1.5 + 1))
    assert tf.jit.tier_of(f) == ["onnxruntime"]


def test_recurrent_predict_without_onnxruntime(monkeypatch):
    from rivulet.jit import tier
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.setattr(tier, "_said", set())
    m = model_of(lambda: layers.GRU(5), (6, 4))
    x = tf.constant(np.random.default_rng(6).standard_normal((3, 6, 4)).astype(np.float32))
    jit = tf.function(lambda a: m(a), jit_compile=True)
    with pytest.warns(RuntimeWarning, match=r"pip install 'rivulet\[jit\]'"):
        got = jit(x)
    np.testing.assert_allclose(got.numpy(), tf.function(lambda a: m(a))(x).numpy(), rtol=1e-6)
    assert tf.jit.tier_of(jit) == ["fallback"]


def lowered_op_types(jit):
    (cf,) = jit._list_all_concrete_functions()
    return cf._jit_function.op_types


@pytest.mark.parametrize("make, exported", [
    (lambda: layers.GRU(5), "GRU"),
    (lambda: layers.GRU(5, return_sequences=True, return_state=True, go_backwards=True), "GRU"),
    (lambda: layers.GRU(5, activation="relu", recurrent_activation="tanh", use_bias=False), "GRU"),
    (lambda: layers.GRU(5, reset_after=False, return_sequences=True), "GRU"),
    (lambda: layers.GRU(5, reset_after=False, use_bias=False), "GRU"),
    (lambda: layers.LSTM(5), "LSTM"),
    (lambda: layers.LSTM(5, return_sequences=True, return_state=True, go_backwards=True), "LSTM"),
    (lambda: layers.LSTM(5, activation="relu", recurrent_activation="tanh", use_bias=False), "LSTM"),
    (lambda: layers.Bidirectional(layers.LSTM(5, return_sequences=True)), "LSTM"),
])
def test_lstm_and_gru_run_as_a_scan(make, exported):
    # Keras's LSTM and GRU run as a Scan of per-gate GEMMs in the compiled tier
    # (onnxruntime's LSTM and GRU kernels are slower); the exported model keeps ONNX's LSTM/GRU node
    m = model_of(make, (6, 4))
    for batch in (3, 1):
        x = tf.constant(np.random.default_rng(7).standard_normal((batch, 6, 4)).astype(np.float32))
        jit = jit_equals_numpy(m, x)
        types = lowered_op_types(jit)
        assert "Scan" in types and not types & {"GRU", "LSTM", "Loop"}
    assert exported in node_types(lambda a: m(a), x)


def test_scan_gru_with_unknown_steps_and_batch():
    m = model_of(lambda: layers.GRU(5, return_sequences=True), (None, 4))
    f = tf.function(lambda a: m(a), jit_compile=True, input_signature=[tf.TensorSpec([None, None, 4], tf.float32)])
    plain = tf.function(lambda a: m(a))
    for shape in ((2, 7, 4), (5, 3, 4)):
        x = tf.constant(np.random.default_rng(8).standard_normal(shape).astype(np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_allclose(f(x).numpy(), plain(x).numpy(), rtol=1e-5, atol=1e-6)
    assert tf.jit.tier_of(f) == ["onnxruntime"] and "Scan" in lowered_op_types(f)



def test_scan_threads_follow_the_batch():
    # one onnxruntime thread for a small batch's Scan; two (never more: its per-step GEMMs are small, and the
    # workers sleep rather than spin) once the step's GEMMs are big
    import os
    m = model_of(lambda: layers.LSTM(64), (5, 32))
    got = {}
    for batch in (4, 1024):
        x = tf.constant(np.random.default_rng(10).standard_normal((batch, 5, 32)).astype(np.float32))
        f = tf.function(lambda a: m(a), jit_compile=True)
        np.testing.assert_allclose(f(x).numpy(), tf.function(lambda a: m(a))(x).numpy(), rtol=1e-5, atol=1e-5)  # (float32 sums in another order)
        (cf,) = f._list_all_concrete_functions()
        assert "Scan" in cf._jit_function.op_types
        got[batch] = cf._jit_function.session.get_session_options().intra_op_num_threads
    assert got == {4: 1, 1024: min(2, os.cpu_count() or 1)}


@pytest.mark.parametrize("make", [
    lambda: layers.LSTM(6),
    lambda: layers.LSTM(6, return_sequences=True, use_bias=False),
    lambda: layers.GRU(6),
    lambda: layers.GRU(6, reset_after=False, return_sequences=True),
    lambda: layers.GRU(6, use_bias=False, return_state=True),
])
def test_embedding_lookups_fold_into_the_scan(make, monkeypatch):
    # Embedding then LSTM/GRU: each step gathers its rows of the constant table E @ W_k + b_k (onnxruntime
    # folds it once) instead of multiplying the embedded step by the kernel; the embedded sequence itself
    # is never built (its shape, which sizes the zero state, comes from the ids)
    from rivulet.jit import tier
    lowered = []
    real = tier._session
    monkeypatch.setattr(tier, "_session", lambda ort, low, gemm=None: lowered.append(low) or real(ort, low, gemm))
    rs = np.random.default_rng(11)
    inp = tf.keras.Input((9,), dtype="int32")
    m = tf.keras.Model(inp, make()(layers.Embedding(30, 4)(inp)))
    m.set_weights([rs.standard_normal(w.shape).astype(np.float32) * 0.5 for w in m.get_weights()])
    x = tf.constant(rs.integers(0, 30, (5, 9)).astype(np.int32))
    jit_equals_numpy(m, x)
    (low,) = lowered
    (scan,) = [n for n in low.model.graph.node if n.op_type == "Scan"]
    body = {n.op_type for n in scan.attribute[0].g.node}
    assert "Gather" in body and "Concat" not in body
    table = next(t.name for t in low.model.graph.initializer if list(t.dims) == [30, 4])
    assert not any(table in n.input and n.op_type == "Gather" for n in low.model.graph.node)
