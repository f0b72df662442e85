"""The oneDNN kernels (execute/onednn.py, the `onednn` extra) against the NumPy ones they replace: every stride,
padding (SAME, VALID, explicit), dilation and filter shape the NumPy kernels accept, forward and both
gradients, Conv2DTranspose, the fused conv's epilogue, max/avg pooling and their gradients (the max-pool
gradient bit for bit, ties included); the operand checks before C; the thread rule; and the fallback to
NumPy when the library is missing (that one runs without the extra too)."""
import contextlib
import faulthandler
import os
import threading

import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import blas_threads, onednn
from rivulet.ops import nn_ops

needs = pytest.mark.skipif(onednn.api() is None, reason="the onednn extra (onednn-cpu-gomp) is not installed")


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    """Each test starts with an empty primitive cache and no thread choices (some tests look at them)."""
    if onednn.api() is not None:
        monkeypatch.setattr(onednn.api(), "cache", {})
        monkeypatch.setattr(onednn.api(), "choices", {})
    # no reading of the runnable count kept from before (a big primitive's call reads it on a busy machine)
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])


@pytest.fixture
def thread_counts(monkeypatch):
    """The thread counts oneDNN's set_threads is given during the test (skips where oneDNN has no OpenMP)."""
    a = onednn.api()
    if a.set_threads is None:
        pytest.skip("oneDNN without OpenMP threads")
    seen = []
    real = a.set_threads
    monkeypatch.setattr(a, "set_threads", lambda n: seen.append(n) or real(n))
    return seen


@pytest.fixture
def numpy_only(monkeypatch):
    """Runs the block with the NumPy kernels (oneDNN switched off at the dispatch)."""
    def run(fn, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(nn_ops, "_dnnl", lambda *a: False)
            return fn(*args, **kwargs)
    return run


@contextlib.contextmanager
def runs():
    """The oneDNN primitives run in the block: for each, whether it is a depthwise convolution."""
    calls = []
    real = onednn.Primitive.run
    keys = {}

    def run(self, *args, **kwargs):
        if not keys.get(id(self)):
            keys.update({id(p): k for k, p in onednn.api().cache.items()})
        calls.append(bool(keys.get(id(self), (None,) * 3)[2]))
        return real(self, *args, **kwargs)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(onednn.Primitive, "run", run)
        yield calls


def close(got, ref):
    assert got.dtype == ref.dtype == np.float32 and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(ref).max())))


# (batch, height, width, in channels, out channels, filter (kh, kw), strides, dilations, padding)
CONVS = [
    (2, 9, 9, 3, 4, (3, 3), (1, 1), (1, 1), "VALID"),
    (2, 9, 8, 3, 4, (3, 3), (2, 2), (1, 1), "SAME"),
    (1, 11, 9, 5, 6, (3, 3), (1, 2), (2, 1), "SAME"),
    (3, 7, 7, 2, 3, (2, 3), (2, 1), (1, 1), "VALID"),
    (2, 10, 10, 8, 8, (5, 5), (1, 1), (2, 2), "SAME"),
    (2, 6, 7, 4, 5, (1, 1), (1, 1), (1, 1), "VALID"),
    (2, 6, 7, 4, 5, (1, 1), (2, 2), (1, 1), "SAME"),
    (2, 8, 9, 3, 2, (3, 2), (3, 2), (1, 1), ((1, 2), (0, 3))),
    (1, 12, 12, 16, 8, (3, 3), (1, 1), (1, 1), ((2, 0), (1, 1))),
    (4, 28, 28, 1, 32, (3, 3), (1, 1), (1, 1), "VALID"),
    (4, 13, 13, 32, 64, (3, 3), (1, 1), (1, 1), "VALID"),
    (2, 5, 5, 3, 4, (5, 5), (1, 1), (1, 1), "VALID"),
    (2, 4, 4, 3, 4, (4, 4), (2, 2), (1, 1), "SAME"),
]


def _conv_case(n, h, w, c, o, k, strides, dilations, padding, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    f = rng.standard_normal((*k, c, o)).astype(np.float32)
    pad, explicit = (padding, None) if isinstance(padding, str) else ("EXPLICIT", padding)
    oh, ow, _, _ = nn_ops.conv_geometry(x.shape, k[0], k[1], strides, pad, explicit, dilations)
    dy = rng.standard_normal((n, oh, ow, o)).astype(np.float32)
    return x, f, dy, (strides, pad, dilations, explicit)


@needs
@pytest.mark.parametrize("case", CONVS, ids=[str(i) for i in range(len(CONVS))])
def test_conv_and_gradients_equal_numpy(case, numpy_only):
    x, f, dy, (s, pad, d, explicit) = _conv_case(*case)
    with runs() as calls:
        got = [nn_ops._conv_kernel(x, f, s, pad, d, explicit),
               nn_ops._conv_backprop_input_kernel(x, f, dy, s, pad, d, explicit),
               nn_ops._conv_backprop_filter_kernel(x, f, dy, s, pad, d, explicit)]
    # each ran on oneDNN (the input gradient of one input channel runs faster on NumPy)
    assert calls == [False] * (3 if x.shape[3] > 1 else 2)
    ref = [numpy_only(nn_ops._conv_kernel, x, f, s, pad, d, explicit),
           numpy_only(nn_ops._conv_backprop_input_kernel, x, f, dy, s, pad, d, explicit),
           numpy_only(nn_ops._conv_backprop_filter_kernel, x, f, dy, s, pad, d, explicit)]
    for g, r in zip(got, ref):
        close(g, r)


DEPTHWISE = [(2, 9, 9, 3, 1, (3, 3), (1, 1), (1, 1), "SAME"), (2, 9, 8, 4, 2, (3, 3), (2, 2), (1, 1), "VALID"),
             (1, 11, 9, 2, 3, (2, 3), (1, 2), (2, 1), "SAME"),
             (2, 8, 9, 3, 2, (3, 2), (3, 2), (1, 1), ((1, 2), (0, 3)))]


@needs
@pytest.mark.parametrize("case", DEPTHWISE, ids=[str(i) for i in range(len(DEPTHWISE))])
def test_depthwise_conv_and_gradients_equal_numpy(case, numpy_only):
    from rivulet.ops import conv_ops
    x, f, _, (s, pad, d, explicit) = _conv_case(*case)  # f: [kh, kw, C, M]
    y = numpy_only(conv_ops._dw_kernel, x, f, s, pad, d, explicit)
    dy = np.random.default_rng(4).standard_normal(y.shape).astype(np.float32)
    with runs() as calls:
        got = [conv_ops._dw_kernel(x, f, s, pad, d, explicit),
               conv_ops._dw_input_kernel(x, f, dy, s, pad, d, explicit),
               conv_ops._dw_filter_kernel(x, f, dy, s, pad, d, explicit)]
    assert calls == [True] * 3  # each ran on oneDNN, as a grouped (depthwise) convolution
    ref = [y, numpy_only(conv_ops._dw_input_kernel, x, f, dy, s, pad, d, explicit),
           numpy_only(conv_ops._dw_filter_kernel, x, f, dy, s, pad, d, explicit)]
    for g, r in zip(got, ref):
        close(g, r)


@needs
def test_public_ops_and_keras_layers_run_on_onednn(numpy_only):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 7, 7, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 4, 3)).astype(np.float32)
    before = len(onednn.api().cache)
    t = tf.nn.conv2d_transpose(x, f, [2, 14, 14, 4], strides=2, padding="SAME")
    assert len(onednn.api().cache) > before
    ref = numpy_only(lambda: tf.nn.conv2d_transpose(x, f, [2, 14, 14, 4], strides=2, padding="SAME"))
    close(t.numpy(), ref.numpy())
    # a Keras conv block trained one step: gradients through conv, transposed conv and pools
    xs = tf.constant(rng.standard_normal((4, 8, 8, 2)).astype(np.float32))

    def step():
        tf.keras.utils.set_random_seed(3)
        model = tf.keras.Sequential([
            tf.keras.Input((8, 8, 2)), tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
            tf.keras.layers.MaxPooling2D(2), tf.keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same"),
            tf.keras.layers.AveragePooling2D(2, strides=1)])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(xs) ** 2)
        return [loss.numpy()] + [g.numpy() for g in tape.gradient(loss, model.trainable_variables)]
    for g, r in zip(step(), numpy_only(step)):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(r).max())))


@needs
def test_fused_conv_epilogue_runs_after_onednn(numpy_only):
    x, f, _, (s, pad, d, explicit) = _conv_case(*CONVS[1])
    bias = np.linspace(-1, 1, f.shape[3]).astype(np.float32)

    def epilogue(block):
        np.add(block, bias, out=block)
        np.maximum(block, 0, out=block)
    close(nn_ops._conv_kernel(x, f, s, pad, d, explicit, epilogue),
          numpy_only(nn_ops._conv_kernel, x, f, s, pad, d, explicit, epilogue))


@needs
@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("case", [1, 2, 7], ids=str)
def test_fused_conv_bias_and_relu_as_post_ops(case, activation, numpy_only):
    from rivulet.optimize import fusion
    x, f, _, (s, pad, d, explicit) = _conv_case(*CONVS[case])
    bias = np.linspace(-1, 1, f.shape[3]).astype(np.float32)
    got = fusion._fused_conv_kernel(x, f, bias, s, pad, d, explicit, activation)
    assert any(k[-3:-1] == (True, activation == "relu") for k in onednn.api().cache)  # (then the thread count)
    close(got, numpy_only(fusion._fused_conv_kernel, x, f, bias, s, pad, d, explicit, activation))


POOLS = [((2, 2), (2, 2), "VALID", (2, 8, 8, 3)), ((3, 3), (2, 2), "SAME", (2, 9, 7, 3)),
         ((3, 2), (1, 2), "SAME", (2, 9, 7, 3)), ((2, 2), (2, 2), "SAME", (3, 7, 9, 4)),
         ((3, 3), (1, 1), "VALID", (1, 6, 6, 2)), ((1, 1), (2, 2), "VALID", (2, 5, 5, 2)),
         ((2, 2), (2, 2), "VALID", (2, 11, 11, 3)), ((3, 3), (3, 3), "VALID", (1, 9, 7, 2))]


@needs
@pytest.mark.parametrize("ksize,strides,padding,shape", POOLS, ids=[str(i) for i in range(len(POOLS))])
@pytest.mark.parametrize("ties", [False, True], ids=["random", "ties"])
def test_pools_and_gradients_equal_numpy(ksize, strides, padding, shape, ties, numpy_only):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    if ties:  # few distinct values, and zeros as after a ReLU: windows with several maxima
        x = np.maximum(np.round(x * 1.5), 0).astype(np.float32)
    y = nn_ops._max_pool_kernel(x, ksize, strides, padding)
    assert np.array_equal(y, numpy_only(nn_ops._max_pool_kernel, x, ksize, strides, padding))
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy.flat[::7] = -0.0
    for relu in (False, True):
        got = nn_ops._max_pool_grad_kernel(x, y, dy, ksize, strides, padding, relu=relu)
        ref = numpy_only(nn_ops._max_pool_grad_kernel, x, y, dy, ksize, strides, padding, relu=relu)
        # bit for bit, -0 too (overlapping windows stay on NumPy: oneDNN would sum in another order)
        assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    close(nn_ops._avg_pool_kernel(x, ksize, strides, padding),
          numpy_only(nn_ops._avg_pool_kernel, x, ksize, strides, padding))
    close(nn_ops._avg_pool_grad_kernel(x, dy, ksize, strides, padding),
          numpy_only(nn_ops._avg_pool_grad_kernel, x, dy, ksize, strides, padding))


@needs
@pytest.mark.parametrize("shape,k", [((3, 26, 26, 8), 2), ((3, 11, 11, 8), 2), ((2, 9, 7, 4), 3)])
def test_max_pool_gradient_with_relu_is_relu_grad_of_the_pool_gradient(shape, k):
    """The fused ReluGrad(MaxPoolGrad(x, y, dy), x) (the mask built from each window's pooled value where the
    windows tile the input) is the two ops one after the other, bit for bit: -0 where a masked gradient is
    negative, NaN for a masked inf or NaN, +0 off the chosen elements, rows and columns no window covers."""
    rng = np.random.default_rng(5)
    x = np.maximum(np.round(rng.standard_normal(shape) * 2) - 2, 0).astype(np.float32)  # a ReLU's output, ties
    x.flat[::13] = -0.0
    y = nn_ops._max_pool_kernel(x, (k, k), (k, k), "VALID")
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy.flat[::5], dy.flat[1::7], dy.flat[2::11], dy.flat[3::17] = -0.0, np.inf, np.nan, -np.inf
    with np.errstate(invalid="ignore"):
        got = nn_ops._max_pool_grad_kernel(x, y, dy, (k, k), (k, k), "VALID", relu=True)
        ref = nn_ops._max_pool_grad_kernel(x, y, dy, (k, k), (k, k), "VALID") * (x > 0)
    assert (y <= 0).any() and (ref.view(np.uint32) == 0x80000000).any() and np.isnan(ref).any()
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))


@needs
def test_relu_gradient_is_tensorflows_mask_bit_for_bit():
    """onednn.relu_grad is ReluGrad's dy * (x > 0) bit for bit wherever x is no NaN (-0 for a masked negative
    gradient, NaN for a masked inf or NaN one), into a new array or in place; operands are checked first."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 7, 5, 16)).astype(np.float32)
    x.flat[::9] = 0.0
    x.flat[1::9] = -0.0
    dy = rng.standard_normal(x.shape).astype(np.float32)
    dy.flat[::5], dy.flat[1::7], dy.flat[2::11], dy.flat[3::17] = -0.0, np.inf, np.nan, -np.inf
    with np.errstate(invalid="ignore"):
        ref = np.multiply(dy, x > 0, dtype=np.float32)
    assert (ref.view(np.uint32) == 0x80000000).any() and np.isnan(ref).any()
    assert np.array_equal(onednn.relu_grad(dy, x).view(np.uint32), ref.view(np.uint32))
    inplace = dy.copy()
    assert onednn.relu_grad(inplace, x, out=inplace) is inplace
    assert np.array_equal(inplace.view(np.uint32), ref.view(np.uint32))
    for bad in [(dy.astype(np.float64), x), (dy, x[:2]), (dy[:, ::2], x[:, ::2]), (dy[:0], x[:0])]:
        with pytest.raises(ValueError):
            onednn.relu_grad(*bad)
    wide = np.zeros(x.shape[:-1] + (32,), np.float32)
    frozen = np.zeros_like(x)
    frozen.flags.writeable = False
    for out in [wide[..., ::2], np.zeros(x.shape), frozen, np.zeros(x.shape[1:], np.float32)]:
        with pytest.raises(ValueError):  # (a strided output would be written through a copy and lost)
            onednn.relu_grad(dy, x, out=out)
    assert not wide.any()


@needs
def test_fused_max_pool_and_relu_gradient_masks_on_onednn(monkeypatch):
    """The fused pool + ReLU gradient masks with oneDNN's ReLU backward, bit for bit the two ops one after the
    other, NaN features included (the pool routes no gradient to them: +0 either way)."""
    rng = np.random.default_rng(8)
    x = np.maximum(np.round(rng.standard_normal((4, 26, 26, 16)) * 2) - 2, 0).astype(np.float32)
    x.flat[::13] = -0.0
    x.flat[5::101] = np.nan
    x[1, 4:6, 4:6] = np.nan  # a window of NaNs: oneDNN routes its gradient to a NaN (TensorFlow's mask: dy * 0)
    y = nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "VALID")
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy.flat[::5], dy.flat[1::7], dy.flat[2::11] = -0.0, np.inf, np.nan
    calls = []
    real = onednn.relu_grad
    monkeypatch.setattr(onednn, "relu_grad", lambda *a, **k: calls.append(1) or real(*a, **k))
    for n in (4, 1):  # (the batch without the window of NaNs: oneDNN's mask)
        with np.errstate(invalid="ignore"):
            got = nn_ops._max_pool_grad_kernel(x[:n], y[:n], dy[:n], (2, 2), (2, 2), "VALID", relu=True)
            ref = np.multiply(nn_ops._max_pool_grad_kernel(x[:n], y[:n], dy[:n], (2, 2), (2, 2), "VALID"),
                              x[:n] > 0, dtype=np.float32)
        assert not np.isnan(y).any() and (ref.view(np.uint32) == 0x80000000).any()
        assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    assert calls == [1]


@needs
def test_big_primitives_run_on_the_calling_threads_helper(monkeypatch, numpy_only):
    """On a busy machine a primitive of _HANDOFF_MIN_WORK or more runs on a helper thread of the calling thread
    while the caller waits (the scheduler serves a thread waking from a wait ahead of one that never sleeps);
    smaller ones, and every one with a core free, run in place; an error comes back to the caller; a helper
    ends once its calling thread is gone."""
    import gc
    busy = [False]
    monkeypatch.setattr(onednn, "_busy_lately", lambda now: busy[0])
    monkeypatch.setattr(onednn.api(), "local", threading.local())  # (no helper from an earlier test)
    ran_on = []
    real = onednn.Primitive.run
    monkeypatch.setattr(onednn.Primitive, "run", lambda self, *a, **k: ran_on.append(threading.get_ident())
                        or real(self, *a, **k))
    rng = np.random.default_rng(9)
    w = rng.standard_normal((3, 3, 8, 8)).astype(np.float32)
    small = rng.standard_normal((1, 6, 6, 8)).astype(np.float32)  # 1.2k multiply-adds
    big = rng.standard_normal((16, 34, 34, 8)).astype(np.float32)  # 9.4M
    onednn.conv2d(big, w, (1, 1), (1, 1), ((0, 0), (0, 0)))  # a core is free: in place
    busy[0] = True
    for x in (small, big):
        got = onednn.conv2d(x, w, (1, 1), (1, 1), ((0, 0), (0, 0)))
        close(got, numpy_only(nn_ops._conv_kernel, x, w, (1, 1), "VALID", (1, 1)))
    assert ran_on[0] == ran_on[1] == threading.get_ident() != ran_on[2]
    helper = onednn.api().local.helper
    assert ran_on[2] == helper.thread.ident and helper.thread.is_alive()

    class Refused:
        def run(self, *args):
            raise onednn.Error("refused")
    with pytest.raises(onednn.Error, match="refused"):
        onednn._execute(onednn.api(), Refused(), {}, None, 1, onednn._HANDOFF_MIN_WORK)

    helpers = []

    def caller():
        onednn.conv2d(big, w, (1, 1), (1, 1), ((0, 0), (0, 0)))
        helpers.append(onednn.api().local.helper.thread)
    t = threading.Thread(target=caller)
    t.start()
    t.join()
    gc.collect()
    helpers[0].join(timeout=10)
    assert helpers[0] is not helper.thread and not helpers[0].is_alive()


@needs
def test_max_pool_of_nans_is_tensorflows():
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    for i, j, ch in [(0, 0, 0), (3, 3, 1), (2, 0, 0), (2, 1, 0), (3, 0, 0), (3, 1, 0)]:
        x[0, i, j, ch] = np.nan
    low = float(np.finfo(np.float32).min)
    # recorded from TensorFlow 2.21 (tf.nn.max_pool2d, CPU): a NaN is skipped, a window of NaNs gives the lowest
    # float
    assert tf.nn.max_pool2d(x, 2, 2, "VALID").numpy().tolist() == [[[[10.0, 11.0], [14.0, 15.0]],
                                                                    [[low, 27.0], [30.0, 29.0]]]]
    assert tf.nn.max_pool2d(x, 3, 1, "SAME").numpy()[0, :, :, 0].tolist() == [
        [10.0, 12.0, 14.0, 14.0], [10.0, 20.0, 22.0, 22.0], [10.0, 28.0, 30.0, 30.0], [low, 28.0, 30.0, 30.0]]
    # a NaN that reaches the gradient (from the NumPy pool) takes NumPy's gradient: no window routes anything
    y = np.full((1, 2, 2, 2), np.nan, np.float32)
    dx = nn_ops._max_pool_grad_kernel(x, y, np.ones_like(y), (2, 2), (2, 2), "VALID")
    assert not dx.any()


@needs
def test_operands_are_checked_before_c():
    x = np.zeros((1, 5, 5, 2), np.float32)
    w = np.zeros((3, 3, 2, 4), np.float32)
    p = ((0, 0), (0, 0))
    with pytest.raises(ValueError, match="float32"):
        onednn.conv2d(x.astype(np.float64), w, (1, 1), (1, 1), p)
    with pytest.raises(ValueError, match="C-contiguous"):
        onednn.conv2d(np.zeros((1, 5, 10, 2), np.float32)[:, :, ::2], w, (1, 1), (1, 1), p)
    with pytest.raises(ValueError, match="does not fit"):
        onednn.conv2d(x, np.zeros((3, 3, 3, 4), np.float32), (1, 1), (1, 1), p)
    with pytest.raises(ValueError, match="do not give output"):
        onednn.conv2d_backprop_filter(x, w.shape, np.zeros((1, 4, 4, 4), np.float32), (1, 1), (1, 1), p)
    with pytest.raises(ValueError, match="do not agree"):
        onednn.conv2d_backprop_input((2, 5, 5, 2), w, np.zeros((1, 3, 3, 4), np.float32), (1, 1), (1, 1), p)
    onednn.conv2d(x, w, (1, 1), (1, 1), p)  # builds and caches the primitive
    (prim,) = [v for k, v in onednn.api().cache.items()  # (keyed by the thread count last)
               if k[:-1] == ("conv", "fwd", False, x.shape, w.shape, (1, 3, 3, 4), (1, 1), (1, 1), p)]
    y = np.empty((1, 3, 3, 4), np.float32)
    with pytest.raises(ValueError, match="bytes"):  # a cached primitive re-checks every array it is given
        prim.run({onednn.SRC: x, onednn.WEIGHTS: w, onednn.DST: y[:, :2].copy()})
    with pytest.raises(ValueError, match="read-only"):
        y.flags.writeable = False
        prim.run({onednn.SRC: x, onednn.WEIGHTS: w, onednn.DST: y})
    with pytest.raises(ValueError, match="do not match"):
        prim.run({onednn.SRC: x, onednn.DST: y})


@needs
def test_primitives_are_cached_per_shape():
    x = np.ones((1, 6, 6, 3), np.float32)
    w = np.ones((2, 2, 3, 5), np.float32)
    p = ((0, 0), (0, 0))
    onednn.conv2d(x, w, (1, 1), (1, 1), p)
    n = len(onednn.api().cache)
    onednn.conv2d(x + 1, w, (1, 1), (1, 1), p)
    assert len(onednn.api().cache) == n
    onednn.conv2d(np.ones((2, 6, 6, 3), np.float32), w, (1, 1), (1, 1), p)
    assert len(onednn.api().cache) == n + 1


@needs
def test_openblas_one_thread_regions_do_not_bind_primitives_a_busy_machine_does(monkeypatch, thread_counts):
    """A graph or loop of small GEMMs runs OpenBLAS on one thread (its workers spin); a primitive inside such
    a region still takes every core on a quiet machine (oneDNN's OpenMP workers wait passively: a convnet's
    epoch 760 -> 520 ms), and one thread on a busy machine."""
    seen = thread_counts
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 0)  # (this small problem would stay on one thread)
    monkeypatch.setattr(blas_threads, "_cpus", lambda: 2)
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)
    x = np.ones((1, 9, 9, 4), np.float32)
    w = np.ones((3, 3, 4, 7), np.float32)
    with blas_threads.one_thread():
        blas_threads._active[0] += 1  # as when OpenBLAS is absent: the region still counts
        try:
            onednn.conv2d(x, w, (1, 1), (1, 1), ((0, 0), (0, 0)))
        finally:
            blas_threads._active[0] -= 1
    assert 2 in seen  # (a weights reorder runs on one thread beside it)
    seen.clear()
    monkeypatch.setattr(blas_threads, "_busy", lambda: True)
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    onednn.conv2d(np.ones((3, 9, 9, 4), np.float32), w, (1, 1), (1, 1), ((0, 0), (0, 0)))  # a new primitive
    assert seen and set(seen) == {1}


def test_convolutions_on_onednn_do_not_make_a_graphs_openblas_gemms_big():
    """blas_threads.Profile sizes OpenBLAS's GEMMs: a float32 convolution oneDNN runs is not one of them."""
    g = tf.function(lambda x, w, v: (tf.nn.conv2d(x, w, 1, "VALID"), tf.matmul(v, v))).get_concrete_function(
        tf.TensorSpec([64, 32, 32, 64]), tf.TensorSpec([3, 3, 64, 64]), tf.TensorSpec([16, 16])).graph
    profile = blas_threads.Profile(g.get_operations())
    assert profile.largest() == pytest.approx(16 * 16 * 16) if onednn.api() is not None else \
        profile.largest() > 64 * 30 * 30 * 64 * 9 * 0.99


def test_numpy_kernels_run_when_the_library_is_missing(monkeypatch):
    monkeypatch.setattr(onednn, "_found", [None])
    assert onednn.api() is None and not onednn.available()
    x, f, dy, (s, pad, d, explicit) = _conv_case(*CONVS[2])
    y = tf.nn.conv2d(x, f, s, "SAME", dilations=d).numpy()
    assert y.shape == (1, 11, 5, 6)
    ref = sum(np.pad(x, ((0, 0), (2, 2), (1, 1), (0, 0)))[:, 2 * i:2 * i + 11, j:j + 9:2] @ f[i, j]
              for i in range(3) for j in range(3))
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    assert tf.nn.max_pool2d(x, 2, 2, "VALID").shape == (1, 5, 4, 5)


def test_a_library_that_does_not_load_is_no_error(monkeypatch, tmp_path):
    bogus = tmp_path / "libdnnl.so.3"
    bogus.write_bytes(b"not a library")
    monkeypatch.setenv("RIVULET_ONEDNN_LIB", str(bogus))
    assert onednn._load() is None
    monkeypatch.setenv("RIVULET_ONEDNN", "0")
    monkeypatch.delenv("RIVULET_ONEDNN_LIB")
    assert onednn._load() is None


def test_conv_kernels_ask_glibc_to_keep_freed_memory(monkeypatch):
    from rivulet.execute import memory
    calls = []
    monkeypatch.setattr(memory, "_state", {"done": False, "applied": False})
    monkeypatch.setattr(memory, "_mallopt", lambda: lambda k, v: calls.append((k, v)) or 1)
    for k in memory._ENV:
        monkeypatch.delenv(k, raising=False)
    tf.nn.conv2d(np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 2), np.float32), 1, "VALID")
    assert (-3, 32 << 20) in calls and memory.retain_heap()  # blocks under 32 MiB from the heap


@needs
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_runs_convolutions_on_numpy():
    x = np.ones((8, 10, 10, 4), np.float32)
    w = np.ones((3, 3, 4, 8), np.float32)
    onednn.api().set_threads(2)
    onednn.conv2d(x, w, (1, 1), (1, 1), ((0, 0), (0, 0)))  # the parent's OpenMP threads exist now
    r, wr = os.pipe()
    pid = os.fork()
    if pid == 0:  # GNU OpenMP's pool does not survive the fork: oneDNN would hang here
        try:
            faulthandler.dump_traceback_later(30, exit=True)
            ok = onednn.api() is None and float(nn_ops._conv_kernel(x, w, (1, 1), "VALID", (1, 1)).min()) == 36.0
            os.write(wr, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(wr)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    os.close(r)
    assert got == b"1" and onednn.api() is not None


@needs
def test_a_refused_problem_is_asked_once_then_runs_on_numpy(monkeypatch, numpy_only):
    x, f, _, (s, pad, d, explicit) = _conv_case(*CONVS[3])
    key_part = ("conv", "fwd", False, x.shape)
    tried = []

    def refuse(*args, **kwargs):
        tried.append(1)
        raise onednn.Error("oneDNN: convolution forward failed (status 3)")
    monkeypatch.setattr(onednn, "_conv_pd", refuse)
    monkeypatch.setattr(onednn.api(), "cache", {k: v for k, v in onednn.api().cache.items() if k[:4] != key_part})
    monkeypatch.setattr(onednn.api(), "refused", set())
    for _ in range(3):
        close(nn_ops._conv_kernel(x, f, s, pad, d, explicit),
              numpy_only(nn_ops._conv_kernel, x, f, s, pad, d, explicit))
    assert tried == [1]


@needs
def test_threads_run_the_same_primitive_at_once(numpy_only):
    import threading
    x, f, dy, (s, pad, d, explicit) = _conv_case(*CONVS[10])
    ref = numpy_only(nn_ops._conv_kernel, x, f, s, pad, d, explicit)
    out, errors = [], []

    def work():
        try:
            for _ in range(5):
                out.append(nn_ops._conv_kernel(x, f, s, pad, d, explicit))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(out) == 20
    for o in out:
        close(o, ref)


@needs
def test_the_cache_keeps_the_most_recently_used(monkeypatch):
    monkeypatch.setattr(onednn, "_CACHE_MAX", 2)
    destroyed = []
    real = onednn.Primitive.destroy
    monkeypatch.setattr(onednn.Primitive, "destroy", lambda self: destroyed.append(self) or real(self))
    w = np.ones((2, 2, 3, 4), np.float32)
    p = ((0, 0), (0, 0))
    xs = [np.ones((n, 5, 5, 3), np.float32) for n in (1, 2, 3)]
    onednn.conv2d(xs[0], w, (1, 1), (1, 1), p)
    onednn.conv2d(xs[1], w, (1, 1), (1, 1), p)
    first = next(iter(onednn.api().cache.values()))
    onednn.conv2d(xs[0], w, (1, 1), (1, 1), p)  # used again: now the most recent
    onednn.conv2d(xs[2], w, (1, 1), (1, 1), p)  # pushes out the batch-2 one
    assert len(onednn.api().cache) == 2 and len(destroyed) == 1 and destroyed[0] is not first
    assert [k[3][0] for k in onednn.api().cache] == [1, 3]
    for x in xs:
        assert onednn.conv2d(x, w, (1, 1), (1, 1), p).tolist() == np.full((x.shape[0], 4, 4, 4), 12.0).tolist()


@needs
def test_max_pool_gradient_reuses_the_forward_window_indices(monkeypatch, numpy_only):
    kinds = []
    real = onednn._pool
    monkeypatch.setattr(onednn, "_pool", lambda kind, *a, **k: kinds.append(kind) or real(kind, *a, **k))
    rng = np.random.default_rng(5)
    x = np.maximum(np.round(rng.standard_normal((2, 8, 8, 3)) * 1.5), 0).astype(np.float32)  # ties
    y = nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "VALID")
    dy = rng.standard_normal(y.shape).astype(np.float32)
    assert kinds == ["ws"] and len(onednn._WORKSPACES) >= 1
    got = nn_ops._max_pool_grad_kernel(x, y, dy, (2, 2), (2, 2), "VALID")
    assert kinds == ["ws", "bwd"]  # no second forward
    ref = numpy_only(nn_ops._max_pool_grad_kernel, x, y, dy, (2, 2), (2, 2), "VALID")
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    other = x.copy()  # another input (equal values): its own forward
    nn_ops._max_pool_grad_kernel(other, y, dy, (2, 2), (2, 2), "VALID")
    assert kinds == ["ws", "bwd", "ws", "bwd"]
    key = id(y)
    del y
    assert key not in onednn._WORKSPACES  # dropped with its output


@needs
def test_every_core_means_the_intra_op_thread_count_where_set(monkeypatch, thread_counts):
    from rivulet import config_devices
    seen = thread_counts
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)
    monkeypatch.setattr(config_devices.threading, "get_intra_op_parallelism_threads", lambda: 3)
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 0)  # (this small problem would stay on one thread)
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    onednn.conv2d(np.ones((2, 9, 9, 4), np.float32), np.ones((3, 3, 4, 7), np.float32), (1, 1), (1, 1),
                  ((0, 0), (0, 0)))
    assert 3 in seen and max(seen) == 3


@needs
def test_a_primitive_on_every_core_takes_one_thread_once_the_machine_is_busy(monkeypatch, thread_counts):
    """A primitive that chose every core on a quiet machine runs on one thread as soon as other work fills the
    cores (the runnable count, read at most every _BUSY_TTL for the process), not only at its next probe:
    a split primitive on a busy machine waits for a descheduled worker."""
    a = onednn.api()
    seen = thread_counts
    monkeypatch.setattr(blas_threads, "_cpus", lambda: 2)
    busy = [False]
    monkeypatch.setattr(blas_threads, "_busy", lambda: busy[0])
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 0)  # (this small problem would stay on one thread)
    x, w = np.ones((2, 9, 9, 4), np.float32), np.ones((3, 3, 4, 7), np.float32)

    # the calls' times, which a loaded machine makes anything, are recorded here instead of judged
    timed = []
    monkeypatch.setattr(blas_threads, "record_call", lambda t, one, took, probing, now: timed.append(one))

    def conv():
        seen.clear()
        onednn.conv2d(x, w, (1, 1), (1, 1), ((0, 0), (0, 0)))
        return seen[-1]
    assert conv() == 2 and conv() == 2  # quiet: every core, its first calls well before a probe
    assert timed == [False, False]
    busy[0] = True
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])  # (the next call reads the count again)
    assert conv() == 1
    (choice,) = [t for k, t in a.choices.items() if k[1] == "fwd"]
    assert not choice.one and timed == [False, False]  # the choice stands: untimed one-thread calls while busy
    busy[0] = False
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    assert conv() == 2


def _other_threads_cpu_ticks():
    """CPU clock ticks of this process's threads other than the calling one and the helper thread that runs
    its big primitives (Linux /proc)."""
    me, total = {threading.get_native_id()}, 0
    helper = getattr(onednn.api().local, "helper", None)
    if helper is not None:
        me.add(helper.thread.native_id)
    for tid in os.listdir("/proc/self/task"):
        if int(tid) not in me:
            try:
                with open(f"/proc/self/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:  # the thread ended
                continue
            total += int(fields[11]) + int(fields[12])
    return total


@needs
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads threads' CPU time from /proc")
def test_each_thread_count_has_its_own_primitive(monkeypatch):
    """oneDNN fixes a primitive's OpenMP thread count when it is made: a primitive made for every core ran
    on two threads even when a call chose one (a busy machine), and one made while the count was 1 (after a
    weights reorder) never used a second core. Each count has its own primitive, made under that count."""
    a = onednn.api()
    if a.set_threads is None or blas_threads._cpus() < 2:
        pytest.skip("oneDNN without OpenMP threads, or one core")
    quiet = [True]
    monkeypatch.setattr(onednn._Threads, "choose", lambda self, now: (not quiet[0], None))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 13, 13, 32)).astype(np.float32)
    dy = rng.standard_normal((32, 11, 11, 64)).astype(np.float32)

    def filter_grads():
        before = _other_threads_cpu_ticks()
        for _ in range(150):  # about 0.1-0.2 s on one core
            onednn.conv2d_backprop_filter(x, (3, 3, 32, 64), dy, (1, 1), (1, 1), ((0, 0), (0, 0)))
        return _other_threads_cpu_ticks() - before
    assert filter_grads() > 0  # quiet: OpenMP's second thread shares the work
    quiet[0] = False
    assert filter_grads() == 0  # busy: the one-thread primitive, no other thread runs
    keys = [k for k in a.cache if k[1] == "weights"]
    assert sorted(k[-1] for k in keys) == [1, onednn._all_threads()]


@needs
def test_max_pool_window_indices_serve_the_gradient_of_either_thread_count(monkeypatch):
    """The forward's workspace (kept with y) is read by a gradient primitive of the other thread count when the
    choice changed between the two calls: the same gradient, bit for bit."""
    one = [True]
    monkeypatch.setattr(onednn._Threads, "choose", lambda self, now: (one[0], None))
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 0)  # (this small pool would stay on one thread)
    monkeypatch.setattr(blas_threads, "_cpus", lambda: 2)
    rng = np.random.default_rng(4)
    pads = ((0, 1), (0, 1))
    x = np.round(rng.standard_normal((4, 9, 7, 16)) * 2).astype(np.float32)  # ties
    dy = rng.standard_normal(onednn._pool_out(x.shape, (2, 2), (2, 2), pads)).astype(np.float32)
    got = []
    for fwd, bwd in [(True, True), (True, False), (False, True), (False, False)]:
        one[0] = fwd
        y = onednn.max_pool(x, (2, 2), (2, 2), pads)
        one[0] = bwd
        got.append(onednn.max_pool_grad(x, dy, (2, 2), (2, 2), pads, y=y).view(np.uint32))
    assert all(np.array_equal(got[0], g) for g in got[1:])
    # both counts' primitives ran (the pool is below _SPLIT_MIN_WORK, which alone kept every call on one)
    assert {k[-1] for k in onednn.api().cache if k[1] in ("ws", "bwd")} == {1, 2}


@needs
def test_a_small_problem_stays_on_one_thread(monkeypatch, thread_counts):
    """Below _SPLIT_MIN_WORK multiply-adds a second thread never paid: such a convolution or pool runs on one
    thread on a quiet machine too, with no thread choice kept for it."""
    a = onednn.api()
    seen = thread_counts
    monkeypatch.setattr(blas_threads, "_cpus", lambda: 2)
    monkeypatch.setattr(blas_threads, "_busy", lambda: False)
    x = np.ones((4, 14, 14, 16), np.float32)  # 4x7x7x8 outputs x 3x3x16: 226K multiply-adds
    onednn.conv2d(x, np.ones((3, 3, 16, 8), np.float32), (2, 2), (1, 1), ((0, 1), (0, 1)))
    onednn.max_pool(x, (2, 2), (2, 2), ((0, 0), (0, 0)))
    assert seen and set(seen) == {1} and not a.choices
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 100_000)
    onednn.conv2d(x, np.ones((3, 3, 16, 8), np.float32), (2, 2), (1, 1), ((0, 1), (0, 1)))
    assert seen[-1] == 2 and len(a.choices) == 1


@needs
def test_a_big_problem_runs_on_every_free_core_without_probes(monkeypatch, thread_counts):
    """From _ALWAYS_SPLIT_WORK multiply-adds every free core always paid: no timed probe of one thread (a probe
    ran a VGG19 convolution at half speed on most of a short run's calls), and no choice kept; one thread only
    while other work fills the cores."""
    a = onednn.api()
    seen = thread_counts
    busy = [False]
    monkeypatch.setattr(blas_threads, "_cpus", lambda: 2)
    monkeypatch.setattr(blas_threads, "_busy", lambda: busy[0])
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    monkeypatch.setattr(onednn, "_ALWAYS_SPLIT_WORK", 100_000)
    x = np.ones((4, 14, 14, 16), np.float32)  # 226K multiply-adds: "big" for the test
    w = np.ones((3, 3, 16, 8), np.float32)
    monkeypatch.setattr(onednn, "_SPLIT_MIN_WORK", 1000)
    def counts():  # the thread counts of the convolution's primitives built so far
        return sorted(k[-1] for k in a.cache if k[:2] == ("conv", "fwd") and k[3] == x.shape)
    for _ in range(5):
        onednn.conv2d(x, w, (2, 2), (1, 1), ((0, 1), (0, 1)))
    assert counts() == [2] and 2 in seen and not a.choices  # never probed on one thread
    busy[0] = True
    monkeypatch.setattr(onednn, "_busy_seen", [-1.0, False])
    onednn.conv2d(x, w, (2, 2), (1, 1), ((0, 1), (0, 1)))
    assert counts() == [1, 2]
