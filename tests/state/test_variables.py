"""tf.Variable: printing, dtype rules, reads, assigns and their errors, eagerly and inside functions."""
import numpy as np
import pytest

import rivulet as tf


def test_repr_matches_tensorflow():
    assert repr(tf.Variable(1.0)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert str(tf.Variable(1.0)) == repr(tf.Variable(1.0))
    assert repr(tf.Variable([[1., 2.], [3., 4.]])) == (
        "<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
        "array([[1., 2.],\n       [3., 4.]], dtype=float32)>")
    assert repr(tf.Variable([1, 2], name="w")) == \
        "<tf.Variable 'w:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(tf.Variable("abc")) == "<tf.Variable 'Variable:0' shape=() dtype=string, numpy=b'abc'>"
    assert repr(tf.Variable([1.5], dtype=tf.float64)) == \
        "<tf.Variable 'Variable:0' shape=(1,) dtype=float64, numpy=array([1.5])>"


def test_dtype_rules():
    assert tf.Variable(1).dtype is tf.int32
    assert tf.Variable(1.0).dtype is tf.float32
    assert tf.Variable(np.float64(2.0)).dtype is tf.float64
    assert tf.Variable(1, dtype=tf.float32).dtype is tf.float32
    with pytest.raises(ValueError, match="^initial_value: Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype int32"):
        tf.Variable(tf.constant(1), dtype=tf.float32)


def test_constructor_options():
    v = tf.Variable(lambda: tf.ones([2]), trainable=False, name="ones")
    assert (v.name, v.trainable, v.shape, v.numpy().tolist()) == ("ones:0", False, tf.TensorShape([2]), [1, 1])
    assert tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ).trainable is False
    with pytest.raises(ValueError, match="initial_value"):
        tf.Variable(None)
    u = tf.Variable(tf.zeros([2, 3]), shape=tf.TensorShape(None))
    assert str(u.shape) == "<unknown>"
    u.assign([1., 2.])
    assert u.numpy().tolist() == [1., 2.]


def test_name_scope_prefixes_names():
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            assert tf.Variable(1.0).name == "outer/inner/Variable:0"
    assert tf.Variable(1.0).name == "Variable:0"


def test_initial_numpy_array_is_copied():
    a = np.zeros(3, np.float32)
    v = tf.Variable(a)
    a[0] = 1
    v.assign(a)
    a[1] = 1
    assert v.numpy().tolist() == [1, 0, 0]


def test_reads():
    v = tf.Variable(2.0)
    assert repr(v.value()) == "<tf.Tensor: shape=(), dtype=float32, numpy=2.0>"
    assert repr(v.read_value()) == repr(tf.convert_to_tensor(v))
    assert isinstance(v.numpy(), np.float32)
    assert np.asarray(tf.Variable([1, 2])).tolist() == [1, 2]
    assert (bool(v), int(tf.Variable(3)), float(v)) == (True, 3, 2.0)
    assert not isinstance(v, tf.Tensor)


def test_operators_convert_the_value():
    v = tf.Variable(5.0)
    assert repr(v + 1) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"
    assert repr(1 + v) == "<tf.Tensor: shape=(), dtype=float32, numpy=6.0>"  # the variable's dtype wins
    assert float(v * v) == 25 and float(-v) == -5 and float(2 ** v) == 32
    assert bool(v > 1) and not bool(v == 4.0)
    w = tf.Variable([[1., 2.], [3., 4.]])
    assert (w @ w).numpy().tolist() == [[7, 10], [15, 22]]
    assert w[0].numpy().tolist() == [1, 2]
    assert (np.float32(2) * v).numpy() == 10


def test_unhashable_but_has_ref():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError, match="Variable is unhashable. Instead, use variable.ref"):
        hash(v)
    d = {v.ref(): 1}
    assert d[v.ref()] == 1 and v.ref().deref() is v
    with pytest.raises(TypeError, match="has no len"):
        len(v)
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(v)


def test_assign_returns_unread_variable_seeing_later_values():
    v = tf.Variable(1.0)
    a = v.assign(2.0)
    assert repr(a) == "<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=2.0>"
    v.assign(5.0)
    assert a.numpy() == 5.0
    assert v.assign_add(1.0, read_value=False) is None
    assert v.assign_sub(2.0).numpy() == 4.0
    assert isinstance(a, tf.Variable)


def test_assign_replaces_never_mutates():
    v = tf.Variable([1., 2.])
    before = v.value()
    v.assign_add([1., 1.])
    v.assign([9., 9.])
    assert before.numpy().tolist() == [1, 2]


def test_assign_errors():
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match=r"^Cannot assign value to variable ' Variable:0': Shape mismatch.The "
                                         r"variable shape \(\), and the assigned value shape \(2,\) are incompatible"):
        v.assign([1., 2.])
    with pytest.raises(ValueError, match="^Tensor conversion requested dtype float32 for Tensor with dtype int32"):
        v.assign(tf.constant(1))
    with pytest.raises(TypeError):
        v.assign("x")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Cannot update variable with shape \[\] using a Tensor with shape \[2\], shapes must "
                             r"be equal. \[Op:AssignAddVariableOp\] name: $"):
        v.assign_add(tf.constant([1., 2.]))
    assert v.assign(np.float64(3.0)).numpy() == 3.0


def test_inside_function_reads_and_writes_in_order():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(x)
        y = v.read_value() * 2
        v.assign(0.0)
        return y
    assert float(f(tf.constant(2.0))) == 6.0 and float(v) == 0.0
    assert float(f(tf.constant(1.0))) == 2.0
    types = [op.type for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
    assert types.count("AssignAddVariableOp") == 1 and "ReadVariableOp" in types


def test_assigned_temporary_is_not_reused_by_later_ops():
    v = tf.Variable([0., 0.])

    @tf.function
    def f(a):
        t = a * 2.0
        v.assign(t)
        return t + 1.0
    assert f(tf.constant([1., 2.])).numpy().tolist() == [3, 5]
    assert v.numpy().tolist() == [2, 4]


def test_function_creates_variables_only_on_first_call():
    class Counter:
        count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)
    c = Counter()
    assert int(c()) == 1 and int(c()) == 2

    # A first trace that created variables is traced again with creation forbidden (as TensorFlow): a function
    # creating a variable on every call fails on its first call, and the one above ran its Python twice.
    assert c.__call__.experimental_get_tracing_count() == 2

    @tf.function
    def g(x):
        tf.Variable(1.0)
        return x
    with pytest.raises(ValueError, match="^tf.function only supports singleton tf.Variables created on the first "
                                         "call"):
        g(1)

    made = []

    @tf.function
    def h(x):
        if isinstance(x, float):  # only the second trace (a new Python value) creates one
            made.append(tf.Variable(x))
        return x
    h(1)
    with pytest.raises(ValueError, match="^tf.function only supports singleton tf.Variables created on the first "
                                         "call"):
        h(2.0)
    assert made == []


def test_initial_value_computed_inside_a_function_is_lifted():
    # As tf.init_scope does: the initial value is computed once, from the first call's arguments and
    # captures; the graph's own ops keep running on every call (here: c.assign_add, once per call).
    c = tf.Variable(3.0)

    class Model(tf.Module):
        v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(tf.ones([3]) * c + tf.range(3, dtype=tf.float32) * x)
            c.assign_add(1.0)
            return self.v * 2.0

    m = Model()
    np.testing.assert_allclose(m(tf.constant(10.0)).numpy(), [6.0, 26.0, 46.0])
    np.testing.assert_allclose(m(tf.constant(5.0)).numpy(), [6.0, 26.0, 46.0])  # not initialised again
    assert float(c) == 5.0 and m.v.shape == [3] and m.v.dtype == tf.float32

    holder = []

    @tf.function
    def inner(x):
        if not holder:
            holder.append(tf.Variable(x + 1.0))
        return holder[0] * x

    @tf.function
    def outer(y):  # inner traced inside outer: its argument is a tensor of outer's graph
        return inner(y * 2.0)
    assert float(outer(tf.constant(5.0))) == 110.0 and float(holder[0]) == 11.0

    class Late(tf.Module):
        v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(x * 2.0)
            return self.v + x
    with pytest.raises(ValueError, match="^Unable to lift tensor .* depends on the function's arguments"):
        Late().__call__.get_concrete_function(tf.TensorSpec([], tf.float32))


def test_variable_creator_scope_sees_every_creation():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        kwargs["trainable"] = False
        return next_creator(**kwargs)
    with tf.variable_creator_scope(creator):
        v = tf.Variable(1.0, name="a")
    assert seen == ["a"] and v.trainable is False
