"""Export, check and run: each test compares onnxruntime's outputs with rivulet's.

The test modules skip themselves when the `onnx` extra (onnx, onnxruntime) is not installed."""
import numpy as np
import pytest

import rivulet as tf

try:
    import onnx
    import onnxruntime as ort
except ImportError:
    onnx = ort = None


class Runner:
    ort = ort

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.count = 0

    def export(self, source, **kw):
        """Exports to a file; checks the file with the full checker (shape inference included)."""
        self.count += 1
        path = self.tmp_path / f"model{self.count}.onnx"
        report = tf.onnx.export(source, path, **kw)
        onnx.checker.check_model(str(path), full_check=True)
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), report

    @staticmethod
    def run(sess, *args, **named):
        feeds = {i.name: np.asarray(a) for i, a in zip(sess.get_inputs(), args)}
        feeds.update({k: np.asarray(v) for k, v in named.items()})
        return sess.run(None, feeds)

    def check(self, fn, *args, rtol=1e-5, atol=1e-6, **kw):
        """fn(*args) in rivulet vs. the export of its concrete function for args, run on the same args."""
        expected = [np.asarray(t) for t in tf.nest.flatten(fn(*args)) if isinstance(t, tf.Tensor)]
        sess, report = self.export(fn.get_concrete_function(*args), **kw)
        got = self.run(sess, *[a for a in tf.nest.flatten(args) if isinstance(a, (tf.Tensor, np.ndarray))])
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape, (g, e)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
        return report


@pytest.fixture
def rt(tmp_path):
    return Runner(tmp_path)
