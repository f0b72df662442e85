"""An eager variable keeps no initial value (TensorFlow 2: `initial_value` raises RuntimeError), so a model
whose weights are loaded or assigned holds one copy of them: VGG19's 548 MiB of weights held twice after
load_weights (style_transfer's cell past the tutorial runner's 3 GiB)."""
import gc
import tracemalloc

import numpy as np
import pytest

import rivulet as tf


def test_initial_value_is_not_kept():
    v = tf.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    with pytest.raises(RuntimeError, match="This property is not supported when eager execution is enabled."):
        v.initial_value


def test_assigned_variable_frees_its_initial_array():
    n = 4 << 20  # 16 MiB of float32
    gc.collect()
    tracemalloc.start()
    try:
        v = tf.Variable(np.zeros(n, np.float32))
        v.assign(np.ones(n, np.float32))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 1.5 * 4 * n  # one array (was two: the initial one kept)
    assert v.numpy()[0] == 1.0
