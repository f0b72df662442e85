"""tf.Module: names, name scopes, and variables/submodules found through attributes, in TensorFlow's order."""
import pytest

import rivulet as tf


class Leaf(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.b = tf.Variable(1.0, name="b")
        self.a = [tf.Variable(2.0, name="a0", trainable=False),
                  {"z": tf.Variable(3.0, name="z"), "y": tf.Variable(4.0, name="y")}]


class Outer(tf.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.w = tf.Variable(5.0, name="w")
        self.m2 = Leaf()
        self.m1 = Leaf(name="first")
        self.alias = self.w


def test_names_default_to_snake_case_class_names():
    assert tf.Module().name == "module"
    assert Leaf().name == "leaf"
    assert type("MyDenseLayer", (tf.Module,), {})().name == "my_dense_layer"
    assert type("HTTPServer", (tf.Module,), {})().name == "http_server"
    with pytest.raises(ValueError, match="^'bad name' is not a valid module name. Module names must be valid Python "
                                         r"identifiers \(e.g. a valid class name\).$"):
        tf.Module(name="bad name")


def test_variables_in_tensorflow_order_each_once():
    m = Outer()
    assert m.name_scope.name == "outer/"
    # Attributes sorted by name (alias before m1); dict entries by key; submodules after the module's own.
    assert [v.name for v in m.variables] == ["outer/w:0", "a0:0", "y:0", "z:0", "b:0", "a0:0", "y:0", "z:0", "b:0"]
    assert [v.name for v in m.trainable_variables] == ["outer/w:0", "y:0", "z:0", "b:0", "y:0", "z:0", "b:0"]
    assert [v.name for v in m.non_trainable_variables] == ["a0:0", "a0:0"]
    assert [s.name for s in m.submodules] == ["first", "leaf"]
    assert isinstance(m.variables, tuple)


def test_with_name_scope_and_cycles():
    class Layer(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self):
            self.v = tf.Variable(1.0)
            return self.v.name
    layer = Layer()
    assert layer() == "layer/Variable:0"
    layer.me = layer  # a cycle must not loop forever
    assert len(layer.variables) == 1 and layer.submodules == ()


def test_flatten_with_paths():
    m = Outer()
    paths = [p for p, _ in m._flatten(predicate=lambda x: isinstance(x, tf.Variable), with_path=True)]
    assert ("alias",) in paths and ("w",) in paths and ("m1", "a", 1, "y") in paths
