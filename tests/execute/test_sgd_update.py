"""A plain SGD step on a layer's weights, `v.assign_sub(lr * g)` with g = x^T dy (optimize/fusion.py's
_MatMulAssignSub, execute/dense_chain.GemmUpdate): with the `onednn` extra, one oneDNN matmul adds the scaled
product into the variable's array, bit for bit the three ops' values (oneDNN's product, then Mul and
AssignSubVariableOp's IEEE operations, signed zeros included); copy on write where the array is held elsewhere;
without oneDNN (or in a forked child) the NumPy forms; the jit tier lowers it to the same three ONNX ops."""
import re

import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import dense_chain, onednn
from rivulet.optimize import fusion

needs = pytest.mark.skipif(onednn.api() is None, reason="the onednn extra (onednn-cpu-gomp) is not installed")


def _w5(seed=0, zero_column=False, jit=False):
    """The seed's w5 step: an MLP 784-128-128-10, batch 64, GradientTape + SGD (lr 0.01)."""
    rs = np.random.default_rng(seed)
    ws = [tf.Variable((rs.standard_normal(s) * 0.05).astype(np.float32)) for s in ((784, 128), (128, 128), (128, 10))]
    bs = [tf.Variable(np.zeros(n, np.float32)) for n in (128, 128, 10)]
    x = rs.standard_normal((64, 784)).astype(np.float32)
    if zero_column:  # input 5 is always 0: W1's row 5 gets a gradient of exactly 0
        x[:, 5] = 0
        w = ws[0].numpy()
        w[5] = -0.0
        ws[0].assign(w)
    xb, yb = tf.constant(x), tf.constant(rs.integers(0, 10, 64).astype(np.int32))

    def step():
        with tf.GradientTape() as tape:
            h = xb
            for i in range(3):
                h = tf.matmul(h, ws[i]) + bs[i]
                if i < 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=h))
        grads = tape.gradient(loss, ws + bs)
        for v, g in zip(ws + bs, grads):
            v.assign_sub(0.01 * g)
        return loss
    return tf.function(step, jit_compile=jit), ws + bs


def _updates(f):
    """The GemmUpdates the compiled step calls, and its source."""
    cg = f.get_concrete_function()._compiled
    fn = cg.fn
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return [v for v in fn.__globals__.values() if isinstance(v, dense_chain.GemmUpdate)], cg.source


def _unfused(monkeypatch, **kw):
    """The same step compiled with the three ops (the fusions refused)."""
    with monkeypatch.context() as m:
        m.setattr(fusion, "_sgd_update", lambda *a: None)
        f, vs = _w5(**kw)
        f.get_concrete_function()
    return f, vs


@needs
def test_the_weights_sgd_step_is_one_onednn_call_bit_for_bit_the_three_ops(monkeypatch):
    f, vs = _w5()
    g, ref = _unfused(monkeypatch)
    ups, src = _updates(f)
    # W1 (784x64x128) and W2 (128x64x128): one GemmUpdate each, no product, Mul or AssignSub line of their own;
    # W3's 82k multiply-adds keep the three ops; each bias one call (_BiasAssignSub)
    assert sorted(u.out for u in ups) == [(128, 128), (784, 128)], src
    assert src.count("dtype=") == 1 and len(re.findall(r"= b\d+\(a\d+, v\d+\)", src)) == 3, src
    assert "c36 *" not in src and "k34(" not in src
    assert not _updates(g)[0]
    for _ in range(4):
        a, b = f(), g()
        assert float(a) == float(b)
    for v, w in zip(vs, ref):
        np.testing.assert_array_equal(v.numpy().view(np.uint32), w.numpy().view(np.uint32))


@needs
def test_a_zero_gradient_leaves_a_negative_zero_weight_negative(monkeypatch):
    f, vs = _w5(zero_column=True)
    g, ref = _unfused(monkeypatch, zero_column=True)
    f(), g()
    assert _updates(f)[0]
    row, want = vs[0].numpy()[5], ref[0].numpy()[5]
    assert np.all(row == 0) and np.all(np.signbit(row)) and np.all(np.signbit(want))  # -0 - 0.01 * 0 = -0


@needs
def test_an_update_copies_an_array_held_elsewhere():
    f, vs = _w5()
    f()
    held = vs[0].value()  # a value read before the step keeps its numbers (copy on write, as AssignSub)
    before = held.numpy().copy()
    f()
    np.testing.assert_array_equal(held.numpy(), before)
    assert not np.array_equal(vs[0].numpy(), before)
    again = vs[0].numpy().copy()  # nothing held now: the next step updates the variable's array in place
    f()
    assert not np.array_equal(vs[0].numpy(), again)


@needs
def test_a_forked_child_runs_the_numpy_forms(monkeypatch):
    f, vs = _w5()
    g, ref = _unfused(monkeypatch)
    f(), g()
    u = dense_chain.GemmUpdate(6, 5, 4, True, False, 0.5, lambda a, b: np.dot(a.T, b))
    monkeypatch.setattr(onednn, "_found", [None])  # as in a child process after a fork: oneDNN unused
    f(), g()  # the products on NumPy, fused or not: the same values
    for v, w in zip(vs, ref):
        np.testing.assert_array_equal(v.numpy(), w.numpy())
    rs = np.random.default_rng(1)
    a, b = rs.standard_normal((5, 6)).astype(np.float32), rs.standard_normal((5, 4)).astype(np.float32)
    var = tf.Variable(rs.standard_normal((6, 4)).astype(np.float32))
    want = var.numpy() - np.float32(0.5) * np.dot(a.T, b)
    u(var, a, b)
    np.testing.assert_array_equal(var.numpy(), want)


@needs
def test_an_update_of_another_shape_is_tensorflows_error():
    u = dense_chain.GemmUpdate(6, 5, 4, False, False, 0.5, None)
    var = tf.Variable(np.zeros((4, 6), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Cannot update variable with shape \[4,6\] using "
                                                             r"a Tensor with shape \[6,4\]"):
        u(var, np.zeros((6, 5), np.float32), np.zeros((5, 4), np.float32))


def test_without_onednn_the_three_ops_stay(monkeypatch):
    monkeypatch.setattr(onednn, "_found", [None])
    f, vs = _w5()
    f()
    ups, src = _updates(f)
    assert src.count("dtype=") == 3 and not ups, src  # the weights' three ops; the biases' one call each


@needs
def test_the_jit_tier_lowers_the_fused_update(monkeypatch):
    old = tf.jit.configure()
    tf.jit.configure(warmup_calls=0, background=False)
    try:
        f, vs = _w5(jit=True)
        g, ref = _unfused(monkeypatch)
        for _ in range(3):
            np.testing.assert_allclose(float(f()), float(g()), rtol=1e-5)
        assert f.get_concrete_function()._jit_function.tier == "onnxruntime"
    finally:
        tf.jit.configure(**old)
    for v, w in zip(vs, ref):
        np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-4, atol=1e-6)


class _Forced:
    """A thread choice that always answers the same (the one tests set)."""

    def __init__(self, one):
        self.one = one

    def choose(self, now):
        return self.one, False

    def record(self, *a):
        pass


@needs
def test_big_products_choose_their_threads_and_give_the_same_bits_on_each(monkeypatch):
    monkeypatch.setattr(onednn, "_all_threads", lambda: 2)
    rs = np.random.default_rng(5)
    fwd = dense_chain.Gemm(64, 784, 128, False, False, True, True, None)  # 6.4M multiply-adds: a choice
    assert fwd.choice is not None and dense_chain.Gemm(64, 128, 128, False, False, True, True, None).choice is None
    x, w, b = (rs.standard_normal(s).astype(np.float32) for s in ((64, 784), (784, 128), (128,)))
    got = []
    for one in (True, False, True):
        fwd.choice = _Forced(one)
        got.append(fwd(x, w, b))
    assert all(np.array_equal(g.view(np.uint32), got[0].view(np.uint32)) for g in got)
    np.testing.assert_allclose(got[0], np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)
    up = dense_chain.GemmUpdate(784, 64, 128, True, False, 0.01, None)
    assert up.choice is not None
    dy = rs.standard_normal((64, 128)).astype(np.float32)
    vals = []
    for one in (True, False):
        up.choice = _Forced(one)
        var = tf.Variable(w)
        up(var, x, dy)
        vals.append(var.numpy())
    np.testing.assert_array_equal(vals[0].view(np.uint32), vals[1].view(np.uint32))


def _bias_step(monkeypatch=None):
    rs = np.random.default_rng(6)
    b = tf.Variable(rs.standard_normal(3))  # float64
    d, w = tf.constant(rs.standard_normal((5, 4))), tf.Variable(rs.standard_normal((4, 3)))

    @tf.function
    def step():  # (the fuser runs on graphs with a product)
        with tf.GradientTape() as tape:
            y = tf.matmul(d, w) + b
            loss = tf.reduce_sum(y * y)
        b.assign_sub(0.1 * tape.gradient(loss, b))  # the gradient: SumToShapeOf(2 y, b)
    if monkeypatch is not None:
        with monkeypatch.context() as m:
            m.setattr(fusion, "_sgd_update", lambda *a: None)
            step.get_concrete_function()
    return step, b


def test_a_bias_step_is_one_call_with_the_three_ops_bits(monkeypatch):
    f, b = _bias_step()
    g, ref = _bias_step(monkeypatch)
    src = f.get_concrete_function()._compiled.source
    assert len(re.findall(r"= b\d+\(a\d+, ", src)) == 1 and "dtype=" not in src, src
    assert "dtype=" in g.get_concrete_function()._compiled.source
    held = b.value()  # read before the step: keeps its numbers (copy on write)
    before = held.numpy().copy()
    f(), g()
    np.testing.assert_array_equal(held.numpy(), before)
    np.testing.assert_array_equal(b.numpy().view(np.uint64), ref.numpy().view(np.uint64))
    assert b.dtype == tf.float64 and not np.array_equal(b.numpy(), before)


@needs
def test_an_update_whose_operand_is_the_variable_itself_reads_the_old_value(monkeypatch):
    def build():
        rs = np.random.default_rng(7)
        v = tf.Variable(rs.standard_normal((64, 64)).astype(np.float32))
        d = tf.constant(rs.standard_normal((64, 64)).astype(np.float32))

        @tf.function
        def step():  # v -= 0.1 * v^T d: the product reads the array the update writes (copied first)
            v.assign_sub(0.1 * tf.matmul(v, d, transpose_a=True))
        return step, v
    f, v = build()
    with monkeypatch.context() as m:
        m.setattr(fusion, "_sgd_update", lambda *a: None)
        g, w = build()
        g.get_concrete_function()
    f.get_concrete_function()
    assert _updates(f)[0] and not _updates(g)[0]
    for _ in range(3):
        f(), g()
    np.testing.assert_array_equal(v.numpy().view(np.uint32), w.numpy().view(np.uint32))


def _masks(f):
    cg = f.get_concrete_function()._compiled
    fn = cg.fn
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return [v for v in fn.__globals__.values() if isinstance(v, dense_chain.GemmMask)]


@needs
def test_the_input_gradient_through_a_relu_is_one_onednn_call_bit_for_bit_the_two_ops(monkeypatch):
    f, vs = _w5()
    with monkeypatch.context() as m:
        m.setattr(fusion, "_masked_product", lambda *a: None)
        g, ref = _w5()
        g.get_concrete_function()
    # dy2 @ W2^T masked by h1 > 0 (64x128x128); dy3 @ W3^T (82k multiply-adds, NumPy's product) keeps the two ops
    assert [u.out for u in _masks(f)] == [(64, 128)] and not _masks(g)
    for _ in range(3):
        assert float(f()) == float(g())
    for v, w in zip(vs, ref):
        np.testing.assert_array_equal(v.numpy().view(np.uint32), w.numpy().view(np.uint32))


@needs
def test_a_masked_product_is_relugrads_bits_nan_and_infinities_included(monkeypatch):
    rs = np.random.default_rng(11)
    gm = dense_chain.GemmMask(64, 128, 96, False, True, lambda a, b: np.dot(a, b.T))
    plain = dense_chain.Gemm(64, 128, 96, False, True, False, False, None)
    dy, w = rs.standard_normal((64, 128)).astype(np.float32), rs.standard_normal((96, 128)).astype(np.float32)
    x = np.maximum(rs.standard_normal((64, 96)).astype(np.float32), 0)
    x[0, :4] = [np.nan, -0.0, 0.0, np.inf]
    dy[1, 0] = np.inf  # row 1 of the product: +-inf, times a 0 mask: NaN
    with np.errstate(invalid="ignore"):
        want = np.multiply(plain(dy, w), x > 0, dtype=np.float32)
        got = gm(dy, w, x)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        assert np.isnan(got[1]).any() and np.signbit(got[np.isfinite(got) & (got == 0)]).any()
        monkeypatch.setattr(onednn, "_found", [None])  # a forked child: NumPy's forms
        np.testing.assert_array_equal(gm(dy, w, x), np.multiply(np.dot(dy, w.T), x > 0, dtype=np.float32))
