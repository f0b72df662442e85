"""The While gradient as a compiled loop (function/control_flow.py `_Backward`): the body's reverse mode is
traced once and compiled, fed by what the forward loop stashed. Its gradients equal the eager per-iteration
replay it replaces (`_backward_of` patched to None forces that replay) and hand-computed NumPy values."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.function import control_flow as cf


@pytest.fixture
def served(monkeypatch):
    """The loop bodies WhileGrad pulled through a compiled backward during the test."""
    got = []
    orig = cf._Backward.pull

    def pull(self, *a, **k):
        got.append(self)
        return orig(self, *a, **k)
    monkeypatch.setattr(cf._Backward, "pull", pull)
    return got


def _replayed(monkeypatch, fn, *args):
    """fn's result with the eager per-iteration replay (the implementation before the compiled loop)."""
    with monkeypatch.context() as m:
        m.setattr(cf, "_backward_of", lambda lb: None)
        return _np(fn(*args))


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    return None if x is None else np.asarray(x)


def _same(a, b, tol=1e-5):
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None
        else:
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def _rnn_reference(xs, w, r, h0):
    """d sum(h_T^2) / (w, r, xs) for h' = tanh(x_t w + h r), by hand."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ w + hs[-1] @ r))
    gh = 2 * hs[-1]
    gw, gr, gx = np.zeros_like(w), np.zeros_like(r), np.zeros_like(xs)
    for t in range(len(xs) - 1, -1, -1):
        gz = gh * (1 - hs[t + 1] ** 2)
        gw += xs[t].T @ gz
        gr += hs[t].T @ gz
        gx[t] = gz @ w.T
        gh = gz @ r.T
    return gw, gr, gx


RNG = np.random.default_rng(0)
XS = RNG.standard_normal((6, 3, 4)).astype(np.float32)
W0 = (RNG.standard_normal((4, 5)) * 0.4).astype(np.float32)
R0 = (RNG.standard_normal((5, 5)) * 0.4).astype(np.float32)


def test_recurrence_with_captured_variables_and_tensor(served, monkeypatch):
    w, r = tf.Variable(W0), tf.Variable(R0)

    @tf.function
    def f(xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)

            def body(t, h):
                return t + 1, tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, r))
            _, h = tf.while_loop(lambda t, h: t < 6, body, (tf.constant(0), tf.zeros((3, 5))))
            loss = tf.reduce_sum(h * h)
        return tape.gradient(loss, [w, r, xs])

    got = _np(f(tf.constant(XS)))
    assert len(served) == 1
    kinds = sorted(k for _, k, *_ in served[0].acc)  # r's products stacked into one GEMM; xs[t] added in place
    assert kinds == ["gemm", "gemm", "slice"]
    _same(got, _rnn_reference(XS, W0, R0, np.zeros((3, 5), np.float32)))
    _same(got, _replayed(monkeypatch, f, tf.constant(XS)))


def test_eager_tape_over_a_function_call(served, monkeypatch):
    w = tf.Variable(W0)
    r = tf.constant(R0)

    @tf.function
    def run(xs, h0):
        def body(t, h):
            return t + 1, tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, r))
        return tf.while_loop(lambda t, h: t < 6, body, (tf.constant(0), h0))[1]

    def grads(xs, h0):
        with tf.GradientTape() as tape:
            tape.watch([xs, h0])
            loss = tf.reduce_sum(run(xs, h0) ** 2)
        return tape.gradient(loss, [w, xs, h0])

    h0 = (RNG.standard_normal((3, 5)) * 0.5).astype(np.float32)
    got = _np(grads(tf.constant(XS), tf.constant(h0)))
    assert served
    gw, _, gx = _rnn_reference(XS, W0, R0, h0)
    _same(got[:2], [gw, gx])
    _same(got, _replayed(monkeypatch, grads, tf.constant(XS), tf.constant(h0)))


def test_maximum_iterations(served, monkeypatch):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda v: tf.reduce_sum(v) < 1e6, lambda v: v * x, [x], maximum_iterations=3)[0]
        return tape.gradient(y, x)

    x = tf.constant([1.5, 2.0, -0.5])
    got = _np(f(x))
    assert served
    np.testing.assert_allclose(got, 4 * x.numpy() ** 3, rtol=1e-6)  # y = x^4: three products by x
    _same([got], [_replayed(monkeypatch, f, x)])


def test_nested_loops(served, monkeypatch):
    @tf.function
    def f(x, a):
        with tf.GradientTape() as tape:
            tape.watch([x, a])

            def outer(i, v):
                inner = tf.while_loop(lambda j, u: j < i + 1, lambda j, u: (j + 1, tf.sin(u) * a), (0, v))[1]
                return i + 1, inner + v
            y = tf.while_loop(lambda i, v: i < 3, outer, (tf.constant(0), x))[1]
            loss = tf.reduce_sum(y)
        return tape.gradient(loss, [x, a])

    x, a = tf.constant([0.3, -0.7]), tf.constant(1.3)
    got = _np(f(x, a))
    assert len({id(b) for b in served}) == 2  # the outer and the inner body, both compiled

    def ref(x, a):  # by hand
        v = x
        for i in range(3):
            u = v
            for _ in range(i + 1):
                u = np.sin(u) * a
            v = u + v
        return v.sum()
    eps = 1e-3
    xs, av = x.numpy().astype(np.float64), float(a)
    gx = [(ref(xs + eps * e, av) - ref(xs - eps * e, av)) / (2 * eps) for e in np.eye(2)]
    ga = (ref(xs, av + eps) - ref(xs, av - eps)) / (2 * eps)
    np.testing.assert_allclose(got[0], gx, rtol=1e-3)
    np.testing.assert_allclose(got[1], ga, rtol=1e-3)
    _same(got, _replayed(monkeypatch, f, x, a))


def test_loop_that_reads_and_assigns_variables(served, monkeypatch):
    scale = tf.Variable(2.0)
    count = tf.Variable(0.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, y):
                count.assign_add(1.0)
                z = y * scale + count  # reads what the assign just wrote
                scale.assign(scale * 0.5)
                return i + 1, z
            y = tf.while_loop(lambda i, y: i < 3, body, (tf.constant(0), x))[1]
        return tape.gradient(y, [x, scale])

    x = tf.constant(1.0)
    got = _np(f(x))
    assert served
    # scales 2, 1, 0.5: dy/dx = 1; d/d(scale variable) sums each iteration's read's gradient:
    # y1 = 2x+1, y2 = y1*1+2, y3 = y2*0.5+3 -> dy3/dread1 = x*1*0.5, dread2 = y1*0.5, dread3 = y2
    y1 = 2 * 1.0 + 1
    y2 = y1 + 2
    np.testing.assert_allclose(got[0], 1.0)
    np.testing.assert_allclose(got[1], 0.5 + y1 * 0.5 + y2)
    scale.assign(2.0)
    count.assign(0.0)
    _same(got, _replayed(monkeypatch, f, x))


def test_autograph_range_and_dataset_loops(served, monkeypatch):
    w = tf.Variable([0.5, -1.0, 2.0])

    @tf.function
    def over_range(n):
        with tf.GradientTape() as tape:
            s = tf.constant(1.0)
            for i in tf.range(n):
                s = s * tf.reduce_sum(w * tf.cast(i + 1, tf.float32))
        return tape.gradient(s, w)

    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))

    @tf.function
    def over_dataset():
        with tf.GradientTape() as tape:
            s = tf.constant(0.0)
            for row in ds:
                s = s + tf.reduce_sum(tf.sin(row * w[0]))
        return tape.gradient(s, w)

    got = _np(over_range(tf.constant(3)))
    assert served
    # s = prod_i (i+1) * sum(w) = 6 * sum(w)^3
    np.testing.assert_allclose(got, np.full(3, 18 * 1.5 ** 2), rtol=1e-5)
    _same([got], [_replayed(monkeypatch, over_range, tf.constant(3))])
    served.clear()
    got = _np(over_dataset())
    assert served
    rows = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(got, [np.sum(rows * np.cos(rows * 0.5)), 0, 0], rtol=1e-5, atol=1e-6)
    # (the eager replay pulled the iterator again and failed: End of sequence; the stash keeps each row)
    with pytest.raises(tf.errors.OutOfRangeError):
        _replayed(monkeypatch, over_dataset)


def test_body_without_path_to_some_loop_variables(served, monkeypatch):
    @tf.function
    def f(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            out = tf.while_loop(lambda i, a, b: i < 4, lambda i, a, b: (i + 1, a * 2.0, tf.ones_like(b)),
                                (tf.constant(0), x, y))
            loss = tf.reduce_sum(out[1]) + tf.reduce_sum(out[2])
        return tape.gradient(loss, [x, y])

    got = _np(f(tf.constant([1.0, 2.0]), tf.constant([3.0])))
    assert served
    np.testing.assert_allclose(got[0], [16.0, 16.0])
    np.testing.assert_allclose(got[1], [0.0])
    _same(got, _replayed(monkeypatch, f, tf.constant([1.0, 2.0]), tf.constant([3.0])))


def test_no_iterations():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v * v), (tf.constant(0), x))[1]
        return tape.gradient(y, x)
    np.testing.assert_allclose(f(tf.constant([2.0, 3.0])).numpy(), [1.0, 1.0])


def test_sum_to_shape_compiles_to_a_shape_check():
    """A broadcasting op's gradient (SumToShapeOf) in compiled code: the operand itself when the shapes agree
    (a loop body's [batch, units] values), the kernel's sum only when they do not."""
    from rivulet.execute.codegen import compile_graph

    @tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([None, 3])])
    def f(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(tf.sin(a * b))
        return tape.gradient(y, [a, b])

    g = f.get_concrete_function().graph
    sums = [op for op in g.get_operations() if op.type == "SumToShapeOf"]
    assert sums
    phs = [op.outputs[0] for op in g.get_operations() if op.type == "Placeholder"][:2]
    outs = [t for op in g.get_operations() if op.type == "Identity" for t in op.outputs][-2:]
    cg = compile_graph(g, phs, outs, split=False)
    for op in sums:
        assert f"else k{op._id}(" in cg.source
    a = np.array([[1.0, 2.0, 3.0]], np.float32)
    b = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, 1.0]], np.float32)  # a broadcasts over b's rows
    ga, gb = cg.fn(a, b)
    np.testing.assert_allclose(ga, (np.cos(a * b) * b).sum(0, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(gb, np.cos(a * b) * a, rtol=1e-6)
    same = cg.fn(b, b)
    np.testing.assert_allclose(same[0], np.cos(b * b) * b, rtol=1e-6)


def test_loop_gradient_asks_glibc_to_keep_freed_memory(monkeypatch):
    from rivulet.execute import memory
    calls = []
    monkeypatch.setattr(memory, "_state", {"done": False, "applied": False})
    monkeypatch.setattr(memory, "_mallopt", lambda: lambda k, v: calls.append((k, v)) or 1)
    for k in memory._ENV:
        monkeypatch.delenv(k, raising=False)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.tanh(v)), (tf.constant(0), x))[1]
        return tape.gradient(y, x)
    f(tf.constant([0.5]))
    assert calls == [(-1, 256 << 20), (-2, 16 << 20), (-3, 32 << 20)] and memory.retain_heap()
    calls.clear()
    assert memory.retain_heap() and not calls  # once per process
    # the process's own malloc settings, or the option off: left alone
    monkeypatch.setattr(memory, "_state", {"done": False, "applied": False})
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    assert not memory.retain_heap() and not calls
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    monkeypatch.setattr(memory, "_state", {"done": False, "applied": False})
    tf.config.optimizer.set_experimental_options({"retain_heap": False})
    try:
        assert not memory.retain_heap() and not calls
    finally:
        tf.config.optimizer.set_experimental_options({"retain_heap": True})


def test_weight_gradient_of_iterations_whose_shapes_vary(served, monkeypatch):
    w0 = (RNG.standard_normal((3, 3)) * 0.5).astype(np.float32)
    w = tf.Variable(w0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            def body(i, v, s):  # v gains a row every iteration: the products x_t^T dy_t change shape
                y = tf.tanh(tf.matmul(v, w))
                return i + 1, tf.concat([y, y[:1]], 0), s + tf.reduce_sum(y)
            out = tf.while_loop(lambda i, v, s: i < 3, body, (tf.constant(0), x, tf.constant(0.0)),
                                shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, 3]),
                                                  tf.TensorShape([])))
            loss = out[2] + tf.reduce_sum(out[1])
        return tape.gradient(loss, w)

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    got = _np(f(tf.constant(x)))
    assert served and [k for _, k, *_ in served[0].acc] == ["gemm"]

    def loss(w):
        v, s = x.astype(np.float64), 0.0
        for _ in range(3):
            y = np.tanh(v @ w)
            v, s = np.concatenate([y, y[:1]]), s + y.sum()
        return s + v.sum()
    eps = 1e-4
    num = np.zeros((3, 3))
    for idx in np.ndindex(3, 3):
        e = np.zeros((3, 3))
        e[idx] = eps
        num[idx] = (loss(w0 + e) - loss(w0 - e)) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-3, atol=1e-4)
    _same([got], [_replayed(monkeypatch, f, tf.constant(x))])
    served.clear()
    np.testing.assert_allclose(_np(f(tf.constant(x))), got, rtol=1e-6)  # the kept buffers, run again
    assert served


def test_even_split_compiles_to_slices():
    from rivulet.execute.codegen import compile_graph

    @tf.function(input_signature=[tf.TensorSpec([None, 8])])
    def f(x):
        a, b, c, d = tf.split(x, 4, axis=-1)
        return a * 1.0, b * 2.0, c * 3.0, d * 4.0

    g = f.get_concrete_function().graph
    split = [op for op in g.get_operations() if op.type == "Split"][0]
    ph = [op.outputs[0] for op in g.get_operations() if op.type == "Placeholder"]
    outs = [op.outputs[0] for op in g.get_operations() if op.type == "Mul"]
    cg = compile_graph(g, ph, outs, split=False)
    assert f"k{split._id}(" not in cg.source and f"t{split._id}_k3" in cg.source
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    for k, got in enumerate(cg.fn(x)):
        np.testing.assert_array_equal(got, x[:, 2 * k:2 * k + 2] * (k + 1))
    np.testing.assert_array_equal(f(tf.constant(x))[3].numpy(), x[:, 6:] * 4)


def test_rows_read_twice_or_never(served, monkeypatch):
    xs0 = RNG.standard_normal((4, 2)).astype(np.float32)

    @tf.function
    def f(xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            # reads rows 0, 1, 2, 0, 1 (row 3 never), each scaled by the iteration's number
            s = tf.while_loop(lambda t, s: t < 5,
                              lambda t, s: (t + 1, s + tf.reduce_sum(tf.sin(xs[t % 3])) * tf.cast(t + 1, tf.float32)),
                              (tf.constant(0), tf.constant(0.0)))[1]
        return tape.gradient(s, xs)

    got = _np(f(tf.constant(xs0)))
    assert served and [k for _, k, *_ in served[0].acc] == ["slice"]
    want = np.zeros_like(xs0)
    for t in range(5):
        want[t % 3] += np.cos(xs0[t % 3]) * (t + 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    _same([got], [_replayed(monkeypatch, f, tf.constant(xs0))])


def test_cond_inside_the_body(served, monkeypatch):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)

            def body(i, v, s):
                v = tf.cond(tf.reduce_sum(v) > 0, lambda: v * x, lambda: v - x)
                return i + 1, v, s + tf.reduce_sum(v * v)
            _, v, s = tf.while_loop(lambda i, v, s: i < 4, body, (tf.constant(0), tf.ones([2]), tf.constant(0.0)))
            loss = s + tf.reduce_sum(v)
        return tape.gradient(loss, x)

    x = tf.constant([0.7, -0.2])
    got = _np(f(x))
    assert served

    def loss(x):
        v, s = np.ones(2), 0.0
        for _ in range(4):
            v = v * x if v.sum() > 0 else v - x
            s += (v * v).sum()
        return s + v.sum()
    eps = 1e-4
    xs = x.numpy().astype(np.float64)
    num = [(loss(xs + eps * e) - loss(xs - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(got, num, rtol=1e-3, atol=1e-4)
    _same([got], [_replayed(monkeypatch, f, x)])
