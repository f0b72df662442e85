"""tf.experimental.ExtensionType: fields, conversion, validation, immutability, repr, equality and Spec, with the
values and messages TensorFlow 2.21 gives (recorded with it; the extension_type guide's examples)."""
from typing import Mapping, Optional, Tuple, Union

import numpy as np
import pytest

import rivulet as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor


class Pencil(tf.experimental.ExtensionType):
    color: str = "black"
    has_erasor: bool = True
    length: tf.Tensor = 1.0


class Player(tf.experimental.ExtensionType):
    name: tf.Tensor
    attributes: Mapping[str, tf.Tensor]


class P(tf.experimental.ExtensionType):
    n: int
    f: float
    s: str
    b: bool
    t: Tuple[int, ...]
    m: Mapping[str, tf.Tensor]
    u: Union[int, str]
    o: Optional[tf.Tensor] = None
    sh: tf.TensorShape = [1, 2]
    dt: tf.DType = tf.float32


def test_fields_converted_and_repr():
    mt = MaskedTensor(values=[[1, 2, 3], [4, 5, 6]], mask=[[True, True, False], [True, False, True]])
    assert isinstance(mt.values, tf.Tensor) and mt.values.dtype == tf.int32
    np.testing.assert_array_equal(mt.values.numpy(), [[1, 2, 3], [4, 5, 6]])
    assert repr(Pencil()) == ("Pencil(color='black', has_erasor=True, length=<tf.Tensor: shape=(), dtype=float32, "
                              "numpy=1.0>)")
    assert repr(Pencil(length=0.5, color="blue")) == (
        "Pencil(color='blue', has_erasor=True, length=<tf.Tensor: shape=(), dtype=float32, numpy=0.5>)")
    assert str(MaskedTensor(values=[1, 2, 3], mask=[True, True, False])) == (
        "MaskedTensor(values=<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>, "
        "mask=<tf.Tensor: shape=(3,), dtype=bool, numpy=array([ True,  True, False])>)")
    p = P(1, 2.0, "x", True, [1, 2], {"b": 1., "a": [2]}, "q")
    assert repr(p) == (
        "P(n=1, f=2.0, s='x', b=True, t=(1, 2), m=ImmutableDict({'b': <tf.Tensor: shape=(), dtype=float32, "
        "numpy=1.0>, 'a': <tf.Tensor: shape=(1,), dtype=int32, numpy=array([2], dtype=int32)>}), u='q', o=None, "
        "sh=TensorShape([1, 2]), dt=tf.float32)")
    assert type(p.t) is tuple and p.sh == tf.TensorShape([1, 2])
    assert repr(tf.type_spec_from_value(p)) == (
        "P.Spec(n=1, f=2.0, s='x', b=True, t=(1, 2), m={'b': TensorSpec(shape=(), dtype=tf.float32, name=None), "
        "'a': TensorSpec(shape=(1,), dtype=tf.int32, name=None)}, u='q', o=None, sh=TensorShape([1, 2]), "
        "dt=tf.float32)")


@pytest.mark.parametrize("bad, message", [
    (dict(n=1.5), "n: expected 'int', got 'float'"),
    (dict(f="x"), "f: expected 'float', got 'str'"),
    (dict(f=2), "f: expected 'float', got 'int'"),
    (dict(s=3), "s: expected 'str', got 'int'"),
    (dict(b=1), "b: expected 'bool', got 'int'"),
    (dict(t=[1, "a"]), "t[1]: expected 'int', got 'str'"),
    (dict(m={1: 2.}), "m[<key>]: expected 'str', got 'int'"),
    (dict(u=2.5), "u: expected typing.Union[int, str], got 'float'"),
    (dict(sh="x"), "sh: expected 'tf.TensorShape', got 'str'"),
    (dict(dt="foo"), "dt: expected 'tf.DType', got 'str'"),
])
def test_field_type_errors(bad, message):
    kw = dict(n=1, f=2.0, s="x", b=True, t=(), m={}, u=1)
    kw.update(bad)
    with pytest.raises(TypeError) as e:
        P(**kw)
    assert str(e.value) == message


def test_constructor_errors_and_validate():
    with pytest.raises(TypeError, match="mask: expected a Tensor, got 'NoneType'"):
        MaskedTensor([1, 2, 3], None)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'extra'"):
        MaskedTensor(values=[1], mask=[True], extra=3)
    with pytest.raises(TypeError, match="missing a required argument: 'mask'"):
        MaskedTensor([1])

    class Checked(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)
            assert self.mask.dtype.is_bool, "mask.dtype must be bool"
    with pytest.raises(AssertionError, match="mask.dtype must be bool"):
        Checked([1, 2, 3], [0, 1, 0])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        Checked([1, 2, 3], [True, False])


def test_immutable():
    mt = MaskedTensor([1, 2, 3], [True, False, True])
    msg = "Cannot mutate attribute `mask` outside the custom constructor of ExtensionType."
    with pytest.raises(AttributeError) as e:
        mt.mask = [True, True, True]
    assert str(e.value) == msg
    with pytest.raises(AttributeError) as e:
        del mt.mask
    assert str(e.value) == msg
    with pytest.raises(TypeError, match="unhashable type: 'MaskedTensor'"):
        hash(mt)
    spec = tf.type_spec_from_value(mt)
    with pytest.raises(AttributeError, match="outside the custom constructor of ExtensionTypeSpec"):
        spec.values = 3


def test_equality_is_a_tensor():
    a = MaskedTensor([1, 2], [True, False])
    b = MaskedTensor([[3, 4], [5, 6]], [[False, True], [True, True]])
    r = a == a
    assert isinstance(r, tf.Tensor) and repr(r) == "<tf.Tensor: shape=(), dtype=bool, numpy=True>"
    assert f"{a == b}" == "False" and f"{a == a.values}" == "False"
    assert repr(a != b) == "True" and repr(a != 3) == "True"
    assert bool(a != MaskedTensor([1, 2], [True, True]))


def test_custom_init_methods_and_subclass():
    class Toy(tf.experimental.ExtensionType):
        name: str
        price: tf.Tensor

        def __init__(self, name, price, discount=0):
            self.name = name
            self.price = price * (1 - discount)
    assert str(Toy("ball", 5.0, discount=0.2)).endswith(  # (a local class: its __qualname__, as TensorFlow)
        ".Toy(name='ball', price=<tf.Tensor: shape=(), dtype=float32, numpy=4.0>)")

    class TensorGraph(tf.experimental.ExtensionType):
        num_nodes: tf.Tensor
        edge_src: tf.Tensor
        edge_dst: tf.Tensor

    class WithFeatures(TensorGraph):
        node_features: tf.Tensor

    g = WithFeatures(num_nodes=5, edge_src=[0, 4, 2, 2], edge_dst=[1, 3, 2, 1],
                     node_features=[10.0, 0.0, 2.0, 5.0, -1.0, 0.0])
    assert [f.name for f in WithFeatures._tf_extension_type_fields()] == [
        "num_nodes", "edge_src", "edge_dst", "node_features"]
    assert g.node_features.dtype == tf.float32


def test_spec():
    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    spec = tf.type_spec_from_value(anne)
    assert repr(spec.name) == "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert repr(spec.attributes) == (
        "ImmutableDict({'height': TensorSpec(shape=(), dtype=tf.float32, name=None), "
        "'speed': TensorSpec(shape=(), dtype=tf.float32, name=None)})")
    assert type(spec).__qualname__ == "Player.Spec" and spec.value_type is Player
    a = MaskedTensor([1, 2], [True, False])
    s = tf.type_spec_from_value(a)
    same = MaskedTensor.Spec(tf.TensorSpec([2], tf.int32), tf.TensorSpec([2], tf.bool))
    assert s == same and hash(s) == hash(same)
    assert repr(s) == ("MaskedTensor.Spec(values=TensorSpec(shape=(2,), dtype=tf.int32, name=None), "
                       "mask=TensorSpec(shape=(2,), dtype=tf.bool, name=None))")
    with pytest.raises(TypeError, match="values: expected a TensorSpec, got 'int'"):
        MaskedTensor.Spec(3, tf.TensorSpec([2], tf.bool))


def test_user_spec_class():
    class MT(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor
        shape = property(lambda self: self.values.shape)

        class Spec:
            def __init__(self, shape, dtype=tf.float32):
                self.values = tf.TensorSpec(shape, dtype)
                self.mask = tf.TensorSpec(shape, tf.bool)

            shape = property(lambda self: self.values.shape)
    s = MT.Spec([None, 2])
    assert s.shape == tf.TensorShape([None, 2]) and s.mask.dtype == tf.bool
    v = MT([[1.0, 2.0]], [[True, False]])
    assert tf.type_spec_from_value(v).shape == tf.TensorShape([1, 2])


def test_reserved_and_unannotated():
    with pytest.raises(ValueError, match="Field 'Spec' is reserved|Field '_type_spec' is reserved"):
        class Bad(tf.experimental.ExtensionType):  # noqa: F841
            _type_spec: int
    with pytest.raises(ValueError, match="Field x is missing a type annotation"):
        class Bad2(tf.experimental.ExtensionType):  # noqa: F841
            x = 3
