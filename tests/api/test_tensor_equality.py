"""Tensor == and != as TensorFlow 2.21: elementwise; None compares unequal; shapes that cannot broadcast give a
scalar False/True; a value that does not convert raises its conversion error (it was False: `t == object()`)."""
import numpy as np
import pytest

import rivulet as tf


def test_equality_raises_for_values_that_do_not_convert():
    a = tf.constant([1, 2])
    for other in (object(), {}):
        with pytest.raises(ValueError, match="Attempt to convert a value .* with an unsupported type"):
            a == other  # noqa: B015
        with pytest.raises(ValueError, match="unsupported type"):
            a != other  # noqa: B015
    with pytest.raises(TypeError, match="Cannot convert 'x' to EagerTensor of dtype int32"):
        a == "x"  # noqa: B015
    assert (a == None) is False and (a != None) is True  # noqa: E711
    assert (a == tf.constant([[1, 2, 3]])).numpy() == np.False_
    np.testing.assert_array_equal((a == [1, 3]).numpy(), [True, False])
