"""tf.random.Generator is trackable: a checkpoint saves its state (as TensorFlow names it) and restoring it
replays the same numbers."""
import numpy as np

import rivulet as tf


def test_a_checkpoint_restores_a_generators_stream(tmp_path):
    g = tf.random.Generator.from_seed(1)
    ckpt = tf.train.Checkpoint(gen=g)
    path = ckpt.write(str(tmp_path / "c"))
    assert ("gen/_state_var/.ATTRIBUTES/VARIABLE_VALUE", [3]) in tf.train.list_variables(path)
    first = g.normal([4]).numpy()
    assert not np.array_equal(g.normal([4]).numpy(), first)  # the stream moved on
    ckpt.read(path).assert_consumed()
    np.testing.assert_array_equal(g.normal([4]).numpy(), first)


def test_a_generator_inside_a_module_is_saved_with_it(tmp_path):
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.gen = tf.random.Generator.from_seed(7)
    m = Model()
    path = tf.train.Checkpoint(model=m).write(str(tmp_path / "c"))
    expected = m.gen.uniform([3]).numpy()
    other = Model()
    other.gen.skip(100)
    tf.train.Checkpoint(model=other).read(path).assert_consumed()
    np.testing.assert_array_equal(other.gen.uniform([3]).numpy(), expected)
