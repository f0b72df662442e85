"""tnp.experimental_enable_numpy_behavior's type promotion, against TensorFlow 2.21.

tf221_promotion.json is TensorFlow 2.21's result type for every pair of (dtype, weak) operands in "all" mode and
whether "safe" mode refuses it (recorded by running TensorFlow's promotion on each pair); the other values are
TensorFlow's outputs for the cells of its guides tf_numpy.ipynb and tf_numpy_type_promotion.ipynb.
"""
import json
import os

import numpy as np
import pytest

import rivulet as tf
import rivulet.experimental.numpy as tnp
from rivulet.ops import np_behavior

HERE = os.path.dirname(__file__)
TABLE = json.load(open(os.path.join(HERE, "tf221_promotion.json")))
NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float32",
         "float64", "complex64", "complex128", "int32*", "int64*", "float32*", "float64*", "complex128*"]


@pytest.fixture(autouse=True)
def _reset():
    yield
    tnp._disable_numpy_behavior()


def _operand(name):
    dt = getattr(tf, name.rstrip("*"))
    t = tf.constant(True if name == "bool" else 1, dt)
    return np_behavior.WeakEagerTensor(t.numpy()) if name.endswith("*") else t


def _name(t):
    return t.dtype.name + ("*" if isinstance(t, np_behavior.WeakEagerTensor) else "")


@pytest.mark.parametrize("mode", ["all", "safe"])
def test_lattice_operators_match_tensorflow_table(mode):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    checked = 0
    for a in NAMES:
        for b in NAMES:
            want = TABLE[mode][f"{a},{b}"]
            x, y = _operand(a), _operand(b)
            if want == "TypeError":
                with pytest.raises(TypeError, match="PromoMode.SAFE"):
                    x * y
                continue
            if want.rstrip("*") == "bool":
                continue  # no arithmetic op takes bools; the table's result is bool
            got = x * y
            assert _name(got) == want, (a, b)
            checked += 1
    assert checked > 250


def test_python_scalars_are_weak_like_tensorflow():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    for a in NAMES:
        x = _operand(a)
        for pv, pn in [(1, "int"), (1.0, "float"), (1j, "complex")]:
            want = TABLE["py"][f"{a},{pn}"]
            if want.rstrip("*") == "bool":
                continue
            assert _name(x * pv) == want, (a, pn)
            assert _name(pv * x) == want, (a, pn)


def test_safe_mode_error_message():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    with pytest.raises(TypeError) as e:
        tf.constant(10, dtype=tf.int32) + tf.constant(5.0, dtype=tf.float32)
    assert str(e.value) == (
        "In promotion mode PromoMode.SAFE, implicit dtype promotion between (<dtype: 'int32'>, weak=False) and "
        "(<dtype: 'float32'>, weak=False) is disallowed. You need to explicitly specify the dtype in your op, or "
        "relax your dtype promotion rules (such as from SAFE mode to ALL mode).")


def test_type_promotion_guide_cells():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    r = tf.constant(10, dtype=tf.int32) + tf.constant(5.0, dtype=tf.float32)
    assert repr(r) == "<tf.Tensor: shape=(), dtype=float32, numpy=15.0>"
    r = tf.constant(10, dtype=tf.int8) + tf.constant(5, dtype=tf.uint32)
    assert repr(r) == "<tf.Tensor: shape=(), dtype=int64, numpy=15>"
    r = tf.constant(1, tf.int64) + tf.constant(3.2, tf.float16)
    assert r.dtype == tf.float16 and float(r) == 4.19921875
    r = tf.constant(1.2) + tf.constant(3.1, tf.float16)
    assert r.dtype == tf.float16 and float(r) == 4.30078125
    assert repr(tf.constant(5)) == "<tf.Tensor: shape=(), dtype=int32, numpy=5, weak=True>"
    assert repr(tf.constant([5.0, 10.0, 3])) == ("<tf.Tensor: shape=(3,), dtype=float32, numpy=array([ 5., 10.,  3.], "
                                                 "dtype=float32), weak=True>")
    assert repr(tf.constant(5, tf.int32)) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(tf.math.abs([100.0, 4.0])) == ("<tf.Tensor: shape=(2,), dtype=float32, numpy=array([100.,   4.], "
                                               "dtype=float32), weak=True>")
    assert str(tf.constant(1)) == "tf.Tensor(1, shape=(), dtype=int32, weak=True)"
    assert repr(-tf.constant(5)) == "<tf.Tensor: shape=(), dtype=int32, numpy=-5, weak=True>"
    assert repr(tf.constant(5, tf.int16) - tf.constant(1, tf.float32)) == \
        "<tf.Tensor: shape=(), dtype=float32, numpy=4.0>"
    v = tf.Variable(10, tf.int32)
    assert int(v.assign_add(tf.constant(5, tf.int16))) == 15 and v.dtype == tf.int32
    with pytest.raises(TypeError, match="Variable dtype is immutable. Calling assign_add of Variable"):
        v.assign_add(tf.constant(5.0))
    r = tf.constant(tf.constant(10, tf.int16), tf.float32)
    assert r.dtype == tf.float32 and float(r) == 10.0
    assert repr(tnp.array(1)) == "<tf.Tensor: shape=(), dtype=int32, numpy=1, weak=True>"
    assert tnp.array(1.0).dtype == tf.float32 and np_behavior.is_weak(tnp.array(1.0))


def test_new_promotion_is_associative_where_legacy_is_not():
    a = np.array(1, dtype=np.int8)
    c = np.array(1, dtype=np.float16)
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    b = tf.constant(1)
    assert tf.add(tf.add(b, a), c).dtype == tf.int32  # TensorFlow's own conversion (legacy leaves tf.add alone)
    r = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
    assert r.dtype == tf.float64 and float(r) == 54.19921875
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    b = tf.constant(1)
    for r in (tf.add(tf.add(a, b), c), tf.add(tf.add(b, a), c)):
        assert r.dtype == tf.float16 and float(r) == 3.0
    r = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
    assert r.dtype == tf.float16 and float(r) == 54.1875


def test_tf_numpy_guide_legacy_table():
    tnp.experimental_enable_numpy_behavior()
    values = [tnp.asarray(1, dtype=d) for d in (tnp.int32, tnp.int64, tnp.float32, tnp.float64)]
    got = []
    for i, v1 in enumerate(values):
        for v2 in values[i + 1:]:
            got.append((v1 + v2).dtype.name)
    assert got == ["int64", "float64", "float64", "float64", "float64", "float64"]
    assert tnp.asarray(1).dtype == tf.int64 and tnp.asarray(1.).dtype == tf.float64
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    assert tnp.asarray(1.).dtype == tf.float32 and tnp.add(1., 2.).dtype == tf.float32
    tnp.experimental_enable_numpy_behavior(prefer_float32=False)
    assert tnp.asarray(1.).dtype == tf.float64 and tnp.add(1., 2.).dtype == tf.float64


@pytest.mark.parametrize("expr, dtype, value", [
    # TensorFlow 2.21, legacy (NumPy) promotion: Python scalars weak as in NumPy 2
    (lambda: tf.constant([1, 2]) + 2.5, "float64", [3.5, 4.5]),
    (lambda: tf.constant([1., 2.]) + 2.5, "float32", [3.5, 4.5]),
    (lambda: tf.constant([1, 2], tf.int8) + 1, "int8", [2, 3]),
    (lambda: tf.constant([1, 2], tf.int8) + tf.constant([1, 2], tf.uint8), "int16", [2, 4]),
    (lambda: tf.constant([True, False]) + 1, "int64", [2, 1]),
    (lambda: tf.constant([1., 2.], tf.float16) + tf.constant([1, 2]), "float64", [2., 4.]),
    (lambda: tf.constant([1, 2], tf.int8) / tf.constant([1, 2], tf.int8), "float32", [1., 1.]),
    (lambda: tf.constant([1, 2]) / tf.constant([1, 2]), "float64", [1., 1.]),
    (lambda: tf.constant([[1, 2]]) @ tf.constant([[1.], [2.]]), "float64", [[5.]]),
    (lambda: tf.constant([1., 2.]) + 1j, "complex64", [1 + 1j, 2 + 1j]),
    (lambda: tf.constant([1, 2]) + np.array([1., 2.]), "float64", [2., 4.]),
    (lambda: 2.5 - tf.constant([1, 2]), "float64", [1.5, 0.5]),
])
def test_legacy_operators(expr, dtype, value):
    tnp.experimental_enable_numpy_behavior()
    r = expr()
    assert r.dtype.name == dtype
    np.testing.assert_allclose(np.asarray(r), value)


def test_all_mode_comparisons_and_bool_scalars():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert np.asarray(tf.constant([1, 2], tf.int8) == tf.constant([1, 2], tf.int64)).tolist() == [True, True]
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant([1, 2]) < 1.5  # TensorFlow leaves <, <=, >, >= unpromoted in the new modes
    with pytest.raises(TypeError, match="Cannot convert True to EagerTensor of dtype int8"):
        tf.constant([1, 2], tf.int8) + True


def test_off_by_default_and_restored():
    add = tf.Tensor.__add__
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + tf.constant(1.0)
    tnp.experimental_enable_numpy_behavior()
    assert tf.Tensor.__add__ is not add
    assert (tf.constant(1) + tf.constant(1.0)).dtype == tf.float64
    tnp._disable_numpy_behavior()
    assert tf.Tensor.__add__ is add and not hasattr(tf.Tensor, "T")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + tf.constant(1.0)


def test_all_mode_leaves_composite_tensors_to_their_ops():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    r = tf.ragged.constant([[1, 2], [3]])
    assert tf.add(r, 1).to_list() == [[2, 3], [4]]
    assert tf.math.abs(-r).to_list() == [[1, 2], [3]]
