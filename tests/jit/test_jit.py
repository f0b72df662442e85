"""jit_compile=True: every op family compiled by onnxruntime gives the NumPy executor's results; fallbacks,
variables, gradients, errors, tiering and the three switches (tf.function, set_jit, Keras compile)."""
import sys
import warnings

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytestmark = pytest.mark.usefixtures("compile_at_once")  # tests/jit/conftest.py

RS = np.random.default_rng(0)


def both(fn, *args, rtol=1e-5, atol=1e-6, tier="onnxruntime"):
    """fn under jit_compile=True against the NumPy executor; returns the jit results."""
    plain = tf.function(fn)
    jit = tf.function(fn, jit_compile=True)
    want = tf.nest.flatten(plain(*args))
    with warnings.catch_warnings():
        warnings.simplefilter("error" if tier == "onnxruntime" else "ignore")
        got = tf.nest.flatten(jit(*args))
    assert tf.jit.tier_of(jit) == [tier]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)
    return got


def f32(*shape):
    return tf.constant(RS.standard_normal(shape).astype(np.float32))


def test_elementwise_math():
    x, y = f32(3, 4), f32(3, 4)
    both(lambda a, b: (a + b * 2.0, a - b, a / (tf.abs(b) + 1), tf.maximum(a, b), tf.minimum(a, 0.5),
                       tf.exp(a), tf.math.log(tf.abs(a) + 1), tf.sqrt(tf.abs(b)), tf.square(a), tf.tanh(a),
                       tf.sigmoid(b), tf.math.pow(tf.abs(a), 1.5), -a, tf.math.floor(a), tf.sign(b)), x, y)


def test_comparisons_where_cast_and_integers():
    x, y = f32(5), f32(5)
    i = tf.constant(np.arange(10, dtype=np.int32).reshape(2, 5))
    both(lambda a, b, n: (tf.where(a > b, a, b), tf.cast(a > 0, tf.float32), tf.logical_and(a > 0, b < 0),
                          n * 3 + 1, n // 3, tf.math.floormod(n, 4), tf.cast(n, tf.float32) / 2.0,
                          tf.equal(n, 4)), x, y, i)


def test_reductions():
    x = f32(4, 5, 6)
    both(lambda a: (tf.reduce_sum(a), tf.reduce_mean(a, axis=1), tf.reduce_max(a, axis=[0, 2], keepdims=True),
                    tf.reduce_min(a, -1), tf.reduce_prod(a[:, :2, :2], 0), tf.argmax(a, 1),
                    tf.math.reduce_std(a, 2), tf.math.cumsum(a, axis=1)), x)


def test_matmul_dense_and_batch_matmul():
    a, b, c = f32(6, 8), f32(8, 3), f32(2, 6, 8)
    both(lambda a, b, c: (tf.matmul(a, b), tf.nn.relu(tf.matmul(a, b) + tf.ones([3])),
                          tf.matmul(a, a, transpose_b=True), tf.matmul(c, b), tf.linalg.matmul(a, b, transpose_a=False)),
         a, b, c, rtol=1e-4, atol=1e-5)


def test_activations_softmax_and_losses():
    x = f32(6, 5)
    labels = tf.constant([0, 4, 2, 1, 3, 3])
    onehot = tf.one_hot(labels, 5)
    both(lambda a: (tf.nn.relu(a), tf.nn.relu6(a * 4), tf.nn.leaky_relu(a), tf.nn.elu(a), tf.nn.selu(a),
                    tf.nn.softplus(a), tf.nn.gelu(a), tf.nn.silu(a), tf.nn.softmax(a), tf.nn.log_softmax(a),
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=a),
                    tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=a),
                    tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(a), logits=a)), x)


def test_conv_pool_and_bias():
    img, w, b = f32(2, 9, 9, 3), f32(3, 3, 3, 4), f32(4)
    both(lambda x, w, b: (tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + b), tf.nn.conv2d(x, w, 2, "VALID"),
                          tf.nn.max_pool2d(x, 2, 2, "VALID"), tf.nn.avg_pool2d(x, 3, 1, "SAME"),
                          tf.nn.bias_add(x, b[:3])), img, w, b, rtol=1e-4, atol=1e-5)


def test_array_ops():
    x = f32(4, 6)
    idx = tf.constant([3, 0, 2])
    both(lambda a, i: (tf.reshape(a, [6, 4]), tf.transpose(a), tf.concat([a, a * 2], 0), tf.stack([a, a], 1),
                       a[1:3, ::2], tf.gather(a, i), tf.gather(a, i, axis=1), tf.expand_dims(a, 1),
                       tf.squeeze(a[:1]), tf.tile(a, [2, 1]), tf.pad(a, [[1, 0], [0, 2]]), tf.reverse(a, [1]),
                       tf.split(a, 2, axis=1)[1], tf.shape(a), tf.zeros_like(a), tf.ones([2, 3]) * a[0, 0],
                       tf.one_hot(i, 4), tf.range(5), tf.clip_by_value(a, -0.5, 0.5)), x, idx)


def test_sort_and_top_k():
    x = f32(3, 7)
    both(lambda a: (tf.math.top_k(a, 3).values, tf.math.top_k(a, 3).indices, tf.sort(a, axis=-1),
                    tf.argsort(a, direction="DESCENDING")), x)


def test_control_flow():
    def f(x, n):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        i = tf.constant(0)
        acc = tf.zeros_like(x)
        while i < n:
            acc = acc + y * tf.cast(i, tf.float32)
            i += 1
        return acc
    both(f, f32(4), tf.constant(5))
    both(f, -tf.abs(f32(4)), tf.constant(3))


def test_unknown_batch_dimension():
    fn = tf.function(lambda x: tf.nn.relu(x) * 2.0, jit_compile=True,
                     input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for n in (1, 5):
        x = f32(n, 3)
        np.testing.assert_allclose(fn(x).numpy(), np.maximum(x.numpy(), 0) * 2)
    assert tf.jit.tier_of(fn) == ["onnxruntime"]
    fn2 = tf.function(lambda x: tf.reduce_sum(x, 0) + tf.reduce_sum(x), jit_compile=True,
                      input_signature=[tf.TensorSpec([None, None], tf.float32)])
    for shape in ((2, 3), (4, 1)):  # the two unknown dims are independent
        x = f32(*shape)
        np.testing.assert_allclose(fn2(x).numpy(), x.numpy().sum(0) + x.numpy().sum(), rtol=1e-5)
    assert tf.jit.tier_of(fn2) == ["onnxruntime"]


def test_function_computing_nothing_stays_quietly_on_numpy():
    f = tf.function(lambda x: None, jit_compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(f32(2)) is None
    assert tf.jit.tier_of(f) == ["fallback"]


def test_variables_updated_by_a_compiled_step():
    v = tf.Variable([1.0, 2.0, 3.0])
    count = tf.Variable(0)

    @tf.function(jit_compile=True)
    def step(x):
        before = v.read_value()
        v.assign_sub(x * 0.5)
        v.assign_add(tf.ones([3]) * 0.5)
        count.assign_add(1)
        return before, v.read_value() * 10.0

    start = np.array([1.0, 2.0, 3.0])
    for k in range(1, 4):
        before, after = step(tf.constant([2.0, 2.0, 2.0]))
        np.testing.assert_allclose(before.numpy(), start - 0.5 * (k - 1))
        np.testing.assert_allclose(v.numpy(), start - 0.5 * k)
        np.testing.assert_allclose(after.numpy(), (start - 0.5 * k) * 10)
        assert int(count.numpy()) == k
    assert tf.jit.tier_of(step) == ["onnxruntime"]
    held = v.read_value()  # holds the array: the next step must not write into it
    step(tf.constant([0.0, 0.0, 0.0]))
    np.testing.assert_allclose(held.numpy(), start - 1.5)
    v.assign([5.0, 5.0, 5.0])  # an eager assign between compiled calls is seen by the next one
    np.testing.assert_allclose(step(tf.constant([1.0, 1.0, 3.0]))[0].numpy(), [5.0, 5.0, 5.0])
    np.testing.assert_allclose(v.numpy(), [5.0, 5.0, 4.0])


def test_training_step_with_gradients_inside():
    rs = np.random.default_rng(3)
    w0 = rs.standard_normal((8, 4)).astype(np.float32) * 0.3
    x = tf.constant(rs.standard_normal((16, 8)).astype(np.float32))
    y = tf.constant(rs.integers(0, 4, 16).astype(np.int32))

    def run(jit):
        w, b = tf.Variable(w0), tf.Variable(tf.zeros([4]))

        @tf.function(jit_compile=jit)
        def step():
            with tf.GradientTape() as tape:
                logits = tf.matmul(tf.nn.relu(x), w) + b
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
            return loss
        losses = [float(step()) for _ in range(5)]
        if jit:
            assert tf.jit.tier_of(step) == ["onnxruntime"]
        return losses, w.numpy(), b.numpy()

    (l0, w_np, b_np), (l1, w_jit, b_jit) = run(False), run(True)
    np.testing.assert_allclose(l1, l0, rtol=1e-5)
    assert l1[-1] < l1[0]
    np.testing.assert_allclose(w_jit, w_np, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b_jit, b_np, rtol=1e-5, atol=1e-6)


def test_gradient_of_a_compiled_function():
    f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x) * x), jit_compile=True)
    x = f32(5)
    f(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    g = t.gradient(y, x).numpy()
    xn = x.numpy().astype(np.float64)
    np.testing.assert_allclose(g, np.tanh(xn) + xn * (1 - np.tanh(xn) ** 2), rtol=1e-5)
    np.testing.assert_allclose(float(y), float(np.sum(np.tanh(xn) * xn)), rtol=1e-5)


def test_unsupported_op_falls_back_once_naming_the_line():
    def fn(x):
        return tf.strings.length(tf.strings.as_string(x)) + 1  # strings: not compiled

    jit = tf.function(fn, jit_compile=True)
    with pytest.warns(RuntimeWarning, match=r"runs on the NumPy executor: .*test_jit\.py:\d+") as rec:
        r1 = jit(tf.constant([1, 22, 333]))
    assert len([w for w in rec if "NumPy executor" in str(w.message)]) == 1
    np.testing.assert_array_equal(r1.numpy(), [2, 3, 4])
    assert tf.jit.tier_of(jit) == ["fallback"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(jit(tf.constant([1, 22, 333])).numpy(), [2, 3, 4])  # said once


def test_side_effects_stay_on_numpy(capsys):
    @tf.function(jit_compile=True)
    def f(x):
        tf.print("value", x)
        return x * 2

    with pytest.warns(RuntimeWarning, match="PrintV2"):
        r = f(tf.constant(3))
    assert int(r) == 6 and tf.jit.tier_of(f) == ["fallback"]
    assert "value 3" in capsys.readouterr().err


def test_bad_data_raises_tensorflows_error_naming_the_user_line():
    @tf.function(jit_compile=True)
    def f(x, i):
        return tf.gather(x, i) * 2.0

    x = f32(4)
    f(x, tf.constant([1]))
    assert tf.jit.tier_of(f) == ["onnxruntime"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)test_jit\.py.*indices\[0\] = 7 is not in"):
        f(x, tf.constant([7]))


def test_tiering_compiles_after_warmup():
    tf.jit.configure(warmup_calls=2, background=False)
    f = tf.function(lambda x: x * 3.0 + 1.0, jit_compile=True)
    x = f32(3)
    for want in ("numpy", "numpy", "onnxruntime"):
        np.testing.assert_allclose(f(x).numpy(), x.numpy() * 3 + 1, rtol=1e-6)
        assert tf.jit.tier_of(f) == [want]


# timed calls: a fast function's 4 onnxruntime warm-up calls, then 8 blocks of 3 calls, NumPy's and onnxruntime's
# in turn (tier._BLOCK); a slow one's 3 onnxruntime calls and, once its first is past, a NumPy call after each
# but the last, timed under the same load
@pytest.mark.parametrize("slow_call,timed_calls", [(False, 4 + 8 * 3), (True, 3 + 1)])
def test_a_function_slower_on_onnxruntime_goes_back_to_numpy(monkeypatch, slow_call, timed_calls):
    from rivulet.jit import tier
    real = tier._runner
    if slow_call:  # every call counts as slow: the trial is shorter
        monkeypatch.setattr(tier, "_SLOW_SECONDS", 0.0)

    def slow_runner(*args):
        run = real(*args)

        def slow(*values):
            import time
            time.sleep(0.05)
            return run(*values)
        return slow

    monkeypatch.setattr(tier, "_runner", slow_runner)
    tf.jit.configure(warmup_calls=2, background=False)
    f = tf.function(lambda x: x * 3.0 + 1.0, jit_compile=True)
    x = f32(3)
    seen = []
    for _ in range(40):
        np.testing.assert_allclose(f(x).numpy(), x.numpy() * 3 + 1, rtol=1e-6)
        seen.append(tf.jit.tier_of(f)[0])
    # two NumPy warm-up calls, the timed calls, then the NumPy executor for good
    assert seen == ["numpy"] * 2 + ["onnxruntime"] * (timed_calls - 1) + ["numpy (faster)"] * (39 - timed_calls)


def test_background_compile():
    tf.jit.configure(warmup_calls=0, background=True)
    f = tf.function(lambda x: x - 1.0, jit_compile=True)
    x = f32(3)
    for _ in range(200):
        np.testing.assert_allclose(f(x).numpy(), x.numpy() - 1, rtol=1e-6)
        if tf.jit.tier_of(f) == ["onnxruntime"]:
            break
        import time
        time.sleep(0.01)
    assert tf.jit.tier_of(f) == ["onnxruntime"]


def test_set_jit_and_explicit_false():
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(True)
    try:
        assert tf.config.optimizer.get_jit() == "autoclustering"
        on = tf.function(lambda x: x + 1.0)
        off = tf.function(lambda x: x + 1.0, jit_compile=False)
        x = f32(2)
        on(x), off(x)
        assert tf.jit.tier_of(on) == ["onnxruntime"] and tf.jit.tier_of(off) == ["numpy"]
    finally:
        tf.config.optimizer.set_jit(False)
    assert tf.config.optimizer.get_jit() == ""


def test_keras_compile_jit_compile():
    rs = np.random.default_rng(4)
    x = rs.standard_normal((32, 6)).astype(np.float32)
    y = rs.integers(0, 3, 32)

    def fit(jit):
        tf.keras.utils.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(3)])
        m.compile(optimizer=tf.keras.optimizers.SGD(0.1),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=jit)
        h = m.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        return h.history["loss"], m.predict(x, verbose=0), m

    (l0, p0, _), (l1, p1, m1) = fit(False), fit(True)
    np.testing.assert_allclose(l1, l0, rtol=1e-5)
    np.testing.assert_allclose(p1, p0, rtol=1e-4, atol=1e-5)
    assert "onnxruntime" in tf.jit.tier_of(m1.make_train_function())


def test_without_onnxruntime_says_what_to_install(monkeypatch):
    from rivulet.jit import tier
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.setattr(tier, "_said", set())
    f = tf.function(lambda x: x * 2.0, jit_compile=True)
    x = f32(2)
    with pytest.warns(RuntimeWarning, match=r"pip install 'rivulet\[jit\]'"):
        r = f(x)
    np.testing.assert_allclose(r.numpy(), x.numpy() * 2)
    assert tf.jit.tier_of(f) == ["fallback"]


def test_configure_validates():
    with pytest.raises(ValueError, match="warmup_calls"):
        tf.jit.configure(warmup_calls=-1)
    with pytest.raises(ValueError, match="threads"):
        tf.jit.configure(threads=0)


def test_read_only_variables_are_frozen_until_they_change():
    w = tf.Variable(np.eye(3, dtype=np.float32) * 2)

    @tf.function(jit_compile=True)
    def f(x):
        return tf.matmul(x, w)

    x = f32(2, 3)
    np.testing.assert_allclose(f(x).numpy(), x.numpy() * 2, rtol=1e-6)
    jf = f._list_all_concrete_functions()[0]._jit_function
    assert len(jf.session.get_inputs()) == 1  # the weight is a constant of the compiled model
    w.assign(np.eye(3, dtype=np.float32) * 5)  # changed: compiled again with the weight as an input
    np.testing.assert_allclose(f(x).numpy(), x.numpy() * 5, rtol=1e-6)
    assert len(jf.session.get_inputs()) == 2 and tf.jit.tier_of(f) == ["onnxruntime"]
    w.assign_add(np.eye(3, dtype=np.float32))
    np.testing.assert_allclose(f(x).numpy(), x.numpy() * 6, rtol=1e-6)



def test_frozen_weights_see_a_numpy_step_updating_them():
    w = tf.Variable(np.ones((300, 300), np.float32))
    f = tf.function(lambda: tf.reduce_sum(w), jit_compile=True)

    @tf.function
    def step():  # updates in place when nothing else holds the array
        w.assign_sub(tf.ones((300, 300)))

    assert float(f()) == 90000.0
    step()
    assert float(f()) == 0.0  # the frozen array is held, so the step copied: the change is seen


def test_a_mid_size_product_gets_one_onnxruntime_thread_a_big_one_every_core():
    # 64x784x128 (6.4M multiply-adds, w5's biggest): the pool's sleeping workers wake too late for a second thread
    # to pay; 256x1024x1024 (268M): every core (up to 8)
    import os
    got = {}
    for m, k, n in ((64, 784, 128), (256, 1024, 1024)):
        w = tf.Variable(np.full((k, n), 0.01, np.float32))
        f = tf.function(lambda x: tf.nn.relu(tf.matmul(x, w)), jit_compile=True)
        x = tf.constant(np.ones((m, k), np.float32))
        np.testing.assert_allclose(f(x).numpy(), np.full((m, n), 0.01 * k, np.float32), rtol=1e-5)
        (cf,) = f._list_all_concrete_functions()
        got[m] = cf._jit_function.session.get_session_options().intra_op_num_threads
    assert got == {64: 1, 256: max(1, min(os.cpu_count() or 1, 8))}
