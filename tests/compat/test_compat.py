"""tf.compat: string and dimension helpers, forward-compatibility dates, v2 (rivulet itself) and the part of v1
rivulet gives with TensorFlow 1's meaning; values and messages as TensorFlow 2.21 gives them."""
import datetime
import pathlib

import numpy as np
import pytest

import rivulet as tf


def test_string_helpers():
    c = tf.compat
    assert c.as_bytes("héllo") == b"h\xc3\xa9llo" and c.as_bytes(bytearray(b"ab")) == b"ab"
    assert c.as_bytes(np.str_("a")) == b"a"
    assert c.as_text(b"h\xc3\xa9") == "hé" and c.as_str("x") == "x" and c.as_str_any(3) == "3"
    assert c.as_str_any(b"ab") == "ab"
    assert c.path_to_str(pathlib.Path("/a/b")) == "/a/b" and c.path_to_str(3) == 3
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        c.as_bytes(3)
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
        c.as_text(3)
    with pytest.raises(UnicodeEncodeError):
        c.as_bytes("é", encoding="ascii")
    assert c.bytes_or_text_types == (bytes, str)
    assert isinstance(np.int8(1), c.integral_types) and isinstance(np.float16(1), c.real_types)
    assert isinstance(1j, c.complex_types) and not isinstance(1.5, c.integral_types)


def test_dimension_helpers():
    shape = tf.TensorShape([3, None])
    assert tf.compat.dimension_value(shape[0]) == 3 and tf.compat.dimension_value(shape[1]) is None
    d = tf.compat.dimension_at_index(shape, 0)
    assert str(d) == "3" and d.value == 3 and int(d) == 3 and repr(d) == "Dimension(3)"
    unknown = tf.compat.dimension_at_index(tf.TensorShape(None), 0)
    assert str(unknown) == "?" and unknown.value is None and tf.compat.dimension_value(unknown) is None
    assert str(tf.compat.dimension_at_index(shape, 1)) == "?"


def test_forward_compatibility(monkeypatch):
    assert tf.compat.forward_compatible(2020, 1, 1)
    assert not tf.compat.forward_compatible(2026, 1, 16)  # TensorFlow 2.21's horizon
    with tf.compat.forward_compatibility_horizon(2100, 1, 1):
        assert tf.compat.forward_compatible(2099, 1, 1)
    assert not tf.compat.forward_compatible(2099, 1, 1)
    monkeypatch.setenv("TF_FORWARD_COMPATIBILITY_DELTA_DAYS", "2")
    assert tf.compat.forward_compatible(2026, 1, 17)


def test_v2_is_rivulet_and_v1_gives_only_same_meaning_names():
    import rivulet.compat.v1 as tf1
    import rivulet.compat.v2 as tf2
    assert tf2.constant is tf.constant and tf.compat.v2.function is tf.function
    assert tf1.executing_eagerly() and tf1.logging.INFO == 20 and tf1.float32 is tf.float32
    assert tf1.keras is tf.keras and tf1.data is tf.data
    tf1.enable_eager_execution()
    np.testing.assert_array_equal(tf1.constant([1, 2]).numpy(), [1, 2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), but got \(2,\)"):
        tf1.constant([1, 2], shape=[3], verify_shape=True)
    tf1.set_random_seed(3)
    a = tf.random.uniform([2])
    tf1.set_random_seed(3)
    np.testing.assert_array_equal(a.numpy(), tf.random.uniform([2]).numpy())
    with pytest.raises(AttributeError, match="tf.compat.v1.Session is not provided"):
        tf1.Session
    with pytest.raises(AttributeError, match="tf.compat.v1.where is not provided"):
        tf1.where  # TF1's where does not broadcast as TF2's does: not forwarded under the v1 name
    with pytest.raises(NotImplementedError, match="graph mode with Sessions is not provided"):
        tf1.disable_eager_execution()
    old = tf1.logging.get_verbosity()
    try:
        tf1.logging.set_verbosity(tf1.logging.ERROR)
        assert tf.get_logger().getEffectiveLevel() == 40
    finally:
        tf1.logging.set_verbosity(old)


def test_v1_and_v2_as_attributes_before_any_import():
    import subprocess
    import sys
    code = ("import rivulet as tf; tf.compat.v1.enable_tensor_equality(); "
            "print(tf.compat.v1.executing_eagerly(), tf.compat.v2.constant is tf.constant)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True True", out.stderr[-2000:]
