"""Gradients through TensorArrays (TensorList ops) in tf.function: map_fn, while loops, AutoGraph for loops.

Values recorded from TensorFlow 2.21 (tensorflow-cpu) running the same functions."""
import numpy as np
import pytest

import rivulet as tf

X = [[1., 2.], [3., 4.], [5., 6.]]
W3 = tf.constant([[1.], [2.], [3.]])


def grad(fn, x=X):
    x = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x)
    g = t.gradient(y, x)
    assert g is not None
    return float(y), g.numpy().tolist()


@pytest.mark.parametrize("wrap", [lambda f: f, tf.function])
def test_map_fn_gradient_in_and_out_of_function(wrap):
    assert grad(wrap(lambda x: tf.reduce_sum(tf.map_fn(lambda e: e * e, x))), [1., 2., 3.]) == (14.0, [2., 4., 6.])


def test_map_fn_nested_structures_tape_inside_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.map_fn(lambda e: (e[0] * e[1], tf.reduce_sum(e[1])), (x, x * 2.),
                          fn_output_signature=(tf.float32, tf.float32))
            s = tf.reduce_sum(y[0]) + tf.reduce_sum(y[1] ** 2)
        return s, t.gradient(s, x)
    s, g = f(tf.constant(X))
    assert float(s) == 898.0
    np.testing.assert_allclose(g.numpy(), [[28., 32.], [68., 72.], [108., 112.]])


def test_nested_map_fn():
    f = tf.function(lambda x: tf.reduce_sum(tf.map_fn(lambda r: tf.map_fn(lambda v: v * v * r[0], r), x)))
    assert grad(f) == (385.0, [[7., 4.], [43., 24.], [111., 60.]])


@pytest.mark.parametrize("wrap", [lambda f: f, tf.function])
def test_autograph_for_writes_and_while_loop_reads(wrap):
    def writes(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * x[i] * tf.cast(i + 1, tf.float32))
        return tf.reduce_sum(ta.stack())

    def reads(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x * 2.)
        _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + ta.read(i) ** 2), [0, tf.constant(0.)])
        return acc
    x = [1., 2., 3.]
    assert grad(wrap(writes), x) == (36.0, [2., 8., 18.])
    assert grad(wrap(reads), x) == (56.0, [8., 16., 24.])


def test_gather_concat_scatter_and_overwrite():
    @tf.function
    def concat(x):
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, x[0:1]).write(1, x[1:3])
        return tf.reduce_sum(ta.concat() * W3)

    @tf.function
    def scatter(x):
        ta = tf.TensorArray(tf.float32, size=3).scatter([2, 0], x[:2] * 2.)
        return tf.reduce_sum(ta.stack() * W3)

    @tf.function
    def second_use(x):  # the same array read, then written over and stacked
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        a = ta.read(1) * 3.
        return tf.reduce_sum(a) + tf.reduce_sum(ta.write(1, x[0] * 10.).stack() * W3)

    @tf.function
    def partly_written(x):  # unwritten elements stack as zeros and pass no gradient
        ta = tf.TensorArray(tf.float32, size=4, element_shape=[2]).write(1, x[0] * 2.).write(3, x[2])
        return tf.reduce_sum(ta.stack() * tf.constant([[1.], [2.], [3.], [4.]]))
    assert grad(concat) == (50.0, [[1., 1.], [2., 2.], [3., 3.]])
    assert grad(scatter) == (32.0, [[6., 6.], [2., 2.], [0., 0.]])
    assert grad(second_use) == (117.0, [[21., 21.], [3., 3.], [3., 3.]])
    assert grad(partly_written) == (56.0, [[4., 4.], [0., 0.], [4., 4.]])


def test_gather_with_a_repeated_index_sums_its_gradients():
    # d/dx of sum(gather([0, 0, 2]) * [1, 2, 3]): row 0 is used twice (weights 1 and 2). TensorFlow 2.21 gives
    # 2 there (its TensorListScatter keeps the last of the repeated rows); the derivative is 3.
    f = tf.function(lambda x: tf.reduce_sum(tf.TensorArray(tf.float32, size=3).unstack(x).gather([0, 0, 2]) * W3))
    assert grad(f) == (42.0, [[3., 3.], [0., 0.], [3., 3.]])


def test_dynamic_size_in_one_loop_read_back_in_another():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * x[i])
        s = tf.zeros([2])
        for i in tf.range(3):
            s = s + ta.read(2 - i) * tf.cast(i + 1, tf.float32)
        return tf.reduce_sum(s)

    @tf.function
    def twice(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x * x)
        s = tf.constant(0.)
        for i in tf.range(3):
            s += tf.reduce_sum(ta.read(i) * ta.read(2 - i))
        return s + tf.reduce_sum(ta.stack())
    assert grad(f) == (126.0, [[6., 12.], [12., 16.], [10., 12.]])
    assert grad(twice) == (766.0, [[102., 292.], [114., 264.], [30., 108.]])


def test_unknown_shapes_and_element_shape():
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
        for i in tf.range(tf.shape(x)[0]):
            ta = ta.write(i, x[i] * tf.cast(i, tf.float32))
        y = ta.stack()
        return tf.reduce_sum(y * y)
    assert grad(f) == (269.0, [[0., 0.], [6., 8.], [40., 48.]])


def test_through_a_cond():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        if tf.reduce_sum(x) > 0:
            ta = ta.write(0, x[1] * 5.)
        else:
            ta = ta.write(1, x[0])
        return tf.reduce_sum(ta.stack() * W3)
    assert grad(f) == (82.0, [[0., 0.], [7., 7.], [3., 3.]])


def test_recurrence_weight_gradient_and_list_loop_variables_tape_inside():
    w = tf.Variable(tf.constant([[0.5, -1.], [2., 0.25]], tf.float64))

    @tf.function
    def rnn(x):  # float64: the small entries cancel, float32 rounding (tanh's) would show
        with tf.GradientTape() as t:
            ta = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
            h = tf.zeros([2], tf.float64)
            for i in tf.range(3):
                h = tf.tanh(tf.linalg.matvec(w, h) + x[i])
                ta = ta.write(i, h)
            s = tf.reduce_sum(ta.stack() * tf.cast(W3, tf.float64))
        return s, t.gradient(s, w)

    @tf.function
    def lists(x):
        with tf.GradientTape() as t:
            t.watch(x)
            ta = tf.TensorArray(tf.float32, size=3, infer_shape=False).unstack(x)

            def body(i, acc, out):
                v = ta.read(i)
                return i + 1, acc + tf.reduce_sum(v * v), out.write(i, v * 3.)
            _, acc, out = tf.while_loop(lambda i, *_: i < 3, body, [0, 0., tf.TensorArray(tf.float32, size=3)])
            s = acc + tf.reduce_sum(out.concat() * 1.5) + tf.reduce_sum(out.gather([2, 1]))
        return s, t.gradient(s, x)
    s, g = rnn(tf.constant(X, tf.float64))
    np.testing.assert_allclose(g.numpy(), [[0.04922364041897561, 0.061937647085065224],
                                           [6.0804957876376486e-05, 7.675256487244685e-05]], rtol=1e-10)
    s, g = lists(tf.constant(X))
    assert float(s) == 239.5
    np.testing.assert_allclose(g.numpy(), [[6.5, 8.5], [13.5, 15.5], [17.5, 19.5]])


def test_matches_finite_differences():
    def f(x):
        ta = tf.TensorArray(tf.float64, size=4)
        h = tf.zeros([2], tf.float64)
        for i in tf.range(4):
            h = tf.sin(h * x[i % 3] + x[(i + 1) % 3])
            ta = ta.write(i, h)
        return tf.reduce_sum(ta.stack() ** 2) + tf.reduce_sum(tf.map_fn(lambda r: r * tf.reduce_prod(r), x))
    x0 = np.array(X) / 7.
    _, g = grad(tf.function(f), x0)
    num = np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[idx] = 1e-6
        num[idx] = (float(f(tf.constant(x0 + e))) - float(f(tf.constant(x0 - e)))) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-9)


def test_a_written_value_is_not_overwritten_by_a_later_op():
    @tf.function
    def f(x):
        h = x * 3.
        ta = tf.TensorArray(tf.float32, size=2).write(0, h)
        return ta.write(1, h + x).stack()  # h + x may not reuse h's buffer: the list holds it
    np.testing.assert_array_equal(f(tf.constant([1., 1.])).numpy(), [[3., 3.], [4., 4.]])


def test_eager_replay_of_the_loop_body_carries_gradient_lists(monkeypatch):
    # Bodies the compiled backward loop does not cover replay their reverse mode eagerly: lists too.
    from rivulet.function import control_flow
    monkeypatch.setattr(control_flow, "_backward_of", lambda lb: None)

    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x * x)
        out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        s = tf.constant(0.)
        for i in tf.range(3):
            s += tf.reduce_sum(ta.read(i) * ta.read(2 - i))
            out = out.write(i, x[i] * tf.cast(i, tf.float32))
        return s + tf.reduce_sum(ta.stack()) + tf.reduce_sum(out.stack() ** 2)
    assert grad(f) == (1035.0, [[102., 292.], [120., 272.], [70., 156.]])


def test_second_order_through_a_list_loop_raises_naming_the_op():
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.map_fn(lambda e: e * e * e, x))
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [3., 12., 27.])
    with pytest.raises(LookupError, match="WhileGrad"):
        t2.gradient(g, x)


def test_a_saved_function_taking_list_gradients_loads_and_runs(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3, 2], tf.float32)])
        def g(self, x):
            with tf.GradientTape() as t:
                t.watch(x)
                ta = tf.TensorArray(tf.float32, size=3).unstack(x)
                y = tf.reduce_sum(tf.map_fn(lambda r: r * r, x)) + tf.reduce_sum(ta.gather([0, 2]) * 2.)
                parts = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, x[:1]).write(1, x[1:])
                y += tf.reduce_sum(parts.concat() ** 3) + tf.reduce_sum(ta.read(1) * ta.read(2))
            return t.gradient(y, x)
    tf.saved_model.save(M(), str(tmp_path))
    g = tf.saved_model.load(str(tmp_path)).g(tf.constant(X))
    np.testing.assert_array_equal(g.numpy(), [[7., 18.], [38., 62.], [90., 126.]])  # TF 2.21's values


def test_scatter_gather_in_a_loop_body_and_a_list_rewritten_in_place():
    x4 = [[1., 2.], [3., 4.], [5., 6.], [7., 8.]]

    @tf.function
    def scatter_gather(x):  # computed scatter indices: one TensorListScatterIntoExistingList op
        ta = tf.TensorArray(tf.float32, size=4)
        acc = tf.constant(0.)
        for i in tf.range(2):
            ta = ta.scatter(tf.stack([2 * i, 2 * i + 1]), x[2 * i:2 * i + 2] * tf.cast(i + 2, tf.float32))
            acc += tf.reduce_sum(ta.gather(tf.stack([2 * i + 1])) ** 2)
        return acc + tf.reduce_sum(ta.concat() * tf.range(8, dtype=tf.float32)[:, None])

    @tf.function
    def rewritten(x):  # each iteration reads item i and i + 1 and writes item i + 1 over
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
        i = tf.constant(0)
        s = tf.constant(0.)
        while i < 3:
            v = ta.read(i)
            ta = ta.write(i + 1, ta.read(i + 1) * v)
            s += tf.reduce_sum(v)
            i += 1
        return s + tf.reduce_sum(ta.stack())
    assert grad(scatter_gather, x4) == (3861.0, [[56., 56.], [80., 88.], [84., 84.], [210., 228.]])
    assert grad(rewritten, x4) == (643.0, [[143., 250.], [47., 124.], [27., 80.], [15., 48.]])
