"""Variables passed to a tf.function are resource inputs of its graph, not captures of the first call's
variables: one graph serves every variable of the same spec, and aliasing selects the graph. Expected values
are TensorFlow 2.21's."""
import pytest

import rivulet as tf


def test_variable_argument_updates_the_variable_passed_each_call():
    traces = []

    @tf.function
    def dv(x):
        traces.append(1)
        x.assign_add(x.read_value())
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    dv(a)
    dv(b)
    assert (a.numpy(), b.numpy(), len(traces)) == (2.0, 4.0, 1)


def test_swapped_and_aliased_variables():
    @tf.function
    def f(x, y):
        x.assign_add(1.0)
        y.assign_add(10.0)
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    f(a, b)
    f(b, a)
    assert f.experimental_get_tracing_count() == 1
    assert (a.numpy(), b.numpy()) == (12.0, 13.0)
    f(a, a)  # aliasing is part of the trace key: a second graph, with both updates on a
    assert f.experimental_get_tracing_count() == 2
    assert (a.numpy(), b.numpy()) == (23.0, 13.0)
    aliased = f.get_concrete_function(a, a).structured_input_signature[0]
    distinct = f.get_concrete_function(a, b).structured_input_signature[0]
    assert [s.alias_id for s in aliased] == [0, 0] and [s.alias_id for s in distinct] == [0, 1]
    assert repr(distinct[1]) == "VariableSpec(shape=(), dtype=tf.float32, trainable=True, alias_id=1)"
    assert f.experimental_get_tracing_count() == 2


def test_variables_in_structures_and_keywords():
    @tf.function
    def f(d):
        d["a"][0].assign_add(1.0)
        d["b"][1].assign_add(2.0)
    a, b, c, e = (tf.Variable(0.0) for _ in range(4))
    f({"a": [a], "b": (c, b)})
    f({"a": [c], "b": (a, e)})
    assert [v.numpy() for v in (a, b, c, e)] == [1.0, 2.0, 1.0, 2.0]
    assert f.experimental_get_tracing_count() == 1

    @tf.function
    def g(*, x):
        x.assign_sub(5.0)
    g(x=a)
    g(x=b)
    assert (a.numpy(), b.numpy(), g.experimental_get_tracing_count()) == (-4.0, -3.0, 1)


def test_a_layers_weights_list_passed_in():
    @tf.function
    def zero(ws):
        for w in ws:
            w.assign(tf.zeros_like(w))
    l1, l2 = tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)
    l1.build((None, 3))
    l2.build((None, 3))
    zero(l1.weights)
    assert all(not w.numpy().any() for w in l1.weights) and l2.weights[0].numpy().any()
    zero(l2.weights)
    assert all(not w.numpy().any() for w in l2.weights)
    assert zero.experimental_get_tracing_count() == 1


def test_trainable_and_spec_select_the_graph():
    f = tf.function(lambda v: v.read_value())
    f(tf.Variable(1.0))
    f(tf.Variable(2.0, trainable=False))
    f(tf.Variable([1.0]))
    assert f.experimental_get_tracing_count() == 3


def test_graph_has_a_resource_input_and_no_capture():
    @tf.function
    def dv(x):
        x.assign_add(x.read_value())
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    cf = dv.get_concrete_function(a)
    assert [(t.name, t.dtype) for t in cf.inputs] == [("x:0", tf.resource)]
    assert list(cf.captured_inputs) == [] and list(cf.variables) == []
    cf(b)  # the concrete function updates the variable it is given
    assert (a.numpy(), b.numpy()) == (1.0, 4.0)
    with pytest.raises(TypeError, match="expects a tf.Variable"):
        cf(tf.constant(1.0))
    with pytest.raises(TypeError, match="expects a tf.Variable"):
        cf(tf.Variable([1.0, 2.0]))


def test_closure_over_the_passed_variable_resolves_to_the_argument_as_in_tensorflow():
    a, b = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def h(x):
        x.assign_add(1.0)
        a.assign_add(100.0)
    h(a)
    h(b)  # traced with a: the closure over a read the argument's input (TensorFlow: a=102, b=103)
    assert (a.numpy(), b.numpy()) == (102.0, 103.0)

    @tf.function
    def k(x):
        a.assign_add(100.0)
        x.assign_add(1.0)
    k(b)
    k(a)  # traced with b: a stays a capture of its own
    assert (a.numpy(), b.numpy(), k.experimental_get_tracing_count()) == (303.0, 104.0, 1)


def test_gradients_through_a_function_taking_a_variable():
    @tf.function
    def g(v, x):
        return v * v * x
    a, b = tf.Variable(2.0), tf.Variable(3.0)
    for var, want in ((a, 12.0), (b, 18.0)):
        with tf.GradientTape() as tape:
            y = g(var, 3.0)
        assert tape.gradient(y, var).numpy() == want

    @tf.function
    def inside(v, x):
        with tf.GradientTape() as t:
            y = tf.cond(x > 0, lambda: v * x, lambda: tf.constant(1.0))
        return t.gradient(y, v)
    assert inside(a, tf.constant(-1.0)).numpy() == 0.0
    assert inside(b, tf.constant(3.0)).numpy() == 3.0


def test_nested_functions_and_variable_created_from_an_argument():
    @tf.function
    def inner(v):
        v.assign_add(1.0)
        return v.read_value()

    @tf.function
    def outer(v):
        return inner(v) * 2
    a, b = tf.Variable(5.0), tf.Variable(7.0)
    assert outer(a).numpy() == 12.0 and outer(b).numpy() == 16.0
    assert (a.numpy(), b.numpy()) == (6.0, 8.0)

    class K(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, v):
            if self.w is None:
                self.w = tf.Variable(v.read_value() * 10)
            return self.w + v
    assert K()(a).numpy() == 66.0


def test_saved_function_with_a_variable_argument(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(3.0)

        @tf.function
        def add_to(self, var, x):
            var.assign_add(x * self.v)
            return var.read_value()
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    m = M()
    assert m.add_to(a, tf.constant(1.0)).numpy() == 4.0
    tf.saved_model.save(m, str(tmp_path))
    r = tf.saved_model.load(str(tmp_path))
    assert r.add_to(b, tf.constant(1.0)).numpy() == 5.0 and b.numpy() == 5.0 and a.numpy() == 4.0


def test_updates_run_when_the_graph_is_replayed_under_a_tape_or_inside_another_function():
    # Replays (a tape recording, a ConcreteFunction called while tracing) used to skip ops without outputs.
    @tf.function
    def dv(x):
        x.assign_add(x.read_value())
        return x.read_value() * 1.0
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape():
        y = dv(a)
    assert (y.numpy(), a.numpy()) == (2.0, 2.0)  # TensorFlow: 2.0 2.0
    cf = dv.get_concrete_function(a)

    @tf.function
    def outer(v):
        return cf(v) * 10
    assert outer(b).numpy() == 40.0 and outer(c).numpy() == 60.0
    assert (a.numpy(), b.numpy(), c.numpy()) == (2.0, 4.0, 6.0)


def test_a_cond_gradient_does_not_run_the_branch_side_effects_again():
    v, w = tf.Variable(1.0), tf.Variable(3.0)

    @tf.function
    def f(x, p):
        def yes():
            v.assign_add(1.0)
            return x * w
        return tf.cond(p, yes, lambda: x * 2.0)
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x, tf.constant(True))
    gx, gw = t.gradient(y, [x, w])
    assert (y.numpy(), gx.numpy(), gw.numpy(), v.numpy()) == (6.0, 3.0, 2.0, 2.0)  # as TensorFlow


def test_cached_calls_mixing_variables_tensors_and_aliases_feed_the_right_variables():
    @tf.function
    def f(v, x, w):
        v.assign_add(x * w.read_value())
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    ref = {"a": 1.0, "b": 2.0}
    calls = [("a", 1.0, "b"), ("b", 2.0, "a"), ("a", 3.0, "a"), ("b", 1.0, "b"), ("a", 0.5, "b")] * 3
    for v, x, w in calls:
        f({"a": a, "b": b}[v], tf.constant(x), {"a": a, "b": b}[w])
        ref[v] += x * ref[w]
    assert (a.numpy(), b.numpy()) == pytest.approx((ref["a"], ref["b"]))
    assert f.experimental_get_tracing_count() == 2  # distinct and aliased variables
