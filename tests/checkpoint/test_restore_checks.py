"""Restoring checks what it restores: a value of another dtype is refused (never cast), another shape too,
nothing is assigned when any value is refused, and walks of a hostile object graph end."""

import numpy as np
import pytest

import rivulet as tf
from rivulet.checkpoint import bundle, object_graph as og
from rivulet.errors import InvalidArgumentError
from tests.deadline import deadline


@pytest.mark.parametrize("saved, dtype", [
    (np.int64(2 ** 40 + 7), tf.int32),  # was restored as 7
    (np.float64(1e300), tf.float32),  # was inf
    (np.float32(1.5), tf.int32),  # was 1
    (np.int32(-1), tf.bool),  # was True
    (np.array([1.0, 2.0], np.float32), tf.string),  # was a TypeError
    (np.int32(3), tf.int64),  # widening is refused too, as TensorFlow does
])
def test_a_value_of_another_dtype_is_refused(tmp_path, saved, dtype):
    saved_var = tf.Variable(saved)
    path = tf.train.Checkpoint(v=saved_var).write(str(tmp_path / "c"))
    init = np.zeros(np.shape(saved), dtype=object if dtype == tf.string else dtype.as_numpy_dtype)
    if dtype == tf.string:
        init[...] = b"keep"
    var = tf.Variable(init, dtype=dtype, name="target")
    with pytest.raises(InvalidArgumentError) as info:
        tf.train.Checkpoint(v=var).read(path)
    msg = str(info.value)
    assert "v/.ATTRIBUTES/VARIABLE_VALUE" in msg and "target" in msg
    tf_name = {"float32": "float", "float64": "double", "float16": "half"}  # TensorFlow's names in RestoreV2's error
    assert f"expected dtype {tf_name.get(dtype.name, dtype.name)}" in msg
    assert f"original dtype {tf_name.get(saved_var.dtype.name, saved_var.dtype.name)}" in msg
    np.testing.assert_array_equal(var.numpy(), init)


def test_nothing_is_assigned_when_one_value_is_refused(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable([1.0]), b=tf.Variable([2, 3], dtype=tf.int64),
                               c=tf.Variable([4.0, 5.0])).write(str(tmp_path / "c"))
    a, b = tf.Variable([0.0]), tf.Variable([0, 0], dtype=tf.int32)
    with pytest.raises(InvalidArgumentError, match="b/.ATTRIBUTES"):
        tf.train.Checkpoint(a=a, b=b).read(path)
    assert a.numpy().tolist() == [0.0] and b.numpy().tolist() == [0, 0]


def test_nothing_is_assigned_when_one_shape_differs(tmp_path):
    path = tf.train.Checkpoint(a=tf.Variable([1.0]), b=tf.Variable([2, 3], dtype=tf.int64),
                               c=tf.Variable([4.0, 5.0])).write(str(tmp_path / "c"))
    # a ValueError, as TensorFlow's variables raise it; `a`, restored first before, is left alone too
    a, c = tf.Variable([0.0]), tf.Variable([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(2,\).*shape \(3,\)"):
        tf.train.Checkpoint(a=a, c=c).read(path)
    assert a.numpy().tolist() == [0.0] and c.numpy().tolist() == [0.0, 0.0, 0.0]
    # the right dtypes and shapes restore
    a, b, c = tf.Variable([0.0]), tf.Variable([0, 0], dtype=tf.int64), tf.Variable([0.0, 0.0])
    tf.train.Checkpoint(a=a, b=b, c=c).read(path).assert_consumed()
    assert (a.numpy().tolist(), b.numpy().tolist(), c.numpy().tolist()) == ([1.0], [2, 3], [4.0, 5.0])


def test_deferred_restore_of_another_dtype_is_refused(tmp_path):
    path = tf.train.Checkpoint(net=tf.train.Checkpoint(w=tf.Variable(2 ** 40, dtype=tf.int64))).write(
        str(tmp_path / "c"))
    holder = tf.train.Checkpoint()
    tf.train.Checkpoint(net=holder).read(path)
    w = tf.Variable(0, dtype=tf.int32)
    with pytest.raises(InvalidArgumentError, match="expected dtype int32 does not equal original dtype int64"):
        holder.w = w  # the value waiting for `w` is applied now
    assert w.numpy() == 0


def test_name_based_checkpoint_checks_dtypes(tmp_path):
    bundle.write_bundle(str(tmp_path / "old"), {"v": np.array([2 ** 40 + 7], np.int64)})
    v = tf.Variable([0], dtype=tf.int32, name="v")
    with pytest.raises(InvalidArgumentError, match="tensor_name = v;"):
        tf.train.Checkpoint(v=v).restore(str(tmp_path / "old"))
    assert v.numpy().tolist() == [0]


def test_keras_load_weights_checks_dtypes(tmp_path):
    def model(dtype):
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, dtype=dtype)])
        m.build((None, 3))
        return m
    src = model("float64")
    src.save_weights(str(tmp_path / "w"))
    dst = model("float32")
    before = [w.numpy() for w in dst.weights]
    with pytest.raises(InvalidArgumentError, match="expected dtype float does not equal original dtype double"):
        dst.load_weights(str(tmp_path / "w"))
    for w, b in zip(dst.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


def _with_extra_nodes(prefix, extra):
    """Rewrites the checkpoint at prefix with `extra(n)` -> nodes appended to its object graph."""
    t = bundle.read_bundle(prefix)
    nodes = og.decode(t[og.OBJECT_GRAPH_KEY].reshape(-1)[0])
    nodes += extra(len(nodes))
    t[og.OBJECT_GRAPH_KEY] = np.array(og.encode(nodes), dtype=object)
    bundle.write_bundle(prefix, t)


def test_a_cycle_unreachable_from_the_root_ends(tmp_path):
    prefix = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "c"))
    # two nodes naming each other, holding no values: TensorFlow's assert_consumed only asks for nodes
    # with attributes (values), so these pass
    _with_extra_nodes(prefix, lambda n: [og.Node(children=[(n + 1, "b")], has_values=True),
                                         og.Node(children=[(n, "a")], has_values=True)])
    with deadline(5):
        tf.train.Checkpoint(v=tf.Variable(0.0)).restore(prefix).assert_consumed()
    # the same cycle holding a value: reported as unresolved, and said to be unreachable
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"
    _with_extra_nodes(prefix, lambda n: [og.Node(children=[(n + 1, "b")], attributes=[("VARIABLE_VALUE", "x", key)],
                                                 has_values=True),
                                         og.Node(children=[(n, "a")], has_values=True)])
    with deadline(5), pytest.raises(AssertionError, match="not reachable from the root"):
        tf.train.Checkpoint(v=tf.Variable(0.0)).restore(prefix).assert_consumed()


def test_a_deep_object_graph_is_walked_without_recursion(tmp_path):
    class Loop(tf.Module):
        pass
    m = Loop()
    m.v = tf.Variable(0.0)
    m.me = m  # an object that is its own child: a checkpoint can bind a chain of any length to it
    prefix = tf.train.Checkpoint(m=m).write(str(tmp_path / "c"))
    depth = 5000

    def chain(n):
        return [og.Node(children=[(n + i + 1 if i + 1 < depth else n, "me")], has_values=True) for i in range(depth)]
    t = bundle.read_bundle(prefix)
    nodes = og.decode(t[og.OBJECT_GRAPH_KEY].reshape(-1)[0])
    m_node = nodes[0].children[0][0]
    n = len(nodes)
    nodes[m_node].children = [(c, name) if name != "me" else (n, "me") for c, name in nodes[m_node].children]
    nodes += chain(n)
    t[og.OBJECT_GRAPH_KEY] = np.array(og.encode(nodes), dtype=object)
    bundle.write_bundle(prefix, t)
    m.v.assign(5.0)
    with deadline(10):
        tf.train.Checkpoint(m=m).read(prefix)
    assert m.v.numpy() == 0.0


@pytest.mark.parametrize("graph", [np.zeros([0], dtype=object), np.array([b"a", b"b"], dtype=object),
                                   np.array([1.0, 2.0]), np.zeros([3], np.uint8)])
def test_an_object_graph_that_is_not_a_string_scalar(tmp_path, graph):
    bundle.write_bundle(str(tmp_path / "c"), {og.OBJECT_GRAPH_KEY: graph})
    with pytest.raises(tf.errors.DataLossError, match=r"c' is corrupted: its object graph .* is not a string scalar"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "c"))


def test_a_variable_with_children_in_the_checkpoint(tmp_path):
    v = tf.Variable(1.0)
    prefix = tf.train.Checkpoint(v=v).write(str(tmp_path / "c"))
    t = bundle.read_bundle(prefix)
    nodes = og.decode(t[og.OBJECT_GRAPH_KEY].reshape(-1)[0])
    v_node = nodes[0].children[0][0]
    nodes[v_node].children.append((len(nodes), "extra"))  # no live variable has children: it can never match
    nodes.append(og.Node(attributes=[("VARIABLE_VALUE", "x", "v/.ATTRIBUTES/VARIABLE_VALUE")], has_values=True))
    t[og.OBJECT_GRAPH_KEY] = np.array(og.encode(nodes), dtype=object)
    bundle.write_bundle(prefix, t)
    target = tf.Variable(0.0)
    status = tf.train.Checkpoint(v=target).restore(prefix)  # was a TypeError: Variable is unhashable
    assert target.numpy() == 1.0
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.v\.extra"):
        status.assert_consumed()


def test_the_path_of_a_deep_unresolved_node(tmp_path):
    prefix = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "c"))
    depth = 60000

    def chain(n):  # root -> n -> n+1 -> ... : each node keeps one parent, not its whole path
        return [og.Node(children=[(n + i + 1, "a")] if i + 1 < depth else [], has_values=True,
                        attributes=[] if i + 1 < depth else [("VARIABLE_VALUE", "x", "nope")]) for i in range(depth)]
    t = bundle.read_bundle(prefix)
    nodes = og.decode(t[og.OBJECT_GRAPH_KEY].reshape(-1)[0])
    nodes[0].children.append((len(nodes), "a"))
    nodes += chain(len(nodes))
    t[og.OBJECT_GRAPH_KEY] = np.array(og.encode(nodes), dtype=object)
    bundle.write_bundle(prefix, t)
    status = tf.train.Checkpoint(v=tf.Variable(0.0)).restore(prefix)
    with deadline(10), pytest.raises(AssertionError) as info:
        status.assert_consumed()
    assert str(info.value).startswith("Unresolved object in checkpoint (root)" + ".a" * depth + ":")
