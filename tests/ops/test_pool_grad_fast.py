"""The vectorised MaxPool gradient (and the fused MaxPool + ReLU gradient) equal, bit for bit, the tap-by-tap
reference formulation it replaced: random shapes, strides, paddings, ties (first maximum in row-major
order gets the gradient, as TensorFlow's CPU kernel), NaN and -0.0 gradients, integer inputs."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.ops import nn_ops


def reference_max_pool_grad(x, y, dy, ksize, strides, padding):
    """The formulation before the vectorised kernel: one comparison, mask update and add per window tap."""
    n, h, w, _ = x.shape
    _, _, (ph, pw), sl = nn_ops._pool_geom(h, w, ksize, strides, padding)
    xp = nn_ops._pad_input(x, ph, pw, nn_ops._lowest(x.dtype))
    dxp = np.zeros(xp.shape, dy.dtype)
    taken = np.zeros(y.shape, bool)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            hit = (sl(xp, i, j) == y) & ~taken
            taken |= hit
            sl(dxp, i, j)[...] += np.where(hit, dy, 0)
    return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w].copy()


def same_bits(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)) if a.dtype.kind == "f" else np.array_equal(a, b)


def case(rng, ties, dtype=np.float32):
    n, h, w, c = rng.integers(1, 4), rng.integers(1, 12), rng.integers(1, 12), rng.integers(1, 5)
    if ties:  # few distinct values: many windows hold their maximum twice or more
        x = rng.integers(-2, 3, (n, h, w, c)).astype(dtype)
    else:
        x = rng.standard_normal((n, h, w, c)).astype(dtype)
    return x


@pytest.mark.parametrize("seed", range(60))
def test_equals_reference_on_random_geometry(seed):
    rng = np.random.default_rng(seed)
    x = case(rng, ties=seed % 2 == 0, dtype=np.float64 if seed % 5 == 0 else np.float32)
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    s = k if seed % 3 == 0 else (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    padding = "SAME" if seed % 4 < 2 else "VALID"
    if padding == "VALID" and (x.shape[1] < k[0] or x.shape[2] < k[1]):
        padding = "SAME"
    y = nn_ops._max_pool_kernel(x, k, s, padding)
    dy = rng.standard_normal(y.shape).astype(x.dtype)
    same_bits(nn_ops._max_pool_grad_kernel(x, y, dy, k, s, padding),
              reference_max_pool_grad(x, y, dy, k, s, padding))


@pytest.mark.parametrize("k,s,padding", [((2, 2), (2, 2), "VALID"), ((2, 2), (2, 2), "SAME"),
                                         ((3, 3), (3, 3), "SAME"), ((3, 3), (2, 2), "VALID"),
                                         ((3, 3), (1, 1), "SAME"), ((2, 3), (2, 3), "VALID")])
def test_ties_nan_and_negative_zero_gradients(k, s, padding):
    rng = np.random.default_rng(1)
    x = np.maximum(rng.integers(-1, 2, (2, 9, 10, 3)), 0).astype(np.float32)  # ReLU-like: many all-zero windows
    y = nn_ops._max_pool_kernel(x, k, s, padding)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy.flat[::7] = np.nan
    dy.flat[3::11] = -0.0
    dy.flat[5::13] = -np.inf
    got = nn_ops._max_pool_grad_kernel(x, y, dy, k, s, padding)
    same_bits(got, reference_max_pool_grad(x, y, dy, k, s, padding))
    # Each window's gradient went to one input only (its first maximum): no NaN spread to other inputs.
    assert np.isnan(got).sum() == np.isnan(dy).sum() or s != k


def test_all_equal_window_goes_to_first_position():
    x = np.zeros((1, 2, 2, 1), np.float32)
    y = nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "VALID")
    got = nn_ops._max_pool_grad_kernel(x, y, np.array([[[[5.0]]]], np.float32), (2, 2), (2, 2), "VALID")
    assert got[0, :, :, 0].tolist() == [[5.0, 0.0], [0.0, 0.0]]


def test_integer_inputs_and_nan_inputs():
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 3, (2, 8, 7, 2)).astype(np.int32)
    y = nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "SAME")
    dy = rng.integers(-5, 5, y.shape).astype(np.int32)
    same_bits(nn_ops._max_pool_grad_kernel(x, y, dy, (2, 2), (2, 2), "SAME"),
              reference_max_pool_grad(x, y, dy, (2, 2), (2, 2), "SAME"))
    xf = rng.standard_normal((1, 6, 6, 2)).astype(np.float32)
    xf[0, 1, 1, 0] = np.nan
    for k, s in (((2, 2), (2, 2)), ((3, 3), (1, 1))):
        y = nn_ops._max_pool_kernel(xf, k, s, "VALID")
        dy = np.ones(y.shape, np.float32)
        same_bits(nn_ops._max_pool_grad_kernel(xf, y, dy, k, s, "VALID"),
                  reference_max_pool_grad(xf, y, dy, k, s, "VALID"))


@pytest.mark.parametrize("seed", range(12))
def test_fused_relu_equals_relu_grad_of_pool_grad(seed):
    rng = np.random.default_rng(100 + seed)
    n, h, w, c = 2, int(rng.integers(2, 13)), int(rng.integers(2, 13)), 3
    x = np.maximum(rng.integers(-2, 3, (n, h, w, c)) * rng.random((n, h, w, c)) ** (seed % 2), 0).astype(np.float32)
    k = (2, 2) if seed % 3 else (3, 3)
    padding = "VALID" if seed % 2 else "SAME"
    y = nn_ops._max_pool_kernel(x, k, k, padding)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy.flat[::9] = -0.0
    dy.flat[4::17] = np.nan
    unfused = np.multiply(reference_max_pool_grad(x, y, dy, k, k, padding), x > 0, dtype=np.float32)
    same_bits(nn_ops._max_pool_grad_kernel(x, y, dy, k, k, padding, relu=True), unfused)


def test_gradient_through_the_op_matches_tensorflow_documented_values():
    # tf.nn.max_pool2d on [[1, 2], [3, 4]] and a tie [[4, 4], [0, 1]] in one 2x4 image.
    x = tf.constant([[1.0, 2.0, 4.0, 4.0], [3.0, 4.0, 0.0, 1.0]])[None, :, :, None]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    g = tape.gradient(y, x, output_gradients=tf.constant([[[[10.0], [20.0]]]]))
    assert g.numpy()[0, :, :, 0].tolist() == [[0.0, 0.0, 20.0, 0.0], [0.0, 10.0, 0.0, 0.0]]


def _conv_pool_step(x, w, b, k, padding):
    with tf.GradientTape() as t:
        t.watch([x, w, b])
        r = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b))
        y = tf.nn.max_pool2d(r, k, k, padding)
        loss = tf.reduce_sum(y * y * y)
    return t.gradient(loss, [x, w, b])


@pytest.mark.parametrize("k,padding", [(2, "VALID"), (3, "SAME")])
def test_graph_fuses_pool_grad_with_relu_grad_and_keeps_values(k, padding):
    from rivulet.execute.plan import needed_ops
    from rivulet.optimize.pipeline import optimize
    rng = np.random.default_rng(7)
    args = [tf.constant(rng.standard_normal(s).astype(np.float32)) for s in ((2, 9, 10, 3), (3, 3, 3, 4), (4,))]
    f = tf.function(lambda x, w, b: _conv_pool_step(x, w, b, k, padding))
    for got, want in zip(f(*args), _conv_pool_step(*args, k, padding)):  # eager: MaxPoolGrad, then ReluGrad
        same_bits(got.numpy(), want.numpy())
    g = f.get_concrete_function(*args).graph
    g2, _, o2 = optimize(g, g.arg_placeholders + g.internal_captures, g.outputs)
    after = [op.type for op in needed_ops(g2, o2)]
    assert "_FusedMaxPoolGradRelu" in after and "MaxPoolGrad" not in after and "ReluGrad" not in after


def reference_conv_backprop_input(x, w, dy, strides, padding, dilations, explicit=None):
    """Conv2DBackpropInput as it was computed before the per-tap form: the full correlation for stride 1,
    else im2col's transpose (dy @ w.T, then each window's columns added back)."""
    kh, kw, c, o = w.shape
    n, h, wd, _ = x.shape
    oh, ow, ph, pw = nn_ops.conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    dh, dw = dilations
    if strides == (1, 1):
        eh, ew = (kh - 1) * dh, (kw - 1) * dw
        wf = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
        full = nn_ops._conv_kernel(dy, wf, (1, 1), "EXPLICIT", dilations, ((eh, eh), (ew, ew)))
        return full[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd]
    dxp = np.zeros((n, h + ph[0] + ph[1], wd + pw[0] + pw[1], c), dtype=dy.dtype)
    sh, sw = strides
    dcols = (dy.reshape(-1, o) @ w.reshape(-1, o).T).reshape(n, oh, ow, kh, kw, c)
    for i in range(kh):
        for j in range(kw):
            dxp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] += dcols[:, :, :, i, j]
    return dxp[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd]


def random_conv_case(rng, seed, max_batch):
    """A random convolution (x, filter, dy, strides, padding, dilations, explicit paddings) drawn from `rng`:
    strided on even seeds, dilated on stride-1 seeds divisible by 3, padding by seed % 3, float64 on seed % 5."""
    n, h, w, c, o = (int(v) for v in rng.integers(1, max_batch + 1, 1).tolist() + rng.integers(3, 14, 2).tolist()
                     + [rng.choice([1, 3, 8, 16]), rng.choice([1, 4, 8])])
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    strides = (1, 1) if seed % 2 else (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    dil = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if strides == (1, 1) and seed % 3 == 0 else (1, 1)
    padding, explicit = ["SAME", "VALID", "EXPLICIT"][seed % 3], None
    if padding == "EXPLICIT":
        explicit = ((int(rng.integers(0, 3)), int(rng.integers(0, 3))), (int(rng.integers(0, 3)), int(rng.integers(0, 3))))
    if padding != "SAME" and (h + sum(explicit[0] if explicit else (0, 0)) < (kh - 1) * dil[0] + 1
                              or w + sum(explicit[1] if explicit else (0, 0)) < (kw - 1) * dil[1] + 1):
        padding, explicit = "SAME", None
    dtype = np.float64 if seed % 5 == 0 else np.float32
    x = rng.standard_normal((n, h, w, c)).astype(dtype)
    wt = rng.standard_normal((kh, kw, c, o)).astype(dtype)
    dy = rng.standard_normal(nn_ops._conv_kernel(x, wt, strides, padding, dil, explicit).shape).astype(dtype)
    return x, wt, dy, strides, padding, dil, explicit


@pytest.mark.parametrize("seed", range(40))
def test_conv_backprop_input_equals_reference(seed):
    rng = np.random.default_rng(300 + seed)
    x, wt, dy, strides, padding, dil, explicit = random_conv_case(rng, seed, 3)
    dtype = x.dtype.type
    got = nn_ops._conv_backprop_input_kernel(x, wt, dy, strides, padding, dil, explicit)
    want = reference_conv_backprop_input(x, wt, dy, strides, padding, dil, explicit)
    assert got.shape == x.shape and got.dtype == dtype and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


def test_conv_backprop_input_small_image_takes_the_per_tap_form():
    # The MNIST convnet's second convolution: the per-tap form reads dy, not a padded copy of it.
    rng = np.random.default_rng(5)
    x = rng.random((4, 13, 13, 32), dtype=np.float32)
    w = rng.standard_normal((3, 3, 32, 64), dtype=np.float32)
    dy = rng.standard_normal((4, 11, 11, 64), dtype=np.float32)
    calls = []
    real = nn_ops._conv_kernel
    nn_ops._conv_kernel = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        got = nn_ops._conv_backprop_input_kernel(x, w, dy, (1, 1), "VALID", (1, 1))
    finally:
        nn_ops._conv_kernel = real
    assert not calls
    np.testing.assert_allclose(got, reference_conv_backprop_input(x, w, dy, (1, 1), "VALID", (1, 1)), rtol=1e-5, atol=1e-4)


def reference_conv_backprop_filter(x, w, dy, strides, padding, dilations, explicit=None):
    """Conv2DBackpropFilter as computed before the per-tap form: the im2col matrix transposed against dy."""
    kh, kw, c, o = w.shape
    oh, ow, ph, pw = nn_ops.conv_geometry(x.shape, kh, kw, strides, padding, explicit, dilations)
    cols = nn_ops._windows(nn_ops._pad_input(x, ph, pw), oh, ow, kh, kw, strides, dilations)
    return (cols.reshape(-1, kh * kw * c).T @ dy.reshape(-1, o)).reshape(kh, kw, c, o)


@pytest.mark.parametrize("seed", range(40))
def test_conv_backprop_filter_equals_reference(seed, monkeypatch):
    rng = np.random.default_rng(500 + seed)
    if seed % 4 == 0:  # several blocks of images
        monkeypatch.setattr(nn_ops, "_DW_BLOCK_BYTES", 200)
    x, wt, dy, strides, padding, dil, explicit = random_conv_case(rng, seed, 4)
    dtype = x.dtype.type
    got = nn_ops._conv_backprop_filter_kernel(x, wt, dy, strides, padding, dil, explicit)
    want = reference_conv_backprop_filter(x, wt, dy, strides, padding, dil, explicit)
    assert got.shape == wt.shape and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-12)


def test_conv_backprop_filter_int32():
    rng = np.random.default_rng(9)
    x = rng.integers(-3, 4, (2, 6, 5, 3)).astype(np.int32)
    w = rng.integers(-3, 4, (2, 2, 3, 4)).astype(np.int32)
    dy = rng.integers(-3, 4, (2, 3, 3, 4)).astype(np.int32)
    got = nn_ops._conv_backprop_filter_kernel(x, w, dy, (2, 2), "SAME", (1, 1))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, reference_conv_backprop_filter(x, w, dy, (2, 2), "SAME", (1, 1)))


@pytest.mark.parametrize("block_bytes", [1 << 20, 5000, 300])
def test_conv_tap_sums_copy_whole_images_at_once(block_bytes, monkeypatch):
    # Tap sums over a batch of small images: images wholly in a block are copied (and get the fused
    # epilogue) in one go, images cut by a block's edge row by row; every output once, epilogue once.
    monkeypatch.setattr(nn_ops, "_TAP_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((7, 9, 8, 16)).astype(np.float32)
    w = rng.standard_normal((3, 3, 16, 8)).astype(np.float32)
    seen = []

    def epilogue(block):
        seen.append(block.size)
        np.maximum(block, 0, out=block)

    got = nn_ops._conv_kernel(x, w, (1, 1), "SAME", (1, 1), epilogue=epilogue)
    cols = nn_ops._windows(nn_ops._pad_input(x, (1, 1), (1, 1)), 9, 8, 3, 3, (1, 1), (1, 1))
    want = np.maximum(cols.reshape(-1, 144) @ w.reshape(144, 8), 0).reshape(7, 9, 8, 8)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert sum(seen) == got.size
    if block_bytes == 1 << 20:
        assert len(seen) == 1


def test_non_contiguous_operands():
    rng = np.random.default_rng(13)
    base = rng.integers(-2, 3, (2, 3, 8, 10)).astype(np.float32)
    x = base.transpose(0, 2, 3, 1)  # NCHW data seen as NHWC: not C-contiguous
    y = nn_ops._max_pool_kernel(x, (2, 2), (2, 2), "SAME")
    dy = rng.standard_normal(y.shape[::-1]).astype(np.float32).T.transpose(3, 2, 1, 0).transpose(3, 2, 1, 0)
    for relu in (False, True):
        got = nn_ops._max_pool_grad_kernel(x, y, dy, (2, 2), (2, 2), "SAME", relu=relu)
        want = reference_max_pool_grad(x, y, dy, (2, 2), (2, 2), "SAME")
        same_bits(got, np.multiply(want, x > 0, dtype=np.float32) if relu else want)
