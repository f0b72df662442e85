"""tf.cond / switch_case / case / while_loop / TensorArray: eagerly, inside tf.function, and gradients."""
import numpy as np
import pytest

import rivulet as tf


def _types(fn, *args):
    return [op.type for op in tf.function(fn).get_concrete_function(*args).graph.get_operations()]


# ----------------------------------------------------------------------------- cond

def test_cond_eager_returns_python_values():
    assert tf.cond(tf.constant(True), lambda: 1, lambda: 2) == 1
    assert tf.cond(tf.constant(False), lambda: [tf.constant(3)], lambda: [tf.constant(4)]).numpy() == 4


@pytest.mark.parametrize("x,want", [(3, 6), (-3, -4)])
def test_cond_in_function(x, want):
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x * 2, lambda: x - 1))
    assert f(tf.constant(x)).numpy() == want
    assert "StatelessIf" in _types(lambda x: tf.cond(x > 0, lambda: x * 2, lambda: x - 1), tf.constant(1))


def test_cond_structures_and_python_constants():
    f = tf.function(lambda x: tf.cond(x > 0, lambda: {"a": x, "b": (x, 1.0)}, lambda: {"a": -x, "b": (x, 2.0)}))
    out = f(tf.constant(5))
    assert out["a"].numpy() == 5 and out["b"][1].numpy() == 1.0
    assert f(tf.constant(-5))["b"][1].numpy() == 2.0


def test_cond_shape_is_most_specific_compatible():
    f = tf.function(lambda x: tf.cond(x[0] > 0, lambda: x, lambda: x[:1]))
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.int32))
    assert cf.structured_outputs.shape.as_list() == [None]
    np.testing.assert_array_equal(f(tf.constant([-1, 2])).numpy(), [-1])


def test_cond_errors():
    assert tf.cond(True, lambda: 1, lambda: 2) == 1  # eagerly a Python bool is accepted, as in TensorFlow
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.function(lambda: tf.cond(True, lambda: 1, lambda: 2))()
    with pytest.raises(TypeError, match="^'branch_index' must be a Tensor, got <class 'int'>$"):
        tf.switch_case(1, [lambda: 1, lambda: 2])
    with pytest.raises(TypeError, match="^'branch_index' must be an integer Tensor, got <dtype: 'float32'>$"):
        tf.switch_case(tf.constant(1.0), [lambda: 1, lambda: 2])
    f = tf.function(lambda i: tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)]))
    assert int(f(tf.constant(1, tf.int64))) == 20 and int(f(tf.constant(7, tf.int64))) == 20
    assert int(f(tf.constant(0, tf.int64))) == 10
    with pytest.raises(TypeError, match="have different types"):
        tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: 1.0))(tf.constant(1))
    with pytest.raises(TypeError, match="same number, type, and overall structure"):
        tf.function(lambda x: tf.cond(x > 0, lambda: (x, x), lambda: x))(tf.constant(1))


def test_cond_with_side_effect_is_stateful():
    v = tf.Variable(0)
    f = tf.function(lambda x: tf.cond(x > 0, lambda: v.assign_add(1), lambda: v.assign_add(10)))
    f(tf.constant(1))
    f(tf.constant(-1))
    assert v.numpy() == 11
    assert "If" in _types(lambda x: tf.cond(x > 0, lambda: v.assign_add(1), lambda: v.assign_add(10)),
                          tf.constant(1))


def test_nested_cond_captures_through_graphs():
    def f(x, y):
        return tf.cond(x > 0, lambda: tf.cond(y > 0, lambda: x + y, lambda: x - y), lambda: y)
    g = tf.function(f)
    assert g(tf.constant(1), tf.constant(2)).numpy() == 3
    assert g(tf.constant(1), tf.constant(-2)).numpy() == 3
    assert g(tf.constant(-1), tf.constant(7)).numpy() == 7


# ----------------------------------------------------------------------------- switch_case / case

def test_switch_case():
    branches = [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)]
    assert tf.switch_case(tf.constant(1), branches).numpy() == 20
    assert tf.switch_case(tf.constant(9), branches).numpy() == 30  # out of range: the last branch
    f = tf.function(lambda i: tf.switch_case(i, branches, default=lambda: tf.constant(-1)))
    assert [f(tf.constant(i)).numpy() for i in (0, 2, 7, -1)] == [10, 30, -1, -1]
    assert "StatelessCase" in _types(lambda i: tf.switch_case(i, branches), tf.constant(0))
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,3\}"):
        tf.switch_case(tf.constant(0), {0: lambda: 1, 3: lambda: 2})


def test_case():
    def f(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x > 0, lambda: tf.constant(1))],
                       default=lambda: tf.constant(0))
    g = tf.function(f)
    assert [g(tf.constant(v)).numpy() for v in (-5, 5, 0)] == [-1, 1, 0]
    assert f(tf.constant(3)).numpy() == 1


# ----------------------------------------------------------------------------- while_loop

def test_while_loop_eager_and_graph_agree():
    def run(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))
    i, s = run(tf.constant(5))
    assert (i.numpy(), s.numpy()) == (5, 10)
    i, s = tf.function(run)(tf.constant(5))
    assert (i.numpy(), s.numpy()) == (5, 10)
    assert "StatelessWhile" in _types(run, tf.constant(5))


def test_while_loop_single_var_list_and_nested():
    out = tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [tf.constant(0)])
    assert isinstance(out, list) and out[0].numpy() == 3
    f = tf.function(lambda x: tf.while_loop(lambda v: v["a"] < 10, lambda v: {"a": v["a"] * 2, "b": v["b"] + 1},
                                            [{"a": x, "b": 0}]))
    res = f(tf.constant(1))[0]
    assert (res["a"].numpy(), res["b"].numpy()) == (16, 4)


def test_while_loop_maximum_iterations():
    f = tf.function(lambda x: tf.while_loop(lambda i: i < 10, lambda i: i + 1, [x], maximum_iterations=3))
    assert f(tf.constant(0))[0].numpy() == 3
    assert tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0], maximum_iterations=4)[0].numpy() == 4


def test_while_loop_shape_rules():
    body = lambda i: tf.concat([i, i], 0)  # noqa: E731
    with pytest.raises(ValueError, match=r"enters the loop with shape \(1,\), but has shape \(2,\) after one "
                                         r"iteration"):
        tf.function(lambda x: tf.while_loop(lambda i: tf.size(i) < 8, body, [x]))(tf.constant([1]))
    f = tf.function(lambda x: tf.while_loop(lambda i: tf.size(i) < 8, body, [x],
                                            shape_invariants=[tf.TensorShape([None])]))
    assert f(tf.constant([1]))[0].numpy().tolist() == [1] * 8


def test_while_loop_dtype_and_structure_errors():
    with pytest.raises(TypeError, match="enters the loop with type <dtype: 'int32'> but has type <dtype: 'float32'>"):
        tf.function(lambda x: tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [x]))(
            tf.constant(1))
    with pytest.raises(ValueError):
        tf.function(lambda x: tf.while_loop(lambda i: i < 3, lambda i: (i, i), [x]))(tf.constant(1))


def test_while_loop_with_stateful_body():
    v = tf.Variable(0)

    @tf.function
    def f(n):
        return tf.while_loop(lambda i: i < n, lambda i: (v.assign_add(i), i + 1)[1], [0])
    f(tf.constant(4))
    assert v.numpy() == 6


# ----------------------------------------------------------------------------- TensorArray

def test_tensor_array_eager():
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, 1.0).write(1, 2)
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0])
    assert ta.size().numpy() == 2 and ta.read(1).numpy() == 2.0
    with pytest.raises(tf.errors.OutOfRangeError, match="not resizeable and size is: 2"):
        ta.write(3, 1.0)
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected \(\(\)\)"):
        ta.write(0, [1.0, 2.0])
    np.testing.assert_array_equal(tf.TensorArray(tf.float32, size=2, element_shape=[2]).read(0).numpy(), [0, 0])
    dyn = tf.TensorArray(tf.int32, size=0, dynamic_size=True).unstack(tf.constant([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(dyn.gather([1]).numpy(), [[3, 4]])
    np.testing.assert_array_equal(dyn.concat().numpy(), [1, 2, 3, 4])


def test_tensor_array_in_while_loop_graph():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), (0, ta))
        return ta.stack(), ta.size(), ta.read(2)
    stacked, size, third = f(tf.constant(4))
    np.testing.assert_array_equal(stacked.numpy(), [0, 1, 4, 9])
    assert size.numpy() == 4 and third.numpy() == 4
    assert f.get_concrete_function(tf.constant(4)).structured_outputs[0].shape.as_list() == [None]


def test_tensor_array_graph_ops():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).unstack(x)
        return ta.read(1), ta.gather([0, 2]), ta.concat()
    a, b, c = f(tf.constant([[1., 2.], [3., 4.], [5., 6.]]))
    np.testing.assert_array_equal(a.numpy(), [3, 4])
    np.testing.assert_array_equal(b.numpy(), [[1, 2], [5, 6]])
    np.testing.assert_array_equal(c.numpy(), [1, 2, 3, 4, 5, 6])


# ----------------------------------------------------------------------------- gradients

def _cond_fn(x):
    return tf.cond(x > 0, lambda: x * x, lambda: x * 3.0)


def _while_fn(x):
    return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), (0, tf.constant(1.0)))[1]


@pytest.mark.parametrize("fn,x,want", [(_cond_fn, 3.0, 6.0), (_cond_fn, -2.0, 3.0), (_while_fn, 3.0, 27.0),
                                       (_while_fn, 2.0, 12.0)])
def test_gradients_eager_tape_function_and_graph(fn, x, want):
    x = tf.constant(x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = fn(x)
    assert t.gradient(y, x).numpy() == want
    g = tf.function(fn)
    with tf.GradientTape() as t:
        t.watch(x)
        y = g(x)
    assert t.gradient(y, x).numpy() == want

    @tf.function
    def symbolic(x):
        return tf.gradients(fn(x), x)[0]
    assert symbolic(x).numpy() == want

    @tf.function
    def tape_inside(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = fn(x)
        return t.gradient(y, x)
    assert tape_inside(x).numpy() == want


def test_gradient_through_while_with_captured_tensor():
    w = tf.constant(2.0)

    @tf.function
    def f(x):
        return tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * w + x), (0, x))[1]
    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch([x, w])
        y = f(x)  # s: x -> 2x + x -> 4x + 2x + x -> 8x + 4x + 2x + x = 15x... with w: w^3 x + w^2 x + w x + x
    gx, gw = t.gradient(y, [x, w])
    assert gx.numpy() == 15.0
    assert gw.numpy() == 3 * 4 + 2 * 2 + 1  # d/dw (w^3 + w^2 + w + 1) x at w=2, x=1


def test_gradient_to_variable_through_cond_in_function():
    v = tf.Variable(3.0)
    f = tf.function(lambda x: tf.cond(x > 0, lambda: v * v, lambda: v))
    with tf.GradientTape() as t:
        y = f(tf.constant(1.0))
    assert t.gradient(y, v).numpy() == 6.0


def test_autograph_loop_gradient():
    @tf.function
    def f(x):
        s = tf.constant(0.0)
        for i in tf.range(4):
            if i % 2 == 0:
                s += x * x
            else:
                s += x
        return s
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert y.numpy() == 24.0
    assert t.gradient(y, x).numpy() == 2 * 6.0 + 2


def test_variable_gradients_through_control_flow_inside_functions():
    v, w = tf.Variable(3.0), tf.Variable(5.0)

    @tf.function
    def through_cond(x):
        with tf.GradientTape() as tape:
            y = tf.cond(x > 0, lambda: v * v, lambda: w * x)
        return tape.gradient(y, [v, w])

    @tf.function
    def through_while(x):
        with tf.GradientTape() as tape:
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v), (0, x))[1]
        return tape.gradient(y, v)
    # As TensorFlow: the branch not taken contributes zeros (not None) inside a graph.
    assert [g.numpy() for g in through_cond(tf.constant(1.0))] == [6.0, 0.0]
    assert [g.numpy() for g in through_cond(tf.constant(-2.0))] == [0.0, -2.0]
    assert through_while(tf.constant(2.0)).numpy() == 54.0  # d(x v^3)/dv = 3 x v^2


def test_while_gradient_does_not_repeat_the_loops_side_effects():
    # WhileGrad takes the loop variables the forward loop recorded: the body's assigns run once per
    # iteration, as in TensorFlow (8.0, 12.0, counter 3.0), inside the function and under an outer tape.
    count, x = tf.Variable(0.0), tf.Variable(2.0)

    def loop():
        y, i = tf.constant(1.0), tf.constant(0)
        while i < 3:
            y = y * x
            count.assign_add(1.0)
            i += 1
        return y

    @tf.function
    def inside():
        with tf.GradientTape() as tape:
            y = loop()
        return y, tape.gradient(y, x)

    y, g = inside()
    assert (float(y), float(g), float(count.numpy())) == (8.0, 12.0, 3.0)
    outer = tf.function(loop)
    count.assign(0.0)
    with tf.GradientTape() as tape:
        y = outer()
    assert (float(y), float(tape.gradient(y, x)), float(count.numpy())) == (8.0, 12.0, 3.0)
    for k in (1, 2):  # later calls record afresh
        y, g = inside()
        assert (float(y), float(g), float(count.numpy())) == (8.0, 12.0, 3.0 + 3 * k)


@pytest.mark.parametrize("read_first", [True, False])
def test_while_gradient_sees_the_variable_values_each_iteration_read(read_first):
    # The body assigns the variable it multiplies by: each iteration's read is replayed with the value the
    # forward loop read (TensorFlow 2.21: 6.0 / 11.0 reading before the assign, 24.0 / 26.0 after).
    w = tf.Variable(1.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            y, i = tf.constant(1.0), tf.constant(0)
            while i < 3:
                if read_first:
                    y = y * w
                    w.assign_add(1.0)
                else:
                    w.assign_add(1.0)
                    y = y * w
                i += 1
        return y, tape.gradient(y, w)

    y, g = f()
    assert (float(y), float(g), float(w.numpy())) == ((6.0, 11.0, 4.0) if read_first else (24.0, 26.0, 4.0))
