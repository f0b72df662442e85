"""Checkpoint write and read move each variable's bytes once: writing streams the variables' own arrays to
the data file (no copy of the model), reading reads each tensor straight into the array the variable gets."""
import tracemalloc

import numpy as np

import rivulet as tf

MB = 1 << 20


def _peak(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _model():
    rng = np.random.default_rng(0)
    big = tf.Variable(rng.random((1024, 4096), dtype=np.float32))  # 16 MB
    small = [tf.Variable(rng.random(64, dtype=np.float32)) for _ in range(20)]
    return big, small


def test_write_does_not_copy_the_variables(tmp_path):
    big, small = _model()
    ckpt = tf.train.Checkpoint(big=big, small=small)
    prefix = str(tmp_path / "ckpt")
    assert _peak(lambda: ckpt.write(prefix)) < 4 * MB  # was 16 MB more: every value copied by numpy()
    want = big.numpy()
    big.assign(np.zeros_like(want))
    ckpt.read(prefix)
    np.testing.assert_array_equal(big.numpy(), want)


def test_read_moves_each_value_once(tmp_path):
    big, small = _model()
    ckpt = tf.train.Checkpoint(big=big, small=small)
    prefix = str(tmp_path / "ckpt")
    ckpt.write(prefix)
    want = [v.numpy() for v in [big] + small]
    big.assign(np.zeros((1024, 4096), np.float32))
    peak = _peak(lambda: ckpt.read(prefix))
    assert peak < 20 * MB  # the 16 MB read once (was 32: the array read, then copied by assign)
    for v, w in zip([big] + small, want):
        np.testing.assert_array_equal(v.numpy(), w)
    # the restored value is the variable's own: changing the variable leaves a second restore intact
    big.assign_add(np.ones((1024, 4096), np.float32))
    ckpt.read(prefix)
    np.testing.assert_array_equal(big.numpy(), want[0])
