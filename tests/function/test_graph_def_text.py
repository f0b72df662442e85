"""GraphDef text as TensorFlow 2.21 prints it: attrs in upb's text-encoder order, TF's GraphDef version."""
import rivulet as tf
from rivulet.graph.graph_def import text_order

# str(f.get_concrete_function(...).graph.as_graph_def()) in TensorFlow 2.21 (tensorflow-cpu, protobuf upb)
TF_TEXT = """\
node {
  name: "x"
  op: "Placeholder"
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: 2
        }
        dim {
          size: -1
        }
      }
    }
  }
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_user_specified_name"
    value {
      s: "x"
    }
  }
}
node {
  name: "y"
  op: "Placeholder"
  attr {
    key: "shape"
    value {
      shape {
        dim {
          size: 3
        }
        dim {
          size: -1
        }
      }
    }
  }
  attr {
    key: "dtype"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "_user_specified_name"
    value {
      s: "y"
    }
  }
}
node {
  name: "MatMul"
  op: "MatMul"
  input: "x"
  input: "y"
  attr {
    key: "transpose_b"
    value {
      b: true
    }
  }
  attr {
    key: "transpose_a"
    value {
      b: false
    }
  }
  attr {
    key: "grad_b"
    value {
      b: false
    }
  }
  attr {
    key: "grad_a"
    value {
      b: false
    }
  }
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
node {
  name: "Cast"
  op: "Cast"
  input: "MatMul"
  attr {
    key: "Truncate"
    value {
      b: false
    }
  }
  attr {
    key: "SrcT"
    value {
      type: DT_FLOAT
    }
  }
  attr {
    key: "DstT"
    value {
      type: DT_DOUBLE
    }
  }
}
node {
  name: "Relu"
  op: "Relu"
  input: "Cast"
  attr {
    key: "T"
    value {
      type: DT_DOUBLE
    }
  }
}
node {
  name: "Identity"
  op: "Identity"
  input: "x"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
node {
  name: "Identity_1"
  op: "Identity"
  input: "Relu"
  attr {
    key: "T"
    value {
      type: DT_DOUBLE
    }
  }
}
node {
  name: "Identity_2"
  op: "Identity"
  input: "Identity"
  attr {
    key: "T"
    value {
      type: DT_FLOAT
    }
  }
}
versions {
  producer: 2474
}
"""


def test_small_function_prints_as_tensorflow_does():
    @tf.function
    def f(x, y):
        return tf.nn.relu(tf.cast(tf.matmul(x, y, transpose_b=True), tf.float64)), tf.identity(x)
    cf = f.get_concrete_function(tf.TensorSpec([2, None], tf.float32), tf.TensorSpec([3, None], tf.float32))
    assert str(cf.graph.as_graph_def()) == TF_TEXT


def test_attr_order_is_upbs():
    # recorded from TF 2.21: str() of NodeDefs holding these attr keys
    assert text_order(["transpose_a", "transpose_b", "T", "grad_a", "grad_b"]) == \
        ["transpose_b", "transpose_a", "grad_b", "grad_a", "T"]
    assert text_order(["N", "T", "Tidx"]) == ["T", "Tidx", "N"]
    assert text_order(["dtype", "shape", "_user_specified_name"]) == ["shape", "dtype", "_user_specified_name"]
    assert text_order(["a", "ab", "abc", "b", "ba", "_x", "X", "Xa", "x1", "x10", "x2"]) == \
        ["x2", "x1", "x10", "b", "ba", "a", "ab", "abc", "_x", "X", "Xa"]
    assert text_order(["_output_shapes", "T", "Tidx", "keep_dims", "N", "value", "dtype"]) == \
        ["value", "keep_dims", "dtype", "_output_shapes", "T", "Tidx", "N"]


def test_a_graph_def_rebuilt_from_its_printed_attrs_imports():
    from rivulet.graph.graph_def import GraphDef, NodeDef

    @tf.function
    def f(x, y):
        return tf.matmul(x, y, transpose_b=True)
    gd = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([4, 3], tf.float32)) \
        .graph.as_graph_def()
    bare = GraphDef([NodeDef(n.name, n.op, n.input, n.attr) for n in gd.node])  # no op_attrs: the shown attrs
    with tf.Graph().as_default() as g:
        (out,) = tf.graph_util.import_graph_def(bare, return_elements=["MatMul:0"])
    assert out.shape.as_list() == [2, 4] and g.get_operation_by_name("import/MatMul").type == "MatMul"


def test_control_flow_nodes_carry_tensorflows_attrs():
    v, w = tf.Variable(1.0), tf.Variable(2.0)

    @tf.function
    def f(x):
        a = tf.cond(x > 0, lambda: x * v, lambda: x)

        def body(i, s):
            w.assign_add(1.0)
            return i + 1, s + v
        return a + tf.while_loop(lambda i, s: i < 3, body, [0, x])[1]
    gd = f.get_concrete_function(tf.TensorSpec([], tf.float32)).graph.as_graph_def()
    (cond,) = [n for n in gd.node if n.op == "If"]
    # TF 2.21: the If reads the variable v (input 1) only; the While writes w and reads v
    assert cond.attr["_lower_using_switch_merge"] == ("b", True)
    assert cond.attr["_read_only_resource_inputs"] == ("list", [("i", 1)])
    (loop,) = [n for n in gd.node if n.op == "While"]
    resources = [i for i, name in enumerate(loop.input) if not name.startswith("^")
                 and loop.attr["T"][1][i] == ("type", tf.resource)]
    (read_only,) = [i for _, i in loop.attr["_read_only_resource_inputs"][1]]
    assert read_only in resources and len(resources) == 2
    assert loop.attr["_num_original_outputs"] == ("i", 2)
    text = str(gd)
    assert 'key: "_read_only_resource_inputs"\n    value {\n      list {\n        i: 1\n      }' in text


def test_versions_with_a_function_library():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x, lambda: -x)
    text = str(f.get_concrete_function(tf.constant(1)).graph.as_graph_def())
    assert text.endswith("versions {\n  producer: 2474\n  min_consumer: 12\n}\n")  # as TF 2.21 prints it
