"""Each optimisation pass changes what it should (node counts) and nothing else (values)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.execute.codegen import compile_graph, run_reference
from rivulet.execute import options
from rivulet.optimize.arithmetic import simplify
from rivulet.optimize.fold import fold_constants
from rivulet.optimize.pipeline import optimize
from rivulet.optimize.rewrite import rebuild
from rivulet.optimize.verify import GraphVerificationError, verify


@pytest.fixture(autouse=True)
def _reset_options():
    yield
    options.reset()


def traced(fn, *specs):
    cf = tf.function(fn).get_concrete_function(*specs)
    g = cf.graph
    return cf, g, g.arg_placeholders + g.internal_captures, g.outputs


def types(g, outs=None):
    from rivulet.execute.plan import needed_ops
    ops = needed_ops(g, outs) if outs is not None else g.get_operations()
    return [op.type for op in ops]


def same_values(g1, in1, out1, g2, in2, out2, feeds):
    a = run_reference(g1, in1, out1, feeds)
    b = compile_graph(g2, in2, out2)(*feeds)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-6)


SPEC = tf.TensorSpec([3], tf.float32)
X = [np.array([1.0, -2.0, 3.0], np.float32)]


def test_constant_folding_computes_constant_subgraphs_once():
    def f(x):
        c = tf.constant(2.0) * tf.constant(3.0) + tf.constant(1.0)  # all constant: folds to 7
        return x * c
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2, n = rebuild(g, ins, outs, [fold_constants], cse=False)
    assert types(g, outs).count("Mul") == 2 and types(g2, o2).count("Mul") == 1
    assert "AddV2" not in types(g2, o2)
    same_values(g, ins, outs, g2, i2, o2, X)
    assert cf(tf.constant(X[0])).numpy().tolist() == [7.0, -14.0, 21.0]


def test_folding_uses_captured_eager_tensors_and_static_shapes():
    w = tf.constant([1.0, 2.0, 3.0])

    def f(x):
        return x + w * 2.0
    cf, g, ins, outs = traced(f, SPEC)
    consts = {id(ph): v._v for v, ph in g.captures}
    g2, i2, o2, _ = rebuild(g, ins, outs, [fold_constants], consts, cse=False)
    assert types(g2, o2).count("Mul") == 0 and types(g2, o2).count("AddV2") == 1


def test_folding_leaves_failing_kernels_to_run_time():
    def f(x):
        return x + tf.constant([1, 2]) // tf.constant([0, 1])  # would raise: stays an op
    cf, g, ins, outs = traced(f, tf.TensorSpec([2], tf.int32))
    g2, i2, o2, _ = rebuild(g, ins, outs, [fold_constants], cse=False)
    assert "FloorDiv" in types(g2, o2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        cf(tf.constant([1, 1]))


def test_arithmetic_simplification_identities():
    def f(x):
        a = x * 1.0 + 0.0 - 0.0
        b = -(-a)
        return b / 1.0
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2, n = rebuild(g, ins, outs, [simplify], cse=False)
    assert [t for t in types(g2, o2) if t not in ("Placeholder", "Const", "Identity")] == []
    same_values(g, ins, outs, g2, i2, o2, X)


def test_simplification_never_changes_a_broadcast_shape():
    def f(x):
        return x * tf.ones([4, 3])  # x*1 would drop the broadcast to (4, 3)
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2, _ = rebuild(g, ins, outs, [simplify], cse=False)
    assert "Mul" in types(g2, o2)
    assert o2[0].shape == tf.TensorShape([4, 3])


def test_cse_merges_duplicate_work_only():
    def f(x):
        a = tf.matmul(tf.reshape(x, [1, 3]), tf.reshape(x, [3, 1]))
        b = tf.matmul(tf.reshape(x, [1, 3]), tf.reshape(x, [3, 1]))
        c = tf.matmul(tf.reshape(x, [3, 1]), tf.reshape(x, [1, 3]))  # different: must stay
        return a + b, c
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2, _ = rebuild(g, ins, outs, [], cse=True)
    assert types(g, outs).count("MatMul") == 3 and types(g2, o2).count("MatMul") == 2
    same_values(g, ins, outs, g2, i2, o2, X)


def test_pruning_drops_unneeded_ops():
    def f(x):
        tf.matmul(tf.reshape(x, [3, 1]), tf.reshape(x, [1, 3]))  # unused
        return x + 1.0
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2, _ = rebuild(g, ins, outs, [], cse=False)
    assert "MatMul" in types(g) and "MatMul" not in types(g2)


def test_fusion_matmul_bias_relu():
    def f(x, w, b):
        return tf.maximum(tf.matmul(x, w) + b, 0.0), tf.matmul(x, w) + b
    specs = (tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([3, 4], tf.float32), tf.TensorSpec([4], tf.float32))
    cf, g, ins, outs = traced(f, *specs)
    g2, i2, o2 = optimize(g, ins, outs)
    assert "_FusedMatMul" in types(g2, o2)
    feeds = [np.random.rand(2, 3).astype(np.float32) - 0.5, np.random.rand(3, 4).astype(np.float32) - 0.5,
             np.random.rand(4).astype(np.float32) - 0.5]
    same_values(g, ins, outs, g2, i2, o2, feeds)


@pytest.mark.parametrize("kh, strides, padding", [(3, 1, "VALID"), (3, 2, "SAME"), (1, 1, "VALID")])
def test_fusion_conv_bias_relu(kh, strides, padding):
    # Conv2D + BiasAdd + Relu -> one _FusedConv2D; a conv whose output has another consumer is left alone.
    def f(x, w, b):
        y = tf.nn.bias_add(tf.nn.conv2d(x, w, strides, padding), b)
        z = tf.nn.conv2d(x, w * 2.0, strides, padding)
        return tf.nn.relu(y), z + b, z
    specs = (tf.TensorSpec([2, 9, 9, 3], tf.float32), tf.TensorSpec([kh, kh, 3, 4], tf.float32),
             tf.TensorSpec([4], tf.float32))
    cf, g, ins, outs = traced(f, *specs)
    g2, i2, o2 = optimize(g, ins, outs)
    after = types(g2, o2)
    assert after.count("_FusedConv2D") == 1 and after.count("Conv2D") == 1
    assert "Relu" not in after and "BiasAdd" not in after
    from rivulet.execute.plan import needed_ops
    fused = next(op for op in needed_ops(g2, o2) if op.type == "_FusedConv2D")
    assert fused.attrs["activation"] == "relu"
    feeds = [np.random.rand(2, 9, 9, 3).astype(np.float32) - 0.5,
             np.random.rand(kh, kh, 3, 4).astype(np.float32) - 0.5, np.random.rand(4).astype(np.float32) - 0.5]
    same_values(g, ins, outs, g2, i2, o2, feeds)


def test_stateful_ops_are_kept_and_not_merged():
    calls = []
    from rivulet.core.op import defop
    from rivulet.core.dispatch import bind
    op = defop("_TestCounter", lambda x: (calls.append(1), x)[1], lambda x: (x.shape, x.dtype), stateful=True)

    def f(x):
        bind(op, (x,))  # unused output: kept because it is stateful
        bind(op, (x,))  # identical: not merged
        return x * 2.0
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2 = optimize(g, ins, outs)
    assert types(g2, o2).count("_TestCounter") == 2
    cf(tf.constant(X[0]))
    assert len(calls) == 2


def test_options_switch_passes_off_and_on():
    assert tf.config.optimizer.get_experimental_options() == {"disable_model_pruning": False,
                                                              "disable_meta_optimizer": False}  # as TF 2.21
    tf.config.optimizer.set_experimental_options({"constant_folding": False, "arithmetic_optimization": False,
                                                  "common_subexpression_elimination": False})
    assert tf.config.optimizer.get_experimental_options()["constant_folding"] is False

    def f(x):
        return x * (tf.constant(2.0) * tf.constant(3.0))
    cf, g, ins, outs = traced(f, SPEC)
    g2, i2, o2 = optimize(g, ins, outs)
    assert types(g2, o2).count("Mul") == 2
    with pytest.raises(ValueError, match="Unknown optimizer option"):
        tf.config.optimizer.set_experimental_options({"bogus": True})


def test_verifier_runs_after_each_pass_and_catches_broken_graphs():
    tf.config.optimizer.set_experimental_options({"debug_verify": True})

    def f(x):
        return tf.matmul(tf.reshape(x, [1, 3]), tf.reshape(x, [3, 1])) + 1.0
    cf, g, ins, outs = traced(f, SPEC)
    optimize(g, ins, outs)  # passes verification
    verify(g, outs)
    other = tf.function(lambda x: x + 1.0).get_concrete_function(SPEC).graph
    with pytest.raises(GraphVerificationError, match="not computed by the graph"):
        verify(g, other.outputs)


def test_user_visible_graph_is_not_optimised():
    def f(x):
        return x * (tf.constant(2.0) * tf.constant(3.0))
    cf, g, ins, outs = traced(f, SPEC)
    before = types(g)
    cf(tf.constant(X[0]))
    assert types(cf.graph) == before


def test_integer_matmul_chain_becomes_repeated_squaring_exactly():
    def power(x, y):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result
    x = tf.random.uniform([10, 10], minval=-1, maxval=2, dtype=tf.int32)
    cf, g, ins, outs = traced(lambda x: power(x, 100), tf.TensorSpec([10, 10], tf.int32))
    g2, i2, o2 = optimize(g, ins, outs)
    assert types(g, outs).count("MatMul") == 100
    assert [t for t in types(g2, o2) if t not in ("Placeholder", "Identity")] == ["_MatrixPowerMatMul"]
    np.testing.assert_array_equal(cf(x).numpy(), power(x, 100).numpy())  # wraps exactly like the loop


def test_float_matmul_chain_is_not_reassociated():
    def f(x):
        return tf.matmul(x, tf.matmul(x, x))
    cf, g, ins, outs = traced(f, tf.TensorSpec([4, 4], tf.float32))
    g2, i2, o2 = optimize(g, ins, outs)
    assert types(g2, o2).count("MatMul") == 2


def test_shape_only_ops_fold_in_gradient_graphs():
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_mean(x * x)
        return tape.gradient(y, x)
    cf, g, ins, outs = traced(f, tf.TensorSpec([4, 3], tf.float32))
    g2, i2, o2 = optimize(g, ins, outs)
    before, after = types(g, outs), types(g2, o2)
    assert "OnesLike" in before and "ReducedCount" in before
    assert not {"OnesLike", "ReducedCount", "BroadcastLike"} & set(after)
    x = np.random.rand(4, 3).astype(np.float32)
    same_values(g, ins, outs, g2, i2, o2, [x])
    np.testing.assert_allclose(cf(tf.constant(x)).numpy(), 2 * x / 12, rtol=1e-6)
