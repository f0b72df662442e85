"""What keeps a big trace cheap without changing what it computes: a Python number an op reads is one Const per
value, dtype and name scope of the graph being traced (graph/graph.py: Graph.scalar_constant), and a traced graph
the optimiser would only tidy (duplicate constants, identities) is compiled as it is, without a copy
(optimize/rewrite.py: rebuild's as_is)."""
import numpy as np
import pytest

import rivulet as tf


def _consts(graph):
    return [op for op in graph.get_operations() if op.type == "Const"]


def test_a_traced_loop_of_python_numbers_makes_one_constant_per_value():
    @tf.function
    def chain(x):
        for _ in range(50):
            x = x * 1.0001 + 0.5
        return x

    x = tf.constant(1.0)
    got = chain(x)
    g = chain.get_concrete_function(x).graph
    assert sorted(float(op.get_attr("value")) for op in _consts(g)) == [np.float32(0.5), np.float32(1.0001)]
    assert [op.type for op in g.get_operations()].count("Mul") == 50
    want = np.float32(1)
    for _ in range(50):
        want = want * np.float32(1.0001) + np.float32(0.5)
    assert got.numpy() == want


def test_shared_constants_keep_dtype_sign_scope_and_control_dependencies_apart():
    @tf.function
    def f(x, n):
        a = x * 2.0 + x * 2  # float32 2.0 both times: one constant
        b = n * 2  # int32 2: another
        z = (x * 0.0, x * -0.0)  # 0.0 and -0.0 differ
        with tf.name_scope("inner"):
            c = x * 2.0  # its own scope: its own constant
        with a.graph.control_dependencies([a]):
            d = x * 2.0  # a constant with a control input is never shared
        return a, b, z, c, d

    x, n = tf.constant(3.0), tf.constant(5)
    a, b, (z0, z1), c, d = f(x, n)
    assert (a.numpy(), b.numpy(), c.numpy(), d.numpy()) == (12.0, 10, 6.0, 6.0) and b.dtype == tf.int32
    assert not np.signbit(z0.numpy()) and np.signbit(z1.numpy())
    consts = _consts(f.get_concrete_function(x, n).graph)
    assert sorted((op.get_attr("dtype").name, float(op.get_attr("value")), op.name.startswith("inner/"),
                   bool(op.control_inputs)) for op in consts) == [
        ("float32", -0.0, False, False), ("float32", 0.0, False, False), ("float32", 2.0, False, False),
        ("float32", 2.0, False, True), ("float32", 2.0, True, False), ("int32", 2.0, False, False)]


def test_a_number_that_cannot_take_the_tensors_dtype_still_fails_as_tensorflow():
    @tf.function
    def f(n):
        return n * 1.5

    with pytest.raises(TypeError):
        f(tf.constant(2))


def test_a_graph_the_optimiser_would_only_tidy_is_compiled_as_traced():
    @tf.function
    def f(x):
        return tf.identity(x * 3.0 + 1.0)

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [4.0, 7.0])
    cf = f.get_concrete_function(x)
    assert cf._optimized_graph is cf.graph  # no copy: only the identities would have gone

    @tf.function
    def folds(x):
        return x * (tf.constant(2.0) * 3.0)  # 2 * 3 folds: the optimiser's own copy

    np.testing.assert_array_equal(folds(x).numpy(), [6.0, 12.0])
    cf = folds.get_concrete_function(x)
    assert cf._optimized_graph is not cf.graph
    assert "Mul" in [op.type for op in cf.graph.get_operations()][-3:]  # the traced graph is as traced


def test_a_change_late_in_the_graph_still_gives_the_full_optimisation():
    @tf.function
    def f(x):
        for _ in range(5):
            x = x * 2.0 + 1.0
        return x * 1.0 + tf.zeros_like(x) * 0.0  # x * 1 -> x at the end; zeros_like(x) * 0 folds

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [63.0, 95.0])
    cf = f.get_concrete_function(x)
    assert cf._optimized_graph is not cf.graph
    kept = [op.type for op in cf._optimized_graph.get_operations()]
    assert kept.count("Mul") == 5 and kept.count("AddV2") == 5 and "ZerosLike" not in kept


def test_jit_compile_lowers_the_optimisers_copy():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.identity(x * 3.0 + 1.0)

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [4.0, 7.0])
    cf = f.get_concrete_function(x)
    assert cf._optimized_graph is not cf.graph


def test_a_graph_with_unused_work_gets_the_pruned_copy():
    @tf.function
    def f(x):
        unused = tf.exp(x) * 2.0  # noqa: F841 (pruned: not an output, not stateful)
        return tf.identity(x + 1.0)

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 3.0])
    cf = f.get_concrete_function(x)
    assert cf._optimized_graph is not cf.graph
    assert "Exp" in [op.type for op in cf.graph.get_operations()]
    assert "Exp" not in [op.type for op in cf._optimized_graph.get_operations()]


def test_ops_name_their_users_line_when_the_walk_stops_at_a_frame_it_passed_before():
    from rivulet.graph import graph as graph_module
    seen = []

    def layer(x, k):  # the user's frame of each op: its own line, under rivulet frames walked before
        return tf.nn.relu(x * k)

    def steps(x):  # a generator the ops are made under, resumed from two places
        for k in (2.0, 3.0, 4.0):
            yield layer(x, k)

    @tf.function
    def f(x):
        seen.append(graph_module._FRAMES.cache is not None)
        gen = steps(x)
        a = next(gen)
        b = tf.map_fn(lambda v: v + 1.0, next(gen))
        c = next(gen)
        return a + b + c

    x = tf.constant([1.0, -1.0])
    np.testing.assert_array_equal(f(x).numpy(), [10.0, 1.0])
    assert seen == [True] and graph_module._FRAMES.cache is None  # let go once the trace ends
    g = f.get_concrete_function(x).graph
    where = {op.type: op.user_frame for op in g.get_operations() if op.type in ("Relu", "Mul")}
    layer_line = layer.__code__.co_firstlineno + 1
    assert where["Relu"][1:] == (layer_line, "layer") and where["Mul"][1:] == (layer_line, "layer")
    adds = [op.user_frame[1:] for op in g.get_operations() if op.type == "AddV2"]
    f_first = f.python_function.__code__.co_firstlineno
    assert (f_first + 7, "f") in adds  # a + b + c


def test_a_rule_that_rewrites_an_op_into_a_new_one_gets_the_optimisers_copy():
    @tf.function
    def f(x):
        y = tf.transpose(tf.transpose(x, [1, 0, 2]), [0, 2, 1])  # the rules may emit new ops for these:
        return tf.reshape(tf.reshape(y, [6, 4]), [2, 12])  # the look-only pass must not build them

    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    want = np.transpose(np.transpose(x.numpy(), [1, 0, 2]), [0, 2, 1]).reshape(2, 12)
    np.testing.assert_array_equal(f(x).numpy(), want)
    cf = f.get_concrete_function(x)
    assert cf._optimized_graph is not cf.graph
