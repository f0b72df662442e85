"""What tools/roundtrip_formats.py found in checkpoints against TensorFlow 2.21: tf.train.load_variable, and a
dtype rivulet lacks (bfloat16) refused naming it.

data/bf16.* was written by TensorFlow 2.21:
    tf.train.Checkpoint(v=tf.Variable(tf.constant([1.5, -2.0], tf.bfloat16)),
                        w=tf.Variable([0.5, -0.0])).write("bf16")
"""
import os

import numpy as np
import pytest

import rivulet as tf
from rivulet.errors import InvalidArgumentError, NotFoundError, UnimplementedError

DATA = os.path.join(os.path.dirname(__file__), "data")
BF16 = os.path.join(DATA, "bf16")


def test_load_variable_reads_tensorflows_checkpoint():
    prefix = os.path.join(DATA, "net")
    keys, seen = dict(tf.train.list_variables(prefix)), set()
    with np.load(os.path.join(DATA, "net.values.npz"), allow_pickle=False) as z:
        for key in keys:
            name = key.split("/")[-3] if key.endswith("VARIABLE_VALUE") else None
            if name in z.files:
                got = tf.train.load_variable(prefix, key)
                assert got.dtype == z[name].dtype and got.tobytes() == z[name].tobytes(), key
                seen.add(name)
    assert seen == {"l1", "b", "step"}
    assert tf.train.load_variable(prefix, "step/.ATTRIBUTES/VARIABLE_VALUE") == 42
    got = tf.train.load_variable(BF16, "w/.ATTRIBUTES/VARIABLE_VALUE:0")  # ":0" dropped, as TensorFlow
    assert got.dtype == np.float32 and got.view(np.uint32).tolist() == [0x3F000000, 0x80000000]
    with pytest.raises(NotFoundError, match="Key nope not found in checkpoint"):
        tf.train.load_variable(BF16, "nope")


def test_load_variable_of_a_directory_takes_its_latest_checkpoint(tmp_path):
    v = tf.Variable(np.array([np.inf, -0.0, 5e-324], np.float64))
    tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=1).save()
    got = tf.train.load_variable(str(tmp_path), "v/.ATTRIBUTES/VARIABLE_VALUE")
    assert got.dtype == np.float64 and got.tobytes() == v.numpy().tobytes()


def test_a_bfloat16_tensor_is_refused_naming_its_dtype():
    """It was 'has a dtype this reader does not support' and 'original dtype an unsupported dtype'; TensorFlow
    says 'expected dtype float does not equal original dtype bfloat16'."""
    reader = tf.train.load_checkpoint(BF16)
    assert reader.get_tensor("w/.ATTRIBUTES/VARIABLE_VALUE").tolist() == [0.5, -0.0]  # the others still read
    with pytest.raises(UnimplementedError, match="has dtype bfloat16, which this reader does not support"):
        reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    w = tf.Variable([7.0, 7.0])
    with pytest.raises(InvalidArgumentError, match="expected dtype float does not equal original dtype bfloat16"):
        tf.train.Checkpoint(v=w).read(BF16)
    assert w.numpy().tolist() == [7.0, 7.0]
