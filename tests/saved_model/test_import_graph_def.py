import numpy as np
import pytest

import rivulet as tf
from rivulet.execute.codegen import compile_graph, run_reference
from rivulet.graph.graph_def import GraphDef, NodeDef


def _traced():
    @tf.function
    def f(x, y):
        z = tf.matmul(x, y) + 1.0
        return tf.nn.relu(z)[0] * tf.reduce_sum(y, axis=0)
    return f.get_concrete_function(tf.TensorSpec([2, 2]), tf.TensorSpec([2, 3]))


def test_round_trip_computes_the_same():
    cf = _traced()
    g = tf.Graph()
    with g.as_default():
        x, y, out = tf.graph_util.import_graph_def(cf.graph.as_graph_def(),
                                                   return_elements=["x:0", "y:0", cf.outputs[0].name])
    assert x.name == "import/x:0" and out.shape == cf.outputs[0].shape
    a = np.array([[1, -2], [3, 4]], np.float32)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = cf(a, b).numpy()
    np.testing.assert_array_equal(run_reference(g, [x, y], [out], [a, b])[0], want)
    np.testing.assert_array_equal(compile_graph(g, [x, y], [out]).fn(a, b)[0], want)
    # The GraphDef of the imported graph is the original one under the "import/" scope.
    names = [n.name for n in g.as_graph_def().node]
    assert names == ["import/" + n.name for n in cf.graph.as_graph_def().node]


def test_input_map_and_operations():
    cf = _traced()
    g = tf.Graph()
    with g.as_default():
        feed = tf.constant(np.eye(2, dtype=np.float32))
        op, out = tf.graph_util.import_graph_def(cf.graph.as_graph_def(), input_map={"x": feed}, name="",
                                                 return_elements=["MatMul", cf.outputs[0].name])
    assert isinstance(op, tf.Operation) and op.name == "MatMul" and op.inputs[0] is feed
    y = g.get_tensor_by_name("y:0")
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run_reference(g, [y], [out], [b])[0],
                                  cf(np.eye(2, dtype=np.float32), b).numpy())


def test_hand_made_graph_def_any_order():
    f32 = ("type", tf.float32)
    gd = GraphDef([
        NodeDef("out", "Mul", ["x", "two"], {"T": f32}),
        NodeDef("two", "Const", [], {"dtype": f32, "value": ("tensor", np.float32(2.0))}),
        NodeDef("x", "Placeholder", [], {"dtype": f32, "shape": ("shape", tf.TensorShape([3]))}),
    ])
    g = tf.Graph()
    with g.as_default():
        x, out = tf.graph_util.import_graph_def(gd, return_elements=["x:0", "out:0"], name="")
    assert out.shape == [3]
    np.testing.assert_array_equal(run_reference(g, [x], [out], [np.ones(3, np.float32)])[0], [2, 2, 2])


@pytest.mark.parametrize("nodes, message", [
    ([NodeDef("a", "NoSuchOp")], "Op type not registered 'NoSuchOp'"),
    ([NodeDef("a", "Identity", ["b"])], "Unknown input node 'b'"),
    ([NodeDef("a", "Identity", ["b"]), NodeDef("b", "Identity", ["a"])], "cycle"),
    ([NodeDef("a", "Const", [], op_attrs={"value": np.float32(1), "dtype": tf.float32}),
      NodeDef("b", "Identity", ["a:3"])], "has only 1 output"),
    ([NodeDef("a", "Const", [], op_attrs={"value": np.ones(2, np.float32), "dtype": tf.float32}),
      NodeDef("b", "MatMul", ["a", "a"], op_attrs={"transpose_a": False, "transpose_b": False})],
     "Node 'b' (MatMul) is not valid"),
])
def test_invalid_graph_defs(nodes, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            tf.graph_util.import_graph_def(GraphDef(nodes))
