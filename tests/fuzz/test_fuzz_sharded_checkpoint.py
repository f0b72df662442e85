"""Fuzzing of a tensor bundle with several data shards, written by TensorFlow 2.21
(`tf.train.CheckpointOptions(experimental_sharding_callback=MaxShardSizePolicy(max_shard_size=300))`:
data/sharded/s.index + 4 data files; `net/b` and `net/c` are stored as slices of a partitioned variable, whose
slice entries have TensorFlow's binary ordered-code keys). Mutations: the bytes of any one file, a shard
missing. Loads: tf.train.load_checkpoint reading every tensor it lists, and a Checkpoint restoring `net.a` and
`step`.

A damaged set may raise only DataLossError, NotFoundError, InvalidArgumentError or UnimplementedError (a
partitioned variable: rivulet does not join slices); a tensor that reads is exactly the one TensorFlow wrote
(every tensor is CRC-checked).
"""
import os
import shutil

import numpy as np
import pytest

from tests.fuzz.harness import FuzzTarget, fuzz_cases, mutate_bytes, run_fuzz

SEED = 20261130
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sharded")
_FILES = ["s.index"] + [f"s.data-0000{i}-of-00004" for i in range(4)]
# what TensorFlow 2.21 wrote (its tf.train.list_variables of the files, and the values)
_A = np.arange(64, dtype=np.float32).reshape(8, 8)
_LISTED = [("_CHECKPOINTABLE_OBJECT_GRAPH", []), ("net/a/.ATTRIBUTES/VARIABLE_VALUE", [8, 8]),
           ("net/b/.ATTRIBUTES/VARIABLE_VALUE", [40]), ("net/c/.ATTRIBUTES/VARIABLE_VALUE", [50]),
           ("step/.ATTRIBUTES/VARIABLE_VALUE", [])]


class Undocumented(Exception):
    """A load that returned wrong data: never an allowed outcome."""


def build(rng, case_dir):
    victim = _FILES[int(rng.integers(len(_FILES)))]
    for name in _FILES:
        if name == victim and rng.random() < 0.1:
            continue  # a file missing
        with open(os.path.join(DATA, name), "rb") as f:
            data = f.read()
        with open(os.path.join(case_dir, name), "wb") as f:
            f.write(mutate_bytes(rng, data) if name == victim else data)
    return os.path.join(case_dir, "s")


def load(prefix):
    import rivulet as tf
    from rivulet.errors import UnimplementedError
    reader = tf.train.load_checkpoint(prefix)
    for key in reader.get_variable_to_shape_map():
        try:
            value = reader.get_tensor(key)
        except UnimplementedError:
            continue
        if key == "net/a/.ATTRIBUTES/VARIABLE_VALUE" and not (value.dtype == np.float32 and
                                                                np.array_equal(value, _A)):
            raise Undocumented(f"net/a read as {value.dtype} {value.shape}")
        if key == "step/.ATTRIBUTES/VARIABLE_VALUE" and not (value.dtype == np.int64 and value == 7):
            raise Undocumented(f"step read as {value!r}")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.a = tf.Variable(np.zeros((8, 8), np.float32))
    net, step = Net(), tf.Variable(0, dtype=tf.int64)
    tf.train.Checkpoint(net=net, step=step).restore(prefix)
    if not (np.array_equal(net.a.numpy(), _A) and int(step.numpy()) == 7):
        raise Undocumented("a restore gave other values")


def _allowed():
    from rivulet.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
    return DataLossError, NotFoundError, InvalidArgumentError, UnimplementedError


TARGETS = [FuzzTarget(name="ckpt-sharded-tf", build=build, load=load, allowed=_allowed(), seconds=2.0, mem_mb=200)]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_fuzz(target):
    report = run_fuzz(target, n=fuzz_cases(60), seed=SEED)
    print(report.summary())
    assert not report.failures, report.summary()


def test_tensorflows_sharded_checkpoint_with_partitioned_variables(tmp_path):
    """A TensorFlow-written bundle holding slices of partitioned variables opened as corrupted ('a key is not
    UTF-8': the slices' binary keys); now it lists what TensorFlow lists, reads the whole tensors, restores
    them, and a partitioned one is UnimplementedError."""
    import rivulet as tf
    for name in _FILES:
        shutil.copy(os.path.join(DATA, name), tmp_path / name)
    prefix = str(tmp_path / "s")
    assert tf.train.list_variables(prefix) == _LISTED
    reader = tf.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("net/a/.ATTRIBUTES/VARIABLE_VALUE"), _A)
    with pytest.raises(tf.errors.UnimplementedError, match="slices of a partitioned variable"):
        reader.get_tensor("net/c/.ATTRIBUTES/VARIABLE_VALUE")
    load(prefix)
