"""examples/digits_data.py: the digits model trained from a TFRecord -> parse -> cache -> shuffle -> batch
pipeline learns (a few epochs, to keep the suite fast)."""
import importlib.util
import os

import pytest

pytest.importorskip("sklearn")
PATH = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "digits_data.py")


def test_digits_from_a_tf_data_pipeline(capsys):
    spec = importlib.util.spec_from_file_location("digits_data", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    accuracy = mod.main(epochs=4)
    out = capsys.readouterr().out
    assert "(TensorSpec(shape=(None, 64), dtype=tf.float32, name=None), TensorSpec(shape=(None,), " \
           "dtype=tf.int64, name=None))" in out
    assert "43/43 - " in out
    assert accuracy > 0.85
