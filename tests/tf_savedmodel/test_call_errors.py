"""A function restored from TensorFlow's SavedModel and called with another dtype raises TensorFlow's
InvalidArgumentError naming the function once (its name already carries the __inference_ prefix)."""
import pytest

import rivulet as tf

from .conftest import fixture_dir


def test_a_restored_function_called_with_another_dtype_names_it_once():
    m = tf.saved_model.load(fixture_dir("keras_mlp"))
    cf = m.__call__.concrete_functions[0]
    # TF 2.21: cannot compute __inference___call___90 as input #0(zero-based) was expected to be a float tensor
    # but is a int32 tensor [Op:__inference___call___90] (its loader renumbers the function; the file says 82)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^cannot compute __inference___call___82 as input #0\(zero-based\) was expected to be "
                             r"a float tensor but is a int32 tensor \[Op:__inference___call___82\]$"):
        cf(tf.zeros([1, 8], tf.int32))
