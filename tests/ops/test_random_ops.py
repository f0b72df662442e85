"""tf.random: seed semantics (TensorFlow's), distributions, dtype rules and errors."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError
from rivulet.graph.graph import Graph
from rivulet.ops import random_ops


@pytest.fixture(autouse=True)
def _no_global_seed():
    random_ops.set_seed(None)
    yield
    random_ops.set_seed(None)


def test_set_seed_replays_the_sequence():
    tf.random.set_seed(7)
    a = [tf.random.uniform([4]).numpy(), tf.random.normal([4]).numpy(), tf.random.uniform([4], seed=3).numpy()]
    tf.random.set_seed(7)
    b = [tf.random.uniform([4]).numpy(), tf.random.normal([4]).numpy(), tf.random.uniform([4], seed=3).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    tf.random.set_seed(8)
    assert not np.array_equal(tf.random.uniform([4]).numpy(), a[0])


def test_successive_calls_differ():
    for kw in ({}, {"seed": 5}):
        assert not np.array_equal(tf.random.uniform([8], **kw).numpy(), tf.random.uniform([8], **kw).numpy())
    tf.random.set_seed(1)
    assert not np.array_equal(tf.random.uniform([8], seed=2).numpy(), tf.random.uniform([8], seed=2).numpy())


def test_op_seed_alone_is_reproducible_across_set_seed_none():
    a = tf.random.uniform([3], seed=11).numpy()
    random_ops.set_seed(None)  # clears the streams: the op seed starts over
    np.testing.assert_array_equal(tf.random.uniform([3], seed=11).numpy(), a)


def test_seed_attrs():
    assert random_ops.op_seeds() == (0, 0)
    assert random_ops.op_seeds(5) == (random_ops.DEFAULT_GRAPH_SEED, 5)
    tf.random.set_seed(4)
    assert random_ops.op_seeds(5) == (4, 5)
    tf.random.set_seed(0)
    assert random_ops.op_seeds(0) == (0, 2 ** 31 - 1)  # (0, 0) stays "nondeterministic"
    g = Graph()
    g.seed = 9
    with g.as_default():
        assert random_ops.op_seeds() == (9, 0) and random_ops.op_seeds() == (9, 1)


def test_random_ops_are_stateful_graph_nodes():
    g = Graph()
    with g.as_default():
        n = g.placeholder(tf.int32, [2])
        u = tf.random.uniform(n)
        assert u.shape.as_list() == [None, None] and u.dtype == tf.float32
        v = tf.random.normal([3, 4], dtype=tf.float64)
        assert v.shape.as_list() == [3, 4] and v.dtype == tf.float64
        assert tf.random.uniform([5], maxval=3, dtype=tf.int64).dtype == tf.int64
        assert tf.random.shuffle(g.placeholder(tf.float32, [None, 3])).shape.as_list() == [None, 3]
        assert tf.random.categorical(g.placeholder(tf.float32, [None, 3]), 4).shape.as_list() == [None, 4]
    assert all(op.opdef.stateful for op in g.get_operations() if op.type not in ("Const", "Placeholder"))
    assert len(g.control_outputs) == 5


def test_traced_function_gives_new_values_and_replays():
    f = tf.function(lambda: tf.random.uniform([4]))
    tf.random.set_seed(2)
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(2)
    np.testing.assert_array_equal(f().numpy(), a)


def test_uniform_values_and_dtypes():
    x = tf.random.uniform([20000], minval=-2, maxval=3).numpy()
    assert x.dtype == np.float32 and x.min() >= -2 and x.max() < 3
    assert abs(x.mean() - 0.5) < 0.05 and abs(x.std() - 5 / np.sqrt(12)) < 0.05
    h = tf.random.uniform([5000], dtype=tf.float16).numpy()
    assert h.dtype == np.float16 and h.max() < 1 and h.min() >= 0
    i = tf.random.uniform([5000], minval=-1, maxval=2, dtype=tf.int32).numpy()
    assert i.dtype == np.int32 and set(np.unique(i)) == {-1, 0, 1}
    assert tf.random.uniform([], maxval=10, dtype=tf.int64).shape == ()
    assert (tf.random.uniform([3], minval=3., maxval=3.).numpy() == 3).all()
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype tf.int32"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value <dtype: 'bool'>"):
        tf.random.uniform([2], dtype=tf.bool)
    with pytest.raises(InvalidArgumentError, match="Need minval < maxval, got 3 >= 3"):
        tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32)


def test_normal_and_truncated_normal():
    x = tf.random.normal([20000], mean=1., stddev=2.).numpy()
    assert x.dtype == np.float32 and abs(x.mean() - 1) < 0.1 and abs(x.std() - 2) < 0.1
    t = tf.random.truncated_normal([20000], stddev=3., dtype=tf.float64).numpy()
    assert t.dtype == np.float64 and np.abs(t).max() <= 6 and abs(t.std() - 3 * 0.8796) < 0.1
    assert tf.random.truncated_normal([2], dtype=tf.float16).dtype == tf.float16
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        tf.random.normal([2], dtype=tf.int32)


def test_normal_grads_reach_mean_and_stddev():
    from rivulet.core.tensor import EagerTensor

    class Rec:
        pass
    r = Rec()
    r.inputs = [EagerTensor(np.array([3], np.int32)), EagerTensor(np.float64(1.0)), EagerTensor(np.float64(2.0))]
    r.outputs = [EagerTensor(np.array([1.0, 3.0, 5.0]))]
    r.attrs = {}
    _, gm, gs = random_ops.RANDOM_NORMAL.grad(r, EagerTensor(np.ones(3)))
    assert gm.numpy() == 3 and gs.numpy() == pytest.approx(0 + 1 + 2)


def test_categorical_and_shuffle():
    s = tf.random.categorical([[0., 0., 20.], [20., 0., 0.]], 50).numpy()
    assert s.dtype == np.int64 and s.shape == (2, 50) and (s[0] == 2).all() and (s[1] == 0).all()
    p = tf.random.categorical(tf.math.log([[0.25, 0.75]]) if hasattr(tf.math, "log") else np.log([[0.25, 0.75]]),
                              20000, dtype=tf.int32).numpy()
    assert p.dtype == np.int32 and abs(p.mean() - 0.75) < 0.02
    v = np.arange(100)
    sh = tf.random.shuffle(v).numpy()
    assert sorted(sh.tolist()) == v.tolist() and not np.array_equal(sh, v)
    m = tf.random.shuffle(np.arange(12).reshape(6, 2)).numpy()
    assert (m[:, 1] - m[:, 0] == 1).all()  # rows move whole
    with pytest.raises(InvalidArgumentError, match="input must be at least 1-D"):
        tf.random.shuffle(3)
