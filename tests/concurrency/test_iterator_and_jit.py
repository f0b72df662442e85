"""A dataset iterator checkpointed while other threads pull from it, and a jit function called from several
threads through warm-up, compile and trial: saved positions are positions the iterator passed through, every
result is right, the tier settles on one."""
import functools
import threading

import numpy as np
import pytest

import rivulet as tf
from tests.concurrency.threads import run_in_threads


def _threads(target, n):
    return run_in_threads([functools.partial(target, i) for i in range(n)])


def _pipeline():
    return tf.data.Dataset.range(100_000).shuffle(8, seed=5, reshuffle_each_iteration=True).map(lambda x: x * 3)


def test_iterator_saved_while_threads_pull_restores_to_a_passed_position(tmp_path):
    want = list(_pipeline().take(30_000).as_numpy_iterator())
    it = iter(_pipeline())
    ckpt = tf.train.Checkpoint(iterator=it)
    pulled, done, saved = [], threading.Event(), []

    def puller(i):
        while not done.is_set() and len(pulled) < 25_000:
            pulled.append(int(it.get_next().numpy()))

    def saver(i):
        while len(pulled) < 50:
            pass
        for k in range(12):
            saved.append(ckpt.write(str(tmp_path / f"c{k}")))
        done.set()

    _threads(lambda i: (saver if i == 0 else puller)(i), 4)
    assert sorted(pulled) == sorted(want[:len(pulled)])  # every element once: none lost or repeated
    for path in saved:
        fresh = iter(_pipeline())
        tf.train.Checkpoint(iterator=fresh).read(path).assert_consumed()
        pos = int(tf.train.load_checkpoint(path).get_tensor("iterator/.ATTRIBUTES/ITERATOR_STATE")[2])
        assert 0 <= pos <= len(pulled)
        assert int(fresh.get_next().numpy()) == want[pos]  # the element that came after that position


@pytest.mark.parametrize("background", [False, True])
def test_jit_function_from_threads_through_warmup_compile_and_trial(background):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    old = tf.jit.configure()
    tf.jit.configure(warmup_calls=3, background=background)
    try:
        rs = np.random.default_rng(1)
        w = tf.Variable(rs.standard_normal((8, 5)).astype(np.float32))

        @tf.function(jit_compile=True)
        def f(x):
            return tf.nn.relu(tf.matmul(x, w)) + 1.0

        xs = [rs.standard_normal((4, 8)).astype(np.float32) for _ in range(6)]
        want = [np.maximum(x @ w.numpy(), 0) + 1.0 for x in xs]
        start = threading.Barrier(4)

        def worker(k):
            start.wait()
            for j in range(60):
                i = (k + j) % len(xs)
                np.testing.assert_allclose(f(tf.constant(xs[i])).numpy(), want[i], rtol=1e-5, atol=1e-5)

        _threads(worker, 4)
        from rivulet.jit import tier as _tier
        for t in list(_tier._compiling):  # a background compile may end after those calls
            t.join(30)
        _threads(worker, 4)  # the trial, from threads
        (tier,) = tf.jit.tier_of(f)
        assert tier in ("onnxruntime", "numpy (faster)")
        jf = f._list_all_concrete_functions()[0]._jit_function
        settled = jf.args_impl
        assert settled is None or settled is not jf._trying  # the trial ended: one tier serves
        for i in range(3):  # and it keeps serving right values
            np.testing.assert_allclose(f(tf.constant(xs[i])).numpy(), want[i], rtol=1e-5, atol=1e-5)
    finally:
        tf.jit.configure(**old)


def _lazy_shuffle():  # a map before the shuffle: not indexable, the shuffle draws its epoch when first pulled
    return tf.data.Dataset.range(40).map(lambda x: x + 0).shuffle(40, seed=1)


def _sampled():
    parts = [tf.data.Dataset.range(k * 100, k * 100 + 20) for k in range(3)]
    return tf.data.Dataset.sample_from_datasets(parts, seed=4)


@pytest.mark.parametrize("make", [_lazy_shuffle, _sampled])
def test_checkpoint_of_an_iterator_another_iterator_pulled_before(tmp_path, make):
    ds = make()
    a, b = iter(ds), iter(ds)
    next(b)  # b draws before a: a's epoch is the next one
    [next(a) for _ in range(3)]
    path = tf.train.Checkpoint(iterator=a).write(str(tmp_path / "a"))
    rest = [int(x) for x in a]
    fresh = iter(ds)
    tf.train.Checkpoint(iterator=fresh).read(path)
    assert [int(x) for x in fresh] == rest  # as TF 2.21: the restored iterator gives a's own order


def test_iterators_made_and_checkpointed_in_threads_restore_their_own_order(tmp_path):
    ds = _lazy_shuffle()
    start, out = threading.Barrier(4), {}

    def worker(k):
        for r in range(5):
            it = iter(ds)
            start.wait()  # every thread's iterator made before any pulls
            [next(it) for _ in range(k + 2)]
            path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / f"t{k}r{r}"))
            out[k, r] = path, [int(x) for x in it]

    _threads(worker, 4)
    for path, rest in out.values():
        fresh = iter(ds)
        tf.train.Checkpoint(iterator=fresh).read(path)
        assert [int(x) for x in fresh] == rest


def test_jit_function_from_threads_while_its_variable_changes():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    old = tf.jit.configure()
    tf.jit.configure(warmup_calls=2, background=False)
    try:
        rs = np.random.default_rng(2)
        base = rs.standard_normal((8, 5)).astype(np.float32)
        w = tf.Variable(base)

        @tf.function(jit_compile=True)
        def f(x):
            return tf.matmul(x, w) + 1.0

        x = rs.standard_normal((4, 8)).astype(np.float32)
        wants = [x @ (base * k) + 1.0 for k in range(1, 7)]
        done = threading.Event()

        def caller(i):
            while not done.is_set():
                got = f(tf.constant(x)).numpy()
                assert any(np.allclose(got, want, rtol=1e-4, atol=1e-4) for want in wants), got

        def changer(i):
            import time
            try:
                for k in range(2, 7):
                    time.sleep(0.02)
                    w.assign(base * k)
            finally:
                done.set()

        _threads(lambda i: (changer if i == 0 else caller)(i), 4)
        for _ in range(3):  # every change seen: the last weights serve
            np.testing.assert_allclose(f(tf.constant(x)).numpy(), wants[-1], rtol=1e-4, atol=1e-4)
        assert tf.jit.tier_of(f)[0] in ("onnxruntime", "numpy (faster)")
    finally:
        tf.jit.configure(**old)
