"""ConcreteFunction: inspection, printed signatures, direct calls and their errors."""
import pytest

import rivulet as tf

SIG = """Input Parameters:
  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)
Output Type:
  TensorSpec(shape=(), dtype=tf.int32, name=None)
Captures:
  None"""


def test_pretty_printed_concrete_signatures_match_tensorflow():
    @tf.function
    def double(a):
        return a + a
    double(tf.constant(1))
    double(tf.constant(1.1))
    text = double.pretty_printed_concrete_signatures()
    assert text.split("\n\n")[0] == SIG
    assert text.split("\n\n")[1] == SIG.replace("int32", "float32")


def test_literal_and_list_parameters_and_captures():
    c = tf.constant(3.0)

    @tf.function
    def f(x, n=2):
        return x * c

    f([1, -1])
    text = f.pretty_printed_concrete_signatures()
    assert "x (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[-1]]" in text
    assert "n (POSITIONAL_OR_KEYWORD): Literal[2]" in text
    assert f"  {id(c)}: TensorSpec(shape=(), dtype=tf.float32, name=None)" in text


def test_concrete_function_inspection():
    @tf.function
    def f(x, y):
        return {"sum": x + y, "k": 1}
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.float32))
    args, kwargs = cf.structured_input_signature
    assert args == (tf.TensorSpec([None], tf.float32, "x"), tf.TensorSpec([None], tf.float32, "y")) and kwargs == {}
    assert [t.name for t in cf.inputs] == ["x:0", "y:0"]
    assert [t.name for t in cf.outputs] == ["Identity:0", "Identity_1:0"]  # dict leaves in sorted key order
    assert str(cf.structured_outputs["sum"]) == 'Tensor("Identity_1:0", shape=(None,), dtype=float32)'
    assert str(cf.structured_outputs["k"]) == 'Tensor("Identity:0", shape=(), dtype=int32)'  # Python 1: a tensor
    assert str(cf.function_type).startswith("(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None), y:")
    assert cf.pretty_printed_signature().startswith("Input Parameters:\n  x (POSITIONAL_OR_KEYWORD)")
    assert str(cf).startswith("ConcreteFunction Input Parameters:")
    assert repr(cf).startswith("<ConcreteFunction (x: TensorSpec(shape=(None,)")
    assert f.get_concrete_function(tf.TensorSpec([None], tf.float32),
                                   tf.TensorSpec([None], tf.float32)) is cf
    assert f.experimental_get_tracing_count() == 1
    out = cf(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    assert out["sum"].numpy().tolist() == [4.0, 6.0] and out["k"] == 1


def test_concrete_function_rejects_wrong_arguments_naming_the_parameter():
    @tf.function
    def f(x):
        return x * 2
    cf = f.get_concrete_function(tf.constant(2))
    assert cf(tf.constant(5)).numpy() == 10
    with pytest.raises(TypeError, match=r"'x'.*TensorSpec\(shape=\(\), dtype=tf.int32"):
        cf(5.5)
    # a tensor of another dtype falls through to the flat signature and is refused as the graph runs (TF 2.21)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a int32 tensor but is a float"):
        cf(tf.constant(5.0))
    with pytest.raises(TypeError, match="positional"):
        cf(tf.constant(1), tf.constant(2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        cf(z=tf.constant(1))
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        cf()


def test_graph_is_data():
    @tf.function
    def f(x):
        return tf.matmul(x, x) + 1.0
    g = f.get_concrete_function(tf.TensorSpec([2, 2], tf.float32)).graph
    ops = g.get_operations()
    assert [op.type for op in ops] == ["Placeholder", "MatMul", "Const", "AddV2", "Identity"]
    mm = g.get_operation_by_name("MatMul")
    assert mm.inputs[0] is g.get_tensor_by_name("x:0") and mm.outputs[0].name == "MatMul:0"
    assert repr(mm) == "<tf.Operation 'MatMul' type=MatMul>"
    assert str(g.get_tensor_by_name("x:0")) == 'Tensor("x:0", shape=(2, 2), dtype=float32)'
    gd = str(g.as_graph_def())
    assert 'name: "MatMul"\n  op: "MatMul"\n  input: "x"\n  input: "x"' in gd
    assert "type: DT_FLOAT" in gd and gd.rstrip().endswith("}")


def test_tracing_prints_symbolic_tensors(capsys):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a
    print(double(tf.constant(1)))
    print(double(tf.constant("a")))
    out = capsys.readouterr().out.splitlines()
    assert out == ['Tracing with Tensor("a:0", shape=(), dtype=int32)', "tf.Tensor(2, shape=(), dtype=int32)",
                   'Tracing with Tensor("a:0", shape=(), dtype=string)', "tf.Tensor(b'aa', shape=(), dtype=string)"]


def test_compiled_code_matches_reference_interpreter():
    from rivulet.execute.codegen import compile_graph, run_reference
    import numpy as np

    @tf.function
    def f(x, y):
        z = tf.matmul(x, y)
        w = tf.maximum(z, 0.0) * 2.0 - x
        return w, tf.reduce_sum(w, axis=1)
    cf = f.get_concrete_function(tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([3, 3], tf.float32))
    g = cf.graph
    x, y = np.random.rand(3, 3).astype(np.float32), np.random.rand(3, 3).astype(np.float32) - 0.5
    fast = compile_graph(g, g.arg_placeholders, g.outputs)(x, y)
    ref = run_reference(g, g.arg_placeholders, g.outputs, [x, y])
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(a, b)
    assert "k" in compile_graph(g, g.arg_placeholders, g.outputs).source


def test_multiline_tensors_print_like_tensorflow():
    assert str(tf.constant([[1, 2], [3, 4]])) == "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert str(tf.constant([1, 2])) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    assert repr(1 + tf.Variable(2.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>"


def test_graph_def_shows_control_flow_like_tensorflow():
    @tf.function
    def f(x):
        a = tf.cond(x > 0, lambda: x, lambda: -x)
        b = tf.cond(x > 1, lambda: x * 2, lambda: x)
        return a + b
    gd = f.get_concrete_function(tf.constant(1)).graph.as_graph_def()
    ifs = [n for n in gd.node if n.op in ("If", "StatelessIf")]
    assert len(ifs) == 2
    names = {ifs[0].attr["then_branch"][1], ifs[0].attr["else_branch"][1], ifs[1].attr["then_branch"][1]}
    assert len(names) == 3  # every branch function has its own library name
    assert {name for name, _ in gd.library} >= names
    text = str(gd)
    assert 'key: "Tcond"' in text and "library {" in text and "node_def {" in text
    assert f(tf.constant(2)).numpy() == 6 and f(tf.constant(-3)).numpy() == 0


def test_lists_holding_tensors_are_packed_like_tensorflow():
    @tf.function
    def f(v, x):
        return tf.concat([v, [x]], 0), tf.convert_to_tensor([[x, 1.0], [2.0, x]])
    a, b = f(tf.constant([1.0]), tf.constant(5.0))
    assert a.numpy().tolist() == [1.0, 5.0] and b.numpy().tolist() == [[5.0, 1.0], [2.0, 5.0]]
    assert tf.convert_to_tensor([tf.Variable(1.0), 2.0]).numpy().tolist() == [1.0, 2.0]


def test_tf_types_names_the_function_classes():
    f = tf.function(lambda x: x * 2)
    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert isinstance(f, tf.types.experimental.PolymorphicFunction)
    assert isinstance(f, tf.types.experimental.GenericFunction)
    assert isinstance(cf, tf.types.experimental.ConcreteFunction)
    assert not isinstance(f, tf.types.experimental.ConcreteFunction)
    assert isinstance(cf.function_type, tf.types.experimental.FunctionType)


def test_parameters_before_and_in_a_var_positional_are_positional_only():
    # TF 2.21: a function with *args (with or without input_signature) lists every positional parameter as
    # POSITIONAL_ONLY; Keras Model.export's `serve(*args)` prints `args_0 (POSITIONAL_ONLY)`
    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(*args):
        return args[0]

    @tf.function
    def h(a, *args):
        return a

    @tf.function
    def plain(a, b=1):
        return a
    assert "  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(None,)" in f.get_concrete_function().pretty_printed_signature()
    text = h.get_concrete_function(tf.constant([1.0]), tf.constant(2.0)).pretty_printed_signature()
    assert "  a (POSITIONAL_ONLY): TensorSpec(shape=(1,)" in text and "  args_0 (POSITIONAL_ONLY)" in text
    assert "  a (POSITIONAL_OR_KEYWORD)" in plain.get_concrete_function(tf.constant(1.0)).pretty_printed_signature()
