"""The small-GEMM rule (execute/blas_threads.py) holds everywhere: loop bodies, branches, the While gradient,
graphs whose batch is unknown until called, eager GEMMs. The thread count is observed through
execute/openblas.py's getter from inside the running code (a py_function, or a recording matmul), and is
restored afterwards; values are unchanged."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import blas_threads, openblas


@pytest.fixture
def two_threads():
    api = openblas.api()
    if api is None:
        pytest.skip("NumPy is not linked to OpenBLAS here")
    before = api.get_threads()
    api.set_threads(2)
    if api.get_threads() != 2:
        api.set_threads(before)
        pytest.skip("OpenBLAS cannot run two threads here")
    try:
        yield api.get_threads
    finally:
        api.set_threads(before)


@pytest.fixture
def steady(monkeypatch):
    """Big GEMMs stay on every thread during the test: no timing-driven switch (see the Tuner tests)."""
    monkeypatch.setattr(blas_threads, "_PROBE_S", 1e9)
    monkeypatch.setattr(blas_threads, "_JUMP", float("inf"))
    monkeypatch.setattr(blas_threads, "_eager_tuners", {})
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)


def _recorder(get, seen):
    """A py_function that passes x through, noting OpenBLAS's thread count when it runs (forward, and
    again when its gradient re-runs it)."""
    def note(x):
        seen.append(get())
        return x * 1.0

    def record(x):
        y = tf.py_function(note, [x], tf.float32)
        y.set_shape(x.shape)
        return y
    return record


def _loop_fn(record, w):
    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32)])
    def f(x):  # the batch is unknown when traced: the body's GEMMs are sized when the loop runs
        def body(i, h):
            return i + 1, record(tf.tanh(tf.matmul(h, w)))
        return tf.while_loop(lambda i, h: i < 3, body, (tf.constant(0), x))[1]
    return f


def _reference(x, w, steps=3):
    h = x
    for _ in range(steps):
        h = np.tanh(h @ w)
    return h


def test_loop_body_of_small_gemms_runs_on_one_thread(two_threads, steady):
    seen = []
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 64)).astype(np.float32) * 0.1
    x = rng.standard_normal((64 * 64, 64)).astype(np.float32)  # 4096x64x64 = 16.8M: big, every thread
    small = x[:128]  # 128x64x64 = 524k multiply-adds: split by OpenBLAS, small for us
    f = _loop_fn(_recorder(two_threads, seen), tf.constant(w))
    np.testing.assert_allclose(f(small).numpy(), _reference(small, w), rtol=1e-5, atol=1e-6)
    assert seen == [1, 1, 1] and two_threads() == 2  # one thread in each iteration, restored after
    seen.clear()
    np.testing.assert_allclose(f(x).numpy(), _reference(x, w), rtol=1e-5, atol=1e-6)
    assert seen == [2, 2, 2] and two_threads() == 2  # big GEMMs keep both threads
    seen.clear()
    tf.config.optimizer.set_experimental_options({"blas_threads_per_graph": False})
    try:
        f(small)
    finally:
        tf.config.optimizer.set_experimental_options({"blas_threads_per_graph": True})
    assert seen == [2, 2, 2]  # switched off: OpenBLAS decides


def test_while_gradient_replays_on_one_thread(two_threads):
    seen = []
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((64, 64)).astype(np.float32) * 0.1
    x = tf.constant(rng.standard_normal((128, 64)).astype(np.float32))
    w = tf.Variable(w0)
    f = _loop_fn(_recorder(two_threads, seen), w)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(f(x))
    forward = len(seen)
    g = tape.gradient(y, w)
    # the backward (a compiled loop over the body's gradient: the py_function's gradient runs it again)
    # runs on one thread too
    assert forward == 3 and len(seen) == 6 and set(seen) == {1} and two_threads() == 2
    # d/dw of sum(tanh(tanh(tanh(x w) w) w)), by hand
    hs = [x.numpy()]
    for _ in range(3):
        hs.append(np.tanh(hs[-1] @ w0))
    gh, gw = np.ones_like(hs[-1]), np.zeros_like(w0)
    for k in range(3, 0, -1):
        gz = gh * (1 - hs[k] ** 2)
        gw += hs[k - 1].T @ gz
        gh = gz @ w0.T
    np.testing.assert_allclose(g.numpy(), gw, rtol=1e-4, atol=1e-4)


def test_while_gradient_inside_a_function(two_threads):
    seen = []
    w = tf.Variable(np.full((64, 64), 0.01, np.float32))
    f = _loop_fn(_recorder(two_threads, seen), w)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(f(x))
        return tape.gradient(y, w)
    g = step(tf.ones((128, 64)))
    assert len(seen) == 6 and set(seen) == {1} and two_threads() == 2
    assert g.shape == (64, 64) and np.all(np.isfinite(g.numpy()))


def test_cond_branch_and_unknown_batch_graph(two_threads, steady):
    seen = []
    record = _recorder(two_threads, seen)
    w = tf.constant(np.full((64, 256), 0.5, np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32), tf.TensorSpec([], tf.bool)])
    def f(x, p):
        return tf.cond(p, lambda: record(tf.matmul(x, w)), lambda: record(-tf.matmul(x, w)))

    x = np.ones((64, 64), np.float32)  # 64x64x256 = 1M: split by OpenBLAS, small for us
    np.testing.assert_allclose(f(x, True).numpy(), np.full((64, 256), 32.0))
    np.testing.assert_allclose(f(x, False).numpy(), np.full((64, 256), -32.0))
    big = np.ones((1024, 64), np.float32)  # 16.8M: every thread
    np.testing.assert_allclose(f(big, True).numpy(), np.full((1024, 256), 32.0))
    assert seen == [1, 1, 2] and two_threads() == 2

    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32)])
    def g(x):  # no control flow: the graph's own GEMM, sized per call from the batch
        return record(tf.matmul(x, w))
    seen.clear()
    g(x)
    g(big)
    assert seen == [1, 2] and two_threads() == 2


def test_eager_matmul_switches_only_for_small_split_gemms(two_threads, steady, monkeypatch):
    seen = []
    real = np.matmul

    def recording(a, b):
        seen.append(two_threads())
        return real(a, b)
    monkeypatch.setattr(np, "matmul", recording)
    a = np.full((64, 64), 0.5, np.float32)
    b = np.full((64, 256), 2.0, np.float32)
    np.testing.assert_allclose(tf.matmul(a, b).numpy(), np.full((64, 256), 64.0))  # 1M: one thread
    tf.matmul(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))  # never split: no switch
    tf.matmul(np.ones((64, 784), np.float32), np.ones((784, 128), np.float32))  # 6.4M: both threads
    np.testing.assert_allclose(tf.matmul(np.ones((3, 64, 64), np.float32), b).numpy(),
                               np.full((3, 64, 256), 128.0))  # BatchMatMul: each GEMM 1M
    assert seen == [1, 2, 2, 1] and two_threads() == 2


def test_profile_sizes_unknown_dims_from_the_values():
    w = tf.constant(np.ones((64, 256), np.float32))

    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32)])
    def f(x):
        return tf.matmul(x, w)
    graph = f.get_concrete_function().graph
    p = blas_threads.Profile(graph.get_operations(), graph.arg_placeholders)
    assert p.largest(1) == 64 * 256 and p.largest(64) == 64 * 64 * 256
    assert p.unknown_size([np.zeros((64, 64))]) == 64
    assert p.one_thread([np.zeros((64, 64))]) and not p.one_thread([np.zeros((8, 64))])
    assert not p.one_thread([np.zeros((4096, 64))])


def test_jit_session_threads_follow_the_called_sizes():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    import os
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: onnxruntime gets one thread anyway")
    old = tf.jit.configure()
    tf.jit.configure(warmup_calls=0, background=False)
    try:
        def threads(batch):
            w = tf.constant(np.full((784, 128), 0.5, np.float32))

            @tf.function(input_signature=[tf.TensorSpec([None, 784], tf.float32)], jit_compile=True)
            def f(x):
                return tf.nn.relu(tf.matmul(x, w))
            out = f(np.ones((batch, 784), np.float32))
            np.testing.assert_allclose(out.numpy(), np.full((batch, 128), 392.0))
            jf = f.get_concrete_function()._jit_function
            assert jf.tier == "onnxruntime"
            return jf.session.get_session_options().intra_op_num_threads
        assert threads(256) > 1  # 256x784x128 = 25.7M multiply-adds: the batch, unknown when traced, decides
        assert threads(64) == 1  # 6.4M: one thread (jit/tier.py _SPLIT_MNK: the pool's workers wake too late)
        assert threads(2) == 1  # 200k: one thread
    finally:
        tf.jit.configure(**old)


def test_tuner_moves_big_gemms_to_one_thread_on_a_busy_machine(two_threads, monkeypatch):
    """A big GEMM's calls start on every thread; when calls on one thread run faster (a busy machine, where
    a split GEMM waits for a descheduled worker) they move there, and back once every thread is faster."""
    now = [0.0]
    monkeypatch.setattr(blas_threads, "_clock", lambda: now[0])
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)
    cost = {1: 0.001, 2: 0.1}  # seconds per call by thread count: busy
    seen = []

    def work():
        n = two_threads()
        seen.append(n)
        now[0] += cost[n]
        return n
    t = blas_threads.Tuner()
    api = openblas.api()
    assert [t.run(api, work, ()) for _ in range(3)] == [2, 2, 2]  # starts on every thread
    for _ in range(3):  # a probe on one thread (after 0.25 s) wins: one thread from then on
        t.run(api, work, ())
    assert t.one and seen[-1] == 1 and two_threads() == 2
    seen.clear()
    for _ in range(2000):  # 2 s
        t.run(api, work, ())
    assert seen.count(2) <= 4 and t.backoff > 1  # every thread re-tried rarely, less and less often
    cost[1], cost[2] = 0.002, 0.001  # the machine is quiet again: every thread is faster
    for _ in range(5000):  # 10 s: the next try of every thread wins
        t.run(api, work, ())
    assert not t.one and seen[-1] == 2 and two_threads() == 2


def test_jump_on_every_thread_probes_one_thread_at_once(two_threads, monkeypatch):
    now = [0.0]
    monkeypatch.setattr(blas_threads, "_clock", lambda: now[0])
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)
    cost = {1: 0.003, 2: 0.002}
    t = blas_threads.Tuner()
    api = openblas.api()

    def work():
        now[0] += cost[two_threads()]
    for _ in range(5):
        t.run(api, work, ())
    assert not t.one
    cost[2] = 0.05  # other processes take the cores: one call stalls
    t.run(api, work, ())
    t.run(api, work, ())  # the next call tries one thread (long before 0.25 s) and keeps it
    assert t.one and now[0] < 0.25


def test_tuner_skips_every_thread_while_other_work_fills_the_cores(two_threads, monkeypatch):
    now = [0.0]
    busy = [True]
    monkeypatch.setattr(blas_threads, "_clock", lambda: now[0])
    monkeypatch.setattr(blas_threads, "_busy", lambda: busy[0])
    seen = []

    def work():
        seen.append(two_threads())
        now[0] += 0.01
    t = blas_threads.Tuner()
    api = openblas.api()
    for _ in range(1000):  # 10 s of a busy machine: never a try on every thread
        t.run(api, work, ())
    assert set(seen) == {1}
    busy[0] = False
    for _ in range(100):  # 1 s: the cores are free again, every thread is tried
        t.run(api, work, ())
    assert 2 in seen


def test_eager_conv2d_small_runs_on_one_thread(two_threads, monkeypatch):
    from rivulet.ops import nn_ops
    assert nn_ops.CONV2D.kernel.__wrapped__ is nn_ops.conv2d_kernel  # the registered kernel checks sizes
    seen = []
    real = nn_ops.CONV2D.kernel.__wrapped__

    def recording(*args, **attrs):
        seen.append(two_threads())
        return real(*args, **attrs)
    monkeypatch.setattr(nn_ops.CONV2D, "kernel", blas_threads.sized(recording, nn_ops._conv_size))
    x = np.ones((4, 16, 16, 16), np.float32)
    w = np.full((3, 3, 16, 32), 0.5, np.float32)  # 4*16*16*16 * 3*3*32 = 4.7M multiply-adds
    out = tf.nn.conv2d(x[:1, :8, :8], w, 1, "SAME")  # 1*8*8*16 * 288 = 295k: small, split
    np.testing.assert_allclose(out.numpy()[0, 3, 3], np.full(32, 72.0))
    tf.nn.conv2d(x, w, 1, "SAME")  # 4.7M: every thread
    tf.nn.conv2d(x[:1, :2, :2], w, 1, "SAME")  # never split
    assert seen == [1, 2, 2] and two_threads() == 2
