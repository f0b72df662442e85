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
    # --- lists of tensors
    ("concat-empty", lambda: tf.concat([], axis=0), InvalidArgumentError, "at least one tensor"),
    ("concat-empty-graph", lambda: tf.function(lambda: tf.concat([], 0))(), ValueError, "at least one tensor"),
    ("concat-axis-None", lambda: tf.concat([tf.ones([2]), tf.ones([2])], axis=None), ValueError, "`axis`"),
    ("stack-axis-float", lambda: tf.stack([tf.ones([2])], axis=0.5), TypeError, "`axis`"),
    # --- static int arguments: None, floats, strings, vectors where a scalar goes
    ("expand_dims-axis-None", lambda: tf.expand_dims(tf.ones([2]), None), ValueError, "`axis` must be an integer"),
    ("expand_dims-axis-float", lambda: tf.expand_dims(tf.ones([2]), 1.5), TypeError, "got 1.5"),
    ("expand_dims-axis-vector", lambda: tf.expand_dims(tf.ones([2]), [0, 1]), InvalidArgumentError,
     "`axis` must be a scalar"),
    ("squeeze-axis-str", lambda: tf.squeeze(tf.ones([2, 1]), axis="a"), TypeError, "`axis`"),
    ("roll-shift-float", lambda: tf.roll(tf.ones([3]), 1.5, axis=0), TypeError, "`shift`"),
    ("roll-shift-None", lambda: tf.roll(tf.ones([3]), None, axis=0), ValueError, "`shift`"),
    ("one_hot-depth-None", lambda: tf.one_hot([0, 1], None), ValueError, "`depth`"),
    ("pad-paddings-None", lambda: tf.pad(tf.ones([2]), None), ValueError, "`paddings`"),
    ("transpose-perm-str", lambda: tf.transpose(tf.ones([2, 3]), perm="ab"), TypeError, "`perm`"),
    ("reverse-axis-None", lambda: tf.reverse(tf.ones([3]), None), ValueError, "`axis`"),
    # --- reductions and scans
    ("reduce-duplicate-axes", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=[0, 0]), InvalidArgumentError,
     "duplicate dimension"),
    ("reduce-duplicate-negative-axes", lambda: tf.reduce_max(tf.ones([2, 3]), axis=[1, -1]), InvalidArgumentError,
     "duplicate dimension"),
    ("reduce-float-axis", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=1.5), TypeError, "`axis`"),
    ("reduce-matrix-axis", lambda: tf.reduce_mean(tf.ones([2, 3]), axis=[[0], [1]]), InvalidArgumentError,
     "scalar or a vector"),
    ("cumsum-vector-axis", lambda: tf.cumsum(tf.ones([3]), axis=[0]), InvalidArgumentError, "must be a scalar"),
    ("cumsum-axis-None", lambda: tf.cumsum(tf.ones([3]), axis=None), ValueError, "`axis`"),
    ("argmax-vector-axis", lambda: tf.math.argmax(tf.ones([2]), axis=tf.constant([0, 0])), InvalidArgumentError,
     "must be a scalar"),
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


def test_lists_that_tensorflow_accepts():
    assert tf.stack([]).shape == (0,) and tf.stack([]).dtype == tf.float32
    assert tf.concat(tf.ones([2]), axis=0).shape == (2,)  # a lone tensor concatenates with nothing
    assert tf.reduce_sum(tf.ones([2, 3]), axis=[0, 1]).numpy() == 6.0
    assert tf.expand_dims(tf.ones([2]), [0]).shape == (1, 2)


def test_strings_still_convert():
    assert tf.constant(["a", b"b"]).dtype == tf.string
    assert tf.constant(np.array([b"a", "b"], dtype=object)).numpy().tolist() == [b"a", b"b"]
    assert tf.constant([["a"], ["b"]]).shape == (2, 1)
