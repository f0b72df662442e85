"""The compiled executor: memory planning and buffer reuse keep values identical and never touch inputs."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import options


@pytest.fixture(autouse=True)
def _reset_options():
    yield
    options.reset()


def chain(x):
    y = x * 2.0 + 1.0
    return -(y * y) + y, y


def test_buffer_reuse_computes_in_place_without_touching_inputs():
    x0 = np.random.rand(300, 300).astype(np.float32)
    x = tf.constant(x0)
    f = tf.function(chain)
    a, y = f(x)
    src = f.get_concrete_function(x)._compiled.source
    assert "out=" in src and "del " in src
    np.testing.assert_array_equal(x.numpy(), x0)  # the argument was not overwritten
    ref_y = x0 * 2 + 1
    np.testing.assert_allclose(a.numpy(), -(ref_y * ref_y) + ref_y, rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), ref_y, rtol=1e-6)  # y is an output: never reused


def test_buffer_reuse_off_gives_the_same_values():
    x = tf.constant(np.random.rand(300, 300).astype(np.float32))
    on = tf.function(chain)(x)
    tf.config.optimizer.set_experimental_options({"buffer_reuse": False})
    f = tf.function(chain)
    off = f(x)
    assert "out=" not in f.get_concrete_function(x)._compiled.source
    for p, q in zip(on, off):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_small_and_scalar_values_are_not_reused_or_freed():
    f = tf.function(chain)
    a, _ = f(tf.constant(3.0))
    assert a.numpy() == pytest.approx(-42.0)
    assert "out=" not in f.get_concrete_function(tf.constant(3.0))._compiled.source


def wide(a, b, c, d):
    return [tf.tanh(tf.exp(x * 0.5) + tf.sqrt(tf.abs(x))) for x in (a, b, c, d)]


def test_parallel_executor_runs_heavy_independent_branches_together():
    xs = [tf.constant(np.random.rand(400, 400).astype(np.float32)) for _ in range(4)]
    f = tf.function(wide)
    par = f(*xs)
    src = f.get_concrete_function(*xs)._compiled.source
    assert "_par(" in src
    tf.config.optimizer.set_experimental_options({"parallel_execution": False})
    g = tf.function(wide)
    seq = g(*xs)
    assert "_par(" not in g.get_concrete_function(*xs)._compiled.source
    for p, q in zip(par, seq):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_small_graphs_keep_the_sequential_path():
    xs = [tf.constant(np.random.rand(10, 10).astype(np.float32)) for _ in range(4)]
    f = tf.function(wide)
    f(*xs)
    assert "_par(" not in f.get_concrete_function(*xs)._compiled.source


def test_errors_inside_parallel_groups_still_name_the_node():
    @tf.function
    def f(a, b):
        return tf.gather(tf.exp(a), [300000]), tf.exp(b) * 2.0
    x = tf.constant(np.random.rand(200000).astype(np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
        f(x, x)


def test_independent_branches_with_parallel_levels_inside_do_not_deadlock():
    # Each branch has two heavy ops on one level, so it would itself ask the pool for help: more
    # branches than workers must still finish (nested waits run in the calling thread).
    def f(*xs):
        return [tf.exp(x) + tf.sqrt(tf.abs(x)) for x in xs]
    xs = [tf.constant(np.random.rand(400, 400).astype(np.float32)) for _ in range(6)]
    out = tf.function(f)(*xs)
    for x, o in zip(xs, out):
        v = x.numpy()
        np.testing.assert_allclose(o.numpy(), np.exp(v) + np.sqrt(np.abs(v)), rtol=1e-6)


def test_bias_add_after_conv_reuses_the_conv_output():
    tf.config.optimizer.set_experimental_options({"remapping": False})  # else conv + bias is one fused op
    x = tf.constant(np.random.rand(1, 12, 12, 3).astype(np.float32))
    w = tf.constant(np.random.rand(3, 3, 3, 4).astype(np.float32))
    b = tf.constant(np.random.rand(4).astype(np.float32))
    b0 = b.numpy().copy()
    f = tf.function(lambda x: tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b))
    got = f(x).numpy()
    assert "out=" in f.get_concrete_function(x)._compiled.source
    tf.config.optimizer.set_experimental_options({"buffer_reuse": False})
    want = tf.function(lambda x: tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b))(x).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(b.numpy(), b0)


def test_graphs_compute_nan_and_inf_silently_as_tensorflow_does():
    # Compiled code calls bare kernels and infix operators inside one quiet context per call; a tensor
    # `while` runs its body the same way; the user's own NumPy code outside still warns.
    import warnings

    @tf.function
    def f(a, b):
        s = tf.constant(0.0)
        for _ in tf.range(2):
            s += tf.math.log(b - 1.0)
        return a - a, a * 0.0, b / (b - b), tf.exp(a) * 1e38, s

    inf = tf.constant(np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [t.numpy() for t in f(inf, tf.constant(1.0))]
        wide = [tf.constant(np.full((400, 400), np.inf, np.float32)) for _ in range(4)]
        par = tf.function(wide_fn)(*wide)  # parallel branches run on pool threads
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2] == np.inf and got[3] == np.inf and got[4] == -np.inf
    assert all(np.isnan(p.numpy()).all() for p in par)
    with pytest.warns(RuntimeWarning):
        np.float32(np.inf) - np.float32(np.inf)


def wide_fn(*xs):
    return [tf.exp(x) - tf.sqrt(tf.abs(x)) for x in xs]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_inlined_matmuls_reshapes_and_dense_layers_match_the_kernels(dtype):
    # 2-D MatMul with transpose attrs, static Reshape and fused Dense layers compile to expressions and
    # plain calls instead of kernel calls; remapping off runs the kernels: both give the same values.
    rs = np.random.default_rng(1)
    x = tf.constant((rs.standard_normal((6, 2, 4)) * 4).astype(dtype))
    w = tf.constant((rs.standard_normal((8, 5)) * 4).astype(dtype))
    b = tf.constant((rs.standard_normal(5) * 4).astype(dtype))

    def f(x):
        h = tf.reshape(x, [6, 8])
        y = tf.nn.relu(tf.matmul(h, w) + b)
        z = tf.matmul(h, w * 2) + b
        return (y, z, tf.matmul(y, z, transpose_a=True), tf.matmul(y, z, transpose_b=True),
                tf.matmul(h, h, transpose_a=True, transpose_b=False), tf.reshape(y, [-1]))

    fast = tf.function(f)
    got = fast(x)
    src = fast.get_concrete_function(x)._compiled.source
    assert ".T)" in src and ".reshape(" in src
    if dtype in (np.float32, np.float64):  # the fuser takes float Dense layers only
        assert "_dot_bias_relu(" in src and "_dot_bias(" in src
    tf.config.optimizer.set_experimental_options({"remapping": False})
    plain = tf.function(lambda x: f(x))
    want = plain(x)
    for g, w_ in zip(got, want):
        assert g.dtype == w_.dtype and g.shape == w_.shape
        np.testing.assert_allclose(g.numpy(), w_.numpy(), rtol=1e-6)
    if dtype == np.float16:
        return
    hx = x.numpy().reshape(6, 8)
    ref = np.maximum(hx @ w.numpy() + b.numpy(), 0)
    np.testing.assert_allclose(got[0].numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(got[2].numpy(), ref.T @ (hx @ (w.numpy() * 2) + b.numpy()), rtol=1e-5)


def test_a_dense_relu_of_an_unknown_batch_compares_with_a_scalar_zero():
    w = tf.constant(np.ones((3, 2), np.float32))
    f = tf.function(lambda x: tf.nn.relu(tf.matmul(x, w) + 1.0 - 5.0),
                    input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for n in (1, 4):
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.maximum(x @ np.ones((3, 2)) - 4.0, 0))
