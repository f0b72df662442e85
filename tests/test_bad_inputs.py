"""Bad input to the public API gets a clear error of TensorFlow's type naming what was wrong; never an
internal AttributeError/IndexError/ZeroDivisionError, a hang, or a silently wrong result.

Each row: (id, call, expected exception type, fragment of the message)."""
import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError


class _Unrelated:
    pass


CASES = [
    # --- conversion
    ("constant-mixed-str-int", lambda: tf.constant([1, "a"]), ValueError, "mixed types"),
    ("constant-list-with-None", lambda: tf.constant([1, None]), ValueError, "NoneType"),
    ("constant-unrelated-object", lambda: tf.constant(_Unrelated()), ValueError, "unsupported type"),
    ("convert-nested-unrelated", lambda: tf.convert_to_tensor([[1.0, _Unrelated()]]), ValueError, "_Unrelated"),
    ("constant-object-array-with-int", lambda: tf.constant(np.array([1, "a"], dtype=object)), ValueError,
     "Unsupported object type int"),
    ("constant-shape-None-dim", lambda: tf.constant(1, shape=[2, None]), ValueError, "fully defined `shape`"),
    ("constant-shape-negative", lambda: tf.constant([1, 2, 3], shape=[-1]), ValueError, "`shape`"),
    # --- dtypes and specs
    ("as_dtype-None", lambda: tf.as_dtype(None), TypeError, "None"),
    ("cast-to-None", lambda: tf.cast(tf.ones([2]), None), TypeError, "None"),
    ("spec-from-None", lambda: tf.TensorSpec.from_tensor(None), ValueError, "should be a tf.Tensor"),
]


@pytest.mark.parametrize("call,exc,fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input(call, exc, fragment):
    with pytest.raises(exc) as info:
        call()
    assert fragment in str(info.value)


def test_spec_is_compatible_with_unrelated_is_false():
    spec = tf.TensorSpec([2], tf.float32)
    assert spec.is_compatible_with(None) is False
    assert spec.is_compatible_with(_Unrelated()) is False
    assert spec.is_compatible_with(tf.ones([2]))


def test_strings_still_convert():
    assert tf.constant(["a", b"b"]).dtype == tf.string
    assert tf.constant(np.array([b"a", "b"], dtype=object)).numpy().tolist() == [b"a", b"b"]
    assert tf.constant([["a"], ["b"]]).shape == (2, 1)
