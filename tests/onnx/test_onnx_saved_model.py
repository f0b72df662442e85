"""Exporting a saved model's signatures: from Python and with `python -m rivulet export-onnx`."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rivulet as tf

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

SRC = os.path.dirname(os.path.dirname(tf.__file__))


class Classifier(tf.Module):
    def __init__(self):
        rng = np.random.default_rng(1)
        self.w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32), name="w")
        self.b = tf.Variable(np.zeros(3, np.float32), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def scores(self, x):
        return {"probabilities": tf.nn.softmax(x @ self.w + self.b), "label": tf.argmax(x @ self.w, 1)}

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([], tf.float32)])
    def scaled(self, x, k):
        return tf.cond(k > 0, lambda: x * k, lambda: -x)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    m = Classifier()
    path = str(tmp_path_factory.mktemp("sm") / "classifier")
    tf.saved_model.save(m, path, signatures={"serving_default": m.scores, "scaled": m.scaled})
    return m, path


X = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)


def test_default_signature_outputs_are_named_by_its_keys(rt, saved):
    m, path = saved
    sess, report = rt.export(path)
    assert report.input_names == ["x"] and report.output_names == ["label", "probabilities"]
    label, probabilities = rt.run(sess, X)
    want = m.scores(X)
    np.testing.assert_allclose(probabilities, want["probabilities"].numpy(), rtol=1e-5)
    np.testing.assert_array_equal(label, want["label"].numpy())


def test_named_signature_with_a_cond(rt, saved):
    m, path = saved
    sess, report = rt.export(path, signature="scaled", opset=13)
    for k in (2.0, -1.0):
        np.testing.assert_allclose(rt.run(sess, X, np.float32(k))[0], m.scaled(X, k).numpy(), rtol=1e-6)


def test_missing_signature_names_the_ones_there(saved):
    with pytest.raises(ValueError, match=r"has no signature 'nope' \(it has: scaled, serving_default\)"):
        tf.onnx.export(saved[1], None, signature="nope")


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "rivulet", "export-onnx", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_command_line(rt, saved, tmp_path):
    m, path = saved
    out = tmp_path / "scaled.onnx"
    p = _cli(path, "-o", str(out), "--signature", "scaled", "--opset", "18")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"Exported to {out}: inputs x, k -> outputs output_0"
    sess = rt.ort.InferenceSession(str(out))
    np.testing.assert_allclose(sess.run(None, {"x": X, "k": np.array(3, np.float32)})[0], X * 3, rtol=1e-6)
    p = _cli(path, "-o", str(out), "--signature", "nope")
    assert p.returncode == 1 and "export-onnx: The saved model at" in p.stderr and "nope" in p.stderr
    assert _cli(path, "-o", str(out), "--opset", "9").returncode == 2  # argparse rejects the opset
