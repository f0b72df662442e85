"""tf.config.optimizer's TensorFlow option names: debug_stripper runs graphs without Assert / CheckNumerics /
tf.print (the graph_optimization guide's cells), disable_meta_optimizer and min_graph_nodes leave graphs as
traced, and get_experimental_options reports what was set as TensorFlow 2.21 does (values recorded from it)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.execute import options
from rivulet.optimize.pipeline import optimize


@pytest.fixture(autouse=True)
def _reset_options():
    options.reset()
    yield
    options.reset()


def _checked():
    @tf.function
    def f(x):
        tf.debugging.check_numerics(x, "Bad!")
        tf.debugging.Assert(x < 0, [x])
        tf.print("printed", x)
        tf.debugging.assert_positive(x)
        return x + 1
    return f


def test_options_are_reported_as_tensorflow_reports_them():
    get, set_ = tf.config.optimizer.get_experimental_options, tf.config.optimizer.set_experimental_options
    assert get() == {"disable_model_pruning": False, "disable_meta_optimizer": False}
    set_({"constant_folding": False})
    assert list(get().items()) == [("constant_folding", False), ("disable_model_pruning", False),
                                   ("disable_meta_optimizer", False)]
    set_({"debug_stripper": True, "constant_folding": 1, "min_graph_nodes": 5, "layout_optimizer": True,
          "auto_mixed_precision": False})
    assert list(get().items()) == [("layout_optimizer", True), ("constant_folding", True),
                                   ("debug_stripper", True), ("disable_model_pruning", False),
                                   ("auto_mixed_precision", False), ("disable_meta_optimizer", False),
                                   ("min_graph_nodes", 5)]
    set_({"buffer_reuse": False})  # rivulet's own options come after TensorFlow's
    assert list(get())[-1] == "buffer_reuse"
    with pytest.raises(TypeError, match="min_graph_nodes"):
        set_({"min_graph_nodes": 2.5})
    with pytest.raises(TypeError, match="must be a bool"):
        set_({"debug_stripper": "yes"})


def test_debug_ops_run_unless_stripped():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Bad! : Tensor had Inf values"):
        _checked()(tf.constant(float("inf")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        _checked()(tf.constant(-1.0))


def test_the_debug_stripper_drops_asserts_checks_and_prints(capfd):
    tf.config.optimizer.set_experimental_options({"debug_stripper": True})
    f = _checked()
    assert f(tf.constant(float("inf"))).numpy() == np.inf  # TF 2.21: inf, nothing printed
    assert f(tf.constant(-1.0)).numpy() == 0.0
    assert "printed" not in "".join(capfd.readouterr())
    graph_types = {op.type for op in f.get_concrete_function(tf.TensorSpec([], tf.float32)).graph.get_operations()}
    assert {"CheckNumerics", "Assert", "PrintV2"} <= graph_types  # the traced graph keeps them; its compiled copy not


def test_the_debug_stripper_reaches_cond_and_while_bodies(capfd):
    tf.config.optimizer.set_experimental_options({"debug_stripper": True})

    @tf.function
    def f(x):
        if x > 0:
            tf.debugging.check_numerics(x, "Bad!")
            x = x * 2.0
        for _ in tf.range(3):
            tf.debugging.assert_negative(x)
            tf.print("in loop")
            x = x + 1.0
        return x
    assert f(tf.constant(float("inf"))).numpy() == np.inf
    assert f(tf.constant(1.0)).numpy() == 5.0
    assert "in loop" not in "".join(capfd.readouterr())


def test_disable_meta_optimizer_and_min_graph_nodes_leave_the_graph_as_traced():
    def f(x):
        return x * (tf.constant(2.0) * tf.constant(3.0))
    cf = tf.function(f).get_concrete_function(tf.TensorSpec([], tf.float32))
    g = cf.graph

    def muls():
        g2, _, outs = optimize(g, g.arg_placeholders + g.internal_captures, g.outputs)
        return [op.type for op in g2.get_operations()].count("Mul")
    assert muls() == 1  # folded
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    assert muls() == 2
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": False, "min_graph_nodes": 100})
    assert muls() == 2
    tf.config.optimizer.set_experimental_options({"min_graph_nodes": 2})
    assert muls() == 1
