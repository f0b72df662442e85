"""Less generated source: an infix op that cannot fail (static shapes) whose value the next line alone reads is
written into that line as an expression (execute/codegen.py), with the same values; ops of unknown shapes keep
a line each, so a failure still names its own node."""
import re

import numpy as np
import pytest

import rivulet as tf


def _assignments(cf):
    return re.findall(r"^\s+v\d+ = ", cf._compiled.source, re.M)


def test_a_chain_of_scalar_ops_is_a_few_statements_with_the_same_values():
    def chain(x):
        for _ in range(30):
            x = x * 1.0001 + 0.5
        return x, x - 1.0

    f = tf.function(chain)
    got = f(tf.constant(1.5))
    cf = f.get_concrete_function(tf.constant(1.5))
    assert len(_assignments(cf)) <= 8, cf._compiled.source  # 61 ops, 12 at most per statement
    want = np.float32(1.5)
    for _ in range(30):
        want = want * np.float32(1.0001) + np.float32(0.5)
    assert got[0].dtype == tf.float32 and got[0].numpy() == want
    assert got[1].numpy() == want - np.float32(1)


def test_arrays_of_static_shape_chain_and_reused_buffers_still_work():
    def f(x, y):
        a = x * 2.0 + y  # value read once, by the next op
        b = (a - y) * a  # a read twice: a line of its own
        return -b + 1.0

    x = tf.constant(np.arange(6, dtype=np.float64).reshape(2, 3))
    y = tf.constant(np.ones((2, 3)))
    got = tf.function(f)(x, y).numpy()
    a = x.numpy() * 2 + 1
    np.testing.assert_array_equal(got, -((a - 1) * a) + 1)


def test_unknown_shapes_keep_one_line_per_op_and_a_failure_names_its_node():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32)])
    def f(x, y):
        a = x * 2.0
        b = tf.add(a, y, name="the_add")
        return b * 3.0

    cf = f.get_concrete_function()
    assert len(_assignments(cf)) == 3
    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0]), tf.constant([1.0, 1.0])).numpy(), [9.0, 15.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="the_add"):
        f(tf.constant([1.0, 2.0]), tf.constant([1.0, 1.0, 1.0]))


def test_equal_scalar_constants_share_one_name_in_the_generated_code():
    @tf.function
    def f(x):
        for _ in range(10):
            x = x * tf.constant(2.0) + tf.constant(1.0)  # explicit constants: one Const each in the graph
        return x

    x = tf.constant(1.0)
    assert f(x).numpy() == 2047.0
    cf = f.get_concrete_function(x)
    assert len([op for op in cf.graph.get_operations() if op.type == "Const"]) == 20
    assert len(set(re.findall(r"\bc\d+\b", cf._compiled.source))) == 2, cf._compiled.source


def test_a_graph_with_no_dense_layer_compiles_without_looking_for_onednn():
    import subprocess
    import sys
    code = ("import rivulet as tf\n"
            "from rivulet.execute import onednn\n"
            "f = tf.function(lambda x: x * 2.0 + 1.0)\n"
            "assert f(tf.constant(1.0)).numpy() == 3.0\n"
            "print(len(onednn._found))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"  # oneDNN (20-50 ms to find and load) not looked for
