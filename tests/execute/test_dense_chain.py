"""Chains of small Dense layers (execute/dense_chain.py): with the `onednn` extra, _FusedMatMul ops each read by
the next alone compile to one call running a oneDNN matmul primitive per layer (bias and ReLU fused), with
NumPy's values up to float32 rounding; its buffers are per call (threads), its weights re-read when a
variable is assigned; without oneDNN the graph compiles as before."""
import re
import threading

import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import dense_chain, onednn

needs = pytest.mark.skipif(onednn.api() is None, reason="the onednn extra (onednn-cpu-gomp) is not installed")


def _mlp(depth=6, units=32, inputs=48, seed=3):
    rs = np.random.default_rng(seed)
    ws = [tf.Variable((rs.standard_normal((inputs if i == 0 else units, units)) * 0.3).astype(np.float32))
          for i in range(depth)]
    bs = [tf.Variable((rs.standard_normal(units) * 0.1).astype(np.float32)) for _ in range(depth)]

    @tf.function
    def f(x):
        for i, (w, b) in enumerate(zip(ws, bs)):
            x = tf.matmul(x, w) + b
            if i < depth - 1:
                x = tf.nn.relu(x)
        return x
    return f, ws, bs


def _reference(x, ws, bs):
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(zip(ws, bs)):
        h = h @ w.numpy().astype(np.float64) + b.numpy()
        if i < len(ws) - 1:
            h = np.maximum(h, 0)
    return h


def _chain_calls(f, x):
    src = f.get_concrete_function(x)._compiled.source
    return [ln for ln in src.splitlines() if re.search(r"= k\d+\(", ln) and "_value" not in ln], src


@needs
def test_a_stack_of_dense_layers_is_one_call_with_numpys_values():
    f, ws, bs = _mlp()
    x = np.random.default_rng(0).standard_normal((5, 48)).astype(np.float32)
    got = f(tf.constant(x))
    assert got.dtype == tf.float32 and got.shape == (5, 32)
    np.testing.assert_allclose(got.numpy(), _reference(x, ws, bs), rtol=1e-5, atol=1e-5)
    calls, src = _chain_calls(f, tf.constant(x))
    assert len(calls) == 1, src  # the six layers: one call
    assert "_dot" not in src
    # the output is a fresh array each call: nothing of the chain's buffers escapes
    again = f(tf.constant(x))
    assert not np.shares_memory(got.numpy(), again.numpy())
    np.testing.assert_array_equal(got.numpy(), again.numpy())


@needs
def test_assigned_weights_are_read_again():
    f, ws, bs = _mlp(depth=3)
    x = tf.constant(np.ones((4, 48), np.float32))
    f(x)
    ws[1].assign(ws[1].numpy() * 2)
    bs[2].assign_add(tf.ones([32]))
    np.testing.assert_allclose(f(x).numpy(), _reference(x.numpy(), ws, bs), rtol=1e-5, atol=1e-5)


@needs
def test_concurrent_calls_of_one_function_do_not_share_buffers():
    f, ws, bs = _mlp(depth=8)
    xs = [np.random.default_rng(i).standard_normal((3, 48)).astype(np.float32) for i in range(4)]
    want = [f(tf.constant(x)).numpy() for x in xs]
    bad = []

    def work(i):
        for _ in range(50):
            if not np.array_equal(f(tf.constant(xs[i])).numpy(), want[i]):
                bad.append(i)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


@needs
def test_a_product_read_elsewhere_ends_the_chain():
    rs = np.random.default_rng(1)
    w1, w2, w3 = (tf.constant(rs.standard_normal((16, 16)).astype(np.float32)) for _ in range(3))

    @tf.function
    def f(x):
        h = tf.nn.relu(tf.matmul(x, w1))
        y = tf.nn.relu(tf.matmul(h, w2))
        return tf.nn.relu(tf.matmul(y, w3)), h  # h is an output too: the chain is the last two layers
    x = rs.standard_normal((4, 16)).astype(np.float32)
    out, h = f(tf.constant(x))
    hw = np.maximum(x @ w1.numpy(), 0)
    np.testing.assert_allclose(h.numpy(), hw, rtol=1e-5, atol=1e-5)
    want = np.maximum(np.maximum(hw @ w2.numpy(), 0) @ w3.numpy(), 0)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    calls, src = _chain_calls(f, tf.constant(x))
    assert len(calls) == 1 and src.count("_max(_dot(") == 1, src  # h's own layer, then the chain of two


def test_without_onednn_the_graph_compiles_as_before(monkeypatch):
    monkeypatch.setattr(onednn, "_found", [None])
    f, ws, bs = _mlp(depth=4)
    x = np.random.default_rng(2).standard_normal((5, 48)).astype(np.float32)
    got = f(tf.constant(x)).numpy()
    calls, src = _chain_calls(f, tf.constant(x))
    assert src.count("_dot_bias") == 4, src
    h = x
    for i, (w, b) in enumerate(zip(ws, bs)):  # NumPy's own rounding: the unchained form, bit for bit
        h = np.dot(h, w.numpy()) + b.numpy()
        if i < 3:
            h = np.maximum(h, 0)
    np.testing.assert_array_equal(got, h)


@needs
def test_a_chain_runs_numpy_once_onednn_is_gone(monkeypatch):
    layers = [(2, 3, 4, True, True), (2, 4, 2, False, False)]
    zero = np.zeros((2, 4), np.float32)
    chain = dense_chain.Chain(layers, [dense_chain._numpy_layer(True, zero), dense_chain._numpy_layer(False, None)])
    rs = np.random.default_rng(4)
    x, w1, b1, w2 = (rs.standard_normal(s).astype(np.float32) for s in ((2, 3), (3, 4), (4,), (4, 2)))
    want = np.maximum(x @ w1 + b1, 0) @ w2
    np.testing.assert_allclose(chain(x, w1, b1, w2), want, rtol=1e-5, atol=1e-6)
    monkeypatch.setattr(onednn, "_found", [None])  # as in a child process after a fork
    np.testing.assert_array_equal(chain(x, w1, b1, w2), np.dot(np.maximum(np.dot(x, w1) + b1, 0), w2))


@needs
def test_operands_of_another_layout_or_dtype_are_copied_first():
    layers = [(2, 3, 4, True, False), (2, 4, 2, True, True)]
    chain = dense_chain.Chain(layers, [None, None])
    rs = np.random.default_rng(5)
    x = rs.standard_normal((3, 2)).astype(np.float32).T  # not C-contiguous
    w1 = rs.standard_normal((3, 4))  # float64
    b1, w2, b2 = (rs.standard_normal(s).astype(np.float32) for s in ((4,), (4, 2), (2,)))
    want = np.maximum((x @ w1.astype(np.float32) + b1) @ w2 + b2, 0)
    for _ in range(3):  # the float64 weights' float32 copy is made (and bound) again each call
        np.testing.assert_allclose(chain(x, w1, b1, w2, b2), want, rtol=1e-5, atol=1e-6)
        np.empty((3, 4), np.float32).fill(1e9)  # (what a freed copy's memory may hold next)
    with pytest.raises(ValueError, match="shape"):
        chain(np.zeros((2, 5), np.float32), w1, b1, w2, b2)


def _step_fn(seed=7):
    rs = np.random.default_rng(seed)
    w1 = tf.Variable((rs.standard_normal((96, 64)) * 0.1).astype(np.float32))
    b1 = tf.Variable(np.zeros(64, np.float32))
    w2 = tf.Variable((rs.standard_normal((64, 10)) * 0.1).astype(np.float32))
    x = tf.constant(rs.standard_normal((64, 96)).astype(np.float32))
    y = tf.constant(rs.integers(0, 10, 64).astype(np.int32))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, [w1, b1, w2])
        for v, g in zip([w1, b1, w2], grads):
            v.assign_sub(0.5 * g)
        return loss
    return step, (w1, b1, w2), x.numpy(), y.numpy()


def _numpy_steps(params, x, y, n):
    w1, b1, w2 = (p.astype(np.float64) for p in params)
    losses = []
    for _ in range(n):
        z = x @ w1 + b1
        h = np.maximum(z, 0)
        logits = h @ w2
        e = np.exp(logits - logits.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        losses.append(-np.log(p[np.arange(len(y)), y]).mean())
        d = p
        d[np.arange(len(y)), y] -= 1
        d /= len(y)
        gw2 = h.T @ d
        dz = (d @ w2.T) * (z > 0)
        w1, b1, w2 = w1 - 0.5 * (x.T @ dz), b1 - 0.5 * dz.sum(0), w2 - 0.5 * gw2
    return losses, (w1, b1, w2)


@needs
def test_a_training_steps_gemms_run_on_onednn_with_numpys_values():
    step, params, x, y = _step_fn()
    start = [p.numpy() for p in params]
    losses = [float(step()) for _ in range(3)]  # the variables are updated in place between the calls
    want, final = _numpy_steps(start, x, y, 3)
    np.testing.assert_allclose(losses, want, rtol=1e-5)
    for p, w in zip(params, final):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-4, atol=1e-5)
    src = step.get_concrete_function()._compiled.source
    # the forward layer (bias and ReLU fused) and the first layer's weight gradient x^T dz (a transposed
    # operand), 393k multiply-adds each: one oneDNN matmul each; the 41k multiply-add products stay on NumPy
    assert len(re.findall(r"= g\d+\(", src)) == 2, src


@needs
def test_a_single_gemm_binds_its_operands_each_call_and_checks_them():
    g = dense_chain.Gemm(40, 50, 60, True, False, True, True, None)
    rs = np.random.default_rng(8)
    a, b, c = (rs.standard_normal(s).astype(np.float32) for s in ((50, 40), (50, 60), (60,)))
    for _ in range(2):
        np.testing.assert_allclose(g(a, b, c), np.maximum(a.T @ b + c, 0), rtol=1e-5, atol=1e-5)
        a = a * 2  # another array: bound again
    b[...] = 0  # the same array written in place: read again
    np.testing.assert_allclose(g(a, b, c), np.maximum(np.zeros((40, 60)) + c, 0), rtol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        g(a[:10], b, c)


@needs
def test_a_relu_of_a_product_without_bias_and_a_plain_product_are_one_onednn_matmul_each():
    rs = np.random.default_rng(9)
    w, w2 = (tf.constant(rs.standard_normal((128, 96)).astype(np.float32)) for _ in range(2))

    @tf.function
    def f(x):
        return tf.nn.relu(tf.matmul(x, w)), tf.matmul(x, w2) * 2.0
    x = rs.standard_normal((32, 128)).astype(np.float32)  # 393k multiply-adds
    got, twice = f(tf.constant(x))
    np.testing.assert_allclose(got.numpy(), np.maximum(x @ w.numpy(), 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(twice.numpy(), 2 * (x @ w2.numpy()), rtol=1e-5, atol=1e-5)
    src = f.get_concrete_function(tf.constant(x))._compiled.source
    assert len(re.findall(r"= g\d+\(", src)) == 2 and "_dot" not in src and "@" not in src, src


def test_a_small_product_compiles_without_looking_for_onednn():
    import subprocess
    import sys
    code = ("import rivulet as tf\n"
            "from rivulet.execute import onednn\n"
            "f = tf.function(lambda x: tf.matmul(x, x, transpose_b=True) @ x)\n"
            "assert f(tf.ones([4, 4])).numpy()[0, 0] == 16.0\n"
            "print(len(onednn._found))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"  # 16 multiply-adds: oneDNN (20-50 ms to find and load) not looked for
