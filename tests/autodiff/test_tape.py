"""tf.GradientTape, tf.gradients, tf.custom_gradient and tf.stop_gradient."""
import numpy as np
import pytest

import rivulet as tf


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar float64 function f at the NumPy array x."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(tf.constant(x + d))) - float(f(tf.constant(x - d)))) / (2 * eps)
    return g


def tape_grad(f, x):
    x = tf.constant(np.array(x, dtype=np.float64))
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return t.gradient(y, x).numpy()


COMPOSITES = [
    lambda x: tf.reduce_sum(x * x + 3.0 * x),
    lambda x: tf.reduce_mean(tf.maximum(x, 0.5) / (x + 2.0)),
    lambda x: tf.reduce_sum(tf.pow(x, 3.0) - x),
    lambda x: tf.reduce_sum(tf.matmul(tf.reshape(x, [2, 3]), tf.reshape(x, [3, 2]))),
    lambda x: tf.reduce_sum(tf.where(x > 0.2, x * x, -x)),
    lambda x: tf.reduce_sum(tf.identity(-x) * x),
    lambda x: tf.reduce_sum(tf.reduce_sum(tf.reshape(x, [2, 3]), axis=1) * tf.constant([1.0, 2.0], tf.float64)),
]


@pytest.mark.parametrize("i", range(len(COMPOSITES)))
def test_gradient_matches_finite_differences(i):
    x = np.array([0.3, -0.7, 1.1, 0.9, -0.2, 0.6])  # away from the kinks of maximum and where
    np.testing.assert_allclose(tape_grad(COMPOSITES[i], x), numeric_grad(COMPOSITES[i], x), rtol=1e-5, atol=1e-6)


def test_cast_passes_gradients_between_float_types():
    x = tf.constant([1.0, 2.0], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.cast(tf.cast(x, tf.float32) * 2.0, tf.float64))
    g = t.gradient(y, x)
    assert g.dtype is tf.float64 and g.numpy().tolist() == [2.0, 2.0]


def test_simple_values():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    assert repr(t.gradient(y, x)) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"


def test_non_persistent_tape_gives_one_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with pytest.raises(RuntimeError, match="^A non-persistent GradientTape can only be used to compute one set of "
                                           r"gradients \(or jacobians\)$"):
        t.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tf.GradientTape().gradient(x, x)


def test_persistent_tape_and_structures():
    x, z = tf.constant(3.0), tf.constant(1.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2
    assert float(t.gradient(y, x)) == 2.0
    g = t.gradient(y, [x, {"a": z, "b": x}])
    assert float(g[0]) == 2.0 and g[1]["a"] is None and float(g[1]["b"]) == 2.0
    assert float(t.gradient([y, y], x)) == 4.0
    assert float(t.gradient({"k": y}, x)) == 2.0
    assert float(t.gradient(y, x, output_gradients=tf.constant(3.0))) == 6.0


def test_unconnected_gradients():
    x, z = tf.constant(3.0), tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2
    assert t.gradient(y, z) is None
    assert t.gradient(y, z, unconnected_gradients="zero").numpy().tolist() == [0, 0]
    assert t.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO).numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="^Unknown value for unconnected_gradients: 'bad'$"):
        t.gradient(y, x, unconnected_gradients="bad")


def test_variables_are_watched_automatically():
    v = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape(persistent=True) as t:
        y = v * v * frozen
    assert float(t.gradient(y, v)) == 20.0
    assert t.gradient(y, frozen) is None
    assert t.watched_variables() == (v,)
    with tf.GradientTape() as t:
        t.watch(frozen)
        y = v * v * frozen
    assert t.gradient(y, [v, frozen])[1].numpy() == 4.0
    with tf.GradientTape(watch_accessed_variables=False) as t:
        y = v * v
    assert t.gradient(y, v) is None


def test_gradient_of_all_reads_of_a_variable_sums():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(v * 3.0) + tf.reduce_sum(v.read_value() * v)
    assert t.gradient(y, v).numpy().tolist() == [5.0, 7.0]


def test_dense_layer_gradients():
    x = tf.constant([[1.0, 2.0, 3.0]])
    w = tf.Variable(np.ones((3, 2), np.float32))
    b = tf.Variable(np.zeros(2, np.float32))
    with tf.GradientTape() as t:
        loss = tf.reduce_mean(tf.maximum(tf.matmul(x, w) + b, 0.0))
    g = t.gradient(loss, {"w": w, "b": b})
    assert g["w"].numpy().tolist() == [[0.5, 0.5], [1.0, 1.0], [1.5, 1.5]]
    assert g["b"].numpy().tolist() == [0.5, 0.5]


def test_stop_recording_and_stop_gradient():
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        y = v * v
        with t.stop_recording():
            z = v * 3
    assert float(t.gradient([y, z], v)) == 4.0
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.stop_gradient(x) * x
    assert t.gradient(y, x).numpy().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="^Tape is not recording.$"):
        with t.stop_recording():
            pass


def test_second_derivative_with_nested_tapes():
    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x ** 3
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0


def test_persistent_tape_records_its_own_gradient_inside_context(capfd):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x * x
        dy = t.gradient(y, x)
    assert float(t.gradient(dy, x)) == 18.0


def test_non_float_sources_and_targets_are_not_differentiated(capfd):
    xi = tf.constant(3)
    with tf.GradientTape() as t:
        t.watch(xi)
        y = xi * xi
    assert t.gradient(y, xi) is None
    assert "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32" in capfd.readouterr().err
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.cast(x, tf.int32) * 2
    assert t.gradient(y, x) is None


def test_watch_errors():
    with tf.GradientTape() as t:
        with pytest.raises(ValueError, match="^Passed in object 1.0 of type 'float', not tf.Tensor or tf.Variable"):
            t.watch(1.0)
        with pytest.raises(ValueError, match="^Tape is still recording, This can happen if you try to re-enter"):
            t.__enter__()


def test_missing_gradient_function_names_the_op():
    from rivulet.core.op import defop
    from rivulet.core.dispatch import bind
    from rivulet.ops._rules import same_shape
    try:
        op = defop("TestNoGrad", lambda x: x * 2, same_shape)
    except ValueError:
        from rivulet.core.op import get_op
        op = get_op("TestNoGrad")
    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = bind(op, (x,))
    with pytest.raises(LookupError, match="^gradient registry has no entry for: TestNoGrad$"):
        t.gradient(y, x)


def test_jacobian_and_batch_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.reshape(x, [3, 1]) * x
        s = tf.reduce_sum(x * x)
    j = t.jacobian(y, x)
    expected = np.zeros((3, 3, 3))
    for a in range(3):
        for b in range(3):
            expected[a, b, a] += x.numpy()[b]
            expected[a, b, b] += x.numpy()[a]
    np.testing.assert_allclose(j.numpy(), expected)
    assert t.jacobian(s, x).numpy().tolist() == [2, 4, 6]
    assert t.jacobian(y, tf.constant(1.0)) is None
    assert t.jacobian(y, tf.constant(1.0), unconnected_gradients="zero").shape == tf.TensorShape([3, 3])
    xx = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as t:
        t.watch(xx)
        y = xx * xx
    bj = t.batch_jacobian(y, xx)
    assert bj.numpy().tolist() == [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]


def test_gradient_through_a_function_call():
    @tf.function
    def add(a, b):
        return a + b
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    assert repr(tape.gradient(result, v)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"


def test_tape_inside_a_function():
    @tf.function
    def grad_of_square(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        return t.gradient(y, x)
    assert float(grad_of_square(tf.constant(3.0))) == 6.0


def test_custom_gradient():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    x = tf.constant(100.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    assert float(t.gradient(y, x)) == 1.0

    @tf.custom_gradient
    def two(x):
        def grad(dy1, dy2):
            return dy1 + 2 * dy2
        return [x * 1, x * 2], grad
    with tf.GradientTape() as t:
        t.watch(x)
        z = two(x)
    assert float(t.gradient(z[1], x)) == 2.0  # the unused output's gradient arrives as zeros


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)
    x = tf.constant(3.0)

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            return dy * 10.0, [dy * 100.0 for _ in variables]
        return x * v, grad
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert [float(g) for g in t.gradient(y, [x, v])] == [10.0, 100.0]

    @tf.custom_gradient
    def no_kwarg(x):
        return x * v, lambda dy: dy
    with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables'"):
        no_kwarg(x)

    @tf.custom_gradient
    def wrong_count(x, y):
        return x * y, lambda dy: dy
    with tf.GradientTape() as t:
        t.watch(x)
        z = wrong_count(x, x)
    with pytest.raises(ValueError, match="^custom_gradient function expected to return 2 gradients, but returned 1 "
                                         "instead.$"):
        t.gradient(z, x)


def test_custom_gradient_inside_a_function_differentiated_outside():
    # The function's ops replay on the tape; the gradient function, traced against the function's own
    # tensors, runs on the replayed values.
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    v = tf.Variable(2.0)

    @tf.custom_gradient
    def times_v(x):
        unused_by_forward = x * 7.0

        def grad(dy, variables):
            return dy * v * 10.0 + unused_by_forward, [tf.reduce_sum(dy * x) * 100.0]
        return x * v, grad

    @tf.function
    def f(x):
        return log1pexp(x) + times_v(x)

    x = tf.constant([0.0, 100.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    gx, gv = t.gradient(y, [x, v])
    np.testing.assert_allclose(gx.numpy(), [0.5 + 20.0, 1.0 + 20.0 + 700.0])
    assert float(gv) == 10000.0

    @tf.function
    def outer(x):  # f is inlined here; the tape is in this graph
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x) * 2.0
        return t.gradient(y, x)
    np.testing.assert_allclose(outer(x).numpy(), [1.0 + 40.0, 2.0 + 40.0 + 700.0])

    @tf.function
    def square(x):
        @tf.custom_gradient
        def sq(x):
            return x * x, lambda dy: dy * 2.0 * x
        return sq(x)
    with tf.GradientTape() as t2:  # second order: the replayed gradient is recorded too
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = square(x)
        g = t1.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [0.0, 200.0])
    np.testing.assert_allclose(t2.gradient(g, x).numpy(), [2.0, 2.0])


def test_tf_gradients_in_a_graph():
    with pytest.raises(RuntimeError, match="^tf.gradients is not supported when eager execution is enabled"):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(a):
        c = a * a
        d = tf.reduce_sum(v * c)
        ga, gv, gnone = tf.gradients(d, [a, v, tf.constant(1.0)])
        gz = tf.gradients(d, tf.constant(1.0), unconnected_gradients="zero")[0]
        gs = tf.gradients([c, c], a, grad_ys=[a, a])[0]
        return ga, gv, gnone is None, gz, gs
    ga, gv, unconnected, gz, gs = f(tf.constant([3.0, 4.0]))
    assert ga.numpy().tolist() == [6.0, 16.0] and gv.numpy().tolist() == [9.0, 16.0]
    assert bool(unconnected) and float(gz) == 0.0
    assert gs.numpy().tolist() == [36.0, 64.0]


def test_tf_gradients_stop_gradients_and_missing_gradient():
    from rivulet.core.op import get_op
    from rivulet.core.dispatch import bind

    @tf.function
    def f(a):
        b = a * 2.0
        c = b * a
        return tf.gradients(c, a, stop_gradients=[b])[0]
    assert f(tf.constant(3.0)).numpy() == 6.0

    try:
        op = get_op("TestNoGrad")
    except KeyError:
        from rivulet.core.op import defop
        from rivulet.ops._rules import same_shape
        op = defop("TestNoGrad", lambda x: x * 2, same_shape)

    @tf.function
    def g(a):
        return tf.gradients(bind(op, (a,), name="twice"), a)
    with pytest.raises(LookupError, match=r"^No gradient defined for operation'twice' \(op type: TestNoGrad\)"):
        g(tf.constant(1.0))


def test_sources_and_targets_that_are_not_tensors_are_rejected():
    x = tf.constant(1.0)
    for sources, target in (("a", None), ([x, 3], None), (x, "z")):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        with pytest.raises(TypeError, match="Tensor"):
            t.gradient(y if target is None else target, sources)


@pytest.mark.parametrize("flags", [{}, {"transpose_a": True}, {"adjoint_a": True}, {"transpose_b": True},
                                   {"adjoint_b": True}, {"adjoint_a": True, "adjoint_b": True},
                                   {"transpose_a": True, "adjoint_b": True}])
def test_complex_matmul_gradients_are_conjugate_derivatives(flags):
    # TensorFlow's convention for a complex source z: conj(dl/dz) + dl/d(conj z). l is linear in every
    # entry, so finite differences along the real and imaginary parts are exact.
    rng = np.random.default_rng(1)
    cplx = lambda *s: rng.normal(size=s) + 1j * rng.normal(size=s)  # noqa: E731
    a0 = cplx(3, 2) if flags.get("transpose_a") or flags.get("adjoint_a") else cplx(2, 3)
    b0 = cplx(2, 3) if flags.get("transpose_b") or flags.get("adjoint_b") else cplx(3, 2)
    w = cplx(2, 2)

    def loss(a, b):
        return np.sum(tf.matmul(tf.constant(a), tf.constant(b), **flags).numpy() * w)

    def expected(x, f):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            e = np.zeros_like(x)
            e[idx] = 1
            dx, dy = f(x + e) - f(x), f(x + 1j * e) - f(x)
            g[idx] = (np.conj(dx) + 1j * np.conj(dy)) / 2 + (dx + 1j * dy) / 2
        return g
    a, b = tf.constant(a0), tf.constant(b0)
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = tf.reduce_sum(tf.matmul(a, b, **flags) * tf.constant(w))
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), expected(a0, lambda x: loss(x, b0)), atol=1e-9)
    np.testing.assert_allclose(gb.numpy(), expected(b0, lambda x: loss(a0, x)), atol=1e-9)
